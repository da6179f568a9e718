//! A hint to the CPU to start loading the memory a [`Waker`] points at, so that the async
//! driver can overlap the cache misses of a batch of wakes instead of taking them one at a
//! time. A prefetch never faults and changes nothing but the cache; on CPUs this does not
//! know it does nothing.
//!
//! A waker's task lives in its executor's memory, which the driver thread last touched (if
//! ever) when the timer was registered, up to a whole spread of deadlines before: at 100,000
//! timers, waking it costs the driver a miss to main memory on the task's state word
//! (`docs/driver-cost.md`).

use std::task::Waker;

/// A `Waker` is a data pointer and a vtable pointer (`RawWaker`), in an order the standard
/// library does not promise; both are prefetched, the vtable's being static and cheap.
/// (`Waker::data`, which names the first, needs Rust 1.83, above this crate's minimum.)
const _: () = assert!(std::mem::size_of::<Waker>() == 2 * std::mem::size_of::<*const u8>());

/// Starts loading the cache lines `waker`'s two pointers point at.
pub(crate) fn prefetch_waker(waker: &Waker) {
    // SAFETY: the assertion above: a `Waker` is exactly two pointers, with no padding, so
    // its bytes read as two pointers. They are only handed to a prefetch, which never
    // dereferences them.
    let words = unsafe { *(waker as *const Waker).cast::<[*const u8; 2]>() };
    for address in words {
        prefetch(address);
    }
}

/// Starts loading the cache line `value` starts on: for a walk along a list whose next
/// element is known an element or more before it is read.
pub(crate) fn prefetch_ref<T>(value: &T) {
    prefetch((value as *const T).cast::<u8>());
}

#[cfg(target_arch = "x86_64")]
fn prefetch(address: *const u8) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: `prefetcht0` is part of SSE, which every x86_64 CPU has; it never faults,
    // whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>());
    }
}

#[cfg(target_arch = "aarch64")]
fn prefetch(address: *const u8) {
    // SAFETY: `prfm` is a hint that never faults, whatever the address, and writes nothing.
    unsafe {
        std::arch::asm!(
            "prfm pldl1keep, [{address}]",
            address = in(reg) address,
            options(nostack, readonly, preserves_flags)
        );
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn prefetch(_address: *const u8) {}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use punctual_test_support::WakeCount;

    use super::*;

    /// A prefetched waker is untouched: it still wakes its task, once, and still counts as
    /// the same waker.
    #[test]
    fn a_prefetched_waker_still_wakes_its_task() {
        let count = WakeCount::new();
        let waker = Waker::from(Arc::clone(&count));
        let clone = waker.clone();
        prefetch_waker(&waker);
        prefetch_waker(&futures::task::noop_waker());
        assert!(waker.will_wake(&clone));
        waker.wake();
        assert_eq!(count.get(), 1);
        assert_eq!(
            Arc::strong_count(&count),
            2,
            "the clone's reference, nothing leaked"
        );
    }
}

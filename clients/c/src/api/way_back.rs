use std::cell::RefCell;

use punctual::WayBack;

use crate::clock;
use crate::status::guard_value;

thread_local! {
    static WAY_BACK: RefCell<WayBack> = const { RefCell::new(WayBack::new()) };
}

/// How long before a deadline this thread's `punctual_sleep_until_inline_ns` hands the wait
/// over to the caller's code, in nanoseconds: the thread's learned way back from the
/// library to its caller (the 95th percentile of its last 64, with half again, 1 to 50 us;
/// 20 us before the first). The inline functions call this; a caller writing its own last
/// stretch may too.
///
/// Thread-safe: each thread learns its own.
#[no_mangle]
pub extern "C" fn punctual_way_back_ns() -> i64 {
    guard_value(0, || {
        WAY_BACK
            .try_with(|way_back| {
                way_back
                    .try_borrow_mut()
                    .map_or(0, |mut w| clock::duration_ns(w.lead()))
            })
            .unwrap_or(0)
    })
}

/// Records one way back on this thread: from a wait's wake at `woke_ns` (its report's
/// `woke_ns`) to now, as the caller arrived back. A `woke_ns` after now records zero.
///
/// Thread-safe: each thread learns its own.
#[no_mangle]
pub extern "C" fn punctual_way_back_record_ns(woke_ns: i64) {
    guard_value((), || {
        let cost =
            clock::nanos(u64::try_from(clock::now_ns().saturating_sub(woke_ns)).unwrap_or(0));
        let _ = WAY_BACK.try_with(|way_back| {
            if let Ok(mut way_back) = way_back.try_borrow_mut() {
                way_back.record(cost);
            }
        });
    })
}

//! Reads and writes through C pointers, and calls of C callbacks.

use std::ffi::c_void;
use std::mem::{align_of, size_of};

use crate::status::Failure;

/// A versioned report struct: a `uint32_t size` first, set by the caller to the `sizeof`
/// it was compiled with, then fields that later versions only ever append to.
pub(crate) trait Report: Copy {
    /// The C name, for messages.
    const NAME: &'static str;
    /// Sets the `size` field.
    fn set_size(&mut self, size: u32);
}

fn aligned<T>(ptr: *const T, what: &str) -> Result<(), Failure> {
    if (ptr as usize) % align_of::<T>() == 0 {
        Ok(())
    } else {
        Err(Failure::invalid(format!(
            "{what} is not aligned for its type ({} bytes)",
            align_of::<T>()
        )))
    }
}

/// Writes `value` to `*out`.
pub(crate) fn write<T: Copy>(out: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null(what));
    }
    aligned(out, what)?;
    // SAFETY: non-null and aligned, and by the header's contract for every out parameter a
    // valid, writable object of this type; `T: Copy` has no destructor to run on the old value.
    unsafe { out.write(value) };
    Ok(())
}

/// Checks, before anything waits, that a report pointer can take a report: `NULL` when
/// `optional`, or aligned with a `size` at least this version's `sizeof`.
pub(crate) fn check_report<T: Report>(
    out: *mut T,
    what: &str,
    optional: bool,
) -> Result<(), Failure> {
    if out.is_null() {
        return if optional {
            Ok(())
        } else {
            Err(Failure::null(what))
        };
    }
    aligned(out, what)?;
    // SAFETY: non-null and aligned; by the header's contract `out` points to a struct of
    // this kind, whose first field is its `uint32_t size`, set by the caller.
    let size = unsafe { out.cast::<u32>().read() };
    let ours = size_of::<T>();
    if (size as usize) < ours {
        return Err(Failure::invalid(format!(
            "{what}->size is {size}: set it to sizeof({}) ({ours} here) before the call",
            T::NAME
        )));
    }
    Ok(())
}

/// Writes a report checked by [`check_report`]; its `size` becomes this version's `sizeof`,
/// and the bytes of a larger (newer) caller struct past that are left alone.
pub(crate) fn write_report<T: Report>(
    out: *mut T,
    mut value: T,
    what: &str,
    optional: bool,
) -> Result<(), Failure> {
    check_report(out, what, optional)?;
    if out.is_null() {
        return Ok(());
    }
    value.set_size(size_of::<T>() as u32);
    // SAFETY: checked just above: aligned, and the caller's struct holds at least
    // size_of::<T>() bytes; T is a plain repr(C) struct of integers and pointers.
    unsafe { out.write(value) };
    Ok(())
}

/// The `count` values at `values` (`NULL` only with a count of zero).
pub(crate) fn read_slice<T: Copy>(
    values: *const T,
    count: usize,
    what: &str,
) -> Result<Vec<T>, Failure> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if values.is_null() {
        return Err(Failure::null(what));
    }
    aligned(values, what)?;
    if count > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Failure::invalid(format!(
            "{what}: a count of {count} is more than memory holds"
        )));
    }
    // SAFETY: non-null, aligned, and by the header's contract `count` readable values;
    // the byte length fits in isize (checked above), as from_raw_parts requires.
    Ok(unsafe { std::slice::from_raw_parts(values, count) }.to_vec())
}

/// Writes `values` to the first of the `capacity` slots at `out` (`NULL` only with a
/// capacity of zero); `values` must fit.
pub(crate) fn write_slice<T: Copy>(
    out: *mut T,
    capacity: usize,
    values: &[T],
    what: &str,
) -> Result<(), Failure> {
    if capacity == 0 {
        return Ok(());
    }
    if out.is_null() {
        return Err(Failure::null(what));
    }
    aligned(out, what)?;
    let count = values.len().min(capacity);
    // SAFETY: non-null, aligned, and by the header's contract `capacity` writable values of
    // this type, of which `count` are written; `values` is Rust memory, so the two cannot
    // overlap, and `T: Copy` has no destructor to run on the old values.
    unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), out, count) };
    Ok(())
}

/// Calls a probe's sleep.
pub(crate) fn call_sleep(
    sleep: unsafe extern "C" fn(u32, *mut c_void) -> i32,
    ms: u32,
    user_data: *mut c_void,
) -> i32 {
    // SAFETY: as for `call_condition`.
    unsafe { sleep(ms, user_data) }
}

/// Calls a poll condition.
pub(crate) fn call_condition(
    condition: unsafe extern "C" fn(*mut c_void) -> i32,
    user_data: *mut c_void,
) -> i32 {
    // SAFETY: a C function the caller passed for this purpose, with the user data it passed
    // along; the header forbids it to unwind (a C++ exception, longjmp) into punctual.
    unsafe { condition(user_data) }
}

/// Calls a before-sleep hook.
pub(crate) fn call_hook(hook: unsafe extern "C" fn(*mut c_void), user_data: *mut c_void) {
    // SAFETY: as for `call_condition`.
    unsafe { hook(user_data) }
}

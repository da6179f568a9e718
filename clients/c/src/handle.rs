//! Opaque handles: keys into a registry of live objects, never addresses C could misuse.
//!
//! A handle is a number handed to C as a pointer type and never dereferenced. Every call
//! looks it up, so a freed handle (a double free included), one of another kind, `NULL` or
//! a made-up value is an error code rather than a crash, and since numbers are never reused
//! a stale handle cannot reach a newer object. The registry holds an [`Arc`]: a handle freed
//! while another thread is inside a call with it is gone for every later call, and its
//! object lives until that call returns. Each object sits behind a [`Mutex`] taken with
//! `try_lock`: a second thread calling with a handle already in use gets
//! `PUNCTUAL_E_BUSY`, not a data race.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, RwLock, TryLockError};

use punctual::rt::DmaLatencyGuard;
use punctual::{Sleeper, Ticker};

use crate::status::{Failure, PUNCTUAL_E_BUSY, PUNCTUAL_E_INVALID_HANDLE};

/// A live object behind a handle.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    Sleeper(Arc<Mutex<Sleeper>>),
    Ticker(Arc<Mutex<Ticker>>),
    DmaLatency(Arc<DmaLatencyGuard>),
}

/// A kind of object C holds handles to.
pub(crate) trait Kind: Sized {
    /// The C type's name, for messages.
    const NAME: &'static str;
    /// The object in `entry`, if it is of this kind.
    fn from_entry(entry: &Entry) -> Option<Arc<Self>>;
    /// `object` as an entry.
    fn into_entry(object: Arc<Self>) -> Entry;
}

macro_rules! kind {
    ($type:ty, $variant:ident, $name:literal) => {
        impl Kind for $type {
            const NAME: &'static str = $name;
            fn from_entry(entry: &Entry) -> Option<Arc<Self>> {
                match entry {
                    Entry::$variant(object) => Some(Arc::clone(object)),
                    _ => None,
                }
            }
            fn into_entry(object: Arc<Self>) -> Entry {
                Entry::$variant(object)
            }
        }
    };
}

kind!(Mutex<Sleeper>, Sleeper, "punctual_sleeper");
kind!(Mutex<Ticker>, Ticker, "punctual_ticker");
kind!(DmaLatencyGuard, DmaLatency, "punctual_dma_latency");

static LIVE: LazyLock<RwLock<HashMap<usize, Entry>>> = LazyLock::new(Default::default);

/// Handle numbers step by 16 from 16, so none is `NULL` and every one is aligned like a
/// pointer to anything (some C code checks).
static NEXT_KEY: AtomicUsize = AtomicUsize::new(1);

fn live() -> std::sync::RwLockReadGuard<'static, HashMap<usize, Entry>> {
    LIVE.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn live_mut() -> std::sync::RwLockWriteGuard<'static, HashMap<usize, Entry>> {
    LIVE.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Registers `object` and returns its handle's number.
pub(crate) fn insert<K: Kind>(object: K) -> usize {
    let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed) << 4;
    live_mut().insert(key, K::into_entry(Arc::new(object)));
    key
}

fn not_live<K: Kind>(key: usize) -> Failure {
    Failure::new(
        PUNCTUAL_E_INVALID_HANDLE,
        format!(
            "{key:#x} is not a live {}: freed already, of another kind, or never returned by punctual",
            K::NAME
        ),
    )
}

/// The object behind handle `key`.
pub(crate) fn get<K: Kind>(key: usize) -> Result<Arc<K>, Failure> {
    live()
        .get(&key)
        .and_then(K::from_entry)
        .ok_or_else(|| not_live::<K>(key))
}

/// Unregisters handle `key`; the object goes when the last call using it returns.
pub(crate) fn remove<K: Kind>(key: usize) -> Result<(), Failure> {
    let mut live = live_mut();
    match live.get(&key).and_then(K::from_entry) {
        Some(_) => {
            live.remove(&key);
            Ok(())
        }
        None => Err(not_live::<K>(key)),
    }
}

/// Runs `f` on the object behind a `Mutex` handle, or fails with `PUNCTUAL_E_BUSY` when
/// another thread is using it.
pub(crate) fn with<T, R>(key: usize, f: impl FnOnce(&mut T) -> R) -> Result<R, Failure>
where
    Mutex<T>: Kind,
{
    let object = get::<Mutex<T>>(key)?;
    let mut guard: MutexGuard<'_, T> = match object.try_lock() {
        Ok(guard) => guard,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => {
            return Err(Failure::new(
                PUNCTUAL_E_BUSY,
                format!(
                    "{} {key:#x} is in use by another thread; a handle takes one call at a time",
                    <Mutex<T> as Kind>::NAME
                ),
            ))
        }
    };
    Ok(f(&mut guard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_is_gone_after_free_and_never_reused() {
        let first = insert(Mutex::new(Sleeper::native()));
        assert!(get::<Mutex<Sleeper>>(first).is_ok());
        assert!(get::<Mutex<Ticker>>(first).is_err(), "another kind");
        remove::<Mutex<Sleeper>>(first).unwrap();
        let twice = remove::<Mutex<Sleeper>>(first).unwrap_err();
        assert_eq!(twice.code, PUNCTUAL_E_INVALID_HANDLE);
        let second = insert(Mutex::new(Sleeper::native()));
        assert_ne!(first, second);
        assert!(get::<Mutex<Sleeper>>(first).is_err());
        remove::<Mutex<Sleeper>>(second).unwrap();
    }
}

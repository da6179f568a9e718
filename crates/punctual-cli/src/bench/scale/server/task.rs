//! One timeout's task and its record: the task registers the timeout on its first poll
//! and writes how it ended to its slot, with relaxed stores and no lock; a slot's state
//! moves once, by compare-and-swap, so every registered timeout ends exactly one way.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, Ordering::*};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::bench::scale::timers::ScaleTimer;

/// A slot's states: spawned, not yet polled.
pub(super) const SPAWNED: u8 = 0;
/// Registered and pending.
pub(super) const PENDING: u8 = 1;
/// Fired while the pending set was still being registered (counted, not in the lateness).
pub(super) const FIRED_IN_FILL: u8 = 2;
/// Fired during the churn; its lateness is in the slot.
pub(super) const FIRED: u8 = 3;
/// Dropped before its deadline; its cancellation lag is in the slot.
pub(super) const CANCELLED: u8 = 4;
/// Still pending when the churn ended.
pub(super) const LEFT: u8 = 5;
/// Never polled by the time the churn ended.
pub(super) const UNPOLLED: u8 = 6;

/// One timeout's record.
pub(super) struct Slot {
    /// When it was registered, in nanoseconds from the run's epoch.
    pub(super) registered_ns: AtomicU64,
    /// `FIRED`: its lateness. `CANCELLED`: how long after its cancellation time it was
    /// dropped.
    pub(super) outcome_ns: AtomicI64,
    /// When the pacer cancelled it, from the epoch: left before the abort, which the drop
    /// that follows sees.
    pub(super) cancel_due_ns: AtomicU64,
    pub(super) state: AtomicU8,
}

/// What the tasks, the pacer and the summary share.
pub(super) struct Shared {
    pub(super) epoch: Instant,
    /// Timeouts in the pending set: the first slots.
    pub(super) pending: usize,
    pub(super) slots: Box<[Slot]>,
    /// Timeouts of the pending set registered so far.
    pub(super) filled: AtomicU64,
    /// Timeouts of the pending set fired or cancelled so far: `filled` less these are
    /// pending now.
    pub(super) fill_ended: AtomicU64,
    /// When the churn started, from the epoch; `u64::MAX` before.
    pub(super) churn_start_ns: AtomicU64,
    pub(super) done: Notify,
}

impl Shared {
    pub(super) fn now_ns(&self) -> u64 {
        nanos(self.epoch.elapsed())
    }

    /// Timeouts of the pending set pending now.
    pub(super) fn fill_pending(&self) -> u64 {
        let ended = self.fill_ended.load(Acquire);
        self.filled.load(Acquire).saturating_sub(ended)
    }

    /// Counts the end of timeout `index`, when it is one of the pending set.
    fn ended(&self, index: usize) {
        if index < self.pending {
            self.fill_ended.fetch_add(1, Release);
        }
    }
}

/// The task of one timeout: registers it, and records how it ended.
pub(super) async fn timeout<T: ScaleTimer>(
    timer: T,
    shared: Arc<Shared>,
    index: usize,
    length: Duration,
) {
    let slot = &shared.slots[index];
    let registered = Instant::now();
    let deadline = registered + length;
    let mut sleep = pin!(timer.sleep_until(deadline));
    let mut polled = false;
    // Dropped with the task: an abort is the cancellation.
    let _cancel = Cancelled(&shared, index);
    poll_fn(|cx| {
        if polled {
            return sleep.as_mut().poll(cx).map(drop);
        }
        // Registered by this first poll, unless the churn ended before it came; the time
        // is stored first, for the pacer that sees it pending.
        slot.registered_ns
            .store(nanos(registered - shared.epoch), Relaxed);
        if slot
            .state
            .compare_exchange(SPAWNED, PENDING, AcqRel, Relaxed)
            .is_err()
        {
            return Poll::Ready(());
        }
        polled = true;
        let ready = sleep.as_mut().poll(cx).map(drop);
        if index < shared.pending {
            shared.filled.fetch_add(1, Release);
        }
        ready
    })
    .await;
    if !polled {
        return;
    }
    let late = signed_nanos(Instant::now(), deadline);
    let fired = if shared.now_ns() >= shared.churn_start_ns.load(Acquire) {
        FIRED
    } else {
        FIRED_IN_FILL
    };
    if slot
        .state
        .compare_exchange(PENDING, fired, AcqRel, Relaxed)
        .is_ok()
    {
        slot.outcome_ns.store(late, Relaxed);
        shared.ended(index);
    }
}

/// Records a cancellation when the task is dropped with its timeout pending.
struct Cancelled<'a>(&'a Shared, usize);

impl Drop for Cancelled<'_> {
    fn drop(&mut self) {
        let slot = &self.0.slots[self.1];
        let now = self.0.now_ns();
        if slot
            .state
            .compare_exchange(PENDING, CANCELLED, AcqRel, Relaxed)
            .is_ok()
        {
            let due = slot.cancel_due_ns.load(Relaxed);
            slot.outcome_ns.store(now as i64 - due as i64, Relaxed);
            self.0.ended(self.1);
        }
    }
}

pub(super) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn signed_nanos(woke: Instant, deadline: Instant) -> i64 {
    if woke >= deadline {
        i64::try_from((woke - deadline).as_nanos()).unwrap_or(i64::MAX)
    } else {
        -i64::try_from((deadline - woke).as_nanos()).unwrap_or(i64::MAX)
    }
}

//! Protocol 2: many outstanding wakes, each tagged with a 64-bit id, over one port.
//!
//! Two threads. The reader (the main thread) reads frames, decodes their messages (see
//! [`wire`]) and posts them to an inbox in bursts (`inbox.rs`, which also holds the reader
//! back while the timer thread cannot write); the timer thread (`scheduler.rs`) keeps the
//! pending wakes in a timer queue (`queue.rs`), fires them, and writes the answers. A
//! malformed message gets an error answer and the port carries on; only a frame cut short
//! by the end of input ends it (status 2), as in protocol 1. At the end of input the
//! program exits 0 at once: its owner has gone, and the wakes still pending have nobody to
//! answer.

mod inbox;
mod probing;
pub(crate) mod queue;
mod scheduler;
pub mod wire;

use std::io::{Read, Write};
use std::sync::{mpsc, Arc};
use std::thread;

use self::inbox::{Command, Inbox, MAIL_LIMIT};
use self::probing::Prober;
use self::queue::TimerQueue;
use self::scheduler::Scheduler;
use crate::clock::PortClock;
use crate::exit::Exit;
use crate::frame::{FrameReader, FrameWriter};
use crate::priority::{Priority, Realtime};

/// How protocol 2 is set up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Config {
    /// The port-wide floor of every wake's spin tail, in nanoseconds.
    pub(crate) spin_ns: u64,
    /// How many wakes may be pending at once.
    pub(crate) max_pending: usize,
}

/// Serves protocol 2 until the input ends (0), a frame is cut short (2), or the answers
/// can no longer be written (0). Both threads run with the scheduling `realtime` asks for;
/// exits 3 if `--priority` is refused to either.
pub(crate) fn serve(
    input: Box<dyn Read + Send>,
    output: Box<dyn Write + Send>,
    config: Config,
    realtime: Realtime,
) -> Exit {
    let mut priority = match Priority::apply_or_exit(realtime, true) {
        Ok(priority) => priority,
        Err(exit) => return exit,
    };
    let clock = PortClock::start();
    let inbox = match Inbox::new(clock, MAIL_LIMIT) {
        Ok(inbox) => Arc::new(inbox),
        Err(e) => return Exit::setup("the timer thread's doorbell", &e),
    };
    let timer_inbox = Arc::clone(&inbox);
    let (started, start) = mpsc::sync_channel(1);
    let spawned = thread::Builder::new().name("timer".into()).spawn(move || {
        // Its own priority: scheduling is per thread, and this is the thread that must
        // wake on time. The reader has already said what was refused.
        let priority = match Priority::apply_or_exit(realtime, false) {
            Ok(priority) => priority,
            Err(exit) => return started.send(exit).unwrap_or(()),
        };
        let _ = started.send(Exit::Done);
        let scheduler = Scheduler {
            clock,
            queue: TimerQueue::new(config.max_pending),
            inbox: timer_inbox,
            out: FrameWriter::new(output),
            port_spin_ns: config.spin_ns,
            priority,
            prober: Prober::default(),
        };
        // The only error is a failed write: nobody reads the answers any more.
        let _gone = scheduler.run();
        std::process::exit(Exit::Done.code().into());
    });
    if let Err(e) = spawned {
        return Exit::setup("the timer thread", &e);
    }
    match start.recv() {
        Ok(Exit::Done) => {}
        Ok(exit) => return exit,
        Err(e) => return Exit::setup("the timer thread", &e),
    }

    let mut frames = FrameReader::new(input);
    let mut batch = Vec::new();
    loop {
        if !frames.next_frame_buffered() {
            // The next read may block: hand over what has been decoded first.
            inbox.post(&mut batch);
            priority.follow_now_and_then();
        }
        let payload = match frames.next_frame() {
            Ok(Some(payload)) => payload,
            Ok(None) => return Exit::Done,
            Err(short) => return Exit::malformed(&short),
        };
        batch.extend(wire::decode_requests(payload).map(|decoded| match decoded {
            Ok(request) => Command::Serve(request),
            Err(malformed) => Command::Reject(malformed),
        }));
    }
}

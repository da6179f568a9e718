//! Drives the `punctual-port` binary through its pipes, as the BEAM does.
//!
//! Frames are read by a thread and handed over through a channel, so that a port that
//! stops answering fails a test after a timeout instead of hanging it.

#![allow(dead_code)] // each test file uses its own part of this

pub mod protocol2;

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use punctual_port::frame::{push_frame, FrameReader};
use punctual_test_support::started;

/// Long enough for a loaded 2-core VM (or Wine) to start a process and answer; short
/// enough that a hung port fails the test in reasonable time.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_punctual-port")
}

pub struct Port {
    pub child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<Vec<u8>>,
    /// Lets the frame reader start, for a port spawned with [`Port::spawn_unread`].
    start_reading: Option<SyncSender<()>>,
    stderr: Option<JoinHandle<String>>,
}

impl Port {
    /// Starts the binary with `args`, its three standard streams piped to this test.
    pub fn spawn(args: &[&str]) -> Port {
        Port::spawn_command(Command::new(binary()).args(args))
    }

    pub fn spawn_command(command: &mut Command) -> Port {
        let mut port = Port::spawn_command_unread(command);
        port.start_reading();
        port
    }

    /// Starts the binary with `args`, but reads none of its answers before
    /// [`Port::start_reading`]: a client that does not drain the port's output.
    pub fn spawn_unread(args: &[&str]) -> Port {
        Port::spawn_command_unread(Command::new(binary()).args(args))
    }

    fn spawn_command_unread(command: &mut Command) -> Port {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = started(|| command.spawn()).expect("start punctual-port");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let (sender, frames) = mpsc::channel();
        let (start_reading, go) = mpsc::sync_channel(1);
        thread::spawn(move || {
            if go.recv().is_err() {
                return;
            }
            let mut reader = FrameReader::new(stdout);
            while let Ok(Some(frame)) = reader.next_frame() {
                if sender.send(frame.to_vec()).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Port {
            stdin: child.stdin.take(),
            child,
            frames,
            start_reading: Some(start_reading),
            stderr: Some(stderr),
        }
    }

    /// Lets the frame reader read the port's output from now on.
    pub fn start_reading(&mut self) {
        if let Some(go) = self.start_reading.take() {
            let _ = go.send(());
        }
    }

    /// Closes the port's output unread, for a port spawned with [`Port::spawn_unread`]: its
    /// owner has gone without reading the answers.
    pub fn close_output_unread(&mut self) {
        // The frame reader, told neither to start, ends and drops the pipe.
        self.start_reading = None;
    }

    /// Writes raw bytes to the port's stdin.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes).expect("write to the port");
        stdin.flush().expect("flush to the port");
    }

    /// Writes one frame.
    pub fn send_frame(&mut self, payload: &[u8]) {
        let mut bytes = Vec::new();
        push_frame(&mut bytes, payload);
        self.send_raw(&bytes);
    }

    /// The next answer frame; panics after [`PATIENCE`].
    pub fn next_frame(&self) -> Vec<u8> {
        self.next_frame_within(PATIENCE)
            .expect("an answer from the port")
    }

    /// The next answer frame, or `None` if none comes within `timeout` or the port closed
    /// its output.
    pub fn next_frame_within(&self, timeout: Duration) -> Option<Vec<u8>> {
        self.frames.recv_timeout(timeout).ok()
    }

    /// Closes the port's stdin: its owner is done.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Takes the port's stdin, to hand it to another process or thread.
    pub fn take_input(&mut self) -> ChildStdin {
        self.stdin.take().expect("input still open")
    }

    /// Waits for the port to exit (panics after [`PATIENCE`]); its status and stderr.
    pub fn wait(mut self) -> (ExitStatus, String) {
        let status = wait_exit(&mut self.child, PATIENCE).expect("the port exits");
        let stderr = self
            .stderr
            .take()
            .expect("stderr")
            .join()
            .expect("stderr reader");
        (status, stderr)
    }
}

impl Drop for Port {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `child` until it exits or `timeout` passes.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let give_up = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= give_up {
            return None;
        }
        thread::sleep(Duration::from_millis(5));
    }
}

//! `{packet, 2}` framing, as the BEAM speaks it to a port: every frame is a two-byte
//! big-endian length, then that many bytes of payload. Both protocols use it in both
//! directions.
//!
//! Reading and writing are split from the protocols so that the parser can be fuzzed on its
//! own (`fuzz/fuzz_targets/frames.rs`) and so that a malformed stream is told apart from a
//! closed one in a single place.

use std::fmt;
use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};

/// The largest payload a two-byte length can announce.
pub const MAX_PAYLOAD: usize = u16::MAX as usize;

/// What the two-byte header said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// A frame of this many payload bytes follows.
    Length(usize),
    /// The input ended, or failed, before a whole header: the owner has gone.
    End,
}

/// The input ended (or failed) inside a payload: the stream is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShortPayload {
    /// The length the header announced.
    pub length: usize,
    /// How many payload bytes arrived before the input ended.
    pub got: usize,
}

impl fmt::Display for ShortPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the input ended after {} of the {} payload bytes of a frame",
            self.got, self.length
        )
    }
}

impl std::error::Error for ShortPayload {}

/// Reads frames from a byte stream through a buffer, so that a burst of small frames costs
/// one `read` rather than two per frame.
#[derive(Debug)]
pub struct FrameReader<R> {
    input: BufReader<R>,
    payload: Vec<u8>,
}

impl<R: Read> FrameReader<R> {
    /// Frames from `input`, read in chunks of up to 128 KiB (two of the largest frames).
    pub fn new(input: R) -> FrameReader<R> {
        FrameReader {
            input: BufReader::with_capacity(128 * 1024, input),
            payload: Vec::with_capacity(MAX_PAYLOAD),
        }
    }

    /// Reads the next two-byte header. An end of input, a partial header or a read error are
    /// all [`Header::End`]: nanosleep's program exits 0 on each, and so does ours.
    pub fn read_header(&mut self) -> Header {
        let mut header = [0u8; 2];
        match fill(&mut self.input, &mut header) {
            Ok(2) => Header::Length(usize::from(u16::from_be_bytes(header))),
            _ => Header::End,
        }
    }

    /// Reads the `length` bytes of payload a header announced.
    ///
    /// # Errors
    ///
    /// [`ShortPayload`] when the input ends or fails first.
    pub fn read_payload(&mut self, length: usize) -> Result<&[u8], ShortPayload> {
        self.payload.resize(length, 0);
        match fill(&mut self.input, &mut self.payload) {
            Ok(got) if got == length => Ok(&self.payload),
            Ok(got) => Err(ShortPayload { length, got }),
            Err((got, _)) => Err(ShortPayload { length, got }),
        }
    }

    /// Reads one whole frame: `Ok(None)` at the end of input.
    ///
    /// # Errors
    ///
    /// [`ShortPayload`] when the input ends inside the payload.
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>, ShortPayload> {
        match self.read_header() {
            Header::End => Ok(None),
            Header::Length(length) => self.read_payload(length).map(Some),
        }
    }

    /// Whether the next whole frame is already in the buffer. When it is not, the next
    /// [`FrameReader::next_frame`] reads, and may block: protocol 2 hands its batch of
    /// requests on at that point.
    pub fn next_frame_buffered(&self) -> bool {
        match self.input.buffer() {
            [high, low, rest @ ..] => rest.len() >= usize::from(u16::from_be_bytes([*high, *low])),
            _ => false,
        }
    }
}

/// Reads until `buf` is full or the input ends; the count read, or the count and the error.
fn fill(input: &mut impl BufRead, buf: &mut [u8]) -> Result<usize, (usize, io::Error)> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err((got, e)),
        }
    }
    Ok(got)
}

/// Appends `payload` to `out` as one frame.
///
/// # Panics
///
/// When `payload` is longer than [`MAX_PAYLOAD`]: a caller bug, since every message of both
/// protocols is a few dozen bytes and batches are cut before the limit.
pub fn push_frame(out: &mut Vec<u8>, payload: &[u8]) {
    let length = u16::try_from(payload.len()).expect("a frame payload fits in 64 KiB");
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(payload);
}

/// Packs messages into as few frames as fit, and writes them out in one go when flushed.
///
/// The BEAM delivers each frame as one message, so answers that fall due together reach
/// the owner as one message rather than many: the cost that limits throughput on the BEAM
/// side is per message.
#[derive(Debug)]
pub struct FrameWriter<W: Write> {
    output: W,
    /// Whole frames ready to write.
    ready: Vec<u8>,
    /// The payload of the frame being filled.
    open: Vec<u8>,
}

impl<W: Write> FrameWriter<W> {
    /// Frames for `output`; nothing reaches it before [`FrameWriter::flush`].
    pub fn new(output: W) -> FrameWriter<W> {
        FrameWriter {
            output,
            ready: Vec::with_capacity(64 * 1024),
            open: Vec::with_capacity(MAX_PAYLOAD),
        }
    }

    /// Adds one message to the open frame, closing it first if the message would not fit.
    pub fn push(&mut self, message: &[u8]) {
        if self.open.len() + message.len() > MAX_PAYLOAD {
            self.close_frame();
        }
        self.open.extend_from_slice(message);
    }

    /// Whether anything waits to be written.
    pub fn is_empty(&self) -> bool {
        self.ready.is_empty() && self.open.is_empty()
    }

    /// Writes every pending frame with one `write` where the pipe takes it all.
    ///
    /// # Errors
    ///
    /// The write's error: the reader has gone.
    pub fn flush(&mut self) -> io::Result<()> {
        self.close_frame();
        if self.ready.is_empty() {
            return Ok(());
        }
        let result = self
            .output
            .write_all(&self.ready)
            .and_then(|()| self.output.flush());
        self.ready.clear();
        result
    }

    fn close_frame(&mut self) {
        if !self.open.is_empty() {
            push_frame(&mut self.ready, &self.open);
            self.open.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_frames_then_the_end() {
        let input: &[u8] = &[0, 2, 7, 8, 0, 0, 0, 1, 9];
        let mut frames = FrameReader::new(input);
        assert!(!frames.next_frame_buffered(), "nothing read yet");
        assert_eq!(frames.next_frame(), Ok(Some(&[7u8, 8][..])));
        assert!(frames.next_frame_buffered());
        assert_eq!(frames.next_frame(), Ok(Some(&[][..])));
        assert_eq!(frames.next_frame(), Ok(Some(&[9u8][..])));
        assert!(!frames.next_frame_buffered());
        assert_eq!(frames.next_frame(), Ok(None));
    }

    #[test]
    fn a_partial_header_is_the_end_and_a_partial_payload_is_not() {
        assert_eq!(FrameReader::new(&[0u8][..]).read_header(), Header::End);
        let mut frames = FrameReader::new(&[0u8, 8, 1, 2, 3][..]);
        assert_eq!(frames.next_frame(), Err(ShortPayload { length: 8, got: 3 }));
    }

    #[test]
    fn writer_packs_messages_into_frames_under_the_limit() {
        let mut out = Vec::new();
        let mut writer = FrameWriter::new(&mut out);
        let message = [0xAB; 1000];
        for _ in 0..70 {
            writer.push(&message);
        }
        assert!(!writer.is_empty());
        writer.flush().unwrap();
        assert!(writer.is_empty());
        let mut frames = FrameReader::new(&out[..]);
        let mut total = 0;
        let mut count = 0;
        while let Some(payload) = frames.next_frame().unwrap() {
            assert!(payload.len() <= MAX_PAYLOAD);
            assert_eq!(payload.len() % 1000, 0, "a message split across frames");
            total += payload.len();
            count += 1;
        }
        assert_eq!((total, count), (70_000, 2));
    }
}

//! A log read in chunks (a file or a big paste on the Diagnose page): bytes in, whole lines out. The lines are
//! exactly those of the whole input decoded by `kgadvise_core::text::decode_input` and split by
//! `str::lines`, whatever the chunk boundaries (a line or a UTF-8 character split across two chunks), so the
//! streamed answer equals the whole-text answer. Pure: the page does the reading and the yielding.

use kgadvise_core::text::{self, Encoding};

/// How many leading bytes decide the encoding (`text::detect` looks at no more than this).
const SNIFF_BYTES: usize = 512;
/// A "line" without a newline is cut here, so binary input cannot grow memory without bound.
const MAX_LINE_BYTES: usize = 8 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Fewer than [`SNIFF_BYTES`] seen: the encoding is not known yet.
    Sniffing,
    Utf8,
    /// UTF-16 (PowerShell's `>`): such logs are small, so they are decoded whole at the end.
    Utf16,
}

/// Splits a byte stream into the lines of its text.
#[derive(Debug)]
pub struct LogLines {
    state: State,
    /// The bytes not yet fed: a partial last line (UTF-8), or everything (sniffing, UTF-16).
    pending: Vec<u8>,
}

impl Default for LogLines {
    fn default() -> Self {
        LogLines {
            state: State::Sniffing,
            pending: Vec::new(),
        }
    }
}

impl LogLines {
    /// The next chunk: every line it completes goes to `feed` (without its line end).
    pub fn push(&mut self, chunk: &[u8], feed: &mut impl FnMut(&str)) {
        self.pending.extend_from_slice(chunk);
        if self.state == State::Sniffing && self.pending.len() >= SNIFF_BYTES {
            self.decide();
        }
        if self.state != State::Utf8 {
            return;
        }
        match self.pending.iter().rposition(|b| *b == b'\n') {
            Some(end) => {
                feed_lines(&self.pending[..=end], feed);
                self.pending.drain(..=end);
            }
            None if self.pending.len() > MAX_LINE_BYTES => {
                feed_lines(&self.pending, feed);
                self.pending.clear();
            }
            None => {}
        }
    }

    /// The end of the input: the last line (if it had no newline), or the whole UTF-16 text.
    pub fn finish(mut self, feed: &mut impl FnMut(&str)) {
        if self.state == State::Sniffing {
            self.decide();
        }
        match self.state {
            State::Utf16 => {
                for line in text::decode_input(&self.pending).lines() {
                    feed(line);
                }
            }
            _ => feed_lines(&self.pending, feed),
        }
    }

    /// The encoding, from the first bytes as `decode_input` decides it; a UTF-8 BOM is dropped.
    fn decide(&mut self) {
        self.state = match text::detect(&self.pending).0 {
            Encoding::Utf16Le | Encoding::Utf16Be => State::Utf16,
            Encoding::Utf8Bom => {
                self.pending.drain(..3);
                State::Utf8
            }
            Encoding::Utf8 => State::Utf8,
        };
    }
}

/// The lines of UTF-8 bytes, read leniently. Cutting at a newline never splits a character nor a bad
/// sequence (0x0A is never part of one), so this equals the same lines of the lossily decoded whole.
fn feed_lines(bytes: &[u8], feed: &mut impl FnMut(&str)) {
    for line in String::from_utf8_lossy(bytes).lines() {
        feed(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &[u8], chunk: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut feed = |l: &str| out.push(l.to_string());
        let mut s = LogLines::default();
        for c in bytes.chunks(chunk.max(1)) {
            s.push(c, &mut feed);
        }
        s.finish(&mut feed);
        out
    }

    fn whole(bytes: &[u8]) -> Vec<String> {
        text::decode_input(bytes)
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn any_chunking_gives_the_lines_of_the_whole() {
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend("a,b\r\nÄ,😀\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        let long: String = (0..200).map(|i| format!("{i}, 50 %, é😀\r\n")).collect();
        let inputs: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"\n".to_vec(),
            b"one line, no newline".to_vec(),
            b"\xEF\xBB\xBFbom,x\ny\n".to_vec(),
            b"bad \xE2\x82\nbytes \xFF\x00 here\n\nlast\r".to_vec(),
            long.into_bytes(),
            utf16,
        ];
        for input in &inputs {
            for chunk in [1, 2, 3, 5, 511, 512, 513, 4096, usize::MAX] {
                assert_eq!(
                    lines_of(input, chunk),
                    whole(input),
                    "chunk {chunk}: {input:?}"
                );
            }
        }
    }
}

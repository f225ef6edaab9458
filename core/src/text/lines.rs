//! The one line reader of every surface: bytes in, in chunks of any size (a file read 1 MiB at a time,
//! stdin, a browser file read in slices, a paste), whole decoded lines out. The encoding is decided as
//! [`crate::text::detect`] decides it for the whole input (UTF-8 with or without BOM, UTF-16 LE/BE with or
//! without BOM), so the lines are those of [`crate::text::decode_input`] of the whole input split at `\n`,
//! wherever the chunks are cut (inside a line, a UTF-8 character or a UTF-16 unit). Pure: the caller reads.
//!
//! Lines reach the sink in pieces of whole lines (each piece ends in `\n`, except the input's last line
//! and the pieces of an overlong line), so a consumer can read many lines per call. A line longer than
//! [`MAX_LINE_BYTES`] is cut into pieces of at most that size (binary input without newlines cannot grow
//! memory), each piece then read as a line of its own.

use crate::text::{Encoding, SNIFF, detect, units, utf16_lossy};

/// Lines longer than this (in bytes of UTF-8, the `\n` not counted) are cut into pieces of at most this
/// size, at a character boundary when the text is valid there.
pub const MAX_LINE_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Fewer than [`SNIFF`] bytes seen: the encoding is not known yet.
    Sniffing,
    Utf8,
    Utf16 {
        le: bool,
    },
}

/// Splits a byte stream into the decoded lines of its text: [`LineReader::push`] each chunk in order,
/// then [`LineReader::finish`].
#[derive(Debug)]
pub struct LineReader {
    mode: Mode,
    /// Sniffing: every byte so far. UTF-8: the start of an unfinished line. UTF-16: the bytes not decoded
    /// yet (an odd byte, a high surrogate waiting for its pair).
    pending: Vec<u8>,
    /// UTF-16: the decoded start of an unfinished line.
    text: Vec<u8>,
}

impl Default for LineReader {
    fn default() -> Self {
        LineReader::new()
    }
}

impl LineReader {
    pub fn new() -> LineReader {
        LineReader {
            mode: Mode::Sniffing,
            pending: Vec::new(),
            text: Vec::new(),
        }
    }

    /// The next chunk of the input: every piece of whole lines it completes goes to `sink`.
    pub fn push(&mut self, chunk: &[u8], sink: &mut impl FnMut(&str)) {
        match self.mode {
            Mode::Sniffing if self.pending.is_empty() && chunk.len() >= SNIFF => {
                let bom = self.decide(chunk);
                self.push(chunk.get(bom..).unwrap_or_default(), sink);
            }
            Mode::Sniffing => {
                self.pending.extend_from_slice(chunk);
                if self.pending.len() >= SNIFF {
                    let head = std::mem::take(&mut self.pending);
                    let bom = self.decide(&head);
                    self.push(head.get(bom..).unwrap_or_default(), sink);
                }
            }
            Mode::Utf8 => lines(&mut self.pending, chunk, sink),
            Mode::Utf16 { le } => self.utf16(chunk, le, sink),
        }
    }

    /// The end of the input: its last line, when it had no newline.
    pub fn finish(&mut self, sink: &mut impl FnMut(&str)) {
        if self.mode == Mode::Sniffing {
            let head = std::mem::take(&mut self.pending);
            let bom = self.decide(&head);
            self.push(head.get(bom..).unwrap_or_default(), sink);
        }
        match self.mode {
            Mode::Utf16 { .. } => {
                // A high surrogate without its pair, then an odd byte: as `decode_input` reads them.
                let lone = self.pending.len() >= 2;
                let odd = self.pending.len() % 2 == 1;
                for _ in 0..usize::from(lone) + usize::from(odd) {
                    self.text.extend_from_slice("\u{FFFD}".as_bytes());
                }
                self.pending.clear();
                emit(&std::mem::take(&mut self.text), sink);
            }
            _ => emit(&std::mem::take(&mut self.pending), sink),
        }
    }

    /// True between two lines of UTF-8 input: the encoding is decided and nothing is held back, so what
    /// follows may be read apart (the CLI's parallel reader) and handed on as whole lines.
    pub fn between_utf8_lines(&self) -> bool {
        self.mode == Mode::Utf8 && self.pending.is_empty()
    }

    /// Decides the encoding from the first bytes; the length of the byte-order mark to skip.
    fn decide(&mut self, head: &[u8]) -> usize {
        let (encoding, bom) = detect(head);
        self.mode = match encoding {
            Encoding::Utf8 | Encoding::Utf8Bom => Mode::Utf8,
            Encoding::Utf16Le => Mode::Utf16 { le: true },
            Encoding::Utf16Be => Mode::Utf16 { le: false },
        };
        bom
    }

    /// UTF-16: decoded as it comes (a unit or a surrogate pair split across chunks waits for the rest).
    fn utf16(&mut self, chunk: &[u8], le: bool, sink: &mut impl FnMut(&str)) {
        let mut raw = std::mem::take(&mut self.pending);
        raw.extend_from_slice(chunk);
        let mut end = raw.len() - raw.len() % 2;
        // A high surrogate last waits for its pair.
        let last = units(raw.get(end.saturating_sub(2)..end).unwrap_or_default(), le).next();
        if last.is_some_and(|u| (0xD800..0xDC00).contains(&u)) {
            end -= 2;
        }
        let decoded = utf16_lossy(raw.get(..end).unwrap_or_default(), le);
        self.pending = raw.get(end..).unwrap_or_default().to_vec();
        lines(&mut self.text, decoded.as_bytes(), sink);
    }
}

/// The lines of UTF-8 bytes: `unfinished` holds the start of a line (never a `\n`) before `rest`; whole
/// lines are handed on from `rest` itself, and only an unfinished line is copied.
fn lines(unfinished: &mut Vec<u8>, mut rest: &[u8], sink: &mut impl FnMut(&str)) {
    // An unfinished line first: complete it, or fill it to where it is cut.
    while !unfinished.is_empty() && !rest.is_empty() {
        let room = (MAX_LINE_BYTES + 1).saturating_sub(unfinished.len());
        let head = rest.get(..room.min(rest.len())).unwrap_or_default();
        match memchr::memchr(b'\n', head) {
            Some(p) => {
                unfinished.extend_from_slice(rest.get(..=p).unwrap_or_default());
                rest = rest.get(p + 1..).unwrap_or_default();
                emit(unfinished, sink);
                unfinished.clear();
            }
            None => {
                unfinished.extend_from_slice(head);
                rest = rest.get(head.len()..).unwrap_or_default();
                if unfinished.len() > MAX_LINE_BYTES {
                    let cut = cut_point(unfinished);
                    emit(unfinished.get(..cut).unwrap_or_default(), sink);
                    unfinished.drain(..cut);
                }
            }
        }
    }
    if unfinished.is_empty() {
        let used = split(rest, &mut |piece| emit(piece, sink));
        unfinished.extend_from_slice(rest.get(used..).unwrap_or_default());
    }
}

/// Hands on the pieces of `bytes` that are whole lines (runs of lines each ending in `\n`) or the cut
/// pieces of a line longer than [`MAX_LINE_BYTES`]; the bytes used (the rest is an unfinished line of at
/// most [`MAX_LINE_BYTES`]). `bytes` starts at the start of a line.
fn split(bytes: &[u8], piece: &mut impl FnMut(&[u8])) -> usize {
    let mut at = 0;
    while at < bytes.len() {
        let window = bytes
            .get(at..bytes.len().min(at + MAX_LINE_BYTES + 1))
            .unwrap_or_default();
        // Every line that ends in the window is at most MAX_LINE_BYTES long.
        // The last newline lies a line's length from the end: a plain backward search (memchr's `memrchr`
        // would add its own code to the page for no gain).
        if let Some(q) = window.iter().rposition(|b| *b == b'\n') {
            piece(window.get(..=q).unwrap_or_default());
            at += q + 1;
        } else if window.len() > MAX_LINE_BYTES {
            let cut = cut_point(window);
            piece(window.get(..cut).unwrap_or_default());
            at += cut;
        } else {
            break;
        }
    }
    at
}

/// Where a line longer than [`MAX_LINE_BYTES`] is cut: at that length, moved back (by at most three
/// bytes) to the start of a UTF-8 character.
fn cut_point(window: &[u8]) -> usize {
    let mut cut = MAX_LINE_BYTES;
    while cut > MAX_LINE_BYTES - 3 && window.get(cut).is_some_and(|b| b & 0xC0 == 0x80) {
        cut -= 1;
    }
    cut
}

/// A piece as text: valid UTF-8 as it is, else read leniently (a bad byte becomes U+FFFD; a newline is
/// never part of a bad sequence, so this is the whole input's lenient reading of these lines).
fn emit(piece: &[u8], sink: &mut impl FnMut(&str)) {
    if piece.is_empty() {
        return;
    }
    match std::str::from_utf8(piece) {
        Ok(text) => sink(text),
        Err(_) => sink(&String::from_utf8_lossy(piece)),
    }
}

/// The length of the longest prefix of `bytes` (which starts at a line start) whose lines the reader
/// hands on whole: every line of it is at most [`MAX_LINE_BYTES`] long. A reader of its own (the CLI's
/// parallel workers) stops there, so a longer line is cut as the sequential reader cuts it.
pub fn whole_lines_prefix(bytes: &[u8]) -> usize {
    // A longer line holds a whole aligned window of half that length without a newline: without such a
    // window (the common case, found in a few memchr calls) every line is short enough.
    let half = MAX_LINE_BYTES / 2;
    if !bytes
        .chunks(half)
        .any(|w| w.len() == half && memchr::memchr(b'\n', w).is_none())
    {
        return bytes.len();
    }
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        if nl - start > MAX_LINE_BYTES {
            return start;
        }
        start = nl + 1;
    }
    if bytes.len() - start > MAX_LINE_BYTES {
        start
    } else {
        bytes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::decode_input;

    /// The lines of `bytes` pushed in chunks of `chunk` bytes.
    fn lines_of(bytes: &[u8], chunk: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut sink = |piece: &str| {
            let piece = piece.strip_suffix('\n').unwrap_or(piece);
            out.extend(piece.split('\n').map(String::from));
        };
        let mut reader = LineReader::new();
        for c in bytes.chunks(chunk.max(1)) {
            reader.push(c, &mut sink);
        }
        reader.finish(&mut sink);
        out
    }

    /// The lines of the whole input decoded at once (a `\r` before a `\n` stays: the readers drop it).
    fn whole(bytes: &[u8]) -> Vec<String> {
        decode_input(bytes)
            .split_terminator('\n')
            .map(String::from)
            .collect()
    }

    fn utf16(text: &str, le: bool, bom: bool) -> Vec<u8> {
        let mut v = match (bom, le) {
            (false, _) => vec![],
            (true, true) => vec![0xFF, 0xFE],
            (true, false) => vec![0xFE, 0xFF],
        };
        for u in text.encode_utf16() {
            v.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        v
    }

    #[test]
    fn any_chunking_gives_the_lines_of_the_whole() {
        let long: String = (0..200).map(|i| format!("{i}, 50 %, é😀\r\n")).collect();
        let ascii: String = (0..100).map(|i| format!("{i}, 50 %\r\n")).collect();
        let mut inputs: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"\n".to_vec(),
            b"one line, no newline".to_vec(),
            b"\xEF\xBB\xBFbom,x\ny\n".to_vec(),
            b"bad \xE2\x82\nbytes \xFF\x00 here\n\nlast\r".to_vec(),
            long.clone().into_bytes(),
            utf16("a,b\r\n\u{c4},😀\r\n", true, true),
            utf16(&long, false, true),
            // BOM-less UTF-16 of ASCII text, recognised by its NUL bytes; a lone surrogate; an odd byte.
            utf16(&ascii, true, false),
            utf16(&ascii, false, false),
        ];
        let mut lone = utf16("x\ny", true, true);
        lone.extend([0x00, 0xD8]);
        inputs.push(lone.clone());
        lone.push(b'z');
        inputs.push(lone);
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

    #[test]
    fn pieces_are_whole_lines() {
        let text = "a\nbb\nccc\n".repeat(1000) + "last";
        let mut reader = LineReader::new();
        let mut pieces = Vec::new();
        for c in text.as_bytes().chunks(777) {
            reader.push(c, &mut |p| pieces.push(p.to_string()));
        }
        reader.finish(&mut |p| pieces.push(p.to_string()));
        let (last, whole) = pieces.split_last().unwrap();
        assert!(whole.iter().all(|p| p.ends_with('\n')), "{pieces:?}");
        assert_eq!(last, "last");
        assert_eq!(pieces.concat(), text);
    }

    #[test]
    fn an_overlong_line_is_cut_the_same_way_whatever_the_chunks() {
        let mut bytes = b"start\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES - 1));
        bytes.extend("é".as_bytes()); // crosses the cut: moved back to its start
        bytes.extend(std::iter::repeat_n(b'y', 10));
        bytes.extend(b"\nexactly\n");
        bytes.extend(std::iter::repeat_n(b'z', MAX_LINE_BYTES));
        bytes.extend(b"\nend");
        let expected: Vec<String> = vec![
            "start".into(),
            "x".repeat(MAX_LINE_BYTES - 1),
            format!("é{}", "y".repeat(10)),
            "exactly".into(),
            "z".repeat(MAX_LINE_BYTES),
            "end".into(),
        ];
        for chunk in [1000, 4096, MAX_LINE_BYTES, MAX_LINE_BYTES + 1, usize::MAX] {
            assert_eq!(lines_of(&bytes, chunk), expected, "chunk {chunk}");
        }
        assert_eq!(whole_lines_prefix(&bytes), 6);
        assert_eq!(whole_lines_prefix(b"a\nb"), 3);
        let short = b"z\n".repeat(MAX_LINE_BYTES);
        assert_eq!(whole_lines_prefix(&short), short.len());
    }

    #[test]
    fn utf8_input_is_read_between_lines() {
        let mut reader = LineReader::new();
        let mut sink = |_: &str| {};
        reader.push(b"short", &mut sink);
        assert!(!reader.between_utf8_lines(), "still sniffing");
        reader.push(&b"x\n".repeat(300), &mut sink);
        assert!(reader.between_utf8_lines());
        reader.push(b"half a line", &mut sink);
        assert!(!reader.between_utf8_lines());
        let mut reader = LineReader::new();
        reader.push(&utf16(&"x\n".repeat(300), true, true), &mut sink);
        assert!(!reader.between_utf8_lines(), "UTF-16 is decoded");
    }
}

//! Reading an input line by line without holding it in memory: UTF-8 (a BOM is dropped by the parser)
//! in large chunks split with memchr, or UTF-16 LE/BE (PowerShell redirection) sniffed from its BOM and
//! decoded chunk by chunk. Invalid UTF-8 is replaced on that line only (the parser reports it).

use std::io::Read;

/// Lines longer than this are cut (binary input without newlines cannot grow memory).
const MAX_LINE: usize = 1 << 20;
const CHUNK: usize = 1 << 20;

/// Calls `f` with every line (without `\n`) of `r` (the tests' view of [`for_each_text`]).
#[cfg(test)]
pub fn for_each_line<R: Read>(r: R, f: impl FnMut(&str)) -> std::io::Result<()> {
    read_lines(r, false, f)
}

/// Calls `f` with the text of `r` in pieces of whole lines: runs of lines each ending in `\n` (about a
/// buffer at a time), or single lines without their `\n` (the last line, a line with invalid UTF-8 made
/// valid, a line of UTF-16 input, a piece of an overlong line). The same lines as [`for_each_line`].
pub fn for_each_text<R: Read>(r: R, f: impl FnMut(&str)) -> std::io::Result<()> {
    read_lines(r, true, f)
}

fn read_lines<R: Read>(mut r: R, blocks: bool, mut f: impl FnMut(&str)) -> std::io::Result<()> {
    let mut buf: Vec<u8> = vec![0; CHUNK];
    let mut len = 0usize;
    let mut first = true;
    loop {
        if len == buf.len() {
            // A line longer than the buffer: grow up to the limit, then cut it.
            if buf.len() < MAX_LINE {
                buf.resize(buf.len() * 2, 0);
            } else {
                emit(&buf[..len], &mut f);
                len = 0;
            }
        }
        let n = match r.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if first && len + n >= 2 {
            first = false;
            let head = &buf[..len + n];
            if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) {
                let le = head[0] == 0xFF;
                let rest = head[2..].to_vec();
                return utf16_lines(rest, r, le, f);
            }
        }
        if n == 0 {
            if len > 0 {
                emit(&buf[..len], &mut f);
            }
            return Ok(());
        }
        let end = len + n;
        let mut start = 0;
        // Up to the last newline, validate UTF-8 once for the whole block (the common case), then slice.
        let last_nl = memchr::memrchr(b'\n', &buf[len..end]).map(|p| len + p);
        if blocks
            && let Some(block_end) = last_nl
            && let Ok(text) = std::str::from_utf8(&buf[..=block_end])
        {
            f(text);
            start = block_end + 1;
        } else if let Some(block_end) = last_nl
            && let Ok(text) = std::str::from_utf8(&buf[..block_end])
        {
            for nl in memchr::memchr_iter(b'\n', &buf[len..block_end]) {
                let stop = len + nl;
                f(text.get(start..stop).unwrap_or(""));
                start = stop + 1;
            }
            f(text.get(start..block_end).unwrap_or(""));
            start = block_end + 1;
        } else {
            for nl in memchr::memchr_iter(b'\n', &buf[len..end]) {
                let stop = len + nl;
                emit(&buf[start..stop], &mut f);
                start = stop + 1;
            }
        }
        buf.copy_within(start..end, 0);
        len = end - start;
    }
}

#[inline]
fn emit(line: &[u8], f: &mut impl FnMut(&str)) {
    match std::str::from_utf8(line) {
        Ok(s) => f(s),
        Err(_) => f(&String::from_utf8_lossy(line)),
    }
}

fn utf16_lines<R: Read>(
    mut pending: Vec<u8>,
    mut r: R,
    le: bool,
    mut f: impl FnMut(&str),
) -> std::io::Result<()> {
    let mut text = String::new();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = r.read(&mut chunk)?;
        pending.extend_from_slice(&chunk[..n]);
        let usable = pending.len() - pending.len() % 2;
        let mut units: Vec<u16> = pending[..usable]
            .chunks_exact(2)
            .map(|c| {
                if le {
                    u16::from_le_bytes([c[0], c[1]])
                } else {
                    u16::from_be_bytes([c[0], c[1]])
                }
            })
            .collect();
        let mut keep = pending[usable..].to_vec();
        // A high surrogate at the end waits for its pair.
        if n != 0 && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
            let u = units.pop().unwrap_or_default();
            let b = if le { u.to_le_bytes() } else { u.to_be_bytes() };
            let mut k = b.to_vec();
            k.extend_from_slice(&keep);
            keep = k;
        }
        text.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
        pending = keep;
        let mut start = 0;
        while let Some(p) = text[start..].find('\n') {
            f(&text[start..start + p]);
            start += p + 1;
        }
        text.drain(..start);
        if text.len() > MAX_LINE {
            f(&text);
            text.clear();
        }
        if n == 0 {
            if !text.is_empty() {
                f(&text);
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(bytes: &[u8]) -> Vec<String> {
        let mut v = Vec::new();
        for_each_line(bytes, |l| v.push(l.to_string())).unwrap();
        v
    }

    #[test]
    fn utf8_and_utf16() {
        assert_eq!(collect(b"a\r\nb\nc"), ["a\r", "b", "c"]);
        let mut le = vec![0xFF, 0xFE];
        for u in "x, 1\r\ny\n".encode_utf16() {
            le.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(collect(&le), ["x, 1\r", "y"]);
        assert_eq!(collect(b"\xff\xfe"), Vec::<String>::new());
        assert_eq!(collect(b"\xc3(\n"), ["\u{FFFD}("]);
    }

    #[test]
    fn text_pieces_hold_the_same_lines() {
        for bytes in [&b"a\r\nb\nc"[..], b"x\n\ny\n", b"\xc3(\nok\n", b"", b"\n"] {
            let mut v = Vec::new();
            for_each_text(bytes, |t| {
                let t = t.strip_suffix('\n').unwrap_or(t);
                v.extend(t.split('\n').map(str::to_string));
            })
            .unwrap();
            assert_eq!(v, collect(bytes), "{bytes:?}");
        }
    }
}

//! Text of user inputs, one decoder for every reader: UTF-8 (a BOM dropped) and UTF-16 (PowerShell's `>`
//! writes UTF-16LE with a BOM: `nvidia-smi ... > log.csv`, `kaggle quota -v > quota.csv`; a BOM-less
//! UTF-16 file of ASCII text is recognised by its NUL bytes). Readers that must reject bad bytes use
//! [`decode_strict`], the others [`decode_input`] (bad bytes become U+FFFD).

pub mod count;
pub mod decimal;
pub mod hours;
pub mod json;
pub mod lines;
pub mod number;
pub mod sort;
pub mod table;
pub mod when;

use std::borrow::Cow;

/// How the bytes of an input were encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// UTF-8 with a byte-order mark (dropped).
    Utf8Bom,
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf8Bom => "UTF-8 (BOM)",
            Encoding::Utf16Le => "UTF-16LE",
            Encoding::Utf16Be => "UTF-16BE",
        }
    }
}

/// Bytes that are not text in their encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub encoding: Encoding,
    /// Byte offset of the first bad byte in the input (BOM included).
    pub offset: usize,
    /// 1-based line of the first bad byte.
    pub line: usize,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: not {} text (byte offset {})",
            self.line,
            self.encoding.name(),
            self.offset
        )
    }
}

impl std::error::Error for DecodeError {}

/// How many leading bytes the BOM-less UTF-16 guess looks at.
pub(crate) const SNIFF: usize = 512;

/// The encoding of `bytes` and the length of its byte-order mark.
pub fn detect(bytes: &[u8]) -> (Encoding, usize) {
    match bytes {
        [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8Bom, 3),
        [0xFF, 0xFE, ..] => (Encoding::Utf16Le, 2),
        [0xFE, 0xFF, ..] => (Encoding::Utf16Be, 2),
        _ => (sniff_utf16(bytes).unwrap_or(Encoding::Utf8), 0),
    }
}

/// BOM-less UTF-16 of mostly ASCII text: NUL in every other byte, text in the others.
fn sniff_utf16(bytes: &[u8]) -> Option<Encoding> {
    let head = bytes.get(..bytes.len().min(SNIFF))?;
    if head.len() < 6 {
        return None;
    }
    let pairs = head.len() / 2;
    let (mut even_nul, mut odd_nul) = (0usize, 0usize);
    for pair in head.chunks_exact(2) {
        if let [a, b] = pair {
            even_nul += usize::from(*a == 0);
            odd_nul += usize::from(*b == 0);
        }
    }
    // 90 % of the pairs have their NUL on one side and (almost) none on the other.
    let most = pairs * 9 / 10;
    let few = pairs / 20;
    if odd_nul >= most && even_nul <= few {
        Some(Encoding::Utf16Le)
    } else if even_nul >= most && odd_nul <= few {
        Some(Encoding::Utf16Be)
    } else {
        None
    }
}

/// The UTF-16 code units of `rest` (an odd last byte left out).
pub(crate) fn units(rest: &[u8], le: bool) -> impl Iterator<Item = u16> + '_ {
    rest.chunks_exact(2).map(move |c| {
        let pair = [
            c.first().copied().unwrap_or(0),
            c.get(1).copied().unwrap_or(0),
        ];
        if le {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    })
}

/// UTF-16 as text, read leniently: a unit that is not text (a lone surrogate) becomes U+FFFD; an odd
/// last byte is left out.
pub(crate) fn utf16_lossy(bytes: &[u8], le: bool) -> String {
    char::decode_utf16(units(bytes, le))
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// The text of an input, read leniently: bad bytes (and an odd trailing byte of UTF-16) become U+FFFD.
/// Borrows when the input is plain UTF-8.
pub fn decode_input(bytes: &[u8]) -> Cow<'_, str> {
    let (enc, bom) = detect(bytes);
    let rest = bytes.get(bom..).unwrap_or_default();
    match enc {
        Encoding::Utf8 | Encoding::Utf8Bom => String::from_utf8_lossy(rest),
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let mut s = utf16_lossy(rest, enc == Encoding::Utf16Le);
            if rest.len() % 2 == 1 {
                s.push(char::REPLACEMENT_CHARACTER);
            }
            Cow::Owned(s)
        }
    }
}

/// The text of an input, or the first bad byte (its offset and line). Borrows when the input is UTF-8.
pub fn decode_strict(bytes: &[u8]) -> Result<Cow<'_, str>, DecodeError> {
    let (enc, bom) = detect(bytes);
    let rest = bytes.get(bom..).unwrap_or_default();
    match enc {
        Encoding::Utf8 | Encoding::Utf8Bom => {
            std::str::from_utf8(rest).map(Cow::Borrowed).map_err(|e| {
                let good = rest.get(..e.valid_up_to()).unwrap_or_default();
                DecodeError {
                    encoding: enc,
                    offset: bom + e.valid_up_to(),
                    line: good.iter().filter(|b| **b == b'\n').count() + 1,
                }
            })
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let le = enc == Encoding::Utf16Le;
            let mut s = String::with_capacity(rest.len() / 2);
            let mut line = 1;
            for (i, r) in char::decode_utf16(units(rest, le)).enumerate() {
                match r {
                    Ok(c) => {
                        line += usize::from(c == '\n');
                        s.push(c);
                    }
                    Err(_) => {
                        return Err(DecodeError {
                            encoding: enc,
                            // The unit index is approximate after a surrogate pair; the line is exact.
                            offset: bom + 2 * (s.encode_utf16().count().max(i)),
                            line,
                        });
                    }
                }
            }
            if rest.len() % 2 == 1 {
                return Err(DecodeError {
                    encoding: enc,
                    offset: bytes.len().saturating_sub(1),
                    line,
                });
            }
            Ok(Cow::Owned(s))
        }
    }
}

/// True when decoded text looks like binary data rather than text: a NUL character, or more than one
/// character in ten that is U+FFFD or a control character other than whitespace.
pub fn looks_binary(text: &str) -> bool {
    if text.contains('\0') {
        return true;
    }
    let (mut odd, mut all) = (0usize, 0usize);
    for c in text.chars() {
        all += 1;
        odd += usize::from(c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()));
    }
    odd * 10 > all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(s: &str, bom: bool) -> Vec<u8> {
        let mut v = if bom { vec![0xFF, 0xFE] } else { vec![] };
        v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        v
    }

    fn utf16be(s: &str) -> Vec<u8> {
        let mut v = vec![0xFE, 0xFF];
        v.extend(s.encode_utf16().flat_map(u16::to_be_bytes));
        v
    }

    #[test]
    fn every_encoding_reads_the_same_text() {
        let s = "id,title\r\nmé/x,Kernel ✓\n";
        let mut bom8 = b"\xEF\xBB\xBF".to_vec();
        bom8.extend(s.as_bytes());
        for bytes in [s.as_bytes().to_vec(), bom8, utf16le(s, true), utf16be(s)] {
            assert_eq!(decode_input(&bytes), s);
            assert_eq!(decode_strict(&bytes).as_deref(), Ok(s));
        }
        // BOM-less UTF-16LE of ASCII text (some editors, `Out-File -Encoding unicode` without BOM).
        let ascii = "timestamp, index\n2026/11/30, 0\n";
        assert_eq!(decode_input(&utf16le(ascii, false)), ascii);
        assert_eq!(detect(&utf16le(ascii, false)).0, Encoding::Utf16Le);
    }

    #[test]
    fn plain_utf8_is_borrowed() {
        assert!(matches!(decode_input(b"abc"), Cow::Borrowed("abc")));
        assert!(matches!(decode_strict(b"abc"), Ok(Cow::Borrowed("abc"))));
    }

    #[test]
    fn bad_bytes_name_their_line_and_offset() {
        let e = decode_strict(b"ok\nline two \xFF here").unwrap_err();
        assert_eq!((e.line, e.offset, e.encoding), (2, 12, Encoding::Utf8));
        assert!(e.to_string().contains("line 2"));
        assert_eq!(decode_input(b"a\xFFb"), "a\u{fffd}b");
        // Odd-length UTF-16 and a lone surrogate.
        let mut odd = utf16le("ab\ncd", true);
        odd.push(b'x');
        let e = decode_strict(&odd).unwrap_err();
        assert_eq!((e.line, e.encoding), (2, Encoding::Utf16Le));
        assert!(decode_input(&odd).ends_with('\u{fffd}'));
        let lone = [0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0];
        assert!(decode_strict(&lone).is_err());
        assert_eq!(decode_input(&lone), "a\u{fffd}b");
    }

    #[test]
    fn short_and_binary_inputs_never_panic() {
        for bytes in [
            &b""[..],
            b"\xFF",
            b"\xFE",
            b"\xEF\xBB",
            b"\xFF\xFE",
            b"\x00\x00\x00\x00",
        ] {
            let _ = decode_input(bytes);
            let _ = decode_strict(bytes);
        }
        assert!(looks_binary("a\0b"));
        assert!(looks_binary("\u{1}\u{2}\u{3}ab"));
        assert!(!looks_binary("plain text\r\n\twith tabs"));
        assert!(!looks_binary(""));
    }
}

//! Requests in, reports out. Every advisor has a request type (serde, `camelCase` keys that are the CLI's
//! long flags: `--fold-hours` is `foldHours`) and one entry point from the request to its report; what
//! every request shares lives here: the time of the answer (`now`), the threshold overrides (`set`), and
//! [`RequestError`], which names the request field at fault and what was expected. Each surface says the
//! field in its own words: the CLI as its flag or the file it read, the page as the label of its control,
//! the JavaScript and Python libraries as their argument names.
//!
//! This is the floor every advisor stands on: it imports the rule book and `text/`, never an advisor;
//! [`crate::advise`] reaches every advisor by command name.
//!
//! [`text_of`] turns the bytes of a file input (a log, a quota reading, a metadata file, a CSV) into its
//! request field's text, with the decoding [`FILE_INPUTS`] gives that field: every surface that reads
//! bytes (the CLI's files and stdin, the npm package's `Uint8Array`s, the wheel's `bytes` and paths)
//! calls it, so the same bytes give the same text or the same error everywhere.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::rulebook::Thresholds;
use crate::rulebook::ids::{RuleId, rule};
use crate::rulebook::report::Report;
use crate::text::when::{DateRole, parse_time};
use crate::text::{Encoding, decode_input, decode_strict};

/// A request that cannot be answered: the field at fault (its request key, `foldHours`; empty for the
/// request as a whole), the value given when it is the problem, the line of a text field when the problem
/// is on one line, and what was wrong and what was expected.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestError {
    pub field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}

impl RequestError {
    pub fn new(field: &str, message: impl Into<String>) -> RequestError {
        RequestError {
            field: field.to_string(),
            value: None,
            line: None,
            message: message.into(),
        }
    }

    /// The value given for `field` is the problem: `--measured -1: expected a positive number`.
    pub fn value(
        field: &str,
        value: impl Into<String>,
        message: impl Into<String>,
    ) -> RequestError {
        RequestError {
            value: Some(value.into()),
            ..RequestError::new(field, message)
        }
    }

    pub fn at_line(field: &str, line: usize, message: impl Into<String>) -> RequestError {
        RequestError {
            line: Some(line),
            ..RequestError::new(field, message)
        }
    }

    /// The message with the field said as `name` (a flag, a file name, a label):
    /// `name value line 3: message`, each part only when there is one.
    pub fn render(&self, name: &str) -> String {
        let mut head: Vec<String> = Vec::new();
        if !name.is_empty() {
            head.push(name.to_string());
        }
        if let Some(value) = &self.value {
            head.push(value.clone());
        }
        if let Some(line) = self.line {
            head.push(format!("line {line}"));
        }
        if head.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", head.join(" "), self.message)
        }
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&self.field))
    }
}

impl std::error::Error for RequestError {}

/// `set`: threshold overrides as `name=value` texts (the CLI's repeated `--set`); in JSON also an object
/// of names and numbers (`{"verdict.busy-util-pct": 10}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Overrides(pub Vec<String>);

impl<'de> Deserialize<'de> for Overrides {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Overrides, D::Error> {
        deserializer.deserialize_any(OverridesVisitor)
    }
}

struct OverridesVisitor;

impl<'de> Visitor<'de> for OverridesVisitor {
    type Value = Overrides;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of `name=value` texts or an object of threshold names and numbers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Overrides, A::Error> {
        let mut pairs = Vec::new();
        while let Some(pair) = seq.next_element::<String>()? {
            pairs.push(pair);
        }
        Ok(Overrides(pairs))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Overrides, A::Error> {
        let mut pairs = Vec::new();
        while let Some((name, value)) = map.next_entry::<String, f64>()? {
            pairs.push(format!("{name}={}", crate::text::number::shortest(value)));
        }
        Ok(Overrides(pairs))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Overrides, E> {
        Ok(Overrides::default())
    }
}

/// `set`'s two JSON forms, as [`OverridesVisitor`] reads them.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Overrides {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Overrides".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                {"type": "array", "items": {"type": "string"}},
                {"type": "object", "additionalProperties": {"type": "number"}},
                {"type": "null"}
            ]
        })
    }
}

impl Overrides {
    /// The thresholds in force: the rule book's, with these overrides (errors name the `set` field).
    pub fn thresholds(&self) -> Result<Thresholds, RequestError> {
        Thresholds::defaults()
            .with_overrides(&self.0)
            .map_err(|message| RequestError::new("set", message))
    }
}

/// The time of the answer: the request's `now` (RFC 3339 or a date) or, without one, the caller's clock.
pub fn now_of(now: Option<&str>, clock: DateTime<Utc>) -> Result<DateTime<Utc>, RequestError> {
    match now {
        Some(text) => {
            parse_time(text, DateRole::Instant).map_err(|message| RequestError::new("now", message))
        }
        None => Ok(clock),
    }
}

/// Reads a JSON request of an advisor; an unknown key, a wrong type or a missing field is a
/// [`RequestError`] naming the field.
pub fn from_json<T: de::DeserializeOwned>(json: &str) -> Result<T, RequestError> {
    let mut reader = serde_json::Deserializer::from_str(json);
    let value = serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let path = e.path().to_string();
        let text = e.into_inner().to_string();
        let message = text
            .split(" at line ")
            .next()
            .unwrap_or(text.as_str())
            .to_string();
        // An unknown or missing key is named by serde in backticks; a wrong value by its path.
        let field = if text.starts_with("unknown field `") || text.starts_with("missing field `") {
            text.split('`').nth(1).unwrap_or("").to_string()
        } else if path == "." || path == "?" {
            String::new()
        } else {
            path
        };
        RequestError::new(&field, message)
    })?;
    reader
        .end()
        .map_err(|e| RequestError::new("", format!("{e}: expected one JSON object")))?;
    Ok(value)
}

/// An entry point's answer to a JSON request, as JSON: the request read by [`from_json`], the report
/// written by serde_json. The one JSON path of `advise_json` and the loop's advisors.
pub fn answer_json<Q: de::DeserializeOwned, R: Serialize>(
    request: &str,
    clock: DateTime<Utc>,
    advise: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
) -> Result<String, RequestError> {
    let report = advise(&from_json(request)?, clock)?;
    serde_json::to_string(&report)
        .map_err(|e| RequestError::new("", format!("cannot encode the report: {e}")))
}

/// [`answer_json`] and the report's text as the CLI prints it ([`Report::text`]): the Python wheel shows
/// both, so every table and sentence it shows is the one the CLI prints.
pub fn answer_json_and_text<Q: de::DeserializeOwned, R: Report>(
    request: &str,
    clock: DateTime<Utc>,
    advise: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
) -> Result<(String, String), RequestError> {
    let report = advise(&from_json(request)?, clock)?;
    let json = serde_json::to_string(&report)
        .map_err(|e| RequestError::new("", format!("cannot encode the report: {e}")))?;
    Ok((json, report.text()))
}

/// How the bytes of a file input become its request field's text ([`text_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoding {
    /// Bad bytes become U+FFFD and the field's reader reports the lines it cannot read, keeping the rest:
    /// nvidia-smi logs, quota readings, runs logs, code files, bench histories.
    Lenient,
    /// Bytes that are not text in their encoding, or binary data (a NUL), refuse the input, saying that
    /// `expected` was expected (and, with a `rule`, which finding rule that is): JSON documents and CSV
    /// tables, where one bad byte leaves nothing worth reading.
    Strict {
        expected: &'static str,
        rule: Option<RuleId>,
    },
}

const CSV: Decoding = Decoding::Strict {
    expected: "a CSV text file",
    rule: None,
};
const FOLD_SCORES: Decoding = Decoding::Strict {
    expected: "a text file of fold scores",
    rule: None,
};
const CURVE: Decoding = Decoding::Strict {
    expected: "kgkit's learning curve (JSON text)",
    rule: None,
};

/// The file inputs of every command: (command, request field, its decoding). A field given as bytes that
/// is not listed is read as [`UNLISTED`].
pub const FILE_INPUTS: &[(&str, &str, Decoding)] = &[
    ("diagnose", "log", Decoding::Lenient),
    ("quota", "quota", Decoding::Lenient),
    ("quota", "runs", Decoding::Lenient),
    ("plan", "quota", Decoding::Lenient),
    ("plan", "runs", Decoding::Lenient),
    ("tpu", "quota", Decoding::Lenient),
    (
        "check",
        "metadata",
        Decoding::Strict {
            expected: "kernel-metadata.json text",
            rule: Some(rule::KM001),
        },
    ),
    ("check", "code", Decoding::Lenient),
    ("check", "quota", Decoding::Lenient),
    ("check", "runs", Decoding::Lenient),
    (
        "collect",
        "report",
        Decoding::Strict {
            expected: "kgkit's kg_run.json",
            rule: None,
        },
    ),
    ("collect", "status", Decoding::Lenient),
    ("collect", "log", Decoding::Lenient),
    ("compare", "idea", CSV),
    ("compare", "control", CSV),
    ("compare", "folds", FOLD_SCORES),
    ("compare", "truth", CSV),
    ("prune", "baseline", CURVE),
    ("prune", "current", CURVE),
    ("prune", "folds", FOLD_SCORES),
    ("fidelity", "backlog", CSV),
    ("bench", "history", Decoding::Lenient),
    ("bench-history", "history", Decoding::Lenient),
];

/// The decoding of a field that is not a file input (`now` given as bytes): strict, plain text.
pub const UNLISTED: Decoding = Decoding::Strict {
    expected: "text",
    rule: None,
};

/// The decoding of `command`'s request field `field` ([`FILE_INPUTS`], else [`UNLISTED`]).
pub fn decoding(command: &str, field: &str) -> Decoding {
    FILE_INPUTS
        .iter()
        .find(|(c, f, _)| *c == command && *f == field)
        .map_or(UNLISTED, |(_, _, d)| *d)
}

/// The text of `command`'s file input `field` from its bytes: UTF-8 or UTF-16 (PowerShell's `>`), with
/// or without a BOM, decoded as [`decoding`] says. A strict field's bad bytes are a [`RequestError`]
/// naming the field: `binary data (a NUL at offset 196); expected ...`, or the line and byte offset of
/// the first byte that is not text (`line 2: not UTF-8 text (byte offset 14); expected ...`).
pub fn text_of(command: &str, field: &str, bytes: &[u8]) -> Result<String, RequestError> {
    match decoding(command, field) {
        Decoding::Lenient => Ok(decode_input(bytes).into_owned()),
        Decoding::Strict { expected, rule } => {
            strict_text(field, bytes, expected).map_err(|mut e| {
                if let Some(rule) = rule {
                    e.message = format!("{} [{rule}]", e.message);
                }
                e
            })
        }
    }
}

/// Bytes that must be text: binary data and bytes that are not text in their encoding are refused.
fn strict_text(field: &str, bytes: &[u8], expected: &str) -> Result<String, RequestError> {
    let decoded = decode_strict(bytes).map_err(|e| match bytes.iter().position(|b| *b == 0) {
        // A NUL in bytes read as UTF-8 is binary data, whatever byte the decoder stumbled on first.
        Some(at) if e.encoding == Encoding::Utf8 => binary(field, at, expected),
        _ => RequestError::at_line(
            field,
            e.line,
            format!(
                "not {} text (byte offset {}); expected {expected}",
                e.encoding.name(),
                e.offset
            ),
        ),
    })?;
    let text = decoded.into_owned();
    refuse_binary(field, &text, expected)?;
    Ok(text)
}

/// A text with a NUL character is binary data, not the `expected` text.
pub(crate) fn refuse_binary(field: &str, text: &str, expected: &str) -> Result<(), RequestError> {
    match text.find('\0') {
        Some(at) => Err(binary(field, at, expected)),
        None => Ok(()),
    }
}

fn binary(field: &str, at: usize, expected: &str) -> RequestError {
    RequestError::new(
        field,
        format!("binary data (a NUL at offset {at}); expected {expected}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_reads_a_list_of_pairs_or_an_object() {
        let list: Overrides = serde_json::from_str(r#"["verdict.busy-util-pct=10"]"#).unwrap();
        let map: Overrides = serde_json::from_str(r#"{"verdict.busy-util-pct": 10}"#).unwrap();
        assert_eq!(list, map);
        let bad: Result<Overrides, _> = serde_json::from_str("3");
        assert!(bad.is_err());
    }

    #[test]
    fn an_error_names_the_field_in_the_surfaces_words() {
        let e = RequestError::at_line("quota", 3, "expected a number of hours");
        assert_eq!(e.to_string(), "quota line 3: expected a number of hours");
        assert_eq!(
            e.render("quota.csv"),
            "quota.csv line 3: expected a number of hours"
        );
        let set = Overrides(vec!["nope=1".into()]).thresholds().unwrap_err();
        assert_eq!(set.field, "set");
    }

    #[test]
    fn file_inputs_decode_by_the_table() {
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("a,b\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        for (command, field, _) in FILE_INPUTS {
            assert_eq!(text_of(command, field, &utf16).unwrap(), "a,b\n");
        }
        // Lenient: a bad byte is U+FFFD, for the reader to report by line.
        let latin1 = b"x\n\xe9t\xe9";
        assert_eq!(
            text_of("diagnose", "log", latin1).unwrap(),
            "x\n\u{fffd}t\u{fffd}"
        );
        // Strict: the field, the line, the byte and what was expected.
        let e = text_of("compare", "idea", latin1).unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("idea", Some(2)));
        assert_eq!(
            e.message,
            "not UTF-8 text (byte offset 2); expected a CSV text file"
        );
        // Binary data, and the metadata's rule.
        let e = text_of("check", "metadata", b"{\xff\x00}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "metadata: binary data (a NUL at offset 2); expected kernel-metadata.json text [KM001]"
        );
        let nul16: Vec<u8> = [0xFF, 0xFE, b'{', 0, 0, 0, b'}', 0].to_vec();
        assert!(
            text_of("collect", "report", &nul16)
                .unwrap_err()
                .message
                .starts_with("binary data (a NUL at offset 1)")
        );
        // The CLI streams a log through `Diagnoser`, whose line reader is this lenient decoding.
        assert_eq!(decoding("diagnose", "log"), Decoding::Lenient);
        // A field that is not a file input is plain text, read strictly.
        assert_eq!(decoding("cap", "now"), UNLISTED);
        assert_eq!(text_of("cap", "now", b"2026-12-01").unwrap(), "2026-12-01");
        assert_eq!(text_of("cap", "now", latin1).unwrap_err().line, Some(2));
    }

    #[test]
    fn an_unknown_key_names_itself() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct R {
            measured: Option<f64>,
        }
        let e = from_json::<R>(r#"{"mesured": 1}"#).unwrap_err();
        assert_eq!(e.field, "mesured");
        assert!(e.message.contains("expected"), "{e}");
        let e = from_json::<R>(r#"{"measured": "lots"}"#).unwrap_err();
        assert_eq!(e.field, "measured");
        assert!(e.message.contains("expected f64"), "{e}");
        let e = from_json::<R>("3").unwrap_err();
        assert_eq!(e.field, "");
    }
}

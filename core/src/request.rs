//! Requests in, reports out. Every advisor has a request type (serde, `camelCase` keys that are the CLI's
//! long flags: `--fold-hours` is `foldHours`) and one entry point from the request to its report; what
//! every request shares lives here: the time of the answer (`now`), the threshold overrides (`set`), and
//! [`RequestError`], which names the request field at fault and what was expected. Each surface says the
//! field in its own words: the CLI as its flag or the file it read, the page as the label of its control,
//! the JavaScript and Python libraries as their argument names.
//!
//! [`advise_json`] reaches every advisor by command name with a JSON request and gives the report as
//! JSON: the one entry of the adapters that speak JSON (the npm package, the Python wheel).

use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::rulebook::Thresholds;
use crate::text::when::{DateRole, parse_time};

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

/// Every advisor reached by command name: `request` is its JSON request, the answer its report as JSON
/// (the object `kgadvise <command> --json` prints). `clock` is the time when the request has no `now`.
pub fn advise_json(
    command: &str,
    request: &str,
    clock: DateTime<Utc>,
) -> Result<String, RequestError> {
    fn answer<Q: de::DeserializeOwned, R: Serialize>(
        request: &str,
        clock: DateTime<Utc>,
        advise: fn(&Q, DateTime<Utc>) -> Result<R, RequestError>,
    ) -> Result<String, RequestError> {
        let report = advise(&from_json(request)?, clock)?;
        serde_json::to_string(&report)
            .map_err(|e| RequestError::new("", format!("cannot encode the report: {e}")))
    }
    match command {
        "cap" => answer(request, clock, crate::quota::cap::cap),
        "matrix" => answer(request, clock, crate::hardware::matrix),
        "defaults" => answer(request, clock, crate::hardware::domains::defaults),
        "worth-gpu" => answer(request, clock, crate::hardware::worth::worth_gpu),
        "inference" => answer(request, clock, crate::hardware::inference::inference),
        "explain" => answer(request, clock, crate::rulebook::registry::explain),
        "check" => answer(request, clock, crate::kernel::check::check),
        "collect" => answer(request, clock, crate::kernel::run_report::collect),
        "compare" => answer(request, clock, crate::stats::compare::compare),
        "prune" => answer(request, clock, crate::stats::prune::prune),
        "fidelity" => answer(request, clock, crate::stats::fidelity::fidelity),
        "bench" => answer(request, clock, crate::bench::bench),
        "bench-history" => answer(request, clock, crate::bench::history),
        "diagnose" => answer(request, clock, crate::diagnose::diagnose),
        "quota" => answer(request, clock, crate::quota::quota),
        "plan" => answer(request, clock, crate::quota::plan::plan),
        "tpu" => answer(request, clock, crate::quota::tpu::tpu),
        _ => Err(RequestError::new(
            "",
            format!(
                "unknown advisor `{command}`; expected one of: {}",
                ADVISORS.join(", ")
            ),
        )),
    }
}

/// The advisors [`advise_json`] answers, by command name.
pub const ADVISORS: &[&str] = &[
    "cap",
    "matrix",
    "defaults",
    "worth-gpu",
    "explain",
    "check",
    "collect",
    "compare",
    "prune",
    "fidelity",
    "bench",
    "bench-history",
    "inference",
    "diagnose",
    "quota",
    "plan",
    "tpu",
];

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

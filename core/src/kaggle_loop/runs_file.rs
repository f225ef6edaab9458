//! kgkit's runs log as a file kgadvise writes (`.kaggle-gm/gpu_runs.jsonl`, formats.md §10): one JSON
//! object per line. A record kgadvise does not change is written back byte for byte (its unknown fields
//! and their order kept); a line that is not a record is kept as it is, never dropped.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::quota::{ACTIVE_STATUSES, hours_between, round2};
use crate::text::when::rfc3339;

/// One line of the file.
#[derive(Debug, Clone, PartialEq)]
enum Line {
    /// A JSON object: the text as read (written back while unchanged) and its fields.
    Record {
        text: String,
        fields: Map<String, Value>,
        changed: bool,
    },
    /// Anything else (blank, not JSON, not an object): kept as it is.
    Kept(String),
}

/// The runs log, editable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunsFile {
    lines: Vec<Line>,
}

/// The kernel as the log compares it: `owner/slug` in lower case, a `/version` dropped.
pub fn kernel_key(kernel: &str) -> String {
    let mut parts = kernel.trim().split('/');
    let owner = parts.next().unwrap_or_default();
    match parts.next() {
        Some(slug) => format!("{owner}/{slug}").to_ascii_lowercase(),
        None => owner.to_ascii_lowercase(),
    }
}

impl RunsFile {
    pub fn read(text: &str) -> RunsFile {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines = text
            .lines()
            .map(|line| match serde_json::from_str::<Value>(line.trim()) {
                Ok(Value::Object(fields)) => Line::Record {
                    text: line.to_string(),
                    fields,
                    changed: false,
                },
                _ => Line::Kept(line.to_string()),
            })
            .collect();
        RunsFile { lines }
    }

    /// The file's text: one line each, unchanged records and kept lines as they were.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            match line {
                Line::Record {
                    fields,
                    changed: true,
                    ..
                } => out.push_str(&Value::Object(fields.clone()).to_string()),
                Line::Record { text, .. } | Line::Kept(text) => out.push_str(text),
            }
            out.push('\n');
        }
        out
    }

    /// Appends a record.
    pub fn append(&mut self, fields: Map<String, Value>) {
        self.lines.push(Line::Record {
            text: String::new(),
            fields,
            changed: true,
        });
    }

    /// The records, with their line numbers (1-based).
    pub fn records(&self) -> impl Iterator<Item = (usize, &Map<String, Value>)> {
        self.lines.iter().enumerate().filter_map(|(i, l)| match l {
            Line::Record { fields, .. } => Some((i + 1, fields)),
            Line::Kept(_) => None,
        })
    }

    /// The last record of `kernel` (its latest push), mutable: changing it marks it for rewriting.
    pub fn latest_mut(&mut self, kernel: &str) -> Option<&mut Map<String, Value>> {
        let key = kernel_key(kernel);
        self.lines.iter_mut().rev().find_map(|l| match l {
            Line::Record {
                fields, changed, ..
            } if fields.get("kernel").and_then(Value::as_str).map(kernel_key)
                == Some(key.clone()) =>
            {
                *changed = true;
                Some(fields)
            }
            _ => None,
        })
    }

    /// The records of `kernel`, oldest first.
    pub fn records_of(&self, kernel: &str) -> Vec<&Map<String, Value>> {
        let key = kernel_key(kernel);
        self.records()
            .map(|(_, r)| r)
            .filter(|r| str_of(r, "kernel").map(kernel_key) == Some(key.clone()))
            .collect()
    }

    /// The record on line `line` (1-based), mutable: changing it marks it for rewriting.
    pub fn line_mut(&mut self, line: usize) -> Option<&mut Map<String, Value>> {
        match self.lines.get_mut(line.checked_sub(1)?)? {
            Line::Record {
                fields, changed, ..
            } => {
                *changed = true;
                Some(fields)
            }
            Line::Kept(_) => None,
        }
    }

    /// The kernels whose latest record is in flight (pushed, queued, running, pending), in the log's
    /// order: the runs `status` and `wait` re-check.
    pub fn in_flight(&self) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for (_, fields) in self.records().collect::<Vec<_>>().into_iter().rev() {
            let Some(kernel) = str_of(fields, "kernel") else {
                continue;
            };
            let key = kernel_key(kernel);
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let status = str_of(fields, "status").unwrap_or_default();
            if ACTIVE_STATUSES.contains(&status) {
                out.push(kernel.to_string());
            }
        }
        out.reverse();
        out
    }
}

pub(crate) fn str_of<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    fields.get(key).and_then(Value::as_str)
}

/// A number of the record (a number, or a string of one).
pub(crate) fn number_of(fields: &Map<String, Value>, key: &str) -> Option<f64> {
    crate::quota::json_hours(fields.get(key)?).ok()
}

/// Records what Kaggle said of the run: its status, when it was seen, and when it ended. An ended run
/// gets `gpu_hours` so the hours it spent count against a figure read before: what its log says it ran
/// (`runtime_hours`), else the time from its push to when it was seen ended; at most its cap either way
/// (`collect` records them again from its outputs).
pub fn record_status(
    fields: &mut Map<String, Value>,
    status: &str,
    seen_at: DateTime<Utc>,
    ended: bool,
    runtime_hours: Option<f64>,
) {
    fields.insert("status".into(), status.into());
    fields.insert("seen_at".into(), rfc3339(seen_at).into());
    if !ended {
        return;
    }
    fields.insert("finished_at".into(), rfc3339(seen_at).into());
    if fields.contains_key("gpu_hours") {
        return;
    }
    let pushed = || {
        str_of(fields, "pushed_at").and_then(|t| {
            crate::text::when::parse_time(t, crate::text::when::DateRole::Instant).ok()
        })
    };
    let (hours, from) = match runtime_hours {
        Some(h) => (h, "log"),
        None => match pushed() {
            Some(pushed) => (hours_between(pushed, seen_at).max(0.0), "push-to-end"),
            None => return,
        },
    };
    let hours = match number_of(fields, "hours") {
        Some(cap) => hours.min(cap),
        None => hours,
    };
    fields.insert("gpu_hours".into(), Value::from(round2(hours)));
    fields.insert("gpu_hours_from".into(), from.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_records_and_bad_lines_are_written_back_as_they_were() {
        let text = "{\"z\": 1, \"kernel\": \"me/a\", \"status\": \"running\"}\nnot json\n\n{\"kernel\":\"me/b\",\"status\":\"pushed\",\"x\":[1]}\n";
        let mut file = RunsFile::read(text);
        assert_eq!(file.text(), text);
        assert_eq!(file.in_flight(), vec!["me/a", "me/b"]);
        let b = file.latest_mut("ME/B/3").unwrap();
        record_status(
            b,
            "complete",
            "2026-12-01T00:00:00Z".parse().unwrap(),
            true,
            None,
        );
        let out = file.text();
        assert!(out.starts_with("{\"z\": 1, \"kernel\": \"me/a\""));
        assert!(out.contains("not json\n\n"));
        assert!(out.contains("\"x\":[1]") && out.contains("\"status\":\"complete\""));
        assert_eq!(file.in_flight(), vec!["me/a"]);
    }

    #[test]
    fn an_ended_run_holds_what_its_log_says_it_ran_else_push_to_end_at_most_its_cap() {
        let record = r#"{"kernel": "me/a", "status": "running", "pushed_at": "2026-12-01T00:00:00Z", "hours": 2.0}"#;
        let seen: DateTime<Utc> = "2026-12-01T01:30:00Z".parse().unwrap();
        // (status, ended, the log's hours) -> (gpu_hours, gpu_hours_from)
        let cases = [
            ("complete", true, Some(0.4999), Some(0.5), Some("log")),
            ("complete", true, None, Some(1.5), Some("push-to-end")),
            ("cancelled", true, Some(2.2), Some(2.0), Some("log")),
            ("running", false, Some(1.0), None, None),
        ];
        for (status, ended, runtime, hours, from) in cases {
            let mut file = RunsFile::read(record);
            record_status(
                file.latest_mut("me/a").unwrap(),
                status,
                seen,
                ended,
                runtime,
            );
            let (_, r) = file.records().next().unwrap();
            assert_eq!(
                (number_of(r, "gpu_hours"), str_of(r, "gpu_hours_from")),
                (hours, from),
                "{status} {runtime:?}"
            );
        }
    }
}

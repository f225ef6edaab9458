//! `kgadvise bench --history`: the bench history, each record against the previous record of the same
//! run name (its speed-up and what changed), with the findings on failed, slower and many-changes
//! benches. [`history`] is the entry point: a [`BenchHistoryRequest`] in, a [`HistoryReport`] out.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{
    BenchRecord, Change, LineProblem, Rates, changed_settings, describe_changes, how_it_ended,
    parse_history, speedup,
};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::number::{fixed, shortest};

pub const HISTORY_SCHEMA: &str = "kgadvise.bench-history/1";

/// `kgadvise bench --history`: the benches of a history, each against the previous bench of its run name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct BenchHistoryRequest {
    /// The bench history: JSON lines, one bench record each (`{name, time, command, wall_s, exit_code,
    /// ...}`, as `kgadvise bench` appends them to `reports/bench.jsonl`). Lines that cannot be read are
    /// listed with their number.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    pub history: String,
    /// Only the benches of this run name (default: every bench).
    pub name: Option<String>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    pub now: Option<String>,
    /// Threshold overrides.
    pub set: Overrides,
}

/// One record of the history as shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HistoryEntry {
    pub name: String,
    pub time: String,
    pub command: String,
    pub wall_s: f64,
    pub exit_code: Option<i32>,
    /// Against the previous record of the same name.
    pub speedup: Option<f64>,
    pub changed: Vec<Change>,
    pub verdicts: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rates: Option<Rates>,
}

impl HistoryEntry {
    /// What changed since the previous record of the name, in one line (`None` when nothing did): the
    /// "what changed" column of the CLI and the page.
    pub fn changed_text(&self) -> Option<String> {
        (!self.changed.is_empty()).then(|| {
            self.changed
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HistoryReport {
    pub schema: &'static str,
    pub name: Option<String>,
    pub records: Vec<HistoryEntry>,
    pub problems: Vec<LineProblem>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for HistoryReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        super::text::history(self)
    }
}

/// One record shown, with the record it is compared with: what every history rule reads.
struct Compared<'a> {
    record: &'a BenchRecord,
    previous: Option<&'a BenchRecord>,
    entry: HistoryEntry,
}

impl Compared<'_> {
    fn failed(&self) -> bool {
        self.record.exit_code != Some(0) || self.record.interrupted
    }
}

/// The records of `name` (all without one) in file order, each with the previous record of its name.
fn compared<'a>(records: &'a [BenchRecord], name: Option<&str>) -> Vec<Compared<'a>> {
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if name.is_some_and(|n| n != r.name) {
            continue;
        }
        let previous = records
            .get(..i)
            .and_then(|before| before.iter().rev().find(|p| p.name == r.name));
        let (speed, changed) = match previous {
            Some(p) => (
                speedup(p.wall_s, r.wall_s),
                changed_settings(&p.command, &r.command),
            ),
            None => (None, Vec::new()),
        };
        out.push(Compared {
            record: r,
            previous,
            entry: HistoryEntry {
                name: r.name.clone(),
                time: r.time.clone(),
                command: r.command.clone(),
                wall_s: r.wall_s,
                exit_code: r.exit_code,
                speedup: speed,
                changed,
                verdicts: r.verdicts.clone(),
                rates: r.rates,
            },
        });
    }
    out
}

/// KB002: a bench whose command failed.
fn failed_benches(benches: &[Compared], out: &mut Findings) {
    for b in benches.iter().filter(|b| b.failed()) {
        let r = b.record;
        out.add(
            rule::KB002,
            format!(
                "{} at {}: {}",
                r.name,
                r.time,
                how_it_ended(r.exit_code, r.interrupted)
            ),
        );
    }
}

/// KB001: a bench slower than the previous bench of its name.
fn slower_benches(benches: &[Compared], thresholds: &Thresholds, out: &mut Findings) {
    let slower = thresholds.get(threshold::BENCH_SLOWER_RATIO);
    for b in benches.iter().filter(|b| !b.failed()) {
        let (Some(s), Some(p)) = (b.entry.speedup, b.previous) else {
            continue;
        };
        let warmup = thresholds.get(threshold::BENCH_COMPILE_WARMUP_S);
        if s < slower
            && let Some(c) = crate::bench::compile_turned_on(&b.entry.changed)
            && b.record.wall_s < warmup
        {
            out.uses(threshold::BENCH_COMPILE_WARMUP_S);
            out.add(
                rule::KB006,
                format!(
                    "{}: {} s after {} s with {c}: a bench under {} s counts torch.compile's compilation",
                    b.record.name,
                    fixed(b.record.wall_s, 1),
                    fixed(p.wall_s, 1),
                    shortest(warmup)
                ),
            );
        } else if s < slower {
            out.add(
                rule::KB001,
                format!(
                    "{}: {} s after {} s = {}x (< {}x); changed: {}",
                    b.record.name,
                    fixed(b.record.wall_s, 1),
                    fixed(p.wall_s, 1),
                    fixed(s, 2),
                    shortest(slower),
                    describe_changes(&b.entry.changed)
                ),
            );
        }
    }
}

/// KB004: more than one setting changed since the previous bench of the name.
fn several_changes(benches: &[Compared], out: &mut Findings) {
    for b in benches.iter().filter(|b| b.entry.changed.len() > 1) {
        out.add(
            rule::KB004,
            format!(
                "{} at {}: {} settings changed: {}",
                b.record.name,
                b.record.time,
                b.entry.changed.len(),
                describe_changes(&b.entry.changed)
            ),
        );
    }
}

/// The records of the history, or why there are none.
fn records_of_history(text: &str) -> Result<(Vec<BenchRecord>, Vec<LineProblem>), RequestError> {
    if text.trim().is_empty() {
        return Err(RequestError::new(
            "history",
            "no bench history yet; expected JSON lines, one bench record each",
        ));
    }
    let (records, problems) = parse_history(text);
    if let (true, Some(first)) = (records.is_empty(), problems.first()) {
        return Err(RequestError::at_line(
            "history",
            first.line,
            format!(
                "no bench record could be read ({} bad line(s)): {}",
                problems.len(),
                first.message
            ),
        ));
    }
    Ok((records, problems))
}

/// `kgadvise bench --history`: the records of the history in file order (of one run name when given),
/// each compared with the previous record of the same name. Errors name the request field and what was
/// expected.
pub fn history(
    request: &BenchHistoryRequest,
    clock: DateTime<Utc>,
) -> Result<HistoryReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let (records, problems) = records_of_history(&request.history)?;
    let name = request
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let benches = compared(&records, name);
    let mut out = Findings::new();
    for checked in [rule::KB001, rule::KB002, rule::KB004] {
        out.uses(checked);
    }
    out.uses(threshold::BENCH_SLOWER_RATIO);
    failed_benches(&benches, &mut out);
    slower_benches(&benches, &thresholds, &mut out);
    several_changes(&benches, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(HistoryReport {
        schema: HISTORY_SCHEMA,
        name: name.map(String::from),
        records: benches.into_iter().map(|b| b.entry).collect(),
        problems,
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::tests::rec;

    fn history_of(records: &[BenchRecord], name: Option<&str>) -> HistoryReport {
        let text: Vec<String> = records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap())
            .collect();
        let request = BenchHistoryRequest {
            history: text.join("\n"),
            name: name.map(String::from),
            ..BenchHistoryRequest::default()
        };
        history(&request, "2026-12-01T00:00:00Z".parse().unwrap()).unwrap()
    }

    #[test]
    fn history_speedups_against_the_previous_record_of_the_same_name() {
        let records = vec![
            rec("img", "python t.py --bs 64", 400.0, 0),
            rec("gbdt", "python g.py", 100.0, 0),
            rec("img", "python t.py --bs 128", 200.0, 0),
            rec("img", "python t.py --bs 128 --compile", 250.0, 0),
        ];
        let h = history_of(&records, Some("img"));
        let s: Vec<Option<f64>> = h.records.iter().map(|e| e.speedup).collect();
        assert_eq!(s, vec![None, Some(2.0), Some(0.8)]);
        assert_eq!(h.records[1].changed[0].setting, "--bs");
        assert_eq!(h.records[0].changed_text(), None);
        assert_eq!(
            h.records[1].changed_text().as_deref(),
            Some("--bs: 64 -> 128")
        );
        // 250 s with --compile: a short bench counts the compilation (KB006), not a slower run.
        let rules: Vec<&str> = h.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB006"], "{:?}", h.findings);
        assert!(
            h.findings[0]
                .evidence
                .contains("--compile: (unset) -> true")
        );
        let long: Vec<BenchRecord> = records
            .iter()
            .map(|r| BenchRecord {
                wall_s: r.wall_s * 10.0,
                ..r.clone()
            })
            .collect();
        let h = history_of(&long, Some("img"));
        let rules: Vec<&str> = h.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB001"], "{:?}", h.findings);
    }

    #[test]
    fn failures_and_multiple_changes_are_flagged() {
        let records = vec![
            rec("a", "x --p 1 --q 1", 10.0, 0),
            rec("a", "x --p 2 --q 2", 9.0, 1),
        ];
        let h = history_of(&records, None);
        let rules: Vec<&str> = h.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB002", "KB004"]);
        assert!(
            h.findings[0].evidence.ends_with(": exit status 1"),
            "{}",
            h.findings[0].evidence
        );
        // one change, faster: nothing to say
        let records = vec![rec("a", "x --p 1", 10.0, 0), rec("a", "x --p 2", 9.0, 0)];
        assert!(history_of(&records, None).findings.is_empty());
    }

    #[test]
    fn an_empty_or_unreadable_history_names_the_field() {
        let clock = "2026-12-01T00:00:00Z".parse().unwrap();
        let e = history(&BenchHistoryRequest::default(), clock).unwrap_err();
        assert_eq!(e.field, "history");
        assert!(e.message.contains("no bench history yet"), "{e}");
        let request = BenchHistoryRequest {
            history: "\nnot json\n".into(),
            ..BenchHistoryRequest::default()
        };
        let e = history(&request, clock).unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("history", Some(2)), "{e}");
        assert!(e.message.contains("expected a bench record"), "{e}");
    }
}

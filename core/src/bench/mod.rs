//! Bench history (CE §2 "Any command"): records of timed commands, the speed-up of each against the
//! previous record of the same run name, and what changed between them (flags and environment variables
//! parsed from the commands). Reading and writing the history file is the CLI's job; this is pure.

use crate::rulebook::ids::{rule, threshold};
use serde::{Deserialize, Serialize};

use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
use crate::text::decimal::parse_f64;
use crate::text::number::{fixed, shortest};

pub const HISTORY_SCHEMA: &str = "kgadvise.bench-history/1";

/// The three bench rates in samples/s (CE §2), as passed by flags or printed by the command in a
/// `KGADVISE_RATES data=… compute=… loop=…` line.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rates {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute: Option<f64>,
    #[serde(rename = "loop", skip_serializing_if = "Option::is_none")]
    pub real_loop: Option<f64>,
}

impl Rates {
    pub fn is_empty(&self) -> bool {
        self.data.is_none() && self.compute.is_none() && self.real_loop.is_none()
    }
    /// Fills the rates this one lacks from `other`.
    pub fn or(self, other: Rates) -> Rates {
        Rates {
            data: self.data.or(other.data),
            compute: self.compute.or(other.compute),
            real_loop: self.real_loop.or(other.real_loop),
        }
    }
}

/// The marker a benched command prints to report its rates.
pub const RATES_MARKER: &str = "KGADVISE_RATES";

/// Parses a `KGADVISE_RATES data=1200 compute=900.5 loop=850` line (anywhere in the line; keys in any
/// order, any subset). Returns None for lines without the marker or without a single valid rate.
pub fn parse_rates_line(line: &str) -> Option<Rates> {
    let start = line.find(RATES_MARKER)?;
    let rest = line.get(start + RATES_MARKER.len()..)?;
    let mut rates = Rates::default();
    for token in rest.split_whitespace() {
        let Some((key, value)) = token.split_once('=') else {
            continue;
        };
        let Some(v) = parse_f64(value.trim_end_matches(',')) else {
            continue;
        };
        if !v.is_finite() || v < 0.0 {
            continue;
        }
        match key.to_ascii_lowercase().as_str() {
            "data" => rates.data = Some(v),
            "compute" => rates.compute = Some(v),
            "loop" | "real" | "real_loop" => rates.real_loop = Some(v),
            _ => {}
        }
    }
    (!rates.is_empty()).then_some(rates)
}

/// One bench of one command, as appended to `reports/bench.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRecord {
    pub name: String,
    /// RFC 3339 UTC, given by the adapter (core reads no clock).
    pub time: String,
    pub command: String,
    pub wall_s: f64,
    /// None when the command was killed by a signal or interrupted.
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub interrupted: bool,
    /// Per-GPU summary of the samples taken while the command ran (the diagnose report's `gpus`).
    #[serde(default)]
    pub gpus: Vec<serde_json::Value>,
    /// Verdict identifiers, fix first.
    #[serde(default)]
    pub verdicts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rates: Option<Rates>,
}

/// A setting of a command: a flag (`--batch-size`) or an environment variable (`env:AMP`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub setting: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".to_string());
        write!(
            f,
            "{}: {} -> {}",
            self.setting,
            show(&self.before),
            show(&self.after)
        )
    }
}

/// The settings of a command line: leading `VAR=value` words (and `env VAR=value`) are environment
/// variables; `--flag value`, `--flag=value`, `-f value` are flags with values; a flag followed by another
/// flag (or nothing) is a switch (`true`). The program and positional words are kept under `argv[i]`.
pub fn settings_of(command: &str) -> Vec<(String, String)> {
    let words = shlex::split(command)
        .unwrap_or_else(|| command.split_whitespace().map(String::from).collect());
    let mut out: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    // Environment prefix.
    while let Some(w) = words.get(i) {
        if w == "env" {
            i += 1;
            continue;
        }
        match w.split_once('=') {
            Some((k, v)) if is_env_name(k) => {
                out.push((format!("env:{k}"), v.to_string()));
                i += 1;
            }
            _ => break,
        }
    }
    let mut positional = 0;
    while let Some(w) = words.get(i) {
        if w.starts_with('-') && w.len() > 1 && parse_f64(w).is_none() {
            if let Some((k, v)) = w.split_once('=') {
                out.push((k.to_string(), v.to_string()));
            } else {
                match words.get(i + 1) {
                    Some(next) if !(next.starts_with('-') && parse_f64(next).is_none()) => {
                        out.push((w.clone(), next.clone()));
                        i += 1;
                    }
                    _ => out.push((w.clone(), "true".to_string())),
                }
            }
        } else {
            out.push((format!("argv[{positional}]"), w.clone()));
            positional += 1;
        }
        i += 1;
    }
    out
}

fn is_env_name(k: &str) -> bool {
    !k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && k.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// What changed from `before` to `after`, in the order the settings appear.
pub fn changed_settings(before: &str, after: &str) -> Vec<Change> {
    let a = settings_of(before);
    let b = settings_of(after);
    let lookup = |list: &[(String, String)], key: &str| {
        list.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in a.iter().chain(b.iter()) {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (lookup(&a, &k), lookup(&b, &k));
            (x != y).then_some(Change {
                setting: k,
                before: x,
                after: y,
            })
        })
        .collect()
}

/// The changes as one line for a finding's evidence (`--bs: 64 -> 128; env:AMP: 0 -> 1`).
fn describe_changes(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "nothing in the command changed (noise, or a change outside the command)"
            .to_string();
    }
    changes
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Speed-up of `current` against `reference` (>1 = faster). None when a wall time is not positive.
pub fn speedup(reference_wall_s: f64, current_wall_s: f64) -> Option<f64> {
    (reference_wall_s > 0.0
        && current_wall_s > 0.0
        && reference_wall_s.is_finite()
        && current_wall_s.is_finite())
    .then(|| reference_wall_s / current_wall_s)
}

/// A line of the history file that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineProblem {
    pub line: usize,
    pub message: String,
}

/// Reads `bench.jsonl`: one JSON record per line; blank lines skipped; bad lines reported, not fatal.
pub fn parse_history(text: &str) -> (Vec<BenchRecord>, Vec<LineProblem>) {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        // Value first, then the record: serde_json's typed reader words a float in a type error with its
        // own float printer (zmij, ~10 KB of the page); crate::text::json words it with crate::text::number.
        let record = serde_json::from_str::<serde_json::Value>(line)
            .map_err(|e| e.to_string())
            .and_then(|v| crate::text::json::from_value::<BenchRecord>(&v));
        match record {
            Ok(r) => records.push(r),
            Err(e) => problems.push(LineProblem {
                line: i + 1,
                message: format!(
                    "expected a bench record {{name, time, command, wall_s, exit_code, ...}}: {e}"
                ),
            }),
        }
    }
    (records, problems)
}

/// One record of the history as shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
}

/// `kgadvise bench --history [--name N]`: records in file order, each compared with the previous record
/// of the same name.
pub fn history(
    records: &[BenchRecord],
    problems: Vec<LineProblem>,
    name: Option<&str>,
    thresholds: &Thresholds,
) -> HistoryReport {
    let slower = thresholds.get(threshold::BENCH_SLOWER_RATIO);
    let mut entries = Vec::new();
    let mut findings = Vec::new();
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
        let failed = r.exit_code != Some(0) || r.interrupted;
        if failed {
            findings.push(Finding::from_rule(
                rule::KB002,
                format!(
                    "{} at {}: exit {:?}{}",
                    r.name,
                    r.time,
                    r.exit_code,
                    if r.interrupted { " (interrupted)" } else { "" }
                ),
            ));
        }
        if let (Some(s), Some(p)) = (speed, previous)
            && s < slower
            && !failed
        {
            let what = describe_changes(&changed);
            findings.push(Finding::from_rule(
                rule::KB001,
                format!(
                    "{}: {} s after {} s = {}x (< {}x); changed: {what}",
                    r.name,
                    fixed(r.wall_s, 1),
                    fixed(p.wall_s, 1),
                    fixed(s, 2),
                    shortest(slower)
                ),
            ));
        }
        if changed.len() > 1 {
            findings.push(Finding::from_rule(
                rule::KB004,
                format!(
                    "{} at {}: {} settings changed: {}",
                    r.name,
                    r.time,
                    changed.len(),
                    describe_changes(&changed)
                ),
            ));
        }
        entries.push(HistoryEntry {
            name: r.name.clone(),
            time: r.time.clone(),
            command: r.command.clone(),
            wall_s: r.wall_s,
            exit_code: r.exit_code,
            speedup: speed,
            changed,
            verdicts: r.verdicts.clone(),
            rates: r.rates,
        });
    }
    HistoryReport {
        schema: HISTORY_SCHEMA,
        name: name.map(String::from),
        records: entries,
        problems,
        rules: vec![
            rule::KB001.into(),
            rule::KB002.into(),
            rule::KB004.into(),
            threshold::BENCH_SLOWER_RATIO.into(),
        ],
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, command: &str, wall_s: f64, exit: i32) -> BenchRecord {
        BenchRecord {
            name: name.into(),
            time: "2026-11-30T10:00:00Z".into(),
            command: command.into(),
            wall_s,
            exit_code: Some(exit),
            interrupted: false,
            gpus: vec![],
            verdicts: vec![],
            rates: None,
        }
    }

    #[test]
    fn rates_lines() {
        let r =
            parse_rates_line("epoch 1 KGADVISE_RATES data=1200 compute=900.5 loop=850").unwrap();
        assert_eq!(
            (r.data, r.compute, r.real_loop),
            (Some(1200.0), Some(900.5), Some(850.0))
        );
        let r = parse_rates_line("KGADVISE_RATES loop=3").unwrap();
        assert_eq!((r.data, r.real_loop), (None, Some(3.0)));
        assert_eq!(parse_rates_line("KGADVISE_RATES data=x loop=-1"), None);
        assert_eq!(parse_rates_line("data=1 compute=2"), None);
    }

    #[test]
    fn settings_and_changes() {
        // (before, after, expected changes as "setting: a -> b")
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "python train.py --batch-size 64",
                "python train.py --batch-size 128",
                &["--batch-size: 64 -> 128"],
            ),
            (
                "python train.py",
                "python train.py --compile",
                &["--compile: (unset) -> true"],
            ),
            (
                "AMP=0 python t.py --bs=32",
                "AMP=1 python t.py --bs=32",
                &["env:AMP: 0 -> 1"],
            ),
            (
                "env CUDA_VISIBLE_DEVICES=0 python t.py --workers 2 --amp",
                "env CUDA_VISIBLE_DEVICES=0 python t.py --workers 4",
                &["--workers: 2 -> 4", "--amp: true -> (unset)"],
            ),
            (
                "python a.py --lr -0.1",
                "python a.py --lr -0.2",
                &["--lr: -0.1 -> -0.2"],
            ),
            ("python a.py 'x y'", "python a.py 'x y'", &[]),
            ("python a.py", "python b.py", &["argv[1]: a.py -> b.py"]),
        ];
        for (a, b, expected) in cases {
            let got: Vec<String> = changed_settings(a, b)
                .iter()
                .map(|c| c.to_string())
                .collect();
            assert_eq!(&got, expected, "{a} -> {b}");
        }
    }

    #[test]
    fn history_speedups_against_the_previous_record_of_the_same_name() {
        let records = vec![
            rec("img", "python t.py --bs 64", 400.0, 0),
            rec("gbdt", "python g.py", 100.0, 0),
            rec("img", "python t.py --bs 128", 200.0, 0),
            rec("img", "python t.py --bs 128 --compile", 250.0, 0),
        ];
        let h = history(&records, vec![], Some("img"), &Thresholds::defaults());
        let s: Vec<Option<f64>> = h.records.iter().map(|e| e.speedup).collect();
        assert_eq!(s, vec![None, Some(2.0), Some(0.8)]);
        assert_eq!(h.records[1].changed[0].setting, "--bs");
        assert_eq!(h.records[0].changed_text(), None);
        assert_eq!(
            h.records[1].changed_text().as_deref(),
            Some("--bs: 64 -> 128")
        );
        let rules: Vec<&str> = h.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB001"], "{:?}", h.findings);
        assert!(
            h.findings[0]
                .evidence
                .contains("--compile: (unset) -> true")
        );
    }

    #[test]
    fn failures_and_multiple_changes_are_flagged() {
        let records = vec![
            rec("a", "x --p 1 --q 1", 10.0, 0),
            rec("a", "x --p 2 --q 2", 9.0, 1),
        ];
        let h = history(&records, vec![], None, &Thresholds::defaults());
        let rules: Vec<&str> = h.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB002", "KB004"]);
        // one change, faster: nothing to say
        let records = vec![rec("a", "x --p 1", 10.0, 0), rec("a", "x --p 2", 9.0, 0)];
        assert!(
            history(&records, vec![], None, &Thresholds::defaults())
                .findings
                .is_empty()
        );
    }

    #[test]
    fn history_lines_are_read_leniently() {
        let good = serde_json::to_string(&rec("a", "x", 1.0, 0)).unwrap();
        let text = format!("{good}\n\nnot json\n{good}\n");
        let (records, problems) = parse_history(&text);
        assert_eq!(records.len(), 2);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, 3);
        assert!(problems[0].message.contains("expected a bench record"));
    }
}

pub const BENCH_SCHEMA: &str = "kgadvise.bench/1";

/// What the adapter measured for one command.
#[derive(Debug, Clone)]
pub struct Measured {
    pub command: String,
    pub wall_s: f64,
    pub exit_code: Option<i32>,
    pub interrupted: bool,
    /// The rates the command printed or the user passed.
    pub rates: Option<Rates>,
    /// The diagnosis of the nvidia-smi samples taken while it ran (and the rates); None when there was
    /// neither a sample nor a rate.
    pub diagnosis: Option<crate::diagnose::verdict::DiagnoseReport>,
}

/// One run of a bench, as reported.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRun {
    pub command: String,
    pub wall_s: f64,
    pub exit_code: Option<i32>,
    pub interrupted: bool,
    /// Against the first run of this bench (>1 = faster).
    pub speedup: Option<f64>,
    pub gpus: Vec<crate::diagnose::verdict::GpuReport>,
    pub verdicts: Vec<&'static str>,
    pub wasted_quota_hours: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rates: Option<Rates>,
    /// Settings that differ from the first run.
    pub changed: Vec<Change>,
}

/// `kgadvise bench --run ...`.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub schema: &'static str,
    pub name: String,
    /// Whether nvidia-smi sampled the GPUs while the commands ran.
    pub gpu_sampled: bool,
    pub runs: Vec<BenchRun>,
    /// Speed-up of the first run against the previous bench of the same name in the history, if any.
    pub speedup_vs_previous: Option<f64>,
    pub changed_vs_previous: Vec<Change>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for BenchReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

/// Assembles the bench report: speed-ups against the first run and against the previous bench of the same
/// name, what changed, and the findings (failed runs, no GPU sampling, the verdicts of each run).
pub fn bench_report(
    name: &str,
    measured: &[Measured],
    gpu_sampled: bool,
    previous: Option<&BenchRecord>,
    thresholds: &Thresholds,
) -> BenchReport {
    let mut findings = Vec::new();
    let mut rules = vec![rule::KB002.to_string(), rule::KB003.to_string()];
    if !gpu_sampled {
        findings.push(Finding::from_rule(
            rule::KB003,
            "nvidia-smi was not available while the commands ran: wall time only".to_string(),
        ));
    }
    let first = measured.first();
    let mut runs = Vec::new();
    for (i, m) in measured.iter().enumerate() {
        let label = if measured.len() > 1 {
            format!("run {}: ", i + 1)
        } else {
            String::new()
        };
        if m.exit_code != Some(0) || m.interrupted {
            let how = if m.interrupted {
                "interrupted (Ctrl-C)".to_string()
            } else {
                match m.exit_code {
                    Some(c) => format!("exit status {c}"),
                    None => "killed by a signal".to_string(),
                }
            };
            findings.push(
                Finding::from_rule(
                    rule::KB002,
                    format!("`{}`: {how} after {} s", m.command, fixed(m.wall_s, 1)),
                )
                .with_title(format!("{label}the benched command failed")),
            );
        }
        if let Some(d) = &m.diagnosis {
            for f in &d.findings {
                let mut f = f.clone();
                f.title = format!("{label}{}", f.title);
                findings.push(f);
            }
            for r in &d.rules {
                if !rules.contains(r) {
                    rules.push(r.clone());
                }
            }
        }
        let speed = first
            .filter(|_| i > 0)
            .and_then(|f| speedup(f.wall_s, m.wall_s));
        let changed = first
            .filter(|_| i > 0)
            .map(|f| changed_settings(&f.command, &m.command))
            .unwrap_or_default();
        runs.push(BenchRun {
            command: m.command.clone(),
            wall_s: m.wall_s,
            exit_code: m.exit_code,
            interrupted: m.interrupted,
            speedup: speed,
            gpus: m
                .diagnosis
                .as_ref()
                .map(|d| d.gpus.clone())
                .unwrap_or_default(),
            verdicts: m
                .diagnosis
                .as_ref()
                .map(|d| d.verdicts.clone())
                .unwrap_or_default(),
            wasted_quota_hours: m.diagnosis.as_ref().and_then(|d| d.wasted_quota_hours),
            rates: m.rates,
            changed,
        });
    }
    let (speedup_vs_previous, changed_vs_previous) = match (previous, first) {
        (Some(p), Some(f)) => (
            speedup(p.wall_s, f.wall_s),
            changed_settings(&p.command, &f.command),
        ),
        _ => (None, Vec::new()),
    };
    let slower = thresholds.get(threshold::BENCH_SLOWER_RATIO);
    if let (Some(s), Some(p), Some(f)) = (speedup_vs_previous, previous, first)
        && s < slower
        && f.exit_code == Some(0)
    {
        let what = describe_changes(&changed_vs_previous);
        findings.push(Finding::from_rule(
            rule::KB001,
            format!(
                "{name}: {} s after {} s at {} = {}x (< {}x); changed: {what}",
                fixed(f.wall_s, 1),
                fixed(p.wall_s, 1),
                p.time,
                fixed(s, 2),
                shortest(slower)
            ),
        ));
        rules.push(rule::KB001.into());
    }
    if changed_vs_previous.len() > 1 {
        findings.push(Finding::from_rule(
            rule::KB004,
            format!(
                "{} settings changed since the previous bench of {name}: {}",
                changed_vs_previous.len(),
                describe_changes(&changed_vs_previous)
            ),
        ));
        rules.push(rule::KB004.into());
    }
    BenchReport {
        schema: BENCH_SCHEMA,
        name: name.to_string(),
        gpu_sampled,
        runs,
        speedup_vs_previous,
        changed_vs_previous,
        rules,
        findings,
    }
}

/// The history records of a bench report, to append to `bench.jsonl` (per-GPU summaries without the
/// timeline, to keep one line per run small).
pub fn records_of(report: &BenchReport, time: &str) -> Vec<BenchRecord> {
    report
        .runs
        .iter()
        .map(|r| BenchRecord {
            name: report.name.clone(),
            time: time.to_string(),
            command: r.command.clone(),
            wall_s: r.wall_s,
            exit_code: r.exit_code,
            interrupted: r.interrupted,
            gpus: r
                .gpus
                .iter()
                .filter_map(|g| serde_json::to_value(g).ok())
                .map(|mut v| {
                    if let Some(obj) = v.as_object_mut() {
                        obj.remove("timeline");
                        obj.remove("timeline_step_samples");
                    }
                    v
                })
                .collect(),
            verdicts: r.verdicts.iter().map(|v| v.to_string()).collect(),
            rates: r.rates,
        })
        .collect()
}

/// A default run name from a command: the script it runs (`python src/train.py ...` -> `train`), else the
/// program.
pub fn default_name(command: &str) -> String {
    let settings = settings_of(command);
    let words: Vec<&str> = settings
        .iter()
        .filter(|(k, _)| k.starts_with("argv["))
        .map(|(_, v)| v.as_str())
        .collect();
    let script = words.iter().find(|w| {
        [".py", ".sh", ".R", ".jl", ".ipynb"]
            .iter()
            .any(|ext| w.ends_with(ext))
    });
    let pick = script.or(words.first()).copied().unwrap_or("bench");
    let base = pick.rsplit(['/', '\\']).next().unwrap_or(pick);
    base.split('.')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("bench")
        .to_string()
}

#[cfg(test)]
mod report_tests {
    use super::*;

    fn m(command: &str, wall_s: f64, exit: i32) -> Measured {
        Measured {
            command: command.into(),
            wall_s,
            exit_code: Some(exit),
            interrupted: false,
            rates: None,
            diagnosis: None,
        }
    }

    #[test]
    fn speedups_against_the_first_run_and_the_previous_bench() {
        let t = Thresholds::defaults();
        let runs = [
            m("python t.py --bs 64", 100.0, 0),
            m("python t.py --bs 128", 50.0, 0),
        ];
        let prev = BenchRecord {
            name: "t".into(),
            time: "2026-11-29T10:00:00Z".into(),
            command: "python t.py --bs 32".into(),
            wall_s: 80.0,
            exit_code: Some(0),
            interrupted: false,
            gpus: vec![],
            verdicts: vec![],
            rates: None,
        };
        let r = bench_report("t", &runs, true, Some(&prev), &t);
        assert_eq!(r.runs[0].speedup, None);
        assert_eq!(r.runs[1].speedup, Some(2.0));
        assert_eq!(r.runs[1].changed[0].to_string(), "--bs: 64 -> 128");
        assert_eq!(r.speedup_vs_previous, Some(0.8));
        let rules: Vec<&str> = r.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB001"]);
        assert!(
            r.findings[0].evidence.contains("--bs: 32 -> 64"),
            "{}",
            r.findings[0].evidence
        );
    }

    #[test]
    fn failures_and_missing_sampling_are_findings() {
        let t = Thresholds::defaults();
        let mut failed = m("false", 0.1, 1);
        let r = bench_report("x", std::slice::from_ref(&failed), false, None, &t);
        let rules: Vec<&str> = r.findings.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, vec!["KB003", "KB002"]);
        failed.exit_code = Some(0);
        let r = bench_report("x", &[failed], true, None, &t);
        assert!(r.findings.is_empty());
    }

    #[test]
    fn records_and_names() {
        let t = Thresholds::defaults();
        let r = bench_report("t", &[m("python t.py", 1.0, 0)], true, None, &t);
        let recs = records_of(&r, "2026-11-30T00:00:00Z");
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].time, "2026-11-30T00:00:00Z");
        assert_eq!(
            default_name("CUDA_VISIBLE_DEVICES=0 python src/train_image.py --bs 64"),
            "train_image"
        );
        assert_eq!(default_name("xgb-bench --rows 10"), "xgb-bench");
        assert_eq!(default_name(""), "bench");
    }
}

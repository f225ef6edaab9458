//! Benches (CE §2 "Any command"): records of timed commands, the speed-up of each against the previous
//! record of the same run name, and what changed between them (flags and environment variables parsed
//! from the commands). Two advisors: [`bench`] (the runs just measured: [`BenchRequest`]) and
//! [`history`] (a history file: [`BenchHistoryRequest`]). Running the commands, sampling nvidia-smi and
//! reading and writing the history file are the CLI's job; this is pure.

mod device;
mod history;
mod run;
mod text;

use serde::{Deserialize, Serialize};

pub use device::{Device, device_of, is_device_change};
pub use history::{BenchHistoryRequest, HISTORY_SCHEMA, HistoryEntry, HistoryReport, history};
pub use run::{
    BENCH_SCHEMA, BenchReport, BenchRequest, BenchRun, GpuVsCpu, MeasuredRun, bench, records_of,
    run_name,
};

use crate::text::decimal::parse_f64;

/// The three bench rates in samples/s (CE §2), as passed by flags or printed by the command in a
/// `KGADVISE_RATES data=… compute=… loop=…` line.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "BenchRates")
)]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Change {
    pub setting: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The change that turned torch.compile on (`--compile`, `compile=true`, ...), when one did: a bench
/// shorter than its warm-up counts the compilation in its wall time.
pub fn compile_turned_on(changed: &[Change]) -> Option<&Change> {
    changed.iter().find(|c| {
        let on = |v: &Option<String>| {
            v.as_deref().is_some_and(|v| {
                !matches!(
                    v.trim().to_ascii_lowercase().as_str(),
                    "false" | "0" | "no" | "off" | "none" | ""
                )
            })
        };
        c.setting.to_ascii_lowercase().contains("compile") && on(&c.after) && !on(&c.before)
    })
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
pub(crate) fn describe_changes(changes: &[Change]) -> String {
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// How a benched command ended, when it did not succeed: `exit status 2`, `killed by a signal`,
/// `interrupted (Ctrl-C)`.
pub(crate) fn how_it_ended(exit_code: Option<i32>, interrupted: bool) -> String {
    if interrupted {
        return "interrupted (Ctrl-C)".to_string();
    }
    match exit_code {
        Some(c) => format!("exit status {c}"),
        None => "killed by a signal".to_string(),
    }
}

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
mod tests {
    use super::*;

    /// A record of a successful-or-not bench at a fixed time (the history tests' too).
    pub(super) fn rec(name: &str, command: &str, wall_s: f64, exit: i32) -> BenchRecord {
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
    fn history_lines_are_read_leniently() {
        let good = serde_json::to_string(&rec("a", "x", 1.0, 0)).unwrap();
        let text = format!("{good}\n\nnot json\n{good}\n");
        let (records, problems) = parse_history(&text);
        assert_eq!(records.len(), 2);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, 3);
        assert!(problems[0].message.contains("expected a bench record"));
    }

    #[test]
    fn default_names() {
        assert_eq!(
            default_name("CUDA_VISIBLE_DEVICES=0 python src/train_image.py --bs 64"),
            "train_image"
        );
        assert_eq!(default_name("xgb-bench --rows 10"), "xgb-bench");
        assert_eq!(default_name(""), "bench");
    }
}

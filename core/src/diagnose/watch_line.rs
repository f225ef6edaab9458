//! The final diagnosis of `kgadvise watch` as one machine line, `KGADVISE_DIAGNOSIS {compact JSON}`,
//! printed besides the human text: a Kaggle kernel run under `kgadvise watch` keeps it in its log, and
//! `kgadvise collect` of that kernel reads the last one back (rule KR016), as bench reads a command's
//! `KGADVISE_RATES` line. [`WatchDiagnosis::line`] writes it; [`WatchDiagnosis::of_line`] reads it.

use serde::{Deserialize, Serialize};

use super::verdict::DiagnoseReport;
use crate::rulebook::Severity;

/// The marker that starts the line.
pub const DIAGNOSIS_MARKER: &str = "KGADVISE_DIAGNOSIS";

/// What the line was expected to be.
const EXPECTED: &str = "`KGADVISE_DIAGNOSIS ` and one JSON object (verdicts, gpus, span_s, wasted_quota_hours, rule, title, severity, fix), as `kgadvise watch` prints it";

/// The diagnosis a watch ended with, as its line carries it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct WatchDiagnosis {
    /// Verdict identifiers, fix first.
    pub verdicts: Vec<String>,
    pub gpus: Vec<WatchGpu>,
    /// Observed span of the samples in seconds; null when unknown.
    pub span_s: Option<f64>,
    /// Quota hours the observed span wasted; null when unknown.
    pub wasted_quota_hours: Option<f64>,
    /// The first finding of the diagnosis: its rule, title, severity and fix.
    pub rule: Option<String>,
    pub title: Option<String>,
    pub severity: Option<Severity>,
    pub fix: Option<String>,
}

/// One GPU of the diagnosis, in short.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct WatchGpu {
    pub index: u32,
    pub name: Option<String>,
    pub util_mean: Option<f64>,
    pub mem_peak_pct: Option<f64>,
    pub busy: Option<bool>,
}

impl WatchDiagnosis {
    /// The short form of a diagnose report.
    pub fn of(report: &DiagnoseReport) -> WatchDiagnosis {
        let first = report.findings.first();
        WatchDiagnosis {
            verdicts: report.verdicts.iter().map(|v| v.to_string()).collect(),
            gpus: report
                .gpus
                .iter()
                .map(|g| WatchGpu {
                    index: g.index,
                    name: g.name.clone(),
                    util_mean: g.util_mean,
                    mem_peak_pct: g.mem_peak_pct,
                    busy: g.busy,
                })
                .collect(),
            span_s: report.span_s,
            wasted_quota_hours: report.wasted_quota_hours,
            rule: first.map(|f| f.rule.clone()),
            title: first.map(|f| f.title.clone()),
            severity: first.map(|f| f.severity),
            fix: first.map(|f| f.fix.clone()).filter(|f| !f.is_empty()),
        }
    }

    /// The machine line: the marker, a space, the compact JSON (one line: JSON escapes newlines).
    pub fn line(&self) -> String {
        // core's JSON writer: serde_json's float printer would cost the page ~10 KB of wasm.
        let json = crate::text::json::text(self);
        format!("{DIAGNOSIS_MARKER} {json}")
    }

    /// The diagnosis of a line holding the marker (anywhere: a log may prefix it); None without the
    /// marker; an error saying what is wrong and what was expected when the rest is not the JSON.
    pub fn of_line(line: &str) -> Option<Result<WatchDiagnosis, String>> {
        let at = line.find(DIAGNOSIS_MARKER)?;
        let rest = line.get(at + DIAGNOSIS_MARKER.len()..).unwrap_or_default();
        let rest = rest.trim();
        if !rest.starts_with('{') {
            return Some(Err(format!(
                "no JSON object after the marker; expected {EXPECTED}"
            )));
        }
        Some(
            serde_json::from_str::<serde_json::Value>(rest)
                .map_err(|e| e.to_string())
                .and_then(|value| crate::text::json::from_value::<WatchDiagnosis>(&value))
                .map_err(|e| format!("its JSON cannot be read ({e}); expected {EXPECTED}")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_to_the_same_diagnosis() {
        let d = WatchDiagnosis {
            verdicts: vec!["second-gpu-idle".into()],
            gpus: vec![WatchGpu {
                index: 1,
                name: Some("Tesla T4".into()),
                util_mean: Some(0.0),
                mem_peak_pct: Some(1.5),
                busy: Some(false),
            }],
            span_s: Some(300.0),
            wasted_quota_hours: Some(0.04),
            rule: Some("KV003".into()),
            title: Some("t".into()),
            severity: Some(Severity::Warning),
            fix: Some("use both\nGPUs".into()),
        };
        let line = d.line();
        assert!(!line.contains('\n'), "{line}");
        let prefixed = format!("[stdout] {line}");
        assert_eq!(WatchDiagnosis::of_line(&prefixed), Some(Ok(d)));
    }

    #[test]
    fn a_malformed_line_is_an_error_and_a_line_without_the_marker_is_none() {
        assert_eq!(WatchDiagnosis::of_line("epoch 1 loss 0.3"), None);
        for bad in [
            "KGADVISE_DIAGNOSIS",
            "KGADVISE_DIAGNOSIS {\"verdicts\": [",
            "KGADVISE_DIAGNOSIS {\"verdicts\": 3}",
        ] {
            let err = WatchDiagnosis::of_line(bad).unwrap().unwrap_err();
            assert!(
                err.contains("expected `KGADVISE_DIAGNOSIS "),
                "{bad}: {err}"
            );
        }
    }
}

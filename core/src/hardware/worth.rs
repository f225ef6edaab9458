//! "Is the GPU worth the quota?" (spec §4, CE §4).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::hardware::{NoteAnswer, notes_of, unknown_key};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::rule;
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{WorthGpu, rulebook};

pub const WORTH_GPU_SCHEMA: &str = "kgadvise.worth-gpu/1";

/// `kgadvise worth-gpu`: should a task of this size spend GPU quota?
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WorthGpuRequest {
    /// The task (required): gbdt, dataframe, sklearn or deep-learning.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(long, required = true))]
    pub task: String,
    /// Training rows (required).
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(long, required = true))]
    pub rows: Option<u64>,
    /// How many times the model is fit in the run: folds x seeds x tuning trials, feature search, hill
    /// climbing.
    #[cfg_attr(feature = "cli", arg(long))]
    pub refits: Option<u64>,
    /// The time of the answer, for the age of the entries used (RFC 3339 or a date; default: the
    /// caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Choice {
    #[serde(rename = "gpu")]
    Gpu,
    #[serde(rename = "cpu")]
    Cpu,
    #[serde(rename = "bench-both")]
    BenchBoth,
}

impl Choice {
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Gpu => "gpu",
            Choice::Cpu => "cpu",
            Choice::BenchBoth => "bench-both",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorthGpuReport {
    pub schema: &'static str,
    pub task: String,
    pub rows: u64,
    pub refits: Option<u64>,
    pub choice: Choice,
    pub reason: String,
    pub advice: Vec<String>,
    /// Advice the seeds give in words for this task (preprocessing once, off-quota), each with its ID
    /// and source.
    pub notes: Vec<NoteAnswer>,
    pub cpu_below_rows: u64,
    pub gpu_from_rows: u64,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for WorthGpuReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::hardware::text::worth_gpu(self)
    }
}

/// The task keys, in the rules' order.
pub fn tasks() -> Vec<&'static str> {
    rulebook()
        .worth_gpu
        .iter()
        .map(|w| w.task.as_ref())
        .collect()
}

/// The validated request and the choice it leads to: what the rule reads.
struct WorthRun {
    entry: &'static WorthGpu,
    rows: u64,
    refits: Option<u64>,
    choice: Choice,
    reason: String,
}

impl WorthRun {
    fn of(request: &WorthGpuRequest) -> Result<WorthRun, RequestError> {
        if request.task.is_empty() {
            return Err(RequestError::new(
                "task",
                format!("expected a task; valid values: {}", tasks().join(", ")),
            ));
        }
        let entry = rulebook()
            .worth_gpu(&request.task)
            .ok_or_else(|| unknown_key("task", "task", &request.task, &tasks()))?;
        let rows = request
            .rows
            .ok_or_else(|| RequestError::new("rows", "expected the number of training rows"))?;
        let (choice, reason) = choose(entry, rows, request.refits);
        Ok(WorthRun {
            entry,
            rows,
            refits: request.refits,
            choice,
            reason,
        })
    }
}

/// The choice for a task's size, and why.
fn choose(entry: &WorthGpu, rows: u64, refits: Option<u64>) -> (Choice, String) {
    let many_refits = match (entry.gpu_from_refits, refits) {
        (Some(limit), Some(n)) => n >= limit,
        _ => false,
    };
    let refits_reason = entry.refits_reason.as_deref().unwrap_or(&entry.gpu_reason);
    if entry.gpu_from_rows == 0 {
        (Choice::Gpu, entry.gpu_reason.to_string())
    } else if many_refits && rows >= entry.cpu_below_rows {
        (Choice::Gpu, refits_reason.to_string())
    } else if many_refits {
        // The seed names many refits without a row floor; on small data each fit is short on the CPU
        // and a GPU fit carries its transfer overhead: hundreds of them decide, so measure one.
        (
            Choice::BenchBoth,
            format!(
                "{refits_reason}; below {} rows each fit is short on the CPU too: bench one fit both ways",
                entry.cpu_below_rows
            ),
        )
    } else if rows < entry.cpu_below_rows {
        (
            Choice::Cpu,
            format!("{}; a CPU session spends no GPU quota", entry.cpu_reason),
        )
    } else if rows >= entry.gpu_from_rows {
        (Choice::Gpu, entry.gpu_reason.to_string())
    } else {
        (Choice::BenchBoth, entry.between_reason.to_string())
    }
}

/// KH010: the choice, with the task's bounds as evidence.
fn gpu_or_cpu(run: &WorthRun, out: &mut Findings) {
    let entry = run.entry;
    let evidence = if entry.gpu_from_rows == 0 {
        format!("task {}: always on the GPU", entry.task)
    } else {
        format!(
            "{} rows{}: CPU below {} rows, GPU from {} rows{}",
            run.rows,
            run.refits
                .map(|n| format!(", {n} refits"))
                .unwrap_or_default(),
            entry.cpu_below_rows,
            entry.gpu_from_rows,
            entry
                .gpu_from_refits
                .map(|n| format!(" or {n}+ refits"))
                .unwrap_or_default()
        )
    };
    out.push(Finding::from_rule(
        rule::KH010,
        format!("{}: {}; {evidence}", entry.name, run.choice.as_str()),
    ));
    out.uses_entry(&entry.id);
}

/// `kgadvise worth-gpu`: GPU, CPU, or bench both, for a task's rows and refits. Errors name the request
/// field.
pub fn worth_gpu(
    request: &WorthGpuRequest,
    clock: DateTime<Utc>,
) -> Result<WorthGpuReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = WorthRun::of(request)?;
    let mut out = Findings::new();
    gpu_or_cpu(&run, &mut out);
    let notes = notes_of(&run.entry.id, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    let entry = run.entry;
    Ok(WorthGpuReport {
        schema: WORTH_GPU_SCHEMA,
        task: entry.task.to_string(),
        rows: run.rows,
        refits: run.refits,
        choice: run.choice,
        reason: run.reason,
        advice: entry.advice.iter().map(|a| a.to_string()).collect(),
        notes,
        cpu_below_rows: entry.cpu_below_rows,
        gpu_from_rows: entry.gpu_from_rows,
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> DateTime<Utc> {
        "2026-11-30T00:00:00Z".parse().unwrap()
    }

    fn request(task: &str, rows: u64, refits: Option<u64>) -> WorthGpuRequest {
        WorthGpuRequest {
            task: task.to_string(),
            rows: Some(rows),
            refits,
            ..WorthGpuRequest::default()
        }
    }

    fn choice(task: &str, rows: u64, refits: Option<u64>) -> Choice {
        worth_gpu(&request(task, rows, refits), clock())
            .unwrap()
            .choice
    }
    #[test]
    fn gbdt_by_rows() {
        assert_eq!(choice("gbdt", 50_000, None), Choice::Cpu);
        assert_eq!(choice("gbdt", 99_999, None), Choice::Cpu);
        assert_eq!(choice("gbdt", 100_000, None), Choice::BenchBoth);
        assert_eq!(choice("gbdt", 599_999, None), Choice::BenchBoth);
        // CE §4: 2.9x on 600k rows against a Kaggle session's 4 cores.
        assert_eq!(choice("gbdt", 600_000, None), Choice::Gpu);
        assert_eq!(choice("gbdt", 1_000_000, None), Choice::Gpu);
    }

    #[test]
    fn many_refits_pay_on_the_gpu_and_are_measured_on_tiny_data() {
        assert_eq!(choice("gbdt", 300_000, Some(200)), Choice::Gpu);
        assert_eq!(choice("gbdt", 300_000, Some(10)), Choice::BenchBoth);
        assert_eq!(choice("gbdt", 5_000, Some(500)), Choice::BenchBoth);
        assert_eq!(choice("gbdt", 5_000, Some(10)), Choice::Cpu);
    }

    #[test]
    fn other_tasks() {
        assert_eq!(choice("deep-learning", 10, None), Choice::Gpu);
        assert_eq!(choice("sklearn", 99_999, None), Choice::Cpu);
        assert_eq!(choice("sklearn", 100_000, None), Choice::Gpu);
        assert_eq!(choice("dataframe", 5_000_000, None), Choice::Gpu);
        assert_eq!(choice("dataframe", 10_000, None), Choice::Cpu);
    }

    #[test]
    fn unknown_or_missing_inputs_name_the_field() {
        let e = worth_gpu(&request("xgb", 1, None), clock()).unwrap_err();
        assert_eq!(e.field, "task");
        assert!(
            e.message
                .contains("gbdt, dataframe, sklearn, deep-learning"),
            "{e}"
        );
        assert_eq!(
            worth_gpu(&request("", 1, None), clock()).unwrap_err().field,
            "task"
        );
        let no_rows = WorthGpuRequest {
            rows: None,
            ..request("gbdt", 1, None)
        };
        assert_eq!(worth_gpu(&no_rows, clock()).unwrap_err().field, "rows");
    }

    #[test]
    fn the_rules_list_names_the_rule_and_the_entry() {
        let r = worth_gpu(&request("gbdt", 2_000_000, None), clock()).unwrap();
        assert_eq!(r.rules, ["KH010", "worth-gpu.gbdt"]);
        assert_eq!(r.findings.len(), 1);
        assert_eq!(r.findings[0].title, "GPU or CPU for this task");
        assert!(
            r.findings[0]
                .evidence
                .starts_with("GBDT (XGBoost/CatBoost/LightGBM): gpu; "),
            "{}",
            r.findings[0].evidence
        );
        assert!(r.notes.is_empty());
    }

    #[test]
    fn deep_learning_is_told_to_preprocess_off_quota() {
        let r = worth_gpu(&request("deep-learning", 10, None), clock()).unwrap();
        assert_eq!(r.notes.len(), 1);
        assert_eq!(r.notes[0].id, "note.preprocess-off-quota");
        assert!(r.notes[0].text.contains("CPU kernel"), "{:?}", r.notes);
        assert!(r.rules.contains(&"note.preprocess-off-quota".to_string()));
    }
}

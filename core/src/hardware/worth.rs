//! "Is the GPU worth the quota?" (spec §4, CE §4).

use crate::rulebook::ids::rule;
use chrono::NaiveDate;
use serde::Serialize;

use crate::hardware::UnknownId;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::rulebook::{Thresholds, rulebook};

pub const WORTH_GPU_SCHEMA: &str = "kgadvise.worth-gpu/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
pub struct WorthGpuReport {
    pub schema: &'static str,
    pub task: String,
    pub rows: u64,
    pub refits: Option<u64>,
    pub choice: Choice,
    pub reason: String,
    pub advice: Vec<String>,
    pub cpu_below_rows: u64,
    pub gpu_from_rows: u64,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for WorthGpuReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

pub fn tasks() -> Vec<String> {
    rulebook()
        .worth_gpu
        .iter()
        .map(|w| w.task.to_string())
        .collect()
}

/// `kgadvise worth-gpu --task T --rows N [--refits N]`.
pub fn worth_gpu(
    task: &str,
    rows: u64,
    refits: Option<u64>,
    today: NaiveDate,
    thresholds: &Thresholds,
) -> Result<WorthGpuReport, UnknownId> {
    let entry = rulebook().worth_gpu(task).ok_or_else(|| UnknownId {
        what: "task",
        given: task.to_string(),
        valid: tasks(),
    })?;
    let refits_pay = match (entry.gpu_from_refits, refits) {
        (Some(limit), Some(n)) => n >= limit && rows >= entry.cpu_below_rows,
        _ => false,
    };
    let (choice, reason) = if entry.gpu_from_rows == 0 {
        (Choice::Gpu, entry.gpu_reason.to_string())
    } else if refits_pay {
        (
            Choice::Gpu,
            entry
                .refits_reason
                .as_deref()
                .unwrap_or(&entry.gpu_reason)
                .to_string(),
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
    };
    let refit_text = refits.map(|n| format!(", {n} refits")).unwrap_or_default();
    let evidence = if entry.gpu_from_rows == 0 {
        format!("task {task}: always on the GPU")
    } else {
        format!(
            "{rows} rows{refit_text}: CPU below {} rows, GPU from {} rows{}",
            entry.cpu_below_rows,
            entry.gpu_from_rows,
            entry
                .gpu_from_refits
                .map(|n| format!(" or {n}+ refits"))
                .unwrap_or_default()
        )
    };
    let rules = vec![entry.id.to_string(), rule::KH010.to_string()];
    let mut findings = vec![
        Finding::from_rule(rule::KH010, evidence).with_title(format!(
            "{}: {}",
            entry.name,
            choice.as_str()
        )),
    ];
    findings.extend(stale_findings_for(&rules, today, thresholds));
    Ok(WorthGpuReport {
        schema: WORTH_GPU_SCHEMA,
        task: entry.task.to_string(),
        rows,
        refits,
        choice,
        reason,
        advice: entry.advice.iter().map(|a| a.to_string()).collect(),
        cpu_below_rows: entry.cpu_below_rows,
        gpu_from_rows: entry.gpu_from_rows,
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(task: &str, rows: u64, refits: Option<u64>) -> Choice {
        worth_gpu(
            task,
            rows,
            refits,
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            &Thresholds::defaults(),
        )
        .unwrap()
        .choice
    }

    #[test]
    fn gbdt_by_rows() {
        assert_eq!(choice("gbdt", 50_000, None), Choice::Cpu);
        assert_eq!(choice("gbdt", 99_999, None), Choice::Cpu);
        assert_eq!(choice("gbdt", 100_000, None), Choice::BenchBoth);
        assert_eq!(choice("gbdt", 600_000, None), Choice::BenchBoth);
        assert_eq!(choice("gbdt", 1_000_000, None), Choice::Gpu);
    }

    #[test]
    fn many_refits_pay_on_the_gpu_but_not_on_tiny_data() {
        assert_eq!(choice("gbdt", 300_000, Some(200)), Choice::Gpu);
        assert_eq!(choice("gbdt", 300_000, Some(10)), Choice::BenchBoth);
        assert_eq!(choice("gbdt", 5_000, Some(500)), Choice::Cpu);
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
    fn unknown_task_lists_the_valid_ones() {
        let e = worth_gpu(
            "xgb",
            1,
            None,
            NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            &Thresholds::defaults(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("gbdt, dataframe, sklearn, deep-learning"),
            "{e}"
        );
    }
}

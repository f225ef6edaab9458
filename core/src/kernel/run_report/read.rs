//! kgkit's `kg_run.json` (formats.md §10), read leniently: numbers as numbers or strings with a unit
//! (`"7200s"`), booleans as JSON or text, fold keys as numbers or strings, missing parts as unknown.

use serde_json::{Map, Value};

use super::{FoldOutcome, FoldSummary, GpuUtil, JobSummary};
use crate::text::decimal::parse_f64;
use crate::text::json;

pub(super) fn num(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_f64(s.trim().trim_end_matches(['s', 'h', '%']).trim()),
        _ => None,
    }
    .filter(|x: &f64| x.is_finite())
}

pub(super) fn int(v: Option<&Value>) -> Option<i64> {
    num(v).map(|x| x as i64)
}

pub(super) fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(json::text(n)),
        _ => None,
    }
}

pub(super) fn boolean(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        _ => None,
    }
}

/// A fold key: `3`, `"3"`, `3.0` all read as "3".
fn fold_key(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(|i| i.to_string())
            .or_else(|| Some(json::text(n))),
        Value::String(s) => Some(s.trim().to_string()),
        _ => None,
    }
}

fn fold_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(fold_key).collect(),
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn fold_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

pub(super) fn job_summary(job: &Map<String, Value>, index: usize) -> JobSummary {
    let name = text(job.get("name")).unwrap_or_else(|| format!("job {}", index + 1));
    let done: Vec<String> = fold_list(job.get("folds_done"));
    let status_map = job.get("fold_status").and_then(Value::as_object);
    let mut keys: Vec<String> = fold_list(job.get("folds"));
    for k in done.iter().chain(
        status_map
            .map(|m| m.keys().collect::<Vec<_>>())
            .unwrap_or_default(),
    ) {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    for k in fold_list(job.get("folds_incomplete")) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    crate::text::sort::sort_by(&mut keys, |a, b| fold_order(a, b));
    let folds = keys
        .into_iter()
        .map(|fold| {
            let st = status_map
                .and_then(|m| m.get(&fold))
                .and_then(Value::as_object);
            let status = st.and_then(|s| text(s.get("status")));
            let killed = st.and_then(|s| boolean(s.get("killed"))).unwrap_or(false);
            let returncode = st.and_then(|s| int(s.get("returncode")));
            let lower = status.as_deref().map(str::to_ascii_lowercase);
            let outcome = match lower.as_deref() {
                Some("done" | "complete" | "completed") => FoldOutcome::Done,
                Some("timeout" | "timed_out" | "killed") => FoldOutcome::Timeout,
                _ if killed => FoldOutcome::Timeout,
                Some("pruned") => FoldOutcome::Pruned,
                // kgkit writes `not-started` for a fold its deadline left unstarted.
                Some("not-started" | "not_started" | "never-started") => FoldOutcome::NeverStarted,
                Some("failed" | "error") => FoldOutcome::Failed,
                _ if returncode.is_some_and(|c| c != 0) => FoldOutcome::Failed,
                None if done.contains(&fold) => FoldOutcome::Done,
                None if st.is_none() => FoldOutcome::NeverStarted,
                None => FoldOutcome::Other,
                Some(_) => FoldOutcome::Other,
            };
            FoldSummary {
                seconds: st.and_then(|s| num(s.get("seconds"))),
                best: st.and_then(|s| num(s.get("best"))),
                gpu: st.and_then(|s| int(s.get("gpu"))),
                returncode,
                fold,
                outcome,
                status,
            }
        })
        .collect();
    JobSummary {
        name,
        complete: boolean(job.get("complete")),
        assembled: boolean(job.get("assembled")),
        folds,
    }
}

pub(super) fn gpu_utils(v: Option<&Value>, busy_pct: f64) -> Vec<GpuUtil> {
    let one = |index: String, g: &Value| {
        let util_mean = num(g.get("util_mean"));
        GpuUtil {
            busy: util_mean.is_some_and(|u| u > busy_pct),
            util_mean,
            util_p10: num(g.get("util_p10")),
            mem_peak_mb: num(g.get("mem_peak_mb")),
            n: num(g.get("n")).map(|x| x.max(0.0) as u64),
            index,
        }
    };
    let mut out: Vec<GpuUtil> = match v {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(_, g)| g.is_object())
            .map(|(k, g)| one(k.clone(), g))
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter(|(_, g)| g.is_object())
            .map(|(i, g)| one(text(g.get("index")).unwrap_or_else(|| i.to_string()), g))
            .collect(),
        _ => Vec::new(),
    };
    crate::text::sort::sort_by(&mut out, |a, b| fold_order(&a.index, &b.index));
    out
}

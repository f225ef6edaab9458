//! `kgadvise compare`: a paired comparison of an idea's out-of-fold predictions against its control on the
//! same rows (rules.md §12, KG §3.3).
//!
//! * Paired bootstrap: each resample draws rows (or whole groups) with replacement, and the SAME draw
//!   weighs both models, so row difficulty cancels out. Resamples are count vectors: no row is copied and
//!   AUC never re-sorts (see [`super::metrics::Prepared`]).
//! * gain = sign · (metric(idea) − metric(control)), positive = better; se = sd of the resampled gains
//!   (ddof 1); z = gain / se; P(better) = share of resampled gains > 0; ci95 = 2.5/97.5 percentiles of the
//!   resampled gains (linear interpolation, as numpy's default).
//! * Per-fold paired t when a `fold` column gives ≥ 2 folds: d_k = per-fold gain, t = mean(d)/(sd(d)/√k).
//! * Decision: gain ≤ 0 → discard; (z ≥ 2 or fold t ≥ 2 with k > 1) and a majority of folds improved and a
//!   non-negative mean bootstrap gain → promote; otherwise inconclusive.

use crate::rulebook::ids::{ThresholdId, rule, threshold};
use std::collections::HashMap;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

use super::metrics::{Metric, MetricError, Prepared};
use super::table::{InputError, Predictions};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
use crate::text::decimal::parse_f64;
use crate::text::number::{fixed, sci, shortest};

pub const COMPARE_SCHEMA: &str = "kgadvise.compare/1";

/// The seed of the bootstrap when the user gives none (a fixed seed keeps answers reproducible).
pub const DEFAULT_SEED: u64 = 42;

pub const T_PROMOTE_Z: ThresholdId = threshold::STATS_PROMOTE_Z;
pub const T_RESAMPLES: ThresholdId = threshold::STATS_RESAMPLES;
pub const T_JUST_CLEARS_Z: ThresholdId = threshold::STATS_JUST_CLEARS_Z;
pub const T_LEAKAGE: ThresholdId = threshold::STATS_LEAKAGE_FOLD_STD;

/// The two models' predictions joined row by row.
#[derive(Debug, Clone, Default)]
pub struct Paired {
    pub y_true: Vec<f64>,
    pub idea: Vec<f64>,
    pub control: Vec<f64>,
    pub fold: Option<Vec<String>>,
    pub group: Option<Vec<String>>,
    /// How to name each row in messages.
    pub label: RowLabels,
    /// `id` or `order`.
    pub paired_by: &'static str,
    /// What the reader of the answer should know about the pairing.
    pub notes: Vec<String>,
}

/// Names rows in messages (`id X`, or `line N of FILE`), computed only when a message needs one.
#[derive(Debug, Clone, Default)]
pub struct RowLabels {
    pub ids: Option<Vec<String>>,
    pub lines: Vec<u64>,
    pub file: String,
}

impl RowLabels {
    pub fn get(&self, i: usize) -> String {
        if let Some(id) = self.ids.as_ref().and_then(|ids| ids.get(i)) {
            return format!("id `{id}`");
        }
        match self.lines.get(i) {
            Some(line) => format!("line {line} of {}", self.file),
            None => format!("row {}", i + 1),
        }
    }
}

fn list(items: &[String], total: usize) -> String {
    let mut s = items.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if total > 5 {
        s.push_str(&format!(" (and {} more)", total - 5));
    }
    s
}

/// Joins the idea's rows with the control's: by the `id` column when both files have one, else by order.
/// Different row sets, different `y_true` on a paired row, or conflicting `fold`/`group` are errors naming
/// the rows.
pub fn pair(
    idea: &Predictions,
    control: &Predictions,
    idea_name: &str,
    control_name: &str,
) -> Result<Paired, InputError> {
    // index into the control for each idea row
    let (control_index, paired_by): (Vec<usize>, &'static str) = match (&idea.id, &control.id) {
        (Some(idea_ids), Some(control_ids)) if idea_ids == control_ids => {
            ((0..idea.len()).collect(), "id")
        }
        (Some(idea_ids), Some(control_ids)) => {
            let mut pos: HashMap<&str, usize> = HashMap::with_capacity(control_ids.len());
            let mut dup = Vec::new();
            for (i, id) in control_ids.iter().enumerate() {
                if pos.insert(id.as_str(), i).is_some() {
                    dup.push(format!("`{id}`"));
                }
            }
            let mut seen: HashMap<&str, usize> = HashMap::with_capacity(idea_ids.len());
            let mut dup_idea = Vec::new();
            for (i, id) in idea_ids.iter().enumerate() {
                if seen.insert(id.as_str(), i).is_some() {
                    dup_idea.push(format!("`{id}`"));
                }
            }
            if !dup.is_empty() || !dup_idea.is_empty() {
                let mut parts = Vec::new();
                if !dup_idea.is_empty() {
                    parts.push(format!(
                        "{idea_name} repeats id {}",
                        list(&dup_idea, dup_idea.len())
                    ));
                }
                if !dup.is_empty() {
                    parts.push(format!(
                        "{control_name} repeats id {}",
                        list(&dup, dup.len())
                    ));
                }
                return Err(InputError::new(format!(
                    "{}; each id must appear once",
                    parts.join("; ")
                )));
            }
            let only_idea: Vec<String> = idea_ids
                .iter()
                .filter(|id| !pos.contains_key(id.as_str()))
                .map(|id| format!("`{id}`"))
                .collect();
            let only_control: Vec<String> = control_ids
                .iter()
                .filter(|id| !seen.contains_key(id.as_str()))
                .map(|id| format!("`{id}`"))
                .collect();
            if !only_idea.is_empty() || !only_control.is_empty() {
                let mut parts = Vec::new();
                if !only_idea.is_empty() {
                    parts.push(format!(
                        "{} id(s) only in {idea_name}: {}",
                        only_idea.len(),
                        list(&only_idea, only_idea.len())
                    ));
                }
                if !only_control.is_empty() {
                    parts.push(format!(
                        "{} id(s) only in {control_name}: {}",
                        only_control.len(),
                        list(&only_control, only_control.len())
                    ));
                }
                return Err(InputError::new(format!(
                    "the two files hold different rows ({}); compare out-of-fold predictions of the same rows",
                    parts.join("; ")
                )));
            }
            (
                idea_ids
                    .iter()
                    .map(|id| pos.get(id.as_str()).copied().unwrap_or(0))
                    .collect(),
                "id",
            )
        }
        _ => {
            if idea.len() != control.len() {
                return Err(InputError::new(format!(
                    "{idea_name} has {} rows but {control_name} has {}: the rows must be the same (add an `id` \
                     column to both files to pair them by id)",
                    idea.len(),
                    control.len()
                )));
            }
            ((0..idea.len()).collect(), "order")
        }
    };
    let labels = RowLabels {
        ids: if paired_by == "id" {
            idea.id.clone()
        } else {
            None
        },
        lines: idea.line.clone(),
        file: idea_name.to_string(),
    };
    let label_of = |i: usize| labels.get(i);
    let mut p = Paired {
        paired_by,
        ..Paired::default()
    };
    let mut truth_mismatch = Vec::new();
    let mut truth_count = 0;
    for (i, &j) in control_index.iter().enumerate() {
        let (Some(&ti), Some(&tc)) = (idea.y_true.get(i), control.y_true.get(j)) else {
            continue;
        };
        if (ti - tc).abs() > 1e-9 * ti.abs().max(1.0) {
            truth_count += 1;
            truth_mismatch.push(format!(
                "{} (y_true {} vs {})",
                label_of(i),
                shortest(ti),
                shortest(tc)
            ));
        }
        p.y_true.push(ti);
        p.idea.push(idea.y_pred.get(i).copied().unwrap_or(f64::NAN));
        p.control
            .push(control.y_pred.get(j).copied().unwrap_or(f64::NAN));
    }
    if truth_count > 0 {
        return Err(InputError::new(format!(
            "{truth_count} paired row(s) have a different y_true in {idea_name} and {control_name}: {}; the \
             files must hold the same rows{}",
            list(&truth_mismatch, truth_count),
            if paired_by == "order" {
                " in the same order (or add an `id` column to both)"
            } else {
                ""
            }
        )));
    }
    p.label = labels;
    match (&idea.id, &control.id) {
        (Some(_), None) => p.notes.push(format!(
            "only {idea_name} has an `id` column: rows were paired by order (add `id` to {control_name} too)"
        )),
        (None, Some(_)) => p.notes.push(format!(
            "only {control_name} has an `id` column: rows were paired by order (add `id` to {idea_name} too)"
        )),
        _ => {}
    }
    p.fold = merge_column("fold", &idea.fold, &control.fold, &control_index, &p.label)?;
    p.group = merge_column(
        "group",
        &idea.group,
        &control.group,
        &control_index,
        &p.label,
    )?;
    Ok(p)
}

fn merge_column(
    name: &str,
    idea: &Option<Vec<String>>,
    control: &Option<Vec<String>>,
    control_index: &[usize],
    labels: &RowLabels,
) -> Result<Option<Vec<String>>, InputError> {
    match (idea, control) {
        (Some(a), Some(b)) => {
            let mut conflicts = Vec::new();
            for (i, &j) in control_index.iter().enumerate() {
                let (x, y) = (a.get(i), b.get(j));
                if x != y {
                    conflicts.push(format!(
                        "{} (`{}` vs `{}`)",
                        labels.get(i),
                        x.map(String::as_str).unwrap_or(""),
                        y.map(String::as_str).unwrap_or("")
                    ));
                }
            }
            if !conflicts.is_empty() {
                return Err(InputError::new(format!(
                    "the `{name}` column differs between the files on {} row(s): {}",
                    conflicts.len(),
                    list(&conflicts, conflicts.len())
                )));
            }
            Ok(Some(a.clone()))
        }
        (Some(a), None) => Ok(Some(a.clone())),
        (None, Some(b)) => Ok(Some(
            control_index
                .iter()
                .map(|&j| b.get(j).cloned().unwrap_or_default())
                .collect(),
        )),
        (None, None) => Ok(None),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Promote,
    Inconclusive,
    Discard,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Promote => "promote",
            Decision::Inconclusive => "inconclusive",
            Decision::Discard => "discard",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FoldDetail {
    pub fold: String,
    pub rows: usize,
    pub idea: f64,
    pub control: f64,
    /// Signed per-fold gain (positive = the idea is better).
    pub gain: f64,
    pub improved: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    pub schema: &'static str,
    pub metric: Metric,
    pub greater_is_better: bool,
    pub rows: usize,
    pub paired_by: &'static str,
    /// Groups resampled whole (`group` column), else null.
    pub groups: Option<usize>,
    pub idea_score: f64,
    pub control_score: f64,
    pub gain: f64,
    pub se: Option<f64>,
    pub z: Option<f64>,
    pub p_better: Option<f64>,
    /// 95 % percentile interval of the resampled gains: [low, high].
    pub ci95: Option<[f64; 2]>,
    /// Mean of the resampled gains (the "bootstrap gain" of the promote rule).
    pub bootstrap_gain: Option<f64>,
    pub resamples: usize,
    /// Resamples where the metric was defined for both models (AUC needs both classes).
    pub resamples_used: usize,
    pub seed: u64,
    pub folds: Vec<FoldDetail>,
    pub folds_improved: usize,
    pub fold_t: Option<f64>,
    /// Two-sided p-value of `fold_t` (Student t, k − 1 degrees of freedom).
    pub fold_t_p: Option<f64>,
    pub majority_improved: bool,
    pub baseline_fold_std: Option<f64>,
    pub leakage: bool,
    pub decision: Decision,
    pub reason: String,
    pub cautions: Vec<String>,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for CompareReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub metric: Metric,
    pub resamples: usize,
    pub seed: u64,
    /// The baseline's per-fold scores (`--folds FILE`), for the leakage check.
    pub baseline_fold_scores: Option<Vec<f64>>,
    /// Threads for the resamples (the answer does not depend on it; 1 where threads are unavailable).
    pub threads: usize,
}

fn metric_error(e: MetricError, metric: Metric, labels: &RowLabels, what: &str) -> InputError {
    let label = |i: usize| labels.get(i);
    InputError::new(match e {
        MetricError::NotBinary(i, v) => {
            format!(
                "{}: y_true is {}, but {} needs 0/1 labels (expected 0 or 1)",
                label(i),
                shortest(v),
                metric.as_str()
            )
        }
        MetricError::NotProbability(i, v) => {
            format!(
                "{}: the {what} predicts {}, but logloss needs probabilities (expected a value in [0, 1])",
                label(i),
                shortest(v)
            )
        }
        MetricError::OneClass(pos, neg) => format!(
            "auc needs both classes in y_true, but the rows hold {pos} positive(s) and {neg} negative(s): AUC is \
             undefined; expected both 0 and 1 in y_true (or compare with logloss or accuracy, or on more rows)"
        ),
        MetricError::Empty => "no rows to compare; expected y_true,y_pred rows".to_string(),
    })
}

/// Sample standard deviation (ddof 1); None with fewer than 2 values.
pub fn sd(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    Some((ss / (n - 1) as f64).sqrt())
}

/// numpy's default percentile (linear interpolation between closest ranks) of sorted values.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let pos = q / 100.0 * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    let a = *sorted.get(lo)?;
    let b = *sorted.get(hi.min(n - 1))?;
    Some(a + (b - a) * frac)
}

/// The random stream of resample `r`: each resample has its own, derived from the seed, so the answer is
/// the same whatever the number of threads.
fn resample_rng(seed: u64, r: usize) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Draws `n` indices in `0..n` into `counts` (zeroed first).
/// The same draws into one byte per row (4x less memory traffic than u32, so the random increments and
/// the control's gather stay in cache). Returns false when a count would pass 255 (only possible with
/// more than 255 rows and astronomically unlikely); the caller then redraws the resample into u32.
fn draw_counts_u8(rng: &mut Pcg64Mcg, counts: &mut [u8]) -> bool {
    counts.fill(0);
    let n = counts.len() as u32;
    let mut ok = true;
    for _ in 0..n {
        let i = rng.random_range(0..n) as usize;
        if let Some(c) = counts.get_mut(i) {
            match c.checked_add(1) {
                Some(v) => *c = v,
                None => ok = false,
            }
        }
    }
    ok
}

fn draw_counts(rng: &mut Pcg64Mcg, counts: &mut [u32]) {
    counts.fill(0);
    let n = counts.len() as u32;
    for _ in 0..n {
        let i = rng.random_range(0..n) as usize;
        if let Some(c) = counts.get_mut(i) {
            *c += 1;
        }
    }
}

/// The resampled gains of the paired bootstrap (in resample order), and how many resamples were
/// undefined. Resamples run on up to `threads` threads (1 where threads are unavailable, e.g. wasm);
/// the result does not depend on it.
pub fn bootstrap_gains(
    idea: &Prepared,
    control: &Prepared,
    group_of: Option<(&[u32], usize)>,
    n: usize,
    resamples: usize,
    seed: u64,
    threads: usize,
) -> (Vec<f64>, usize) {
    if n == 0 {
        return (Vec::new(), resamples);
    }
    let sign = idea.metric().sign();
    // AUC without groups: draw positions in the idea's sorted order (a bijection of the rows, so the
    // same distribution), which makes the idea's pass sequential; the control's pass gathers through
    // one precomputed permutation.
    let auc_positions = match (idea.sorted_order(), control.sorted_order(), group_of) {
        (Some(io), Some(co), None) => {
            let mut pos_of_row = vec![0u32; n];
            for (k, &row) in io.iter().enumerate() {
                if let Some(p) = pos_of_row.get_mut(row as usize) {
                    *p = k as u32;
                }
            }
            Some(
                co.iter()
                    .map(|&row| pos_of_row.get(row as usize).copied().unwrap_or(0))
                    .collect::<Vec<u32>>(),
            )
        }
        _ => None,
    };
    let one = |r: usize,
               counts: &mut Vec<u32>,
               group_counts: &mut Vec<u32>,
               small: &mut Vec<u8>|
     -> Option<f64> {
        let mut rng = resample_rng(seed, r);
        if let Some(ctrl_pos) = &auc_positions {
            small.resize(n, 0);
            if draw_counts_u8(&mut rng, small) {
                let a = idea.auc_with(|k| small.get(k).copied().unwrap_or(0) as u32)?;
                let b = control.auc_with(|k| {
                    ctrl_pos
                        .get(k)
                        .and_then(|&p| small.get(p as usize))
                        .copied()
                        .unwrap_or(0) as u32
                })?;
                return Some(sign * (a - b));
            }
            // a count passed 255: the same draws again, into u32
            let mut rng = resample_rng(seed, r);
            draw_counts(&mut rng, counts);
            let a = idea.auc_with(|k| counts.get(k).copied().unwrap_or(0))?;
            let b = control.auc_with(|k| {
                ctrl_pos
                    .get(k)
                    .and_then(|&p| counts.get(p as usize))
                    .copied()
                    .unwrap_or(0)
            })?;
            return Some(sign * (a - b));
        }
        match group_of {
            Some((groups, n_groups)) if n_groups > 0 => {
                draw_counts(&mut rng, group_counts);
                for (c, g) in counts.iter_mut().zip(groups) {
                    *c = group_counts.get(*g as usize).copied().unwrap_or(0);
                }
            }
            _ => draw_counts(&mut rng, counts),
        }
        resample_gain(idea, control, counts)
    };
    let n_groups = group_of.map_or(0, |(_, g)| g);
    let run_range = |lo: usize, hi: usize| -> Vec<Option<f64>> {
        let mut counts = vec![0u32; n];
        let mut group_counts = vec![0u32; n_groups];
        let mut small = Vec::new();
        (lo..hi)
            .map(|r| one(r, &mut counts, &mut group_counts, &mut small))
            .collect()
    };
    let threads = threads.clamp(1, resamples.max(1));
    let chunk = resamples.div_ceil(threads);
    // wasm32 has no threads: the constant-false branch keeps std's thread code out of the web page.
    let results: Vec<Option<f64>> = if threads > 1 && cfg!(not(target_arch = "wasm32")) {
        let parts: Option<Vec<Vec<Option<f64>>>> = std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for t in 0..threads {
                let (lo, hi) = (t * chunk, ((t + 1) * chunk).min(resamples));
                let run = &run_range;
                match std::thread::Builder::new().spawn_scoped(scope, move || run(lo, hi)) {
                    Ok(h) => handles.push(h),
                    Err(_) => return None,
                }
            }
            handles.into_iter().map(|h| h.join().ok()).collect()
        });
        match parts {
            Some(parts) => parts.into_iter().flatten().collect(),
            None => run_range(0, resamples),
        }
    } else {
        run_range(0, resamples)
    };
    let undefined = results.iter().filter(|g| g.is_none()).count();
    (results.into_iter().flatten().collect(), undefined)
}

/// The signed gain of one resample given as counts per row (how often each row was drawn); None when the
/// metric is undefined on it.
pub fn resample_gain(idea: &Prepared, control: &Prepared, counts: &[u32]) -> Option<f64> {
    let sign = idea.metric().sign();
    Some(sign * (idea.eval(Some(counts))? - control.eval(Some(counts))?))
}

/// What the resampled gains say about a point gain.
#[derive(Debug, Clone, PartialEq)]
pub struct GainSummary {
    pub se: Option<f64>,
    pub z: Option<f64>,
    pub p_better: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub bootstrap_gain: Option<f64>,
}

/// se (ddof 1), z = gain / se (undefined when se is 0), P(better) = share > 0, 2.5/97.5 percentiles, mean.
pub fn summarise(gain: f64, gains: &[f64]) -> GainSummary {
    let se = sd(gains);
    let mut sorted = gains.to_vec();
    crate::text::sort::sort_by(&mut sorted, f64::total_cmp);
    GainSummary {
        se,
        z: se.filter(|s| *s > 0.0).map(|s| gain / s),
        p_better: (!gains.is_empty())
            .then(|| gains.iter().filter(|g| **g > 0.0).count() as f64 / gains.len() as f64),
        ci95: percentile_sorted(&sorted, 2.5)
            .zip(percentile_sorted(&sorted, 97.5))
            .map(|(a, b)| [a, b]),
        bootstrap_gain: (!gains.is_empty()).then(|| gains.iter().sum::<f64>() / gains.len() as f64),
    }
}

/// Sorts fold names numerically when they are all numbers, else as text.
fn sorted_folds(folds: &[String]) -> Vec<String> {
    let mut names: Vec<String> = folds.to_vec();
    crate::text::sort::sort(&mut names);
    names.dedup();
    if names.iter().all(|f| parse_f64(f).is_some()) {
        crate::text::sort::sort_by(&mut names, |a, b| {
            let (x, y) = (parse_f64(a).unwrap_or(0.0), parse_f64(b).unwrap_or(0.0));
            x.total_cmp(&y)
        });
    }
    names
}

fn fmt(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let a = v.abs();
    if !(1e-4..1e6).contains(&a) {
        sci(v, 3)
    } else {
        fixed(v, 6)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Runs the comparison. Errors are unusable input (CLI exit 2).
pub fn compare(
    paired: &Paired,
    opts: &CompareOptions,
    thresholds: &Thresholds,
) -> Result<CompareReport, InputError> {
    let metric = opts.metric;
    let sign = metric.sign();
    let n = paired.y_true.len();
    if n == 0 {
        return Err(InputError::new(
            "no rows to compare; expected y_true,y_pred rows",
        ));
    }
    let idea = Prepared::new(metric, &paired.y_true, &paired.idea)
        .map_err(|e| metric_error(e, metric, &paired.label, "idea"))?;
    let control = Prepared::new(metric, &paired.y_true, &paired.control)
        .map_err(|e| metric_error(e, metric, &paired.label, "control"))?;
    let idea_score = idea.full().unwrap_or(f64::NAN);
    let control_score = control.full().unwrap_or(f64::NAN);
    let gain = sign * (idea_score - control_score);

    // groups -> dense indices
    let mut cautions = Vec::new();
    let group_index: Option<(Vec<u32>, usize)> = paired.group.as_ref().map(|groups| {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let of: Vec<u32> = groups
            .iter()
            .map(|g| {
                let next = ids.len() as u32;
                *ids.entry(g.as_str()).or_insert(next)
            })
            .collect();
        (of, ids.len())
    });
    let (gains, undefined) = bootstrap_gains(
        &idea,
        &control,
        group_index.as_ref().map(|(of, k)| (of.as_slice(), *k)),
        n,
        opts.resamples,
        opts.seed,
        opts.threads,
    );
    let GainSummary {
        mut se,
        mut z,
        p_better,
        ci95,
        bootstrap_gain,
    } = summarise(gain, &gains);
    // Identical resamples (one row, one group) differ only by rounding: that is no variance at all.
    let scale = idea_score.abs().max(control_score.abs()).max(1.0);
    if se.is_some_and(|s| s <= 1e-12 * scale) {
        se = Some(0.0);
        z = None;
    }
    cautions.extend(paired.notes.iter().cloned());
    if undefined > 0 {
        cautions.push(format!(
            "{undefined} of {} resamples held one class only and were left out (AUC undefined there)",
            opts.resamples
        ));
    }

    // per-fold paired differences
    let mut folds = Vec::new();
    if let Some(fold_col) = &paired.fold {
        for name in sorted_folds(fold_col) {
            let idx: Vec<usize> = fold_col
                .iter()
                .enumerate()
                .filter(|(_, f)| **f == name)
                .map(|(i, _)| i)
                .collect();
            let pick =
                |v: &[f64]| -> Vec<f64> { idx.iter().filter_map(|&i| v.get(i).copied()).collect() };
            let y = pick(&paired.y_true);
            let scores = super::metrics::score(metric, &y, &pick(&paired.idea)).and_then(|a| {
                super::metrics::score(metric, &y, &pick(&paired.control)).map(|b| (a, b))
            });
            match scores {
                Ok((a, b)) => {
                    let d = sign * (a - b);
                    folds.push(FoldDetail {
                        fold: name,
                        rows: idx.len(),
                        idea: a,
                        control: b,
                        gain: d,
                        improved: d > 0.0,
                    });
                }
                Err(e) => cautions.push(format!(
                    "fold {name} left out of the per-fold test: {}",
                    metric_error(e, metric, &paired.label, "model")
                )),
            }
        }
    }
    let k = folds.len();
    let folds_improved = folds.iter().filter(|f| f.improved).count();
    let (fold_t, fold_t_p) = if k >= 2 {
        let d: Vec<f64> = folds.iter().map(|f| f.gain).collect();
        let mean = d.iter().sum::<f64>() / k as f64;
        match sd(&d) {
            Some(s) if s > 0.0 => {
                let t = mean / (s / (k as f64).sqrt());
                let p = StudentsT::new(0.0, 1.0, (k - 1) as f64)
                    .ok()
                    .map(|dist| 2.0 * (1.0 - dist.cdf(t.abs())));
                (Some(t), p)
            }
            _ => {
                cautions.push(
                    "every fold gained exactly the same: the per-fold t is undefined".to_string(),
                );
                (None, None)
            }
        }
    } else {
        (None, None)
    };
    let majority_improved = if k >= 2 {
        2 * folds_improved > k
    } else {
        gain > 0.0
    };

    // decision
    let bar = thresholds.get(T_PROMOTE_Z);
    let z_clears = z.is_some_and(|z| z >= bar);
    let t_clears = k > 1 && fold_t.is_some_and(|t| t >= bar);
    let boot_ok = bootstrap_gain.is_some_and(|g| g >= 0.0);
    let z_text = z.map(fmt).unwrap_or_else(|| "undefined".to_string());
    let (decision, reason) = if gain <= 0.0 {
        (
            Decision::Discard,
            format!(
                "the idea does not beat its control: gain {} ({} {} vs {})",
                fmt(gain),
                metric.as_str(),
                fmt(idea_score),
                fmt(control_score)
            ),
        )
    } else if (z_clears || t_clears) && majority_improved && boot_ok {
        let by = if z_clears {
            format!("z = {z_text} ≥ {}", fmt(bar))
        } else {
            format!(
                "fold t = {} ≥ {} over {k} folds",
                fold_t.map(fmt).unwrap_or_default(),
                fmt(bar)
            )
        };
        (
            Decision::Promote,
            format!(
                "gain {} with {by}: run the full cross-validation",
                fmt(gain)
            ),
        )
    } else {
        let mut why = Vec::new();
        if !z_clears && !t_clears {
            why.push(format!("z = {z_text} < {}", fmt(bar)));
        }
        if !majority_improved {
            why.push(format!("only {folds_improved} of {k} folds improved"));
        }
        if !boot_ok {
            why.push(format!(
                "the mean bootstrap gain is {}",
                bootstrap_gain
                    .map(fmt)
                    .unwrap_or_else(|| "undefined".into())
            ));
        }
        (
            Decision::Inconclusive,
            format!(
                "gain {} but {}: run a second fold or seed first",
                fmt(gain),
                why.join(", ")
            ),
        )
    };

    // findings
    let mut rules = vec![T_PROMOTE_Z.to_string(), T_RESAMPLES.to_string()];
    let evidence = format!(
        "{}: idea {} vs control {}, gain {}, se {}, z {}, P(better) {}, 95% interval [{}], {} rows{}, {} resamples (seed {}){}",
        metric.as_str(),
        fmt(idea_score),
        fmt(control_score),
        fmt(gain),
        se.map(fmt).unwrap_or_else(|| "undefined".into()),
        z_text,
        p_better.map(fmt).unwrap_or_else(|| "undefined".into()),
        ci95.map(|[a, b]| format!("{}, {}", fmt(a), fmt(b)))
            .unwrap_or_else(|| "undefined".into()),
        n,
        group_index
            .as_ref()
            .map(|(_, g)| format!(" in {g} groups"))
            .unwrap_or_default(),
        gains.len(),
        opts.seed,
        if k >= 2 {
            format!(
                "; {folds_improved} of {k} folds improved, fold t {}",
                fold_t.map(fmt).unwrap_or_else(|| "undefined".into())
            )
        } else {
            String::new()
        }
    );
    let code = match decision {
        Decision::Promote => rule::KS001,
        Decision::Inconclusive => rule::KS002,
        Decision::Discard => rule::KS003,
    };
    let mut findings = vec![Finding::from_rule(
        code,
        format!("{evidence}; threshold z ≥ {}", fmt(bar)),
    )];
    rules.push(code.to_string());

    let just = thresholds.get(T_JUST_CLEARS_Z);
    if decision == Decision::Promote && k < 2 && z.is_some_and(|z| z < just) {
        findings.push(Finding::from_rule(
            rule::KS004,
            format!(
                "z = {z_text} clears {} but is below {} on one fold/seed",
                fmt(bar),
                fmt(just)
            ),
        ));
        cautions.push(format!(
            "z only just clears {} on one seed: the bootstrap does not see seed noise; confirm on a second seed or fold",
            fmt(bar)
        ));
        rules.push(rule::KS004.into());
        rules.push(T_JUST_CLEARS_Z.into());
    }

    let baseline_fold_std = opts.baseline_fold_scores.as_deref().and_then(sd);
    let mut leakage = false;
    if let Some(scores) = &opts.baseline_fold_scores {
        rules.push(T_LEAKAGE.into());
        match baseline_fold_std {
            Some(std) => {
                let factor = thresholds.get(T_LEAKAGE);
                if gain > factor * std {
                    leakage = true;
                    findings.push(Finding::from_rule(
                        rule::KS005,
                        format!(
                            "gain {} > {} x the baseline's fold std {} = {}",
                            fmt(gain),
                            fmt(factor),
                            fmt(std),
                            fmt(factor * std)
                        ),
                    ));
                    rules.push(rule::KS005.into());
                } else if gain > 0.0 && gain < std && (z_clears || t_clears) {
                    findings.push(Finding::from_rule(
                        rule::KS006,
                        format!(
                            "gain {} is below the baseline's fold std {} yet the paired test gives z = {z_text}",
                            fmt(gain),
                            fmt(std)
                        ),
                    ));
                    rules.push(rule::KS006.into());
                }
            }
            None => cautions.push(format!(
                "the baseline fold scores hold {} value(s): the leakage check needs at least 2",
                scores.len()
            )),
        }
    }
    if se.is_none_or(|s| s == 0.0) && gain > 0.0 {
        findings.push(Finding::from_rule(
            rule::KS007,
            format!(
                "{n} row(s){}: every resample gave the same gain, so the bootstrap cannot measure noise (se {})",
                group_index.as_ref().map(|(_, g)| format!(" in {g} group(s)")).unwrap_or_default(),
                se.map(fmt).unwrap_or_else(|| "undefined".into())
            ),
        ));
        rules.push(rule::KS007.into());
    }
    Ok(CompareReport {
        schema: COMPARE_SCHEMA,
        metric,
        greater_is_better: metric.greater_is_better(),
        rows: n,
        paired_by: paired.paired_by,
        groups: group_index.as_ref().map(|(_, g)| *g),
        idea_score,
        control_score,
        gain,
        se,
        z,
        p_better,
        ci95,
        bootstrap_gain,
        resamples: opts.resamples,
        resamples_used: gains.len(),
        seed: opts.seed,
        folds,
        folds_improved,
        fold_t,
        fold_t_p,
        majority_improved,
        baseline_fold_std,
        leakage,
        decision,
        reason,
        cautions,
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AUC fast path (draws in the idea's sorted order, one byte per row) equals the generic
    /// row-count path for the same draws mapped back to rows.
    #[test]
    fn auc_fast_path_equals_row_counts() {
        let y: Vec<f64> = (0..200).map(|i| f64::from(u8::from(i % 3 == 0))).collect();
        let a: Vec<f64> = (0..200).map(|i| ((i * 37) % 101) as f64 / 100.0).collect();
        let c: Vec<f64> = (0..200).map(|i| ((i * 53) % 17) as f64 / 16.0).collect();
        let idea = Prepared::new(Metric::Auc, &y, &a).unwrap();
        let control = Prepared::new(Metric::Auc, &y, &c).unwrap();
        let (gains, undefined) = bootstrap_gains(&idea, &control, None, 200, 25, 9, 3);
        assert_eq!((gains.len(), undefined), (25, 0));
        let order = idea.sorted_order().unwrap();
        for (r, g) in gains.iter().enumerate() {
            let mut small = vec![0u8; 200];
            assert!(draw_counts_u8(&mut resample_rng(9, r), &mut small));
            let mut rows = vec![0u32; 200];
            for (k, &row) in order.iter().enumerate() {
                rows[row as usize] = u32::from(small[k]);
            }
            let want = resample_gain(&idea, &control, &rows).unwrap();
            assert!((g - want).abs() < 1e-12, "resample {r}: {g} vs {want}");
        }
        // one thread or several: the same gains
        assert_eq!(
            bootstrap_gains(&idea, &control, None, 200, 25, 9, 1).0,
            gains
        );
    }

    #[test]
    fn percentile_and_sd_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], 2.5) = 1.075; numpy.std([1, 2, 3, 4], ddof=1) = 1.2909944487358056
        assert!((percentile_sorted(&[1.0, 2.0, 3.0, 4.0], 2.5).unwrap() - 1.075).abs() < 1e-12);
        assert!((sd(&[1.0, 2.0, 3.0, 4.0]).unwrap() - 1.2909944487358056).abs() < 1e-12);
        assert_eq!(sd(&[1.0]), None);
        assert_eq!(percentile_sorted(&[], 50.0), None);
    }
}

//! `kgadvise compare`: a paired comparison of an idea's out-of-fold predictions against its control on the
//! same rows (rules.md §12, KG §3.3).
//!
//! * Paired bootstrap ([`bootstrap`]): each resample draws rows (or whole groups) with replacement, and
//!   the SAME draw weighs both models, so row difficulty cancels out.
//! * gain = sign · (metric(idea) − metric(control)), positive = better; se = sd of the resampled gains
//!   (ddof 1); z = gain / se; P(better) = share of resampled gains > 0; ci95 = 2.5/97.5 percentiles of the
//!   resampled gains (linear interpolation, as numpy's default).
//! * Per-fold paired t when a `fold` column gives ≥ 2 folds: d_k = per-fold gain, t = mean(d)/(sd(d)/√k).
//!   With no fold-to-fold variance (every fold gained the same, to rounding) t is +∞ (−∞ when the folds
//!   lost, 0 when they tied), as kgkit's `compare_folds` has it: an exact tie decides as a near tie does.
//!   JSON has no infinity: the report gives `fold_t: null` and `fold_t_infinite: "+infinity"`.
//!
//! The decision (spec rules.md §12, kgkit `compare.verdict`), with k = the folds scored:
//!
//! | decision gain G (k ≥ 2: the mean per-fold gain; else the pooled gain) | evidence | decision |
//! |---|---|---|
//! | G ≤ 0 | — | discard |
//! | G > 0 | (z ≥ 2 or, k ≥ 2, fold t ≥ 2) and (k ≥ 2: a majority of folds improved) and mean bootstrap gain ≥ 0 | promote |
//! | G > 0 | anything less | inconclusive |
//!
//! With folds, every fold improving is a positive G even when the pooled gain is not (AUC over all rows
//! is not the mean of the folds' AUCs); the pooled evidence then weighs through the bootstrap gain, which
//! keeps such an idea inconclusive instead of discarding it. The leakage check (KS005) and KS006 judge G
//! too.
//!
//! [`compare`] is the entry point: a [`CompareRequest`] in, a [`CompareReport`] out. The rules are one
//! function each over the measured comparison (`CompareRun`).

// kgkit's artifacts (.npy): the page is built without them (core's `npy` feature), for its size budget
#[cfg(feature = "npy")]
mod artifacts;
mod bootstrap;
mod pair;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

pub use crate::stats::npy::Artifacts;
#[cfg(feature = "npy")]
pub use artifacts::is_fold_array;
pub use bootstrap::{
    GainSummary, bootstrap_gains, percentile_sorted, resample_gain, sd, summarise,
};
use pair::{Paired, RowLabels, pair};

use super::metrics::{Metric, MetricError, Prepared};
use super::table::{read_predictions, read_scores};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::decimal::parse_f64;
use crate::text::number::{fixed, sci, shortest};

pub const COMPARE_SCHEMA: &str = "kgadvise.compare/1";

/// The seed of the bootstrap when the request gives none (a fixed seed keeps answers reproducible).
pub const DEFAULT_SEED: u64 = 42;

/// `kgadvise compare`: is an idea's gain over its control real, or noise? The out-of-fold predictions of
/// both on the same rows, compared by a paired bootstrap. The predictions are CSV text (`idea`,
/// `control`) or kgkit's artifacts folders (`ideaArtifacts`, `controlArtifacts` with `truth` and
/// `truthColumn`), not both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CompareRequest {
    /// The idea's out-of-fold predictions: CSV text whose header holds `y_true` and `y_pred`; optional
    /// columns `id` (rows are paired by id when both files have it, else by order), `fold` (a per-fold
    /// paired t over 2+ folds) and `group` (the bootstrap resamples whole groups).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub idea: String,
    /// The control's predictions on the same rows, CSV text of the same form.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub control: String,
    /// Instead of `idea`: kgkit's artifacts folder of the idea (`artifacts/<name>/`), its files by name;
    /// in JSON each file's bytes are a base64 string. `fold<k>_oof.npy` (predictions) with
    /// `fold<k>_idx.npy` (their rows in the truth table) are read, other files passed over.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub idea_artifacts: Option<Artifacts>,
    /// Instead of `control`: the control's artifacts folder, of the same form.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub control_artifacts: Option<Artifacts>,
    /// With artifacts: the training table's CSV text, whose rows `fold<k>_idx.npy` point at (0 = its
    /// first data row).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub truth: Option<String>,
    /// With artifacts: the truth table's column of labels (text labels are encoded as sorted classes, as
    /// kgkit does).
    #[cfg_attr(feature = "cli", arg(long, value_name = "COLUMN"))]
    pub truth_column: Option<String>,
    /// With artifacts: the truth table's column of groups (patients, sessions): the bootstrap resamples
    /// whole groups.
    #[cfg_attr(feature = "cli", arg(long, value_name = "COLUMN"))]
    pub groups: Option<String>,
    /// Compare one fold only: the artifacts' fold<K> files, or the CSV rows whose fold column is K.
    #[cfg_attr(feature = "cli", arg(long, value_name = "K"))]
    pub fold: Option<u32>,
    /// The metric: rmse, mae, logloss, auc or accuracy (the gain is signed so that positive is better).
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "M"))]
    pub metric: String,
    /// The baseline's per-fold CV scores, for the leakage check: CSV text with a `score` column, or one
    /// number a line.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub folds: Option<String>,
    /// Bootstrap resamples, at least 2 (default: threshold.stats.resamples).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub resamples: Option<usize>,
    /// Seed of the bootstrap's random draws (default 42): the same request gives the same answer.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub seed: Option<u64>,
    /// Threads for the resamples (default: 1; on the command line, the CPU cores); the answer does not
    /// depend on it.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub threads: Option<usize>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The mean per-fold gain over 2+ scored folds (kgkit's gain), else null.
    pub fold_gain: Option<f64>,
    /// The gain the decision is taken on: `fold_gain` with 2+ folds, else `gain` (the pooled gain).
    pub decision_gain: f64,
    /// `fold mean` or `pooled`: which gain `decision_gain` is.
    pub decision_gain_of: &'static str,
    /// The per-fold paired t over 2+ folds; null when undefined or infinite (see `fold_t_infinite`).
    pub fold_t: Option<f64>,
    /// `+infinity` or `-infinity` when every fold gained the same nonzero amount (no fold-to-fold
    /// variance: t = mean / 0), else null.
    pub fold_t_infinite: Option<&'static str>,
    /// Two-sided p-value of the fold t (Student t, k − 1 degrees of freedom; 0 for an infinite t).
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

    fn text(&self) -> String {
        crate::stats::text::compare(self)
    }
}

/// The validated request: the metric, the bootstrap's settings, the paired rows and the baseline's fold
/// scores.
struct Inputs {
    metric: Metric,
    resamples: usize,
    seed: u64,
    threads: usize,
    paired: Paired,
    baseline_fold_scores: Option<Vec<f64>>,
}

impl Inputs {
    fn of(request: &CompareRequest, thresholds: &Thresholds) -> Result<Inputs, RequestError> {
        let metric = metric_of(&request.metric)?;
        let resamples = match request.resamples {
            Some(n) => n,
            None => thresholds.get(threshold::STATS_RESAMPLES).max(0.0) as usize,
        };
        if resamples < 2 {
            return Err(RequestError::value(
                "resamples",
                resamples.to_string(),
                "expected at least 2 resamples (to estimate an se)",
            ));
        }
        let baseline_fold_scores = match &request.folds {
            Some(text) => Some(read_scores(text, "folds")?),
            None => None,
        };
        Ok(Inputs {
            metric,
            resamples,
            seed: request.seed.unwrap_or(DEFAULT_SEED),
            threads: request.threads.unwrap_or(1).max(1),
            paired: paired_of(request)?,
            baseline_fold_scores,
        })
    }
}

/// The paired rows of the request: from the CSV predictions or from kgkit's artifacts (one form for
/// both models), narrowed to `fold` when given.
fn paired_of(request: &CompareRequest) -> Result<Paired, RequestError> {
    let (idea_artifacts, control_artifacts) = (&request.idea_artifacts, &request.control_artifacts);
    let Some(idea_files) = idea_artifacts.as_ref().or(control_artifacts.as_ref()) else {
        for (given, field) in [
            (request.truth.is_some(), "truth"),
            (request.truth_column.is_some(), "truthColumn"),
            (request.groups.is_some(), "groups"),
        ] {
            if given {
                return Err(RequestError::new(
                    field,
                    "is for kgkit's artifacts (ideaArtifacts, controlArtifacts); CSV predictions carry \
                     their own y_true (and group) columns",
                ));
            }
        }
        let idea = read_predictions(&request.idea, "idea")?;
        let control = read_predictions(&request.control, "control")?;
        let paired = pair(idea, &control)?;
        return match request.fold {
            Some(k) => paired.keep_fold(k),
            None => Ok(paired),
        };
    };
    paired_of_artifacts(request, idea_files)
}

/// The paired rows of kgkit's artifacts folders (`ideaArtifacts`, `controlArtifacts`, one of them
/// `idea_files`) with the truth table.
#[cfg(feature = "npy")]
fn paired_of_artifacts(
    request: &CompareRequest,
    idea_files: &Artifacts,
) -> Result<Paired, RequestError> {
    let (idea_artifacts, control_artifacts) = (&request.idea_artifacts, &request.control_artifacts);
    if idea_artifacts.is_none() || control_artifacts.is_none() {
        let (folder, csv) = if idea_artifacts.is_some() {
            ("idea", "control")
        } else {
            ("control", "idea")
        };
        return Err(RequestError::new(
            "",
            format!(
                "the {folder} is kgkit's artifacts but the {csv} CSV predictions; expected both models in \
                 one form (both artifacts folders, or both CSV files)"
            ),
        ));
    }
    for (csv, field) in [(&request.idea, "idea"), (&request.control, "control")] {
        if !csv.trim().is_empty() {
            return Err(RequestError::new(
                field,
                format!(
                    "given with {field}Artifacts; expected the {field}'s predictions once: CSV text or \
                     kgkit artifacts"
                ),
            ));
        }
    }
    let (Some(truth), Some(column)) = (&request.truth, &request.truth_column) else {
        return Err(RequestError::new(
            if request.truth.is_none() {
                "truth"
            } else {
                "truthColumn"
            },
            "missing: kgkit's artifacts hold no truth; expected the training table (CSV text) and its \
             truth column (--truth data/train.csv:target)",
        ));
    };
    let truth = super::table::read_truth(truth, column, request.groups.as_deref())?;
    artifacts::pair_artifacts(
        idea_files,
        control_artifacts.as_ref().unwrap_or(idea_files),
        &truth,
        request.fold,
    )
}

/// Without the `npy` feature (the page's build) kgkit's artifacts are not read.
#[cfg(not(feature = "npy"))]
fn paired_of_artifacts(_: &CompareRequest, _: &Artifacts) -> Result<Paired, RequestError> {
    Err(RequestError::new(
        "ideaArtifacts",
        crate::stats::npy::NOT_IN_THIS_BUILD,
    ))
}

fn metric_of(name: &str) -> Result<Metric, RequestError> {
    let valid = Metric::ALL.map(Metric::as_str).join(", ");
    if name.trim().is_empty() {
        return Err(RequestError::new(
            "metric",
            format!("expected a metric, one of: {valid}"),
        ));
    }
    // `unknown metric `f1`; valid values: ...`, as every unknown identifier is said.
    Metric::parse(name).map_err(|e| RequestError::new("metric", e.to_string()))
}

fn metric_error(e: MetricError, metric: Metric, labels: &RowLabels, what: &str) -> RequestError {
    let label = |i: usize| labels.get(i);
    RequestError::new(
        "",
        match e {
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
                "auc needs both classes in y_true, but the rows hold {pos} positive(s) and {neg} negative(s): AUC \
                 is undefined; expected both 0 and 1 in y_true (or compare with logloss or accuracy, or on more \
                 rows)"
            ),
            MetricError::Empty => "no rows to compare; expected y_true,y_pred rows".to_string(),
        },
    )
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

fn fmt_or_undefined(v: Option<f64>) -> String {
    v.map(fmt).unwrap_or_else(|| "undefined".to_string())
}

/// Each row's group as a dense index, and the number of groups.
fn group_index(groups: &[String]) -> (Vec<u32>, usize) {
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let of: Vec<u32> = groups
        .iter()
        .map(|g| {
            let next = ids.len() as u32;
            *ids.entry(g.as_str()).or_insert(next)
        })
        .collect();
    (of, ids.len())
}

/// The per-fold scores and gains (fold names in order), and a caution for each fold the metric cannot
/// score.
fn per_fold(paired: &Paired, metric: Metric) -> (Vec<FoldDetail>, Vec<String>) {
    let (mut folds, mut cautions) = (Vec::new(), Vec::new());
    let Some(fold_col) = &paired.fold else {
        return (folds, cautions);
    };
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
                let d = metric.sign() * (a - b);
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
                metric_error(e, metric, &paired.label, "model").message
            )),
        }
    }
    (folds, cautions)
}

/// The per-fold paired t over k ≥ 2 folds: t = mean(d)/(sd(d)/√k), ±∞ without fold-to-fold variance.
#[derive(Debug, Clone, Copy)]
struct FoldTest {
    /// Finite, or ±∞ (every fold gained the same nonzero amount), or 0 (every fold gained nothing).
    t: f64,
    /// Two-sided p-value (Student t, k − 1 degrees of freedom).
    p: Option<f64>,
    /// Every fold gained the same (to rounding): sd(d) is 0.
    zero_variance: bool,
}

impl FoldTest {
    fn of(folds: &[FoldDetail]) -> Option<FoldTest> {
        let k = folds.len();
        if k < 2 {
            return None;
        }
        let d: Vec<f64> = folds.iter().map(|f| f.gain).collect();
        let mean = d.iter().sum::<f64>() / k as f64;
        let s = sd(&d).unwrap_or(0.0);
        // Gains equal in exact arithmetic differ in their last bits once computed: that is no variance.
        let scale = d.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if s <= 1e-12 * scale {
            // kgkit compare_folds: t = copysign(inf, gain) if gain else 0
            let (t, p) = if mean == 0.0 || scale == 0.0 {
                (0.0, 1.0)
            } else {
                (f64::INFINITY.copysign(mean), 0.0)
            };
            return Some(FoldTest {
                t,
                p: Some(p),
                zero_variance: true,
            });
        }
        let t = mean / (s / (k as f64).sqrt());
        let p = StudentsT::new(0.0, 1.0, (k - 1) as f64)
            .ok()
            .map(|dist| 2.0 * (1.0 - dist.cdf(t.abs())));
        Some(FoldTest {
            t,
            p,
            zero_variance: false,
        })
    }

    /// The t as JSON can carry it: finite, else null.
    fn finite(&self) -> Option<f64> {
        self.t.is_finite().then_some(self.t)
    }

    /// `+infinity` / `-infinity` for an infinite t.
    fn infinite(&self) -> Option<&'static str> {
        match self.t {
            t if t == f64::INFINITY => Some("+infinity"),
            t if t == f64::NEG_INFINITY => Some("-infinity"),
            _ => None,
        }
    }

    fn text(&self) -> String {
        self.infinite()
            .map(str::to_string)
            .unwrap_or_else(|| fmt(self.t))
    }

    /// Why the t is what it is when every fold gained the same.
    fn caution(&self, folds: &[FoldDetail]) -> Option<String> {
        let gain = folds.first().map(|f| f.gain)?;
        self.zero_variance.then(|| {
            format!(
                "every fold gained the same ({}): no fold-to-fold variance, so the per-fold t is {}; it rests on \
                 {} folds alone (confirm on another seed)",
                fmt(gain),
                self.text(),
                folds.len()
            )
        })
    }
}

/// The measured comparison: what every compare rule reads.
struct CompareRun {
    metric: Metric,
    rows: usize,
    paired_by: &'static str,
    groups: Option<usize>,
    idea_score: f64,
    control_score: f64,
    /// The pooled gain: the metric on all paired rows, idea minus control, signed.
    gain: f64,
    summary: GainSummary,
    resamples: usize,
    resamples_used: usize,
    seed: u64,
    folds: Vec<FoldDetail>,
    folds_improved: usize,
    fold_test: Option<FoldTest>,
    /// The gain the decision is taken on: the mean per-fold gain over 2+ folds, else the pooled gain.
    decision_gain: f64,
    majority_improved: bool,
    baseline_fold_scores: Option<Vec<f64>>,
    baseline_fold_std: Option<f64>,
    /// The promote bar (z, or the per-fold t).
    bar: f64,
    z_clears: bool,
    t_clears: bool,
    leakage: bool,
    /// What the pairing, the resampling and the folds say about the answer.
    cautions: Vec<String>,
    /// kgkit's artifacts: the folds of one folder only, left out.
    folds_left_out: Option<String>,
    /// kgkit's artifacts: the control is a full run of the idea's folds and more (KS009).
    full_run_control: Option<String>,
}

/// The pooled bootstrap: the point gain and what the resampled gains say about it.
struct Pooled {
    idea_score: f64,
    control_score: f64,
    gain: f64,
    groups: Option<usize>,
    summary: GainSummary,
    resamples_used: usize,
    /// Resamples where the metric was undefined.
    undefined: usize,
}

impl Pooled {
    fn of(inputs: &Inputs) -> Result<Pooled, RequestError> {
        let (metric, paired) = (inputs.metric, &inputs.paired);
        let n = paired.y_true.len();
        let idea = Prepared::new(metric, &paired.y_true, &paired.idea)
            .map_err(|e| metric_error(e, metric, &paired.label, "idea"))?;
        let control = Prepared::new(metric, &paired.y_true, &paired.control)
            .map_err(|e| metric_error(e, metric, &paired.label, "control"))?;
        let idea_score = idea.full().unwrap_or(f64::NAN);
        let control_score = control.full().unwrap_or(f64::NAN);
        let gain = metric.sign() * (idea_score - control_score);
        let groups = paired.group.as_deref().map(group_index);
        let (gains, undefined) = bootstrap_gains(
            &idea,
            &control,
            groups.as_ref().map(|(of, k)| (of.as_slice(), *k)),
            n,
            inputs.resamples,
            inputs.seed,
            inputs.threads,
        );
        let mut summary = summarise(gain, &gains);
        // Identical resamples (one row, one group) differ only by rounding: that is no variance at all.
        let scale = idea_score.abs().max(control_score.abs()).max(1.0);
        if summary.se.is_some_and(|s| s <= 1e-12 * scale) {
            summary.se = Some(0.0);
            summary.z = None;
        }
        Ok(Pooled {
            idea_score,
            control_score,
            gain,
            groups: groups.map(|(_, g)| g),
            summary,
            resamples_used: gains.len(),
            undefined,
        })
    }
}

impl CompareRun {
    fn of(inputs: Inputs, thresholds: &Thresholds) -> Result<CompareRun, RequestError> {
        let n = inputs.paired.y_true.len();
        if n == 0 {
            return Err(RequestError::new(
                "",
                "no rows to compare; expected y_true,y_pred rows",
            ));
        }
        let pooled = Pooled::of(&inputs)?;
        let Inputs {
            metric,
            resamples,
            seed,
            paired,
            baseline_fold_scores,
            ..
        } = inputs;
        let mut cautions = paired.notes.clone();
        if pooled.undefined > 0 {
            cautions.push(format!(
                "{} of {resamples} resamples held one class only and were left out (AUC undefined there)",
                pooled.undefined
            ));
        }
        let (folds, fold_cautions) = per_fold(&paired, metric);
        cautions.extend(fold_cautions);
        let fold_test = FoldTest::of(&folds);
        cautions.extend(fold_test.and_then(|t| t.caution(&folds)));
        let k = folds.len();
        let folds_improved = folds.iter().filter(|f| f.improved).count();
        let decision_gain = if k >= 2 {
            folds.iter().map(|f| f.gain).sum::<f64>() / k as f64
        } else {
            pooled.gain
        };
        let bar = thresholds.get(threshold::STATS_PROMOTE_Z);
        let baseline_fold_std = baseline_fold_scores.as_deref().and_then(sd);
        let leakage_factor = thresholds.get(threshold::STATS_LEAKAGE_FOLD_STD);
        Ok(CompareRun {
            metric,
            rows: n,
            paired_by: paired.paired_by,
            groups: pooled.groups,
            idea_score: pooled.idea_score,
            control_score: pooled.control_score,
            gain: pooled.gain,
            z_clears: pooled.summary.z.is_some_and(|z| z >= bar),
            t_clears: fold_test.is_some_and(|t| t.t >= bar),
            summary: pooled.summary,
            resamples,
            resamples_used: pooled.resamples_used,
            seed,
            folds,
            folds_improved,
            fold_test,
            decision_gain,
            majority_improved: if k >= 2 {
                2 * folds_improved > k
            } else {
                decision_gain > 0.0
            },
            // kgkit: a baseline fold std of 0 (all fold scores equal) scales nothing
            leakage: baseline_fold_std
                .is_some_and(|std| std > 0.0 && decision_gain > leakage_factor * std),
            baseline_fold_scores,
            baseline_fold_std,
            bar,
            cautions,
            folds_left_out: paired.folds_left_out,
            full_run_control: paired.full_run_control,
        })
    }

    /// The mean per-fold gain over 2+ folds.
    fn fold_gain(&self) -> Option<f64> {
        (self.folds.len() >= 2).then_some(self.decision_gain)
    }

    /// Which gain the decision is taken on.
    fn decision_gain_of(&self) -> &'static str {
        if self.folds.len() >= 2 {
            "fold mean"
        } else {
            "pooled"
        }
    }

    fn z_text(&self) -> String {
        fmt_or_undefined(self.summary.z)
    }

    fn t_text(&self) -> String {
        self.fold_test
            .map(|t| t.text())
            .unwrap_or_else(|| "undefined".to_string())
    }

    /// The decision gain as a sentence names it.
    fn gain_text(&self) -> String {
        if self.folds.len() >= 2 {
            format!(
                "mean fold gain {} over {} folds (pooled gain {})",
                fmt(self.decision_gain),
                self.folds.len(),
                fmt(self.gain)
            )
        } else {
            format!("gain {}", fmt(self.decision_gain))
        }
    }

    /// The decision and the sentence that gives its reason (the table in the module doc).
    fn decide(&self) -> (Decision, String) {
        let (bar, k) = (fmt(self.bar), self.folds.len());
        let boot_ok = self.summary.bootstrap_gain.is_some_and(|g| g >= 0.0);
        if self.decision_gain <= 0.0 {
            return (
                Decision::Discard,
                format!(
                    "the idea does not beat its control: {} ({} {} vs {})",
                    self.gain_text(),
                    self.metric.as_str(),
                    fmt(self.idea_score),
                    fmt(self.control_score)
                ),
            );
        }
        if (self.z_clears || self.t_clears) && self.majority_improved && boot_ok {
            let by = if self.z_clears {
                format!("z = {} ≥ {bar}", self.z_text())
            } else {
                format!("fold t = {} ≥ {bar} over {k} folds", self.t_text())
            };
            return (
                Decision::Promote,
                format!(
                    "{} with {by}: run the full cross-validation",
                    self.gain_text()
                ),
            );
        }
        let mut why = Vec::new();
        if !self.z_clears && !self.t_clears {
            why.push(if k >= 2 {
                format!(
                    "z = {} and fold t = {} < {bar}",
                    self.z_text(),
                    self.t_text()
                )
            } else {
                format!("z = {} < {bar}", self.z_text())
            });
        }
        if !self.majority_improved {
            why.push(format!(
                "only {} of {k} folds improved",
                self.folds_improved
            ));
        }
        if !boot_ok {
            why.push(format!(
                "the mean bootstrap gain is {}",
                fmt_or_undefined(self.summary.bootstrap_gain)
            ));
        }
        (
            Decision::Inconclusive,
            format!(
                "{} but {}: run a second fold or seed first",
                self.gain_text(),
                why.join(", ")
            ),
        )
    }

    /// A promote on one fold/seed with z below the suspicion band (KS004).
    fn just_clears(&self, decision: Decision, thresholds: &Thresholds) -> bool {
        decision == Decision::Promote
            && self.folds.len() < 2
            && self
                .summary
                .z
                .is_some_and(|z| z < thresholds.get(threshold::STATS_JUST_CLEARS_Z))
    }
}

/// KS001, KS002 or KS003: the decision, with every number behind it.
fn decision_finding(run: &CompareRun, decision: Decision, out: &mut Findings) {
    out.uses(threshold::STATS_PROMOTE_Z);
    out.uses(threshold::STATS_RESAMPLES);
    let k = run.folds.len();
    let s = &run.summary;
    let evidence = format!(
        "{}: idea {} vs control {}, gain {}, se {}, z {}, P(better) {}, 95% interval [{}], {} rows{}, {} resamples (seed {}){}",
        run.metric.as_str(),
        fmt(run.idea_score),
        fmt(run.control_score),
        fmt(run.gain),
        fmt_or_undefined(s.se),
        run.z_text(),
        fmt_or_undefined(s.p_better),
        s.ci95
            .map(|[a, b]| format!("{}, {}", fmt(a), fmt(b)))
            .unwrap_or_else(|| "undefined".into()),
        run.rows,
        run.groups
            .map(|g| format!(" in {g} groups"))
            .unwrap_or_default(),
        run.resamples_used,
        run.seed,
        if k >= 2 {
            format!(
                "; {} of {k} folds improved, mean fold gain {}, fold t {}",
                run.folds_improved,
                fmt(run.decision_gain),
                run.t_text()
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
    out.add(code, format!("{evidence}; threshold z ≥ {}", fmt(run.bar)));
}

/// KS004: a promote whose z only just clears the bar on one fold/seed.
fn just_clears_on_one_seed(
    run: &CompareRun,
    decision: Decision,
    thresholds: &Thresholds,
    out: &mut Findings,
) {
    if !run.just_clears(decision, thresholds) {
        return;
    }
    out.uses(threshold::STATS_JUST_CLEARS_Z);
    out.add(
        rule::KS004,
        format!(
            "z = {} clears {} but is below {} on one fold/seed",
            run.z_text(),
            fmt(run.bar),
            fmt(thresholds.get(threshold::STATS_JUST_CLEARS_Z))
        ),
    );
}

/// KS005: a gain larger than a few baseline fold standard deviations.
fn gain_too_large(run: &CompareRun, thresholds: &Thresholds, out: &mut Findings) {
    if run.baseline_fold_scores.is_some() {
        out.uses(threshold::STATS_LEAKAGE_FOLD_STD);
    }
    let Some(std) = run.baseline_fold_std.filter(|_| run.leakage) else {
        return;
    };
    let factor = thresholds.get(threshold::STATS_LEAKAGE_FOLD_STD);
    out.add(
        rule::KS005,
        format!(
            "{} {} > {} x the baseline's fold std {} = {}",
            if run.folds.len() >= 2 {
                "mean fold gain"
            } else {
                "gain"
            },
            fmt(run.decision_gain),
            fmt(factor),
            fmt(std),
            fmt(factor * std)
        ),
    );
}

/// KS006: the paired test clears the bar on a gain below the baseline's fold std.
fn below_fold_std(run: &CompareRun, out: &mut Findings) {
    let Some(std) = run.baseline_fold_std else {
        return;
    };
    let gain = run.decision_gain;
    if !run.leakage && gain > 0.0 && gain < std && (run.z_clears || run.t_clears) {
        let test = if run.z_clears {
            format!("z = {}", run.z_text())
        } else {
            format!("fold t = {}", run.t_text())
        };
        out.add(
            rule::KS006,
            format!(
                "{} {} is below the baseline's fold std {} yet the paired test gives {test}",
                if run.folds.len() >= 2 {
                    "mean fold gain"
                } else {
                    "gain"
                },
                fmt(gain),
                fmt(std),
            ),
        );
    }
}

/// KS007: every resample gave the same gain, so there is no noise to measure.
fn no_variance(run: &CompareRun, out: &mut Findings) {
    let se = run.summary.se;
    if se.is_none_or(|s| s == 0.0) && run.gain > 0.0 {
        out.add(
            rule::KS007,
            format!(
                "{} row(s){}: every resample gave the same gain, so the bootstrap cannot measure noise (se {})",
                run.rows,
                run.groups.map(|g| format!(" in {g} group(s)")).unwrap_or_default(),
                fmt_or_undefined(se)
            ),
        );
    }
}

/// KS009: the control is a full run's OOF, not a control screen (KG §3 (3)).
fn full_run_control(run: &CompareRun, out: &mut Findings) {
    if let Some(evidence) = &run.full_run_control {
        out.add(rule::KS009, evidence.clone());
    }
}

/// KS008: the two artifacts folders hold different folds, and only those both hold were compared.
fn folds_left_out(run: &CompareRun, out: &mut Findings) {
    if let Some(left_out) = &run.folds_left_out {
        out.add(rule::KS008, left_out.clone());
    }
}

/// The cautions of the answer: the run's, then a just-clearing z, then a baseline too short for the
/// leakage check.
fn cautions(run: &CompareRun, decision: Decision, thresholds: &Thresholds) -> Vec<String> {
    let mut cautions = run.cautions.clone();
    if run.just_clears(decision, thresholds) {
        cautions.push(format!(
            "z only just clears {} on one seed: the bootstrap does not see seed noise; confirm on a second seed or fold",
            fmt(run.bar)
        ));
    }
    if let Some(scores) = &run.baseline_fold_scores {
        match run.baseline_fold_std {
            None => cautions.push(format!(
                "the baseline fold scores hold {} value(s): the leakage check needs at least 2",
                scores.len()
            )),
            Some(0.0) => cautions.push(format!(
                "the baseline's {} fold scores are all equal (std 0): the leakage check has no scale to \
                 judge the gain against (scores rounded too far?)",
                scores.len()
            )),
            Some(_) => {}
        }
    }
    cautions
}

/// `kgadvise compare`: the decision on an idea against its control (promote, inconclusive, discard) with
/// the paired bootstrap's numbers. Errors name the request field and what was expected (a problem with
/// both files together, such as different rows, names no field).
pub fn compare(
    request: &CompareRequest,
    clock: DateTime<Utc>,
) -> Result<CompareReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = CompareRun::of(Inputs::of(request, &thresholds)?, &thresholds)?;
    let (decision, reason) = run.decide();
    let mut out = Findings::new();
    decision_finding(&run, decision, &mut out);
    just_clears_on_one_seed(&run, decision, &thresholds, &mut out);
    gain_too_large(&run, &thresholds, &mut out);
    below_fold_std(&run, &mut out);
    no_variance(&run, &mut out);
    folds_left_out(&run, &mut out);
    full_run_control(&run, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(CompareReport {
        schema: COMPARE_SCHEMA,
        metric: run.metric,
        greater_is_better: run.metric.greater_is_better(),
        rows: run.rows,
        paired_by: run.paired_by,
        groups: run.groups,
        idea_score: run.idea_score,
        control_score: run.control_score,
        gain: run.gain,
        se: run.summary.se,
        z: run.summary.z,
        p_better: run.summary.p_better,
        ci95: run.summary.ci95,
        bootstrap_gain: run.summary.bootstrap_gain,
        resamples: run.resamples,
        resamples_used: run.resamples_used,
        seed: run.seed,
        cautions: cautions(&run, decision, &thresholds),
        folds_improved: run.folds_improved,
        fold_gain: run.fold_gain(),
        decision_gain: run.decision_gain,
        decision_gain_of: run.decision_gain_of(),
        fold_t: run.fold_test.and_then(|t| t.finite()),
        fold_t_infinite: run.fold_test.and_then(|t| t.infinite()),
        fold_t_p: run.fold_test.and_then(|t| t.p),
        majority_improved: run.majority_improved,
        baseline_fold_std: run.baseline_fold_std,
        leakage: run.leakage,
        folds: run.folds,
        decision,
        reason,
        rules: closed.rules,
        findings: closed.findings,
    })
}

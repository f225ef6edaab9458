//! `kgadvise prune`: should a running screen stop? (rules.md §12, KG §3.3 `--prune-against baseline`)
//!
//! Curves are kgkit's `curve_fold<k>.json` (formats.md §10): `{fold, epochs, greater_is_better, points:
//! [{epoch, score, seconds}]}`; `epochs` is the scheduled number of epochs. A point's schedule fraction is
//! `epoch / epochs` when epochs count from 1, `(epoch + 1) / epochs` when the curve starts at epoch 0.
//! The baseline may be one curve or a JSON list of curves (one per fold): its reference is then the mean
//! over the folds, and the std of the folds' final bests is its fold std.
//!
//! Never prune before `threshold.stats.prune-min-frac` of the schedule. Past it, compare the current
//! best-so-far with the baseline's best-so-far at the same fraction (that of its last point reached by
//! that fraction, as kgkit compares: a line drawn toward a later, better baseline point would raise the
//! bar between sparse points and prune earlier than kgkit's deliberately generous rule); prune when the
//! current trails by more than the margin (the request's `margin`, else the baseline's fold std).
//!
//! Without a margin there is no prune decision (`no-margin`, KS013): the seed's margin is deliberately
//! generous so that only clearly bad ideas stop, and a margin of 0 would stop a screen on noise. kgkit's
//! `TrainBudget.should_prune` does the same (no `KG_PRUNE_MARGIN`, no pruning). A screen level with or
//! ahead of the baseline needs no margin: it continues.
//!
//! [`prune`] is the entry point: a [`PruneRequest`] in, a [`PruneReport`] out; the rules are one
//! function each over where the screen stands (`PruneRun`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::compare::sd;
use super::table::read_scores;
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::number::{fixed, shortest};

pub const PRUNE_SCHEMA: &str = "kgadvise.prune/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    pub epoch: f64,
    pub score: f64,
    #[serde(default)]
    pub seconds: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Curve {
    #[serde(default)]
    pub fold: Option<serde_json::Value>,
    pub epochs: f64,
    pub greater_is_better: bool,
    pub points: Vec<Point>,
}

impl Curve {
    /// (schedule fraction, best-so-far) per point, in epoch order.
    pub fn best_so_far(&self) -> Vec<(f64, f64)> {
        let mut pts: Vec<&Point> = self.points.iter().collect();
        crate::text::sort::sort_by(&mut pts, |a, b| a.epoch.total_cmp(&b.epoch));
        let zero_based = pts.first().is_some_and(|p| p.epoch == 0.0);
        let mut best: Option<f64> = None;
        pts.iter()
            .map(|p| {
                let b = match best {
                    Some(b)
                        if (self.greater_is_better && b >= p.score)
                            || (!self.greater_is_better && b <= p.score) =>
                    {
                        b
                    }
                    _ => p.score,
                };
                best = Some(b);
                let e = if zero_based { p.epoch + 1.0 } else { p.epoch };
                (e / self.epochs, b)
            })
            .collect()
    }

    /// The best-so-far at a schedule fraction: that of the last point reached by it (kgkit's
    /// deliberately generous rule: no interpolation toward a later, better point); before the first
    /// point, the first. None without points.
    pub fn best_at(&self, frac: f64) -> Option<f64> {
        let pts = self.best_so_far();
        let first = *pts.first()?;
        Some(
            pts.iter()
                .take_while(|(f, _)| *f <= frac + 1e-9)
                .last()
                .map_or(first.1, |p| p.1),
        )
    }
}

fn check_curve(c: &Curve, field: &str, which: &str) -> Result<(), RequestError> {
    if !(c.epochs.is_finite() && c.epochs > 0.0) {
        return Err(RequestError::new(
            field,
            format!(
                "{which}`epochs` is {}; expected the scheduled number of epochs (> 0)",
                shortest(c.epochs)
            ),
        ));
    }
    if c.points.is_empty() {
        return Err(RequestError::new(
            field,
            format!("{which}`points` is empty; expected [{{epoch, score, seconds}}, ...]"),
        ));
    }
    if let Some((i, p)) = c
        .points
        .iter()
        .enumerate()
        .find(|(_, p)| !p.score.is_finite() || !p.epoch.is_finite())
    {
        return Err(RequestError::new(
            field,
            format!(
                "{which}points[{i}] has epoch {} score {}: expected numbers",
                shortest(p.epoch),
                shortest(p.score)
            ),
        ));
    }
    Ok(())
}

/// Parses a curve JSON, the text of the request field `field` (one object, or a list of objects for the
/// baseline's folds).
pub fn read_curves(text: &str, field: &str) -> Result<Vec<Curve>, RequestError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        RequestError::at_line(
            field,
            e.line(),
            format!(
                "column {}: not JSON ({}); expected a kgkit curve {{fold, epochs, greater_is_better, points}}",
                e.column(),
                crate::text::json::serde_reason(&e)
            ),
        )
    })?;
    let items = match value {
        serde_json::Value::Array(items) => items,
        other => vec![other],
    };
    if items.is_empty() {
        return Err(RequestError::new(
            field,
            "an empty list; expected a curve or a list of curves",
        ));
    }
    let mut curves = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let which = if i == 0 {
            String::new()
        } else {
            format!("curve {i}: ")
        };
        // core's reader, not serde_json::from_value: the same words, without serde's float printer in the wasm
        let c: Curve = crate::text::json::from_value(&item).map_err(|e| {
            RequestError::new(
                field,
                format!(
                    "{which}{e}; expected a kgkit curve {{fold, epochs, greater_is_better, points: [{{epoch, score, seconds}}]}}"
                ),
            )
        })?;
        check_curve(&c, field, &which)?;
        curves.push(c);
    }
    Ok(curves)
}

/// `kgadvise prune`: should a running screen stop? Its learning curve against the accepted baseline's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PruneRequest {
    /// The accepted baseline's curve: kgkit's `curve_fold<k>.json` text (`{fold, epochs,
    /// greater_is_better, points: [{epoch, score, seconds}]}`), or a JSON list of its folds' curves.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub baseline: String,
    /// The running screen's curve, one curve of the same form.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub current: String,
    /// Prune when the screen trails the baseline by more than this, in the metric's units (default: the
    /// baseline's fold std; without either, no prune decision).
    #[cfg_attr(feature = "cli", arg(long, value_name = "X"))]
    pub margin: Option<f64>,
    /// Never prune before this fraction of the schedule, 0 to 1 (default:
    /// threshold.stats.prune-min-frac).
    #[cfg_attr(feature = "cli", arg(long, value_name = "F"))]
    pub min_frac: Option<f64>,
    /// The baseline's per-fold scores (CSV text with a `score` column, or one number a line): their std
    /// is the margin when the baseline is one curve.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub folds: Option<String>,
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
#[serde(rename_all = "kebab-case")]
pub enum PruneDecision {
    Prune,
    Continue,
    TooEarly,
    /// Trailing the baseline, but no margin to judge by: no prune decision.
    NoMargin,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PruneReport {
    pub schema: &'static str,
    pub prune: bool,
    pub decision: PruneDecision,
    pub reason: String,
    pub greater_is_better: bool,
    /// Schedule fraction reached by the current run.
    pub fraction: f64,
    pub min_frac: f64,
    pub epoch: f64,
    pub epochs: f64,
    pub current_best: f64,
    /// The baseline's best-so-far at the same fraction (mean over its folds).
    pub baseline_best: f64,
    pub baseline_folds: usize,
    /// How far the current best trails the baseline (positive = worse).
    pub trail: f64,
    /// The margin in the metric's units; null when there is none (decision `no-margin`).
    pub margin: Option<f64>,
    /// `given` (the request's margin), `baseline fold std` or `none`.
    pub margin_source: &'static str,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for PruneReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::stats::text::prune(self)
    }
}

fn f(v: f64) -> String {
    let s = fixed(v, 6);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn pct(x: f64) -> String {
    format!("{} %", fixed(x * 100.0, 0))
}

/// The validated request: the curves, the margin and the minimum fraction.
struct Inputs {
    baseline: Vec<Curve>,
    current: Curve,
    margin: Option<f64>,
    min_frac: f64,
    baseline_fold_scores: Option<Vec<f64>>,
}

impl Inputs {
    fn of(request: &PruneRequest, thresholds: &Thresholds) -> Result<Inputs, RequestError> {
        if let Some(m) = request.margin
            && !(m.is_finite() && m >= 0.0)
        {
            return Err(RequestError::value(
                "margin",
                shortest(m),
                "expected a number ≥ 0 in the metric's units",
            ));
        }
        if let Some(f) = request.min_frac
            && !(0.0..=1.0).contains(&f)
        {
            return Err(RequestError::value(
                "minFrac",
                shortest(f),
                "expected a fraction between 0 and 1",
            ));
        }
        let baseline = read_curves(&request.baseline, "baseline")?;
        let mut current = read_curves(&request.current, "current")?;
        if current.len() != 1 {
            return Err(RequestError::new(
                "current",
                format!(
                    "holds {} curves; expected the one running curve",
                    current.len()
                ),
            ));
        }
        let current = current.remove(0);
        if let Some(c) = baseline
            .iter()
            .find(|c| c.greater_is_better != current.greater_is_better)
        {
            return Err(RequestError::new(
                "",
                format!(
                    "the baseline says greater_is_better = {} but the current curve says {}: expected curves \
                     of the same metric",
                    c.greater_is_better, current.greater_is_better
                ),
            ));
        }
        let baseline_fold_scores = match &request.folds {
            Some(text) => Some(read_scores(text, "folds")?),
            None => None,
        };
        Ok(Inputs {
            baseline,
            current,
            margin: request.margin,
            min_frac: request
                .min_frac
                .unwrap_or_else(|| thresholds.get(threshold::STATS_PRUNE_MIN_FRAC)),
            baseline_fold_scores,
        })
    }
}

/// Where the screen stands against the baseline: what every prune rule reads.
struct PruneRun {
    greater_is_better: bool,
    min_frac: f64,
    fraction: f64,
    epoch: f64,
    epochs: f64,
    current_best: f64,
    baseline_best: f64,
    baseline_folds: usize,
    trail: f64,
    margin: Option<f64>,
    margin_source: &'static str,
    decision: PruneDecision,
}

impl PruneRun {
    fn of(inputs: &Inputs) -> Result<PruneRun, RequestError> {
        let (baseline, current) = (&inputs.baseline, &inputs.current);
        let Some(first) = baseline.first() else {
            return Err(RequestError::new("baseline", "expected a baseline curve"));
        };
        let gib = first.greater_is_better;
        let Some(&(fraction, current_best)) = current.best_so_far().last() else {
            return Err(RequestError::new(
                "current",
                "the curve has no points; expected [{epoch, score, seconds}, ...]",
            ));
        };
        let epoch = current
            .points
            .iter()
            .map(|p| p.epoch)
            .fold(f64::NEG_INFINITY, f64::max);
        let refs: Vec<f64> = baseline
            .iter()
            .filter_map(|c| c.best_at(fraction))
            .collect();
        let baseline_best = refs.iter().sum::<f64>() / refs.len().max(1) as f64;
        let finals: Vec<f64> = baseline
            .iter()
            .filter_map(|c| c.best_so_far().last().map(|p| p.1))
            .collect();
        let fold_std = if finals.len() >= 2 {
            sd(&finals)
        } else {
            inputs.baseline_fold_scores.as_deref().and_then(sd)
        };
        let (margin, margin_source) = match (inputs.margin, fold_std) {
            (Some(m), _) => (Some(m), "given"),
            (None, Some(s)) => (Some(s), "baseline fold std"),
            (None, None) => (None, "none"),
        };
        let trail = if gib {
            baseline_best - current_best
        } else {
            current_best - baseline_best
        };
        // (the tolerance keeps "trails by exactly the margin" from pruning through rounding)
        let beyond = |m: f64| trail > m + 1e-9 * baseline_best.abs().max(1.0);
        let decision = match margin {
            _ if fraction < inputs.min_frac => PruneDecision::TooEarly,
            Some(m) if beyond(m) => PruneDecision::Prune,
            Some(_) => PruneDecision::Continue,
            // level or ahead: no margin could prune it
            None if !beyond(0.0) => PruneDecision::Continue,
            None => PruneDecision::NoMargin,
        };
        Ok(PruneRun {
            greater_is_better: gib,
            min_frac: inputs.min_frac,
            fraction,
            epoch,
            epochs: current.epochs,
            current_best,
            baseline_best,
            baseline_folds: baseline.len(),
            trail,
            margin,
            margin_source,
            decision,
        })
    }

    /// The numbers behind a prune or continue decision.
    fn numbers(&self) -> String {
        format!(
            "best-so-far {} vs the baseline's {} at {} of the schedule (epoch {} of {}), {}, {}",
            f(self.current_best),
            f(self.baseline_best),
            pct(self.fraction),
            f(self.epoch),
            f(self.epochs),
            if self.trail < 0.0 {
                format!("ahead by {}", f(-self.trail))
            } else {
                format!("trailing by {}", f(self.trail))
            },
            match self.margin {
                Some(m) => format!("margin {} ({})", f(m), self.margin_source),
                None => "no margin".to_string(),
            }
        )
    }

    /// The decision's sentence: its verdict word, then why.
    fn reason(&self) -> String {
        match self.decision {
            PruneDecision::TooEarly => format!(
                "continue: only {} of the schedule has run; never prune before {}",
                pct(self.fraction),
                pct(self.min_frac)
            ),
            PruneDecision::Prune => format!("prune: {}", self.numbers()),
            PruneDecision::Continue => format!("continue: {}", self.numbers()),
            PruneDecision::NoMargin => format!(
                "no decision: {}; give a margin (e.g. the baseline's fold std) or the baseline's fold \
                 scores: without one kgadvise does not prune on noise",
                self.numbers()
            ),
        }
    }
}

/// KS012: the screen has not run long enough to be judged.
fn too_early(run: &PruneRun, out: &mut Findings) {
    out.uses(threshold::STATS_PRUNE_MIN_FRAC);
    if run.decision == PruneDecision::TooEarly {
        out.add(
            rule::KS012,
            format!(
                "{} of the schedule (epoch {} of {}) < minimum {}",
                pct(run.fraction),
                f(run.epoch),
                f(run.epochs),
                pct(run.min_frac)
            ),
        );
    }
}

/// KS010: the screen trails the baseline by more than the margin.
fn trails_the_baseline(run: &PruneRun, out: &mut Findings) {
    if run.decision == PruneDecision::Prune {
        out.add(rule::KS010, run.numbers());
    }
}

/// KS011: the screen keeps up with the baseline.
fn keeps_up(run: &PruneRun, out: &mut Findings) {
    if run.decision == PruneDecision::Continue {
        out.add(rule::KS011, run.numbers());
    }
}

/// KS013: the screen trails the baseline and no margin could be found: no prune decision.
fn no_margin(run: &PruneRun, out: &mut Findings) {
    if run.decision == PruneDecision::NoMargin {
        out.add(
            rule::KS013,
            format!(
                "no margin given, one baseline curve and no baseline fold scores; the screen trails by {} at \
                 {} of the schedule",
                f(run.trail),
                pct(run.fraction)
            ),
        );
    }
}

/// `kgadvise prune`: prune, continue or too early to say, for a running screen against its baseline.
/// Errors name the request field and what was expected.
pub fn prune(request: &PruneRequest, clock: DateTime<Utc>) -> Result<PruneReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = PruneRun::of(&Inputs::of(request, &thresholds)?)?;
    let mut out = Findings::new();
    too_early(&run, &mut out);
    trails_the_baseline(&run, &mut out);
    keeps_up(&run, &mut out);
    no_margin(&run, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(PruneReport {
        schema: PRUNE_SCHEMA,
        prune: run.decision == PruneDecision::Prune,
        decision: run.decision,
        reason: run.reason(),
        greater_is_better: run.greater_is_better,
        fraction: run.fraction,
        min_frac: run.min_frac,
        epoch: run.epoch,
        epochs: run.epochs,
        current_best: run.current_best,
        baseline_best: run.baseline_best,
        baseline_folds: run.baseline_folds,
        trail: run.trail,
        margin: run.margin,
        margin_source: run.margin_source,
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(epochs: f64, gib: bool, pts: &[(f64, f64)]) -> Curve {
        Curve {
            fold: None,
            epochs,
            greater_is_better: gib,
            points: pts
                .iter()
                .map(|&(epoch, score)| Point {
                    epoch,
                    score,
                    seconds: None,
                })
                .collect(),
        }
    }

    /// The request of a baseline (its curves), a current curve, a margin, a minimum fraction and the
    /// baseline's fold scores, answered.
    fn run(
        baseline: &[Curve],
        current: &Curve,
        margin: Option<f64>,
        min_frac: Option<f64>,
        scores: Option<&[f64]>,
    ) -> Result<PruneReport, RequestError> {
        let request = PruneRequest {
            baseline: serde_json::to_string(baseline).unwrap(),
            current: serde_json::to_string(current).unwrap(),
            margin,
            min_frac,
            folds: scores.map(|s| s.iter().map(f64::to_string).collect::<Vec<_>>().join("\n")),
            ..PruneRequest::default()
        };
        prune(&request, "2026-12-01T00:00:00Z".parse().unwrap())
    }

    fn baseline() -> Curve {
        // 1-based epochs of 10: best-so-far 0.70 0.75 0.75 0.80 0.82 ...
        curve(
            10.0,
            true,
            &[
                (1.0, 0.70),
                (2.0, 0.75),
                (3.0, 0.74),
                (4.0, 0.80),
                (5.0, 0.82),
                (10.0, 0.90),
            ],
        )
    }

    #[test]
    fn best_so_far_is_the_last_point_reached_by_the_fraction() {
        let b = baseline();
        assert_eq!(b.best_at(0.3), Some(0.75));
        assert_eq!(b.best_at(0.35), Some(0.75));
        assert_eq!(b.best_at(0.75), Some(0.82));
        assert_eq!(b.best_at(0.05), Some(0.70));
        assert_eq!(b.best_at(2.0), Some(0.90));
        // 0-based epochs: epoch 0 is the end of the first epoch
        let z = curve(
            4.0,
            false,
            &[(0.0, 0.5), (1.0, 0.4), (2.0, 0.45), (3.0, 0.3)],
        );
        assert_eq!(
            z.best_so_far(),
            vec![(0.25, 0.5), (0.5, 0.4), (0.75, 0.4), (1.0, 0.3)]
        );
    }

    #[test]
    fn decision_table() {
        let b = [baseline()];
        // at 20 %: too early whatever the score
        let r = run(
            &b,
            &curve(10.0, true, &[(1.0, 0.1), (2.0, 0.1)]),
            Some(0.01),
            None,
            None,
        )
        .unwrap();
        assert_eq!((r.decision, r.prune), (PruneDecision::TooEarly, false));
        // at exactly 30 %: baseline 0.75; 0.73 trails by 0.02 > 0.01 → prune
        let r = run(
            &b,
            &curve(10.0, true, &[(1.0, 0.6), (2.0, 0.7), (3.0, 0.73)]),
            Some(0.01),
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            (r.decision, r.prune),
            (PruneDecision::Prune, true),
            "{}",
            r.reason
        );
        assert!(
            r.reason.contains("0.73")
                && r.reason.contains("0.75")
                && r.reason.contains("margin 0.01"),
            "{}",
            r.reason
        );
        // within the margin → continue
        let r = run(
            &b,
            &curve(10.0, true, &[(3.0, 0.745)]),
            Some(0.01),
            None,
            None,
        )
        .unwrap();
        assert_eq!(r.decision, PruneDecision::Continue);
        // trailing exactly by the margin is not more than it
        let r = run(
            &b,
            &curve(10.0, true, &[(3.0, 0.74)]),
            Some(0.01),
            None,
            None,
        )
        .unwrap();
        assert_eq!(r.decision, PruneDecision::Continue, "{}", r.trail);
        // --min-frac overrides
        let r = run(
            &b,
            &curve(10.0, true, &[(3.0, 0.5)]),
            Some(0.01),
            Some(0.5),
            None,
        )
        .unwrap();
        assert_eq!(r.decision, PruneDecision::TooEarly);
    }

    #[test]
    fn margin_defaults_to_the_baseline_fold_std() {
        let b = [baseline()];
        let cur = curve(10.0, true, &[(3.0, 0.73)]);
        let r = run(&b, &cur, None, None, Some(&[0.80, 0.84, 0.82])).unwrap();
        assert_eq!(r.margin_source, "baseline fold std");
        assert!((r.margin.unwrap() - 0.02).abs() < 1e-12);
        assert_eq!(r.decision, PruneDecision::Continue);
        // several baseline curves: their final bests give the std, their mean the reference
        let b2 = [
            baseline(),
            curve(10.0, true, &[(1.0, 0.60), (3.0, 0.75), (10.0, 0.86)]),
        ];
        let r = run(&b2, &cur, None, None, None).unwrap();
        assert_eq!(r.margin_source, "baseline fold std");
        assert!((r.baseline_best - 0.75).abs() < 1e-12);
        // none: no prune decision on a shortfall (KS013), and no margin shown as 0
        let r = run(&b, &cur, None, None, None).unwrap();
        assert_eq!((r.margin_source, r.margin), ("none", None));
        assert!(r.findings.iter().any(|f| f.rule == "KS013"));
        assert_eq!((r.decision, r.prune), (PruneDecision::NoMargin, false));
        assert!(r.reason.starts_with("no decision: "), "{}", r.reason);
        // none, but level with the baseline: continue, no margin needed
        let r = run(&b, &curve(10.0, true, &[(3.0, 0.75)]), None, None, None).unwrap();
        assert_eq!(r.decision, PruneDecision::Continue, "{}", r.reason);
        assert!(r.findings.iter().all(|f| f.rule != "KS013"));
    }

    #[test]
    fn lower_is_better_curves() {
        let b = [curve(10.0, false, &[(1.0, 1.0), (5.0, 0.6), (10.0, 0.5)])];
        let r = run(
            &b,
            &curve(10.0, false, &[(5.0, 0.7)]),
            Some(0.05),
            None,
            None,
        )
        .unwrap();
        assert!(r.prune && (r.trail - 0.1).abs() < 1e-12, "{}", r.reason);
        let r = run(
            &b,
            &curve(10.0, false, &[(5.0, 0.62)]),
            Some(0.05),
            None,
            None,
        )
        .unwrap();
        assert!(!r.prune);
        let e = run(&b, &curve(10.0, true, &[(5.0, 0.62)]), None, None, None).unwrap_err();
        assert!(e.message.contains("greater_is_better"), "{e}");
    }

    #[test]
    fn bad_curves_name_the_input() {
        let e = read_curves("{\"epochs\": 10}", "current").unwrap_err();
        assert!(
            e.field == "current" && e.message.contains("missing field"),
            "{e}"
        );
        let e = read_curves(
            "{\"epochs\": 0, \"greater_is_better\": true, \"points\": [{\"epoch\":1,\"score\":1}]}",
            "c.json",
        )
        .unwrap_err();
        assert!(e.message.contains("`epochs`"), "{e}");
        let e = read_curves(
            "{\"epochs\": 5, \"greater_is_better\": true, \"points\": []}",
            "c.json",
        )
        .unwrap_err();
        assert!(e.message.contains("`points` is empty"), "{e}");
        let e = read_curves("not json", "c.json").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        assert_eq!(read_curves("[{\"fold\":0,\"epochs\":5,\"greater_is_better\":true,\"points\":[{\"epoch\":1,\"score\":0.5,\"seconds\":3}]}]", "b").unwrap().len(), 1);
    }
}

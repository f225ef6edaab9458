//! `kgadvise prune`: should a running screen stop? (rules.md §12, KG §3.3 `--prune-against baseline`)
//!
//! Curves are kgkit's `curve_fold<k>.json` (formats.md §10): `{fold, epochs, greater_is_better, points:
//! [{epoch, score, seconds}]}`; `epochs` is the scheduled number of epochs. A point's schedule fraction is
//! `epoch / epochs` when epochs count from 1, `(epoch + 1) / epochs` when the curve starts at epoch 0.
//! The baseline may be one curve or a JSON list of curves (one per fold): its reference is then the mean
//! over the folds, and the std of the folds' final bests is its fold std.
//!
//! Never prune before `threshold.stats.prune-min-frac` of the schedule. Past it, compare the current
//! best-so-far with the baseline's best-so-far at the same fraction (linear interpolation between its
//! points); prune when the current trails by more than the margin (`--margin`, else the baseline's fold
//! std, else 0 with a note).

use crate::rulebook::ids::{ThresholdId, rule, threshold};
use serde::{Deserialize, Serialize};

use super::compare::sd;
use super::table::InputError;
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::Report;
use crate::text::number::{fixed, shortest};

pub const PRUNE_SCHEMA: &str = "kgadvise.prune/1";
pub const T_MIN_FRAC: ThresholdId = threshold::STATS_PRUNE_MIN_FRAC;

#[derive(Debug, Clone, Deserialize)]
pub struct Point {
    pub epoch: f64,
    pub score: f64,
    #[serde(default)]
    pub seconds: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
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

    /// The best-so-far at a schedule fraction, interpolated linearly between points; before the first
    /// point, the first; after the last, the last. None without points.
    pub fn best_at(&self, frac: f64) -> Option<f64> {
        let pts = self.best_so_far();
        let first = *pts.first()?;
        let last = *pts.last()?;
        if frac <= first.0 {
            return Some(first.1);
        }
        if frac >= last.0 {
            return Some(last.1);
        }
        for w in pts.windows(2) {
            if let [(f0, b0), (f1, b1)] = w
                && frac >= *f0
                && frac <= *f1
            {
                if f1 == f0 {
                    return Some(*b1);
                }
                return Some(b0 + (b1 - b0) * (frac - f0) / (f1 - f0));
            }
        }
        Some(last.1)
    }
}

fn check_curve(c: &Curve, name: &str) -> Result<(), InputError> {
    if !(c.epochs.is_finite() && c.epochs > 0.0) {
        return Err(InputError::new(format!(
            "{name}: `epochs` is {}; expected the scheduled number of epochs (> 0)",
            shortest(c.epochs)
        )));
    }
    if c.points.is_empty() {
        return Err(InputError::new(format!(
            "{name}: `points` is empty; expected [{{epoch, score, seconds}}, ...]"
        )));
    }
    if let Some((i, p)) = c
        .points
        .iter()
        .enumerate()
        .find(|(_, p)| !p.score.is_finite() || !p.epoch.is_finite())
    {
        return Err(InputError::new(format!(
            "{name}: points[{i}] has epoch {} score {}: expected numbers",
            shortest(p.epoch),
            shortest(p.score)
        )));
    }
    Ok(())
}

/// Parses a curve JSON (one object, or a list of objects for the baseline's folds).
pub fn read_curves(text: &str, name: &str) -> Result<Vec<Curve>, InputError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        InputError::new(format!("{name}: line {} column {}: not JSON ({}); expected a kgkit curve {{fold, epochs, greater_is_better, points}}", e.line(), e.column(), crate::kernel::metadata::serde_reason(&e)))
    })?;
    let items = match value {
        serde_json::Value::Array(items) => items,
        other => vec![other],
    };
    if items.is_empty() {
        return Err(InputError::new(format!(
            "{name}: an empty list; expected a curve or a list of curves"
        )));
    }
    let mut curves = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let label = if curves.is_empty() && i == 0 {
            name.to_string()
        } else {
            format!("{name} [curve {i}]")
        };
        let c: Curve = serde_json::from_value(item).map_err(|e| {
            InputError::new(format!("{label}: {e}; expected a kgkit curve {{fold, epochs, greater_is_better, points: [{{epoch, score, seconds}}]}}"))
        })?;
        check_curve(&c, &label)?;
        curves.push(c);
    }
    Ok(curves)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PruneDecision {
    Prune,
    Continue,
    TooEarly,
}

#[derive(Debug, Clone, Serialize)]
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
    pub margin: f64,
    /// `--margin`, `baseline fold std` or `none`.
    pub margin_source: &'static str,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for PruneReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

fn f(v: f64) -> String {
    let s = fixed(v, 6);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Decides on a running screen. `baseline_fold_scores` (`--folds`) give the fold std when the baseline is
/// one curve; `margin` overrides both; `min_frac` overrides the threshold.
pub fn prune(
    baseline: &[Curve],
    current: &Curve,
    margin: Option<f64>,
    min_frac: Option<f64>,
    baseline_fold_scores: Option<&[f64]>,
    thresholds: &Thresholds,
) -> Result<PruneReport, InputError> {
    let Some(first) = baseline.first() else {
        return Err(InputError::new("no baseline curve"));
    };
    if let Some(c) = baseline
        .iter()
        .find(|c| c.greater_is_better != current.greater_is_better)
    {
        return Err(InputError::new(format!(
            "the baseline says greater_is_better = {} but the current curve says {}: they must score the same metric",
            c.greater_is_better, current.greater_is_better
        )));
    }
    let gib = first.greater_is_better;
    let min_frac = min_frac.unwrap_or_else(|| thresholds.get(T_MIN_FRAC));
    let now = current.best_so_far();
    let Some(&(fraction, current_best)) = now.last() else {
        return Err(InputError::new("the current curve has no points"));
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
        baseline_fold_scores.and_then(sd)
    };
    let (margin, margin_source) = match (margin, fold_std) {
        (Some(m), _) => (m, "--margin"),
        (None, Some(s)) => (s, "baseline fold std"),
        (None, None) => (0.0, "none"),
    };
    let trail = if gib {
        baseline_best - current_best
    } else {
        current_best - baseline_best
    };
    let mut rules = vec![T_MIN_FRAC.to_string()];
    let mut findings = Vec::new();
    let pct = |x: f64| format!("{} %", fixed(x * 100.0, 0));
    let numbers = format!(
        "best-so-far {} vs the baseline's {} at {} of the schedule (epoch {} of {}), trailing by {}, margin {} ({margin_source})",
        f(current_best),
        f(baseline_best),
        pct(fraction),
        f(epoch),
        f(current.epochs),
        f(trail),
        f(margin)
    );
    let (decision, reason) = if fraction < min_frac {
        findings.push(Finding::from_rule(
            rule::KS012,
            format!(
                "{} of the schedule (epoch {} of {}) < minimum {}",
                pct(fraction),
                f(epoch),
                f(current.epochs),
                pct(min_frac)
            ),
        ));
        rules.push(rule::KS012.into());
        (
            PruneDecision::TooEarly,
            format!(
                "continue: only {} of the schedule has run; never prune before {}",
                pct(fraction),
                pct(min_frac)
            ),
        )
    } else if trail > margin + 1e-9 * baseline_best.abs().max(1.0) {
        // (the tolerance keeps "trails by exactly the margin" from pruning through rounding)
        findings.push(Finding::from_rule(rule::KS010, numbers.clone()));
        rules.push(rule::KS010.into());
        (PruneDecision::Prune, format!("prune: {numbers}"))
    } else {
        findings.push(Finding::from_rule(rule::KS011, numbers.clone()));
        rules.push(rule::KS011.into());
        (PruneDecision::Continue, format!("continue: {numbers}"))
    };
    if margin_source == "none" && decision != PruneDecision::TooEarly {
        findings.push(Finding::from_rule(
            rule::KS013,
            "no --margin, one baseline curve and no --folds: margin 0",
        ));
        rules.push(rule::KS013.into());
    }
    Ok(PruneReport {
        schema: PRUNE_SCHEMA,
        prune: decision == PruneDecision::Prune,
        decision,
        reason,
        greater_is_better: gib,
        fraction,
        min_frac,
        epoch,
        epochs: current.epochs,
        current_best,
        baseline_best,
        baseline_folds: baseline.len(),
        trail,
        margin,
        margin_source,
        rules,
        findings,
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
    fn best_so_far_interpolates_by_schedule_fraction() {
        let b = baseline();
        assert_eq!(b.best_at(0.3), Some(0.75));
        assert!((b.best_at(0.35).unwrap() - 0.775).abs() < 1e-12);
        assert!((b.best_at(0.75).unwrap() - 0.86).abs() < 1e-12);
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
        let t = Thresholds::defaults();
        let b = [baseline()];
        // at 20 %: too early whatever the score
        let r = prune(
            &b,
            &curve(10.0, true, &[(1.0, 0.1), (2.0, 0.1)]),
            Some(0.01),
            None,
            None,
            &t,
        )
        .unwrap();
        assert_eq!((r.decision, r.prune), (PruneDecision::TooEarly, false));
        // at exactly 30 %: baseline 0.75; 0.73 trails by 0.02 > 0.01 → prune
        let r = prune(
            &b,
            &curve(10.0, true, &[(1.0, 0.6), (2.0, 0.7), (3.0, 0.73)]),
            Some(0.01),
            None,
            None,
            &t,
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
        let r = prune(
            &b,
            &curve(10.0, true, &[(3.0, 0.745)]),
            Some(0.01),
            None,
            None,
            &t,
        )
        .unwrap();
        assert_eq!(r.decision, PruneDecision::Continue);
        // trailing exactly by the margin is not more than it
        let r = prune(
            &b,
            &curve(10.0, true, &[(3.0, 0.74)]),
            Some(0.01),
            None,
            None,
            &t,
        )
        .unwrap();
        assert_eq!(r.decision, PruneDecision::Continue, "{}", r.trail);
        // --min-frac overrides
        let r = prune(
            &b,
            &curve(10.0, true, &[(3.0, 0.5)]),
            Some(0.01),
            Some(0.5),
            None,
            &t,
        )
        .unwrap();
        assert_eq!(r.decision, PruneDecision::TooEarly);
    }

    #[test]
    fn margin_defaults_to_the_baseline_fold_std() {
        let t = Thresholds::defaults();
        let b = [baseline()];
        let cur = curve(10.0, true, &[(3.0, 0.73)]);
        let r = prune(&b, &cur, None, None, Some(&[0.80, 0.84, 0.82]), &t).unwrap();
        assert_eq!(r.margin_source, "baseline fold std");
        assert!((r.margin - 0.02).abs() < 1e-12);
        assert_eq!(r.decision, PruneDecision::Continue);
        // several baseline curves: their final bests give the std, their mean the reference
        let b2 = [
            baseline(),
            curve(10.0, true, &[(1.0, 0.60), (3.0, 0.75), (10.0, 0.86)]),
        ];
        let r = prune(&b2, &cur, None, None, None, &t).unwrap();
        assert_eq!(r.margin_source, "baseline fold std");
        assert!((r.baseline_best - 0.75).abs() < 1e-12);
        // none: margin 0 with a note
        let r = prune(&b, &cur, None, None, None, &t).unwrap();
        assert_eq!(r.margin_source, "none");
        assert!(r.findings.iter().any(|f| f.rule == "KS013"));
        assert!(r.prune);
    }

    #[test]
    fn lower_is_better_curves() {
        let t = Thresholds::defaults();
        let b = [curve(10.0, false, &[(1.0, 1.0), (5.0, 0.6), (10.0, 0.5)])];
        let r = prune(
            &b,
            &curve(10.0, false, &[(5.0, 0.7)]),
            Some(0.05),
            None,
            None,
            &t,
        )
        .unwrap();
        assert!(r.prune && (r.trail - 0.1).abs() < 1e-12, "{}", r.reason);
        let r = prune(
            &b,
            &curve(10.0, false, &[(5.0, 0.62)]),
            Some(0.05),
            None,
            None,
            &t,
        )
        .unwrap();
        assert!(!r.prune);
        let e = prune(&b, &curve(10.0, true, &[(5.0, 0.62)]), None, None, None, &t).unwrap_err();
        assert!(e.message.contains("greater_is_better"), "{e}");
    }

    #[test]
    fn bad_curves_name_the_input() {
        let e = read_curves("{\"epochs\": 10}", "c.json").unwrap_err();
        assert!(
            e.message.contains("c.json") && e.message.contains("missing field"),
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
        assert!(e.message.contains("line 1"), "{e}");
        assert_eq!(read_curves("[{\"fold\":0,\"epochs\":5,\"greater_is_better\":true,\"points\":[{\"epoch\":1,\"score\":0.5,\"seconds\":3}]}]", "b").unwrap().len(), 1);
    }
}

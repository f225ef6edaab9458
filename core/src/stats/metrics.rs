//! The metrics of `kgadvise compare`, each with its direction, evaluated with per-row weights (bootstrap
//! counts) without re-sorting: AUC sorts once, then every resample is one pass over the sorted order.

use serde::Serialize;

use crate::hardware::UnknownId;

/// Logloss clips predictions to [EPS, 1 − EPS], as scikit-learn did by default (`eps=1e-15`).
pub const LOGLOSS_EPS: f64 = 1e-15;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    Rmse,
    Mae,
    Logloss,
    Auc,
    Accuracy,
}

impl Metric {
    pub const ALL: [Metric; 5] = [
        Metric::Rmse,
        Metric::Mae,
        Metric::Logloss,
        Metric::Auc,
        Metric::Accuracy,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Rmse => "rmse",
            Metric::Mae => "mae",
            Metric::Logloss => "logloss",
            Metric::Auc => "auc",
            Metric::Accuracy => "accuracy",
        }
    }

    /// `rmse`, `mae`, `logloss`, `auc`, `accuracy` (case-insensitive; `log_loss`, `roc_auc`, `acc` too).
    pub fn parse(name: &str) -> Result<Metric, UnknownId> {
        let n = name.trim().to_ascii_lowercase().replace('-', "_");
        Ok(match n.as_str() {
            "rmse" => Metric::Rmse,
            "mae" => Metric::Mae,
            "logloss" | "log_loss" => Metric::Logloss,
            "auc" | "roc_auc" => Metric::Auc,
            "accuracy" | "acc" => Metric::Accuracy,
            _ => {
                return Err(UnknownId {
                    what: "metric",
                    given: name.to_string(),
                    valid: Metric::ALL.iter().map(|m| m.as_str().to_string()).collect(),
                });
            }
        })
    }

    pub fn greater_is_better(self) -> bool {
        matches!(self, Metric::Auc | Metric::Accuracy)
    }

    /// +1 when greater is better, −1 otherwise: `gain = sign · (idea − control)` is positive when better.
    pub fn sign(self) -> f64 {
        if self.greater_is_better() { 1.0 } else { -1.0 }
    }

    /// Whether the metric needs binary labels (0/1) in `y_true`.
    pub fn binary(self) -> bool {
        matches!(self, Metric::Logloss | Metric::Auc)
    }
}

/// Why a metric cannot be computed on the given rows.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricError {
    /// `y_true` holds a value other than 0/1 where the metric needs binary labels: (row index, value).
    NotBinary(usize, f64),
    /// A probability outside [0, 1] for logloss: (row index, value).
    NotProbability(usize, f64),
    /// AUC on rows of one class only: (positives, negatives).
    OneClass(u64, u64),
    /// No rows.
    Empty,
}

/// One model's predictions prepared for repeated weighted evaluation.
#[derive(Debug, Clone)]
pub struct Prepared {
    metric: Metric,
    /// Per-row loss/score for the mean-type metrics (squared error, absolute error, log loss, correct).
    per_row: Vec<f64>,
    /// AUC: row indices sorted by prediction, the label of each in that order, and the end of each run of
    /// tied predictions.
    order: Vec<u32>,
    label: Vec<bool>,
    tie_ends: Vec<u32>,
}

impl Prepared {
    /// Checks the labels/predictions for the metric and precomputes what each evaluation needs.
    pub fn new(metric: Metric, y_true: &[f64], y_pred: &[f64]) -> Result<Prepared, MetricError> {
        if y_true.is_empty() {
            return Err(MetricError::Empty);
        }
        if metric.binary()
            && let Some((i, &v)) = y_true
                .iter()
                .enumerate()
                .find(|(_, v)| **v != 0.0 && **v != 1.0)
        {
            return Err(MetricError::NotBinary(i, v));
        }
        let mut p = Prepared {
            metric,
            per_row: Vec::new(),
            order: Vec::new(),
            label: Vec::new(),
            tie_ends: Vec::new(),
        };
        match metric {
            Metric::Rmse => {
                p.per_row = y_true
                    .iter()
                    .zip(y_pred)
                    .map(|(t, y)| (t - y) * (t - y))
                    .collect()
            }
            Metric::Mae => {
                p.per_row = y_true
                    .iter()
                    .zip(y_pred)
                    .map(|(t, y)| (t - y).abs())
                    .collect()
            }
            Metric::Logloss => {
                if let Some((i, &v)) = y_pred
                    .iter()
                    .enumerate()
                    .find(|(_, v)| !(0.0..=1.0).contains(*v))
                {
                    return Err(MetricError::NotProbability(i, v));
                }
                p.per_row = y_true
                    .iter()
                    .zip(y_pred)
                    .map(|(t, y)| {
                        let q = y.clamp(LOGLOSS_EPS, 1.0 - LOGLOSS_EPS);
                        if *t == 1.0 {
                            -natural_log(q)
                        } else {
                            -natural_log(1.0 - q)
                        }
                    })
                    .collect()
            }
            Metric::Accuracy => {
                p.per_row = y_true
                    .iter()
                    .zip(y_pred)
                    .map(|(t, y)| f64::from(correct(*t, *y)))
                    .collect()
            }
            Metric::Auc => {
                let pos = y_true.iter().filter(|v| **v == 1.0).count() as u64;
                let neg = y_true.len() as u64 - pos;
                if pos == 0 || neg == 0 {
                    return Err(MetricError::OneClass(pos, neg));
                }
                // sort (prediction, row) as one u128 each, the prediction's total order above the row:
                // the order of f64::total_cmp then row, from plain integer comparisons (faster than
                // comparing (f64, u32) pairs, and no index chasing into y_pred)
                let mut keyed: Vec<u128> = y_pred
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (u128::from(total_order_key(v)) << 32) | i as u128)
                    .collect();
                keyed.sort_unstable();
                let order: Vec<u32> = keyed.iter().map(|&k| k as u32).collect();
                p.label = order
                    .iter()
                    .map(|&i| y_true.get(i as usize).is_some_and(|v| *v == 1.0))
                    .collect();
                for (w, pair) in keyed.windows(2).enumerate() {
                    // -0.0 and 0.0 are one prediction (a tie), as `!=` on the floats had it
                    if let [a, b] = pair
                        && prediction_of(*a) != prediction_of(*b)
                    {
                        p.tie_ends.push(w as u32 + 1);
                    }
                }
                p.tie_ends.push(order.len() as u32);
                p.order = order;
            }
        }
        Ok(p)
    }

    /// AUC: the end (exclusive, in sorted order) of each run of tied predictions.
    pub fn tie_ends(&self) -> &[u32] {
        &self.tie_ends
    }

    /// AUC: the label of each row in sorted order (true = positive).
    pub fn sorted_labels(&self) -> &[bool] {
        &self.label
    }

    /// Weighted AUC where `counts[k]` is the weight of the k-th row in sorted order (one byte a row, the
    /// bootstrap's fast path): [`Prepared::auc_with`] without a closure call or a branch per row, the
    /// same sums in the same order, so the same float.
    pub fn auc_sorted_counts(&self, counts: &[u8]) -> Option<f64> {
        let mut start = 0usize;
        auc_of_groups(self.tie_ends.iter().map(|&end| {
            let end = end as usize;
            let (c, l) = (
                counts.get(start..end).unwrap_or_default(),
                self.label.get(start..end).unwrap_or_default(),
            );
            start = end;
            // positives and all, branch-free so that it vectorises: a positive's count masked in
            let (mut wp, mut all) = (0u64, 0u64);
            for (&c, &positive) in c.iter().zip(l) {
                all += u64::from(c);
                wp += u64::from(c & 0u8.wrapping_sub(u8::from(positive)));
            }
            (wp, all - wp)
        }))
    }

    /// AUC's sort order (row indices by increasing prediction); None for the other metrics.
    pub fn sorted_order(&self) -> Option<&[u32]> {
        (self.metric == Metric::Auc).then_some(self.order.as_slice())
    }

    /// Weighted AUC where `weight_at(k)` is the weight of the k-th row in sorted order: one pass, ties
    /// count ½. None when a class has no weight.
    pub fn auc_with(&self, weight_at: impl Fn(usize) -> u32) -> Option<f64> {
        let mut start = 0usize;
        auc_of_groups(self.tie_ends.iter().map(|&end| {
            let end = end as usize;
            let (mut wp, mut wn) = (0u64, 0u64);
            for (k, &lab) in self.label.iter().enumerate().take(end).skip(start) {
                let c = weight_at(k) as u64;
                if lab { wp += c } else { wn += c }
            }
            start = end;
            (wp, wn)
        }))
    }

    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The metric on all rows with weight 1. None only when undefined (cannot happen after `new`).
    pub fn full(&self) -> Option<f64> {
        self.eval(None)
    }

    /// The metric with per-row weights (bootstrap counts; `None` = every row once). None when undefined
    /// for these weights (no weight at all, or AUC on a resample holding one class only).
    pub fn eval(&self, weights: Option<&[u32]>) -> Option<f64> {
        let w = |i: usize| -> u64 { weights.map_or(1, |w| w.get(i).copied().unwrap_or(0) as u64) };
        match self.metric {
            Metric::Auc => {
                self.auc_with(|k| self.order.get(k).map_or(0, |&row| w(row as usize) as u32))
            }
            _ => {
                let (mut sum, mut total) = (0f64, 0u64);
                match weights {
                    None => {
                        sum = self.per_row.iter().sum();
                        total = self.per_row.len() as u64;
                    }
                    Some(ws) => {
                        for (l, &c) in self.per_row.iter().zip(ws) {
                            if c > 0 {
                                sum += l * c as f64;
                                total += c as u64;
                            }
                        }
                    }
                }
                if total == 0 {
                    return None;
                }
                let mean = sum / total as f64;
                Some(if self.metric == Metric::Rmse {
                    mean.sqrt()
                } else {
                    mean
                })
            }
        }
    }
}

/// A u64 whose unsigned order is [`f64::total_cmp`]'s order of `v` (the sign bit set for positives,
/// every bit flipped for negatives, so that larger magnitudes sort lower).
fn total_order_key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The prediction of a sort key of [`Prepared::new`] (the inverse of [`total_order_key`] on its top 64
/// bits).
fn prediction_of(key: u128) -> f64 {
    let bits = (key >> 32) as u64;
    f64::from_bits(if bits >> 63 == 1 {
        bits & !(1 << 63)
    } else {
        !bits
    })
}

/// AUC from the weights of each run of tied predictions in increasing order, (positives, negatives):
/// every pair of a positive above a negative counts 1, a tie ½. The one float accumulation every AUC
/// path shares, so they agree bit for bit. None when a class has no weight.
pub fn auc_of_groups(groups: impl Iterator<Item = (u64, u64)>) -> Option<f64> {
    let (mut cum_neg, mut pos_total) = (0u64, 0u64);
    let mut num = 0f64;
    for (wp, wn) in groups {
        num += wp as f64 * cum_neg as f64 + 0.5 * wp as f64 * wn as f64;
        cum_neg += wn;
        pos_total += wp;
    }
    (pos_total > 0 && cum_neg > 0).then(|| num / (pos_total as f64 * cum_neg as f64))
}

/// Accuracy's notion of a correct prediction: with 0/1 labels a prediction in [0, 1] is a probability
/// (≥ 0.5 means class 1) and a label otherwise; with other labels, the rounded prediction must equal it.
fn correct(t: f64, y: f64) -> bool {
    if t == 0.0 || t == 1.0 {
        let predicted = if (0.0..=1.0).contains(&y) {
            y >= 0.5
        } else {
            y.round() == 1.0
        };
        predicted == (t == 1.0)
    } else {
        y.round() == t
    }
}

/// The metric of one model on all rows (tests and per-fold scores).
pub fn score(metric: Metric, y_true: &[f64], y_pred: &[f64]) -> Result<f64, MetricError> {
    Prepared::new(metric, y_true, y_pred)?
        .full()
        .ok_or(MetricError::Empty)
}

/// The natural logarithm with the same bits on every target. On wasm32 `f64::ln` already is compiler-builtins'
/// copy of the libm crate's `log` (calling the crate there would link a second copy: +1.2 KB gzipped on the
/// page); elsewhere std's `ln` is the platform's libm (glibc), which differs in the last bit on some inputs.
#[cfg(target_arch = "wasm32")]
fn natural_log(x: f64) -> f64 {
    x.ln()
}

#[cfg(not(target_arch = "wasm32"))]
fn natural_log(x: f64) -> f64 {
    libm::log(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// The AUC sort's integer keys order predictions as f64::total_cmp does, and give them back.
    #[test]
    fn sort_keys_order_as_total_cmp() {
        let values = [
            -1e300, -2.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.25, 0.2500001, 1.0, 3e8, 1e300,
        ];
        for a in values {
            let key = (u128::from(total_order_key(a)) << 32) | 7;
            assert_eq!(prediction_of(key).to_bits(), a.to_bits(), "{a}");
            for b in values {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn auc_counts_ties_as_half() {
        // pairs (pos, neg): (0.8,0.1) 1, (0.8,0.8) 0.5, (0.4,0.1) 1, (0.4,0.8) 0 -> 2.5/4
        let a = score(Metric::Auc, &[1.0, 0.0, 1.0, 0.0], &[0.8, 0.1, 0.4, 0.8]).unwrap();
        assert!(close(a, 0.625), "{a}");
        // constant predictions: every pair tied
        assert!(close(
            score(Metric::Auc, &[1.0, 0.0, 1.0], &[0.3, 0.3, 0.3]).unwrap(),
            0.5
        ));
    }

    #[test]
    fn auc_with_weights_equals_auc_of_the_repeated_rows() {
        let y = [1.0, 0.0, 1.0, 0.0, 1.0];
        let p = [0.9, 0.3, 0.3, 0.6, 0.1];
        let w = [2u32, 1, 0, 3, 1];
        let prepared = Prepared::new(Metric::Auc, &y, &p).unwrap();
        let mut ry = Vec::new();
        let mut rp = Vec::new();
        for i in 0..5 {
            for _ in 0..w[i] {
                ry.push(y[i]);
                rp.push(p[i]);
            }
        }
        let expected = score(Metric::Auc, &ry, &rp).unwrap();
        assert!(close(prepared.eval(Some(&w)).unwrap(), expected));
        // a resample without negatives is undefined, not 0 or 1
        assert_eq!(prepared.eval(Some(&[1, 0, 1, 0, 0])), None);
    }

    #[test]
    fn one_class_and_non_binary_labels_are_errors() {
        assert_eq!(
            Prepared::new(Metric::Auc, &[1.0, 1.0], &[0.1, 0.2]).unwrap_err(),
            MetricError::OneClass(2, 0)
        );
        assert_eq!(
            Prepared::new(Metric::Logloss, &[2.0], &[0.1]).unwrap_err(),
            MetricError::NotBinary(0, 2.0)
        );
        assert_eq!(
            Prepared::new(Metric::Logloss, &[1.0], &[1.5]).unwrap_err(),
            MetricError::NotProbability(0, 1.5)
        );
        assert_eq!(
            Prepared::new(Metric::Rmse, &[], &[]).unwrap_err(),
            MetricError::Empty
        );
    }

    #[test]
    fn mean_metrics() {
        assert!(close(
            score(Metric::Rmse, &[1.0, 2.0], &[2.0, 4.0]).unwrap(),
            (2.5f64).sqrt()
        ));
        assert!(close(
            score(Metric::Mae, &[1.0, 2.0], &[2.0, 4.0]).unwrap(),
            1.5
        ));
        assert!(close(
            score(
                Metric::Accuracy,
                &[1.0, 0.0, 1.0, 0.0],
                &[0.7, 0.5, 0.2, 0.0]
            )
            .unwrap(),
            0.5
        ));
        assert!(close(
            score(Metric::Accuracy, &[2.0, 3.0], &[2.0, 2.4]).unwrap(),
            0.5
        ));
        let ll = score(Metric::Logloss, &[1.0, 0.0], &[0.8, 0.4]).unwrap();
        assert!(close(ll, -(0.8f64.ln() + 0.6f64.ln()) / 2.0));
        // a certain, wrong prediction is clipped rather than infinite
        assert!(score(Metric::Logloss, &[1.0], &[0.0]).unwrap().is_finite());
    }

    #[test]
    fn names_and_directions() {
        assert_eq!(Metric::parse("ROC_AUC").unwrap(), Metric::Auc);
        assert_eq!(Metric::parse("log-loss").unwrap(), Metric::Logloss);
        let e = Metric::parse("f1").unwrap_err().to_string();
        assert!(
            e.contains("unknown metric `f1`") && e.contains("rmse, mae, logloss, auc, accuracy"),
            "{e}"
        );
        assert!(Metric::Auc.greater_is_better() && !Metric::Rmse.greater_is_better());
    }
}

//! Session caps (spec §8, KG §1, §3.4): the `-t` of `kaggle kernels push`, and how many resumed sessions a
//! run needs against the session limit.

use serde::Serialize;

use crate::finding::Finding;
use crate::number::shortest;
use crate::quota::{push_rule, round2};
use crate::report::{Report, stale_findings_for};
use crate::rulebook::{Thresholds, rulebook};

pub const CAP_SCHEMA: &str = "kgadvise.cap/1";

/// Quota hours of a full K-fold run on `gpus` GPUs: ceil(K/gpus) rounds of c, plus the session overhead.
/// (kgkit's c·K/2 ignores that an odd K needs a whole extra round, and the start-up.)
pub fn full_cv_hours(fold_hours: f64, folds: u32, gpus: u32, thresholds: &Thresholds) -> f64 {
    let gpus = gpus.max(1);
    let rounds = folds.div_ceil(gpus);
    f64::from(rounds) * fold_hours + thresholds.get("threshold.plan.full-cv-overhead-hours")
}

/// The cap of a full-CV run: full-CV factor x [`full_cv_hours`].
pub fn full_cv_cap_hours(fold_hours: f64, folds: u32, gpus: u32, thresholds: &Thresholds) -> f64 {
    thresholds.get("threshold.cap.full-cv-factor")
        * full_cv_hours(fold_hours, folds, gpus, thresholds)
}

/// What the cap is for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CapInput {
    /// A kernel of your own measured at this many hours.
    Measured { hours: f64 },
    /// A full CV through a runner: cost per fold on one GPU, folds.
    FullCv { fold_hours: f64, folds: u32 },
}

#[derive(Debug, Clone, Serialize)]
pub struct CapReport {
    pub schema: &'static str,
    /// `own-kernel` or `full-cv`.
    pub kind: &'static str,
    pub accelerator: &'static str,
    pub estimate_hours: f64,
    pub factor: f64,
    pub cap_hours: f64,
    /// The `-t` of one push (whole seconds, rounded up; at most the session limit).
    pub timeout_seconds: u64,
    /// The whole cap in seconds (equal to timeout_seconds when one session is enough).
    pub total_timeout_seconds: u64,
    pub session_limit_hours: f64,
    pub sessions: u32,
    pub gpus: u32,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for CapReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

fn seconds(hours: f64) -> u64 {
    let s = (hours * 3600.0 - 1e-6).ceil();
    if s.is_finite() && s > 0.0 {
        s as u64
    } else {
        0
    }
}

/// `kgadvise cap`. Errors (a message saying what was expected) for non-positive hours, zero folds/GPUs or a
/// non-positive factor.
pub fn cap(
    input: CapInput,
    gpus: u32,
    tpu: bool,
    factor: Option<f64>,
    today: chrono::NaiveDate,
    thresholds: &Thresholds,
) -> Result<CapReport, String> {
    if gpus == 0 {
        return Err("--gpus: expected at least 1".to_string());
    }
    let mut rules = vec!["KQ020".to_string()];
    let mut findings = Vec::new();
    let (kind, estimate, factor, how) = match input {
        CapInput::Measured { hours } => {
            if !(hours.is_finite() && hours > 0.0) {
                return Err(format!(
                    "--measured {}: expected a positive number of hours",
                    shortest(hours)
                ));
            }
            let f = factor.unwrap_or_else(|| thresholds.get("threshold.cap.factor"));
            if !(f.is_finite() && f > 0.0) {
                return Err(format!(
                    "--factor {}: expected a positive multiple, e.g. 1.4",
                    shortest(f)
                ));
            }
            push_rule(&mut rules, "threshold.cap.factor");
            let (lo, hi) = (
                thresholds.get("threshold.cap.factor-min"),
                thresholds.get("threshold.cap.factor-max"),
            );
            if f < lo - 1e-9 || f > hi + 1e-9 {
                push_rule(&mut rules, "KQ022");
                findings.push(Finding::from_rule(
                    "KQ022",
                    format!(
                        "factor {} is outside {}-{}x the measured {} h",
                        shortest(f),
                        shortest(lo),
                        shortest(hi),
                        shortest(hours)
                    ),
                ));
            }
            (
                "own-kernel",
                hours,
                f,
                format!("{} x measured {} h", shortest(f), shortest(hours)),
            )
        }
        CapInput::FullCv { fold_hours, folds } => {
            if !(fold_hours.is_finite() && fold_hours > 0.0) {
                return Err(format!(
                    "--fold-hours {}: expected a positive number of hours per fold",
                    shortest(fold_hours)
                ));
            }
            if folds == 0 {
                return Err("--folds: expected at least 1 fold".to_string());
            }
            let f = factor.unwrap_or_else(|| thresholds.get("threshold.cap.full-cv-factor"));
            if !(f.is_finite() && f > 0.0) {
                return Err(format!(
                    "--factor {}: expected a positive multiple, e.g. 1.3",
                    shortest(f)
                ));
            }
            push_rule(&mut rules, "threshold.cap.full-cv-factor");
            push_rule(&mut rules, "threshold.plan.full-cv-overhead-hours");
            let est = full_cv_hours(fold_hours, folds, gpus, thresholds);
            let rounds = folds.div_ceil(gpus);
            (
                "full-cv",
                est,
                f,
                format!(
                    "{} x (ceil({folds}/{gpus}) = {rounds} rounds x {} h + {} h overhead = {} h)",
                    shortest(f),
                    shortest(fold_hours),
                    shortest(thresholds.get("threshold.plan.full-cv-overhead-hours")),
                    shortest(round2(est))
                ),
            )
        }
    };
    let cap_hours = factor * estimate;
    let limit_id = if tpu {
        "fact.quota.tpu-session-hours"
    } else {
        "fact.quota.gpu-session-hours"
    };
    push_rule(&mut rules, limit_id);
    let limit = rulebook().fact_value(limit_id);
    let sessions = if limit > 0.0 {
        ((cap_hours / limit) - 1e-9).ceil().max(1.0) as u32
    } else {
        1
    };
    let per_push = cap_hours.min(limit);
    let timeout_seconds = seconds(per_push);
    findings.insert(
        0,
        Finding::from_rule(
            "KQ020",
            format!(
                "cap = {how} = {} h: kaggle kernels push -t {timeout_seconds}",
                shortest(round2(cap_hours))
            ),
        ),
    );
    if sessions > 1 {
        push_rule(&mut rules, "KQ021");
        let resume = if kind == "full-cv" {
            "push with -t at the session limit, then rebuild with --resume-from <user>/<kernel> (finished folds skipped, timed-out folds continue)"
        } else {
            "checkpoint inside the run and push again from the checkpoint (kernel_sources)"
        };
        findings.push(Finding::from_rule(
            "KQ021",
            format!(
                "cap {} h > {} session limit {} h: {sessions} sessions of up to -t {timeout_seconds}; {resume}",
                shortest(round2(cap_hours)),
                if tpu { "TPU" } else { "GPU/CPU" },
                shortest(limit)
            ),
        ));
    }
    findings.extend(stale_findings_for(&rules, today, thresholds));
    Ok(CapReport {
        schema: CAP_SCHEMA,
        kind,
        accelerator: if tpu { "TPU" } else { "GPU" },
        estimate_hours: round2(estimate),
        factor,
        cap_hours: round2(cap_hours),
        timeout_seconds,
        total_timeout_seconds: seconds(cap_hours),
        session_limit_hours: limit,
        sessions,
        gpus,
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> chrono::NaiveDate {
        chrono::NaiveDate::from_ymd_opt(2026, 11, 30).unwrap_or_default()
    }

    fn t() -> Thresholds {
        Thresholds::defaults()
    }

    #[test]
    fn cases() {
        // (input, gpus, tpu, factor, cap_hours, timeout_seconds, sessions)
        type Case = (CapInput, u32, bool, Option<f64>, f64, u64, u32);
        let cases: &[Case] = &[
            (
                CapInput::Measured { hours: 3.5 },
                2,
                false,
                None,
                4.9,
                17640,
                1,
            ),
            (
                CapInput::Measured { hours: 1.0 },
                2,
                false,
                Some(1.3),
                1.3,
                4680,
                1,
            ),
            (
                CapInput::Measured { hours: 10.0 },
                2,
                false,
                None,
                14.0,
                43200,
                2,
            ),
            (
                CapInput::Measured { hours: 7.0 },
                2,
                true,
                None,
                9.8,
                32400,
                2,
            ),
            // 5 folds of 1.5 h on 2 GPUs: 3 rounds -> 1.3 x (4.5 + 0.25) = 6.175 h
            (
                CapInput::FullCv {
                    fold_hours: 1.5,
                    folds: 5,
                },
                2,
                false,
                None,
                6.18,
                22230,
                1,
            ),
            // 4 folds: 2 rounds -> 1.3 x 3.25 = 4.225 h
            (
                CapInput::FullCv {
                    fold_hours: 1.5,
                    folds: 4,
                },
                2,
                false,
                None,
                4.23,
                15210,
                1,
            ),
            // one GPU: 5 rounds -> 1.3 x 7.75
            (
                CapInput::FullCv {
                    fold_hours: 1.5,
                    folds: 5,
                },
                1,
                false,
                None,
                10.08,
                36270,
                1,
            ),
            // 7 folds of 4 h: 4 rounds -> 1.3 x 16.25 = 21.125 h, 2 sessions
            (
                CapInput::FullCv {
                    fold_hours: 4.0,
                    folds: 7,
                },
                2,
                false,
                None,
                21.13,
                43200,
                2,
            ),
        ];
        for (input, gpus, tpu, factor, cap_h, secs, sessions) in cases {
            let r = cap(*input, *gpus, *tpu, *factor, day(), &t()).unwrap();
            assert!(
                (r.cap_hours - cap_h).abs() < 0.006,
                "{input:?}: {} != {cap_h}",
                r.cap_hours
            );
            assert_eq!(r.timeout_seconds, *secs, "{input:?}");
            assert_eq!(r.sessions, *sessions, "{input:?}");
            assert_eq!(
                r.findings.iter().any(|f| f.rule == "KQ021"),
                *sessions > 1,
                "{input:?}"
            );
        }
    }

    #[test]
    fn factor_outside_range_warns() {
        let r = cap(
            CapInput::Measured { hours: 2.0 },
            2,
            false,
            Some(1.1),
            day(),
            &t(),
        )
        .unwrap();
        assert!(r.findings.iter().any(|f| f.rule == "KQ022"));
        let r = cap(
            CapInput::Measured { hours: 2.0 },
            2,
            false,
            Some(1.5),
            day(),
            &t(),
        )
        .unwrap();
        assert!(!r.findings.iter().any(|f| f.rule == "KQ022"));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(
            cap(
                CapInput::Measured { hours: 0.0 },
                2,
                false,
                None,
                day(),
                &t()
            )
            .is_err()
        );
        assert!(
            cap(
                CapInput::Measured { hours: f64::NAN },
                2,
                false,
                None,
                day(),
                &t()
            )
            .is_err()
        );
        assert!(
            cap(
                CapInput::FullCv {
                    fold_hours: 1.0,
                    folds: 0
                },
                2,
                false,
                None,
                day(),
                &t()
            )
            .is_err()
        );
        assert!(
            cap(
                CapInput::Measured { hours: 1.0 },
                0,
                false,
                None,
                day(),
                &t()
            )
            .is_err()
        );
        assert!(
            cap(
                CapInput::Measured { hours: 1.0 },
                2,
                false,
                Some(-1.0),
                day(),
                &t()
            )
            .is_err()
        );
    }
}

//! Session caps (spec §8, KG §1, §3.4): the `-t` of `kaggle kernels push`, and how many resumed sessions a
//! run needs against the session limit.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::quota::round2;
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{FactId, entry, fact, rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{Thresholds, rulebook};
use crate::text::number::{fixed, shortest};

pub const CAP_SCHEMA: &str = "kgadvise.cap/1";

/// Quota hours of a full K-fold run on `gpus` GPUs: ceil(K/gpus) rounds of c, plus the session overhead.
/// (kgkit's c·K/2 ignores that an odd K needs a whole extra round, and the start-up.)
pub fn full_cv_hours(fold_hours: f64, folds: u32, gpus: u32, thresholds: &Thresholds) -> f64 {
    let gpus = gpus.max(1);
    let rounds = folds.div_ceil(gpus);
    f64::from(rounds) * fold_hours + thresholds.get(threshold::PLAN_FULL_CV_OVERHEAD_HOURS)
}

/// The cap of a full-CV run: full-CV factor x [`full_cv_hours`].
pub fn full_cv_cap_hours(fold_hours: f64, folds: u32, gpus: u32, thresholds: &Thresholds) -> f64 {
    thresholds.get(threshold::CAP_FULL_CV_FACTOR)
        * full_cv_hours(fold_hours, folds, gpus, thresholds)
}

/// `kgadvise cap`: the `-t` of a push and the sessions it needs. Give `measured`, or `foldHours` and
/// `folds`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "cli", command(group(clap::ArgGroup::new("what").required(true).args(["measured", "fold_hours"]))))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CapRequest {
    /// Measured runtime of a kernel of your own, hours.
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub measured: Option<f64>,
    /// Measured cost of one fold on one GPU, hours (a full CV through a runner); in a TPU session, of
    /// one fold on one TPU chip.
    #[cfg_attr(feature = "cli", arg(long, value_name = "C", requires = "folds", value_parser = crate::text::hours::parse_hours))]
    pub fold_hours: Option<f64>,
    /// Folds of the full CV.
    #[cfg_attr(feature = "cli", arg(long, value_name = "K", requires = "fold_hours"))]
    pub folds: Option<u32>,
    /// GPUs running folds in parallel (default: those of a T4 x2 session); in a TPU session, TPU chips
    /// (default: the v5e-8's 8, one process per chip).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub gpus: Option<u32>,
    /// A TPU session: the TPU session limit instead of the GPU one, a full CV's rounds counted per chip
    /// (the fold hours are then one fold on one chip).
    #[cfg_attr(feature = "cli", arg(long))]
    pub tpu: bool,
    /// Cap factor (default: threshold.cap.factor for a measured kernel, threshold.cap.full-cv-factor for
    /// a full CV; KQ022 says the recommended range).
    #[cfg_attr(feature = "cli", arg(long, value_name = "F"))]
    pub factor: Option<f64>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Folds run in parallel: the GPUs, or the TPU's chips (one process per chip).
    pub gpus: u32,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for CapReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::quota::text::cap(self)
    }
}

/// The validated request and what follows from it: what every cap rule reads.
struct CapRun {
    input: CapInput,
    gpus: u32,
    tpu: bool,
    factor: f64,
    estimate_hours: f64,
    cap_hours: f64,
    limit_hours: f64,
    sessions: u32,
    timeout_seconds: u64,
    /// A kernel of your own whose cap at `factor` passed the session limit while the limit is still
    /// inside the recommended range: the factor first asked for (the cap is then the session).
    trimmed_from: Option<f64>,
}

fn seconds(hours: f64) -> u64 {
    let s = (hours * 3600.0 - 1e-6).ceil();
    if s.is_finite() && s > 0.0 {
        s as u64
    } else {
        0
    }
}

fn positive(field: &str, value: f64, expected: &str) -> Result<f64, RequestError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(RequestError::value(
            field,
            shortest(value),
            format!("expected {expected}"),
        ))
    }
}

impl CapRun {
    fn of(request: &CapRequest, thresholds: &Thresholds) -> Result<CapRun, RequestError> {
        let gpus = request.gpus.unwrap_or_else(|| parallel_folds(request.tpu));
        if gpus == 0 {
            return Err(RequestError::value("gpus", "0", "expected at least 1"));
        }
        let (input, default_factor) = match (request.measured, request.fold_hours, request.folds) {
            (Some(hours), None, None) => (
                CapInput::Measured {
                    hours: positive("measured", hours, "a positive number of hours")?,
                },
                threshold::CAP_FACTOR,
            ),
            (None, Some(fold_hours), Some(folds)) => {
                let fold_hours = positive(
                    "foldHours",
                    fold_hours,
                    "a positive number of hours per fold",
                )?;
                if folds == 0 {
                    return Err(RequestError::value(
                        "folds",
                        "0",
                        "expected at least 1 fold",
                    ));
                }
                (
                    CapInput::FullCv { fold_hours, folds },
                    threshold::CAP_FULL_CV_FACTOR,
                )
            }
            (None, Some(_), None) => {
                return Err(RequestError::new(
                    "folds",
                    "expected the folds of the full CV",
                ));
            }
            (None, None, Some(_)) => {
                return Err(RequestError::new(
                    "foldHours",
                    "expected the hours of one fold on one GPU",
                ));
            }
            (Some(_), _, _) => {
                return Err(RequestError::new(
                    "measured",
                    "expected either the measured hours or the hours per fold with the folds, not both",
                ));
            }
            (None, None, None) => {
                return Err(RequestError::new(
                    "",
                    "expected the measured hours of a kernel, or the hours per fold and the folds of a full CV",
                ));
            }
        };
        let factor = match request.factor {
            Some(f) => positive("factor", f, "a positive multiple, e.g. 1.4")?,
            None => thresholds.get(default_factor),
        };
        let estimate_hours = match input {
            CapInput::Measured { hours } => hours,
            CapInput::FullCv { fold_hours, folds } => {
                full_cv_hours(fold_hours, folds, gpus, thresholds)
            }
        };
        let limit_hours = rulebook().fact_value(session_limit(request.tpu));
        // KG §1: cap at 1.3-1.5x. A kernel of your own whose range reaches the session limit runs in one
        // session capped at the limit; splitting it would cost a restart for nothing.
        let lowest = thresholds.get(threshold::CAP_FACTOR_MIN) * estimate_hours;
        let trim = matches!(input, CapInput::Measured { .. })
            && factor * estimate_hours > limit_hours + 1e-9
            && lowest <= limit_hours + 1e-9;
        let (trimmed_from, factor) = if trim {
            (Some(factor), limit_hours / estimate_hours)
        } else {
            (None, factor)
        };
        let cap_hours = factor * estimate_hours;
        let sessions = if limit_hours > 0.0 {
            ((cap_hours / limit_hours) - 1e-9).ceil().max(1.0) as u32
        } else {
            1
        };
        Ok(CapRun {
            input,
            gpus,
            tpu: request.tpu,
            factor,
            estimate_hours,
            cap_hours,
            limit_hours,
            sessions,
            timeout_seconds: seconds(cap_hours.min(limit_hours)),
            trimmed_from,
        })
    }
}

/// Folds a session runs in parallel by default: one per GPU of the T4 x2, one per chip of a TPU (a TPU
/// run is one process per chip, KG §6).
fn parallel_folds(tpu: bool) -> u32 {
    if tpu {
        let chips = rulebook().fact_value(fact::QUOTA_TPU_CHIPS);
        return if chips >= 1.0 { chips as u32 } else { 1 };
    }
    rulebook()
        .platforms
        .iter()
        .find(|p| p.id == entry::PLATFORM_T4X2.as_str())
        .map_or(1, |p| p.gpus)
}

fn session_limit(tpu: bool) -> FactId {
    if tpu {
        fact::QUOTA_TPU_SESSION_HOURS
    } else {
        fact::QUOTA_GPU_SESSION_HOURS
    }
}

/// A cap factor as the answers print it: at most three decimals (a factor trimmed to the session
/// limit is the limit over the estimate, `1.3953488372093024`).
pub(crate) fn factor_text(factor: f64) -> String {
    shortest((factor * 1000.0).round() / 1000.0)
}

/// KQ020: the cap and how it was reached.
fn cap_line(run: &CapRun, thresholds: &Thresholds, out: &mut Findings) {
    let how = match run.input {
        CapInput::Measured { hours } => {
            out.uses(threshold::CAP_FACTOR);
            format!(
                "{} x measured {} h",
                factor_text(run.factor),
                shortest(hours)
            )
        }
        CapInput::FullCv { fold_hours, folds } => {
            out.uses(threshold::CAP_FULL_CV_FACTOR);
            out.uses(threshold::PLAN_FULL_CV_OVERHEAD_HOURS);
            let (gpus, rounds) = (run.gpus, folds.div_ceil(run.gpus));
            if run.tpu {
                out.uses(fact::QUOTA_TPU_CHIPS);
            }
            let per = if run.tpu {
                " (one process per chip)"
            } else {
                ""
            };
            format!(
                "{} x (ceil({folds}/{gpus}){per} = {rounds} rounds x {} h + {} h overhead = {} h)",
                factor_text(run.factor),
                shortest(fold_hours),
                shortest(thresholds.get(threshold::PLAN_FULL_CV_OVERHEAD_HOURS)),
                shortest(round2(run.estimate_hours))
            )
        }
    };
    out.uses(session_limit(run.tpu));
    out.add(
        rule::KQ020,
        format!(
            "cap = {how} = {} h: kaggle kernels push -t {}",
            shortest(round2(run.cap_hours)),
            run.timeout_seconds
        ),
    );
}

/// KQ022: a factor for a measured kernel outside the recommended range.
fn factor_outside_range(run: &CapRun, thresholds: &Thresholds, out: &mut Findings) {
    let CapInput::Measured { hours } = run.input else {
        return;
    };
    let (lo, hi) = (
        thresholds.get(threshold::CAP_FACTOR_MIN),
        thresholds.get(threshold::CAP_FACTOR_MAX),
    );
    if run.factor < lo - 1e-9 || run.factor > hi + 1e-9 {
        out.add(
            rule::KQ022,
            format!(
                "factor {} is outside {}-{}x the measured {} h",
                shortest(run.factor),
                shortest(lo),
                shortest(hi),
                shortest(hours)
            ),
        );
    }
}

/// The session limit in words: `GPU/CPU session limit 12 h`.
fn limit_words(run: &CapRun) -> String {
    format!(
        "{} session limit {} h",
        if run.tpu { "TPU" } else { "GPU/CPU" },
        shortest(run.limit_hours)
    )
}

/// KQ021: a full CV through a runner beyond one session, and how to resume.
fn more_than_one_session(run: &CapRun, out: &mut Findings) {
    if run.sessions <= 1 || !matches!(run.input, CapInput::FullCv { .. }) {
        return;
    }
    out.add(
        rule::KQ021,
        format!(
            "cap {} h > {}: {} sessions of up to -t {}",
            shortest(round2(run.cap_hours)),
            limit_words(run),
            run.sessions,
            run.timeout_seconds
        ),
    );
}

/// KQ023: a kernel of your own that fits one session capped at the limit, inside 1.3-1.5x.
fn one_session_at_the_limit(run: &CapRun, thresholds: &Thresholds, out: &mut Findings) {
    let (Some(asked), CapInput::Measured { hours }) = (run.trimmed_from, run.input) else {
        return;
    };
    out.uses(threshold::CAP_FACTOR_MIN);
    out.add(
        rule::KQ023,
        format!(
            "{} x measured {} h = {} h passes the {}; the limit is {}x the measured hours, inside {}-{}x: one session, -t {}",
            shortest(asked),
            shortest(hours),
            shortest(round2(asked * hours)),
            limit_words(run),
            fixed(run.factor, 3),
            shortest(thresholds.get(threshold::CAP_FACTOR_MIN)),
            shortest(thresholds.get(threshold::CAP_FACTOR_MAX)),
            run.timeout_seconds
        ),
    );
}

/// KQ024: a kernel of your own that does not fit one session even at the low end of the range.
fn own_kernel_past_the_session(run: &CapRun, thresholds: &Thresholds, out: &mut Findings) {
    let CapInput::Measured { hours } = run.input else {
        return;
    };
    if run.sessions <= 1 {
        return;
    }
    let lo = thresholds.get(threshold::CAP_FACTOR_MIN);
    out.uses(threshold::CAP_FACTOR_MIN);
    out.uses(session_limit(run.tpu));
    out.add(
        rule::KQ024,
        format!(
            "measured {} h: even {}x ({} h) passes the {}; the run must fit in {} h of work or be split where it saves its state",
            shortest(hours),
            shortest(lo),
            shortest(round2(lo * hours)),
            limit_words(run),
            shortest(round2(run.limit_hours / lo))
        ),
    );
}

/// `kgadvise cap`: the cap of a push (`-t`) and the sessions it needs. Errors name the request field
/// and what was expected.
pub fn cap(request: &CapRequest, clock: DateTime<Utc>) -> Result<CapReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let run = CapRun::of(request, &thresholds)?;
    let mut out = Findings::new();
    cap_line(&run, &thresholds, &mut out);
    factor_outside_range(&run, &thresholds, &mut out);
    more_than_one_session(&run, &mut out);
    one_session_at_the_limit(&run, &thresholds, &mut out);
    own_kernel_past_the_session(&run, &thresholds, &mut out);
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(CapReport {
        schema: CAP_SCHEMA,
        kind: match run.input {
            CapInput::Measured { .. } => "own-kernel",
            CapInput::FullCv { .. } => "full-cv",
        },
        accelerator: if run.tpu { "TPU" } else { "GPU" },
        estimate_hours: round2(run.estimate_hours),
        factor: run.factor,
        cap_hours: round2(run.cap_hours),
        timeout_seconds: run.timeout_seconds,
        total_timeout_seconds: seconds(run.cap_hours),
        session_limit_hours: run.limit_hours,
        sessions: run.sessions,
        gpus: run.gpus,
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

    fn measured(hours: f64) -> CapRequest {
        CapRequest {
            measured: Some(hours),
            ..CapRequest::default()
        }
    }

    fn full_cv(fold_hours: f64, folds: u32) -> CapRequest {
        CapRequest {
            fold_hours: Some(fold_hours),
            folds: Some(folds),
            ..CapRequest::default()
        }
    }

    #[test]
    fn cases() {
        // (request, cap_hours, timeout_seconds, sessions)
        let tpu = CapRequest {
            tpu: true,
            ..measured(7.0)
        };
        let one_gpu = CapRequest {
            gpus: Some(1),
            ..full_cv(1.5, 5)
        };
        // a TPU run is one process per chip: 10 folds on the v5e-8's 8 chips take 2 rounds, not 5
        let tpu_cv = CapRequest {
            tpu: true,
            ..full_cv(1.5, 10)
        };
        let cases: &[(CapRequest, f64, u64, u32)] = &[
            (measured(3.5), 4.9, 17640, 1),
            (
                CapRequest {
                    factor: Some(1.3),
                    ..measured(1.0)
                },
                1.3,
                4680,
                1,
            ),
            (measured(10.0), 14.0, 43200, 2),
            // 1.4 x 8.6 = 12.04 h > 12 h, but 12 h is 1.395x: one session at the limit
            (measured(8.6), 12.0, 43200, 1),
            (tpu, 9.8, 32400, 2),
            // 5 folds of 1.5 h on 2 GPUs: 3 rounds -> 1.3 x (4.5 + 0.25) = 6.175 h
            (full_cv(1.5, 5), 6.18, 22230, 1),
            // 4 folds: 2 rounds -> 1.3 x 3.25 = 4.225 h
            (full_cv(1.5, 4), 4.23, 15210, 1),
            // one GPU: 5 rounds -> 1.3 x 7.75
            (one_gpu, 10.08, 36270, 1),
            // 2 rounds -> 1.3 x (3 + 0.25) = 4.225 h
            (tpu_cv, 4.23, 15210, 1),
            // 7 folds of 4 h: 4 rounds -> 1.3 x 16.25 = 21.125 h, 2 sessions
            (full_cv(4.0, 7), 21.13, 43200, 2),
        ];
        for (request, cap_h, secs, sessions) in cases {
            let r = cap(request, clock()).unwrap();
            assert!(
                (r.cap_hours - cap_h).abs() < 0.006,
                "{request:?}: {} != {cap_h}",
                r.cap_hours
            );
            assert_eq!(r.timeout_seconds, *secs, "{request:?}");
            assert_eq!(r.sessions, *sessions, "{request:?}");
            let split = if r.kind == "full-cv" {
                "KQ021"
            } else {
                "KQ024"
            };
            assert_eq!(
                r.findings.iter().any(|f| f.rule == split),
                *sessions > 1,
                "{request:?}"
            );
        }
    }

    #[test]
    fn factor_outside_range_warns() {
        let with = |f| CapRequest {
            factor: Some(f),
            ..measured(2.0)
        };
        let r = cap(&with(1.1), clock()).unwrap();
        assert!(r.findings.iter().any(|f| f.rule == "KQ022"));
        let r = cap(&with(1.5), clock()).unwrap();
        assert!(!r.findings.iter().any(|f| f.rule == "KQ022"));
    }

    #[test]
    fn bad_input_names_the_field() {
        let field = |r: CapRequest| cap(&r, clock()).unwrap_err().field;
        assert_eq!(field(measured(0.0)), "measured");
        assert_eq!(field(measured(f64::NAN)), "measured");
        assert_eq!(field(full_cv(1.0, 0)), "folds");
        assert_eq!(
            field(CapRequest {
                gpus: Some(0),
                ..measured(1.0)
            }),
            "gpus"
        );
        assert_eq!(
            field(CapRequest {
                factor: Some(-1.0),
                ..measured(1.0)
            }),
            "factor"
        );
        assert_eq!(
            field(CapRequest {
                fold_hours: Some(1.0),
                ..CapRequest::default()
            }),
            "folds"
        );
        assert_eq!(field(CapRequest::default()), "");
        assert_eq!(
            field(CapRequest {
                now: Some("soon".into()),
                ..measured(1.0)
            }),
            "now"
        );
    }

    #[test]
    fn json_requests_use_the_flags_in_camel_case() {
        let r: CapRequest = crate::request::from_json(
            r#"{"foldHours": 1.5, "folds": 5, "set": ["cap.full-cv-factor=1.5"]}"#,
        )
        .unwrap();
        assert_eq!(
            r,
            CapRequest {
                set: Overrides(vec!["cap.full-cv-factor=1.5".into()]),
                ..full_cv(1.5, 5)
            }
        );
        let e = crate::request::from_json::<CapRequest>(r#"{"fold_hours": 1.5}"#).unwrap_err();
        assert_eq!(e.field, "fold_hours");
    }
}

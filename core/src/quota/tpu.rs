//! TPU or GPU? (spec §9, KG §6): both finish times, the choice and why.

use crate::rulebook::ids::{EntryId, fact, rule};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::quota::{assumed_next_reset, push_rule, round2};
use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::rulebook::{Thresholds, rulebook};
use crate::text::number::{fixed, shortest};
use crate::text::when::rfc3339;

pub const TPU_SCHEMA: &str = "kgadvise.tpu/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TpuChoice {
    Gpu,
    Tpu,
}

impl TpuChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            TpuChoice::Gpu => "gpu",
            TpuChoice::Tpu => "tpu",
        }
    }
}

/// What the question is asked with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TpuInput {
    /// Wall time of the job on a T4 session.
    pub t4_hours: f64,
    /// GPU hours plannable now (unknown: assumed sufficient, said so).
    pub gpu_plannable: Option<f64>,
    /// TPU hours plannable now (unknown: the weekly TPU quota).
    pub tpu_plannable: Option<f64>,
    /// TPU queue wait (default: the fact, 13 h).
    pub queue_hours: Option<f64>,
    /// The next weekly reset (default: the facts' Saturday 00:00 UTC).
    pub next_reset: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TpuReport {
    pub schema: &'static str,
    pub now: String,
    pub t4_hours: f64,
    pub gpu_finish: String,
    pub tpu_finish: String,
    pub choice: TpuChoice,
    pub reason: String,
    /// GPU wall hours from now to the finish.
    pub gpu_hours_to_finish: f64,
    pub tpu_hours_to_finish: f64,
    /// Whether the GPU part waits for the weekly reset.
    pub gpu_waits_for_reset: bool,
    pub gpu_plannable: Option<f64>,
    pub gpu_sessions: u32,
    /// TPU hours the run is charged (work / speed-up + start-up per session).
    pub tpu_hours_needed: f64,
    pub tpu_plannable: f64,
    pub tpu_sessions: u32,
    pub queue_hours: f64,
    pub next_reset: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for TpuReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

fn after(t: DateTime<Utc>, hours: f64) -> DateTime<Utc> {
    t + Duration::milliseconds((hours * 3_600_000.0).round() as i64)
}

fn sessions(hours: f64, limit: f64) -> u32 {
    if limit > 0.0 {
        ((hours / limit) - 1e-9).ceil().max(1.0) as u32
    } else {
        1
    }
}

/// `kgadvise tpu`. Errors name the bad value and what was expected.
pub fn tpu(
    input: TpuInput,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<TpuReport, String> {
    let book = rulebook();
    let h = input.t4_hours;
    if !(h.is_finite() && h > 0.0) {
        return Err(format!(
            "--t4-hours {h}: expected a positive number of hours",
            h = shortest(h)
        ));
    }
    for (name, v) in [
        ("--gpu-plannable", input.gpu_plannable),
        ("--tpu-remaining", input.tpu_plannable),
        ("--queue-hours", input.queue_hours),
    ] {
        if let Some(v) = v
            && !(v.is_finite() && v >= 0.0)
        {
            return Err(format!(
                "{name} {v}: expected a non-negative number of hours",
                v = shortest(v)
            ));
        }
    }
    let queue = input
        .queue_hours
        .unwrap_or_else(|| book.fact_value(fact::QUOTA_TPU_QUEUE_HOURS));
    let startup = book.fact_value(fact::QUOTA_TPU_STARTUP_MINUTES) / 60.0;
    let speed = book.fact_value(fact::QUOTA_TPU_SPEED_T4);
    let gpu_limit = book.fact_value(fact::QUOTA_GPU_SESSION_HOURS);
    let tpu_limit = book.fact_value(fact::QUOTA_TPU_SESSION_HOURS);
    let gpu_weekly = book.fact_value(fact::QUOTA_GPU_WEEKLY_HOURS);
    let tpu_weekly = book.fact_value(fact::QUOTA_TPU_WEEKLY_HOURS);
    let next_reset = match input.next_reset {
        Some(r) if r > now => r,
        _ => assumed_next_reset(now),
    };
    let used: [EntryId; 6] = [
        rule::KQ030.into(),
        fact::QUOTA_TPU_QUEUE_HOURS.into(),
        fact::QUOTA_TPU_STARTUP_MINUTES.into(),
        fact::QUOTA_TPU_SPEED_T4.into(),
        fact::QUOTA_GPU_SESSION_HOURS.into(),
        fact::QUOTA_TPU_SESSION_HOURS.into(),
    ];
    let mut rules: Vec<String> = used.iter().map(|s| s.to_string()).collect();
    let mut findings = Vec::new();

    // GPU: now + T4 time when the hours suffice (chained 12 h sessions, resumed), else the part beyond the
    // plannable hours waits for the reset (and for later resets, a week's hours at a time).
    let gpu_sessions = sessions(h, gpu_limit);
    let (gpu_finish, gpu_waits) = match input.gpu_plannable {
        Some(p) if p + 1e-9 < h => {
            let mut rest = h - p;
            let mut start = after(now, p).max(next_reset);
            while rest > gpu_weekly && gpu_weekly > 0.0 {
                rest -= gpu_weekly;
                start = (after(start, gpu_weekly)).max(start + Duration::days(7));
            }
            (after(start, rest), true)
        }
        _ => (after(now, h), false),
    };

    // TPU: every session is a push that queues again; each pays the start-up.
    let tpu_work = h / speed;
    let tpu_sessions = sessions(tpu_work, tpu_limit);
    let tpu_needed = tpu_work + f64::from(tpu_sessions) * startup;
    let tpu_plannable = input.tpu_plannable.unwrap_or(tpu_weekly);
    let mut tpu_finish = after(now, f64::from(tpu_sessions) * (queue + startup) + tpu_work);
    let tpu_short = tpu_needed > tpu_plannable + 1e-9;
    if tpu_short {
        // What the quota lacks now runs after the reset, queued again.
        let rest = tpu_needed - tpu_plannable;
        tpu_finish = tpu_finish.max(after(next_reset, queue + startup + rest));
        push_rule(&mut rules, rule::KQ032);
        push_rule(&mut rules, fact::QUOTA_TPU_WEEKLY_HOURS);
        findings.push(Finding::from_rule(
            rule::KQ032,
            format!(
                "the run needs {} TPU-hours ({h} T4-hours / {speed} + {tpu_sessions} x {} h start-up), {} plannable before the reset {}",
                fixed(tpu_needed, 2),
                fixed(startup, 2),
                fixed(tpu_plannable, 2),
                rfc3339(next_reset),
                h = shortest(h),
                speed = shortest(speed)
            ),
        ));
    }
    if tpu_sessions > 1 {
        push_rule(&mut rules, rule::KQ031);
        findings.push(Finding::from_rule(
            rule::KQ031,
            format!(
                "{} h on the TPU > the {tpu_limit} h TPU session limit: {tpu_sessions} sessions, each queued ({queue} h) again",
                fixed(tpu_work, 2),
                tpu_limit = shortest(tpu_limit),
                queue = shortest(queue)
            ),
        ));
    }
    let gpu_hours_to_finish = (gpu_finish - now).num_milliseconds() as f64 / 3_600_000.0;
    let tpu_hours_to_finish = (tpu_finish - now).num_milliseconds() as f64 / 3_600_000.0;
    let gpu_gone = input.gpu_plannable.is_some_and(|p| p <= 0.0);
    let choice = if tpu_finish < gpu_finish {
        TpuChoice::Tpu
    } else {
        TpuChoice::Gpu
    };
    let gpu_text = match (input.gpu_plannable, gpu_waits) {
        (None, _) => format!(
            "GPU finish {} ({h} h on T4 x2; GPU hours assumed sufficient)",
            rfc3339(gpu_finish),
            h = shortest(h)
        ),
        (Some(p), false) => format!(
            "GPU finish {} ({h} h on T4 x2 within {p} plannable h)",
            rfc3339(gpu_finish),
            h = shortest(h),
            p = shortest(p)
        ),
        (Some(p), true) => format!(
            "GPU finish {} ({p} plannable h now, the other {} h wait for the reset {})",
            rfc3339(gpu_finish),
            fixed(h - p, 1),
            rfc3339(next_reset),
            p = shortest(p)
        ),
    };
    let gpu_text = if gpu_sessions > 1 {
        format!(
            "{gpu_text}; {gpu_sessions} chained {gpu_limit} h sessions, resumed (finished folds skipped)",
            gpu_limit = shortest(gpu_limit)
        )
    } else {
        gpu_text
    };
    let tpu_text = format!(
        "TPU finish {} ({tpu_sessions} x ({queue} h queue + {} h start-up) + {h} / {speed} = {} h)",
        rfc3339(tpu_finish),
        fixed(startup, 2),
        fixed(tpu_work, 2),
        queue = shortest(queue),
        h = shortest(h),
        speed = shortest(speed)
    );
    let reason = match choice {
        TpuChoice::Tpu if gpu_gone => format!(
            "the GPU quota is gone until {}: the TPU's hours are free and it finishes {} h earlier",
            rfc3339(next_reset),
            fixed(gpu_hours_to_finish - tpu_hours_to_finish, 1)
        ),
        TpuChoice::Tpu => format!(
            "the TPU finishes {} h earlier despite its queue",
            fixed(gpu_hours_to_finish - tpu_hours_to_finish, 1)
        ),
        TpuChoice::Gpu => format!(
            "the GPU finishes {} h earlier: the TPU queue ({queue} h, 10-24 h observed) outweighs its speed",
            fixed(tpu_hours_to_finish - gpu_hours_to_finish, 1),
            queue = shortest(queue)
        ),
    };
    findings.insert(
        0,
        Finding::from_rule(rule::KQ030, format!("{gpu_text}; {tpu_text}")).with_title(format!(
            "Run it on the {}: {reason}",
            choice.as_str().to_ascii_uppercase()
        )),
    );
    if choice == TpuChoice::Tpu {
        push_rule(&mut rules, rule::KQ033);
        findings.push(Finding::from_rule(
            rule::KQ033,
            format!(
                "queue wait {queue} h (observed 10-24 h): a bug found after it costs a whole queue cycle",
                queue = shortest(queue)
            ),
        ));
    }
    findings.extend(stale_findings_for(&rules, now.date_naive(), thresholds));
    Ok(TpuReport {
        schema: TPU_SCHEMA,
        now: rfc3339(now),
        t4_hours: h,
        gpu_finish: rfc3339(gpu_finish),
        tpu_finish: rfc3339(tpu_finish),
        choice,
        reason,
        gpu_hours_to_finish: round2(gpu_hours_to_finish),
        tpu_hours_to_finish: round2(tpu_hours_to_finish),
        gpu_waits_for_reset: gpu_waits,
        gpu_plannable: input.gpu_plannable,
        gpu_sessions,
        tpu_hours_needed: round2(tpu_needed),
        tpu_plannable,
        tpu_sessions,
        queue_hours: queue,
        next_reset: rfc3339(next_reset),
        rules,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::when::{DateRole, parse_time};

    fn at(s: &str) -> DateTime<Utc> {
        parse_time(s, DateRole::Instant).unwrap()
    }

    fn input(h: f64, gpu: Option<f64>) -> TpuInput {
        TpuInput {
            t4_hours: h,
            gpu_plannable: gpu,
            tpu_plannable: None,
            queue_hours: None,
            next_reset: None,
        }
    }

    #[test]
    fn cases() {
        let now = at("2026-12-01T08:00:00Z"); // Tuesday; next reset Saturday 2026-12-05 00:00
        let t = Thresholds::defaults();
        // (t4 hours, gpu plannable, choice, gpu finish, tpu finish)
        let cases: &[(f64, Option<f64>, TpuChoice, &str, &str)] = &[
            // short run, GPU hours left: GPU now + 4 h; TPU 13 + 0.33 + 0.8
            (
                4.0,
                Some(20.0),
                TpuChoice::Gpu,
                "2026-12-01T12:00:00Z",
                "2026-12-01T22:08:00Z",
            ),
            // long run: GPU 30 h vs TPU 13 h 20 min + 6 h
            (
                30.0,
                Some(30.0),
                TpuChoice::Tpu,
                "2026-12-02T14:00:00Z",
                "2026-12-02T03:20:00Z",
            ),
            // GPU gone: waits for the reset on Saturday
            (
                10.0,
                Some(0.0),
                TpuChoice::Tpu,
                "2026-12-05T10:00:00Z",
                "2026-12-01T23:20:00Z",
            ),
            // GPU partly there: 2 h now, 8 h after the reset
            (
                10.0,
                Some(2.0),
                TpuChoice::Tpu,
                "2026-12-05T08:00:00Z",
                "2026-12-01T23:20:00Z",
            ),
            // unknown GPU hours: assumed sufficient
            (
                1.0,
                None,
                TpuChoice::Gpu,
                "2026-12-01T09:00:00Z",
                "2026-12-01T21:32:00Z",
            ),
        ];
        for (h, gpu, choice, gf, tf) in cases {
            let r = tpu(input(*h, *gpu), now, &t).unwrap();
            assert_eq!(r.choice, *choice, "{h} {gpu:?}: {}", r.reason);
            assert_eq!(r.gpu_finish, *gf, "{h} {gpu:?}");
            assert_eq!(r.tpu_finish, *tf, "{h} {gpu:?}");
            assert_eq!(
                r.findings.iter().any(|f| f.rule == "KQ033"),
                *choice == TpuChoice::Tpu
            );
        }
    }

    #[test]
    fn long_tpu_runs_queue_again_and_need_quota() {
        let now = at("2026-12-01T08:00:00Z");
        let t = Thresholds::defaults();
        // 60 T4-hours = 12 h on the TPU: 2 sessions, each queued.
        let r = tpu(input(60.0, Some(0.0)), now, &t).unwrap();
        assert_eq!(r.tpu_sessions, 2);
        assert!(r.findings.iter().any(|f| f.rule == "KQ031"));
        assert!(!r.findings.iter().any(|f| f.rule == "KQ032"));
        let r = tpu(input(30.0, Some(0.0)), now, &t).unwrap();
        assert_eq!(r.tpu_sessions, 1);
        assert!(!r.findings.iter().any(|f| f.rule == "KQ031"));
        // 120 T4-hours = 24 TPU-hours > 20: short of quota.
        let r = tpu(input(120.0, Some(0.0)), now, &t).unwrap();
        assert!(
            r.findings.iter().any(|f| f.rule == "KQ032"),
            "{:?}",
            r.findings
        );
        let mut i = input(20.0, Some(0.0));
        i.tpu_plannable = Some(1.0);
        let r = tpu(i, now, &t).unwrap();
        assert!(r.findings.iter().any(|f| f.rule == "KQ032"));
    }

    #[test]
    fn bad_input() {
        let now = at("2026-12-01T08:00:00Z");
        let t = Thresholds::defaults();
        assert!(tpu(input(0.0, None), now, &t).is_err());
        assert!(tpu(input(-1.0, None), now, &t).is_err());
        assert!(tpu(input(1.0, Some(-2.0)), now, &t).is_err());
    }
}

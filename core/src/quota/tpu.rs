//! TPU or GPU? (spec §9, KG §6): both finish times, the choice and why. The request is [`TpuRequest`],
//! the entry point [`tpu`]; its rules are functions over [`TpuRun`].

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::quota::{QuotaText, assumed_next_reset, round2};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{fact, rule};
use crate::rulebook::report::{Findings, Report};
use crate::rulebook::{Thresholds, rulebook};
use crate::text::number::{fixed, shortest};
use crate::text::when::{DateRole, parse_time, rfc3339};

pub const TPU_SCHEMA: &str = "kgadvise.tpu/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// `kgadvise tpu`: does a job finish earlier on the TPU (queue, start-up, speed-up) or on the GPU (the
/// hours plannable now, the rest after the reset)?
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct TpuRequest {
    /// Wall time of the job on a T4 x2 session, hours. Required.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", required = true, value_parser = crate::text::hours::parse_hours))]
    pub t4_hours: Option<f64>,
    /// GPU hours plannable now (default: from the quota given, else assumed sufficient).
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub gpu_plannable: Option<f64>,
    /// TPU queue wait, hours (default: the facts').
    #[cfg_attr(feature = "cli", arg(long, value_name = "Q", value_parser = crate::text::hours::parse_hours))]
    pub queue_hours: Option<f64>,
    /// TPU hours remaining this week (default: from the quota given, else the facts' weekly TPU hours).
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub tpu_remaining: Option<f64>,
    /// The next reset (RFC 3339, UTC without a zone; default: from the quota given, else the facts'
    /// weekly reset).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "T"))]
    pub refresh_at: Option<String>,
    /// The quota as text, in any form the `quota` advisor reads: the GPU and TPU plannable hours and the
    /// reset, where not given above.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota: Option<String>,
    /// When the `quota` was read (RFC 3339 or a date; a time after `now` says nothing). kgkit's
    /// `fetched_at` wins when the quota has one; without either, the figure's age is unknown: not live.
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota_read_at: Option<String>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

    fn text(&self) -> String {
        crate::quota::text::tpu(self)
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

fn non_negative(field: &str, value: Option<f64>) -> Result<Option<f64>, RequestError> {
    match value {
        Some(v) if !(v.is_finite() && v >= 0.0) => Err(RequestError::value(
            field,
            shortest(v),
            "expected a non-negative number of hours",
        )),
        _ => Ok(value),
    }
}

/// The question as validated, with the quota's figures where none were given.
struct TpuInput {
    t4_hours: f64,
    gpu_plannable: Option<f64>,
    tpu_plannable: Option<f64>,
    queue_hours: Option<f64>,
    next_reset: Option<DateTime<Utc>>,
    /// KQ001 of the `quota` reading, when it is not live.
    quota_not_live: Option<Finding>,
    /// Why the TPU's hours are the facts' weekly ones (no `tpuRemaining`, no quota reading with a TPU
    /// row): KQ035.
    tpu_assumed_because: Option<&'static str>,
}

impl TpuInput {
    fn of(
        request: &TpuRequest,
        now: DateTime<Utc>,
        thresholds: &Thresholds,
    ) -> Result<TpuInput, RequestError> {
        let t4_hours = match request.t4_hours {
            Some(h) if h.is_finite() && h > 0.0 => h,
            Some(h) => {
                return Err(RequestError::value(
                    "t4Hours",
                    shortest(h),
                    "expected a positive number of hours",
                ));
            }
            None => {
                return Err(RequestError::new(
                    "t4Hours",
                    "expected the wall time of the job on a T4 x2 session, hours",
                ));
            }
        };
        let mut input = TpuInput {
            t4_hours,
            gpu_plannable: non_negative("gpuPlannable", request.gpu_plannable)?,
            tpu_plannable: non_negative("tpuRemaining", request.tpu_remaining)?,
            queue_hours: non_negative("queueHours", request.queue_hours)?,
            next_reset: request
                .refresh_at
                .as_deref()
                .map(|t| parse_time(t, DateRole::Instant))
                .transpose()
                .map_err(|e| RequestError::new("refreshAt", e))?,
            quota_not_live: None,
            tpu_assumed_because: None,
        };
        if let Some(text) = request.quota.as_deref() {
            let quota = QuotaText {
                quota: text,
                read_at: request.quota_read_at.as_deref(),
                ..QuotaText::default()
            }
            .state(now, thresholds)
            .map_err(|e| match e.field.as_str() {
                "readAt" => RequestError {
                    field: "quotaReadAt".into(),
                    ..e
                },
                _ => e,
            })?;
            input.quota_not_live = quota
                .findings
                .iter()
                .find(|f| f.rule == rule::KQ001.as_str())
                .cloned();
            if let Some(g) = &quota.gpu {
                input.gpu_plannable = input.gpu_plannable.or(Some(g.plannable));
                input.next_reset = input.next_reset.or(Some(g.next_reset));
            }
            if let Some(t) = &quota.tpu {
                input.tpu_plannable = input.tpu_plannable.or(Some(t.plannable));
                input.next_reset = input.next_reset.or(Some(t.next_reset));
            }
        }
        if input.tpu_plannable.is_none() {
            input.tpu_assumed_because = Some(match request.quota {
                Some(_) => "the quota reading has no TPU row",
                None => "no quota reading was given",
            });
        }
        Ok(input)
    }
}

/// What every TPU rule reads: the facts in force and both finish times.
struct TpuRun {
    now: DateTime<Utc>,
    /// T4 hours of the job.
    h: f64,
    gpu_plannable: Option<f64>,
    queue: f64,
    startup: f64,
    speed: f64,
    gpu_limit: f64,
    tpu_limit: f64,
    /// The TPU queue waits observed: (shortest, longest).
    queue_observed: (f64, f64),
    next_reset: DateTime<Utc>,
    gpu_sessions: u32,
    gpu_finish: DateTime<Utc>,
    gpu_waits: bool,
    /// TPU hours of work (T4 hours / speed-up).
    tpu_work: f64,
    tpu_sessions: u32,
    /// TPU hours charged: the work and each session's start-up.
    tpu_needed: f64,
    tpu_plannable: f64,
    tpu_finish: DateTime<Utc>,
    choice: TpuChoice,
    quota_not_live: Option<Finding>,
    tpu_assumed_because: Option<&'static str>,
}

impl TpuRun {
    fn of(input: &TpuInput, now: DateTime<Utc>) -> TpuRun {
        let book = rulebook();
        let h = input.t4_hours;
        let queue = input
            .queue_hours
            .unwrap_or_else(|| book.fact_value(fact::QUOTA_TPU_QUEUE_HOURS));
        let startup = book.fact_value(fact::QUOTA_TPU_STARTUP_MINUTES) / 60.0;
        let speed = book.fact_value(fact::QUOTA_TPU_SPEED_T4);
        let gpu_limit = book.fact_value(fact::QUOTA_GPU_SESSION_HOURS);
        let tpu_limit = book.fact_value(fact::QUOTA_TPU_SESSION_HOURS);
        let next_reset = match input.next_reset {
            Some(r) if r > now => r,
            _ => assumed_next_reset(now),
        };
        let (gpu_finish, gpu_waits) = gpu_finish(h, input.gpu_plannable, next_reset, now);
        // TPU: every session is a push that queues again; each pays the start-up.
        let tpu_work = h / speed;
        let tpu_sessions = sessions(tpu_work, tpu_limit);
        let tpu_needed = tpu_work + f64::from(tpu_sessions) * startup;
        let tpu_plannable = input
            .tpu_plannable
            .unwrap_or_else(|| book.fact_value(fact::QUOTA_TPU_WEEKLY_HOURS));
        let mut tpu_finish = after(now, f64::from(tpu_sessions) * (queue + startup) + tpu_work);
        if tpu_needed > tpu_plannable + 1e-9 {
            // What the quota lacks now runs after the reset, queued again.
            let rest = tpu_needed - tpu_plannable;
            tpu_finish = tpu_finish.max(after(next_reset, queue + startup + rest));
        }
        TpuRun {
            now,
            h,
            gpu_plannable: input.gpu_plannable,
            queue,
            startup,
            speed,
            gpu_limit,
            tpu_limit,
            queue_observed: (
                book.fact_value(fact::QUOTA_TPU_QUEUE_MIN_HOURS),
                book.fact_value(fact::QUOTA_TPU_QUEUE_MAX_HOURS),
            ),
            next_reset,
            gpu_sessions: sessions(h, gpu_limit),
            gpu_finish,
            gpu_waits,
            tpu_work,
            tpu_sessions,
            tpu_needed,
            tpu_plannable,
            tpu_finish,
            choice: if tpu_finish < gpu_finish {
                TpuChoice::Tpu
            } else {
                TpuChoice::Gpu
            },
            quota_not_live: input.quota_not_live.clone(),
            tpu_assumed_because: input.tpu_assumed_because,
        }
    }

    fn hours_to(&self, t: DateTime<Utc>) -> f64 {
        (t - self.now).num_milliseconds() as f64 / 3_600_000.0
    }

    fn tpu_short(&self) -> bool {
        self.tpu_needed > self.tpu_plannable + 1e-9
    }

    /// The queue waits observed, for text: `10-24 h`.
    fn observed(&self) -> String {
        format!(
            "{}-{} h",
            shortest(self.queue_observed.0),
            shortest(self.queue_observed.1)
        )
    }

    /// Why the choice: which finishes earlier, and by how much.
    fn reason(&self) -> String {
        let (gpu, tpu) = (
            self.hours_to(self.gpu_finish),
            self.hours_to(self.tpu_finish),
        );
        match self.choice {
            TpuChoice::Tpu if self.gpu_plannable.is_some_and(|p| p <= 0.0) => format!(
                "the GPU quota is gone until {}: the TPU's hours are free and it finishes {} h earlier",
                rfc3339(self.next_reset),
                fixed(gpu - tpu, 1)
            ),
            TpuChoice::Tpu => format!(
                "the TPU finishes {} h earlier despite its queue",
                fixed(gpu - tpu, 1)
            ),
            TpuChoice::Gpu => format!(
                "the GPU finishes {} h earlier: the TPU queue ({} h, {} observed) outweighs its speed",
                fixed(tpu - gpu, 1),
                shortest(self.queue),
                self.observed()
            ),
        }
    }
}

/// GPU: now + T4 time when the hours suffice (chained sessions, resumed), else the part beyond the
/// plannable hours waits for the reset (and for later resets, a week's hours at a time). True when it
/// waits.
fn gpu_finish(
    h: f64,
    gpu_plannable: Option<f64>,
    next_reset: DateTime<Utc>,
    now: DateTime<Utc>,
) -> (DateTime<Utc>, bool) {
    let weekly = rulebook().fact_value(fact::QUOTA_GPU_WEEKLY_HOURS);
    match gpu_plannable {
        Some(p) if p + 1e-9 < h => {
            let mut rest = h - p;
            let mut start = after(now, p).max(next_reset);
            while rest > weekly && weekly > 0.0 {
                rest -= weekly;
                start = (after(start, weekly)).max(start + Duration::days(7));
            }
            (after(start, rest), true)
        }
        _ => (after(now, h), false),
    }
}

// ------------------------------------------------------------------ rules

/// The TPU rules, in the order their findings are added.
const TPU_RULES: &[fn(&TpuRun, &mut Findings)] = &[
    earlier_finish,
    quota_reading_not_live,
    tpu_hours_assumed,
    tpu_quota_short,
    tpu_sessions_queue_again,
    validate_before_queueing,
    what_a_tpu_job_is_like,
];

/// KQ030: both finish times and the choice, in every answer.
fn earlier_finish(run: &TpuRun, out: &mut Findings) {
    for id in [
        fact::QUOTA_TPU_QUEUE_HOURS,
        fact::QUOTA_TPU_STARTUP_MINUTES,
        fact::QUOTA_TPU_SPEED_T4,
        fact::QUOTA_GPU_SESSION_HOURS,
        fact::QUOTA_TPU_SESSION_HOURS,
    ] {
        out.uses(id);
    }
    let h = shortest(run.h);
    let gpu_text = match (run.gpu_plannable, run.gpu_waits) {
        (None, _) => format!(
            "GPU finish {} ({h} h on T4 x2; GPU hours assumed sufficient)",
            rfc3339(run.gpu_finish)
        ),
        (Some(p), false) => format!(
            "GPU finish {} ({h} h on T4 x2 within {} plannable h)",
            rfc3339(run.gpu_finish),
            shortest(p)
        ),
        (Some(p), true) => format!(
            "GPU finish {} ({} plannable h now, the other {} h wait for the reset {})",
            rfc3339(run.gpu_finish),
            shortest(p),
            fixed(run.h - p, 1),
            rfc3339(run.next_reset)
        ),
    };
    let gpu_text = if run.gpu_sessions > 1 {
        format!(
            "{gpu_text}; {} chained {} h sessions, resumed (finished folds skipped)",
            run.gpu_sessions,
            shortest(run.gpu_limit)
        )
    } else {
        gpu_text
    };
    let tpu_text = format!(
        "TPU finish {} ({} x ({} h queue + {} h start-up) + {h} / {} = {} h)",
        rfc3339(run.tpu_finish),
        run.tpu_sessions,
        shortest(run.queue),
        fixed(run.startup, 2),
        shortest(run.speed),
        fixed(run.tpu_work, 2),
    );
    out.push(Finding::from_rule(
        rule::KQ030,
        format!(
            "run it on the {}: {}; {gpu_text}; {tpu_text}",
            run.choice.as_str().to_ascii_uppercase(),
            run.reason()
        ),
    ));
}

/// KQ001: the quota reading the answer is built on is not live.
fn quota_reading_not_live(run: &TpuRun, out: &mut Findings) {
    if let Some(finding) = &run.quota_not_live {
        out.push(finding.clone());
    }
}

/// KQ035: neither a quota reading with a TPU row nor the TPU hours: the facts' weekly ones, assumed.
fn tpu_hours_assumed(run: &TpuRun, out: &mut Findings) {
    let Some(because) = run.tpu_assumed_because else {
        return;
    };
    out.uses(fact::QUOTA_TPU_WEEKLY_HOURS);
    out.add(
        rule::KQ035,
        format!(
            "{because} and no --tpu-remaining: the TPU's {} h are the full weekly hours, assumed; the choice and the TPU finish rest on them",
            shortest(run.tpu_plannable)
        ),
    );
}

/// KQ032: the run needs more TPU hours than are plannable before the reset.
fn tpu_quota_short(run: &TpuRun, out: &mut Findings) {
    if !run.tpu_short() {
        return;
    }
    out.uses(fact::QUOTA_TPU_WEEKLY_HOURS);
    out.add(
        rule::KQ032,
        format!(
            "the run needs {} TPU-hours ({} T4-hours / {} + {} x {} h start-up), {} plannable before the reset {}",
            fixed(run.tpu_needed, 2),
            shortest(run.h),
            shortest(run.speed),
            run.tpu_sessions,
            fixed(run.startup, 2),
            fixed(run.tpu_plannable, 2),
            rfc3339(run.next_reset),
        ),
    );
}

/// KQ031: more than one TPU session, each queued again.
fn tpu_sessions_queue_again(run: &TpuRun, out: &mut Findings) {
    if run.tpu_sessions > 1 {
        out.add(
            rule::KQ031,
            format!(
                "{} h on the TPU > the {} h TPU session limit: {} sessions, each queued ({} h) again",
                fixed(run.tpu_work, 2),
                shortest(run.tpu_limit),
                run.tpu_sessions,
                shortest(run.queue)
            ),
        );
    }
}

/// KQ033: the choice is the TPU: validate before queueing.
fn validate_before_queueing(run: &TpuRun, out: &mut Findings) {
    if run.choice != TpuChoice::Tpu {
        return;
    }
    out.uses(fact::QUOTA_TPU_QUEUE_MIN_HOURS);
    out.uses(fact::QUOTA_TPU_QUEUE_MAX_HOURS);
    out.add(
        rule::KQ033,
        format!(
            "queue wait {} h (observed {}): a bug found after it costs a whole queue cycle",
            shortest(run.queue),
            run.observed()
        ),
    );
}

/// KQ034: the choice is the TPU: its log stays empty until the end, and a queued job is dropped only by
/// deleting the kernel (irreversible: the user decides).
fn what_a_tpu_job_is_like(run: &TpuRun, out: &mut Findings) {
    if run.choice != TpuChoice::Tpu {
        return;
    }
    out.add(
        rule::KQ034,
        format!(
            "TPU chosen (queue wait {} h): the session's log stays empty until it ends; while queued the job cannot be cancelled through the API, only deleted with its kernel (every version and output), which the user decides",
            shortest(run.queue)
        ),
    );
}

/// `kgadvise tpu`: TPU or GPU, by the earlier finish. Errors name the request field and what was
/// expected.
pub fn tpu(request: &TpuRequest, clock: DateTime<Utc>) -> Result<TpuReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let input = TpuInput::of(request, now, &thresholds)?;
    let run = TpuRun::of(&input, now);
    let mut out = Findings::new();
    for rule in TPU_RULES {
        rule(&run, &mut out);
    }
    let closed = out.finish(now.date_naive(), &thresholds);
    Ok(TpuReport {
        schema: TPU_SCHEMA,
        now: rfc3339(now),
        t4_hours: run.h,
        gpu_finish: rfc3339(run.gpu_finish),
        tpu_finish: rfc3339(run.tpu_finish),
        choice: run.choice,
        reason: run.reason(),
        gpu_hours_to_finish: round2(run.hours_to(run.gpu_finish)),
        tpu_hours_to_finish: round2(run.hours_to(run.tpu_finish)),
        gpu_waits_for_reset: run.gpu_waits,
        gpu_plannable: run.gpu_plannable,
        gpu_sessions: run.gpu_sessions,
        tpu_hours_needed: round2(run.tpu_needed),
        tpu_plannable: run.tpu_plannable,
        tpu_sessions: run.tpu_sessions,
        queue_hours: run.queue,
        next_reset: rfc3339(run.next_reset),
        rules: closed.rules,
        findings: closed.findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        parse_time(s, DateRole::Instant).unwrap()
    }

    fn input(h: f64, gpu: Option<f64>) -> TpuRequest {
        TpuRequest {
            t4_hours: Some(h),
            gpu_plannable: gpu,
            ..TpuRequest::default()
        }
    }

    #[test]
    fn cases() {
        let now = at("2026-12-01T08:00:00Z"); // Tuesday; next reset Saturday 2026-12-05 00:00
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
            let r = tpu(&input(*h, *gpu), now).unwrap();
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
        // 60 T4-hours = 12 h on the TPU: 2 sessions, each queued.
        let r = tpu(&input(60.0, Some(0.0)), now).unwrap();
        assert_eq!(r.tpu_sessions, 2);
        assert!(r.findings.iter().any(|f| f.rule == "KQ031"));
        assert!(!r.findings.iter().any(|f| f.rule == "KQ032"));
        let r = tpu(&input(30.0, Some(0.0)), now).unwrap();
        assert_eq!(r.tpu_sessions, 1);
        assert!(!r.findings.iter().any(|f| f.rule == "KQ031"));
        // 120 T4-hours = 24 TPU-hours > 20: short of quota.
        let r = tpu(&input(120.0, Some(0.0)), now).unwrap();
        assert!(
            r.findings.iter().any(|f| f.rule == "KQ032"),
            "{:?}",
            r.findings
        );
        let mut i = input(20.0, Some(0.0));
        i.tpu_remaining = Some(1.0);
        let r = tpu(&i, now).unwrap();
        assert!(r.findings.iter().any(|f| f.rule == "KQ032"));
    }

    #[test]
    fn bad_input() {
        let now = at("2026-12-01T08:00:00Z");
        let field = |r: TpuRequest| tpu(&r, now).unwrap_err().field;
        assert_eq!(field(input(0.0, None)), "t4Hours");
        assert_eq!(field(input(-1.0, None)), "t4Hours");
        assert_eq!(field(TpuRequest::default()), "t4Hours");
        assert_eq!(field(input(1.0, Some(-2.0))), "gpuPlannable");
        assert_eq!(
            field(TpuRequest {
                queue_hours: Some(f64::NAN),
                ..input(1.0, None)
            }),
            "queueHours"
        );
        assert_eq!(
            field(TpuRequest {
                refresh_at: Some("soon".into()),
                ..input(1.0, None)
            }),
            "refreshAt"
        );
        let e = tpu(
            &TpuRequest {
                quota: Some("what is this".into()),
                ..input(1.0, None)
            },
            now,
        )
        .unwrap_err();
        assert_eq!((e.field.as_str(), e.line), ("quota", Some(1)));
    }
}

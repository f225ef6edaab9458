//! `kgadvise quota`: the state of the GPU and TPU quotas an answer is built on (spec §6): the week rolled
//! over or not, live or not, reservations, plannable hours, use it or lose it. The request is
//! [`QuotaRequest`]; [`QuotaText`] is the quota input every advisor that reads a quota shares (plan, tpu,
//! the kernel check); the rules KQ001-KQ007 are functions over [`QuotaRun`].

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::quota::{
    ACTIVE_STATUSES, AcceleratorQuota, QuotaForm, QuotaReading, Reservation, Resource, RunsLog,
    assumed_next_reset, hours_between, read_quota, read_runs_log, reservations, roll_forward,
    round2, use_it_or_lose_it, week,
};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{fact, rule, threshold};
use crate::rulebook::report::{Closed, Findings, Report};
use crate::text::number::{fixed, shortest};
use crate::text::when::{DateRole, parse_time, rfc3339};

pub const QUOTA_SCHEMA: &str = "kgadvise.quota/1";

/// `kgadvise quota`: the state of both quotas, from a quota in any form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct QuotaRequest {
    /// The quota as text, in any form: `kaggle quota` (the table, the `-v` CSV or `--format json`), the
    /// GetAcceleratorQuotaStatistics payload, kgkit's `.kaggle-gm/gpu_quota.json`, `No quota information
    /// available`, or the web UI's quota banner. A `refreshAt` without a zone is UTC.
    pub quota: String,
    /// kgkit's runs log (`.kaggle-gm/gpu_runs.jsonl`) as text: its runs in flight reserve hours, and its
    /// runs finished since the figure was read count against it.
    pub runs: Option<String>,
    /// The figure was read just now (e.g. piped from `kaggle quota`): live. Wins over `readAt`.
    pub live: bool,
    /// When the figure was read (RFC 3339 or a date; e.g. a saved file's time); a time after `now` says
    /// nothing. kgkit's `fetched_at` wins when the quota has one. Without it and without `live`, the age of
    /// the figure is unknown: not live.
    pub read_at: Option<String>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    pub now: Option<String>,
    /// Threshold overrides.
    pub set: Overrides,
}

/// A quota given as text and how fresh it is: the input of every advisor that reads a quota (`quota`,
/// `plan`, `tpu`, the kernel check). Errors name the request fields `quota`, `readAt`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QuotaText<'a> {
    /// The quota in any form [`read_quota`] reads.
    pub quota: &'a str,
    /// kgkit's runs log, if given.
    pub runs: Option<&'a str>,
    /// Read just now.
    pub live: bool,
    /// When it was read (RFC 3339 or a date).
    pub read_at: Option<&'a str>,
}

impl<'a> QuotaText<'a> {
    pub fn of(request: &'a QuotaRequest) -> QuotaText<'a> {
        QuotaText {
            quota: &request.quota,
            runs: request.runs.as_deref(),
            live: request.live,
            read_at: request.read_at.as_deref(),
        }
    }

    /// The quota as read; unreadable text is an error of the `quota` field, naming the line.
    pub fn reading(&self) -> Result<QuotaReading, RequestError> {
        read_quota(self.quota).map_err(|e| e.in_field("quota"))
    }

    /// When the figure was read: now when live, else `readAt` when it is not after `now`, else unknown.
    pub fn observed(&self, now: DateTime<Utc>) -> Result<Observed, RequestError> {
        if self.live {
            return Ok(Observed::Now);
        }
        match self.read_at {
            None => Ok(Observed::Unknown),
            Some(text) => {
                let t = parse_time(text, DateRole::Instant)
                    .map_err(|e| RequestError::new("readAt", e))?;
                Ok(if t <= now {
                    Observed::At(t)
                } else {
                    Observed::Unknown
                })
            }
        }
    }

    /// The runs log as read (unreadable lines are its diagnostics), when one was given.
    pub fn runs_log(&self) -> Option<RunsLog> {
        self.runs.map(read_runs_log)
    }

    /// The quota state: the report of `kgadvise quota`.
    pub fn state(
        &self,
        now: DateTime<Utc>,
        thresholds: &Thresholds,
    ) -> Result<QuotaReport, RequestError> {
        let reading = self.reading()?;
        let observed = self.observed(now)?;
        Ok(quota_state(
            &reading,
            self.runs_log().as_ref(),
            observed,
            now,
            thresholds,
        ))
    }
}

/// One accelerator's quota as planned on (contract keys: used, remaining, total, reserved, plannable,
/// refresh_at).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuotaState {
    pub used: f64,
    pub remaining: f64,
    pub total: f64,
    pub reserved: f64,
    /// remaining − reserved, never below 0.
    pub plannable: f64,
    /// The next reset (RFC 3339 UTC), rolled forward past `now` when the stored one has passed.
    pub refresh_at: String,
    /// The reset as the input gave it, if it did.
    pub stored_refresh_at: Option<String>,
    /// True when no refreshAt was given and the facts' weekly reset was assumed.
    pub refresh_assumed: bool,
    pub hours_to_reset: f64,
    /// The stored refreshAt has passed: used 0, remaining the weekly total.
    pub rolled_over: bool,
    /// Hours of runs logged as finished since the figure was read, taken off remaining.
    pub spent_since_hours: f64,
    pub use_it_or_lose_it: bool,
    pub reservations: Vec<Reservation>,
    #[serde(skip)]
    pub next_reset: DateTime<Utc>,
}

/// `kgadvise quota`: the state of both quotas.
#[derive(Debug, Clone, Serialize)]
pub struct QuotaReport {
    pub schema: &'static str,
    pub form: QuotaForm,
    pub gpu: Option<QuotaState>,
    pub tpu: Option<QuotaState>,
    pub live: bool,
    /// When the figure was read (fetched_at, the file's time, or now for stdin/flags).
    pub observed_at: Option<String>,
    pub age_minutes: Option<f64>,
    pub use_it_or_lose_it: bool,
    pub stale_runs: Vec<String>,
    pub notes: Vec<String>,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for QuotaReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }
}

/// Where the figure came from, for the live check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Observed {
    /// Read just now (stdin piped from `kaggle quota`, or numbers typed on the command line).
    Now,
    /// Read at this time (a saved file's modification time); kgkit's `fetched_at` wins when present.
    At(DateTime<Utc>),
    /// Unknown.
    Unknown,
}

/// `kgadvise quota`: the state of both quotas. Errors name the request field and what was expected.
pub fn quota(request: &QuotaRequest, clock: DateTime<Utc>) -> Result<QuotaReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    QuotaText::of(request).state(now, &thresholds)
}

/// What every quota rule reads: the reading, when it was read, the runs log's reservations, and each
/// accelerator's quota worked out.
struct QuotaRun<'a> {
    reading: &'a QuotaReading,
    now: DateTime<Utc>,
    observed_at: Option<DateTime<Utc>>,
    age_minutes: Option<f64>,
    live_limit: f64,
    live: bool,
    /// Runs-log entries in flight for longer than their cap + margin, skipped.
    stale: Vec<String>,
    notes: Vec<String>,
    gpu: Option<Accelerator>,
    tpu: Option<Accelerator>,
}

/// One accelerator's quota worked out: what its rules and its [`QuotaState`] read.
struct Accelerator {
    resource: Resource,
    now: DateTime<Utc>,
    /// As read.
    read: AcceleratorQuota,
    next_reset: DateTime<Utc>,
    rolled: bool,
    assumed: bool,
    used: f64,
    remaining: f64,
    /// Hours of runs finished since the figure was read.
    spent: f64,
    /// The runs log's reservations on this accelerator.
    held: Vec<Reservation>,
    reserved: f64,
    plannable: f64,
    hours_to_reset: f64,
    use_it: bool,
}

impl QuotaRun<'_> {
    fn of<'a>(
        reading: &'a QuotaReading,
        runs: Option<&RunsLog>,
        observed: Observed,
        now: DateTime<Utc>,
        thresholds: &Thresholds,
    ) -> QuotaRun<'a> {
        let observed_at = match (reading.fetched_at, observed) {
            (Some(t), _) => Some(t),
            (None, Observed::Now) => Some(now),
            (None, Observed::At(t)) => Some(t),
            (None, Observed::Unknown) => None,
        };
        let age_minutes = observed_at.map(|t| round2(hours_between(t, now) * 60.0));
        let live_limit = thresholds.get(threshold::QUOTA_LIVE_MINUTES);
        let mut notes = reading.notes.clone();
        let (held, stale) = match runs {
            Some(log) => {
                notes.extend(log.diagnostics.iter().map(|d| format!("runs log {d}")));
                reservations(log, now, thresholds)
            }
            None => (Vec::new(), Vec::new()),
        };
        let mut run = QuotaRun {
            reading,
            now,
            observed_at,
            age_minutes,
            live_limit,
            live: age_minutes.is_some_and(|age| age <= live_limit),
            stale,
            notes,
            gpu: None,
            tpu: None,
        };
        let of = |resource, q: &Option<AcceleratorQuota>, run: &QuotaRun| {
            q.as_ref()
                .map(|q| Accelerator::of(resource, q, run, runs, &held, thresholds))
        };
        run.gpu = of(Resource::Gpu, &reading.gpu, &run);
        run.tpu = of(Resource::Tpu, &reading.tpu, &run);
        let spent_notes: Vec<String> = run
            .accelerators()
            .filter(|a| a.spent > 0.0)
            .map(|a| {
                format!(
                    "{}: {} h of runs logged since the figure was read taken off",
                    a.resource.name(),
                    fixed(a.spent, 2)
                )
            })
            .collect();
        run.notes.extend(spent_notes);
        run
    }

    fn accelerators(&self) -> impl Iterator<Item = &Accelerator> {
        self.gpu.iter().chain(self.tpu.iter())
    }

    fn report(self, closed: Closed) -> QuotaReport {
        let use_it = self.accelerators().any(|a| a.use_it);
        QuotaReport {
            schema: QUOTA_SCHEMA,
            form: self.reading.form,
            gpu: self.gpu.map(Accelerator::state),
            tpu: self.tpu.map(Accelerator::state),
            live: self.live,
            observed_at: self.observed_at.map(rfc3339),
            age_minutes: self.age_minutes,
            use_it_or_lose_it: use_it,
            stale_runs: self.stale,
            notes: self.notes,
            now: rfc3339(self.now),
            rules: closed.rules,
            findings: closed.findings,
        }
    }
}

impl Accelerator {
    fn of(
        resource: Resource,
        q: &AcceleratorQuota,
        run: &QuotaRun,
        runs: Option<&RunsLog>,
        held: &[Reservation],
        thresholds: &Thresholds,
    ) -> Accelerator {
        let now = run.now;
        // The banner says "in N days", counted from now.
        let banner_reset = run
            .reading
            .reset_in_days
            .map(|d| now + Duration::minutes((d * 24.0 * 60.0).round() as i64));
        let (next_reset, rolled, assumed) = match (q.refresh_at, banner_reset) {
            (Some(r), _) => {
                let (next, rolled) = roll_forward(r, now);
                (next, rolled, false)
            }
            (None, Some(b)) if b > now => (b, false, false),
            _ => (assumed_next_reset(now), false, true),
        };
        // The reset has happened since the figure: a fresh week of the figure's total (kgkit).
        let (used, remaining) = if rolled {
            (0.0, q.total)
        } else {
            (q.used, q.remaining)
        };
        let spent = spent_since(resource, runs, run.observed_at, next_reset - week(), now);
        let (used, remaining) = (used + spent, (remaining - spent).max(0.0));
        let held: Vec<Reservation> = held
            .iter()
            .filter(|r| r.accelerator == resource.name())
            .cloned()
            .collect();
        let from_runs: f64 = held
            .iter()
            .map(|r| r.reserved_hours)
            .fold(0.0, |a, b| a + b);
        // The reading's own timeReserved, or the runs log's, the larger when both.
        let reserved = match q.reserved {
            Some(api) if api >= from_runs => api,
            _ => from_runs,
        };
        let plannable = (remaining - reserved).max(0.0);
        let hours_to_reset = hours_between(now, next_reset);
        Accelerator {
            resource,
            now,
            read: q.clone(),
            next_reset,
            rolled,
            assumed,
            used,
            remaining,
            spent,
            held,
            reserved,
            plannable,
            hours_to_reset,
            use_it: use_it_or_lose_it(hours_to_reset, plannable, thresholds),
        }
    }

    fn state(self) -> QuotaState {
        QuotaState {
            used: round2(self.used),
            remaining: round2(self.remaining),
            total: round2(self.read.total),
            reserved: round2(self.reserved),
            plannable: round2(self.plannable),
            refresh_at: rfc3339(self.next_reset),
            stored_refresh_at: self.read.refresh_at.map(rfc3339),
            refresh_assumed: self.assumed,
            hours_to_reset: round2(self.hours_to_reset),
            rolled_over: self.rolled,
            spent_since_hours: round2(self.spent),
            use_it_or_lose_it: self.use_it,
            reservations: self.held,
            next_reset: self.next_reset,
        }
    }
}

/// Hours of the runs logged as finished (on this accelerator, this week, up to now) after the figure was
/// read: they count against it (kgkit).
fn spent_since(
    resource: Resource,
    runs: Option<&RunsLog>,
    observed_at: Option<DateTime<Utc>>,
    week_start: DateTime<Utc>,
    now: DateTime<Utc>,
) -> f64 {
    let (Some(log), Some(observed)) = (runs, observed_at) else {
        return 0.0;
    };
    log.runs
        .iter()
        .filter(|run| run.tpu == (resource == Resource::Tpu))
        .filter(|run| !ACTIVE_STATUSES.contains(&run.status.as_str()))
        .filter_map(|run| Some((run.gpu_hours?, run.finished_at.or(run.pushed_at)?)))
        .filter(|(_, t)| *t > observed && *t > week_start && *t <= now)
        .fold(0.0, |sum, (h, _)| sum + h)
}

// ------------------------------------------------------------------ rules

/// The rules of one accelerator's quota, in the order their findings are added.
const ACCELERATOR_RULES: &[fn(&Accelerator, &Thresholds, &mut Findings)] = &[
    week_rolled_over,
    reset_assumed,
    hours_reserved,
    hours_expire_at_the_reset,
    nothing_plannable,
];

/// The rules of the quota as a whole, after those of each accelerator.
const QUOTA_RULES: &[fn(&QuotaRun, &Thresholds, &mut Findings)] =
    &[no_figure, stale_runs_skipped, not_live];

/// KQ002: the stored reset has passed; the week rolled over.
fn week_rolled_over(a: &Accelerator, _: &Thresholds, out: &mut Findings) {
    if !a.rolled {
        return;
    }
    out.add(
        rule::KQ002,
        format!(
            "{}: refreshAt {} has passed (now {}): {} h used of {} h before; the week rolled over, {} h available, next reset {}",
            a.resource.name(),
            a.read.refresh_at.map(rfc3339).unwrap_or_default(),
            rfc3339(a.now),
            fixed(a.read.used, 2),
            fixed(a.read.total, 2),
            fixed(a.read.total, 2),
            rfc3339(a.next_reset)
        ),
    );
}

/// KQ007: no refreshAt: the facts' weekly reset is assumed.
fn reset_assumed(a: &Accelerator, _: &Thresholds, out: &mut Findings) {
    if a.assumed {
        out.add(
            rule::KQ007,
            format!(
                "{}: no refreshAt in the input; assumed the next reset at {}",
                a.resource.name(),
                rfc3339(a.next_reset)
            ),
        );
    }
}

/// KQ004: hours held by running sessions (the API's timeReserved or the runs log's runs in flight).
fn hours_reserved(a: &Accelerator, _: &Thresholds, out: &mut Findings) {
    if a.reserved <= 0.0 && a.held.is_empty() {
        return;
    }
    let list: Vec<String> = a
        .held
        .iter()
        .map(|r| {
            format!(
                "{} ({}, {} h of a {} h cap run, {} h held)",
                r.kernel,
                r.status,
                fixed(r.ran_hours, 2),
                shortest(r.cap_hours),
                fixed(r.reserved_hours, 2)
            )
        })
        .collect();
    let what = if list.is_empty() {
        format!("timeReserved {} h", fixed(a.reserved, 2))
    } else {
        format!("runs log: {}", list.join("; "))
    };
    out.add(
        rule::KQ004,
        format!(
            "{}: {reserved} h reserved ({what}); plannable = {} - {reserved}",
            a.resource.name(),
            fixed(a.remaining, 2),
            reserved = fixed(a.reserved, 2)
        ),
    );
}

/// KQ003: plannable hours that expire at the reset, soon.
fn hours_expire_at_the_reset(a: &Accelerator, thresholds: &Thresholds, out: &mut Findings) {
    if !a.use_it {
        return;
    }
    out.add(
        rule::KQ003,
        format!(
            "{}: {} h plannable expire at the reset in {} h ({}); window {} h, minimum {} h",
            a.resource.name(),
            fixed(a.plannable, 2),
            fixed(a.hours_to_reset, 1),
            rfc3339(a.next_reset),
            shortest(thresholds.get(threshold::QUOTA_USE_IT_WINDOW_HOURS)),
            shortest(thresholds.get(threshold::QUOTA_USE_IT_MIN_HOURS)),
        ),
    );
}

/// KQ006: no plannable hours left.
fn nothing_plannable(a: &Accelerator, _: &Thresholds, out: &mut Findings) {
    if a.plannable > 0.0 {
        return;
    }
    out.add(
        rule::KQ006,
        format!(
            "{}: {} h used of {} h, {} h remaining, {} h reserved; reset {}",
            a.resource.name(),
            fixed(a.used, 2),
            fixed(a.read.total, 2),
            fixed(a.remaining, 2),
            fixed(a.reserved, 2),
            rfc3339(a.next_reset)
        ),
    );
}

/// KQ005: no GPU or TPU figure at all.
fn no_figure(run: &QuotaRun, _: &Thresholds, out: &mut Findings) {
    if run.gpu.is_none() && run.tpu.is_none() {
        out.add(
            rule::KQ005,
            format!("{}: no GPU or TPU figure", run.reading.form.describe()),
        );
    }
}

/// KQ004 (stale entries): runs-log entries in flight for longer than cap + margin reserve nothing.
fn stale_runs_skipped(run: &QuotaRun, thresholds: &Thresholds, out: &mut Findings) {
    if run.stale.is_empty() {
        return;
    }
    out.push(
        Finding::from_rule(
            rule::KQ004,
            format!(
                "{} stale runs-log entries skipped (in flight longer than cap + {} h): {}",
                run.stale.len(),
                shortest(thresholds.get(threshold::QUOTA_STALE_RUN_MARGIN_HOURS)),
                run.stale.join("; ")
            ),
        )
        .with_title("Stale runs-log entries reserve nothing")
        .with_fix("Collect or mark those runs finished (kgkit gpu collect / gpu quota) so the log matches Kaggle."),
    );
}

/// KQ001: the figure was not read just now.
fn not_live(run: &QuotaRun, _: &Thresholds, out: &mut Findings) {
    if run.live || (run.gpu.is_none() && run.tpu.is_none()) {
        return;
    }
    let why = match (run.reading.fetched_at, run.observed_at, run.age_minutes) {
        (Some(f), _, Some(age)) => format!(
            "kgkit cache fetched at {} ({} old)",
            rfc3339(f),
            describe_age(age)
        ),
        (None, Some(t), Some(age)) => {
            format!("figure read at {} ({} old)", rfc3339(t), describe_age(age))
        }
        _ => "the input does not say when the figure was read".to_string(),
    };
    out.add(
        rule::KQ001,
        format!(
            "NOT LIVE: {why}; live limit {} min; runs logged since are counted, sessions started elsewhere are not",
            shortest(run.live_limit)
        ),
    );
}

/// Builds the quota state from a reading: rolled-over weeks, live or not, reservations (the reading's
/// own `timeReserved`, or the in-flight runs of a runs log, the larger when both), plannable hours and
/// use it or lose it.
pub fn quota_state(
    reading: &QuotaReading,
    runs: Option<&RunsLog>,
    observed: Observed,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> QuotaReport {
    let run = QuotaRun::of(reading, runs, observed, now, thresholds);
    let mut out = Findings::new();
    for a in run.accelerators() {
        for rule in ACCELERATOR_RULES {
            rule(a, thresholds, &mut out);
        }
    }
    for rule in QUOTA_RULES {
        rule(&run, thresholds, &mut out);
    }
    out.uses(fact::QUOTA_GPU_WEEKLY_HOURS);
    out.uses(fact::QUOTA_TPU_WEEKLY_HOURS);
    out.uses(fact::QUOTA_DEFAULT_RUN_CAP_HOURS);
    let closed = out.finish(now.date_naive(), thresholds);
    run.report(closed)
}

/// An age in minutes for people: `25 min`, `3.5 h`, `2.0 days`.
pub fn describe_age(minutes: f64) -> String {
    if minutes < 120.0 {
        format!("{} min", fixed(minutes, 0))
    } else if minutes < 48.0 * 60.0 {
        format!("{} h", fixed(minutes / 60.0, 1))
    } else {
        format!("{} days", fixed(minutes / 1440.0, 1))
    }
}

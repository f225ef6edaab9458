//! `kgadvise quota`: the state of the GPU and TPU quotas an answer is built on (spec §6): the week rolled
//! over or not, live or not, reservations, plannable hours, use it or lose it. The request is
//! [`QuotaRequest`]; [`QuotaText`] is the quota input every advisor that reads a quota shares (plan, tpu,
//! the kernel check); its rules are functions over [`QuotaRun`].

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::quota::{
    ACTIVE_STATUSES, AcceleratorQuota, Holding, Ledger, QuotaForm, QuotaReading, Reservation,
    Resource, RunAccelerator, RunsLog, assumed_next_reset, hours_between, ledger, read_quota,
    read_runs_log, roll_forward, round2, use_it_or_lose_it, week,
};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{fact, rule, threshold};
use crate::rulebook::report::{Closed, Findings, Report};
use crate::rulebook::{Thresholds, rulebook};
use crate::text::number::{fixed, shortest};
use crate::text::when::{DateRole, parse_time, rfc3339};

pub const QUOTA_SCHEMA: &str = "kgadvise.quota/1";

/// `kgadvise quota`: the state of both quotas, from a quota in any form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct QuotaRequest {
    /// The quota as text, in any form: `kaggle quota` (the table, the `-v` CSV or `--format json`), the
    /// GetAcceleratorQuotaStatistics payload, kgkit's `.kaggle-gm/gpu_quota.json`, `No quota information
    /// available`, or the web UI's quota banner. A `refreshAt` without a zone is UTC.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota: String,
    /// kgkit's runs log (`.kaggle-gm/gpu_runs.jsonl`) as text: its runs in flight reserve hours, and its
    /// runs finished since the figure was read count against it.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub runs: Option<String>,
    /// The figure was read just now (e.g. piped from kaggle quota): live whatever its time, which it
    /// wins over.
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "read_at"))]
    pub live: bool,
    /// When the figure was read (RFC 3339 or a date; default: a saved file's modification time); a time
    /// after the answer's says nothing. kgkit's fetched_at wins when the quota has one. Without any, and
    /// not read just now, the age of the figure is unknown: not live.
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "TIME"))]
    pub read_at: Option<String>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// With a runs log: when its reservations count from (the figure's read time, else now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reservations_counted_from: Option<String>,
    pub stale_runs: Vec<String>,
    /// Older in-flight entries of a kernel pushed again: the newer entry's reservation replaces theirs.
    pub replaced_runs: Vec<String>,
    pub notes: Vec<String>,
    /// How `kgadvise quota` without a FILE took the figure: `the live call` (`kaggle quota` just now),
    /// `the cache, fresh: no call made`, or `the cache: the live call failed`; null for a figure given
    /// as input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why the live call gave no figure (the client's message), when it was tried and failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_live_because: Option<String>,
    pub now: String,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for QuotaReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::quota::text::quota(self)
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
    /// The runs log's ledger, when one was given.
    ledger: Option<Ledger>,
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
    /// When they count from (the figure's read time, else now).
    counted_from: DateTime<Utc>,
    /// With a runs log, the week's used hours (as read) that no logged run can account for.
    unlogged: Option<f64>,
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
        let ledger = runs.map(|log| {
            notes.extend(log.diagnostics.iter().map(|d| format!("runs log {d}")));
            let ledger = ledger(log, observed_at, now, thresholds);
            notes.extend(ledger.cpu.iter().map(|c| format!("runs log: {c}")));
            ledger
        });
        let held = ledger.as_ref().map_or(&[][..], |l| &l.held[..]);
        let mut run = QuotaRun {
            reading,
            now,
            observed_at,
            age_minutes,
            live_limit,
            live: age_minutes.is_some_and(|age| age <= live_limit),
            ledger: None,
            notes,
            gpu: None,
            tpu: None,
        };
        let of = |resource, q: &Option<AcceleratorQuota>, run: &QuotaRun| {
            q.as_ref()
                .map(|q| Accelerator::of(resource, q, run, runs, held, thresholds))
        };
        run.gpu = of(Resource::Gpu, &reading.gpu, &run);
        run.tpu = of(Resource::Tpu, &reading.tpu, &run);
        run.ledger = ledger;
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
        let ledger = self.ledger.unwrap_or_default();
        let counted_from = (!ledger.counted_from.is_empty()).then_some(ledger.counted_from);
        QuotaReport {
            schema: QUOTA_SCHEMA,
            form: self.reading.form,
            gpu: self.gpu.map(Accelerator::state),
            tpu: self.tpu.map(Accelerator::state),
            live: self.live,
            observed_at: self.observed_at.map(rfc3339),
            age_minutes: self.age_minutes,
            use_it_or_lose_it: use_it,
            reservations_counted_from: counted_from,
            stale_runs: ledger.stale,
            replaced_runs: ledger.replaced,
            notes: self.notes,
            source: None,
            not_live_because: None,
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
            counted_from: run.observed_at.unwrap_or(now),
            unlogged: match (runs, rolled) {
                (Some(log), false) => Some(unlogged_hours(
                    resource,
                    log,
                    q.used,
                    run.observed_at.unwrap_or(now),
                    next_reset - week(),
                )),
                _ => None,
            },
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
/// read: they count against it (kgkit). Only the part after the reading counts: a run that finished at F
/// after running since before the reading R spent at most F − R hours the figure does not include.
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
    let charged_to = match resource {
        Resource::Gpu => RunAccelerator::Gpu,
        Resource::Tpu => RunAccelerator::Tpu,
    };
    log.runs
        .iter()
        .filter(|run| run.accelerator == charged_to)
        .filter(|run| !ACTIVE_STATUSES.contains(&run.status.as_str()))
        .filter_map(|run| {
            let hours = run.gpu_hours?;
            match (run.finished_at, run.pushed_at) {
                (Some(end), _) => Some((hours.min(hours_between(observed, end)), end)),
                (None, Some(pushed)) => Some((hours, pushed)),
                (None, None) => None,
            }
        })
        .filter(|(_, t)| *t > observed && *t > week_start && *t <= now)
        .fold(0.0, |sum, (h, _)| sum + h)
}

/// The week's used hours (as read at `read_at`) that no run of the log can account for: `used` less the
/// most the log's runs on this accelerator can have spent in the week before the reading. Each run counts
/// at most its logged hours (`gpu_hours`, else its cap) and at most the time from its push to its end
/// (its finish, or the reading while in flight) inside the week: an upper bound, so what is left was
/// surely spent elsewhere.
fn unlogged_hours(
    resource: Resource,
    log: &RunsLog,
    used: f64,
    read_at: DateTime<Utc>,
    week_start: DateTime<Utc>,
) -> f64 {
    let charged_to = match resource {
        Resource::Gpu => RunAccelerator::Gpu,
        Resource::Tpu => RunAccelerator::Tpu,
    };
    let book = rulebook();
    let default_cap = match resource {
        Resource::Gpu => book.fact_value(fact::QUOTA_DEFAULT_RUN_CAP_HOURS),
        Resource::Tpu => book.fact_value(fact::QUOTA_TPU_SESSION_HOURS),
    };
    let logged: f64 = log
        .runs
        .iter()
        .filter(|run| run.accelerator == charged_to)
        .map(|run| {
            let most = run.gpu_hours.or(run.hours).unwrap_or(default_cap);
            let end = run.finished_at.unwrap_or(read_at).min(read_at);
            let window = match run.pushed_at {
                Some(pushed) => hours_between(pushed.max(week_start), end).max(0.0),
                // no push time: the whole week up to its end, when it ended inside it
                None if end > week_start => hours_between(week_start, end),
                None => 0.0,
            };
            most.min(window)
        })
        .fold(0.0, |sum, h| sum + h);
    (used - logged).max(0.0)
}

// ------------------------------------------------------------------ rules

/// The rules of one accelerator's quota, in the order their findings are added.
const ACCELERATOR_RULES: &[fn(&Accelerator, &Thresholds, &mut Findings)] = &[
    week_rolled_over,
    total_unknown,
    reset_assumed,
    hours_reserved,
    pending_pushes_hold_their_cap,
    hours_spent_by_no_logged_run,
    hours_expire_at_the_reset,
    nothing_plannable,
];

/// The rules of the quota as a whole, after those of each accelerator.
const QUOTA_RULES: &[fn(&QuotaRun, &Thresholds, &mut Findings)] = &[
    no_figure,
    stale_runs_skipped,
    replaced_runs_skipped,
    not_live,
];

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

/// KQ009: the input did not give the weekly total (kgkit's `total_h: 0`): the facts' weekly hours stand
/// in for it, in the rolled-over week and in every reset a plan counts.
fn total_unknown(a: &Accelerator, _: &Thresholds, out: &mut Findings) {
    if !a.read.total_unknown {
        return;
    }
    out.add(
        rule::KQ009,
        format!(
            "{}: the input gives no weekly total (kgkit writes total_h 0 when it could not read it); planned on the weekly {} h of the facts",
            a.resource.name(),
            shortest(a.read.total)
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
    let list: Vec<String> = a.held.iter().map(describe_reservation).collect();
    let what = if list.is_empty() {
        format!("timeReserved {} h", fixed(a.reserved, 2))
    } else {
        format!(
            "runs log, counted from the reading at {}: {}",
            rfc3339(a.counted_from),
            list.join("; ")
        )
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

/// One reservation for people: the kernel, how it holds, its cap and what it holds.
fn describe_reservation(r: &Reservation) -> String {
    let cap = if r.cap_assumed {
        format!(
            "{} h cap (the session limit: none logged)",
            shortest(r.cap_hours)
        )
    } else {
        format!("{} h cap", shortest(r.cap_hours))
    };
    let how = match r.holding {
        Holding::Running => format!("{} h run before the reading", fixed(r.ran_hours, 2)),
        Holding::Queued => "the whole cap for the whole wait".to_string(),
        Holding::Pending => "the whole cap until Kaggle lists a newer version".to_string(),
    };
    format!(
        "{} ({}, line {}, {cap}, {how}, {} h held)",
        r.kernel,
        r.status,
        r.line,
        fixed(r.reserved_hours, 2)
    )
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

/// KQ004 (stale entries): runs-log entries in flight for longer than they can be reserve nothing.
fn stale_runs_skipped(run: &QuotaRun, thresholds: &Thresholds, out: &mut Findings) {
    let Some(ledger) = run.ledger.as_ref().filter(|l| !l.stale.is_empty()) else {
        return;
    };
    out.push(
        Finding::from_rule(
            rule::KQ050,
            format!(
                "{} stale runs-log entries skipped (running longer than cap + {margin} h, or queued longer than the longest queue wait {} h + cap + {margin} h): {}",
                ledger.stale.len(),
                shortest(rulebook().fact_value(fact::QUOTA_TPU_QUEUE_MAX_HOURS)),
                ledger.stale.join("; "),
                margin = shortest(thresholds.get(threshold::QUOTA_STALE_RUN_MARGIN_HOURS)),
            ),
        )

    );
}

/// KQ004 (re-pushed kernels): an older in-flight entry of a kernel pushed again holds nothing.
fn replaced_runs_skipped(run: &QuotaRun, _: &Thresholds, out: &mut Findings) {
    let Some(ledger) = run.ledger.as_ref().filter(|l| !l.replaced.is_empty()) else {
        return;
    };
    out.push(Finding::from_rule(
        rule::KQ051,
        format!(
            "{} runs-log entries replaced by a later push of the same kernel: {}",
            ledger.replaced.len(),
            ledger.replaced.join("; ")
        ),
    ));
}

/// KQ016: the week's used hours exceed what the runs log's runs can have spent: an unlogged session
/// (an interactive one burns quota while open, even idle) is spending quota.
fn hours_spent_by_no_logged_run(a: &Accelerator, thresholds: &Thresholds, out: &mut Findings) {
    let Some(unlogged) = a.unlogged else {
        return;
    };
    if unlogged <= thresholds.get(threshold::QUOTA_UNLOGGED_HOURS) {
        return;
    }
    out.add(
        rule::KQ016,
        format!(
            "{}: {} h used this week by the reading at {}, at most {} h of them by runs in the log: {} h spent by no logged run (an interactive session, which burns quota while open even when idle, or a session started elsewhere)",
            a.resource.name(),
            fixed(a.read.used, 2),
            rfc3339(a.counted_from),
            fixed(a.read.used - unlogged, 2),
            fixed(unlogged, 2)
        ),
    );
}

/// KQ008: pushes logged as pending hold their whole cap until Kaggle lists a newer version.
fn pending_pushes_hold_their_cap(a: &Accelerator, _: &Thresholds, out: &mut Findings) {
    let pending: Vec<String> = a
        .held
        .iter()
        .filter(|r| r.holding == Holding::Pending)
        .map(|r| {
            format!(
                "{} (line {}, {} h)",
                r.kernel,
                r.line,
                fixed(r.reserved_hours, 2)
            )
        })
        .collect();
    if pending.is_empty() {
        return;
    }
    out.add(
        rule::KQ008,
        format!(
            "{}: {} pending push(es) hold their whole cap: {}",
            a.resource.name(),
            pending.len(),
            pending.join("; ")
        ),
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
    // What the figure cannot show: hours spent since it was read.
    let unseen = if run.ledger.is_some() {
        "runs logged since are counted, sessions started since from the website or another machine are not"
    } else {
        "no runs log given: no hours spent since are counted"
    };
    out.add(
        rule::KQ001,
        format!(
            "NOT LIVE: {why}; live limit {} min; {unseen}",
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
    if runs.is_some() {
        out.uses(fact::QUOTA_TPU_SESSION_HOURS);
        out.uses(fact::QUOTA_TPU_QUEUE_MIN_HOURS);
        out.uses(fact::QUOTA_TPU_QUEUE_MAX_HOURS);
    }
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

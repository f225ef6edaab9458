//! The budget until the deadline (spec §7, KG §4): resets before the deadline, total hours, phase, final
//! reserve, exploration budget, and with a measured cost per fold the screen/promotion cycles it buys and
//! the last safe start of a final full-CV run. The request is [`PlanRequest`], the entry point [`plan`];
//! its rules are functions over [`PlanRun`], after the quota's own.

mod budget;

pub use budget::*;

use crate::text::count::counted;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::quota::{
    HOURS_PER_WEEK, Observed, QuotaForm, QuotaReading, QuotaReport, QuotaText, RunsLog,
    hours_between, quota_state, read_runs_log, reading_from_numbers, round2,
};
use crate::request::{Overrides, RequestError, now_of};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::ids::{EntryId, rule, threshold};
use crate::rulebook::report::{Findings, Report};
use crate::text::number::{fixed, shortest};
use crate::text::when::{DateRole, display_utc, parse_time, rfc3339};

pub const PLAN_SCHEMA: &str = "kgadvise.plan/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Exploration,
    FinalWeek,
    Ended,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Exploration => "exploration",
            Phase::FinalWeek => "final-week",
            Phase::Ended => "ended",
        }
    }
}

/// `kgadvise plan`: the budget of the GPU (and of the TPU when the quota has it) until a deadline. The
/// quota comes as text (`quota`) or as the GPU hours remaining (`gpuRemaining`); the other figures
/// change it as given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanRequest {
    /// The deadline: RFC 3339 or a date (a bare date ends at 23:59:00 UTC). Required.
    #[cfg_attr(feature = "schema", schemars(extend("x-required" = true, "x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "DEADLINE", required = true))]
    pub deadline: Option<String>,
    /// The quota as text, in any form the `quota` advisor reads (instead of `gpuRemaining`).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub quota: Option<String>,
    /// GPU hours remaining now (instead of the quota).
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub gpu_remaining: Option<f64>,
    /// TPU hours remaining now: plans the TPU too (replaces the quota's TPU remaining hours).
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub tpu_remaining: Option<f64>,
    /// The next reset (refreshAt of `kaggle quota`; RFC 3339, UTC without a zone); replaces the quota's.
    /// Default: the facts' weekly reset.
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(long, value_name = "T"))]
    pub refresh_at: Option<String>,
    /// GPU hours held by running sessions (plannable = remaining - reserved).
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub reserved: Option<f64>,
    /// kgkit's runs log as text: its runs in flight reserve hours.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub runs: Option<String>,
    /// Measured cost of one fold, hours on one GPU (with the folds).
    #[cfg_attr(feature = "cli", arg(long, value_name = "C", requires = "folds", value_parser = crate::text::hours::parse_hours))]
    pub fold_hours: Option<f64>,
    /// Folds of a full-CV run (with the fold hours).
    #[cfg_attr(feature = "cli", arg(long, value_name = "K", requires = "fold_hours"))]
    pub folds: Option<u32>,
    /// One-fold screens per full-CV promotion (default: threshold.plan.screens-per-promotion).
    #[cfg_attr(feature = "cli", arg(long, value_name = "S"))]
    pub screens_per_promotion: Option<u32>,
    /// The quota was read just now (live).
    #[cfg_attr(feature = "cli", arg(skip))]
    pub live: bool,
    /// When the `quota` was read (RFC 3339 or a date; a time after `now` says nothing).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub read_at: Option<String>,
    /// Weekly GPU hours when they differ from the facts' (a floating quota, e.g. 45).
    #[cfg_attr(feature = "cli", arg(long, value_name = "H", value_parser = crate::text::hours::parse_hours))]
    pub weekly_hours: Option<f64>,
    /// The time of the answer (RFC 3339 or a date; default: the caller's clock).
    #[cfg_attr(feature = "schema", schemars(extend("x-time" = true)))]
    #[cfg_attr(feature = "cli", arg(skip))]
    pub now: Option<String>,
    /// Threshold overrides.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub set: Overrides,
}

/// `kgadvise plan`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanReport {
    pub schema: &'static str,
    pub now: String,
    pub deadline: String,
    pub days_left: f64,
    pub phase: Phase,
    pub plannable_now: f64,
    pub resets_before_deadline: u32,
    pub weekly_hours: f64,
    pub total_hours: f64,
    pub final_reserve_hours: f64,
    pub exploration_hours: f64,
    pub use_it_or_lose_it: bool,
    pub weeks: Vec<WeekBudget>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_hours: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promotion_hours: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promotions: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_safe_start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fold_plan: Option<FoldPlan>,
    /// The TPU's budget, when the quota has TPU data (same keys as the GPU's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpu_budget: Option<Budget>,
    /// The quota the plan is built on.
    pub quota: QuotaReport,
    pub rules: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report for PlanReport {
    fn findings(&self) -> &[Finding] {
        &self.findings
    }

    fn text(&self) -> String {
        crate::quota::text::plan(self)
    }
}

fn non_negative_hours(field: &str, value: Option<f64>) -> Result<Option<f64>, RequestError> {
    match value {
        Some(x) if !(x.is_finite() && (0.0..=HOURS_PER_WEEK).contains(&x)) => {
            Err(RequestError::value(
                field,
                shortest(x),
                format!(
                    "expected a non-negative number of hours, at most {} (one week)",
                    shortest(HOURS_PER_WEEK)
                ),
            ))
        }
        _ => Ok(value),
    }
}

fn time(
    field: &str,
    text: Option<&str>,
    role: DateRole,
) -> Result<Option<DateTime<Utc>>, RequestError> {
    text.map(|t| parse_time(t, role).map_err(|e| RequestError::new(field, e)))
        .transpose()
}

/// The measured cost per fold, when given (both fields or neither).
fn fold_cost(request: &PlanRequest) -> Result<Option<FoldCost>, RequestError> {
    const TOGETHER: &str = "the hours per fold and the folds go together: give both, or neither";
    if let Some(c) = request.fold_hours
        && !(c.is_finite() && c > 0.0)
    {
        return Err(RequestError::value(
            "foldHours",
            shortest(c),
            "expected a positive number of hours",
        ));
    }
    if request.folds == Some(0) {
        return Err(RequestError::value(
            "folds",
            "0",
            "expected at least 1 fold",
        ));
    }
    match (request.fold_hours, request.folds) {
        (Some(hours), Some(folds)) => Ok(Some(FoldCost { hours, folds })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(RequestError::new(
            "folds",
            format!("expected the folds too: {TOGETHER}"),
        )),
        (None, Some(_)) => Err(RequestError::new(
            "foldHours",
            format!("expected the hours per fold too: {TOGETHER}"),
        )),
    }
}

/// The figures given by hand that change the quota as read (or make it, from `gpuRemaining`).
struct Figures {
    gpu_remaining: Option<f64>,
    tpu_remaining: Option<f64>,
    refresh: Option<DateTime<Utc>>,
    reserved: Option<f64>,
    weekly: Option<f64>,
}

impl Figures {
    fn of(request: &PlanRequest) -> Result<Figures, RequestError> {
        let weekly = request.weekly_hours;
        if let Some(w) = weekly
            && !(w.is_finite() && w > 0.0 && w <= HOURS_PER_WEEK)
        {
            return Err(RequestError::value(
                "weeklyHours",
                shortest(w),
                format!(
                    "expected hours between 0 and {} (one week)",
                    shortest(HOURS_PER_WEEK)
                ),
            ));
        }
        Ok(Figures {
            gpu_remaining: non_negative_hours("gpuRemaining", request.gpu_remaining)?,
            tpu_remaining: non_negative_hours("tpuRemaining", request.tpu_remaining)?,
            refresh: time(
                "refreshAt",
                request.refresh_at.as_deref(),
                DateRole::Instant,
            )?,
            reserved: non_negative_hours("reserved", request.reserved)?,
            weekly,
        })
    }

    /// The reading with the figures given: a weekly total, the reset, the GPU's reserved hours, the TPU's
    /// remaining hours.
    fn adjust(&self, r: &mut QuotaReading) {
        if let (Some(w), Some(g)) = (self.weekly, r.gpu.as_mut()) {
            g.total = w;
            g.total_unknown = false;
            g.remaining = g.remaining.min(w);
            g.used = (w - g.remaining).max(0.0);
        }
        if self.refresh.is_some() {
            for q in [r.gpu.as_mut(), r.tpu.as_mut()].into_iter().flatten() {
                q.refresh_at = self.refresh;
            }
        }
        if let (Some(h), Some(g)) = (self.reserved, r.gpu.as_mut()) {
            g.reserved = Some(h);
        }
        if let Some(t) = self.tpu_remaining {
            if r.tpu.is_none() || r.form == QuotaForm::Numbers {
                r.tpu = reading_from_numbers(None, Some((t, self.refresh))).tpu;
            } else if let Some(q) = r.tpu.as_mut() {
                q.remaining = t;
            }
        }
    }
}

/// The quota the plan is built on: the `quota` text or the `gpuRemaining` hours, with the figures given.
fn quota_of(
    request: &PlanRequest,
    figures: &Figures,
    runs: Option<&RunsLog>,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<QuotaReport, RequestError> {
    let text = QuotaText {
        quota: request.quota.as_deref().unwrap_or(""),
        runs: None,
        live: request.live,
        read_at: request.read_at.as_deref(),
    };
    let (mut reading, observed) = match (&request.quota, figures.gpu_remaining) {
        (Some(_), None) => (text.reading()?, text.observed(now)?),
        (None, Some(h)) => (
            reading_from_numbers(Some((h, figures.refresh)), None),
            Observed::Now,
        ),
        (Some(_), Some(_)) => {
            return Err(RequestError::new(
                "gpuRemaining",
                "expected the GPU hours remaining or the quota, not both",
            ));
        }
        (None, None) => {
            return Err(RequestError::new(
                "gpuRemaining",
                "expected the GPU hours remaining, or the quota in any form of `kaggle quota`",
            ));
        }
    };
    figures.adjust(&mut reading);
    Ok(quota_state(&reading, runs, observed, now, thresholds))
}

/// `kgadvise plan`: the budget of the GPU (and of the TPU when the quota has it) until the deadline.
/// Errors name the request field and what was expected.
pub fn plan(request: &PlanRequest, clock: DateTime<Utc>) -> Result<PlanReport, RequestError> {
    let now = now_of(request.now.as_deref(), clock)?;
    let thresholds = request.set.thresholds()?;
    let runs = request.runs.as_deref().map(read_runs_log);
    plan_at(request, runs.as_ref(), now, &thresholds)
}

/// [`plan`] with the runs log as read, at the time `now`, with the `thresholds` given: for a surface that
/// takes none of `runs`, `now` and `set` (the page), which then carries no code to read them. The
/// request's own `runs`, `now` and `set` are not read.
pub fn plan_at(
    request: &PlanRequest,
    runs: Option<&RunsLog>,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<PlanReport, RequestError> {
    let Some(deadline) = time("deadline", request.deadline.as_deref(), DateRole::Deadline)? else {
        return Err(RequestError::new(
            "deadline",
            "expected the deadline: RFC 3339 or a date such as 2026-12-17 (ends 23:59 UTC)",
        ));
    };
    let figures = Figures::of(request)?;
    let fold = fold_cost(request)?;
    let quota = quota_of(request, &figures, runs, now, thresholds)?;
    plan_on(
        quota,
        deadline,
        fold,
        request.screens_per_promotion,
        now,
        thresholds,
    )
}

/// What every plan rule reads: the deadline, the phase, each accelerator's budget and the fold plan.
struct PlanRun {
    now: DateTime<Utc>,
    deadline: DateTime<Utc>,
    days_left: f64,
    final_days: f64,
    phase: Phase,
    gpu: Budget,
    tpu: Option<Budget>,
    screens_per_promotion: u32,
    fold: Option<FoldPlan>,
}

impl PlanRun {
    fn of(
        quota: &QuotaReport,
        deadline: DateTime<Utc>,
        fold: Option<FoldCost>,
        screens_per_promotion: Option<u32>,
        now: DateTime<Utc>,
        thresholds: &Thresholds,
    ) -> Result<PlanRun, RequestError> {
        let Some(gpu_state) = quota.gpu.as_ref() else {
            return Err(RequestError::new(
                "quota",
                format!(
                    "the quota ({}) has no GPU figure to plan on: expected a GPU row, or the GPU hours remaining",
                    quota.form.describe()
                ),
            ));
        };
        let gpu = budget("GPU", gpu_state, now, deadline, thresholds);
        let tpu = quota
            .tpu
            .as_ref()
            .map(|s| budget("TPU", s, now, deadline, thresholds));
        let days_left = hours_between(now, deadline) / 24.0;
        let final_days = thresholds.get(threshold::PLAN_FINAL_WEEK_DAYS);
        let phase = if deadline <= now {
            Phase::Ended
        } else if days_left <= final_days {
            Phase::FinalWeek
        } else {
            Phase::Exploration
        };
        let screens_per_promotion = screens_per_promotion.unwrap_or_else(|| {
            thresholds
                .get(threshold::PLAN_SCREENS_PER_PROMOTION)
                .round()
                .max(0.0) as u32
        });
        let fold = fold.map(|cost| {
            fold_plan(
                gpu.exploration_hours,
                cost,
                screens_per_promotion,
                deadline,
                thresholds,
            )
        });
        Ok(PlanRun {
            now,
            deadline,
            days_left,
            final_days,
            phase,
            gpu,
            tpu,
            screens_per_promotion,
            fold,
        })
    }
}

// ------------------------------------------------------------------ rules

/// The plan's rules, in the order their findings are added.
const PLAN_RULES: &[fn(&PlanRun, &Thresholds, &mut Findings)] = &[
    budget_until_the_deadline,
    deadline_passed,
    final_week,
    promotion_cost,
    last_safe_start,
    no_full_cycle,
];

/// KQ010: the budget until the deadline, in every plan.
fn budget_until_the_deadline(run: &PlanRun, _: &Thresholds, out: &mut Findings) {
    let gpu = &run.gpu;
    let tpu = run
        .tpu
        .as_ref()
        .map(|t| {
            format!(
                "; TPU {} h now + {} x {} h = {} TPU-hours",
                fmt_h(t.plannable_now),
                t.resets_before_deadline,
                fmt_h(t.weekly_hours),
                fmt_h(t.total_hours)
            )
        })
        .unwrap_or_default();
    out.uses(threshold::PLAN_FINAL_WEEK_DAYS);
    out.add(
        rule::KQ010,
        format!(
            "{} h now + {} weekly reset(s) x {} h = {} GPU-hours until {}; final reserve {} h, exploration {} h{tpu}",
            fmt_h(gpu.plannable_now),
            gpu.resets_before_deadline,
            fmt_h(gpu.weekly_hours),
            fmt_h(gpu.total_hours),
            rfc3339(run.deadline),
            fmt_h(gpu.final_reserve_hours),
            fmt_h(gpu.exploration_hours),
        ),
    );
}

/// KQ012: the deadline has passed.
fn deadline_passed(run: &PlanRun, _: &Thresholds, out: &mut Findings) {
    if run.phase == Phase::Ended {
        out.add(
            rule::KQ012,
            format!(
                "deadline {} is {} days before now ({})",
                rfc3339(run.deadline),
                fixed(-run.days_left, 1),
                rfc3339(run.now)
            ),
        );
    }
}

/// KQ011: the final week: no new ideas.
fn final_week(run: &PlanRun, _: &Thresholds, out: &mut Findings) {
    if run.phase == Phase::FinalWeek {
        out.add(
            rule::KQ011,
            format!(
                "{} days left (final week: {} days or fewer); {} GPU-hours",
                fixed(run.days_left, 1),
                shortest(run.final_days),
                fmt_h(run.gpu.total_hours)
            ),
        );
    }
}

/// KQ013: with a fold cost, what a screen and a promotion cost and the cycles the exploration buys.
fn promotion_cost(run: &PlanRun, thresholds: &Thresholds, out: &mut Findings) {
    let Some(fp) = &run.fold else {
        return;
    };
    out.uses(threshold::PLAN_SCREENS_PER_PROMOTION);
    out.uses(threshold::PLAN_FULL_CV_OVERHEAD_HOURS);
    out.add(
        rule::KQ013,
        format!(
            "c = {} h, K = {}: screen {} h, promotion ceil({}/2) x {} + {} = {} h (kgkit's c x K/2 = {} h); cycle of {} screens + 1 promotion = {} h; {} h of exploration buy {}, {} and {}, {} h left over",
            shortest(fp.fold_hours),
            fp.folds,
            fmt_h(fp.screen_hours),
            fp.folds,
            shortest(fp.fold_hours),
            shortest(thresholds.get(threshold::PLAN_FULL_CV_OVERHEAD_HOURS)),
            fmt_h(fp.promotion_hours),
            fmt_h(fp.kgkit_promotion_hours),
            run.screens_per_promotion,
            fmt_h(fp.cycle_hours),
            fmt_h(run.gpu.exploration_hours),
            counted(fp.cycles as u64, "cycle", "cycles"),
            counted(fp.screens as u64, "screen", "screens"),
            counted(fp.promotions as u64, "promotion", "promotions"),
            fmt_h(fp.leftover_hours)
        ),
    );
}

/// KQ014: the last safe start of the final full-CV run (a warning within a day of it, or after it).
fn last_safe_start(run: &PlanRun, thresholds: &Thresholds, out: &mut Findings) {
    let Some(fp) = &run.fold else {
        return;
    };
    out.uses(threshold::CAP_FULL_CV_FACTOR);
    let last = run.deadline
        - Duration::milliseconds((fp.final_run_cap_hours * 3_600_000.0).round() as i64);
    let hours_to_last = hours_between(run.now, last);
    // Within a day of the last safe start (or past it) is its own warning, while the run can matter.
    let code = if run.phase == Phase::Ended || hours_to_last >= 24.0 {
        rule::KQ014
    } else if hours_to_last < 0.0 {
        rule::KQ052
    } else {
        rule::KQ053
    };
    out.add(
        code,
        format!(
            "final full-CV run capped at {} h ({} x {} h): last safe start {} ({})",
            fmt_h(fp.final_run_cap_hours),
            shortest(thresholds.get(threshold::CAP_FULL_CV_FACTOR)),
            fmt_h(fp.promotion_hours),
            fp.last_safe_start,
            if hours_to_last < 0.0 {
                format!("{} h ago", fixed(-hours_to_last, 1))
            } else {
                format!("{} h from now", fixed(hours_to_last, 1))
            }
        ),
    );
}

/// KQ015: exploring, and the exploration buys no full cycle of screens and a promotion.
fn no_full_cycle(run: &PlanRun, _: &Thresholds, out: &mut Findings) {
    let Some(fp) = &run.fold else {
        return;
    };
    if run.phase == Phase::Exploration && fp.cycles == 0 {
        out.add(
            rule::KQ015,
            format!(
                "exploration {} h < one cycle {} h ({} screens x {} h + {} h promotion)",
                fmt_h(run.gpu.exploration_hours),
                fmt_h(fp.cycle_hours),
                run.screens_per_promotion,
                fmt_h(fp.screen_hours),
                fmt_h(fp.promotion_hours)
            ),
        );
    }
}

/// The plan on a quota state already built: its findings come first (their stale-fact check is redone
/// over the plan's entries). Fails when the quota has no GPU figure to plan on.
pub fn plan_on(
    quota: QuotaReport,
    deadline: DateTime<Utc>,
    fold: Option<FoldCost>,
    screens_per_promotion: Option<u32>,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<PlanReport, RequestError> {
    let run = PlanRun::of(
        &quota,
        deadline,
        fold,
        screens_per_promotion,
        now,
        thresholds,
    )?;
    let mut out = Findings::new();
    for f in quota.findings.iter().filter(|f| f.rule != rule::KH004) {
        out.push(f.clone());
    }
    for id in quota.rules.iter().filter_map(|id| EntryId::of_book(id)) {
        out.uses(id);
    }
    for rule in PLAN_RULES {
        rule(&run, thresholds, &mut out);
    }
    let closed = out.finish(now.date_naive(), thresholds);
    let (gpu, fp) = (run.gpu, run.fold);
    Ok(PlanReport {
        schema: PLAN_SCHEMA,
        now: rfc3339(now),
        deadline: rfc3339(deadline),
        days_left: round2(run.days_left),
        phase: run.phase,
        plannable_now: gpu.plannable_now,
        resets_before_deadline: gpu.resets_before_deadline,
        weekly_hours: gpu.weekly_hours,
        total_hours: gpu.total_hours,
        final_reserve_hours: gpu.final_reserve_hours,
        exploration_hours: gpu.exploration_hours,
        use_it_or_lose_it: gpu.use_it_or_lose_it,
        weeks: gpu.weeks,
        screen_hours: fp.as_ref().map(|f| f.screen_hours),
        promotion_hours: fp.as_ref().map(|f| f.promotion_hours),
        cycles: fp.as_ref().map(|f| f.cycles),
        screens: fp.as_ref().map(|f| f.screens),
        promotions: fp.as_ref().map(|f| f.promotions),
        last_safe_start: fp.as_ref().map(|f| f.last_safe_start.clone()),
        fold_plan: fp,
        tpu_budget: run.tpu,
        quota,
        rules: closed.rules,
        findings: closed.findings,
    })
}

/// The plan in sentences, as every surface shows it above the findings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanSentences {
    /// The GPU's budget (then the TPU's), or that the deadline has passed.
    pub budgets: Vec<String>,
    /// The phase and the days left (none once the deadline has passed).
    pub phase: Option<String>,
    /// With a fold cost: what a screen and a promotion cost, what the exploration buys, and the last
    /// start of the final full-CV run (none once the deadline has passed).
    pub fold_plan: Vec<String>,
}

impl PlanReport {
    /// The GPU part of the plan as a [`Budget`] (the report keeps its numbers at the top level for the
    /// JSON contract; the TPU part is `tpu_budget`).
    pub fn gpu_budget(&self) -> Budget {
        Budget {
            accelerator: "GPU",
            plannable_now: self.plannable_now,
            next_reset: String::new(),
            resets_before_deadline: self.resets_before_deadline,
            weekly_hours: self.weekly_hours,
            total_hours: self.total_hours,
            final_reserve_hours: self.final_reserve_hours,
            exploration_hours: self.exploration_hours,
            use_it_or_lose_it: self.use_it_or_lose_it,
            weeks: Vec::new(),
        }
    }

    /// The plan in sentences: the budgets, the phase, the fold plan.
    pub fn sentences(&self) -> PlanSentences {
        if self.phase == Phase::Ended {
            return PlanSentences {
                budgets: vec![format!(
                    "The deadline {} has passed: nothing to plan.",
                    display_utc(&self.deadline)
                )],
                phase: None,
                fold_plan: Vec::new(),
            };
        }
        let final_week = self.phase == Phase::FinalWeek;
        let budgets = std::iter::once(self.gpu_budget())
            .chain(self.tpu_budget.clone())
            .map(|b| b.sentence(&self.deadline, final_week))
            .collect();
        PlanSentences {
            budgets,
            phase: Some(format!(
                "Phase: {} ({} days left).",
                self.phase.as_str(),
                fixed(self.days_left, 1)
            )),
            fold_plan: self
                .fold_plan
                .as_ref()
                .map(|fp| {
                    // Both times are the answer's own RFC 3339 text: unreadable only if never written.
                    let at = |t: &str| parse_time(t, DateRole::Instant).ok();
                    let passed = at(&fp.last_safe_start) < at(&self.now);
                    fp.sentences(self.phase, self.exploration_hours, passed)
                })
                .unwrap_or_default(),
        }
    }
}

impl FoldPlan {
    /// What a screen and a promotion cost, what the exploration buys (while exploring), and the last
    /// start of the final full-CV run (or that it has `passed`).
    pub fn sentences(&self, phase: Phase, exploration_hours: f64, passed: bool) -> Vec<String> {
        let mut lines = vec![format!(
            "With {} h per fold and {}: a screen costs {} h, a promotion {} h (ceil({}/2) rounds + overhead; kgkit's c x K/2 says {} h).",
            shortest(self.fold_hours),
            crate::text::count::counted(u64::from(self.folds), "fold", "folds"),
            fmt_h(self.screen_hours),
            fmt_h(self.promotion_hours),
            self.folds,
            fmt_h(self.kgkit_promotion_hours),
        )];
        if phase == Phase::Exploration {
            lines.push(format!(
                "{} h of exploration buy {} of {} screens + 1 promotion: {}, {}, {} h left over.",
                fmt_h(exploration_hours),
                counted(self.cycles as u64, "cycle", "cycles"),
                self.screens_per_promotion,
                counted(self.screens as u64, "screen", "screens"),
                counted(self.promotions as u64, "promotion", "promotions"),
                fmt_h(self.leftover_hours)
            ));
        }
        lines.push(if passed {
            format!(
                "The last safe start of a final full-CV run (cap {} h), {}, has passed: one started now would not end before the deadline.",
                fmt_h(self.final_run_cap_hours),
                display_utc(&self.last_safe_start)
            )
        } else {
            format!(
                "Start the final full-CV run (cap {} h) by {} at the latest.",
                fmt_h(self.final_run_cap_hours),
                display_utc(&self.last_safe_start)
            )
        });
        lines
    }
}

#[cfg(test)]
mod tests;

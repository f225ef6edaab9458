//! The budget until the deadline (spec §7, KG §4): resets before the deadline, total hours, phase, final
//! reserve, exploration budget, and with a measured cost per fold the screen/promotion cycles it buys and
//! the last safe start of a final full-CV run.

use crate::rulebook::ids::{EntryId, rule, threshold};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::quota::cap::{full_cv_cap_hours, full_cv_hours};
use crate::quota::{
    QuotaReport, QuotaState, hours_between, push_rule, round2, use_it_or_lose_it, week,
};
use crate::rulebook::Thresholds;
use crate::rulebook::finding::Finding;
use crate::rulebook::report::{Report, stale_findings_for};
use crate::text::number::{fixed, shortest};
use crate::text::when::rfc3339;

pub const PLAN_SCHEMA: &str = "kgadvise.plan/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// A measured cost per fold: `hours` on one GPU, `folds` folds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FoldCost {
    pub hours: f64,
    pub folds: u32,
}

/// One week of the breakdown (for the web chart).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeekBudget {
    pub start: String,
    pub end: String,
    pub hours: f64,
    /// `now` (the hours plannable now) or `reset` (a weekly reset's hours).
    pub kind: &'static str,
    /// The week overlaps the final week before the deadline.
    pub final_week: bool,
    /// Of this week's hours, those kept as the final reserve (taken from the last weeks backwards).
    pub reserve_hours: f64,
}

/// One accelerator's budget until the deadline (contract keys for the GPU; the TPU has the same).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    pub accelerator: &'static str,
    pub plannable_now: f64,
    pub next_reset: String,
    pub resets_before_deadline: u32,
    pub weekly_hours: f64,
    pub total_hours: f64,
    pub final_reserve_hours: f64,
    pub exploration_hours: f64,
    pub use_it_or_lose_it: bool,
    pub weeks: Vec<WeekBudget>,
}

/// The exploration budget in screens and promotions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FoldPlan {
    pub fold_hours: f64,
    pub folds: u32,
    pub screens_per_promotion: u32,
    /// c/2: two one-fold screens share a session, one per T4.
    pub screen_hours: f64,
    /// ceil(K/2) x c + overhead: K folds on two T4s run in ceil(K/2) rounds.
    pub promotion_hours: f64,
    /// kgkit's c x K/2, for comparison.
    pub kgkit_promotion_hours: f64,
    pub cycle_hours: f64,
    pub cycles: u32,
    pub screens: u32,
    pub promotions: u32,
    pub leftover_hours: f64,
    /// The cap of the final full-CV run (1.3 x promotion hours).
    pub final_run_cap_hours: f64,
    pub last_safe_start: String,
}

/// `kgadvise plan`.
#[derive(Debug, Clone, Serialize)]
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
}

/// Resets strictly before the deadline, counted from the next reset (already rolled past `now`) in 7-day
/// steps. A reset that lands before the deadline counts, even on the last day.
///
/// kgkit counts from the *stored* refreshAt: when that is already in the past it counts the reset that has
/// happened (whose hours are the full week already in `plannable_now`) once more. We roll the stored time
/// forward first ([`crate::quota::roll_forward`]) and count only resets after `now`, so no week is counted
/// twice.
pub fn resets_before(
    next_reset: DateTime<Utc>,
    now: DateTime<Utc>,
    deadline: DateTime<Utc>,
) -> u32 {
    if deadline <= now || next_reset >= deadline {
        return 0;
    }
    let span = (deadline - next_reset).num_milliseconds();
    let w = week().num_milliseconds();
    // k >= 0 with next + k·week < deadline: ceil(span / week).
    let n = (span + w - 1) / w;
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One accelerator's budget.
pub fn budget(
    accelerator: &'static str,
    state: &QuotaState,
    now: DateTime<Utc>,
    deadline: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Budget {
    let weekly = state.total;
    let ended = deadline <= now;
    let final_days = thresholds.get(threshold::PLAN_FINAL_WEEK_DAYS);
    let final_start = deadline - Duration::milliseconds((final_days * 86_400_000.0) as i64);
    let in_final = !ended && now >= final_start;
    let plannable_now = if ended { 0.0 } else { state.plannable };
    let resets = resets_before(state.next_reset, now, deadline);
    let total = plannable_now + f64::from(resets) * weekly;
    let (reserve, exploration) = if ended {
        (0.0, 0.0)
    } else if in_final {
        (total, 0.0)
    } else {
        let r = total.min(weekly);
        (r, total - r)
    };
    let mut weeks = Vec::new();
    if !ended {
        let end = state.next_reset.min(deadline);
        weeks.push(WeekBudget {
            start: rfc3339(now),
            end: rfc3339(end),
            hours: round2(plannable_now),
            kind: "now",
            final_week: end > final_start,
            reserve_hours: 0.0,
        });
        let mut start = state.next_reset;
        for _ in 0..resets {
            let end = (start + week()).min(deadline);
            weeks.push(WeekBudget {
                start: rfc3339(start),
                end: rfc3339(end),
                hours: round2(weekly),
                kind: "reset",
                final_week: end > final_start,
                reserve_hours: 0.0,
            });
            start += week();
        }
        let mut left = reserve;
        for w in weeks.iter_mut().rev() {
            let take = w.hours.min(left).max(0.0);
            w.reserve_hours = round2(take);
            left -= take;
        }
    }
    Budget {
        accelerator,
        plannable_now: round2(plannable_now),
        next_reset: rfc3339(state.next_reset),
        resets_before_deadline: resets,
        weekly_hours: round2(weekly),
        total_hours: round2(total),
        final_reserve_hours: round2(reserve),
        exploration_hours: round2(exploration),
        use_it_or_lose_it: !ended
            && use_it_or_lose_it(
                hours_between(now, state.next_reset),
                plannable_now,
                thresholds,
            ),
        weeks,
    }
}

/// Screens and promotions the exploration budget buys, and the last safe start of the final full-CV run.
pub fn fold_plan(
    exploration: f64,
    cost: FoldCost,
    screens_per_promotion: u32,
    deadline: DateTime<Utc>,
    thresholds: &Thresholds,
) -> FoldPlan {
    let c = cost.hours;
    let screen = c / 2.0;
    let promotion = full_cv_hours(c, cost.folds, 2, thresholds);
    let cycle = f64::from(screens_per_promotion) * screen + promotion;
    let cycles = if cycle > 0.0 {
        (exploration / cycle + 1e-9).floor().max(0.0) as u32
    } else {
        0
    };
    let leftover = (exploration - f64::from(cycles) * cycle).max(0.0);
    let extra_screens = if screen > 0.0 {
        (leftover / screen + 1e-9).floor().max(0.0) as u32
    } else {
        0
    };
    let cap = full_cv_cap_hours(c, cost.folds, 2, thresholds);
    let last_safe = deadline - Duration::milliseconds((cap * 3_600_000.0).round() as i64);
    FoldPlan {
        fold_hours: c,
        folds: cost.folds,
        screens_per_promotion,
        screen_hours: round2(screen),
        promotion_hours: round2(promotion),
        kgkit_promotion_hours: round2(c * f64::from(cost.folds) / 2.0),
        cycle_hours: round2(cycle),
        cycles,
        screens: cycles
            .saturating_mul(screens_per_promotion)
            .saturating_add(extra_screens),
        promotions: cycles,
        leftover_hours: round2((leftover - f64::from(extra_screens) * screen).max(0.0)),
        final_run_cap_hours: round2(cap),
        last_safe_start: rfc3339(last_safe),
    }
}

/// `kgadvise plan`: the budget of the GPU (and of the TPU when the quota has it) until `deadline`.
/// Returns an error message when the quota has no GPU figure to plan on.
pub fn plan(
    quota: QuotaReport,
    deadline: DateTime<Utc>,
    fold: Option<FoldCost>,
    screens_per_promotion: Option<u32>,
    now: DateTime<Utc>,
    thresholds: &Thresholds,
) -> Result<PlanReport, String> {
    let Some(gpu_state) = quota.gpu.as_ref() else {
        return Err(format!(
            "the quota ({}) has no GPU figure to plan on: expected a GPU row, or give --gpu-remaining H",
            quota.form.describe()
        ));
    };
    let mut rules = quota.rules.clone();
    let mut findings: Vec<Finding> = quota
        .findings
        .iter()
        .filter(|f| f.rule != rule::KH004)
        .cloned()
        .collect();
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
    push_rule(&mut rules, rule::KQ010);
    push_rule(&mut rules, threshold::PLAN_FINAL_WEEK_DAYS);
    findings.push(Finding::from_rule(
        rule::KQ010,
        format!(
            "{} h now + {} weekly reset(s) x {} h = {} GPU-hours until {}; final reserve {} h, exploration {} h{}",
            fmt_h(gpu.plannable_now),
            gpu.resets_before_deadline,
            fmt_h(gpu.weekly_hours),
            fmt_h(gpu.total_hours),
            rfc3339(deadline),
            fmt_h(gpu.final_reserve_hours),
            fmt_h(gpu.exploration_hours),
            tpu.as_ref()
                .map(|t| format!(
                    "; TPU {} h now + {} x {} h = {} TPU-hours",
                    fmt_h(t.plannable_now),
                    t.resets_before_deadline,
                    fmt_h(t.weekly_hours),
                    fmt_h(t.total_hours)
                ))
                .unwrap_or_default()
        ),
    ));
    match phase {
        Phase::Ended => {
            push_rule(&mut rules, rule::KQ012);
            findings.push(Finding::from_rule(
                rule::KQ012,
                format!(
                    "deadline {} is {} days before now ({})",
                    rfc3339(deadline),
                    fixed(-days_left, 1),
                    rfc3339(now)
                ),
            ));
        }
        Phase::FinalWeek => {
            push_rule(&mut rules, rule::KQ011);
            findings.push(Finding::from_rule(
                rule::KQ011,
                format!(
                    "{} days left (final week: {} days or fewer); {} GPU-hours",
                    fixed(days_left, 1),
                    shortest(final_days),
                    fmt_h(gpu.total_hours)
                ),
            ));
        }
        Phase::Exploration => {}
    }
    let s = screens_per_promotion.unwrap_or_else(|| {
        thresholds
            .get(threshold::PLAN_SCREENS_PER_PROMOTION)
            .round()
            .max(0.0) as u32
    });
    let fp = fold.map(|cost| fold_plan(gpu.exploration_hours, cost, s, deadline, thresholds));
    if let Some(fp) = &fp {
        for id in [
            rule::KQ013.into(),
            rule::KQ014.into(),
            threshold::PLAN_SCREENS_PER_PROMOTION.into(),
            threshold::PLAN_FULL_CV_OVERHEAD_HOURS.into(),
            threshold::CAP_FULL_CV_FACTOR.into(),
        ] as [EntryId; 5]
        {
            push_rule(&mut rules, id);
        }
        findings.push(Finding::from_rule(
            rule::KQ013,
            format!(
                "c = {} h, K = {}: screen {} h, promotion ceil({}/2) x {} + {} = {} h (kgkit's c x K/2 = {} h); cycle of {} screens + 1 promotion = {} h; {} h of exploration buy {} cycles, {} screens and {} promotions, {} h left over",
                shortest(fp.fold_hours),
                fp.folds,
                fmt_h(fp.screen_hours),
                fp.folds,
                shortest(fp.fold_hours),
                shortest(thresholds.get(threshold::PLAN_FULL_CV_OVERHEAD_HOURS)),
                fmt_h(fp.promotion_hours),
                fmt_h(fp.kgkit_promotion_hours),
                s,
                fmt_h(fp.cycle_hours),
                fmt_h(gpu.exploration_hours),
                fp.cycles,
                fp.screens,
                fp.promotions,
                fmt_h(fp.leftover_hours)
            ),
        ));
        let last = deadline
            - Duration::milliseconds((fp.final_run_cap_hours * 3_600_000.0).round() as i64);
        let hours_to_last = hours_between(now, last);
        let mut f = Finding::from_rule(
            rule::KQ014,
            format!(
                "final full-CV run capped at {} h (1.3 x {} h): last safe start {} ({} h from now)",
                fmt_h(fp.final_run_cap_hours),
                fmt_h(fp.promotion_hours),
                fp.last_safe_start,
                fixed(hours_to_last, 1)
            ),
        );
        if phase != Phase::Ended && hours_to_last < 24.0 {
            f = f
                .with_severity(crate::Severity::Warning)
                .with_title(if hours_to_last < 0.0 {
                    "The last safe start of the final full-CV run has passed"
                } else {
                    "The last safe start of the final full-CV run is within a day"
                });
        }
        findings.push(f);
        if phase == Phase::Exploration && fp.cycles == 0 {
            push_rule(&mut rules, rule::KQ015);
            findings.push(Finding::from_rule(
                rule::KQ015,
                format!(
                    "exploration {} h < one cycle {} h ({} screens x {} h + {} h promotion)",
                    fmt_h(gpu.exploration_hours),
                    fmt_h(fp.cycle_hours),
                    s,
                    fmt_h(fp.screen_hours),
                    fmt_h(fp.promotion_hours)
                ),
            ));
        }
    }
    findings.extend(stale_findings_for(&rules, now.date_naive(), thresholds));
    Ok(PlanReport {
        schema: PLAN_SCHEMA,
        now: rfc3339(now),
        deadline: rfc3339(deadline),
        days_left: round2(days_left),
        phase,
        plannable_now: gpu.plannable_now,
        resets_before_deadline: gpu.resets_before_deadline,
        weekly_hours: gpu.weekly_hours,
        total_hours: gpu.total_hours,
        final_reserve_hours: gpu.final_reserve_hours,
        exploration_hours: gpu.exploration_hours,
        use_it_or_lose_it: gpu.use_it_or_lose_it,
        weeks: gpu.weeks.clone(),
        screen_hours: fp.as_ref().map(|f| f.screen_hours),
        promotion_hours: fp.as_ref().map(|f| f.promotion_hours),
        cycles: fp.as_ref().map(|f| f.cycles),
        screens: fp.as_ref().map(|f| f.screens),
        promotions: fp.as_ref().map(|f| f.promotions),
        last_safe_start: fp.as_ref().map(|f| f.last_safe_start.clone()),
        fold_plan: fp,
        tpu_budget: tpu,
        quota,
        rules,
        findings,
    })
}

impl Budget {
    /// The budget in one sentence, as the CLI and the page show it:
    /// `11 h now + 2 weekly resets x 30 h = 71 GPU-hours until 2026-12-17 23:59 UTC; keep 30 h for the
    /// final week (final models and inference kernels), explore with 41 h.` In the final week every hour
    /// goes to the final models.
    pub fn sentence(&self, deadline: &str, final_week: bool) -> String {
        let mut s = format!(
            "{} h now + {} weekly reset{} x {} h = {} {}-hours until {}",
            fmt_h(self.plannable_now),
            self.resets_before_deadline,
            if self.resets_before_deadline == 1 {
                ""
            } else {
                "s"
            },
            fmt_h(self.weekly_hours),
            fmt_h(self.total_hours),
            self.accelerator,
            crate::text::when::display_utc(deadline)
        );
        if final_week {
            s.push_str(&format!(
                "; all {} h go to final models and inference kernels.",
                fmt_h(self.total_hours)
            ));
        } else {
            s.push_str(&format!(
                "; keep {} h for the final week (final models and inference kernels), explore with {} h.",
                fmt_h(self.final_reserve_hours),
                fmt_h(self.exploration_hours)
            ));
        }
        s
    }
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
}

/// Hours for text: at most two decimals, trailing zeros dropped (0.75, 4.8, 30).
pub fn fmt_h(h: f64) -> String {
    let s = fixed(round2(h), 2);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests;

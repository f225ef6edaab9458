//! One accelerator's budget until the deadline (spec §7, KG §4): the resets before it, the week-by-week
//! hours with the final reserve, what the exploration budget buys in screens and promotions, and the
//! budget in one sentence.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::quota::cap::{full_cv_cap_hours, full_cv_hours};
use crate::quota::{QuotaState, hours_between, round2, use_it_or_lose_it, week};
use crate::rulebook::Thresholds;
use crate::rulebook::ids::threshold;
use crate::text::number::fixed;
use crate::text::when::rfc3339;

/// A measured cost per fold: `hours` on one GPU, `folds` folds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FoldCost {
    pub hours: f64,
    pub folds: u32,
}

/// What a week's hours are for, from the final reserve itself (taken from the last weeks backwards): the
/// same split the plan's sentence makes, so a week it counts in "explore with" is never drawn as kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum WeekRole {
    /// Every hour of the week is exploration.
    Exploration,
    /// Part exploration, part kept for the final week.
    Split,
    /// Every hour of the week is kept for the final week.
    FinalReserve,
}

impl WeekRole {
    /// The role of a week of `hours` when `reserve_left` hours of the reserve are still to be taken (the
    /// weeks are visited from the last backwards); a week of no hours inside the reserve is kept too.
    fn of(hours: f64, reserve_left: f64) -> WeekRole {
        if reserve_left <= 0.0 {
            WeekRole::Exploration
        } else if reserve_left >= hours {
            WeekRole::FinalReserve
        } else {
            WeekRole::Split
        }
    }

    /// The role in words, for the chart's table.
    pub fn describe(self) -> &'static str {
        match self {
            WeekRole::Exploration => "exploration",
            WeekRole::Split => "exploration, then kept for the final week",
            WeekRole::FinalReserve => "kept for the final week",
        }
    }
}

/// One week of the breakdown (for the web chart).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// What the week's hours are for, from `reserve_hours`.
    pub role: WeekRole,
}

/// One accelerator's budget until the deadline (contract keys for the GPU; the TPU has the same).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
            role: WeekRole::Exploration,
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
                role: WeekRole::Exploration,
            });
            start += week();
        }
        let mut left = reserve;
        for w in weeks.iter_mut().rev() {
            let take = w.hours.min(left).max(0.0);
            w.reserve_hours = round2(take);
            w.role = WeekRole::of(w.hours, round2(left));
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

impl Budget {
    /// The budget in one sentence, as the CLI and the page show it:
    /// `11 h now + 2 weekly resets x 30 h = 71 GPU-hours until 2026-12-17 23:59 UTC; keep 30 h for the
    /// final week (final models and inference kernels), explore with 41 h.` In the final week every hour
    /// goes to the final models, diverse members before extra seeds.
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
            // KQ011's advice (KG §3.6): diversity beats seeds.
            s.push_str(&format!(
                "; all {} h go to final models and inference kernels, diverse members (another backbone family or resolution) before extra seeds.",
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

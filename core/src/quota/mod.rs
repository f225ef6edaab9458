//! Kaggle accelerator quota (spec §6; formats.md §6, §10) and what is planned on it: the quota state
//! (`kgadvise quota`: rolled-over week, live or not, reservations, plannable hours, use it or lose it),
//! the budget until a deadline ([`plan`]), the cap of a push ([`cap`]) and TPU or GPU ([`tpu`]).
//!
//! - [`read`]: every form a quota comes in, auto-detected into one typed [`QuotaReading`] ([`read_quota`],
//!   which other advisors reuse, e.g. the kernel pre-flight's quota);
//! - [`runs`]: kgkit's runs log; [`ledger`]: what its runs in flight reserve, counted from the reading;
//! - [`state`]: the `quota` request, its rules and [`QuotaReport`];
//! - [`plan`], [`cap`], [`tpu`]: the advisors built on it, each a request and one entry point.

pub mod cap;
pub mod ledger;
pub mod plan;
pub mod read;
pub mod runs;
pub mod state;
pub mod text;
pub mod tpu;

pub use ledger::*;
pub use read::*;
pub use runs::*;
pub use state::*;

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Utc};

use crate::rulebook::Thresholds;
use crate::rulebook::ids::{fact, threshold};
use crate::rulebook::rulebook;

pub fn hours_between(from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    (to - from).num_milliseconds() as f64 / 3_600_000.0
}

pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

pub fn week() -> Duration {
    Duration::days(7)
}

/// The first weekly reset strictly after `now` by the facts (Saturday 00:00 UTC), for inputs without
/// refreshAt.
pub fn assumed_next_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    let book = rulebook();
    let weekday = book.fact_value(fact::QUOTA_RESET_WEEKDAY);
    let hour = book.fact_value(fact::QUOTA_RESET_HOUR_UTC);
    let weekday = if (1.0..=7.0).contains(&weekday) {
        weekday as u32
    } else {
        6
    };
    let hour = if (0.0..24.0).contains(&hour) {
        hour as u32
    } else {
        0
    };
    let today = now.date_naive();
    let shift = (7 + weekday - today.weekday().number_from_monday()) % 7;
    let time = NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or(NaiveTime::MIN);
    let candidate =
        Utc.from_utc_datetime(&(today + Duration::days(i64::from(shift))).and_time(time));
    if candidate > now {
        candidate
    } else {
        candidate + week()
    }
}

/// Rolls a stored reset time forward in 7-day steps to the first reset strictly after `now`; true when it
/// moved (the week has rolled over since the figure was read).
pub fn roll_forward(refresh: DateTime<Utc>, now: DateTime<Utc>) -> (DateTime<Utc>, bool) {
    if refresh > now {
        return (refresh, false);
    }
    let weeks = (now - refresh).num_milliseconds() / week().num_milliseconds() + 1;
    (refresh + Duration::days(7 * weeks), true)
}

/// "Use it or lose it" (kgkit): 0 < hours to reset ≤ window and plannable ≥ minimum.
pub fn use_it_or_lose_it(hours_to_reset: f64, plannable: f64, thresholds: &Thresholds) -> bool {
    hours_to_reset > 0.0
        && hours_to_reset <= thresholds.get(threshold::QUOTA_USE_IT_WINDOW_HOURS)
        && plannable >= thresholds.get(threshold::QUOTA_USE_IT_MIN_HOURS)
}

#[cfg(test)]
mod tests;

//! Times given by users: RFC 3339, or a bare date (a deadline ends at 23:59:00 UTC that day, any other
//! time starts at 00:00:00 UTC), or a naive ISO time without zone (taken as UTC, as Kaggle's refreshAt).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

/// How a bare date is completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateRole {
    /// A deadline: 23:59:00 UTC of that day (kgkit).
    Deadline,
    /// Any other instant: 00:00:00 UTC.
    Instant,
}

/// Parses a user-given time. The error says what was expected.
pub fn parse_time(text: &str, role: DateRole) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt.with_timezone(&Utc));
    }
    // "2026-12-01 08:00:00Z" and friends: RFC 3339 with a space.
    if let Ok(dt) = DateTime::parse_from_rfc3339(&t.replacen(' ', "T", 1)) {
        return Ok(dt.with_timezone(&Utc));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(t, fmt) {
            return Ok(Utc.from_utc_datetime(&naive));
        }
    }
    if let Ok(day) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        let time = match role {
            DateRole::Deadline => NaiveTime::from_hms_opt(23, 59, 0),
            DateRole::Instant => NaiveTime::from_hms_opt(0, 0, 0),
        };
        if let Some(time) = time {
            return Ok(Utc.from_utc_datetime(&day.and_time(time)));
        }
    }
    Err(format!(
        "`{t}` is not a time: expected RFC 3339 (2026-12-01T08:00:00Z) or a date (2026-12-20)"
    ))
}

/// RFC 3339 UTC with a `Z`, seconds precision: the form of every time in kgadvise's JSON.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// `2026-12-05T00:00:00Z` (or any RFC 3339 offset) → `2026-12-05 00:00 UTC`, the form of times in human
/// output on every surface; text that is not RFC 3339 is shown as it came.
pub fn display_utc(rfc3339: &str) -> String {
    use chrono::{Datelike, Timelike};
    match DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => {
            let t = t.with_timezone(&Utc);
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02} UTC",
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute()
            )
        }
        Err(_) => rfc3339.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let d = parse_time("2026-12-20", DateRole::Deadline).unwrap();
        assert_eq!(rfc3339(d), "2026-12-20T23:59:00Z");
        let d = parse_time("2026-12-20", DateRole::Instant).unwrap();
        assert_eq!(rfc3339(d), "2026-12-20T00:00:00Z");
        let d = parse_time("2026-12-01T08:00:00+02:00", DateRole::Instant).unwrap();
        assert_eq!(rfc3339(d), "2026-12-01T06:00:00Z");
        let d = parse_time("2026-09-19T00:00:00", DateRole::Instant).unwrap();
        assert_eq!(rfc3339(d), "2026-09-19T00:00:00Z");
        let e = parse_time("20/12/2026", DateRole::Deadline).unwrap_err();
        assert!(e.contains("expected RFC 3339"), "{e}");
    }

    #[test]
    fn display() {
        assert_eq!(display_utc("2026-12-05T00:00:00Z"), "2026-12-05 00:00 UTC");
        assert_eq!(
            display_utc("2026-12-01T08:30:00+02:00"),
            "2026-12-01 06:30 UTC"
        );
        assert_eq!(display_utc("next Saturday"), "next Saturday");
    }
}

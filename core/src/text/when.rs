//! Times given by users: RFC 3339, or a bare date (a deadline ends at 23:59:00 UTC that day, any other
//! time starts at 00:00:00 UTC), or a naive ISO time without zone (taken as UTC, as Kaggle's refreshAt).

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};

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
    // "2026-09-19T00:00:00", "2026-12-01 08:00", "2026-12-20": naive, taken as UTC.
    if let Some((day, time)) = naive(t) {
        let time = match (time, role) {
            (Some(time), _) => Some(time),
            (None, DateRole::Deadline) => NaiveTime::from_hms_opt(23, 59, 0),
            (None, DateRole::Instant) => NaiveTime::from_hms_opt(0, 0, 0),
        };
        if let Some(time) = time {
            return Ok(Utc.from_utc_datetime(&day.and_time(time)));
        }
    }
    Err(format!(
        "`{t}` is not a time: expected RFC 3339 (2026-12-01T08:00:00Z) or a date (2026-12-20)"
    ))
}

/// A naive date `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM`, `HH:MM:SS` or
/// `HH:MM:SS.fraction` (the forms of chrono's `%Y-%m-%d[T ]%H:%M[:%S%.f]`, read by hand so that chrono's
/// format-string parser stays out of the web page). Fields after the year take one or two digits.
pub fn naive(t: &str) -> Option<(NaiveDate, Option<NaiveTime>)> {
    let mut rest = t;
    let year = number(&mut rest, 1, 9)?;
    let month = sep_number(&mut rest, '-')?;
    let day = sep_number(&mut rest, '-')?;
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    let Some(after) = rest.strip_prefix(['T', ' ']) else {
        return rest.is_empty().then_some((date, None));
    };
    rest = after;
    let hour = number(&mut rest, 1, 2)?;
    let minute = sep_number(&mut rest, ':')?;
    let (mut second, mut nano) = (0, 0);
    if rest.starts_with(':') {
        second = sep_number(&mut rest, ':')?;
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.len() - frac.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                return None;
            }
            let (all, tail) = frac.split_at_checked(digits)?;
            // nanoseconds: the first nine digits, right-padded with zeros
            for i in 0..9 {
                let d = all.as_bytes().get(i).map_or(0, |b| u32::from(b - b'0'));
                nano = nano * 10 + d;
            }
            rest = tail;
        }
    }
    if !rest.is_empty() {
        return None;
    }
    Some((
        date,
        Some(NaiveTime::from_hms_nano_opt(hour, minute, second, nano)?),
    ))
}

/// `sep` then a one- or two-digit number.
fn sep_number(rest: &mut &str, sep: char) -> Option<u32> {
    *rest = rest.strip_prefix(sep)?;
    number(rest, 1, 2)
}

/// An unsigned decimal of `min..=max` digits at the start of `rest`, consumed.
fn number(rest: &mut &str, min: usize, max: usize) -> Option<u32> {
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits < min || digits > max {
        return None;
    }
    let (text, tail) = rest.split_at_checked(digits)?;
    *rest = tail;
    text.parse().ok()
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
        let d = parse_time("2026-12-01 08:05", DateRole::Instant).unwrap();
        assert_eq!(rfc3339(d), "2026-12-01T08:05:00Z");
        let d = parse_time("2026-12-01T08:05:09.123456789123", DateRole::Deadline).unwrap();
        assert_eq!(d.timestamp_subsec_nanos(), 123_456_789);
        let d = parse_time("2026-1-5", DateRole::Instant).unwrap();
        assert_eq!(rfc3339(d), "2026-01-05T00:00:00Z");
        for bad in [
            "2026-12-01T08",
            "2026-12-01T08:00:",
            "2026-12-01T08:00:00.",
            "2026-13-01",
            "2026-12-01x",
            "2026-12-001",
            "2026-12-01T24:00",
        ] {
            assert!(parse_time(bad, DateRole::Instant).is_err(), "{bad}");
        }
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

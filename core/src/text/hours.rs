//! Hours as people and `kaggle quota` write them: a number (`4.5`), or with a unit (`4.5h`, as
//! `kaggle quota` prints used and remaining hours; `90m`; `1h30m`).

use crate::text::decimal::parse_f64;

/// What an hours input must look like, for the message of a value that is not one.
pub const EXPECTED_HOURS: &str = "give hours as a number (4.5) or with a unit (4.5h, 90m, 1h30m)";

/// Hours from `4.5`, `4.5h`, `4.5 hours`, `90m`, `90 min`, `1h30m`; the message says what is expected.
pub fn parse_hours(text: &str) -> Result<f64, String> {
    let t = text.trim().to_ascii_lowercase();
    let refuse = || format!("`{}`: {EXPECTED_HOURS}", text.trim());
    if let Some(v) = parse_f64(&t) {
        return Ok(v);
    }
    // `1h30m`: hours, then minutes.
    if let Some((h, m)) = t.split_once('h')
        && let Some(m) = m.trim().strip_suffix('m')
        && !m.trim().is_empty()
    {
        let (h, m) = (parse_f64(h.trim()), parse_f64(m.trim()));
        return match (h, m) {
            (Some(h), Some(m)) => Ok(h + m / 60.0),
            _ => Err(refuse()),
        };
    }
    let split = t
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(refuse)?;
    let (number, unit) = t.split_at(split);
    let value = parse_f64(number.trim()).ok_or_else(refuse)?;
    match unit.trim() {
        "h" | "hr" | "hrs" | "hour" | "hours" => Ok(value),
        "m" | "min" | "mins" | "minute" | "minutes" => Ok(value / 60.0),
        _ => Err(refuse()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hours_with_and_without_units() {
        for (text, hours) in [
            ("4.5", 4.5),
            (" 4.50h ", 4.5),
            ("4.5 hours", 4.5),
            ("90m", 1.5),
            ("90 min", 1.5),
            ("1h30m", 1.5),
            ("0", 0.0),
        ] {
            assert_eq!(parse_hours(text), Ok(hours), "{text}");
        }
        for bad in ["", "h", "4.5x", "four", "1h30", "m30"] {
            let e = parse_hours(bad).unwrap_err();
            assert!(e.contains("give hours as a number"), "{bad}: {e}");
        }
    }
}

#![no_main]
//! `kgadvise quota` / `plan --quota` / `check --quota`: the quota reader (every form, auto-detected), the
//! runs-log reader and the quota state, on arbitrary bytes decoded as the CLI decodes files; and the user
//! time parser of --now/--deadline/--read-at.
use chrono::{TimeZone, Utc};
use kgadvise_core::quota::{self, Observed};
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::text::when::{DateRole, parse_time};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let thresholds = Thresholds::defaults();
    let Some(now) = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).single() else { return };
    let text = quota::decode_text(data);
    let log = quota::read_runs_log(&text);
    if let Ok(reading) = quota::read_quota(&text) {
        let observed = match data.first().map(|b| b % 3) {
            Some(0) => Observed::Now,
            Some(1) => Observed::At(now - chrono::Duration::hours(30)),
            _ => Observed::Unknown,
        };
        let report = quota::quota_state(&reading, Some(&log), observed, now, &thresholds);
        let _ = serde_json::to_string(&report);
        let _ = quota::quota_state(&reading, None, Observed::Now, now, &thresholds);
    }
    let _ = parse_time(&text, DateRole::Deadline);
    let _ = parse_time(&text, DateRole::Instant);
    let _ = quota::parse_hours(&text);
});

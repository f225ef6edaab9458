#![no_main]
//! `kgadvise collect`: kgkit's kg_run.json reader and every run diagnosis on arbitrary bytes.
use kgadvise_core::rulebook::Thresholds;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).unwrap_or_default();
    if let Ok(report) = kgadvise_core::kernel::run_report::collect("fuzz", data, today, &Thresholds::defaults()) {
        let _ = serde_json::to_string(&report);
    }
});

#![no_main]
//! The bench history reader, the bench report on the history, and the settings parser of benched
//! commands never panic.
use chrono::{TimeZone, Utc};
use kgadvise_core::bench::{self, BenchHistoryRequest, BenchRequest, MeasuredRun};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(clock) = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).single() else {
        return;
    };
    let text = String::from_utf8_lossy(data).into_owned();
    let _ = bench::parse_history(&text);
    let request = BenchHistoryRequest {
        history: text.clone(),
        ..BenchHistoryRequest::default()
    };
    let _ = bench::history(&request, clock);
    // The text as a benched command, and as the history it is compared with.
    let request = BenchRequest {
        run: vec![MeasuredRun {
            command: text.clone(),
            wall_seconds: 1.0,
            exit_code: Some(0),
            nvidia_smi: Some(String::new()),
            ..MeasuredRun::default()
        }],
        history: text.clone(),
        ..BenchRequest::default()
    };
    let _ = bench::bench(&request, clock);
    let _ = bench::changed_settings(&text, "python train.py --bs 64");
    let _ = bench::parse_rates_line(&text);
});

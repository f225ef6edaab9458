#![no_main]
//! `kgadvise diagnose`: the auto-detecting nvidia-smi reader (CSV with or without header, table, -q text,
//! -q -x XML, dmon/pmon) and the verdicts, on arbitrary bytes (UTF-16 and BOM paths included), with and
//! without a field list and an interval; pushed whole and in pieces, which must give the same answer.
use chrono::{TimeZone, Utc};
use kgadvise_core::diagnose::{DiagnoseRequest, Diagnoser};
use libfuzzer_sys::fuzz_target;

/// The report of `data` pushed in pieces cut at `cuts`, as JSON.
fn diagnose(request: &DiagnoseRequest, data: &[u8], cuts: &[usize]) -> String {
    let Some(clock) = Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).single() else { return String::new() };
    let Ok(mut d) = Diagnoser::of(request, clock) else { return String::new() };
    let mut from = 0;
    for &cut in cuts.iter().chain([data.len()].iter()) {
        let cut = cut.clamp(from, data.len());
        d.push(data.get(from..cut).unwrap_or_default());
        from = cut;
    }
    serde_json::to_string(&d.finish()).unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    // The same answer whatever the chunks (the line reader's promise).
    let whole = diagnose(&DiagnoseRequest::default(), data, &[]);
    let cut = diagnose(&DiagnoseRequest::default(), data, &[data.len() / 3, data.len() / 2 + 1]);
    assert_eq!(whole, cut, "chunked and whole reads differ");
    let with_fields = DiagnoseRequest {
        fields: Some("timestamp,index,utilization.gpu,memory.used".into()),
        interval_s: Some(1.0),
        oom: true,
        ..DiagnoseRequest::default()
    };
    diagnose(&with_fields, data, &[]);
});

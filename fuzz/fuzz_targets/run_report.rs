#![no_main]
//! `kgadvise collect`: kgkit's kg_run.json reader and every run diagnosis on arbitrary bytes.
use kgadvise_core::kernel::run_report::{self, CollectRequest};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let clock = chrono::DateTime::from_timestamp(1_796_083_200, 0).unwrap_or_default();
    if let Ok(report) = run_report::report_text(data) {
        let request = CollectRequest {
            report,
            ..CollectRequest::default()
        };
        if let Ok(answer) = run_report::collect(&request, clock) {
            let _ = serde_json::to_string(&answer);
        }
    }
});

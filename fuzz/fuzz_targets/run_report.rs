#![no_main]
//! `kgadvise collect`: kgkit's kg_run.json reader and every run diagnosis on arbitrary bytes; the same
//! bytes as a kernel's `kaggle kernels status` text and as its log.
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
    let text = kgadvise_core::text::decode_input(data).into_owned();
    for request in [
        CollectRequest {
            log: Some(text.clone()),
            timeout_seconds: Some(3600),
            ..CollectRequest::default()
        },
        CollectRequest {
            status: Some(text.clone()),
            log: Some(text),
            ..CollectRequest::default()
        },
    ] {
        if let Ok(answer) = run_report::collect(&request, clock) {
            let _ = serde_json::to_string(&answer);
        }
    }
});

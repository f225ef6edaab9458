#![no_main]
//! `kgadvise check`: the kernel metadata reader on arbitrary bytes (UTF-8, UTF-16, binary), then every
//! pre-flight check on what it read, with the same bytes as the code file (notebook or script analysis).
use kgadvise_core::kernel::{self, CheckRequest};
use kgadvise_core::rulebook::Thresholds;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let thresholds = Thresholds::defaults();
    let clock = chrono::DateTime::from_timestamp(1_796_083_200, 0).unwrap_or_default();
    if let Ok(metadata) = kernel::metadata_text(data, &thresholds) {
        let code = kgadvise_core::text::decode_input(data).into_owned();
        let request = CheckRequest {
            metadata,
            code: Some(code),
            code_bytes: Some(data.len() as u64),
            running_gpu: Some(1),
            running_kernels: vec!["me/other".into()],
            plannable: Some(3.5),
            timeout_seconds: Some(3600),
            ..CheckRequest::default()
        };
        let _ = kernel::check(&request, clock);
        let missing = CheckRequest {
            code: None,
            code_path: Some("x.py".into()),
            ..request
        };
        let _ = kernel::check(&missing, clock);
    }
    let _ = kernel::code::analyse(data, 1000);
});

#![no_main]
//! `kgadvise check`: the kernel metadata reader on arbitrary bytes (UTF-8, UTF-16, binary), then every
//! pre-flight check on what it read, with the same bytes as the code file (notebook or script analysis).
use kgadvise_core::kernel::{self, CheckOptions, CodeFile};
use kgadvise_core::rulebook::Thresholds;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let thresholds = Thresholds::defaults();
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).unwrap_or_default();
    let opts = CheckOptions {
        running_gpu: Some(1),
        running_kernels: vec!["me/other".into()],
        plannable_hours: Some(3.5),
        timeout_seconds: Some(3600),
        ..CheckOptions::default()
    };
    if let Ok(meta) = kernel::parse_metadata(data, &thresholds) {
        let _ = kernel::check("fuzz", meta.clone(), CodeFile::Present { bytes: data }, &opts, today, &thresholds);
        let _ = kernel::check("fuzz", meta, CodeFile::Missing { resolved: "x.py" }, &CheckOptions::default(), today, &thresholds);
    }
    let _ = kernel::code::analyse(data, 1000);
});

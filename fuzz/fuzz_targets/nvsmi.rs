#![no_main]
//! `kgadvise diagnose`: the auto-detecting nvidia-smi reader (CSV with or without header, table, -q text,
//! -q -x XML, dmon/pmon) and the verdicts, on arbitrary bytes (UTF-16 and BOM paths included), with and
//! without a --fields list and an interval.
use kgadvise_core::diagnose::nvsmi::ParseOptions;
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::diagnose::verdict::{self, RunInputs};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let t = Thresholds::defaults();
    let r = verdict::diagnose_bytes(data, ParseOptions::default(), RunInputs::default(), &t);
    let _ = serde_json::to_string(&r);
    let opts = ParseOptions {
        fields: Some(vec!["timestamp".into(), "index".into(), "utilization.gpu".into(), "memory.used".into()]),
        interval_s: Some(1.0),
    };
    let inputs = RunInputs { oom: true, ..RunInputs::default() };
    let _ = verdict::diagnose_bytes(data, opts, inputs, &t);
});

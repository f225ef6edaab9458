#![no_main]
//! The bench history reader and the settings parser of benched commands never panic.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (records, _problems) = kgadvise_core::bench::parse_history(&text);
    let _ = kgadvise_core::bench::history(&records, vec![], None, &kgadvise_core::rulebook::Thresholds::defaults());
    let _ = kgadvise_core::bench::changed_settings(&text, "python train.py --bs 64");
    let _ = kgadvise_core::bench::parse_rates_line(&text);
});

#![no_main]
//! `kgadvise compare | fidelity | prune` through their requests: the .npy reader of kgkit's artifacts
//! (on the raw bytes), the prediction/score CSV readers, the idea table, the curve reader, and the
//! statistics on what they read (few resamples, one thread), on text decoded as the CLI decodes files.
//! The input's length picks the metric (so the seed files stay intact).
use chrono::{TimeZone, Utc};
use kgadvise_core::stats::compare::{self, CompareRequest};
use kgadvise_core::stats::fidelity::{self, FidelityRequest};
use kgadvise_core::stats::metrics::Metric;
use kgadvise_core::stats::prune::{self, PruneRequest};
use kgadvise_core::stats::table;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(clock) = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).single() else {
        return;
    };
    // the bytes as a .npy file of kgkit's artifacts (fold<k>_oof.npy, fold<k>_idx.npy)
    let _ = kgadvise_core::stats::npy::read_numbers(data);
    let _ = kgadvise_core::stats::npy::read_indices(data);
    let text = kgadvise_core::text::decode_input(data).into_owned();
    let metric = Metric::ALL[data.len() % Metric::ALL.len()];
    // The control: the same rows (the pairing and both scores run); the text as the baseline's fold
    // scores too when it reads as scores (the leakage check runs).
    let folds = table::read_scores(&text, "folds").ok().map(|_| text.clone());
    let request = CompareRequest {
        idea: text.clone(),
        control: text.clone(),
        metric: metric.as_str().to_string(),
        folds,
        resamples: Some(20),
        seed: Some(7),
        threads: Some(1),
        ..CompareRequest::default()
    };
    let _ = compare::compare(&request, clock);
    let request = FidelityRequest {
        backlog: text.clone(),
        ..FidelityRequest::default()
    };
    let _ = fidelity::fidelity(&request, clock);
    if let Ok(curves) = prune::read_curves(&text, "baseline") {
        for current in curves.iter().take(3) {
            let Ok(current) = serde_json::to_string(current) else {
                continue;
            };
            let plain = PruneRequest {
                baseline: text.clone(),
                current,
                ..PruneRequest::default()
            };
            let _ = prune::prune(&plain, clock);
            let given = PruneRequest {
                margin: Some(0.01),
                min_frac: Some(0.5),
                folds: Some("0.5\n0.6".to_string()),
                ..plain
            };
            let _ = prune::prune(&given, clock);
        }
    }
});

#![no_main]
//! `kgadvise compare | fidelity | prune`: the prediction/score CSV readers, the idea table, the curve
//! reader, and the statistics on what they read (few resamples, one thread), on text decoded as the CLI
//! decodes files. The input's length picks the metric (so the seed files stay intact).
use kgadvise_core::rulebook::Thresholds;
use kgadvise_core::stats::compare::{self, CompareOptions};
use kgadvise_core::stats::metrics::Metric;
use kgadvise_core::stats::{fidelity, prune, table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let t = Thresholds::defaults();
    let text = kgadvise_core::text::decode_input(data);
    let metric = Metric::ALL[data.len() % Metric::ALL.len()];
    if let Ok(p) = table::read_predictions(&text, "idea.csv") {
        // The control: the same rows, every prediction nudged (the pairing and both scores run).
        if let Ok(paired) = compare::pair(&p, &p, "idea.csv", "control.csv") {
            let opts = CompareOptions {
                metric,
                resamples: 20,
                seed: 7,
                baseline_fold_scores: table::read_scores(&text, "folds.csv").ok(),
                threads: 1,
            };
            let _ = compare::compare(&paired, &opts, &t);
        }
    }
    let _ = fidelity::fidelity(&text, "ideas.csv", &t);
    if let Ok(curves) = prune::read_curves(&text, "curves.json") {
        for current in curves.iter().take(3) {
            let _ = prune::prune(&curves, current, None, None, None, &t);
            let _ = prune::prune(&curves, current, Some(0.01), Some(0.5), Some(&[0.5, 0.6]), &t);
        }
    }
});

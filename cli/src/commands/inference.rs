use std::process::ExitCode;

use kgadvise_core::hardware::inference::{self, InferenceRequest};
use kgadvise_core::text::number::shortest;

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise inference --item-seconds 0.9 --test-items 40000 --limit-hours 9
  kgadvise inference --batch-seconds 2.4 --batch-size 64 --test-items 250000 --limit-hours 9 --setup-seconds 600
  kgadvise inference --item-seconds 0.05 --test-items 40000 --timed-items 40000 --limit-hours 9 --platform t4x2
  kgadvise inference --item-seconds 1.2 --test-items 3000 --limit-hours 9 --platform cpu --json

Time the whole pipeline (every ensemble member) on an input as large as the hidden test, and give the
limit the competition's code requirements state. The share of the limit to leave unused is the threshold
inference.min-margin (kgadvise explain threshold.inference.min-margin; --set changes it).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
#[command(group(clap::ArgGroup::new("timing").required(true).args(["item_seconds", "batch_seconds"])))]
pub struct Args {
    /// Measured seconds per test item (row, image, text) of the whole pipeline.
    #[arg(long, value_name = "S")]
    pub item_seconds: Option<f64>,
    /// Measured seconds per batch (with --batch-size), instead of --item-seconds.
    #[arg(
        long,
        value_name = "S",
        requires = "batch_size",
        conflicts_with = "item_seconds"
    )]
    pub batch_seconds: Option<f64>,
    /// Items per batch of --batch-seconds.
    #[arg(long, value_name = "N", requires = "batch_seconds")]
    pub batch_size: Option<u32>,
    /// Items in the hidden test set.
    #[arg(long, value_name = "N")]
    pub test_items: u64,
    /// The competition's run-time limit, hours.
    #[arg(long, value_name = "H", value_parser = kgadvise_core::text::hours::parse_hours)]
    pub limit_hours: f64,
    /// Seconds outside the per-item loop: installing wheels, loading models, reading the test.
    #[arg(long, value_name = "S")]
    pub setup_seconds: Option<f64>,
    /// Items the timing run covered (fewer than the hidden test: the estimate is an extrapolation).
    #[arg(long, value_name = "N")]
    pub timed_items: Option<u64>,
    /// Platform the kernel runs on, to resolve the fixes (t4x2, p100, tpu-v5e-8, cpu, windows, linux).
    #[arg(long, short)]
    pub platform: Option<String>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = InferenceRequest {
        item_seconds: args.item_seconds,
        batch_seconds: args.batch_seconds,
        batch_size: args.batch_size,
        test_items: Some(args.test_items),
        limit_hours: Some(args.limit_hours),
        setup_seconds: args.setup_seconds,
        timed_items: args.timed_items,
        platform: args.platform.clone(),
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report = inference::inference(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(
        global,
        "inference",
        &[
            ("itemSeconds", args.item_seconds.map(shortest)),
            ("batchSeconds", args.batch_seconds.map(shortest)),
            ("batchSize", args.batch_size.map(|v| v.to_string())),
            ("testItems", Some(args.test_items.to_string())),
            ("limitHours", Some(shortest(args.limit_hours))),
            ("setupSeconds", args.setup_seconds.map(shortest)),
            ("timedItems", args.timed_items.map(|v| v.to_string())),
            ("platform", args.platform),
        ],
    );
    Ok(code)
}

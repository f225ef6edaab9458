use std::process::ExitCode;

use kgadvise_core::hardware::inference::{self, InferenceReport, InferenceRequest};
use kgadvise_core::text::number::{fixed, shortest};

use crate::output::{CliError, Global, clock, emit, render_findings};

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
    #[arg(long, value_name = "H")]
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
    let code = emit(&report, global, human)?;
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

fn verdict(r: &InferenceReport) -> &'static str {
    match r.budget {
        inference::Budget::KeepsMargin => "keeps the margin",
        inference::Budget::ThinMargin => "within the limit, but with less than the margin",
        inference::Budget::OverLimit => "past the limit: the submission would fail",
    }
}

fn human(r: &InferenceReport) -> String {
    let mut s = format!(
        "Expected {} h on the hidden test ({} items) of the {} h limit: {}.\n",
        shortest(r.expected_hours),
        r.test_items,
        shortest(r.limit_hours),
        verdict(r)
    );
    s.push_str(&format!(
        "Margin {} % (at least {} % wanted: at most {} h); {} items fit in that at this rate.\n",
        fixed(r.margin * 100.0, 1),
        fixed(r.min_margin * 100.0, 1),
        shortest(r.budget_hours),
        r.items_in_budget
    ));
    if let Some(x) = r.speedup_needed {
        s.push_str(&format!(
            "The per-item loop must run {}x faster.\n",
            shortest(x)
        ));
    }
    if !r.fixes.is_empty() {
        let on = r
            .platform_name
            .as_deref()
            .map(|p| format!(" on {p}"))
            .unwrap_or_default();
        s.push_str(&format!("\nThe inference defaults to apply{on}:\n"));
        for f in &r.fixes {
            s.push_str(&format!("  - {f}\n"));
        }
        for d in &r.left_out {
            s.push_str(&format!("  (left out: {}: {})\n", d.text, d.reason));
        }
    }
    if !r.notes.is_empty() {
        s.push_str("\nNotes:\n");
        for n in &r.notes {
            s.push_str(&format!("  - {}: {} [{}]\n", n.title, n.text, n.id));
        }
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}

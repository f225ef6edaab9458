//! `kgadvise wait KERNEL`: polls `kaggle kernels status` until the run ends (with `--now`, a simulated
//! clock: no sleep, the time advances by --interval per poll), then fetches the log (`kaggle kernels
//! logs`: the hours it ran) and on error or cancel the list of the files it saved (`kaggle kernels
//! files`); core says what ended it. `--collect` then collects the outputs.

use std::process::ExitCode;

use chrono::Duration;
use kgadvise_core::kaggle_loop::wait::{
    Poll, WaitRequest, keep_polling, poll_seconds, wait, wait_failed, wants_files, wants_log,
};
use kgadvise_core::text::when::rfc3339;

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::StateDir;

const EXAMPLES: &str = "Examples:
  kgadvise wait me/train-a                    polls every 90 s until the run ends
  kgadvise wait me/train-a --interval 300 --collect
  kgadvise wait me/train-a --now 2026-12-01T08:00:00Z --interval 600   a simulated clock, no sleep

On error or cancel: the log tail, whether the -t cap stopped it (the log ends at the cap)
and the files the session saved (kaggle kernels files).
Exit codes: 0 complete, 1 error or cancelled (or no status), 2 unusable input or no Kaggle CLI.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The kernel (owner/slug).
    pub kernel: String,
    /// Seconds between polls (default: threshold.loop.poll-seconds, 90).
    #[arg(long, value_name = "S")]
    pub interval: Option<f64>,
    /// Then collect its outputs (`kgadvise collect KERNEL`).
    #[arg(long)]
    pub collect: bool,
    /// With --collect: the folder to download into (default: named after the kernel).
    #[arg(short = 'p', long = "path", value_name = "DIR")]
    pub path: Option<String>,
    #[command(flatten)]
    pub client: LoopArgs,
}

/// Polls until core says to stop; with `--now` the clock advances by `interval` per poll.
fn poll(kaggle: &KaggleClient, args: &Args, global: &Global) -> Result<Vec<Poll>, CliError> {
    let thresholds = global.thresholds()?;
    let interval = args.interval.unwrap_or_else(|| poll_seconds(&thresholds));
    if !(interval.is_finite() && interval >= 0.0) {
        return Err(CliError::usage(format!(
            "--interval {interval}: expected a number of seconds, 0 or more"
        )));
    }
    let step = Duration::milliseconds((interval * 1000.0).round() as i64);
    let simulated = global.now.is_some();
    let mut at = global.now()?;
    let mut polls = Vec::new();
    loop {
        let answer = kaggle.run(&["kernels", "status", &args.kernel]);
        polls.push(Poll {
            at: rfc3339(at),
            answer,
        });
        if !keep_polling(&args.kernel, &polls, &thresholds) {
            return Ok(polls);
        }
        if simulated {
            at += step;
        } else {
            std::thread::sleep(step.to_std().unwrap_or_default());
            at = clock();
        }
    }
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let kaggle = KaggleClient::require(args.client.kaggle.as_deref(), global)?;
    let polls = poll(&kaggle, &args, global)?;
    let log = wants_log(&args.kernel, &polls)
        .then(|| kaggle.run(&["kernels", "logs", &args.kernel]))
        .filter(|a| a.succeeded())
        .map(|a| a.stdout);
    let files = wants_files(&args.kernel, &polls)
        .then(|| kaggle.run(&["kernels", "files", &args.kernel, "--format", "json"]));
    let now = polls.last().map(|p| p.at.clone());
    let state = StateDir::lock(args.client.state_dir.as_deref())?;
    let request = WaitRequest {
        kernel: args.kernel.clone(),
        polls,
        log,
        files,
        runs: state.read_runs()?,
        now,
        set: global.overrides(),
    };
    let mut report = wait(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    state.write_runs(&report.runs_text)?;
    drop(state);
    if args.collect && report.ended {
        let collected = super::collect::collect_kernel(
            &args.kernel,
            args.path.as_deref(),
            &args.client,
            &kaggle,
            global,
        )?;
        report.collected = Some(collected.report);
    }
    let code = emit(&report, global)?;
    Ok(if wait_failed(&report) {
        ExitCode::from(1)
    } else {
        code
    })
}

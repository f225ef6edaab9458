//! `kgadvise status [KERNEL...]`: re-checks the runs in flight with `kaggle kernels status`, records
//! what Kaggle said in the runs log, and prints core's ledger with what is plannable.

use std::process::ExitCode;

use kgadvise_core::kaggle_loop::ledger_view::{
    StatusCall, StatusRequest, has_ended, recheck, status,
};

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::StateDir;

const EXAMPLES: &str = "Examples:
  kgadvise status                     every run in flight of .kaggle-gm/gpu_runs.jsonl
  kgadvise status me/train-a          only this kernel
  kgadvise status --json | jq .held_gpu_hours

Finished runs free their hours (their end is recorded: status, finished_at, and the hours their log
says they ran); a run whose status call fails keeps its reservation. Plannable = the quota (read as
`kgadvise quota` reads it) less what the runs in flight hold.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Only these kernels (owner/slug); default: every run in flight.
    #[arg(value_name = "KERNEL")]
    pub kernels: Vec<String>,
    #[command(flatten)]
    pub client: LoopArgs,
}

/// `kaggle kernels status` for each run in flight (of `kernels`, when given), and the log of each that
/// ended (`kaggle kernels logs`: the hours it ran).
fn status_calls(kaggle: &KaggleClient, runs: &str, kernels: &[String]) -> Vec<StatusCall> {
    recheck(runs, kernels)
        .into_iter()
        .map(|kernel| {
            let answer = kaggle.run(&["kernels", "status", &kernel]);
            let log = has_ended(&kernel, &answer)
                .then(|| kaggle.run(&["kernels", "logs", &kernel]))
                .filter(|a| a.succeeded())
                .map(|a| a.stdout);
            StatusCall {
                kernel,
                answer,
                log,
            }
        })
        .collect()
}

/// Re-checks the runs in flight and writes what Kaggle said into the runs log; its new text.
pub fn recheck_runs(
    kaggle: &KaggleClient,
    state: &StateDir,
    kernels: &[String],
    global: &Global,
) -> Result<String, CliError> {
    let runs = state.read_runs()?;
    let seen = status_calls(kaggle, &runs, kernels);
    if seen.is_empty() {
        return Ok(runs);
    }
    let request = StatusRequest {
        runs,
        seen,
        now: global.now.clone(),
        set: global.overrides(),
        ..StatusRequest::default()
    };
    let report = status(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    state.write_runs(&report.runs_text)?;
    Ok(report.runs_text)
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let kaggle = KaggleClient::require(args.client.kaggle.as_deref(), global)?;
    let state = StateDir::lock(args.client.state_dir.as_deref())?;
    let runs = state.read_runs()?;
    let seen = status_calls(&kaggle, &runs, &args.kernels);
    let mut request = StatusRequest {
        runs,
        seen,
        kernels: args.kernels.clone(),
        now: global.now.clone(),
        set: global.overrides(),
        ..StatusRequest::default()
    };
    // The statuses first: the quota's reservations are counted on the log they leave.
    let applied = status(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    state.write_runs(&applied.runs_text)?;
    let quota = super::quota::live_reading(
        &args.client,
        &state,
        Some(applied.runs_text.clone()),
        global,
    )?;
    request.quota = Some(quota.quota_text);
    request.quota_read_at = quota.read_at;
    request.quota_live = quota.report.live;
    let report = status(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    emit(&report, global)
}

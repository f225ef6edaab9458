//! `kgadvise log`: every run of the runs log with its cost and result.

use std::process::ExitCode;

use kgadvise_core::kaggle_loop::ledger_view::{RunsRequest, log};

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::StateDir;

const EXAMPLES: &str = "Examples:
  kgadvise log
  kgadvise log me/train-a
  kgadvise log --json | jq '.rows[] | select(.status == \"collected\")'";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Only this kernel's runs (owner/slug).
    pub kernel: Option<String>,
    #[command(flatten)]
    pub client: LoopArgs,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    KaggleClient::require(args.client.kaggle.as_deref(), global)?;
    let state = StateDir::lock(args.client.state_dir.as_deref())?;
    let request = runs_request(&state, args.kernel.clone(), global)?;
    let report = log(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    emit(&report, global)
}

/// The runs log under its lock as the request of `log` and `release`, for `kernel`'s runs or all.
pub fn runs_request(
    state: &StateDir,
    kernel: Option<String>,
    global: &Global,
) -> Result<RunsRequest, CliError> {
    Ok(RunsRequest {
        runs: state.read_runs()?,
        kernel,
        now: global.now.clone(),
        set: global.overrides(),
    })
}

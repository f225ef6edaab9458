//! `kgadvise release KERNEL`: drops a kernel's reservation by hand (a run deleted or never started): its
//! record gets status `released`, kept in the runs log.

use std::process::ExitCode;

use kgadvise_core::kaggle_loop::ledger_view::release;

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::StateDir;

const EXAMPLES: &str = "Examples:
  kgadvise release me/train-a          a push that never went through (logged pending)
  kgadvise release me/train-a --json";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The kernel (owner/slug).
    pub kernel: String,
    #[command(flatten)]
    pub client: LoopArgs,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    KaggleClient::require(args.client.kaggle.as_deref(), global)?;
    let state = StateDir::lock(args.client.state_dir.as_deref())?;
    let request = super::log::runs_request(&state, Some(args.kernel.clone()), global)?;
    let report = release(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    if let Some(text) = &report.runs_text {
        state.write_runs(text)?;
    }
    emit(&report, global)
}

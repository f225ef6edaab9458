//! `kgadvise push DIR`: re-checks the runs in flight, reads the quota live, runs core's pre-flight and
//! cap, logs the push as pending, runs `kaggle kernels push -p DIR -t S`, and records what Kaggle
//! answered (core reads it). The runs log is locked from the first read to the last write.

use std::process::ExitCode;

use kgadvise_core::kaggle_loop::push::{PushRequest, push};
use kgadvise_core::kernel::CheckRequest;

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::StateDir;

const EXAMPLES: &str = "Examples:
  kgadvise push kernels/train --measured 3.5          -t = the cap rules' factor x 3.5 h
  kgadvise push kernels/train --hours 5 --accelerator NvidiaTeslaT4
  kgadvise push kernels/train --hours 5 --dry-run     the pre-flight and the -t, nothing pushed
  kgadvise push kernels/new-shape --force             past a machine_shape kgadvise does not know
  kgadvise push kernels/train --hours 2 --kaggle \"/opt/venv/bin/kaggle\" --json

Before pushing: the runs in flight of .kaggle-gm/gpu_runs.jsonl are re-checked (`kaggle kernels \
status`), the quota is read live (`kgadvise quota`), and `kgadvise check`'s pre-flight runs with the \
log's busy sessions and running kernels and the quota less its reservations.

Exit codes: 0 pushed (or would be, with --dry-run), 1 refused (by the pre-flight or by Kaggle), \
2 unusable input or no Kaggle CLI.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The kernel folder (its kernel-metadata.json and code file).
    pub dir: String,
    /// Run the pre-flight and choose -t; push nothing.
    #[arg(long)]
    pub dry_run: bool,
    // The cap, the machine shape, --force; `run` fills in the folder, the runs log, the quota.
    #[command(flatten)]
    pub request: PushRequest,
    #[command(flatten)]
    pub client: LoopArgs,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let kaggle = KaggleClient::require(args.client.kaggle.as_deref(), global)?;
    let folder = super::check::read_kernel_folder(&args.dir, CheckRequest::default(), global)?;
    let state = StateDir::lock(args.client.state_dir.as_deref())?;
    let runs = super::status::recheck_runs(&kaggle, &state, &[], global)?;
    let quota = super::quota::live_reading(&args.client, &state, Some(runs.clone()), global)?;
    let mut request = PushRequest {
        check: folder.request,
        runs,
        quota: Some(quota.quota_text),
        quota_read_at: quota.read_at,
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let files = [("metadata", folder.name.as_str())];
    let plan = push(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    if !plan.go || args.dry_run {
        return emit(&plan, global);
    }
    if let Some(text) = &plan.runs_text {
        state.write_runs(text)?;
    }
    let mut call = vec!["kernels", "push", "-p", args.dir.as_str()];
    call.extend(plan.client_args.iter().map(String::as_str));
    request.answer = Some(kaggle.run(&call));
    let outcome = push(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    if let Some(text) = &outcome.runs_text {
        state.write_runs(text)?;
    }
    emit(&outcome, global)
}

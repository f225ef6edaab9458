use std::process::ExitCode;

use kgadvise_core::quota::plan::{self, PlanRequest};

use crate::commands::quota::{file_fields, quota_input, read_input};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::{RUNS_FILE, read_optional, state_dir_path};

const EXAMPLES: &str = "Examples:
  kgadvise plan --deadline 2026-12-17 --gpu-remaining 11 --refresh-at 2026-12-05T00:00:00
  kaggle quota -v > quota.csv && kgadvise plan --deadline 2026-12-17 --quota quota.csv --live
  kgadvise plan --deadline 2026-12-17 --quota .kaggle-gm/gpu_quota.json \\
      --runs .kaggle-gm/gpu_runs.jsonl --fold-hours 1.5 --folds 5 --json

A bare deadline date ends at 23:59:00 UTC. Resets are counted from refreshAt in 7-day steps, \
strictly before the deadline; a stored refreshAt already in the past is rolled forward first (never \
counted twice).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: PlanRequest,
    /// The quota in any form `kgadvise quota` reads (- for stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "gpu_remaining")]
    pub quota: Option<String>,
    /// kgkit's runs log: in-flight runs reserve hours.
    #[arg(long, value_name = "FILE")]
    pub runs: Option<String>,
    /// The --quota figure was read just now.
    #[arg(long)]
    pub live: bool,
    #[command(flatten)]
    pub client: crate::kaggle_client::LoopArgs,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let quota = args
        .quota
        .as_deref()
        .map(|path| quota_input("plan", path, args.live, None))
        .transpose()?;
    // Neither --quota nor --gpu-remaining: the quota as `kgadvise quota` reads it (live or the cache).
    let implicit = match (&quota, args.request.gpu_remaining) {
        (None, None) => super::quota::implicit_reading(&args.client, global)?,
        _ => None,
    };
    let mut request = PlanRequest {
        live: quota.as_ref().is_some_and(|q| q.live),
        read_at: quota.as_ref().and_then(|q| q.read_at.clone()),
        quota: quota.map(|q| q.text),
        runs: args
            .runs
            .as_deref()
            .map(|p| read_input("plan", "runs", p))
            .transpose()?,
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    if let Some(live) = implicit {
        request.live = live.report.live;
        request.read_at = live.read_at;
        request.quota = Some(live.quota_text);
        if request.runs.is_none() {
            request.runs =
                read_optional(&state_dir_path(args.client.state_dir.as_deref()).join(RUNS_FILE))?;
        }
    }
    let report = plan::plan(&request, clock()).map_err(|e| {
        CliError::request(e, &file_fields(args.quota.as_deref(), args.runs.as_deref()))
    })?;
    let code = emit(&report, global)?;
    crate::output::share(global, "plan", &args.request);
    Ok(code)
}

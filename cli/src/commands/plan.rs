use std::process::ExitCode;

use kgadvise_core::quota::plan::{self, PlanRequest};
use kgadvise_core::text::number::shortest;

use crate::commands::quota::{file_fields, quota_input, read_input};
use crate::output::{CliError, Global, clock, emit};
use crate::state_files::{RUNS_FILE, read_optional, state_dir_path};

const EXAMPLES: &str = "Examples:
  kgadvise plan --deadline 2026-12-17 --gpu-remaining 11 --refresh-at 2026-12-05T00:00:00
  kaggle quota -v > quota.csv && kgadvise plan --deadline 2026-12-17 --quota quota.csv --live
  kgadvise plan --deadline 2026-12-17 --quota .kaggle-gm/gpu_quota.json --runs .kaggle-gm/gpu_runs.jsonl \\
      --fold-hours 1.5 --folds 5 --json

A bare deadline date ends at 23:59:00 UTC. Resets are counted from refreshAt in 7-day steps, strictly before
the deadline; a stored refreshAt already in the past is rolled forward first (never counted twice).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The deadline: RFC 3339 or a date (ends 23:59:00 UTC).
    #[arg(long)]
    pub deadline: String,
    /// The quota in any form `kgadvise quota` reads (- for stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "gpu_remaining")]
    pub quota: Option<String>,
    /// GPU hours remaining now (instead of --quota).
    #[arg(long, value_name = "H", value_parser = kgadvise_core::text::hours::parse_hours)]
    pub gpu_remaining: Option<f64>,
    /// TPU hours remaining now (plans the TPU too).
    #[arg(long, value_name = "H", value_parser = kgadvise_core::text::hours::parse_hours)]
    pub tpu_remaining: Option<f64>,
    /// The next reset (refreshAt of `kaggle quota`); default: the facts' weekly reset.
    #[arg(long, value_name = "T")]
    pub refresh_at: Option<String>,
    /// GPU hours held by running sessions (subtracted: plannable = remaining - reserved).
    #[arg(long, value_name = "H", value_parser = kgadvise_core::text::hours::parse_hours)]
    pub reserved: Option<f64>,
    /// kgkit's runs log: in-flight runs reserve hours.
    #[arg(long, value_name = "FILE")]
    pub runs: Option<String>,
    /// Measured cost of one fold, hours on one GPU.
    #[arg(long, value_name = "C", requires = "folds", value_parser = kgadvise_core::text::hours::parse_hours)]
    pub fold_hours: Option<f64>,
    /// Folds of a full CV run.
    #[arg(long, value_name = "K", requires = "fold_hours")]
    pub folds: Option<u32>,
    /// One-fold screens per full-CV promotion (default: threshold.plan.screens-per-promotion).
    #[arg(long, value_name = "S")]
    pub screens_per_promotion: Option<u32>,
    /// The --quota figure was read just now.
    #[arg(long)]
    pub live: bool,
    /// Weekly GPU hours when they differ from the facts' (a floating quota, e.g. 45).
    #[arg(long, value_name = "H", value_parser = kgadvise_core::text::hours::parse_hours)]
    pub weekly_hours: Option<f64>,
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
    let implicit = match (&quota, args.gpu_remaining) {
        (None, None) => super::quota::implicit_reading(&args.client, global)?,
        _ => None,
    };
    let mut request = PlanRequest {
        deadline: Some(args.deadline.clone()),
        live: quota.as_ref().is_some_and(|q| q.live),
        read_at: quota.as_ref().and_then(|q| q.read_at.clone()),
        quota: quota.map(|q| q.text),
        gpu_remaining: args.gpu_remaining,
        tpu_remaining: args.tpu_remaining,
        refresh_at: args.refresh_at.clone(),
        reserved: args.reserved,
        runs: args
            .runs
            .as_deref()
            .map(|p| read_input("plan", "runs", p))
            .transpose()?,
        fold_hours: args.fold_hours,
        folds: args.folds,
        screens_per_promotion: args.screens_per_promotion,
        weekly_hours: args.weekly_hours,
        now: global.now.clone(),
        set: global.overrides(),
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
    crate::output::share(
        global,
        "plan",
        &[
            ("deadline", Some(args.deadline.clone())),
            ("gpuRemaining", args.gpu_remaining.map(shortest)),
            ("refreshAt", args.refresh_at.clone()),
            ("tpuRemaining", args.tpu_remaining.map(shortest)),
            ("reserved", args.reserved.map(shortest)),
            ("weeklyHours", args.weekly_hours.map(shortest)),
            ("foldHours", args.fold_hours.map(shortest)),
            ("folds", args.folds.map(|v| v.to_string())),
            (
                "screensPerPromotion",
                args.screens_per_promotion.map(|v| v.to_string()),
            ),
            ("now", global.now.clone()),
        ],
    );
    Ok(code)
}

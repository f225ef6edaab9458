use std::process::ExitCode;

use kgadvise_core::quota::tpu::{self, TpuRequest};

use crate::commands::quota::{file_fields, quota_input};
use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise tpu --t4-hours 30 --gpu-plannable 4
  kgadvise tpu --t4-hours 6 --gpu-plannable 20 --queue-hours 24
  kgadvise tpu --t4-hours 30 --quota quota.csv --json

TPU finish = now + queue + start-up + T4 time / the TPU's speed-up, per session.
GPU finish = now + T4 time when the GPU hours suffice, else the rest waits for the reset.
The default queue, start-up and speed-up are the rules' facts: kgadvise explain KQ030.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: TpuRequest,
    /// The quota in any form `kgadvise quota` reads, for the GPU/TPU hours and the reset.
    #[arg(long, value_name = "FILE")]
    pub quota: Option<String>,
    /// When the --quota figure was read (RFC 3339 or a date; default: the file's modification time, now
    /// for stdin): an older figure is NOT LIVE. kgkit's fetched_at wins.
    #[arg(long, value_name = "TIME", requires = "quota")]
    pub quota_read_at: Option<String>,
    #[command(flatten)]
    pub client: crate::kaggle_client::LoopArgs,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let explicit = args
        .quota
        .as_deref()
        .map(|p| quota_input("tpu", p, false, args.quota_read_at.as_deref()))
        .transpose()?;
    // No quota input at all: the quota as `kgadvise quota` reads it (live or the cache).
    let implicit = match (
        &explicit,
        args.request.gpu_plannable,
        args.request.tpu_remaining,
    ) {
        (None, None, None) => super::quota::implicit_reading(&args.client, global)?,
        _ => None,
    };
    let (quota, quota_read_at) = match (explicit, implicit) {
        (Some(q), _) => {
            let read_at = q.read_at_or_now(global)?;
            (Some(q.text), read_at)
        }
        (None, Some(live)) => (Some(live.quota_text), live.read_at),
        (None, None) => (None, None),
    };
    let request = TpuRequest {
        quota,
        quota_read_at,
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let report = tpu::tpu(&request, clock())
        .map_err(|e| CliError::request(e, &file_fields(args.quota.as_deref(), None)))?;
    let code = emit(&report, global)?;
    // The quota file stays out of the link: the page takes it pasted or dropped.
    crate::output::share(global, "tpu", &args.request);
    Ok(code)
}

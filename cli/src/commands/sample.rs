use std::process::ExitCode;
use std::time::Duration;

use kgadvise_core::text::number::shortest;

use crate::nvidia_smi;
use kgadvise_core::diagnose::live::LiveDiagnoser;

use crate::output::{CliError, Global, clock};

const EXAMPLES: &str = "Examples:
  kgadvise sample --seconds 1200               20 min at 1 s while the run trains, then the verdicts
  kgadvise sample --seconds 60 --interval-ms 500 --save gpu.csv --json
  KGADVISE_NVIDIA_SMI=/path/to/nvidia-smi kgadvise sample --seconds 30
  kgadvise sample --live --save gpu.csv        the live view until Ctrl-C, then the verdicts

Runs nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,\
power.draw,power.limit --format=csv -lms M for N seconds, then diagnoses what it printed (as \
`kgadvise diagnose`). With --live the verdicts so far are shown while it samples (redrawn in place on \
a terminal, one line per refresh elsewhere), an alarm is printed once when one settles, and sampling \
runs until Ctrl-C (or --seconds when given).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// How long to sample, in seconds [default: 60; with --live: until Ctrl-C].
    #[arg(long, value_name = "N")]
    pub seconds: Option<f64>,
    /// Sampling interval in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "M")]
    pub interval_ms: u64,
    /// Also save the raw nvidia-smi output to FILE (re-read later with `kgadvise diagnose FILE`).
    #[arg(long, value_name = "FILE")]
    pub save: Option<String>,
    /// Show the verdicts while sampling (in place on a terminal), alarms as they settle.
    #[arg(long)]
    pub live: bool,
    #[command(flatten)]
    pub request: kgadvise_core::diagnose::DiagnoseRequest,
}

/// Seconds sampled without --seconds (and without --live).
const DEFAULT_SECONDS: f64 = 60.0;

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    if let Some(seconds) = args.seconds
        && !(seconds.is_finite() && seconds > 0.0)
    {
        return Err(CliError::usage(format!(
            "--seconds {}: expected a positive number",
            shortest(seconds)
        )));
    }
    if args.live {
        let live = LiveDiagnoser::of(
            &super::diagnose::with_global(&args.request, global),
            clock(),
        )
        .map_err(|e| CliError::request(e, &[]))?;
        let report = super::watch::sample_live(
            live,
            global,
            args.interval_ms,
            args.seconds,
            args.save.as_deref(),
        )?;
        return super::diagnose::emit_report(&report, global);
    }
    let seconds = args.seconds.unwrap_or(DEFAULT_SECONDS);
    if args.interval_ms == 0 {
        return Err(CliError::usage(
            "--interval-ms 0: expected a positive number of milliseconds",
        ));
    }
    let mut d = super::diagnose::diagnoser(&args.request, global)?;
    let raw = nvidia_smi::sample_for(Duration::from_secs_f64(seconds), args.interval_ms)?;
    if let Some(path) = &args.save {
        std::fs::write(path, &raw)
            .map_err(|e| CliError::usage(format!("cannot write {path}: {e}")))?;
    }
    d.push(&raw);
    super::diagnose::emit_report(&d.finish(), global)
}

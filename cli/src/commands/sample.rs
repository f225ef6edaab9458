use std::process::ExitCode;
use std::time::Duration;

use kgadvise_core::text::number::shortest;

use crate::nvidia_smi;
use crate::output::{CliError, Global};

const EXAMPLES: &str = "Examples:
  kgadvise sample --seconds 1200               20 minutes at 1 s while the run trains, then the verdicts
  kgadvise sample --seconds 60 --interval-ms 500 --save gpu.csv --json
  KGADVISE_NVIDIA_SMI=/path/to/nvidia-smi kgadvise sample --seconds 30

Runs nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw,power.limit
--format=csv -lms M for N seconds, then diagnoses what it printed (as `kgadvise diagnose`).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// How long to sample, in seconds.
    #[arg(long, default_value_t = 60.0, value_name = "N")]
    pub seconds: f64,
    /// Sampling interval in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "M")]
    pub interval_ms: u64,
    /// Also save the raw nvidia-smi output to FILE (re-read later with `kgadvise diagnose FILE`).
    #[arg(long, value_name = "FILE")]
    pub save: Option<String>,
    #[command(flatten)]
    pub input: super::diagnose::InputArgs,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(CliError::usage(format!(
            "--seconds {}: expected a positive number",
            shortest(args.seconds)
        )));
    }
    if args.interval_ms == 0 {
        return Err(CliError::usage(
            "--interval-ms 0: expected a positive number of milliseconds",
        ));
    }
    let mut d = args.input.diagnoser(global)?;
    let raw = nvidia_smi::sample_for(Duration::from_secs_f64(args.seconds), args.interval_ms)?;
    if let Some(path) = &args.save {
        std::fs::write(path, &raw)
            .map_err(|e| CliError::usage(format!("cannot write {path}: {e}")))?;
    }
    d.push(&raw);
    super::diagnose::emit_report(&d.finish(), global)
}

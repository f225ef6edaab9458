use std::process::ExitCode;

use kgadvise_core::quota::cap::{self, CapRequest};
use kgadvise_core::text::number::shortest;

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise cap --measured 3.5
  kgadvise cap --measured 3.5 --factor 1.3
  kgadvise cap --fold-hours 1.5 --folds 5
  kgadvise cap --fold-hours 4 --folds 7 --json
  kgadvise cap --measured 7 --tpu

-t is a hard kill at the cap and only the hours actually run are charged, so a margin costs nothing.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["measured", "fold_hours"])))]
pub struct Args {
    /// Measured runtime of a kernel of your own, hours.
    #[arg(long, value_name = "H", value_parser = crate::output::hours)]
    pub measured: Option<f64>,
    /// Measured cost of one fold on one GPU, hours (full CV through a runner); with --tpu, on one chip.
    #[arg(long, value_name = "C", requires = "folds", value_parser = crate::output::hours)]
    pub fold_hours: Option<f64>,
    /// Folds of the full CV run.
    #[arg(long, value_name = "K", requires = "fold_hours")]
    pub folds: Option<u32>,
    /// GPUs running folds in parallel (default: those of a T4 x2 session); with --tpu, TPU chips
    /// (default: the v5e-8's 8, one process per chip).
    #[arg(long, value_name = "N")]
    pub gpus: Option<u32>,
    /// A TPU session: the TPU session limit instead of the GPU one, a full CV's rounds counted per chip
    /// (--fold-hours is then one fold on one chip).
    #[arg(long)]
    pub tpu: bool,
    /// Cap factor (default: threshold.cap.factor for a measured kernel, threshold.cap.full-cv-factor for
    /// a full CV; KQ022 says the recommended range).
    #[arg(long, value_name = "F")]
    pub factor: Option<f64>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = CapRequest {
        measured: args.measured,
        fold_hours: args.fold_hours,
        folds: args.folds,
        gpus: args.gpus,
        tpu: args.tpu,
        factor: args.factor,
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report = cap::cap(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(
        global,
        "cap",
        &[
            ("measured", args.measured.map(shortest)),
            ("foldHours", args.fold_hours.map(shortest)),
            ("folds", args.folds.map(|v| v.to_string())),
            ("gpus", args.gpus.map(|v| v.to_string())),
            ("tpu", args.tpu.then(|| "true".to_string())),
            ("factor", args.factor.map(shortest)),
        ],
    );
    Ok(code)
}

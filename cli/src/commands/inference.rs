use std::process::ExitCode;

use kgadvise_core::hardware::inference::{self, InferenceRequest};

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise inference --item-seconds 0.9 --test-items 40000 --limit-hours 9
  kgadvise inference --batch-seconds 2.4 --batch-size 64 --test-items 250000 --limit-hours 9 \\
      --setup-seconds 600
  kgadvise inference --item-seconds 0.05 --test-items 40000 --timed-items 40000 --limit-hours 9 \\
      --platform t4x2
  kgadvise inference --item-seconds 1.2 --test-items 3000 --limit-hours 9 --platform cpu --json

Time the whole pipeline (every ensemble member) on an input as large as the hidden test, and give \
the limit the competition's code requirements state. The share of the limit to leave unused is the \
threshold inference.min-margin (kgadvise explain threshold.inference.min-margin; --set changes it).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: InferenceRequest,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = InferenceRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let report = inference::inference(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(global, "inference", &args.request);
    Ok(code)
}

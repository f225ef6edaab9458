use std::process::ExitCode;

use kgadvise_core::hardware::worth::{self, WorthGpuRequest};

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise worth-gpu --task gbdt --rows 2000000
  kgadvise worth-gpu --task gbdt --rows 300000 --refits 200
  kgadvise worth-gpu --task dataframe --rows 50000 --json

Choices: gpu, cpu, bench-both (bench one fold both ways before moving a long job).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: WorthGpuRequest,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = WorthGpuRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let report = worth::worth_gpu(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(global, "worth-gpu", &args.request);
    Ok(code)
}

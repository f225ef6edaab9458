use std::process::ExitCode;

use kgadvise_core::quota::cap::{self, CapRequest};

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
pub struct Args {
    #[command(flatten)]
    pub request: CapRequest,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = CapRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    let report = cap::cap(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
    let code = emit(&report, global)?;
    crate::output::share(global, "cap", &args.request);
    Ok(code)
}

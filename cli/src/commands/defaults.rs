use std::process::ExitCode;

use kgadvise_core::hardware::domains::{self, DefaultsRequest};

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise defaults images --platform t4x2
  kgadvise defaults tabular --platform cpu
  kgadvise defaults text --platform linux --cores 16 --processes 2
  kgadvise defaults llm-finetune --json

Domains: images, text, llm-finetune, tabular, recsys-timeseries, audio, inference
Without --platform the platform-dependent items keep their conditions.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: DefaultsRequest,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = DefaultsRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request.clone()
    };
    // The positional domain goes unnamed: the message names it.
    let report = domains::defaults(&request, clock())
        .map_err(|e| CliError::request(e, &[("domain", "")]))?;
    let code = emit(&report, global)?;
    crate::output::share(global, "defaults", &args.request);
    Ok(code)
}

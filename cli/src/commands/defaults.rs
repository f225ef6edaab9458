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
    /// Domain identifier (images, text, llm-finetune, tabular, recsys-timeseries, audio, inference).
    pub domain: String,
    /// Platform to resolve AMP, torch.compile, workers... for (t4x2, p100, tpu-v5e-8, cpu, windows, linux).
    #[arg(long, short)]
    pub platform: Option<String>,
    /// CPU cores, when the platform does not fix them (local machines).
    #[arg(long)]
    pub cores: Option<u32>,
    /// Training processes sharing the cores (default: one per GPU).
    #[arg(long)]
    pub processes: Option<u32>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = DefaultsRequest {
        domain: args.domain.clone(),
        platform: args.platform.clone(),
        cores: args.cores,
        processes: args.processes,
        now: global.now.clone(),
        set: global.overrides(),
    };
    // The positional domain goes unnamed: the message names it.
    let report = domains::defaults(&request, clock())
        .map_err(|e| CliError::request(e, &[("domain", "")]))?;
    let code = emit(&report, global)?;
    crate::output::share(
        global,
        "defaults",
        &[
            ("domain", Some(args.domain.clone())),
            ("platform", args.platform.clone()),
            ("cores", args.cores.map(|v| v.to_string())),
            ("processes", args.processes.map(|v| v.to_string())),
        ],
    );
    Ok(code)
}

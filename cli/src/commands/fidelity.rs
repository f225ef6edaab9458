use std::process::ExitCode;

use kgadvise_core::stats::fidelity::{self, FidelityRequest};

use super::compare::read_text;
use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise fidelity backlog.csv
  kgadvise fidelity backlog.csv --json

Input: CSV with columns `idea`, `screen_gain`, `full_gain` (one row per idea; rows without a full \
gain yet are skipped and listed). With 3 or more ideas: sign agreement (share of ideas whose screen \
and full gains have the same sign) and Spearman rank correlation; warns below 0.7 and 0.5.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The ideas CSV (`-` = stdin).
    pub file: String,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = FidelityRequest {
        backlog: read_text("fidelity", "backlog", "FILE", &args.file)?,
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report = fidelity::fidelity(&request, clock())
        .map_err(|e| CliError::request(e, &[("backlog", args.file.as_str())]))?;
    emit(&report, global)
}

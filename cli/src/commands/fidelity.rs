use std::process::ExitCode;

use kgadvise_core::stats::fidelity::{self, FidelityReport, FidelityRequest};
use kgadvise_core::text::number::{fixed, shortest};

use super::compare::read_text;
use crate::output::{CliError, Global, clock, emit, render_findings, table};

const EXAMPLES: &str = "Examples:
  kgadvise fidelity backlog.csv
  kgadvise fidelity backlog.csv --json

Input: CSV with columns `idea`, `screen_gain`, `full_gain` (one row per idea; rows without a full gain
yet are skipped and listed). With 3 or more ideas: sign agreement (share of ideas whose screen and full
gains have the same sign) and Spearman rank correlation; warns below 0.7 and 0.5.";

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
    emit(&report, global, human)
}

fn human(r: &FidelityReport) -> String {
    let opt = |v: Option<f64>| v.map(|x| fixed(x, 3)).unwrap_or_else(|| "n/a".to_string());
    let mut s = format!(
        "{} ideas: sign agreement {}, Spearman {}\n\n",
        r.ideas,
        opt(r.sign_agreement),
        opt(r.spearman)
    );
    let rows: Vec<Vec<String>> = r
        .rows
        .iter()
        .map(|o| {
            vec![
                o.idea.clone(),
                shortest(o.screen_gain),
                shortest(o.full_gain),
                if o.same_sign { "yes" } else { "no" }.into(),
            ]
        })
        .collect();
    if !rows.is_empty() {
        s.push_str(&table(
            &["idea", "screen_gain", "full_gain", "same sign"],
            &rows,
        ));
        s.push('\n');
    }
    for k in &r.skipped {
        s.push_str(&format!("  skipped: {k}\n"));
    }
    s.push_str(&render_findings(&r.findings));
    s
}

use std::io::Write;
use std::process::ExitCode;

use kgadvise_core::rulebook::registry::{self, Explanation};

use crate::output::{CliError, Global, emit};

const EXAMPLES: &str = "Examples:
  kgadvise explain KH001                 a finding rule
  kgadvise explain matrix.bf16.t4x2      a matrix cell
  kgadvise explain shape.TpuV5E1         a Kaggle machine shape
  kgadvise explain --list                every ID
  kgadvise explain --all-markdown        docs/rules.md";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// A rule code (KH001) or an entry ID (matrix.bf16.t4x2, shape.TpuV5E8, threshold.*, fact.*).
    #[arg(required_unless_present_any = ["list", "all_markdown"])]
    pub rule: Option<String>,
    /// List every rule and entry ID.
    #[arg(long)]
    pub list: bool,
    /// Print the documentation of every rule as Markdown (the source of docs/rules.md).
    #[arg(long)]
    pub all_markdown: bool,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    // The global flags are checked even where they change nothing: a bad --now or --set is refused.
    global.now()?;
    global.thresholds()?;
    let mut out = std::io::stdout().lock();
    if args.all_markdown {
        let _ = write!(out, "{}", registry::render_rules_markdown());
        return Ok(ExitCode::SUCCESS);
    }
    if args.list {
        let book = kgadvise_core::rulebook();
        if global.json {
            let ids: Vec<serde_json::Value> = book
                .ids()
                .map(|(id, kind)| serde_json::json!({"rule": id, "kind": kind}))
                .collect();
            let obj = serde_json::json!({"schema": "kgadvise.explain-list/1", "rules": ids, "findings": []});
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&obj).unwrap_or_default()
            );
        } else {
            for (id, kind) in book.ids() {
                let _ = writeln!(out, "{id:<40} {kind}");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let id = args.rule.unwrap_or_default();
    let explanation = registry::explain(&id).map_err(|e| CliError::usage(e.to_string()))?;
    let code = emit(&explanation, global, human)?;
    crate::output::share(global, "rules", &[("id", Some(explanation.rule.clone()))]);
    Ok(code)
}

fn human(e: &Explanation) -> String {
    format!(
        "{} — {}\n({}, source: {}, as of {})\n\n{}",
        e.rule, e.title, e.kind, e.source, e.as_of, e.doc
    )
}

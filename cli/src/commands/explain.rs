use std::io::Write;
use std::process::ExitCode;

use kgadvise_core::explain::{self, ExplainReport, ExplainRequest};

use crate::output::{CliError, Global, clock, emit};

const EXAMPLES: &str = "Examples:
  kgadvise explain KH001                 a finding rule
  kgadvise explain matrix.bf16.t4x2      a matrix cell
  kgadvise explain shape.TpuV5E1         a Kaggle machine shape
  kgadvise explain --list                every ID
  kgadvise explain --all-markdown        docs/rules.md";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub request: ExplainRequest,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let request = ExplainRequest {
        now: global.now.clone(),
        set: global.overrides(),
        ..args.request
    };
    // The positional ID goes unnamed: the message names it.
    let report = explain::explain(&request, clock()).map_err(|e| {
        let unknown = e.field == "id"
            && explain::suggestions(request.id.as_deref().unwrap_or_default()).is_empty();
        let mut error = CliError::request(e, &[("id", "")]);
        if unknown {
            error
                .message
                .push_str(" (kgadvise explain --list, docs/rules.md)");
        }
        error
    })?;
    match &report {
        // Markdown as it is, even with --json: the source of docs/rules.md.
        ExplainReport::Markdown(m) => {
            let _ = write!(std::io::stdout().lock(), "{}", m.markdown);
            Ok(ExitCode::SUCCESS)
        }
        ExplainReport::List(list) => emit(list, global),
        ExplainReport::Entry(e) => {
            let code = emit(e, global)?;
            // The link names the entry as the answer does (KH001, whatever the case typed).
            let named = ExplainRequest {
                id: Some(e.rule.clone()),
                ..ExplainRequest::default()
            };
            crate::output::share(global, "rules", &named);
            Ok(code)
        }
    }
}

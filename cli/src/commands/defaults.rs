use std::process::ExitCode;

use kgadvise_core::hardware::domains::{self, DefaultsReport, DefaultsRequest};

use crate::output::{CliError, Global, clock, emit, render_findings};

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
    let code = emit(&report, global, human)?;
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

fn human(r: &DefaultsReport) -> String {
    let on = r
        .platform_name
        .as_deref()
        .map(|p| format!(" on {p}"))
        .unwrap_or_default();
    let mut s = format!("{}{on}\n\nAlways:\n", r.domain_name);
    for item in &r.always {
        s.push_str(&format!("  - {item}\n"));
    }
    s.push_str("\nWhen measured, or when the data is large:\n");
    for item in &r.when_measured {
        s.push_str(&format!("  - {item}\n"));
    }
    if !r.dropped.is_empty() {
        s.push_str("\nLeft out on this platform:\n");
        for d in &r.dropped {
            s.push_str(&format!("  - {}: {} ({})\n", d.text, d.reason, d.rule));
        }
    }
    for t in &r.templates {
        s.push_str(&format!(
            "\nTemplate {}: on by default: {}",
            t.file,
            t.on_by_default.join(", ")
        ));
        if !t.opt_in.is_empty() {
            s.push_str(&format!("; opt-in: {}", t.opt_in.join(", ")));
        }
        if !t.why_not_default.is_empty() {
            s.push_str(&format!(" ({})", t.why_not_default));
        }
        s.push('\n');
    }
    if !r.platform_notes.is_empty() {
        s.push_str("\nPlatform notes:\n");
        for n in &r.platform_notes {
            s.push_str(&format!("  - {n}\n"));
        }
    }
    if !r.notes.is_empty() {
        s.push_str("\nNotes:\n");
        for n in &r.notes {
            s.push_str(&format!("  - {}: {} [{}]\n", n.title, n.text, n.id));
        }
    }
    // The reminder to say why on a departure (r.departures) is the KH003 finding's fix.
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}

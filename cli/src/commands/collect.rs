//! `kgadvise collect kg_run.json`: what a finished run says to fix, and its measured cost per fold.

use std::io::Read;
use std::process::ExitCode;

use kgadvise_core::kernel::run_report::{self, CollectReport, CollectRequest, FoldOutcome};
use kgadvise_core::text::number::fixed;

use crate::output::{CliError, Global, clock, emit, file_text, render_findings};

const EXAMPLES: &str = "Examples:
  kgadvise collect runs/effb0-train/kg_run.json
  kgadvise collect kg_run.json --json | jq .cost_per_fold_hours
  cat kg_run.json | kgadvise collect -

Reads kgkit's run report (jobs, fold_status, gpu_util, elapsed_s, budget_h, deadline_hit).
cost_per_fold_hours = mean wall-clock hours of the completed folds; quota_hours_per_fold divides it by
the busy GPUs only.";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// kgkit's kg_run.json, or - for stdin.
    pub file: String,
}

/// The report's name and bytes: a file, a folder's kg_run.json, or stdin.
fn read_report(file: &str) -> Result<(String, Vec<u8>), CliError> {
    if file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::usage(format!("stdin: cannot read: {e}")))?;
        return Ok(("<stdin>".to_string(), buf));
    }
    let p = std::path::Path::new(file);
    if p.is_dir() {
        let inner = p.join("kg_run.json");
        if !inner.is_file() {
            return Err(CliError::usage(format!(
                "{file}: a folder without kg_run.json; expected kgkit's kg_run.json"
            )));
        }
        let bytes = std::fs::read(&inner)
            .map_err(|e| CliError::usage(format!("{}: {e}", inner.display())))?;
        return Ok((inner.display().to_string(), bytes));
    }
    let bytes = std::fs::read(p).map_err(|e| {
        CliError::usage(format!(
            "{file}: cannot read: {e}; expected kgkit's kg_run.json"
        ))
    })?;
    Ok((file.to_string(), bytes))
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let (name, bytes) = read_report(&args.file)?;
    let files = [("report", name.as_str())];
    let request = CollectRequest {
        report: file_text("collect", "report", &name, &bytes)?,
        input: Some(name.clone()),
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report =
        run_report::collect(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    emit(&report, global, human)
}

fn hours(x: Option<f64>) -> String {
    x.map(|h| format!("{} h", fixed(h, 2)))
        .unwrap_or_else(|| "unknown".into())
}

fn human(r: &CollectReport) -> String {
    let mut s = format!(
        "{}: {}\n",
        r.input,
        r.build_id.as_deref().unwrap_or("kgkit run")
    );
    s.push_str(&format!(
        "  accelerator {}  GPUs {} ({} busy)  elapsed {}  cap {}\n",
        r.accelerator.as_deref().unwrap_or("?"),
        r.gpus,
        r.busy_gpus,
        hours(r.elapsed_s.map(|e| e / 3600.0)),
        hours(r.budget_h)
    ));
    s.push_str(&format!(
        "  folds done {}/{}  cost per fold {}  quota per fold {}\n",
        r.folds_done,
        r.folds_total,
        hours(r.cost_per_fold_hours),
        hours(r.quota_hours_per_fold)
    ));
    for j in &r.jobs {
        let by = |o: FoldOutcome| {
            j.folds
                .iter()
                .filter(|f| f.outcome == o)
                .map(|f| f.fold.clone())
                .collect::<Vec<_>>()
        };
        let mut parts = Vec::new();
        for (label, o) in [
            ("done", FoldOutcome::Done),
            ("timed out", FoldOutcome::Timeout),
            ("never started", FoldOutcome::NeverStarted),
            ("pruned", FoldOutcome::Pruned),
            ("failed", FoldOutcome::Failed),
            ("other", FoldOutcome::Other),
        ] {
            let f = by(o);
            if !f.is_empty() {
                parts.push(format!("{label} {}", f.join(",")));
            }
        }
        s.push_str(&format!(
            "  job {}: {}\n",
            j.name,
            if parts.is_empty() {
                "no folds".into()
            } else {
                parts.join("; ")
            }
        ));
    }
    for g in &r.gpu_util {
        s.push_str(&format!(
            "  GPU {}: mean {}  p10 {}  peak {} MB\n",
            g.index,
            g.util_mean
                .map(|u| format!("{} %", fixed(u, 1)))
                .unwrap_or_else(|| "n/a".into()),
            g.util_p10
                .map(|u| format!("{} %", fixed(u, 0)))
                .unwrap_or_else(|| "n/a".into()),
            g.mem_peak_mb
                .map(|m| fixed(m, 0))
                .unwrap_or_else(|| "n/a".into())
        ));
    }
    s.push('\n');
    if r.findings.is_empty() {
        s.push_str("Nothing to fix: re-plan with the measured cost per fold (kgadvise plan --fold-hours).\n");
    }
    s.push_str(&render_findings(&r.findings));
    s
}

use std::process::ExitCode;

use kgadvise_core::hardware::{self, CellAnswer, MatrixReport};

use crate::output::{CliError, Global, emit, render_findings, table};

const EXAMPLES: &str = "Examples:
  kgadvise matrix --platform t4x2 --capability bf16     one cell, with its condition
  kgadvise matrix --platform p100                       one column, with the shape's status
  kgadvise matrix --capability torch-compile            one row
  kgadvise matrix --json                                 the whole table and every Kaggle shape

Platforms: t4x2, p100, tpu-v5e-8, cpu, windows, linux
Capabilities: fp16-amp, bf16, torch-compile, rapids, gpu-gbdt, lightgbm-gpu, vllm, tensorrt-ort-gpu,
  openvino-ort-cpu, pytorch
Support: yes, no, partial (yes under the condition), n/a (does not apply)";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Platform identifier (t4x2, p100, tpu-v5e-8, cpu, windows, linux).
    #[arg(long, short)]
    pub platform: Option<String>,
    /// Capability identifier (fp16-amp, bf16, torch-compile, ...).
    #[arg(long, short)]
    pub capability: Option<String>,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let today = global.now()?.date_naive();
    let thresholds = global.thresholds()?;
    let report = hardware::matrix(
        args.platform.as_deref(),
        args.capability.as_deref(),
        today,
        &thresholds,
    )?;
    let code = emit(&report, global, human)?;
    crate::output::share(
        global,
        "matrix",
        &[
            ("platform", args.platform.clone()),
            ("capability", args.capability.clone()),
        ],
    );
    Ok(code)
}

fn cell_line(c: &CellAnswer) -> String {
    format!(
        "{} on {}: {} — {}",
        c.capability_name,
        c.platform_name,
        c.support.as_str(),
        c.note
    )
}

fn human(report: &MatrixReport) -> String {
    let mut s = String::new();
    match report {
        MatrixReport::Cell { cell, findings, .. } => {
            s.push_str(&cell_line(cell));
            s.push_str(&format!(
                "\n  rule {} ({}, as of {})\n",
                cell.rule, cell.source, cell.as_of
            ));
            s.push_str(&render_findings(findings));
        }
        MatrixReport::Table {
            cells,
            shapes,
            findings,
            platform,
            capability,
            ..
        } => {
            if platform.is_some() || capability.is_some() {
                for c in cells {
                    s.push_str(&cell_line(c));
                    s.push('\n');
                }
            } else {
                // The seed's layout: capabilities as rows, platforms as columns, support values only.
                let book = kgadvise_core::rulebook();
                let mut header = vec!["capability"];
                header.extend(book.platforms.iter().map(|p| p.key.as_ref()));
                let rows: Vec<Vec<String>> = book
                    .capabilities
                    .iter()
                    .map(|cap| {
                        let mut row = vec![cap.key.to_string()];
                        for p in book.platforms.iter() {
                            let v = cells
                                .iter()
                                .find(|c| c.capability == cap.key && c.platform == p.key)
                                .map(|c| c.support.as_str())
                                .unwrap_or("?");
                            row.push(v.to_string());
                        }
                        row
                    })
                    .collect();
                s.push_str(&table(&header, &rows));
                s.push_str(
                    "\n(conditions: kgadvise matrix --platform P --capability C, or --json)\n",
                );
            }
            if !shapes.is_empty() {
                s.push_str("\nKaggle machine_shape status:\n");
                let rows: Vec<Vec<String>> = shapes
                    .iter()
                    .map(|sh| {
                        vec![
                            sh.machine_shape.clone(),
                            sh.status.as_str().to_string(),
                            sh.stored_as
                                .clone()
                                .map(|x| format!("stored as {x}"))
                                .unwrap_or_default(),
                        ]
                    })
                    .collect();
                s.push_str(&table(&["machine_shape", "status", "note"], &rows));
            }
            s.push_str(&render_findings(findings));
        }
    }
    s
}

use std::process::ExitCode;

use kgadvise_core::hardware::{self, CellAnswer, MatrixReport, MatrixRequest};

use crate::output::{CliError, Global, clock, emit, render_findings, table};

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
    let request = MatrixRequest {
        platform: args.platform.clone(),
        capability: args.capability.clone(),
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report = hardware::matrix(&request, clock()).map_err(|e| CliError::request(e, &[]))?;
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
                let (columns, grid_rows) = hardware::grid(cells);
                let mut header = vec!["capability"];
                header.extend(columns.iter().map(|(key, _)| key.as_str()));
                let rows: Vec<Vec<String>> = grid_rows
                    .iter()
                    .map(|(key, _, row)| {
                        let mut line = vec![key.clone()];
                        line.extend(row.iter().map(|c| c.support.as_str().to_string()));
                        line
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

//! `kgadvise check PATH`: the kernel push pre-flight. Reads the metadata (a kernel folder's
//! kernel-metadata.json, a metadata file of any name, or `-` for stdin) and the code file it names; the
//! core decides.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kgadvise_core::kernel::{self, CheckOptions, CheckReport, CodeFile};
use kgadvise_core::text::number::shortest;

use crate::output::{CliError, Global, emit, render_findings};

const EXAMPLES: &str = "Examples:
  kgadvise check kernels/train                       a kernel folder (reads kernel-metadata.json)
  kgadvise check kernels/train/kernel-metadata.json --timeout-seconds 18000
  kgadvise check kernels/train --running-gpu 2       2 GPU sessions already running
  kgadvise check kernels/infer --running-kernels alice/train-fold0 --code-competition
  kgadvise check kernels/train --plannable 6.5 --timeout-seconds 28800 --json

Exit codes: 0 the push looks fine (warnings may remain), 1 it would be refused, fail or start nothing,
2 the metadata cannot be read. As a git pre-push hook: see the README (section Examples).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// A kernel folder (its kernel-metadata.json), a metadata file, or - for stdin.
    pub path: String,
    /// Batch GPU sessions already running or queued on the account.
    #[arg(long, value_name = "N")]
    pub running_gpu: Option<u32>,
    /// Batch TPU sessions already running or queued.
    #[arg(long, value_name = "N")]
    pub running_tpu: Option<u32>,
    /// Batch CPU sessions already running.
    #[arg(long, value_name = "N")]
    pub running_cpu: Option<u32>,
    /// Kernels still queued or running (owner/slug, comma-separated).
    #[arg(long, value_name = "ID,...", value_delimiter = ',')]
    pub running_kernels: Vec<String>,
    /// Accelerator hours you can still plan this week (kgadvise quota).
    #[arg(long, value_name = "H")]
    pub plannable: Option<f64>,
    /// A quota file of any form `kgadvise quota` reads (kaggle quota output, API payload, kgkit cache):
    /// its plannable GPU (or TPU) hours are compared with the cap. --plannable wins when both are given.
    #[arg(long, value_name = "FILE")]
    pub quota: Option<String>,
    /// kgkit's runs log (gpu_runs.jsonl): in-flight runs reserve hours of the --quota figure.
    #[arg(long, value_name = "FILE", requires = "quota")]
    pub runs: Option<String>,
    /// The -t cap the push will use, in whole seconds.
    #[arg(long, value_name = "S")]
    pub timeout_seconds: Option<u64>,
    /// The kernel is for a code competition (internet must be off).
    #[arg(long)]
    pub code_competition: bool,
}

/// The metadata file a PATH stands for.
fn metadata_path(path: &str) -> Result<PathBuf, CliError> {
    let p = Path::new(path);
    if p.is_dir() {
        let f = p.join("kernel-metadata.json");
        if f.is_file() {
            return Ok(f);
        }
        let others: Vec<String> = std::fs::read_dir(p)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".json") && n.contains("metadata"))
                    .collect()
            })
            .unwrap_or_default();
        let hint = if others.is_empty() {
            String::new()
        } else {
            format!(" (found {}: pass it as PATH)", others.join(", "))
        };
        return Err(CliError::usage(format!(
            "{path}: no kernel-metadata.json in this folder{hint}; expected a kernel folder or a metadata file"
        )));
    }
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    Err(CliError::usage(format!(
        "{path}: no such file or folder; expected a kernel folder or its kernel-metadata.json"
    )))
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let today = global.now()?.date_naive();
    let thresholds = global.thresholds()?;
    if let Some(h) = args.plannable
        && (!h.is_finite() || h < 0.0)
    {
        return Err(CliError::usage(format!(
            "--plannable {h}: expected hours >= 0",
            h = shortest(h)
        )));
    }
    // Plannable (GPU, TPU) hours from a quota file, read as `kgadvise quota` reads it.
    let quota_plannable = match &args.quota {
        Some(path) => {
            let now = global.now()?;
            let report =
                super::quota::load(path, args.runs.as_deref(), false, None, now, &thresholds)?;
            (
                report.gpu.as_ref().map(|q| q.plannable),
                report.tpu.as_ref().map(|q| q.plannable),
            )
        }
        None => (None, None),
    };
    let limit = kernel::max_metadata_bytes(&thresholds);
    let (name, folder, bytes) = if args.path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .take(limit.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(|e| CliError::usage(format!("stdin: cannot read: {e}")))?;
        ("<stdin>".to_string(), PathBuf::from("."), buf)
    } else {
        let file = metadata_path(&args.path)?;
        let name = file.display().to_string();
        let len = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        if len > limit {
            return Err(CliError::usage(format!(
                "{name}: {len} bytes is far too big for kernel metadata (limit {limit} bytes); expected a small kernel-metadata.json [KM001]"
            )));
        }
        let bytes = std::fs::read(&file).map_err(|e| {
            CliError::usage(format!(
                "{name}: cannot read: {e}; expected a readable kernel-metadata.json"
            ))
        })?;
        let folder = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        (name, folder, bytes)
    };
    let meta = kernel::parse_metadata(&bytes, &thresholds)
        .map_err(|e| CliError::usage(format!("{name}: {e}")))?;

    // The code file, relative to the metadata's folder (as Kaggle's CLI resolves it).
    let code_bytes;
    let resolved;
    let code = match meta
        .code_file
        .as_deref()
        .filter(|c| !c.trim().is_empty() && !c.contains("INSERT_"))
    {
        None => CodeFile::NotNamed,
        Some(cf) => {
            let rel = Path::new(cf);
            let path = if rel.is_absolute() {
                rel.to_path_buf()
            } else {
                folder.join(rel)
            };
            // A Windows path pushed from Linux: also look with forward slashes, so the size is still checked
            // (the back-slash itself is KM024).
            let alt = folder.join(cf.replace('\\', "/"));
            let found = [path.clone(), alt].into_iter().find(|p| p.is_file());
            resolved = path.display().to_string();
            match found {
                None => CodeFile::Missing {
                    resolved: &resolved,
                },
                Some(p) => {
                    code_bytes = std::fs::read(&p).map_err(|e| {
                        CliError::usage(format!("{}: cannot read the code file: {e}", p.display()))
                    })?;
                    CodeFile::Present { bytes: &code_bytes }
                }
            }
        }
    };
    let opts = CheckOptions {
        running_gpu: args.running_gpu,
        running_tpu: args.running_tpu,
        running_cpu: args.running_cpu,
        running_kernels: args
            .running_kernels
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        plannable_hours: args.plannable.or(quota_plannable.0),
        plannable_tpu_hours: args.plannable.or(quota_plannable.1),
        timeout_seconds: args.timeout_seconds,
        code_competition: args.code_competition,
    };
    let report = kernel::check(&name, meta, code, &opts, today, &thresholds);
    emit(&report, global, human)
}

fn human(r: &CheckReport) -> String {
    let mut s = String::new();
    let verdict = if r.ok {
        if r.findings.is_empty() {
            "ready to push"
        } else {
            "can be pushed, but read the warnings"
        }
    } else {
        "would be refused, fail or start nothing: fix the errors first"
    };
    s.push_str(&format!("{}: {verdict}\n", r.input));
    s.push_str(&format!(
        "  kernel: {}  accelerator: {}  machine_shape stored: {}\n",
        r.id.as_deref().unwrap_or("(no id)"),
        r.accelerator.as_str(),
        r.machine_shape.as_deref().unwrap_or("none")
    ));
    if let Some(cf) = &r.code_file {
        let size = r
            .code_file_bytes
            .map(|b| format!("{b} bytes"))
            .unwrap_or_else(|| "not read".into());
        s.push_str(&format!("  code_file: {cf} ({size})\n"));
    }
    s.push('\n');
    s.push_str(&render_findings(&r.findings));
    s
}

//! `kgadvise check PATH`: the kernel push pre-flight. Reads the metadata (a kernel folder's
//! kernel-metadata.json, a metadata file of any name, or `-` for stdin) and the code file it names; the
//! core decides.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kgadvise_core::kernel::{self, CheckRequest};
use kgadvise_core::rulebook::Thresholds;

use crate::output::{CliError, Global, clock, emit, file_text};

const EXAMPLES: &str = "Examples:
  kgadvise check kernels/train                       a kernel folder (reads kernel-metadata.json)
  kgadvise check kernels/train/kernel-metadata.json --timeout-seconds 18000
  kgadvise check kernels/train --running-gpu 2       2 GPU sessions already running
  kgadvise check kernels/infer --running-kernels alice/train-fold0 --code-competition
  kgadvise check kernels/train --plannable 6.5 --timeout-seconds 28800 --json
  kgadvise check kernels/tpu-train --plannable-tpu 12 --timeout-seconds 28800

Exit codes: 0 the push looks fine (warnings may remain), 1 it would be refused, fail or start \
nothing, 2 the metadata cannot be read. As a git pre-push hook: see the README (section Examples).";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// A kernel folder (its kernel-metadata.json), a metadata file, or - for stdin.
    pub path: String,
    // The running sessions and kernels, the plannable hours, the cap, the competition's kind; `run`
    // fills in the files' texts, `now` and `set`.
    #[command(flatten)]
    pub request: CheckRequest,
    /// A quota file of any form `kgadvise quota` reads (kaggle quota output, API payload, kgkit cache):
    /// its plannable GPU hours (TPU hours for a TPU push) are compared with the cap. --plannable and
    /// --plannable-tpu win when given.
    #[arg(long, value_name = "FILE")]
    pub quota: Option<String>,
    /// kgkit's runs log (gpu_runs.jsonl): in-flight runs reserve hours of the --quota figure.
    #[arg(long, value_name = "FILE", requires = "quota")]
    pub runs: Option<String>,
    /// When the --quota figure was read (RFC 3339 or a date; default: the file's modification time, now
    /// for stdin): the --runs reservations count from it, and an older figure is NOT LIVE. kgkit's
    /// fetched_at wins.
    #[arg(long, value_name = "TIME", requires = "quota")]
    pub quota_read_at: Option<String>,
    #[command(flatten)]
    pub client: crate::kaggle_client::LoopArgs,
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

/// The metadata's name, its folder and its bytes (at most one byte over the core's size limit: a bigger
/// file is refused without being read whole).
fn read_metadata(path: &str, limit: u64) -> Result<(String, PathBuf, Vec<u8>), CliError> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::usage(format!("stdin: cannot read: {e}")))?;
        return Ok(("<stdin>".to_string(), PathBuf::from("."), bytes));
    }
    let file = metadata_path(path)?;
    let name = file.display().to_string();
    std::fs::File::open(&file)
        .and_then(|f| f.take(limit.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(|e| {
            CliError::usage(format!(
                "{name}: cannot read: {e}; expected a readable kernel-metadata.json"
            ))
        })?;
    let folder = file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((name, folder, bytes))
}

/// The code file as found in the metadata's folder: its text and size on disk, or where it was looked
/// for. The core says which paths to look at.
struct FoundCode {
    text: Option<String>,
    bytes: Option<u64>,
    path: Option<String>,
}

fn find_code(
    metadata: &str,
    folder: &Path,
    thresholds: &Thresholds,
) -> Result<FoundCode, CliError> {
    let candidates: Vec<PathBuf> = kernel::code_file_paths(metadata, thresholds)
        .iter()
        .map(|rel| folder.join(rel))
        .collect();
    let Some(resolved) = candidates.first() else {
        return Ok(FoundCode {
            text: None,
            bytes: None,
            path: None,
        });
    };
    let Some(found) = candidates.iter().find(|p| p.is_file()) else {
        return Ok(FoundCode {
            text: None,
            bytes: None,
            path: Some(resolved.display().to_string()),
        });
    };
    let bytes = std::fs::read(found).map_err(|e| {
        CliError::usage(format!(
            "{}: cannot read the code file: {e}",
            found.display()
        ))
    })?;
    Ok(FoundCode {
        text: Some(file_text(
            "check",
            "code",
            &found.display().to_string(),
            &bytes,
        )?),
        bytes: Some(bytes.len() as u64),
        path: Some(found.display().to_string()),
    })
}

/// A kernel folder (or metadata file) read as a check request: its metadata and code file; the name
/// of the metadata file and where the code file is.
pub struct KernelFolder {
    pub request: CheckRequest,
    pub name: String,
    pub code_path: Option<String>,
}

/// Reads PATH's metadata and code file into a check request, its other fields those of `typed` (the
/// request as the command line gave it).
pub fn read_kernel_folder(
    path: &str,
    typed: CheckRequest,
    global: &Global,
) -> Result<KernelFolder, CliError> {
    let thresholds = global.thresholds()?;
    let (name, folder, bytes) = read_metadata(path, kernel::max_metadata_bytes(&thresholds))?;
    let metadata = kernel::metadata_text(&bytes, &thresholds)
        .map_err(|e| CliError::request(e, &[("metadata", &name)]))?;
    let code = find_code(&metadata, &folder, &thresholds)?;
    Ok(KernelFolder {
        request: CheckRequest {
            metadata,
            input: Some(name.clone()),
            code: code.text,
            code_bytes: code.bytes,
            code_path: code.path.clone(),
            now: global.now.clone(),
            set: global.overrides(),
            ..typed
        },
        name,
        code_path: code.path,
    })
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let KernelFolder {
        request: base,
        name,
        code_path,
    } = read_kernel_folder(&args.path, args.request.clone(), global)?;
    let quota = args
        .quota
        .as_deref()
        .map(|path| super::quota::quota_input("check", path, false, args.quota_read_at.as_deref()))
        .transpose()?;
    let mut runs = args
        .runs
        .as_deref()
        .map(|p| super::quota::read_input("check", "runs", p))
        .transpose()?;
    // No quota input at all: the quota as `kgadvise quota` reads it (live or the cache), with the runs log.
    let no_quota =
        quota.is_none() && args.request.plannable.is_none() && args.request.plannable_tpu.is_none();
    let implicit = if no_quota {
        super::quota::implicit_reading(&args.client, global)?
    } else {
        None
    };
    let (quota, quota_read_at) = match (quota, implicit) {
        (Some(q), _) => {
            let read_at = q.read_at_or_now(global)?;
            (Some(q.text), read_at)
        }
        (None, Some(live)) => {
            let dir = crate::state_files::state_dir_path(args.client.state_dir.as_deref());
            runs = crate::state_files::read_optional(&dir.join(crate::state_files::RUNS_FILE))?;
            (Some(live.quota_text), live.read_at)
        }
        (None, None) => (None, None),
    };
    let request = CheckRequest {
        quota,
        runs,
        quota_read_at,
        ..base
    };
    let input = |path: &Option<String>| match path.as_deref() {
        Some("-") => "stdin".to_string(),
        other => other.unwrap_or_default().to_string(),
    };
    let (quota_name, runs_name) = (input(&args.quota), input(&args.runs));
    let files = [
        ("metadata", name.as_str()),
        ("code", code_path.as_deref().unwrap_or_default()),
        ("quota", quota_name.as_str()),
        ("runs", runs_name.as_str()),
    ];
    let report = kernel::check(&request, clock()).map_err(|e| CliError::request(e, &files))?;
    emit(&report, global)
}

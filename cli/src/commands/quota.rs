use std::io::Read;
use std::process::ExitCode;

use chrono::{DateTime, SecondsFormat, Utc};
use kgadvise_core::quota::{self, QuotaRequest};

use crate::output::{CliError, Global, clock, emit, file_text};

const EXAMPLES: &str = "Examples:
  kaggle quota -v | kgadvise quota -
  kgadvise quota .kaggle-gm/gpu_quota.json --runs .kaggle-gm/gpu_runs.jsonl
  kgadvise quota quota.json --now 2026-09-15T10:00:00Z --json

Reads every form: the `kaggle quota` table, `-v` CSV (CRLF, warning line first), `--format json`, the raw
API payload (\"71094.4s\" durations, timeReserved), kgkit's .kaggle-gm/gpu_quota.json, and
`No quota information available`. A refreshAt without zone is UTC. Stdin counts as read just now (live);
a file is as old as its modification time unless --live or --read-at says otherwise.";

const KGKIT_CACHE: &str = ".kaggle-gm/gpu_quota.json";
const KGKIT_RUNS: &str = ".kaggle-gm/gpu_runs.jsonl";

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The quota: a file, or - for stdin (e.g. piped from `kaggle quota -v`); default: kgkit's
    /// .kaggle-gm/gpu_quota.json (with .kaggle-gm/gpu_runs.jsonl) when present.
    #[arg(value_name = "FILE|-")]
    pub file: Option<String>,
    /// kgkit's runs log (.kaggle-gm/gpu_runs.jsonl): in-flight runs reserve hours.
    #[arg(long, value_name = "FILE")]
    pub runs: Option<String>,
    /// The figure was read just now (counts as live whatever the file's time).
    #[arg(long, conflicts_with = "read_at")]
    pub live: bool,
    /// When the figure was read (RFC 3339 or a date), instead of the file's modification time.
    #[arg(long, value_name = "TIME")]
    pub read_at: Option<String>,
}

/// Reads `command`'s file input `field`: a file or `-` for stdin, decoded as core decodes that field.
/// Errors name the input.
pub fn read_input(command: &str, field: &str, path: &str) -> Result<String, CliError> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::usage(format!("stdin: cannot read: {e}")))?;
        return file_text(command, field, "stdin", &buf);
    }
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::usage(format!(
            "{path}: cannot read: {e}; expected a readable text file (- for stdin)"
        ))
    })?;
    file_text(command, field, path, &bytes)
}

/// The quota file's modification time, RFC 3339 to the fraction of a second: a saved figure is as old as
/// its file.
fn modified_at(path: &str) -> Option<String> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(DateTime::<Utc>::from(t).to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// A quota given on the command line: the text of FILE (or stdin) and how fresh it is, as the request's
/// `quota`, `live` and `readAt`.
pub struct QuotaInput {
    pub text: String,
    /// Stdin (piped from `kaggle quota`) or `--live`: read just now.
    pub live: bool,
    /// `--read-at`, else the file's modification time.
    pub read_at: Option<String>,
}

/// Reads a quota input: FILE or `-` for stdin, with `--live` and `--read-at`.
pub fn quota_input(
    command: &str,
    path: &str,
    live: bool,
    read_at: Option<&str>,
) -> Result<QuotaInput, CliError> {
    let live = live || path == "-";
    Ok(QuotaInput {
        text: read_input(command, "quota", path)?,
        live,
        read_at: if live {
            None
        } else {
            read_at.map(str::to_string).or_else(|| modified_at(path))
        },
    })
}

impl QuotaInput {
    /// When the figure was read, for a request with `quotaReadAt` and no `live` (check, tpu): the
    /// answer's now when it was read just now.
    pub fn read_at_or_now(&self, global: &Global) -> Result<Option<String>, CliError> {
        if self.live {
            return Ok(Some(
                global.now()?.to_rfc3339_opts(SecondsFormat::AutoSi, true),
            ));
        }
        Ok(self.read_at.clone())
    }
}

/// How the request fields read from files are named in errors: the file (stdin as `stdin`).
pub fn file_fields<'a>(
    quota: Option<&'a str>,
    runs: Option<&'a str>,
) -> Vec<(&'static str, &'a str)> {
    let name = |path: &'a str| if path == "-" { "stdin" } else { path };
    [("quota", quota), ("runs", runs)]
        .into_iter()
        .filter_map(|(field, path)| path.map(|p| (field, name(p))))
        .collect()
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    // Without FILE: kgkit's cache and runs log in the current folder, when they are there.
    let mut runs = args.runs.clone();
    let path = match args.file.as_deref() {
        Some(p) => p.to_string(),
        None if std::path::Path::new(KGKIT_CACHE).is_file() => {
            if runs.is_none() && std::path::Path::new(KGKIT_RUNS).is_file() {
                runs = Some(KGKIT_RUNS.to_string());
            }
            KGKIT_CACHE.to_string()
        }
        None => {
            return Err(CliError::usage(format!(
                "quota: expected a FILE or - for stdin, e.g. `kaggle quota -v | kgadvise quota -` (no {KGKIT_CACHE} here)"
            )));
        }
    };
    let input = quota_input("quota", &path, args.live, args.read_at.as_deref())?;
    let request = QuotaRequest {
        quota: input.text,
        runs: runs
            .as_deref()
            .map(|p| read_input("quota", "runs", p))
            .transpose()?,
        live: input.live,
        read_at: input.read_at,
        now: global.now.clone(),
        set: global.overrides(),
    };
    let report = quota::quota(&request, clock())
        .map_err(|e| CliError::request(e, &file_fields(Some(&path), runs.as_deref())))?;
    emit(&report, global)
}

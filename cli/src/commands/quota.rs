use std::io::Read;
use std::process::ExitCode;

use chrono::{DateTime, SecondsFormat, Utc};
use kgadvise_core::quota::{self, QuotaRequest};

use kgadvise_core::kaggle_loop::answers::{ClientAnswer, read_quota_answer};
use kgadvise_core::kaggle_loop::live_quota::{
    LiveQuota, LiveQuotaRequest, cache_is_fresh, client_tries, live_quota,
};

use crate::kaggle_client::{KaggleClient, LoopArgs};
use crate::output::{CliError, Global, clock, emit, file_text};
use crate::state_files::{
    QUOTA_FILE, StateDir, modified_at as file_time, read_optional, state_dir_path, write_atomic,
};

const EXAMPLES: &str = "Examples:
  kgadvise quota                 live (`kaggle quota --format json`), cached in .kaggle-gm/
  kgadvise quota --kaggle \"/opt/venv/bin/kaggle\" --state-dir ~/comp/.kaggle-gm
  kaggle quota -v | kgadvise quota -
  kgadvise quota .kaggle-gm/gpu_quota.json --runs .kaggle-gm/gpu_runs.jsonl
  kgadvise quota quota.json --now 2026-09-15T10:00:00Z --json

Reads every form: the `kaggle quota` table, `-v` CSV (CRLF, warning line first), `--format json`, \
the raw API payload (\"71094.4s\" durations, timeReserved), kgkit's .kaggle-gm/gpu_quota.json, and \
`No quota information available`. A refreshAt without zone is UTC. Stdin counts as read just now \
(live); a file is as old as its modification time unless --live or --read-at says otherwise.

Without FILE: the cache when it is fresh (read within threshold.quota.live-minutes), else the live \
call (tried twice); when every try fails, the cache NOT LIVE with why, the runs logged since counted \
against it.";

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
    // How fresh the figure is (`live`, `readAt`); `run` fills in the texts, `now` and `set`.
    #[command(flatten)]
    pub request: QuotaRequest,
    #[command(flatten)]
    pub client: LoopArgs,
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

/// The quota as `kgadvise quota` without FILE reads it, for every command of the loop: the fresh cache,
/// else `kaggle quota --format json` (tried as often as core says), written to the cache when it
/// answered; else the cache NOT LIVE. `runs`: the runs log's text.
pub fn live_reading(
    client: &LoopArgs,
    state: &StateDir,
    runs: Option<String>,
    global: &Global,
) -> Result<LiveQuota, CliError> {
    let thresholds = global.thresholds()?;
    let now = global.now()?;
    let path = state.quota_path();
    let cache = read_optional(&path)?;
    let mut tries = Vec::new();
    if !cache
        .as_deref()
        .is_some_and(|c| cache_is_fresh(c, now, &thresholds))
    {
        match KaggleClient::find(client.kaggle.as_deref()) {
            Err(why) => tries.push(ClientAnswer {
                not_started: Some(why),
                ..ClientAnswer::default()
            }),
            Ok(kaggle) => {
                let kaggle = kaggle.limited(global)?;
                for _ in 0..client_tries(&thresholds) {
                    let answer = kaggle.run(&["quota", "--format", "json"]);
                    let answered = read_quota_answer(&answer).is_ok();
                    tries.push(answer);
                    if answered {
                        break;
                    }
                }
            }
        }
    }
    let request = LiveQuotaRequest {
        tries,
        cache,
        cache_read_at: file_time(&path),
        runs,
        now: global.now.clone(),
        set: global.overrides(),
    };
    let name = path.display().to_string();
    let live = live_quota(&request, clock())
        .map_err(|e| CliError::request(e, &[("cache", name.as_str())]))?;
    if let Some(text) = &live.cache_text {
        write_atomic(&path, text)?;
    }
    Ok(live)
}

/// The quota `plan`, `check` and `tpu` take when given none: [`live_reading`], when there is a Kaggle CLI
/// or a cache to read (else `None`: those commands answer as they did without a quota, and nothing is
/// created).
pub fn implicit_reading(client: &LoopArgs, global: &Global) -> Result<Option<LiveQuota>, CliError> {
    let dir = state_dir_path(client.state_dir.as_deref());
    if !dir.join(QUOTA_FILE).is_file() && KaggleClient::find(client.kaggle.as_deref()).is_err() {
        return Ok(None);
    }
    let state = StateDir::lock(client.state_dir.as_deref())?;
    let runs = read_optional(&state.runs_path())?;
    live_reading(client, &state, runs, global).map(Some)
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let Some(path) = args.file.clone() else {
        let state = StateDir::lock(args.client.state_dir.as_deref())?;
        let runs = match args.runs.as_deref() {
            Some(p) => Some(read_input("quota", "runs", p)?),
            None => read_optional(&state.runs_path())?,
        };
        let live = live_reading(&args.client, &state, runs, global)?;
        return emit(&live.report, global);
    };
    let runs = args.runs.clone();
    let input = quota_input(
        "quota",
        &path,
        args.request.live,
        args.request.read_at.as_deref(),
    )?;
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

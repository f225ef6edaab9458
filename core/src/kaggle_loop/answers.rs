//! What the official Kaggle CLI prints, read (formats.md §6-§7; kaggle 2.2.5's `kaggle_api_extended.py`:
//! `quota_view_cli`, `kernels_push_cli`, `kernels_status_cli`, `kernels_list_files_cli`): the surfaces run the
//! client and hand its output here as a [`ClientAnswer`]; every meaning of a line is decided in this file.

use serde::{Deserialize, Serialize};

use crate::kernel::run_report::KernelOutcome;
use crate::kernel::run_report::session::read_status;
use crate::quota::{QuotaReading, read_quota};

/// What every command of the loop says when the Kaggle CLI cannot be found.
pub const NOT_INSTALLED: &str = "the Kaggle CLI is not installed: pip install kaggle";

/// What kaggle 2.2.5 prints first when it has no credentials (its auth help follows).
const AUTH_REQUIRED: &str = "Authentication required to call the Kaggle API";

/// Why a call failed without credentials, in kgadvise's words.
pub const NO_CREDENTIALS: &str = "no Kaggle credentials (the client says: Authentication required to call the Kaggle API): `kaggle auth login`, or KAGGLE_API_TOKEN, or ~/.kaggle/access_token";

/// One call of the Kaggle CLI as it ended: what it printed and its exit code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientAnswer {
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `None` when the call was killed or timed out before it ended.
    pub exit_code: Option<i32>,
    /// The client could not be started (not installed, not executable): why.
    pub not_started: Option<String>,
}

impl ClientAnswer {
    /// The call ended with exit 0.
    pub fn succeeded(&self) -> bool {
        self.not_started.is_none() && self.exit_code == Some(0)
    }

    /// Why the call failed, in the client's words (its last line of error output), or `None` when it
    /// succeeded.
    pub fn failure(&self) -> Option<String> {
        if let Some(why) = &self.not_started {
            return Some(why.clone());
        }
        // kaggle 2.2.5 prints its auth help (on stdout) when it has no credentials.
        if self.stdout.contains(AUTH_REQUIRED) || self.stderr.contains(AUTH_REQUIRED) {
            return Some(NO_CREDENTIALS.to_string());
        }
        let code = match self.exit_code {
            Some(0) => return None,
            Some(code) => code,
            None => return Some("stopped before it answered (killed or timed out)".to_string()),
        };
        Some(
            last_message(&self.stderr)
                .or_else(|| last_message(&self.stdout))
                .unwrap_or_else(|| format!("exited with {code} and printed nothing")),
        )
    }
}

/// The message of a client's error output: the last line that says what went wrong (a Python traceback
/// ends with the exception; `requests` names the HTTP status), without the exception's class name.
fn last_message(text: &str) -> Option<String> {
    let lines = || {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with(crate::quota::OUTDATED_WARNING))
    };
    // The HTTP status line wins over what the client prints after it (kaggle 2.2.5's hint "This is a
    // problem on Kaggle's side...", a JSON body `{"code":500,...}`).
    let line = lines()
        .rfind(|l| l.contains(" Client Error") || l.contains(" Server Error"))
        .or_else(|| lines().next_back())?;
    let message = match line.split_once(": ") {
        Some((class, rest)) if is_exception_class(class) => rest,
        _ => line,
    };
    Some(message.to_string())
}

/// `requests.exceptions.HTTPError`, `ValueError`, `OSError`: a dotted or camel-case Python class name.
fn is_exception_class(word: &str) -> bool {
    !word.contains(' ')
        && (word.ends_with("Error") || word.ends_with("Exception"))
        && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// What Kaggle answered a `kaggle kernels push` (formats.md §7.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum PushAnswer {
    /// `Kernel version N successfully pushed.  Please check progress at URL`.
    Pushed {
        version: Option<u64>,
        url: Option<String>,
    },
    /// `Kernel push error: Maximum batch GPU session count of 2 reached.` (exit 0).
    BatchLimit { accelerator: String, sessions: u32 },
    /// `Kernel push error: Maximum weekly GPU quota of 30.00 hours reached.`
    WeeklyQuota { accelerator: String, hours: f64 },
    /// `400 Client Error: Bad Request` with no message of Kaggle's.
    BadRequest { message: String },
    /// Another `Kernel push error: <message>`.
    Refused { message: String },
    /// The client failed (an HTTP error, no credentials): its message.
    Failed { message: String },
    /// The call was stopped before it printed Kaggle's answer.
    NoAnswer,
}

impl PushAnswer {
    /// The run was stored: one record in the runs log.
    pub fn pushed(&self) -> bool {
        matches!(self, PushAnswer::Pushed { .. })
    }
}

const PUSH_ERROR: &str = "Kernel push error:";

/// Reads the answer of `kaggle kernels push`.
pub fn read_push_answer(answer: &ClientAnswer) -> PushAnswer {
    let both = format!("{}\n{}", answer.stdout, answer.stderr);
    for line in both.lines().map(str::trim) {
        if let Some(error) = line.strip_prefix(PUSH_ERROR) {
            return push_error(error.trim());
        }
        if line.starts_with("Kernel version") && line.contains("successfully pushed") {
            return pushed(line);
        }
    }
    if answer.not_started.is_none() && answer.exit_code.is_none() {
        return PushAnswer::NoAnswer;
    }
    if both.contains("400 Client Error") {
        return PushAnswer::BadRequest {
            message: last_message(&both).unwrap_or_default(),
        };
    }
    PushAnswer::Failed {
        message: answer
            .failure()
            .unwrap_or_else(|| "exited 0 without Kaggle's answer".to_string()),
    }
}

/// `Kernel version 3 successfully pushed.  Please check progress at https://...`
fn pushed(line: &str) -> PushAnswer {
    let version = line
        .strip_prefix("Kernel version")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok());
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("https://") || w.starts_with("http://"))
        .map(str::to_string);
    PushAnswer::Pushed { version, url }
}

/// The message after `Kernel push error:`.
fn push_error(error: &str) -> PushAnswer {
    let words: Vec<&str> = error.trim_end_matches('.').split_whitespace().collect();
    match words.as_slice() {
        [
            "Maximum",
            "batch",
            acc,
            "session",
            "count",
            "of",
            n,
            "reached",
        ] => PushAnswer::BatchLimit {
            accelerator: acc.to_string(),
            sessions: n.parse().unwrap_or(0),
        },
        [
            "Maximum",
            "weekly",
            acc,
            "quota",
            "of",
            h,
            "hours",
            "reached",
        ] => PushAnswer::WeeklyQuota {
            accelerator: acc.to_string(),
            hours: crate::text::decimal::parse_f64(h).unwrap_or(0.0),
        },
        _ => PushAnswer::Refused {
            message: error.to_string(),
        },
    }
}

/// What `kaggle kernels status` said of a kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusSeen {
    pub kernel: String,
    /// The status as printed (`KernelWorkerStatus.RUNNING`); empty when the call failed.
    pub printed: String,
    pub outcome: Option<KernelOutcome>,
    pub failure_message: Option<String>,
    /// Why the call gave no status (the client's message).
    pub error: Option<String>,
}

/// Reads the answer of `kaggle kernels status <kernel>`.
pub fn read_status_answer(kernel: &str, answer: &ClientAnswer) -> StatusSeen {
    let mut seen = StatusSeen {
        kernel: kernel.to_string(),
        printed: String::new(),
        outcome: None,
        failure_message: None,
        error: answer.failure(),
    };
    if seen.error.is_some() {
        return seen;
    }
    match read_status(&answer.stdout) {
        Ok(line) => {
            seen.outcome = Some(KernelOutcome::of(&line.status));
            seen.printed = line.status;
            seen.failure_message = line.failure;
        }
        Err(e) => seen.error = Some(e.message),
    }
    seen
}

/// The runs log's status for what Kaggle said (formats.md §10: queued, running, complete, error,
/// cancelled): a cancel not done yet is still running, a new version not started is queued.
pub fn logged_status(outcome: KernelOutcome) -> Option<&'static str> {
    Some(match outcome {
        KernelOutcome::Queued | KernelOutcome::NewScript => "queued",
        KernelOutcome::Running | KernelOutcome::CancelRequested => "running",
        KernelOutcome::Complete => "complete",
        KernelOutcome::Error => "error",
        KernelOutcome::Cancelled => "cancelled",
        KernelOutcome::Unknown => return None,
    })
}

/// The quota `kaggle quota --format json` answered, or why there is none (the client's message, or
/// what could not be read).
pub fn read_quota_answer(answer: &ClientAnswer) -> Result<QuotaReading, String> {
    if let Some(why) = answer.failure() {
        return Err(why);
    }
    read_quota(&answer.stdout).map_err(|e| format!("its output could not be read: {e}"))
}

/// One file a session saved, as `kaggle kernels files KERNEL --format json` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavedFile {
    pub name: String,
    /// Its size in bytes, when Kaggle gave one.
    pub bytes: Option<u64>,
    /// When Kaggle says it was made, as the client printed it.
    pub created: Option<String>,
}

/// The files a session saved (`kaggle kernels files KERNEL --format json`): the first page of them, the
/// token of the next page when Kaggle has more, or why there is no list.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SavedFiles {
    pub files: Vec<SavedFile>,
    pub next_page_token: Option<String>,
    /// Why the files could not be listed (the client's message, or what could not be read).
    pub error: Option<String>,
}

/// What kaggle 2.2.5 prints before the list when Kaggle has another page.
const NEXT_PAGE: &str = "Next Page Token = ";

/// Reads the answer of `kaggle kernels files KERNEL --format json`: an optional outdated-client warning,
/// an optional `Next Page Token = T` line, then a JSON array of `{name, size, creationDate}`
/// (`No files found` when Kaggle answered nothing).
pub fn read_files_answer(answer: &ClientAnswer) -> SavedFiles {
    let unread = |why: String| SavedFiles {
        error: Some(why),
        ..SavedFiles::default()
    };
    if let Some(why) = answer.failure() {
        return unread(why);
    }
    let mut next_page_token = None;
    let mut offset = 0;
    for (n, line) in answer.stdout.split_inclusive('\n').enumerate() {
        let text = line.trim();
        if text.starts_with('[') {
            return match saved_files(&answer.stdout[offset..]) {
                Ok(files) => SavedFiles {
                    files,
                    next_page_token,
                    error: None,
                },
                Err(why) => unread(format!("its output could not be read: {why}")),
            };
        }
        if text == "No files found" {
            return SavedFiles::default();
        }
        if let Some(token) = text.strip_prefix(NEXT_PAGE) {
            next_page_token = Some(token.to_string());
        } else if !text.is_empty() && !text.starts_with(crate::quota::OUTDATED_WARNING) {
            return unread(format!(
                "its output could not be read: line {}: expected the JSON list of `--format json`, got {text:?}",
                n + 1
            ));
        }
        offset += line.len();
    }
    unread("its output could not be read: it printed no list".to_string())
}

/// The JSON array of `kaggle kernels files --format json`; an error names the item and field.
fn saved_files(json: &str) -> Result<Vec<SavedFile>, String> {
    let items: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|e| format!("expected a JSON array: {e}"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let name = item
                .get("name")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| format!("file {}: expected a string `name`, got {item}", i + 1))?;
            // int64 sizes may come as JSON strings (proto3 JSON)
            let bytes = match item.get("size") {
                Some(serde_json::Value::String(s)) => s.parse().ok(),
                Some(v) => v.as_u64(),
                None => None,
            };
            Ok(SavedFile {
                name: name.to_string(),
                bytes,
                created: item
                    .get("creationDate")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(stdout: &str, stderr: &str, exit: Option<i32>) -> ClientAnswer {
        ClientAnswer {
            stdout: stdout.into(),
            stderr: stderr.into(),
            exit_code: exit,
            not_started: None,
        }
    }

    #[test]
    fn push_answers() {
        let ok = "Kernel version 3 successfully pushed.  Please check progress at https://www.kaggle.com/code/me/train-a";
        assert_eq!(
            read_push_answer(&out(ok, "", Some(0))),
            PushAnswer::Pushed {
                version: Some(3),
                url: Some("https://www.kaggle.com/code/me/train-a".into())
            }
        );
        let batch = "Kernel push error: Maximum batch GPU session count of 2 reached.";
        assert_eq!(
            read_push_answer(&out(batch, "", Some(0))),
            PushAnswer::BatchLimit {
                accelerator: "GPU".into(),
                sessions: 2
            }
        );
        let weekly = "Kernel push error: Maximum weekly TPU quota of 20.00 hours reached.";
        assert_eq!(
            read_push_answer(&out(weekly, "", Some(0))),
            PushAnswer::WeeklyQuota {
                accelerator: "TPU".into(),
                hours: 20.0
            }
        );
        let bad = "Traceback (most recent call last):\nrequests.exceptions.HTTPError: 400 Client Error: Bad Request for url: https://api.kaggle.com/v1/kernels.KernelsApiService/SaveKernel";
        assert!(matches!(
            read_push_answer(&out("", bad, Some(1))),
            PushAnswer::BadRequest { message } if message.starts_with("400 Client Error")
        ));
        assert_eq!(read_push_answer(&out("", "", None)), PushAnswer::NoAnswer);
        assert!(matches!(
            read_push_answer(&out("Kernel push error: Notebook not found", "", Some(0))),
            PushAnswer::Refused { message } if message == "Notebook not found"
        ));
    }

    #[test]
    fn no_credentials_and_the_outdated_warning() {
        let auth = "Authentication required to call the Kaggle API.\n\nFirst, you will need a Kaggle account.\n    Save the token to ~/.kaggle/access_token\n";
        assert_eq!(
            out(auth, "", Some(1)).failure().as_deref(),
            Some(NO_CREDENTIALS)
        );
        let warned = "Warning: Looks like you're using an outdated `kaggle` version (installed: 2.2.5), please consider upgrading to the latest version (2.3.0)\n[{\"resource\": \"GPU\", \"used\": \"0.00h\", \"remaining\": \"30.00h\", \"total\": \"30.00h\", \"refreshAt\": \"2026-12-12T00:00:00+00:00\"}]\n";
        assert!(read_quota_answer(&out(warned, "", Some(0))).is_ok());
        let pushed = format!(
            "{}Kernel version 1 successfully pushed.  Please check progress at https://www.kaggle.com/code/me/a\n",
            warned.lines().next().unwrap().to_string() + "\n"
        );
        assert!(read_push_answer(&out(&pushed, "", Some(0))).pushed());
    }

    /// What kaggle 2.2.5 printed for `kaggle kernels files` against the Kaggle stand-in.
    macro_rules! client_text {
        ($name:literal) => {
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/fixtures/kaggle-client/",
                $name,
                ".stdout.txt"
            ))
        };
    }

    #[test]
    fn files_answers() {
        let listed = read_files_answer(&out(client_text!("files-json"), "", Some(0)));
        assert_eq!(listed.error, None);
        assert_eq!(
            listed.files[0],
            SavedFile {
                name: "model.pt".into(),
                bytes: Some(7),
                created: Some("2026-12-07T08:30:00Z".into())
            }
        );
        assert_eq!(listed.files.len(), 2);
        let paged = read_files_answer(&out(client_text!("files-paged"), "", Some(0)));
        assert_eq!(paged.next_page_token.as_deref(), Some("1"));
        assert_eq!(paged.files.len(), 1);
        let none = read_files_answer(&out(client_text!("files-none"), "", Some(0)));
        assert_eq!(none, SavedFiles::default());
        assert_eq!(
            read_files_answer(&out("No files found\n", "", Some(0))),
            SavedFiles::default()
        );
        let as_string = r#"[{"name": "a.bin", "size": "12"}]"#;
        assert_eq!(
            read_files_answer(&out(as_string, "", Some(0))).files[0].bytes,
            Some(12)
        );
        let failed = read_files_answer(&out(
            "",
            "404 Client Error: Not Found for url: x\n",
            Some(1),
        ));
        assert!(failed.error.unwrap().starts_with("404 Client Error"));
        let table = read_files_answer(&out("name  size\n----  ----\n", "", Some(0)));
        assert!(
            table
                .error
                .unwrap()
                .contains("line 1: expected the JSON list")
        );
        let nameless = read_files_answer(&out(r#"[{"size": 3}]"#, "", Some(0)));
        assert!(
            nameless
                .error
                .unwrap()
                .contains("file 1: expected a string `name`")
        );
    }

    #[test]
    fn status_answers() {
        let seen = read_status_answer(
            "me/a",
            &out(
                "me/a has status \"KernelWorkerStatus.RUNNING\"\n",
                "",
                Some(0),
            ),
        );
        assert_eq!(seen.outcome, Some(KernelOutcome::Running));
        let failed = read_status_answer(
            "me/a",
            &out(
                "",
                "500 Server Error: Internal Server Error for url: https://api.kaggle.com/v1/kernels.KernelsApiService/GetKernelSessionStatus\n",
                Some(1),
            ),
        );
        assert!(failed.error.unwrap().starts_with("500 Server Error"));
        // kaggle 2.2.5 prints a hint after the HTTP status (loop-standin's status-500.stderr.txt)
        let hinted = read_status_answer(
            "me/a",
            &out(
                "",
                "500 Server Error: Internal Server Error for url: https://api.kaggle.com/v1/kernels.KernelsApiService/GetKernelSessionStatus\n\nThis is a problem on Kaggle's side, not with your command. Please try again later.\n",
                Some(1),
            ),
        );
        assert!(hinted.error.unwrap().starts_with("500 Server Error"));
        assert_eq!(logged_status(KernelOutcome::Cancelled), Some("cancelled"));
    }
}

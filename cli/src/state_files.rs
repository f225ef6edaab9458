//! The loop's state files: kgkit's `.kaggle-gm/` of the current folder (or `--state-dir` /
//! `KGADVISE_STATE_DIR`), `gpu_quota.json` and `gpu_runs.jsonl`. Writes are atomic (a temporary file in
//! the same folder, then a rename) and made under a lock (`.kaggle-gm/gpu_runs.lock`, held by the
//! command from its first read of the log to its last write), so two kgadvise commands at once never
//! lose a record.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::output::CliError;

pub const QUOTA_FILE: &str = "gpu_quota.json";
pub const RUNS_FILE: &str = "gpu_runs.jsonl";
const LOCK_FILE: &str = "gpu_runs.lock";

/// The state folder and the lock held on it while the command runs.
pub struct StateDir {
    pub dir: PathBuf,
    _lock: File,
}

/// `--state-dir`, else `KGADVISE_STATE_DIR`, else `.kaggle-gm` of the current folder.
pub fn state_dir_path(flag: Option<&str>) -> PathBuf {
    flag.map(PathBuf::from)
        .or_else(|| std::env::var_os("KGADVISE_STATE_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(".kaggle-gm"))
}

impl StateDir {
    /// Opens (creating it) the state folder and waits for its lock.
    pub fn lock(flag: Option<&str>) -> Result<StateDir, CliError> {
        let dir = state_dir_path(flag);
        std::fs::create_dir_all(&dir).map_err(|e| {
            CliError::usage(format!(
                "{}: cannot create the state folder: {e}",
                dir.display()
            ))
        })?;
        let path = dir.join(LOCK_FILE);
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| CliError::usage(format!("{}: cannot open: {e}", path.display())))?;
        lock.lock()
            .map_err(|e| CliError::usage(format!("{}: cannot lock: {e}", path.display())))?;
        Ok(StateDir { dir, _lock: lock })
    }

    pub fn runs_path(&self) -> PathBuf {
        self.dir.join(RUNS_FILE)
    }

    pub fn quota_path(&self) -> PathBuf {
        self.dir.join(QUOTA_FILE)
    }

    /// The runs log's text; empty when there is none yet.
    pub fn read_runs(&self) -> Result<String, CliError> {
        read_optional(&self.runs_path()).map(Option::unwrap_or_default)
    }

    pub fn write_runs(&self, text: &str) -> Result<(), CliError> {
        write_atomic(&self.runs_path(), text)
    }
}

/// A file's text, `None` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CliError::usage(format!(
            "{}: cannot read: {e}",
            path.display()
        ))),
    }
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`: a reader sees the old
/// file or the new one, never a part.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), CliError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let fail =
        |e: std::io::Error| CliError::usage(format!("{}: cannot write: {e}", path.display()));
    let mut file = File::create(&tmp).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(fail)
}

/// A file's modification time, RFC 3339.
pub fn modified_at(path: &Path) -> Option<String> {
    let t = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339())
}

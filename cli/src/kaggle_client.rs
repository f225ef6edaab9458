//! The only place the official Kaggle CLI (PyPI `kaggle`) is run: `--kaggle CMD`, else `KGADVISE_KAGGLE`
//! (a command that may carry arguments, split as a shell does), else `kaggle` on PATH. What it prints is
//! handed to core as a `ClientAnswer`; nothing here reads its meaning.

use std::path::{Path, PathBuf};
use std::process::Command;

use kgadvise_core::kaggle_loop::answers::{ClientAnswer, NOT_INSTALLED};

use crate::output::CliError;

/// The flags every command of the loop takes.
#[derive(Debug, Clone, clap::Args)]
pub struct LoopArgs {
    /// The Kaggle CLI to run (a command, may carry arguments); default: KGADVISE_KAGGLE, else `kaggle`
    /// on PATH.
    #[arg(long, value_name = "CMD")]
    pub kaggle: Option<String>,
    /// kgkit's state folder (gpu_quota.json, gpu_runs.jsonl); default: KGADVISE_STATE_DIR, else
    /// .kaggle-gm of the current folder.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<String>,
}

/// The client found: its program and leading arguments.
#[derive(Debug, Clone)]
pub struct KaggleClient {
    program: PathBuf,
    args: Vec<String>,
}

/// `name` on PATH (a name with a `/` as it is).
fn on_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
        let p = PathBuf::from(name);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_program(p))
}

fn is_program(p: &Path) -> bool {
    p.is_file()
}

impl KaggleClient {
    /// The client of `--kaggle`, `KGADVISE_KAGGLE` or PATH; not found: why (core's words).
    pub fn find(flag: Option<&str>) -> Result<KaggleClient, String> {
        let command = flag
            .map(str::to_string)
            .or_else(|| std::env::var("KGADVISE_KAGGLE").ok())
            .filter(|c| !c.trim().is_empty())
            .unwrap_or_else(|| "kaggle".to_string());
        let mut words = shlex::split(&command).unwrap_or_default().into_iter();
        let Some(first) = words.next() else {
            return Err(NOT_INSTALLED.to_string());
        };
        let program = on_path(&first).ok_or_else(|| NOT_INSTALLED.to_string())?;
        Ok(KaggleClient {
            program,
            args: words.collect(),
        })
    }

    /// [`find`](Self::find), a missing client ending the command (exit 2).
    pub fn require(flag: Option<&str>) -> Result<KaggleClient, CliError> {
        KaggleClient::find(flag).map_err(CliError::usage)
    }

    /// Runs the client with `args`; what it printed and how it ended.
    pub fn run(&self, args: &[&str]) -> ClientAnswer {
        let output = Command::new(&self.program)
            .args(&self.args)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output();
        match output {
            Ok(o) => ClientAnswer {
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
                exit_code: o.status.code(),
                not_started: None,
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => ClientAnswer {
                not_started: Some(NOT_INSTALLED.to_string()),
                ..ClientAnswer::default()
            },
            Err(e) => ClientAnswer {
                not_started: Some(format!("{}: cannot run: {e}", self.program.display())),
                ..ClientAnswer::default()
            },
        }
    }
}

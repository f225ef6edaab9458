//! The only place the official Kaggle CLI (PyPI `kaggle`) is run: `--kaggle CMD`, else `KGADVISE_KAGGLE`
//! (a command that may carry arguments, split as a shell does), else `kaggle` on PATH. What it prints is
//! handed to core as a `ClientAnswer`; nothing here reads its meaning.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kgadvise_core::kaggle_loop::answers::{ClientAnswer, NOT_INSTALLED};

use kgadvise_core::kaggle_loop::wait::client_seconds;

use crate::output::{CliError, Global};

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

/// The client found: its program and leading arguments, and how long a call may run.
#[derive(Debug, Clone)]
pub struct KaggleClient {
    program: PathBuf,
    args: Vec<String>,
    limit: Duration,
    download_limit: Duration,
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
            limit: Duration::MAX,
            download_limit: Duration::MAX,
        })
    }

    /// [`find`](Self::find), a missing client ending the command (exit 2); its calls time-limited.
    pub fn require(flag: Option<&str>, global: &Global) -> Result<KaggleClient, CliError> {
        KaggleClient::find(flag)
            .map_err(CliError::usage)?
            .limited(global)
    }

    /// The client whose calls are stopped after core's time limits (`threshold.loop.client-seconds`,
    /// `threshold.loop.download-seconds`, `--set` overrides them).
    pub fn limited(self, global: &Global) -> Result<KaggleClient, CliError> {
        let thresholds = global.thresholds()?;
        let seconds = |download| {
            Duration::try_from_secs_f64(client_seconds(&thresholds, download))
                .unwrap_or(Duration::MAX)
        };
        Ok(KaggleClient {
            limit: seconds(false),
            download_limit: seconds(true),
            ..self
        })
    }

    /// Runs the client with `args`; what it printed and how it ended.
    pub fn run(&self, args: &[&str]) -> ClientAnswer {
        self.run_within(args, self.limit)
    }

    /// Runs `kaggle kernels output`, the one call that downloads, under its own time limit.
    pub fn download(&self, args: &[&str]) -> ClientAnswer {
        self.run_within(args, self.download_limit)
    }

    /// Runs the client; a call still running after `limit` is killed and reads as one that never
    /// answered (no exit code).
    fn run_within(&self, args: &[&str], limit: Duration) -> ClientAnswer {
        let mut command = Command::new(&self.program);
        let child = crate::child::in_own_group(&mut command)
            .args(&self.args)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        match child.and_then(|child| output_within(child, limit)) {
            Ok(o) => o,
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

/// The child's output once it ends, or once `limit` has passed (then killed: no exit code). Both pipes
/// are drained by threads meanwhile, so a client that prints a lot never blocks on a full pipe.
fn output_within(mut child: Child, limit: Duration) -> std::io::Result<ClientAnswer> {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let exit_code = loop {
        if let Some(status) = child.try_wait()? {
            break status.code();
        }
        if started.elapsed() >= limit {
            crate::child::kill_group(&mut child);
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(ClientAnswer {
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        exit_code,
        not_started: None,
    })
}

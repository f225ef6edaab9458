//! Running the real `nvidia-smi` (the only place kgadvise starts it). `KGADVISE_NVIDIA_SMI` names another
//! program (tests use a fake script), otherwise `nvidia-smi` is looked up on PATH. Used by `sample` and
//! `bench`, and by the Python wheel's `kgadvise.watch` (through this crate's library).

use std::ffi::OsString;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// nvidia-smi could not be started: a message that names the program and what to do instead.
#[derive(Debug, Clone, PartialEq)]
pub struct NotStarted {
    pub message: String,
}

impl std::fmt::Display for NotStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NotStarted {}

/// The `--query-gpu` fields kgadvise samples: everything the verdicts use.
pub const QUERY_FIELDS: &str =
    "timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw,power.limit";

/// The program to run: `$KGADVISE_NVIDIA_SMI`, else `nvidia-smi` from PATH.
pub fn program() -> OsString {
    std::env::var_os("KGADVISE_NVIDIA_SMI")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| OsString::from("nvidia-smi"))
}

/// The arguments of a sampling loop every `interval_ms`.
pub fn loop_args(interval_ms: u64) -> Vec<String> {
    vec![
        format!("--query-gpu={QUERY_FIELDS}"),
        "--format=csv".into(),
        "-lms".into(),
        interval_ms.max(1).to_string(),
    ]
}

/// A running sampler: nvidia-smi in a loop, its output collected by two reader threads.
pub struct Sampler {
    child: Child,
    stdout: Option<JoinHandle<Vec<u8>>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    started: Instant,
}

fn reader<R: Read + Send + 'static>(mut r: R) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// Starts `nvidia-smi --query-gpu=... --format=csv -lms M`; a clear message when the program is missing
/// (the CLI exits 2 with it).
fn spawn(interval_ms: u64) -> Result<Child, NotStarted> {
    let prog = program();
    Command::new(&prog)
        .args(loop_args(interval_ms))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            let name = prog.to_string_lossy();
            let message = if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "`{name}` not found: sampling needs NVIDIA's nvidia-smi (installed with the driver) on PATH, \
                     or its path in KGADVISE_NVIDIA_SMI. To diagnose a saved log instead: kgadvise diagnose FILE"
                )
            } else {
                format!("cannot run `{name}`: {e}")
            };
            NotStarted { message }
        })
}

impl Sampler {
    /// Starts `nvidia-smi --query-gpu=... --format=csv -lms M`; a clear message when the program is missing
    /// (the CLI exits 2 with it).
    pub fn start(interval_ms: u64) -> Result<Sampler, NotStarted> {
        let mut child = spawn(interval_ms)?;
        let stdout = child.stdout.take().map(reader);
        let stderr = child.stderr.take().map(reader);
        Ok(Sampler {
            child,
            stdout,
            stderr,
            started: Instant::now(),
        })
    }

    /// Whether nvidia-smi ended by itself (an error such as "No devices were found").
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Stops nvidia-smi and returns everything it printed (stdout, then stderr).
    pub fn stop(mut self) -> Vec<u8> {
        if !self.exited() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        let mut out = self
            .stdout
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let err = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if !err.is_empty() {
            if !out.is_empty() && !out.ends_with(b"\n") {
                out.push(b'\n');
            }
            out.extend_from_slice(&err);
        }
        out
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

/// Samples for `duration` (or until nvidia-smi ends by itself) and returns the raw output.
pub fn sample_for(duration: Duration, interval_ms: u64) -> Result<Vec<u8>, NotStarted> {
    let mut s = Sampler::start(interval_ms)?;
    while s.elapsed() < duration && !s.exited() {
        std::thread::sleep(Duration::from_millis(20).min(duration.saturating_sub(s.elapsed())));
    }
    Ok(s.stop())
}

/// A sampler whose output arrives while it runs (the live views): nvidia-smi's stdout as it is read, then
/// its stderr once it ends.
pub struct LiveSampler {
    child: Child,
    chunks: Receiver<Vec<u8>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

impl LiveSampler {
    /// Starts nvidia-smi as [`Sampler::start`] does.
    pub fn start(interval_ms: u64) -> Result<LiveSampler, NotStarted> {
        let mut child = spawn(interval_ms)?;
        let (send, chunks) = std::sync::mpsc::channel();
        if let Some(mut out) = child.stdout.take() {
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 64 * 1024];
                while let Ok(n @ 1..) = out.read(&mut buf) {
                    if send.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            });
        }
        let stderr = child.stderr.take().map(reader);
        Ok(LiveSampler {
            child,
            chunks,
            stderr,
        })
    }

    /// The output read since the last call, waiting at most `wait` for some; `None` once nvidia-smi has
    /// ended and everything it printed was given.
    pub fn next(&mut self, wait: Duration) -> Option<Vec<u8>> {
        match self.chunks.recv_timeout(wait) {
            Ok(mut bytes) => {
                while let Ok(more) = self.chunks.try_recv() {
                    bytes.extend_from_slice(&more);
                }
                Some(bytes)
            }
            Err(RecvTimeoutError::Timeout) => Some(Vec::new()),
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Stops nvidia-smi; what it printed on stderr (an error such as "No devices were found"), and what
    /// of its stdout was not taken yet.
    pub fn stop(mut self) -> Vec<u8> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut out = Vec::new();
        // Until the reader has seen the pipe close (a program it started may hold it a moment longer).
        while let Some(bytes) = self.next(Duration::from_secs(2)) {
            if bytes.is_empty() {
                break;
            }
            out.extend_from_slice(&bytes);
        }
        let err = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if !err.is_empty() && !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.extend_from_slice(&err);
        out
    }
}

impl Drop for LiveSampler {
    /// A sampler dropped without `stop` (an error on the way) still ends nvidia-smi.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

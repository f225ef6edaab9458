//! Running a user's command for `kgadvise bench`: through the shell, its output streamed through to ours
//! (and scanned for a `KGADVISE_RATES` line), timed, and stopped cleanly on Ctrl-C.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use kgadvise_core::bench::{Rates, parse_rates_line};

/// Set by the Ctrl-C handler; the bench stops the running child and still reports what it measured.
pub fn interrupted() -> &'static AtomicBool {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let handler_flag = Arc::clone(&flag);
        // If a handler cannot be installed (already set), Ctrl-C keeps its default behaviour.
        let _ = ctrlc::set_handler(move || handler_flag.store(true, Ordering::SeqCst));
        flag
    })
}

/// What running one command measured.
#[derive(Debug, Clone)]
pub struct ChildOutcome {
    pub wall_s: f64,
    pub exit_code: Option<i32>,
    pub interrupted: bool,
    /// The last `KGADVISE_RATES` line the command printed (stdout or stderr).
    pub rates: Option<Rates>,
}

/// Where a command's output goes instead of straight to ours (the live view draws it above itself): each
/// line's bytes, and whether it is for stderr.
pub type OutputSink = Arc<dyn Fn(&[u8], bool) + Send + Sync>;

fn tee<R: std::io::Read + Send + 'static>(
    source: R,
    to_stderr: bool,
    rates: Arc<Mutex<Option<Rates>>>,
    sink: Option<OutputSink>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(source);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf);
                    if let Some(r) = parse_rates_line(&line)
                        && let Ok(mut slot) = rates.lock()
                    {
                        // The latest line wins; rates it lacks keep their earlier values.
                        *slot = Some(r.or(slot.unwrap_or_default()));
                    }
                    if let Some(sink) = &sink {
                        sink(&buf, to_stderr);
                        continue;
                    }
                    // A closed terminal must not kill the bench.
                    let _ = if to_stderr {
                        std::io::stderr().lock().write_all(&buf)
                    } else {
                        std::io::stdout().lock().write_all(&buf)
                    };
                }
            }
        }
    })
}

/// Runs `command` with `sh -c` (`cmd /C` on Windows), streaming its output through. With
/// `stdout_to_stderr` (kgadvise's `--json`), the command's stdout goes to stderr so that kgadvise's stdout
/// stays exactly one JSON object.
pub fn run_command(command: &str, stdout_to_stderr: bool) -> std::io::Result<ChildOutcome> {
    run_command_into(command, stdout_to_stderr, None)
}

/// [`run_command`], its output lines given to `sink` when there is one.
pub fn run_command_into(
    command: &str,
    stdout_to_stderr: bool,
    sink: Option<OutputSink>,
) -> std::io::Result<ChildOutcome> {
    let flag = interrupted();
    let mut cmd = if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.args(["/C", command]);
        c
    } else {
        let mut c = Command::new("sh");
        c.args(["-c", command]);
        // Its own process group, so Ctrl-C reaches every process the command started (a shell's children
        // too), and none is left holding the output pipes open.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        c
    };
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let rates = Arc::new(Mutex::new(None));
    let out = child
        .stdout
        .take()
        .map(|s| tee(s, stdout_to_stderr, Arc::clone(&rates), sink.clone()));
    let err = child
        .stderr
        .take()
        .map(|s| tee(s, true, Arc::clone(&rates), sink));
    let mut was_interrupted = false;
    let mut signalled_at: Option<Instant> = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if flag.load(Ordering::SeqCst) {
            was_interrupted = true;
            match signalled_at {
                None => {
                    // The terminal's Ctrl-C reaches the child too; forward it for a child started otherwise.
                    send_signal(child.id(), Signal::Interrupt);
                    signalled_at = Some(Instant::now());
                }
                Some(t) if t.elapsed() > Duration::from_secs(5) => {
                    send_signal(child.id(), Signal::KillGroup);
                    let _ = child.kill();
                    break child.wait().ok();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let wall_s = start.elapsed().as_secs_f64();
    for handle in [out, err].into_iter().flatten() {
        let _ = handle.join();
    }
    let rates = rates.lock().ok().and_then(|r| *r);
    Ok(ChildOutcome {
        wall_s,
        exit_code: status.and_then(|s| s.code()),
        interrupted: was_interrupted,
        rates,
    })
}

/// What [`send_signal`] sends, and to whom.
#[derive(Debug, Clone, Copy)]
enum Signal {
    /// SIGINT to the child alone (Ctrl-C forwarded).
    Interrupt,
    /// SIGKILL to the child's whole process group (the child is its leader): what a command started.
    KillGroup,
}

/// Starts `command` as the leader of its own process group, so [`kill_group`] reaches whatever it started.
pub(crate) fn in_own_group(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    command
}

/// Kills a child started [`in_own_group`] with everything it started (a shell's `sleep`, a Python
/// client's helpers), so no grandchild keeps its pipes open; then reaps it.
pub(crate) fn kill_group(child: &mut Child) {
    send_signal(child.id(), Signal::KillGroup);
    let _ = child.kill();
    let _ = child.wait();
}

/// Sends `signal` through kill(2) (libc), without spawning a `kill` process. A child that has already
/// exited gives ESRCH, ignored: the wait loop sees its status.
#[cfg(unix)]
fn send_signal(pid: u32, signal: Signal) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    let (target, number) = match signal {
        Signal::Interrupt => (pid, libc::SIGINT),
        Signal::KillGroup => (-pid, libc::SIGKILL),
    };
    // SAFETY: kill(2) takes two integers and touches no memory of this process.
    unsafe {
        libc::kill(target, number);
    }
}

/// Elsewhere the child is killed by `Child::kill` alone.
#[cfg(not(unix))]
fn send_signal(pid: u32, signal: Signal) {
    let _ = (pid, signal);
}

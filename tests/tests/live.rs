//! The live diagnosis (issue 25): core's `LiveDiagnoser` ends in `diagnose`'s report byte for byte on every
//! diagnose fixture, and `kgadvise watch` / `sample --live` driven by a fake nvidia-smi that replays a
//! capture (tests/fixtures/live/): plain lines off a terminal, an in-place view in a pty, the early alarm
//! once within two minutes of replayed time, none on the capture whose dip recovers. The replay is driven
//! by what was printed (the watched command waits for the fake's "done" file), never by the clock.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use kgadvise_core::diagnose::live::LiveDiagnoser;
use kgadvise_core::diagnose::{DiagnoseRequest, diagnose};
use kgadvise_tests::{fixture, kgadvise, kgadvise_path, realdata};

fn clock() -> DateTime<Utc> {
    "2026-12-01T00:00:00Z".parse().unwrap()
}

fn diagnose_fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("diagnose"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x != "sh"))
        .collect();
    files.sort();
    for category in [
        "nvidia-smi-csv",
        "nvidia-smi-table",
        "nvidia-smi-dmon",
        "nvidia-smi-query",
    ] {
        files.extend(realdata(category));
    }
    files.extend([
        fixture("live/second-gpu-idle-2xT4.csv"),
        fixture("live/dip-recovers-2xT4.csv"),
    ]);
    files
}

/// Same input, same final report as `diagnose` of the whole log, byte for byte (JSON and text), however
/// the live diagnosis was fed.
#[test]
fn the_live_diagnosis_ends_in_the_diagnose_report_on_every_fixture() {
    let files = diagnose_fixtures();
    assert!(files.len() > 60, "{}", files.len());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let whole = diagnose(
            &DiagnoseRequest {
                log: Some(kgadvise_core::diagnose::nvsmi::decode(&bytes).into_owned()),
                ..DiagnoseRequest::default()
            },
            clock(),
        )
        .unwrap();
        for chunk in [1, 100, bytes.len().max(1)] {
            let mut live = LiveDiagnoser::of(&DiagnoseRequest::default(), clock()).unwrap();
            for piece in bytes.chunks(chunk) {
                live.push(piece);
                let _ = live.report();
            }
            let last = live.finish();
            assert_eq!(
                serde_json::to_string(&last).unwrap(),
                serde_json::to_string(&whole).unwrap(),
                "{} in chunks of {chunk}",
                path.display()
            );
            use kgadvise_core::rulebook::report::Report;
            assert_eq!(last.text(), whole.text(), "{}", path.display());
        }
    }
}

/// `kgadvise watch` over a replayed capture: the command waits until the fake has printed it all.
fn watch(capture: &str, extra: &[&str]) -> (String, PathBuf) {
    // One folder per call: two tests may replay the same capture at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "kgadvise-live-{}-{}-{call}",
        std::process::id(),
        capture.replace('.', "-")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let done = dir.join("done");
    let saved = dir.join("gpu.csv");
    let wait = format!("while [ ! -f '{}' ]; do sleep 0.02; done", done.display());
    let out = kgadvise()
        .args(["--now", "2026-12-01", "watch", "--save"])
        .arg(&saved)
        .args(extra)
        .args(["--", "sh", "-c", &wait])
        .env(
            "KGADVISE_NVIDIA_SMI",
            fixture("live/fake-nvidia-smi-replay.sh"),
        )
        .env("FAKE_NVSMI_LOG", fixture(&format!("live/{capture}")))
        .env("FAKE_NVSMI_DONE", &done)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8(out.stdout).unwrap(), saved)
}

fn diagnose_text(path: &Path) -> String {
    let out = kgadvise()
        .args(["--now", "2026-12-01", "diagnose"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The one alarm of `out` is second-gpu-idle's, and it says it settled within two minutes of the
/// replayed run (the "done when").
fn assert_alarm_within_two_minutes(out: &str) {
    let alarm = out.lines().find(|l| l.contains("kgadvise ALARM")).unwrap();
    assert!(alarm.contains("(second-gpu-idle, "), "{alarm}");
    let at = alarm.split(", ").nth(1).unwrap();
    let seconds = match at.split_once(' ') {
        Some((n, "s into the run")) => n.parse::<f64>().unwrap(),
        Some((n, "min into the run")) => n.parse::<f64>().unwrap() * 60.0,
        _ => panic!("{alarm}"),
    };
    assert!((60.0..=120.0).contains(&seconds), "{alarm}");
}

#[test]
fn watch_prints_plain_lines_one_alarm_and_the_final_diagnosis() {
    let (out, saved) = watch("second-gpu-idle-2xT4.csv", &[]);
    assert_eq!(out.matches("kgadvise ALARM").count(), 1, "{out}");
    assert_alarm_within_two_minutes(&out);
    assert!(out.contains("kgadvise live ["), "{out}");
    assert!(
        !out.contains('\u{1b}'),
        "no escape codes off a terminal: {out}"
    );
    // the final diagnosis is `diagnose` of the same log
    let final_text = diagnose_text(&fixture("live/second-gpu-idle-2xT4.csv"));
    assert!(out.ends_with(&final_text), "{out}");
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        std::fs::read(fixture("live/second-gpu-idle-2xT4.csv")).unwrap()
    );
}

#[test]
fn a_dip_that_recovers_raises_no_alarm() {
    let (out, _) = watch("dip-recovers-2xT4.csv", &[]);
    assert!(!out.contains("ALARM"), "{out}");
    assert!(out.ends_with(&diagnose_text(&fixture("live/dip-recovers-2xT4.csv"))));
}

/// A Kaggle kernel run under `kgadvise watch` keeps the final diagnosis in its log as one
/// `KGADVISE_DIAGNOSIS` line; `kgadvise collect --log` of that log reports it (KR016).
#[test]
fn collect_finds_the_watch_diagnosis_in_the_log() {
    let (out, saved) = watch("second-gpu-idle-2xT4.csv", &[]);
    assert_eq!(out.matches("KGADVISE_DIAGNOSIS {").count(), 1, "{out}");
    let dir = saved.parent().unwrap();
    let log = dir.join("bert-watch.log");
    std::fs::write(&log, &out).unwrap();
    let status = dir.join("status.txt");
    std::fs::write(
        &status,
        "alice/bert-watch has status \"KernelWorkerStatus.COMPLETE\"\n",
    )
    .unwrap();
    let collect = |json: bool| {
        let mut cmd = kgadvise();
        cmd.args(["--now", "2026-12-01", "collect", "--log"])
            .arg(&log)
            .arg("--status")
            .arg(&status);
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let report: serde_json::Value = serde_json::from_slice(&collect(true).stdout).unwrap();
    let diagnosis = &report["session"]["diagnosis"];
    assert_eq!(
        diagnosis["verdicts"],
        serde_json::json!(["second-gpu-idle", "compute-bound", "too-short"]),
        "{report}"
    );
    assert_eq!(diagnosis["rule"], "KV004", "{report}");
    let found = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "KR016")
        .unwrap_or_else(|| panic!("no KR016: {report}"));
    assert!(
        found["evidence"]
            .as_str()
            .unwrap()
            .contains("second-gpu-idle")
    );
    assert_eq!(found["fix"], diagnosis["fix"]);
    let text = String::from_utf8(collect(false).stdout).unwrap();
    assert!(
        text.contains("[KR016]: The watch diagnosed the run"),
        "{text}"
    );
}

#[test]
fn sample_live_ends_with_nvidia_smi_and_prints_the_diagnosis() {
    let out = kgadvise()
        .args(["--now", "2026-12-01", "--json", "sample", "--live"])
        .env(
            "KGADVISE_NVIDIA_SMI",
            fixture("live/fake-nvidia-smi-replay.sh"),
        )
        .env("FAKE_NVSMI_LOG", fixture("live/second-gpu-idle-2xT4.csv"))
        .env("FAKE_NVSMI_EXIT", "1")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["verdicts"],
        serde_json::json!(["second-gpu-idle", "compute-bound", "too-short"]),
        "{report}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("kgadvise ALARM").count(), 1, "{stderr}");
}

#[test]
fn watch_needs_a_command() {
    let out = kgadvise().args(["watch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The terminal view in a pseudo-terminal: drawn, then erased for the command's output and drawn again
/// below it (cursor up and clear), the alarm once, the final diagnosis after it. The command prints its
/// line once the view is on the screen (the test creates its "go" file then): no race with the clock.
#[cfg(unix)]
#[test]
fn watch_redraws_in_place_on_a_terminal() {
    let dir = std::env::temp_dir().join(format!("kgadvise-live-pty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (done, go) = (dir.join("done"), dir.join("go"));
    let wait = format!(
        "while [ ! -f '{}' ]; do sleep 0.02; done; echo epoch-1-done",
        go.display()
    );
    let mut cmd = std::process::Command::new(kgadvise_path());
    cmd.args(["--now", "2026-12-01", "watch", "--", "sh", "-c", &wait])
        .env(
            "KGADVISE_NVIDIA_SMI",
            fixture("live/fake-nvidia-smi-replay.sh"),
        )
        .env("FAKE_NVSMI_LOG", fixture("live/second-gpu-idle-2xT4.csv"))
        .env("FAKE_NVSMI_DONE", &done);
    let screen = pty::run(cmd, |screen| {
        if !go.exists() && done.exists() && screen.contains("Verdicts so far") {
            std::fs::write(&go, "").unwrap();
        }
    });
    assert!(screen.contains("kgadvise live: "), "{screen}");
    assert!(screen.contains("last minutes"), "{screen}");
    // MoveToPreviousLine(n) then Clear(FromCursorDown): the view is erased and drawn again in place
    let erased = screen.find("\u{1b}[J").expect("the view is never erased");
    assert!(screen[erased..].contains("epoch-1-done"), "{screen}");
    assert!(screen[erased..].contains("kgadvise live: "), "{screen}");
    assert_eq!(screen.matches("kgadvise ALARM").count(), 1, "{screen}");
    assert_alarm_within_two_minutes(&screen);
    assert!(screen.contains("[settled] second-gpu-idle"), "{screen}");
    assert!(
        screen.contains("Verdicts (fix first): second-gpu-idle"),
        "{screen}"
    );
}

#[cfg(unix)]
mod pty {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::{Command, Stdio};

    /// Runs the command with a pseudo-terminal (120 x 40) as its stdin, stdout and stderr; everything it
    /// wrote there. `on_output` sees the screen so far after each read.
    pub fn run(mut cmd: Command, mut on_output: impl FnMut(&str)) -> String {
        let size = libc::winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let (mut master_fd, mut slave_fd) = (-1, -1);
        // SAFETY: openpty writes two new descriptors, which are owned below and by nothing else.
        let rc = unsafe {
            libc::openpty(
                &mut master_fd,
                &mut slave_fd,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty failed");
        // SAFETY: as above.
        let (master, slave) = unsafe {
            (
                OwnedFd::from_raw_fd(master_fd),
                OwnedFd::from_raw_fd(slave_fd),
            )
        };
        let mut child = cmd
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .spawn()
            .unwrap();
        // The command keeps its copies of the terminal's descriptors until dropped: reading would wait
        // for them forever.
        drop(cmd);
        let mut file = std::fs::File::from(master);
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        // Read until the last holder of the terminal is gone (EIO on Linux).
        loop {
            match file.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    out.extend_from_slice(&buf[..n]);
                    on_output(&String::from_utf8_lossy(&out));
                }
            }
        }
        let _ = child.wait();
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Ctrl-C (SIGINT) stops `sample --live`: the final diagnosis of what was sampled, saved with `--save`.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_sample_live_with_the_final_diagnosis() {
    let dir = std::env::temp_dir().join(format!("kgadvise-live-int-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (done, saved) = (dir.join("done"), dir.join("gpu.csv"));
    let child = std::process::Command::new(kgadvise_path())
        .args(["--now", "2026-12-01", "sample", "--live", "--save"])
        .arg(&saved)
        .env(
            "KGADVISE_NVIDIA_SMI",
            fixture("live/fake-nvidia-smi-replay.sh"),
        )
        .env("FAKE_NVSMI_LOG", fixture("live/second-gpu-idle-2xT4.csv"))
        .env("FAKE_NVSMI_DONE", &done)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The replay printed everything and kgadvise saved it: then the interrupt.
    let whole = std::fs::read(fixture("live/second-gpu-idle-2xT4.csv")).unwrap();
    while !done.exists() || std::fs::read(&saved).map(|b| b.len()).unwrap_or(0) < whole.len() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.matches("kgadvise ALARM").count(), 1, "{out}");
    assert!(
        out.ends_with(&diagnose_text(&fixture("live/second-gpu-idle-2xT4.csv"))),
        "{out}"
    );
    assert_eq!(std::fs::read(&saved).unwrap(), whole);
}

/// Without nvidia-smi, `watch` says so (exit 2) and does not start the command.
#[test]
fn watch_without_nvidia_smi_starts_nothing() {
    let dir = std::env::temp_dir().join(format!("kgadvise-live-none-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("ran");
    let out = kgadvise()
        .args(["watch", "--", "touch"])
        .arg(&marker)
        .env("KGADVISE_NVIDIA_SMI", dir.join("no-such-nvidia-smi"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not found"));
    assert!(!marker.exists());
}

//! End-to-end: `kgadvise bench` against real child processes written for the test (one that sleeps, one
//! that fails, one that prints its rates), with a fake `nvidia-smi` that prints a recorded real log from
//! tests/fixtures/realdata, so the GPU sampling path runs without a GPU.

use std::path::PathBuf;

use kgadvise_tests::{finding_rules, fixture, json_of, kgadvise, real_sample};

fn fake_nvsmi() -> PathBuf {
    fixture("bench/fake-nvidia-smi-realdata.sh")
}

/// A real 1 s loop with a header and units, utilisation and memory (an RTX 2070 log).
fn real_log() -> PathBuf {
    real_sample("nvidia-smi-csv/rtx2070-repeated-header-units-1s_gpu-usage.csv")
}

fn bench(dir: &tempdir::Dir) -> assert_cmd::Command {
    let mut cmd = kgadvise();
    cmd.current_dir(&dir.0)
        .env("KGADVISE_NVIDIA_SMI", fake_nvsmi())
        .env("FAKE_NVSMI_LOG", real_log())
        .args([
            "bench",
            "--now",
            "2026-11-30T12:00:00Z",
            "--interval-ms",
            "100",
        ]);
    cmd
}

mod tempdir {
    /// A fresh folder per test in cargo's temporary folder for integration tests (inside whatever target
    /// directory cargo uses, `CARGO_TARGET_DIR` included), removed at the end.
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new(name: &str) -> Dir {
            let p = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[test]
fn a_sleeping_command_is_timed_and_its_gpus_sampled() {
    let dir = tempdir::Dir::new("bench-sleep");
    let out = bench(&dir)
        .args(["--name", "nap", "--run", "sleep 0.4", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.bench/1");
    assert_eq!(v["gpu_sampled"], true);
    let run = &v["runs"][0];
    for key in [
        "command",
        "wall_s",
        "exit_code",
        "speedup",
        "gpus",
        "verdicts",
    ] {
        assert!(run.get(key).is_some(), "runs[0] lacks {key}: {run}");
    }
    let wall = run["wall_s"].as_f64().unwrap();
    assert!((0.35..10.0).contains(&wall), "{wall}");
    let gpu = &run["gpus"][0];
    assert!(
        gpu["util_mean"].as_f64().is_some(),
        "the fake nvidia-smi's real log was diagnosed: {gpu}"
    );
    assert!(gpu["samples"].as_u64().unwrap() > 10);
    assert!(
        run["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == "too-short")
    );
    // One record appended to reports/bench.jsonl.
    let history = std::fs::read_to_string(dir.0.join("reports/bench.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 1);
    assert!(
        history.contains("\"name\":\"nap\"") && history.contains("2026-11-30T12:00:00Z"),
        "{history}"
    );
}

#[test]
fn a_failing_command_is_an_error_finding() {
    let dir = tempdir::Dir::new("bench-fail");
    let out = bench(&dir)
        .args(["--run", "exit 3", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["runs"][0]["exit_code"], 3);
    assert!(finding_rules(&v).contains(&"KB002".to_string()), "{v}");
}

#[test]
fn printed_rates_feed_the_verdicts_and_runs_are_compared_with_the_first() {
    let dir = tempdir::Dir::new("bench-rates");
    let script = fixture("bench/prints-rates.sh");
    let slow = "sleep 0.8".to_string();
    let fast = format!("sh {} --bs 128", script.display());
    let out = bench(&dir)
        .args(["--name", "r", "--run", &slow, "--run", &fast, "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    let second = &v["runs"][1];
    assert_eq!(second["rates"]["data"], 1200.0);
    assert_eq!(second["rates"]["loop"], 1100.0);
    assert!(
        second["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == "input-bound"),
        "{second}"
    );
    assert!(second["speedup"].as_f64().unwrap() > 1.0, "{second}");
    assert!(
        second["changed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["setting"] == "--bs"),
        "{second}"
    );
    // The command's own output streamed through (to stderr under --json, so stdout stays one object).
    assert!(String::from_utf8_lossy(&out.stderr).contains("epoch 1/1"));
}

#[test]
fn without_nvidia_smi_it_measures_wall_time_only() {
    let dir = tempdir::Dir::new("bench-nosmi");
    let out = kgadvise()
        .current_dir(&dir.0)
        .env("KGADVISE_NVIDIA_SMI", dir.0.join("no-such-nvidia-smi"))
        .args(["bench", "--run", "true", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["gpu_sampled"], false);
    assert!(finding_rules(&v).contains(&"KB003".to_string()), "{v}");
}

#[test]
fn history_shows_speedups_and_what_changed() {
    let dir = tempdir::Dir::new("bench-history");
    for cmd in ["sleep 0.6; true --bs 64", "sleep 0.2; true --bs 128"] {
        // `true` ignores its flags: they only mark the settings.
        let out = bench(&dir)
            .args(["--name", "h", "--run", cmd])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = kgadvise()
        .current_dir(&dir.0)
        .args(["bench", "--history", "--name", "h", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.bench-history/1");
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    assert!(records[0]["speedup"].is_null());
    assert!(
        records[1]["speedup"].as_f64().unwrap() > 1.5,
        "{}",
        records[1]
    );
    let changed: Vec<&str> = records[1]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["setting"].as_str().unwrap())
        .collect();
    assert!(
        changed.contains(&"--bs") && changed.contains(&"argv[1]"),
        "{changed:?}"
    );
}

#[test]
fn history_without_a_file_is_unusable_input() {
    let dir = tempdir::Dir::new("bench-nohistory");
    let out = kgadvise()
        .current_dir(&dir.0)
        .args(["bench", "--history"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("reports/bench.jsonl: no bench history yet")
    );
    let out = kgadvise()
        .current_dir(&dir.0)
        .args(["bench", "--run", "true", "--data-rate=-4"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--data-rate -4: expected a positive rate")
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_child_and_still_reports() {
    let dir = tempdir::Dir::new("bench-ctrlc");
    let child = std::process::Command::new(kgadvise_tests::kgadvise_path())
        .current_dir(&dir.0)
        .env("KGADVISE_NVIDIA_SMI", fake_nvsmi())
        .env("FAKE_NVSMI_LOG", real_log())
        .args(["bench", "--name", "long", "--run", "sleep 30", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    let started = std::time::Instant::now();
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        started.elapsed().as_secs() < 10,
        "Ctrl-C took {:?}",
        started.elapsed()
    );
    let v = json_of(&out);
    assert_eq!(v["runs"][0]["interrupted"], true, "{v}");
    assert!(v["runs"][0]["wall_s"].as_f64().unwrap() < 20.0);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an interrupted run is a failed run"
    );
    // Still recorded.
    assert!(
        std::fs::read_to_string(dir.0.join("reports/bench.jsonl"))
            .unwrap()
            .contains("\"interrupted\":true")
    );
}

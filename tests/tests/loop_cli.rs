//! The loop's commands end to end (quota → push → status → wait → collect → log, release) against a
//! small stand-in for the Kaggle CLI (`tests/fixtures/loop/fake-kaggle.sh`, answering with the real
//! client's texts), on a simulated clock (`--now`). The scenarios through the real client against a
//! stand-in of Kaggle's API are the loop-standin tests'.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use kgadvise_tests::{finding_rules, fixture, json_of, kgadvise};

const QUOTA: &str = r#"[{"resource": "GPU", "used": "2.42h", "remaining": "27.58h", "total": "30.00h", "refreshAt": "2026-12-12T00:00:00+00:00"}, {"resource": "TPU", "used": "0.00h", "remaining": "20.00h", "total": "20.00h", "refreshAt": "2026-12-12T00:00:00+00:00"}]"#;

/// A log as `kaggle kernels output` writes it (JSON records with times since the session started),
/// ending at `last_s`.
fn session_log(last_s: f64) -> String {
    format!(
        "[{{\"stream_name\":\"stdout\",\"time\":2.5,\"data\":\"epoch 1\\n\"}}\n,{{\"stream_name\":\"stdout\",\"time\":{last_s},\"data\":\"epoch 9\\n\"}}]"
    )
}

/// A test's world: its folder (the state in .kaggle-gm, kernel folders) and the fake client's folder.
struct World {
    dir: PathBuf,
}

impl World {
    fn new(name: &str) -> World {
        let dir = std::env::temp_dir().join(format!("kgadvise-loop-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("fake")).unwrap();
        std::fs::write(dir.join("fake/quota.json"), QUOTA).unwrap();
        World { dir }
    }

    fn fake(&self, name: &str, text: &str) {
        std::fs::write(self.dir.join("fake").join(name), text).unwrap();
    }

    fn kernel(&self, slug: &str) -> String {
        let k = self.dir.join(slug);
        std::fs::create_dir_all(&k).unwrap();
        let meta = format!(
            r#"{{"id": "me/{slug}", "title": "{slug}", "code_file": "train.py", "language": "python", "kernel_type": "script", "is_private": true, "enable_gpu": true, "enable_internet": false, "machine_shape": "NvidiaTeslaT4", "dataset_sources": [], "competition_sources": [], "kernel_sources": []}}"#
        );
        std::fs::write(k.join("kernel-metadata.json"), meta).unwrap();
        std::fs::write(k.join("train.py"), "print('train')\n").unwrap();
        slug.to_string()
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        kgadvise()
            .current_dir(&self.dir)
            .env("FAKE_KAGGLE_DIR", self.dir.join("fake"))
            .env("KGADVISE_KAGGLE", fixture("loop/fake-kaggle.sh"))
            .env_remove("KGADVISE_STATE_DIR")
            .args(args)
            .output()
            .unwrap()
    }

    fn runs(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.dir.join(".kaggle-gm/gpu_runs.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(serde_json::Value::String(l.into())))
            .collect()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn quota_push_status_wait_collect_log() {
    let w = World::new("loop");
    let q = w.run(&["quota", "--now", "2026-12-08T10:00:00Z", "--json"]);
    let v = json_of(&q);
    assert_eq!(v["live"], true, "{v}");
    let cache = std::fs::read_to_string(w.dir.join(".kaggle-gm/gpu_quota.json")).unwrap();
    assert!(
        cache.contains("\"fetched_at\": \"2026-12-08T10:00:00Z\""),
        "{cache}"
    );

    let (a, b, c) = (
        w.kernel("train-a"),
        w.kernel("train-b"),
        w.kernel("train-c"),
    );
    // calls: the re-checks of the pushes of b and c, status, then the polls of wait
    w.fake(
        "status-train-a",
        "RUNNING\nRUNNING\nRUNNING\nRUNNING\nCOMPLETE\n",
    );
    w.fake("status-train-b", "RUNNING\n");
    w.fake("log-train-a", &session_log(5400.0));
    for (slug, t) in [(&a, "10:01"), (&b, "10:02")] {
        let out = w.run(&[
            "push",
            slug,
            "--hours",
            "2",
            "--now",
            &format!("2026-12-08T{t}:00Z"),
            "--json",
        ]);
        let v = json_of(&out);
        assert_eq!(out.status.code(), Some(0), "{v}");
        assert_eq!(v["logged"], "pushed");
        assert_eq!(v["timeout_seconds"], 7200);
        assert_eq!(v["answer"]["version"], 1);
    }
    // the third GPU push: both slots held by logged runs, refused before Kaggle, nothing logged
    let out = w.run(&[
        "push",
        &c,
        "--hours",
        "2",
        "--now",
        "2026-12-08T10:03:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert!(finding_rules(&v).contains(&"KM019".to_string()), "{v}");
    assert_eq!(w.runs().len(), 2);

    let out = w.run(&["status", "--now", "2026-12-08T10:30:00Z", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["rows"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["rows"][0]["status"], "running");
    assert!(v["held_gpu_hours"].as_f64().unwrap() > 3.0, "{v}");

    let out = w.run(&[
        "wait",
        "me/train-a",
        "--interval",
        "600",
        "--now",
        "2026-12-08T11:40:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["status"], "complete");
    assert_eq!(v["polls"].as_array().unwrap().len(), 2, "{v}");

    let out_dir = w.dir.join("out-a");
    let out = w.run(&[
        "collect",
        "me/train-a",
        "-p",
        path(&out_dir),
        "--now",
        "2026-12-08T12:00:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.collect/1", "{v}");
    let record = &w.runs()[0];
    assert_eq!(record["status"], "collected", "{record}");
    assert_eq!(record["gpu_hours"].as_f64(), Some(1.5));

    let out = w.run(&["log", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.log/1");
    assert_eq!(v["gpu_hours"].as_f64(), Some(1.5));
}

#[test]
fn a_re_push_ends_the_older_run_with_the_hours_it_ran() {
    let w = World::new("repush");
    let k = w.kernel("train-x");
    w.fake("status-train-x", "RUNNING\n");
    assert_eq!(
        w.run(&["push", &k, "--hours", "2", "--now", "2026-12-08T10:00:00Z"])
            .status
            .code(),
        Some(0)
    );
    let out = w.run(&[
        "push",
        &k,
        "--hours",
        "1",
        "--now",
        "2026-12-08T10:30:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert!(finding_rules(&v).contains(&"KL011".to_string()), "{v}");
    let runs = w.runs();
    assert_eq!(runs[0]["status"], "cancelled", "{runs:?}");
    assert_eq!(runs[0]["gpu_hours"].as_f64(), Some(0.5));
    assert_eq!(runs[1]["status"], "pushed");
    assert_eq!(runs[1]["version"], 2);
}

#[test]
fn a_run_cancelled_at_its_cap() {
    let w = World::new("cap");
    let k = w.kernel("train-cap");
    w.fake("status-train-cap", "RUNNING\nCANCEL_ACKNOWLEDGED\n");
    w.fake("log-train-cap", &session_log(3595.0));
    w.fake(
        "files-train-cap",
        include_str!("../fixtures/kaggle-client/files-paged.stdout.txt"),
    );
    let out = w.run(&["push", &k, "--hours", "1", "--now", "2026-12-08T10:00:00Z"]);
    assert_eq!(out.status.code(), Some(0));
    let out = w.run(&[
        "wait",
        "me/train-cap",
        "--interval",
        "1800",
        "--collect",
        "-p",
        path(&w.dir.join("w")),
        "--now",
        "2026-12-08T10:30:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert_eq!(v["status"], "cancelled");
    assert!(finding_rules(&v).contains(&"KR005".to_string()), "{v}");
    assert_eq!(v["files"]["files"][0]["name"], "model.pt", "{v}");
    assert_eq!(v["files"]["next_page_token"], "1", "{v}");
    assert_eq!(v["collected"]["schema"], "kgadvise.collect/1", "{v}");
    assert!(w.dir.join("w/scores.csv").is_file());
    assert_eq!(w.runs()[0]["status"], "partial");
    let out = w.run(&[
        "collect",
        "me/train-cap",
        "-p",
        path(&w.dir.join("o")),
        "--now",
        "2026-12-08T11:05:00Z",
    ]);
    assert!(out.status.code().is_some());
    let record = &w.runs()[0];
    assert_eq!(record["status"], "partial", "{record}");
    assert_eq!(record["gpu_hours"].as_f64(), Some(1.0));
    assert_eq!(record["gpu_hours_from"], "cap");
}

#[test]
fn a_run_that_ended_badly_lists_the_files_it_saved() {
    let w = World::new("files");
    let k = w.kernel("train-e");
    w.fake("status-train-e", "RUNNING\nERROR\n");
    w.fake("log-train-e", &session_log(600.0));
    let out = w.run(&["push", &k, "--hours", "1", "--now", "2026-12-08T10:00:00Z"]);
    assert_eq!(out.status.code(), Some(0));
    let wait = |files: Option<&str>| {
        std::fs::write(w.dir.join("fake/count-train-e"), "0").unwrap();
        match files {
            Some(text) => w.fake("files-train-e", text),
            None => {
                let _ = std::fs::remove_file(w.dir.join("fake/files-train-e"));
            }
        }
        let args = [
            "wait",
            "me/train-e",
            "--interval",
            "600",
            "--now",
            "2026-12-08T10:05:00Z",
        ];
        let out = w.run(&args);
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let listed = wait(Some(include_str!(
        "../fixtures/kaggle-client/files-paged.stdout.txt"
    )));
    assert!(
        listed.contains("Files the session saved:\nfile      size  saved (UTC)\n"),
        "{listed}"
    );
    assert!(
        listed.contains("model.pt  7 B   2026-12-07 08:30\n"),
        "{listed}"
    );
    assert!(
        listed.contains("and more: kaggle kernels files me/train-e --page-token 1\n"),
        "{listed}"
    );
    let none = wait(None);
    assert!(none.contains("Files the session saved: none\n"), "{none}");
    let unread = wait(Some("name  size\n"));
    assert!(
        unread
            .contains("Files the session saved: not listed (its output could not be read: line 1"),
        "{unread}"
    );
    let calls = std::fs::read_to_string(w.dir.join("fake/calls")).unwrap();
    assert!(
        calls.contains("kernels files me/train-e --format json"),
        "{calls}"
    );
}

#[test]
fn kaggles_refusals_are_not_logged() {
    let w = World::new("refused");
    let k = w.kernel("train-r");
    for (answer, rule) in [
        (
            "Kernel push error: Maximum batch GPU session count of 2 reached.\n",
            "KL001",
        ),
        (
            "Kernel push error: Maximum weekly GPU quota of 30.00 hours reached.\n",
            "KL003",
        ),
    ] {
        w.fake("push-answer", answer);
        let out = w.run(&[
            "push",
            &k,
            "--hours",
            "1",
            "--now",
            "2026-12-08T10:00:00Z",
            "--json",
        ]);
        let v = json_of(&out);
        assert_eq!(out.status.code(), Some(1), "{v}");
        assert!(finding_rules(&v).contains(&rule.to_string()), "{v}");
        assert!(v["logged"].is_null(), "{v}");
        assert!(w.runs().is_empty());
    }
}

#[test]
fn a_push_without_answer_stays_pending_until_released() {
    let w = World::new("pending");
    let k = w.kernel("train-p");
    w.fake("push-killed", "");
    let out = w.run(&[
        "push",
        &k,
        "--hours",
        "3",
        "--now",
        "2026-12-08T10:00:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert!(finding_rules(&v).contains(&"KL004".to_string()), "{v}");
    assert_eq!(w.runs()[0]["status"], "pending");
    // a pending push holds its whole cap while Kaggle lists no session of it (the status call fails)
    w.fake("status-train-p", "500\n");
    let out = w.run(&["status", "--now", "2026-12-08T20:00:00Z", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["held_gpu_hours"].as_f64(), Some(3.0), "{v}");
    assert_eq!(w.runs()[0]["status"], "pending");
    let out = w.run(&["release", "me/train-p", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["freed_hours"].as_f64(), Some(3.0), "{v}");
    assert_eq!(w.runs()[0]["status"], "released");
}

#[test]
fn a_client_that_never_answers_is_stopped_and_the_push_logged_pending() {
    let w = World::new("hung");
    let k = w.kernel("train-h");
    // The fake client sleeps far past the limit set here: kgadvise stops it (and its sleep) instead
    // of waiting, and the push that may have gone through keeps its cap.
    let out = kgadvise()
        .current_dir(&w.dir)
        .env("FAKE_KAGGLE_DIR", w.dir.join("fake"))
        .env("FAKE_PUSH_SLEEP", "600")
        .env("KGADVISE_KAGGLE", fixture("loop/fake-kaggle.sh"))
        .args([
            "push",
            &k,
            "--hours",
            "2",
            "--now",
            "2026-12-08T10:00:00Z",
            "--set",
            "loop.client-seconds=1",
            "--json",
        ])
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let v = json_of(&out);
    assert!(finding_rules(&v).contains(&"KL004".to_string()), "{v}");
    assert_eq!(w.runs()[0]["status"], "pending");
}

#[test]
fn a_pending_push_kaggle_ran_is_settled_by_status() {
    let w = World::new("settle");
    let k = w.kernel("train-s");
    w.fake("push-killed", "");
    w.run(&["push", &k, "--hours", "3", "--now", "2026-12-08T10:00:00Z"]);
    w.fake("status-train-s", "COMPLETE\n");
    let out = w.run(&["status", "--now", "2026-12-08T10:30:00Z", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["held_gpu_hours"].as_f64(), Some(0.0), "{v}");
    let record = &w.runs()[0];
    assert_eq!(record["status"], "complete", "{record}");
    assert_eq!(record["gpu_hours"].as_f64(), Some(0.5));
}

#[test]
fn a_failed_status_call_keeps_the_reservation_and_bad_lines_are_kept() {
    let w = World::new("keep");
    std::fs::create_dir_all(w.dir.join(".kaggle-gm")).unwrap();
    let log = "{\"kernel\": \"me/x\", \"accelerator\": \"NvidiaTeslaT4\", \"hours\": 2, \"pushed_at\": \"2026-12-08T09:00:00Z\", \"status\": \"running\", \"folds\": [0, 1]}\nnot a record\n";
    std::fs::write(w.dir.join(".kaggle-gm/gpu_runs.jsonl"), log).unwrap();
    w.fake("status-x", "500\n");
    let out = w.run(&["status", "--now", "2026-12-08T10:00:00Z", "--json"]);
    let v = json_of(&out);
    let rules = finding_rules(&v);
    assert!(
        rules.contains(&"KL007".to_string()) && rules.contains(&"KL010".to_string()),
        "{v}"
    );
    assert_eq!(v["rows"][0]["status"], "running");
    assert_eq!(
        std::fs::read_to_string(w.dir.join(".kaggle-gm/gpu_runs.jsonl")).unwrap(),
        log
    );
}

#[test]
fn the_quota_not_live_says_why() {
    let w = World::new("notlive");
    std::fs::create_dir_all(w.dir.join(".kaggle-gm")).unwrap();
    std::fs::write(
        w.dir.join(".kaggle-gm/gpu_quota.json"),
        r#"{"used_h": 19.55, "remaining_h": 10.45, "total_h": 30.0, "refresh_at": "2026-12-12T00:00:00Z", "fetched_at": "2026-12-08T06:00:00Z"}"#,
    )
    .unwrap();
    w.fake("quota-fails", "");
    let out = w.run(&["quota", "--now", "2026-12-08T10:00:00Z", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["live"], false);
    assert!(
        v["not_live_because"]
            .as_str()
            .unwrap()
            .starts_with("401 Client Error"),
        "{v}"
    );
    let calls = std::fs::read_to_string(w.dir.join("fake/calls")).unwrap();
    assert_eq!(calls.lines().count(), 2, "tried twice: {calls}");
}

#[test]
fn the_quota_says_once_how_it_was_taken() {
    let w = World::new("taken");
    let source_lines = |out: &std::process::Output| -> Vec<String> {
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines()
            .filter(|l| l.starts_with("Source: "))
            .map(str::to_string)
            .collect()
    };
    let live = w.run(&["quota", "--now", "2026-12-08T10:00:00Z"]);
    assert_eq!(
        source_lines(&live),
        ["Source: `kaggle quota --format json`; LIVE, read 0 min ago (the live call)"],
        "{}",
        String::from_utf8_lossy(&live.stdout)
    );
    let cached = w.run(&["quota", "--now", "2026-12-08T10:05:00Z"]);
    assert_eq!(
        source_lines(&cached),
        [
            "Source: kgkit .kaggle-gm/gpu_quota.json cache; LIVE, read 5 min ago (the cache, fresh: no call made)"
        ]
    );
    w.fake("quota-fails", "");
    let failed = w.run(&["quota", "--now", "2026-12-08T12:00:00Z"]);
    let text = String::from_utf8_lossy(&failed.stdout).to_string();
    assert_eq!(
        source_lines(&failed),
        [
            "Source: kgkit .kaggle-gm/gpu_quota.json cache; NOT LIVE, read 2.0 h ago (the cache: the live call failed)"
        ],
        "{text}"
    );
    assert!(
        text.contains("\nNOT LIVE because: 401 Client Error"),
        "{text}"
    );
}

#[test]
fn without_the_kaggle_cli_every_loop_command_exits_2() {
    let w = World::new("nocli");
    let k = w.kernel("train-n");
    for args in [
        vec!["push", k.as_str(), "--hours", "1"],
        vec!["status"],
        vec!["wait", "me/train-n"],
        vec!["collect", "me/train-n"],
        vec!["release", "me/train-n"],
        vec!["log"],
        vec!["quota"],
    ] {
        let out = kgadvise()
            .current_dir(&w.dir)
            .env("KGADVISE_KAGGLE", w.dir.join("no-such-kaggle"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the Kaggle CLI is not installed: pip install kaggle"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn two_pushes_at_once_lose_no_record() {
    let w = World::new("twice");
    let (a, b) = (w.kernel("train-1"), w.kernel("train-2"));
    let spawn = |slug: &str| {
        std::process::Command::new(kgadvise_tests::kgadvise_path())
            .current_dir(&w.dir)
            .env("FAKE_KAGGLE_DIR", w.dir.join("fake"))
            .env("FAKE_PUSH_SLEEP", "1")
            .env("KGADVISE_KAGGLE", fixture("loop/fake-kaggle.sh"))
            .args([
                "push",
                slug,
                "--hours",
                "1",
                "--now",
                "2026-12-08T10:00:00Z",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut p1, mut p2) = (spawn(&a), spawn(&b));
    assert!(p1.wait().unwrap().success());
    assert!(p2.wait().unwrap().success());
    let runs = w.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|r| r["status"] == "pushed"), "{runs:?}");
}

#[test]
fn plan_check_and_tpu_read_the_quota_live_when_given_none() {
    let w = World::new("implicit");
    let k = w.kernel("train-q");
    w.fake(
        "quota.json",
        &QUOTA.replace("2.42h", "25.00h").replace("27.58h", "5.00h"),
    );
    let out = w.run(&[
        "plan",
        "--deadline",
        "2026-12-20",
        "--now",
        "2026-12-08T10:00:00Z",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = w.run(&[
        "tpu",
        "--t4-hours",
        "30",
        "--now",
        "2026-12-08T10:00:00Z",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 5 h plannable: a 12 h cap is more than the quota holds (KM020)
    let out = w.run(&[
        "check",
        &k,
        "--timeout-seconds",
        "43200",
        "--now",
        "2026-12-08T10:00:00Z",
        "--json",
    ]);
    let v = json_of(&out);
    assert!(finding_rules(&v).contains(&"KM020".to_string()), "{v}");
    let calls = std::fs::read_to_string(w.dir.join("fake/calls")).unwrap();
    // the first call cached the figure: the next two read the fresh cache
    assert_eq!(calls.matches("quota --format json").count(), 1, "{calls}");
}

//! End-to-end: `kgadvise quota`, `plan`, `cap`, `tpu` through the real binary with a fixed `--now`, against
//! cli.md's contract; every file of realdata/kaggle-quota read or rejected with a clear message.

use kgadvise_tests::{
    finding_rules as rules, fixture, has_key_anywhere, json_of, kgadvise, realdata,
};

const NOW: &str = "2026-09-15T10:00:00Z";

fn q(rel: &str) -> String {
    fixture(&format!("quota/{rel}")).display().to_string()
}

#[test]
fn quota_json_contract_for_every_fixture_form() {
    // (fixture, gpu remaining, gpu reserved, tpu total)
    let cases = [
        ("table.txt", 27.58, 0.0, Some(20.0)),
        ("csv-warning-crlf.csv", 10.45, 0.0, Some(20.0)),
        ("cli.json", 10.45, 0.0, Some(20.0)),
        ("api.json", 10.25, 2.0, Some(20.0)),
        ("gpu_quota.json", 10.45, 0.0, None),
    ];
    for (file, remaining, reserved, tpu_total) in cases {
        let out = kgadvise()
            .args(["quota", &q(file), "--now", NOW, "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{file}");
        let v = json_of(&out);
        assert_eq!(v["schema"], "kgadvise.quota/1");
        for key in ["gpu", "tpu", "live", "use_it_or_lose_it", "findings"] {
            assert!(v.get(key).is_some(), "{file}: missing {key}");
        }
        for key in [
            "used",
            "remaining",
            "total",
            "reserved",
            "plannable",
            "refresh_at",
        ] {
            assert!(v["gpu"].get(key).is_some(), "{file}: gpu.{key}");
        }
        assert_eq!(v["gpu"]["remaining"].as_f64(), Some(remaining), "{file}");
        assert_eq!(v["gpu"]["reserved"].as_f64(), Some(reserved), "{file}");
        assert_eq!(v["gpu"]["refresh_at"], "2026-09-19T00:00:00Z", "{file}");
        assert_eq!(v["tpu"]["total"].as_f64(), tpu_total, "{file}");
        assert!(v["live"].is_boolean() && v["use_it_or_lose_it"].is_boolean());
    }
}

#[test]
fn stdin_is_live_and_a_cache_is_not() {
    let text = std::fs::read_to_string(fixture("quota/csv-warning-crlf.csv")).unwrap();
    let out = kgadvise()
        .args(["quota", "-", "--now", NOW, "--json"])
        .write_stdin(text)
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["live"], true);
    assert!(!rules(&v).contains(&"KQ001".to_string()));

    let out = kgadvise()
        .args(["quota", &q("gpu_quota.json"), "--now", NOW])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("NOT LIVE") && text.contains("2.0 days"),
        "{text}"
    );
    let out = kgadvise()
        .args([
            "quota",
            &q("table.txt"),
            "--now",
            NOW,
            "--read-at",
            "2026-09-15T09:55:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["live"], true);
}

#[test]
fn runs_log_reserves_hours() {
    let out = kgadvise()
        .args([
            "quota",
            &q("table.txt"),
            "--runs",
            &q("gpu_runs.jsonl"),
            "--now",
            NOW,
            "--live",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    // read just now: a-train 5 - 3 = 2 h; b-train is queued, its whole default 12 h; me/old is stale
    assert_eq!(v["gpu"]["reserved"].as_f64(), Some(14.0));
    assert_eq!(v["gpu"]["plannable"].as_f64(), Some(13.58));
    assert_eq!(v["stale_runs"].as_array().unwrap().len(), 1);
    assert!(rules(&v).contains(&"KQ004".to_string()));
}

/// The reservation ledger end to end, on a log with running, queued, pending, re-pushed, CPU and TPU
/// entries; the figure was read at 09:00, an hour before now.
#[test]
fn the_ledger_counts_from_the_reading() {
    let args = |json: bool| {
        let mut a = vec![
            "quota".to_string(),
            q("table.txt"),
            "--runs".into(),
            q("gpu_runs_ledger.jsonl"),
            "--now".into(),
            NOW.into(),
            "--read-at".into(),
            "2026-09-15T09:00:00Z".into(),
        ];
        if json {
            a.push("--json".into());
        }
        a
    };
    let v = json_of(&kgadvise().args(args(true)).output().unwrap());
    let held = |accelerator: &str| -> Vec<(String, String, f64)> {
        v[accelerator]["reservations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["kernel"].as_str().unwrap().to_string(),
                    r["holding"].as_str().unwrap().to_string(),
                    r["reserved_hours"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let row = |k: &str, how: &str, h: f64| (k.to_string(), how.to_string(), h);
    // me/run: 5 h cap, 2 h of it before the reading; me/pending: its whole cap; me/repush: the newer push
    // only (2 h cap, 0.5 h before the reading); me/cpu-stack: nothing; me/stale: stale
    assert_eq!(
        held("gpu"),
        [
            row("me/run", "running", 3.0),
            row("me/pending", "pending", 3.0),
            row("me/repush", "running", 1.5),
        ]
    );
    // me/tpu-queued: no cap logged, the TPU session limit, whole; me/tpu-run: started no earlier than
    // the shortest queue wait (10 h) after its push, so 5 h of its 8 h cap were in the figure
    assert_eq!(
        held("tpu"),
        [
            row("me/tpu-queued", "queued", 9.0),
            row("me/tpu-run", "running", 3.0)
        ]
    );
    // me/done ran 08:00-09:30: only the 0.5 h after the reading counts; me/cpu-done counts nowhere
    assert_eq!(v["gpu"]["spent_since_hours"].as_f64(), Some(0.5));
    assert_eq!(v["gpu"]["plannable"].as_f64(), Some(19.58));
    assert_eq!(v["tpu"]["plannable"].as_f64(), Some(8.0));
    assert_eq!(v["reservations_counted_from"], "2026-09-15T09:00:00Z");
    assert_eq!(v["stale_runs"].as_array().unwrap().len(), 1);
    assert_eq!(v["replaced_runs"].as_array().unwrap().len(), 1);
    let text = kgadvise().args(args(false)).output().unwrap();
    insta::assert_snapshot!(
        "quota_runs_ledger",
        String::from_utf8_lossy(&text.stdout).to_string()
    );
}

#[test]
fn every_realdata_quota_file_is_read_or_rejected_clearly() {
    for path in realdata("kaggle-quota") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        // through the core
        let core = kgadvise_core::quota::read_quota(&text);
        // through the CLI
        let out = kgadvise()
            .args(["quota", &path.display().to_string(), "--now", NOW, "--json"])
            .output()
            .unwrap();
        let v = json_of(&out);
        match core {
            Ok(reading) => {
                assert_eq!(out.status.code(), Some(0), "{name}");
                assert_eq!(v["schema"], "kgadvise.quota/1", "{name}");
                if reading.gpu.is_none() && reading.tpu.is_none() {
                    assert!(rules(&v).contains(&"KQ005".to_string()), "{name}: {v}");
                    assert!(v["gpu"].is_null());
                } else {
                    assert!(v["gpu"].is_object() || v["tpu"].is_object(), "{name}");
                }
            }
            Err(e) => {
                assert_eq!(out.status.code(), Some(2), "{name}");
                let msg = v["error"].as_str().unwrap();
                assert!(
                    msg.contains("expected") && msg.contains(&e.message),
                    "{name}: {msg}"
                );
            }
        }
    }
    // the known files, explicitly
    let read = |f: &str| {
        let p = realdata("kaggle-quota")
            .into_iter()
            .find(|p| p.to_string_lossy().contains(f))
            .unwrap();
        kgadvise_core::quota::read_quota(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let crlf = read("CRLF");
    assert_eq!(crlf.gpu.unwrap().used, 0.22);
    let naive = read("naive-refreshAt");
    assert_eq!(
        naive
            .gpu
            .unwrap()
            .refresh_at
            .map(kgadvise_core::text::when::rfc3339)
            .as_deref(),
        Some("2026-09-19T00:00:00Z")
    );
    assert!(read("no-info").gpu.is_none());
    assert_eq!(read("api-").gpu.unwrap().total, 151.0 / 3600.0);
    assert_eq!(read("ui-accelerator").gpu.unwrap().remaining, 0.0);
}

#[test]
fn malformed_quota_exits_2_naming_what_was_expected() {
    let cases = [
        (
            "bad-date.csv",
            &["bad-date.csv", "line 2", "refreshAt", "expected ISO 8601"][..],
        ),
        ("bad-hours.csv", &["line 2", "`remaining`", "expected"][..]),
        (
            "missing-rows.csv",
            &["line 1", "no GPU or TPU row", "expected rows like"][..],
        ),
        (
            "bad-duration.json",
            &["timeUsed", "1.5 hours", "expected a protobuf duration"][..],
        ),
    ];
    for (file, words) in cases {
        for json in [false, true] {
            let mut cmd = kgadvise();
            cmd.args(["quota", &q(file), "--now", NOW]);
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{file}");
            let err = String::from_utf8_lossy(&out.stderr);
            for w in words {
                assert!(err.contains(w), "{file}: `{err}` lacks `{w}`");
            }
            if json {
                assert_eq!(json_of(&out)["schema"], "kgadvise.error/1");
            }
        }
        // the same through plan
        let out = kgadvise()
            .args([
                "plan",
                "--deadline",
                "2026-12-17",
                "--quota",
                &q(file),
                "--now",
                NOW,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "plan {file}");
    }
    let out = kgadvise()
        .args(["quota", "/nonexistent/quota.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/quota.csv"));
}

#[test]
fn plan_json_contract_and_numbers() {
    let out = kgadvise()
        .args([
            "plan",
            "--deadline",
            "2026-12-17",
            "--gpu-remaining",
            "11",
            "--refresh-at",
            "2026-12-05T00:00:00",
            "--fold-hours",
            "1.5",
            "--folds",
            "5",
            "--now",
            "2026-12-01T08:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.plan/1");
    for key in [
        "plannable_now",
        "resets_before_deadline",
        "weekly_hours",
        "total_hours",
        "phase",
        "final_reserve_hours",
        "exploration_hours",
        "use_it_or_lose_it",
        "screen_hours",
        "promotion_hours",
        "cycles",
        "screens",
        "promotions",
        "last_safe_start",
        "weeks",
        "findings",
    ] {
        assert!(has_key_anywhere(&v, key), "missing {key}");
    }
    assert_eq!(v["resets_before_deadline"], 2);
    assert_eq!(v["total_hours"].as_f64(), Some(71.0));
    assert_eq!(v["phase"], "exploration");
    assert_eq!(v["final_reserve_hours"].as_f64(), Some(30.0));
    assert_eq!(v["exploration_hours"].as_f64(), Some(41.0));
    assert_eq!(v["promotion_hours"].as_f64(), Some(4.75));
    assert_eq!(v["cycles"], 4);
    assert_eq!(v["last_safe_start"], "2026-12-17T17:48:30Z");
    assert_eq!(v["weeks"].as_array().unwrap().len(), 3);
}

#[test]
fn plan_human_reads_like_advice() {
    let out = kgadvise()
        .args([
            "plan",
            "--deadline",
            "2026-12-17",
            "--gpu-remaining",
            "11",
            "--refresh-at",
            "2026-12-05T00:00:00",
        ])
        .args(["--now", "2026-12-01T08:00:00Z"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("11 h now + 2 weekly resets x 30 h = 71 GPU-hours until 2026-12-17 23:59 UTC; keep 30 h for the final week"),
        "{text}"
    );
}

#[test]
fn plan_from_a_stale_stored_refresh_does_not_double_count() {
    // The CSV's refreshAt 2026-09-19 has passed on 2026-09-22: full 30 h now, then 09-26 and 10-03.
    let out = kgadvise()
        .args([
            "plan",
            "--deadline",
            "2026-10-05",
            "--quota",
            &q("csv-warning-crlf.csv"),
            "--live",
        ])
        .args(["--now", "2026-09-22T10:00:00Z", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["plannable_now"].as_f64(), Some(30.0));
    assert_eq!(v["resets_before_deadline"], 2);
    assert_eq!(v["total_hours"].as_f64(), Some(90.0));
    assert!(rules(&v).contains(&"KQ002".to_string()));
    // the TPU budget comes along
    assert_eq!(v["tpu_budget"]["total_hours"].as_f64(), Some(60.0));
}

#[test]
fn plan_needs_a_quota_and_a_valid_deadline() {
    let out = kgadvise()
        .args(["plan", "--deadline", "2026-12-17"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--gpu-remaining"));
    let out = kgadvise()
        .args(["plan", "--deadline", "17/12/2026", "--gpu-remaining", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected RFC 3339"));
    let out = kgadvise()
        .args(["plan", "--deadline", "2026-12-17", "--gpu-remaining", "-3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kgadvise()
        .args([
            "plan",
            "--deadline",
            "2026-12-17",
            "--gpu-remaining",
            "3",
            "--folds",
            "5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kgadvise()
        .args([
            "plan",
            "--deadline",
            "2026-12-17",
            "--quota",
            &realdata_file("no-info"),
            "--now",
            NOW,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no GPU figure"));
}

fn realdata_file(part: &str) -> String {
    realdata("kaggle-quota")
        .into_iter()
        .find(|p| p.to_string_lossy().contains(part))
        .unwrap()
        .display()
        .to_string()
}

#[test]
fn cap_json_contract() {
    let out = kgadvise()
        .args(["cap", "--measured", "3.5", "--json", "--now", NOW])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.cap/1");
    assert_eq!(v["cap_hours"].as_f64(), Some(4.9));
    assert_eq!(v["timeout_seconds"], 17640);
    assert_eq!(v["sessions"], 1);
    let out = kgadvise()
        .args([
            "cap",
            "--fold-hours",
            "4",
            "--folds",
            "7",
            "--json",
            "--now",
            NOW,
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["sessions"], 2);
    assert_eq!(v["timeout_seconds"], 43200);
    assert!(rules(&v).contains(&"KQ021".to_string()));
    let out = kgadvise()
        .args(["cap", "--measured", "7", "--tpu", "--json", "--now", NOW])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["sessions"], 2);
    let out = kgadvise()
        .args(["cap", "--measured", "2", "--factor", "1.1", "--now", NOW])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("KQ022"));
    // usage errors
    for args in [
        &["cap"][..],
        &["cap", "--measured", "0"],
        &["cap", "--fold-hours", "1"],
        &["cap", "--measured", "x"],
    ] {
        let out = kgadvise().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn tpu_json_contract() {
    let out = kgadvise()
        .args([
            "tpu",
            "--t4-hours",
            "30",
            "--gpu-plannable",
            "30",
            "--now",
            "2026-12-01T08:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.tpu/1");
    assert_eq!(v["gpu_finish"], "2026-12-02T14:00:00Z");
    assert_eq!(v["tpu_finish"], "2026-12-02T03:20:00Z");
    assert_eq!(v["choice"], "tpu");
    let out = kgadvise()
        .args([
            "tpu",
            "--t4-hours",
            "4",
            "--gpu-plannable",
            "20",
            "--queue-hours",
            "24",
            "--now",
            "2026-12-01T08:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["choice"], "gpu");
    // from a quota file: GPU 10.45 plannable, reset 09-19
    let out = kgadvise()
        .args([
            "tpu",
            "--t4-hours",
            "20",
            "--quota",
            &q("cli.json"),
            "--now",
            NOW,
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["gpu_plannable"].as_f64(), Some(10.45));
    assert_eq!(v["gpu_waits_for_reset"], true);
    let out = kgadvise()
        .args(["tpu", "--t4-hours", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_malformed_quota_corpus_exits_2_naming_what_was_expected() {
    let dir = kgadvise_tests::workspace_root()
        .join("tests")
        .join("malformed")
        .join("quota");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{}", dir.display());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let p = path.display().to_string();
        if name.starts_with("runs-") {
            // a runs log: unreadable lines are reported, the quota is still answered
            let out = kgadvise()
                .args([
                    "quota",
                    &q("table.txt"),
                    "--runs",
                    &p,
                    "--now",
                    NOW,
                    "--json",
                ])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{name}");
            let v = json_of(&out);
            assert_eq!(v["gpu"]["reserved"].as_f64(), Some(0.0), "{name}");
            assert!(!v["notes"].as_array().unwrap().is_empty(), "{name}");
            continue;
        }
        let out = kgadvise()
            .args(["quota", &p, "--now", NOW, "--json"])
            .output()
            .unwrap();
        if name.starts_with("csv-utf16") || name == "csv-repeated-gpu-rows.csv" {
            // PowerShell's `>` writes UTF-16LE with a BOM (also BE, or no BOM): valid data, read as such;
            // a repeated row keeps the first (tests/malformed/expected.toml holds every file's outcome)
            assert_eq!(out.status.code(), Some(0), "{name}");
            let remaining = if name.starts_with("csv-utf16") {
                27.58
            } else {
                28.0
            };
            assert_eq!(json_of(&out)["gpu"]["remaining"].as_f64(), Some(remaining));
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(2),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let v = json_of(&out);
        let msg = v["error"].as_str().unwrap();
        assert!(
            msg.contains(&name) && msg.contains("expected"),
            "{name}: {msg}"
        );
    }
}

#[test]
fn quota_defaults_to_the_kgkit_cache_in_the_current_folder() {
    let dir = std::env::temp_dir().join(format!("kgadvise-quota-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".kaggle-gm")).unwrap();
    std::fs::copy(
        fixture("quota/gpu_quota.json"),
        dir.join(".kaggle-gm/gpu_quota.json"),
    )
    .unwrap();
    std::fs::copy(
        fixture("quota/gpu_runs.jsonl"),
        dir.join(".kaggle-gm/gpu_runs.jsonl"),
    )
    .unwrap();
    // No Kaggle CLI (hermetic): the live call fails and the cache answers, NOT LIVE.
    let out = kgadvise()
        .current_dir(&dir)
        .env("KGADVISE_KAGGLE", dir.join("no-kaggle"))
        .args(["quota", "--now", NOW, "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["form"], "kgkit-cache");
    // the runs log came along: a-train (pushed after the cache was fetched) and b-train (queued) hold
    // their whole caps, 5 + 12 h; me/done (1.5 h, run after the cache was fetched) is taken off the
    // remaining hours
    assert_eq!(v["gpu"]["reserved"].as_f64(), Some(17.0));
    assert_eq!(v["gpu"]["remaining"].as_f64(), Some(8.95));
    assert_eq!(v["gpu"]["plannable"].as_f64(), Some(0.0));
    assert_eq!(v["live"], false);
    assert!(
        v["not_live_because"]
            .as_str()
            .unwrap()
            .contains("pip install kaggle")
    );
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = kgadvise()
        .current_dir(&empty)
        .env("KGADVISE_KAGGLE", dir.join("no-kaggle"))
        .args(["quota"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("there is no cache"), "{stderr}");
    assert!(stderr.contains("the quota as a FILE or -"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_reserved_and_weekly_hours_flags() {
    let base = [
        "plan",
        "--deadline",
        "2026-12-17",
        "--gpu-remaining",
        "11",
        "--refresh-at",
        "2026-12-05T00:00:00",
    ];
    let out = kgadvise()
        .args(base)
        .args([
            "--reserved",
            "4",
            "--weekly-hours",
            "45",
            "--now",
            "2026-12-01T08:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["plannable_now"].as_f64(), Some(7.0));
    assert_eq!(v["weekly_hours"].as_f64(), Some(45.0));
    assert_eq!(v["total_hours"].as_f64(), Some(97.0));
    let out = kgadvise()
        .args(base)
        .args(["--weekly-hours", "500"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

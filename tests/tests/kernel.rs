//! End-to-end: `kgadvise check` (kernel push pre-flight, KM rules) and `kgadvise collect` (kg_run.json, or a
//! kernel's status and log; KR rules) through the real binary. One fixture folder per rule:
//! tests/fixtures/kernel/<RULE>/{trigger,clean} with an `args` file (one argument per line) for `check`,
//! and for `collect` the folder's kg_run.json and/or its `args` (files named relative to the folder:
//! `--status status.txt --log <slug>.log`).

use std::path::{Path, PathBuf};

use kgadvise_core::kernel::{self, CheckRequest, run_report};
use kgadvise_tests::{finding_rules, fixture, has_key_anywhere, json_of, kgadvise, realdata};

const NOW: &str = "2026-11-30";

fn has_error(v: &serde_json::Value) -> bool {
    v["findings"]
        .as_array()
        .is_some_and(|a| a.iter().any(|f| f["severity"] == "error"))
}

fn args_of(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("args"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Runs the command a rule fixture folder is for; returns (exit code, stdout JSON or null, stderr).
fn run_fixture(rule: &str, dir: &Path) -> (i32, serde_json::Value, String) {
    let mut cmd = kgadvise();
    if rule.starts_with("KR") {
        cmd.arg("collect").current_dir(dir).args(args_of(dir));
        if dir.join("kg_run.json").is_file() {
            cmd.arg(dir.join("kg_run.json"));
        }
    } else {
        cmd.arg("check").arg(dir).args(args_of(dir));
    }
    let out = cmd.args(["--json", "--now", NOW]).output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (code, json_of(&out), stderr)
}

fn rule_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixture("kernel"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_rule_has_a_fixture_that_triggers_it_and_one_that_does_not() {
    let book = kgadvise_core::rulebook();
    let ours: Vec<&str> = book
        .rules
        .iter()
        .map(|r| r.id.as_ref())
        .filter(|id| id.starts_with("KM") || id.starts_with("KR"))
        .collect();
    assert!(ours.len() >= 35, "{ours:?}");
    let dirs: Vec<String> = rule_dirs()
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for id in &ours {
        assert!(
            dirs.contains(&id.to_string()),
            "no fixture folder tests/fixtures/kernel/{id}"
        );
    }
    for dir in rule_dirs() {
        let rule = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            ours.contains(&rule.as_str()),
            "fixture folder {rule} is not a KM/KR rule"
        );
        let (code, v, stderr) = run_fixture(&rule, &dir.join("trigger"));
        if rule == "KM001" {
            // Unusable input: exit 2, the error names the file, line, column and the rule.
            assert_eq!(code, 2, "{rule} trigger: {stderr}");
            assert_eq!(v["schema"], "kgadvise.error/1");
            assert!(
                stderr.contains("kernel-metadata.json line 4: not valid JSON at column 1")
                    && stderr.contains("KM001"),
                "{stderr}"
            );
        } else {
            assert!(
                finding_rules(&v).contains(&rule),
                "{rule} trigger did not fire: {:?}",
                finding_rules(&v)
            );
            assert_eq!(
                code,
                if has_error(&v) { 1 } else { 0 },
                "{rule} trigger exit code; {v}"
            );
        }
        let (code, v, stderr) = run_fixture(&rule, &dir.join("clean"));
        assert!(
            !finding_rules(&v).contains(&rule),
            "{rule} clean fired: {v}"
        );
        assert_eq!(
            code,
            if has_error(&v) { 1 } else { 0 },
            "{rule} clean exit code; {stderr}"
        );
    }
}

#[test]
fn check_json_contract() {
    let (code, v, _) = run_fixture("KM013", &fixture("kernel/KM013/trigger"));
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "kgadvise.check/1");
    for key in [
        "ok",
        "machine_shape",
        "code_file_bytes",
        "findings",
        "rules",
    ] {
        assert!(has_key_anywhere(&v, key), "missing {key}: {v}");
    }
    assert_eq!(v["ok"], true);
    // enable_gpu without machine_shape: requested P100 by default, the server substitutes T4.
    assert_eq!(v["machine_shape"], "NvidiaTeslaT4");
    assert_eq!(v["code_file_bytes"], 46);
    for f in v["findings"].as_array().unwrap() {
        for key in ["rule", "severity", "title", "evidence", "fix"] {
            assert!(f[key].is_string(), "{f}");
        }
    }
    let (code, v, _) = run_fixture("KM019", &fixture("kernel/KM019/trigger"));
    assert_eq!(code, 1);
    assert_eq!(v["ok"], false);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "KM019")
        .unwrap();
    assert!(
        f["evidence"]
            .as_str()
            .unwrap()
            .contains("Maximum batch GPU session count of 2 reached"),
        "{f}"
    );
}

#[test]
fn stored_machine_shape_of_aliases_retired_and_api_none() {
    let (_, v, _) = run_fixture("KM009", &fixture("kernel/KM009/trigger"));
    assert_eq!(v["machine_shape"], "TpuV5E8");
    assert_eq!(v["requested_machine_shape"], "TpuV38");
    let (_, v, _) = run_fixture("KM008", &fixture("kernel/KM008/trigger"));
    assert_eq!(v["machine_shape"], "NvidiaTeslaT4");
    let (_, v, _) = run_fixture("KM025", &fixture("kernel/KM025/trigger"));
    assert!(v["machine_shape"].is_null(), "{v}");
    let (_, v, _) = run_fixture("KM007", &fixture("kernel/KM007/trigger"));
    assert!(v["machine_shape"].is_null(), "{v}");
}

#[test]
fn big_notebook_names_its_parts() {
    let (code, v, _) = run_fixture("KM017", &fixture("kernel/KM017/trigger"));
    assert_eq!(code, 1);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "KM017")
        .unwrap();
    let ev = f["evidence"].as_str().unwrap();
    assert!(
        ev.contains("3 outputs")
            && ev.contains("4 embedded images")
            && ev.contains("cell 5 (markdown)")
            && ev.contains("cell 2 (code)"),
        "{ev}"
    );
    assert_eq!(v["code"]["outputs"], 3);
}

/// The expected findings of every real metadata file (no flags: the code files are not in realdata, so
/// every one that names a code file gets KM016). (file prefix, exit code, machine_shape, rules).
const REALDATA: &[(&str, i32, Option<&str>, &[&str])] = &[
    (
        "aimo3_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021"],
    ),
    ("aquire-preprocessing_", 1, None, &["KM016"]),
    (
        "arc2-trm-smoke_",
        1,
        Some("NvidiaL4"),
        &["KM011", "KM016", "KM021"],
    ),
    (
        "arc2-upstream_",
        1,
        Some("NvidiaL4"),
        &["KM011", "KM016", "KM021", "KM022"],
    ),
    ("birdclef_", 1, None, &["KM002", "KM022", "KM025"]),
    (
        "cube555-2xT4_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM016", "KM021"],
    ),
    (
        "cube555-tpu_",
        1,
        Some("TpuV5E8"),
        &["KM014", "KM016", "KM021"],
    ),
    (
        "erdos_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM015", "KM016", "KM021", "KM022"],
    ),
    (
        "fastkaggle_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021", "KM022"],
    ),
    ("indic_", 1, None, &["KM002", "KM016", "KM024"]),
    ("joel-new-test_", 1, None, &["KM016"]),
    (
        "ltx-video-render_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021"],
    ),
    (
        "megaminx-m38_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021"],
    ),
    (
        "monet-maker_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021"],
    ),
    (
        "nemotron-oracle-sft_",
        1,
        Some("NvidiaRtxPro6000"),
        &["KM011", "KM016", "KM021"],
    ),
    (
        "nemotron-unsloth_",
        1,
        Some("NvidiaRtxPro6000"),
        &["KM011", "KM016", "KM021"],
    ),
    (
        "parameter-golf_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021", "KM022"],
    ),
    (
        "run-workflow_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM003", "KM013", "KM016", "KM021"],
    ),
    (
        "thesis-trainer_",
        1,
        Some("NvidiaTeslaT4"),
        &["KM013", "KM016", "KM021"],
    ),
    ("watson_", 1, None, &["KM016", "KM022"]),
];

#[test]
fn every_real_metadata_file_is_checked_with_the_expected_findings() {
    let files = realdata("kernel-metadata");
    assert_eq!(
        files.len(),
        REALDATA.len(),
        "a realdata file without an expected row (or a stale row)"
    );
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let row = REALDATA
            .iter()
            .find(|(p, ..)| name.starts_with(p))
            .unwrap_or_else(|| panic!("no row for {name}"));
        // Through the core, with no code file: must not panic.
        let bytes = std::fs::read(&file).unwrap();
        let request = CheckRequest {
            metadata: kernel::metadata_text(
                &bytes,
                &kgadvise_core::rulebook::Thresholds::defaults(),
            )
            .unwrap(),
            ..CheckRequest::default()
        };
        let core = kernel::check(&request, clock()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(core.machine_shape.as_deref(), row.2, "{name} (core)");
        // Through the CLI.
        let out = kgadvise()
            .args(["check"])
            .arg(&file)
            .args(["--json", "--now", NOW])
            .output()
            .unwrap();
        let v = json_of(&out);
        let mut got = finding_rules(&v);
        got.sort();
        got.dedup();
        // KM033 (the smoke reminder) is on every GPU or TPU push and on no CPU one; the rows list the rest.
        let smoke = got.iter().any(|r| r == "KM033");
        assert_eq!(smoke, v["accelerator"] != "cpu", "{name}: KM033");
        got.retain(|r| r != "KM033");
        assert_eq!(
            got,
            row.3.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(out.status.code(), Some(row.1), "{name}");
        assert_eq!(v["machine_shape"].as_str(), row.2, "{name}");
        // And as text: an answer, not a panic.
        let out = kgadvise()
            .args(["check"])
            .arg(&file)
            .args(["--now", NOW])
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("machine_shape stored"),
            "{name}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("panicked"),
            "{name}"
        );
    }
}

fn clock() -> chrono::DateTime<chrono::Utc> {
    "2026-11-30T00:00:00Z".parse().unwrap()
}

/// A scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kgadvise-kernel-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bad_inputs_exit_2_with_clear_messages() {
    let dir = scratch("bad");
    let huge = vec![b' '; 3 * 1024 * 1024];
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "not-json.json",
            b"id: alice/x\ntitle: hello\n".to_vec(),
            "line 1: not valid JSON at column 1",
        ),
        (
            "array.json",
            b"[{\"id\": \"a/b\"}]".to_vec(),
            "a list, not an object",
        ),
        (
            "string.json",
            b"\"kernel\"".to_vec(),
            "a string, not an object",
        ),
        (
            "binary.json",
            vec![0x89, b'P', b'N', b'G', 0, 0, 1, 2],
            "binary data",
        ),
        (
            "latin1.json",
            b"{\"title\": \"caf\xe9\"}".to_vec(),
            "not UTF-8",
        ),
        ("empty.json", Vec::new(), "empty"),
        (
            "notebook.ipynb",
            br#"{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#.to_vec(),
            "Jupyter notebook",
        ),
        ("huge.json", huge, "too big for kernel metadata"),
    ];
    for (file, bytes, want) in cases {
        let path = dir.join(file);
        std::fs::write(&path, bytes).unwrap();
        let out = kgadvise().args(["check"]).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(file) && err.contains(want), "{file}: {err}");
        let out = kgadvise()
            .args(["check"])
            .arg(&path)
            .arg("--json")
            .output()
            .unwrap();
        assert_eq!(json_of(&out)["schema"], "kgadvise.error/1", "{file}");
    }
    // A folder without kernel-metadata.json names the suffixed candidates.
    std::fs::write(dir.join("kernel-metadata-train.json"), "{}").unwrap();
    let out = kgadvise().args(["check"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no kernel-metadata.json") && err.contains("kernel-metadata-train.json"),
        "{err}"
    );
    let out = kgadvise()
        .args(["check", "/nonexistent/kernel"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Wrong field types are findings naming the field (exit 1), not crashes.
    let path = dir.join("types.json");
    std::fs::write(
        &path,
        r#"{"id": ["a/b"], "title": 12345, "enable_gpu": 1, "dataset_sources": {"a": 1}}"#,
    )
    .unwrap();
    let out = kgadvise()
        .args(["check"])
        .arg(&path)
        .args(["--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    let text = v["findings"].to_string();
    for field in ["`id`", "`title`", "`enable_gpu`", "`dataset_sources`"] {
        assert!(text.contains(field), "{field}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn metadata_from_stdin_and_lenient_forms() {
    let text = "\u{feff}\n{\"id\": \"alice/abc-def\", \"title\": \"Hello there\", \"language\": \"python\", \
                \"kernel_type\": \"script\", \"enable_gpu\": \"False\", \"is_private\": \"TRUE\"}";
    let out = kgadvise()
        .args(["check", "-", "--json", "--now", NOW])
        .write_stdin(text)
        .output()
        .unwrap();
    let v = json_of(&out);
    // No code_file: KM002 only.
    assert_eq!(finding_rules(&v), vec!["KM002".to_string()], "{v}");
    assert_eq!(v["metadata"]["is_private"], true);
    assert_eq!(v["accelerator"], "cpu");
}

#[test]
fn collect_json_contract_and_costs() {
    let (code, v, _) = run_fixture("KR001", &fixture("kernel/KR001/clean"));
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "kgadvise.collect/1");
    for key in [
        "findings",
        "cost_per_fold_hours",
        "quota_hours_per_fold",
        "rules",
    ] {
        assert!(has_key_anywhere(&v, key), "missing {key}");
    }
    // Four folds of 7340.5, 7512.0, 7298.2, 7455.9 s on two busy T4s.
    let cost = v["cost_per_fold_hours"].as_f64().unwrap();
    assert!((cost - 29606.6 / 4.0 / 3600.0).abs() < 1e-9, "{cost}");
    assert!((v["quota_hours_per_fold"].as_f64().unwrap() - cost / 2.0).abs() < 1e-9);
    // Second T4 idle: quota per fold is the whole cost.
    let (_, v, _) = run_fixture("KR001", &fixture("kernel/KR001/trigger"));
    assert_eq!(v["quota_hours_per_fold"], v["cost_per_fold_hours"]);
    // A failed fold: exit 1, the log tail quoted.
    let (code, v, _) = run_fixture("KR007", &fixture("kernel/KR007/trigger"));
    assert_eq!(code, 1);
    assert!(
        v["findings"].to_string().contains("KeyError: 'label'"),
        "{v}"
    );
    // No completed fold: cost unknown is null, not zero.
    let (_, v, _) = run_fixture("KR009", &fixture("kernel/KR009/trigger"));
    assert!(v["cost_per_fold_hours"].is_null());
}

/// `collect --status --log` for a kernel without kg_run.json: Kaggle's real status texts, a log as
/// `kaggle kernels output` writes it.
#[test]
fn collect_a_kernel_of_your_own_from_its_status_and_log() {
    let polled = fixture(
        "realdata/kaggle-cli/push-and-status-KernelWorkerStatus-gh-actions-log_run-workflow-in-kaggle.txt",
    );
    let log = fixture("kernel/KR011/clean/effb0-512-infer.log");
    let out = kgadvise()
        .args(["collect", "--status"])
        .arg(&polled)
        .arg("--log")
        .arg(&log)
        .args(["--json", "--now", NOW])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.collect/1");
    // The last status line of the polling loop is the outcome; the kernel is the inference stage's.
    assert_eq!(v["session"]["outcome"], "complete");
    assert_eq!(
        v["session"]["kernel"],
        "***/inference-pipeline-20250622101828-c1d564"
    );
    let hours = v["session"]["hours"].as_f64().unwrap();
    assert!((hours - 2060.118325774 / 3600.0).abs() < 1e-12, "{hours}");
    assert!(finding_rules(&v).is_empty(), "{v}");
    assert!(v["cost_per_fold_hours"].is_null());
    // The text answer says the session's hours.
    let out = kgadvise()
        .args(["collect", "--status"])
        .arg(&polled)
        .arg("--log")
        .arg(&log)
        .args(["--now", NOW])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("session 0.57 h (from the log's times)"),
        "{text}"
    );
    // kg_run.json still works alone, and with the kernel's status beside it.
    let run = fixture("kernel/KR001/clean/kg_run.json");
    let out = kgadvise()
        .arg("collect")
        .arg(&run)
        .arg("--status")
        .arg(&polled)
        .args(["--json", "--now", NOW])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["session"]["outcome"], "complete");
    assert_eq!(v["busy_gpus"], 2);
}

#[test]
fn collect_kernel_inputs_that_cannot_be_read_exit_2() {
    // Kaggle's API failed: the status file holds an HTTP error, not a status.
    let failed = fixture(
        "realdata/kaggle-cli/status-500-GetKernelSessionStatus-2026_kaggle-cli-issue1053.txt",
    );
    let out = kgadvise()
        .args(["collect", "--status"])
        .arg(&failed)
        .args(["--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("status-500-GetKernelSessionStatus")
            && err.contains("an HTTP error from the Kaggle API")
            && err.contains("expected the output of `kaggle kernels status"),
        "{err}"
    );
    // Nothing to read at all, or two inputs on stdin.
    let out = kgadvise().arg("collect").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kgadvise()
        .args(["collect", "-", "--log", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only one input can be -"));
    let out = kgadvise()
        .args(["collect", "--log", "no/such/file.log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/file.log: cannot read"));
}

#[test]
fn collect_bad_inputs_exit_2() {
    let dir = scratch("collect");
    for (file, bytes, want) in [
        (
            "broken.json",
            b"{\"jobs\": [\n  {\"name\": \"a\",}\n]}".to_vec(),
            "line 2: not valid JSON at column",
        ),
        (
            "meta.json",
            br#"{"id": "a/b", "title": "x"}"#.to_vec(),
            "no `jobs` list",
        ),
        ("bin.json", vec![0u8, 159, 146, 150], "binary"),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, bytes).unwrap();
        let out = kgadvise().args(["collect"]).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{file}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `sh` block of the README (the documented pre-push hook).
fn hook_script() -> String {
    let doc = std::fs::read_to_string(kgadvise_tests::workspace_root().join("README.md")).unwrap();
    let start = doc.find("```sh\n").expect("an ```sh block in README.md") + "```sh\n".len();
    let len = doc[start..].find("```").unwrap();
    doc[start..start + len].to_string()
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn pre_push_hook_blocks_bad_kernels() {
    let dir = scratch("hook");
    let hook = dir.join("pre-push.sh");
    std::fs::write(&hook, hook_script()).unwrap();
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("kernels/good")).unwrap();
    for f in ["kernel-metadata.json", "train.py"] {
        std::fs::copy(
            fixture("kernel/KM021/clean").join(f),
            repo.join("kernels/good").join(f),
        )
        .unwrap();
    }
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    // The hook calls `kgadvise` from PATH: a folder holding the binary under that name.
    let bin_dir = dir.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::copy(kgadvise_tests::kgadvise_path(), bin_dir.join("kgadvise")).unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = || {
        std::process::Command::new("sh")
            .arg(&hook)
            .current_dir(&repo)
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("ready to push"));
    // A kernel whose shape Kaggle refuses: exit 1 blocks the push.
    std::fs::create_dir_all(repo.join("kernels/bad")).unwrap();
    for f in ["kernel-metadata.json", "train.py"] {
        std::fs::copy(
            fixture("kernel/KM007/trigger").join(f),
            repo.join("kernels/bad").join(f),
        )
        .unwrap();
    }
    git(&repo, &["add", "-A"]);
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kgadvise check kernels/bad exited 1"), "{err}");
    // Unreadable metadata (exit 2) blocks too.
    std::fs::write(repo.join("kernels/bad/kernel-metadata.json"), "{ not json").unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exited 2"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every prefix of every real metadata file and kg_run.json fixture goes through the core without a panic
/// (truncated input is the commonest broken file).
#[test]
fn truncated_inputs_never_panic() {
    let thresholds = kgadvise_core::rulebook::Thresholds::defaults();
    for file in realdata("kernel-metadata") {
        let bytes = std::fs::read(&file).unwrap();
        for cut in 0..=bytes.len() {
            let part = String::from_utf8_lossy(&bytes[..cut]).into_owned();
            let request = CheckRequest {
                metadata: part.clone(),
                code: Some(part),
                ..CheckRequest::default()
            };
            let _ = kernel::check(&request, clock());
            let _ = kernel::metadata_text(&bytes[..cut], &thresholds);
        }
    }
    for (status, log) in [
        (
            "KR011/trigger/status.txt",
            "KR011/trigger/effb0-512-infer.log",
        ),
        (
            "KR005/session-trigger/status.txt",
            "KR005/session-trigger/effb0-512-train.log",
        ),
    ] {
        let status = std::fs::read_to_string(fixture("kernel").join(status)).unwrap();
        let log = std::fs::read(fixture("kernel").join(log)).unwrap();
        for cut in (0..=log.len()).step_by(5) {
            let part = String::from_utf8_lossy(&log[..cut]).into_owned();
            let request = run_report::CollectRequest {
                status: Some(status[..cut.min(status.len())].to_string()),
                log: Some(part),
                timeout_seconds: Some(10800),
                ..Default::default()
            };
            let _ = run_report::collect(&request, clock());
        }
    }
    for dir in rule_dirs()
        .iter()
        .filter(|d| d.ends_with("KR004") || d.ends_with("KR007"))
    {
        let bytes = std::fs::read(dir.join("trigger/kg_run.json")).unwrap();
        for cut in (0..=bytes.len()).step_by(7) {
            let request = run_report::CollectRequest {
                report: String::from_utf8_lossy(&bytes[..cut]).into_owned(),
                ..Default::default()
            };
            let _ = run_report::collect(&request, clock());
        }
    }
}

/// `--quota FILE`: the plannable hours of the accelerator the kernel asks for are compared with the cap.
#[test]
fn quota_file_feeds_the_cap_check() {
    let quota = kgadvise_tests::fixture("kernel-quota/low-gpu.csv");
    let gpu_kernel = kgadvise_tests::fixture("kernel/KM020/clean");
    let out = kgadvise()
        .args([
            "check",
            gpu_kernel.to_str().unwrap(),
            "--quota",
            quota.to_str().unwrap(),
        ])
        .args([
            "--timeout-seconds",
            "7200",
            "--now",
            "2026-12-01T00:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    let v = kgadvise_tests::json_of(&out);
    assert!(
        finding_rules(&v).contains(&"KM020".to_string()),
        "1 h plannable < 2 h cap: {v}"
    );
    assert_eq!(out.status.code(), Some(1));
    // Plenty of hours: no KM020.
    let plenty = kgadvise_tests::realdata("kaggle-quota")
        .into_iter()
        .find(|p| p.to_string_lossy().contains("naive-refreshAt"))
        .unwrap();
    let out = kgadvise()
        .args([
            "check",
            gpu_kernel.to_str().unwrap(),
            "--quota",
            plenty.to_str().unwrap(),
        ])
        .args([
            "--timeout-seconds",
            "7200",
            "--now",
            "2026-09-15T00:00:00Z",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(!finding_rules(&kgadvise_tests::json_of(&out)).contains(&"KM020".to_string()));
    // An unreadable quota file is unusable input.
    let out = kgadvise()
        .args([
            "check",
            gpu_kernel.to_str().unwrap(),
            "--quota",
            gpu_kernel.join("kernel-metadata.json").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

use super::*;
use serde_json::json;

fn clock() -> DateTime<Utc> {
    "2026-11-30T00:00:00Z".parse().unwrap()
}

fn request(text: &str) -> CollectRequest {
    CollectRequest {
        report: text.to_string(),
        ..CollectRequest::default()
    }
}

fn run(v: &Value) -> CollectReport {
    collect(&request(&v.to_string()), clock()).unwrap()
}

fn rules(r: &CollectReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.rule.as_str()).collect()
}

fn healthy() -> Value {
    json!({
        "jobs": [{"name": "effb0", "cmd": "python train.py", "folds": [0, 1], "folds_done": [0, 1],
            "folds_incomplete": [], "complete": true, "assembled": true, "errors": {},
            "fold_status": {
                "0": {"fold": 0, "status": "done", "best": 0.81, "seconds": 7200.0, "gpu": 0, "killed": false, "returncode": 0},
                "1": {"fold": 1, "status": "done", "best": 0.80, "seconds": 7920.0, "gpu": 1, "killed": false, "returncode": 0}
            }}],
        "accelerator": "NvidiaTeslaT4", "gpus": ["Tesla T4, 15360 MiB", "Tesla T4, 15360 MiB"],
        "started_utc": "2026-11-28T10:00:00Z", "elapsed_s": 8100.0, "budget_h": 3.0, "deadline_hit": false,
        "gpu_util": {"0": {"util_mean": 91.0, "util_p10": 80, "mem_peak_mb": 11000, "n": 270},
                     "1": {"util_mean": 88.5, "util_p10": 75, "mem_peak_mb": 11200, "n": 270}},
        "build_id": "effb0-train@2026-11-28T09:55:00Z"
    })
}

#[test]
fn a_healthy_run_has_no_findings_and_its_costs() {
    let r = run(&healthy());
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!((r.cost_per_fold_hours.unwrap() - 2.1).abs() < 1e-9);
    assert!((r.quota_hours_per_fold.unwrap() - 1.05).abs() < 1e-9);
    assert_eq!(r.busy_gpus, 2);
}

#[test]
fn idle_second_gpu_divides_by_busy_gpus_only() {
    let mut v = healthy();
    v["gpu_util"]["1"]["util_mean"] = json!(0.4);
    let r = run(&v);
    assert_eq!(rules(&r), vec!["KR001"]);
    assert!((r.quota_hours_per_fold.unwrap() - 2.1).abs() < 1e-9);
}

#[test]
fn input_bound_but_not_when_too_short() {
    let mut v = healthy();
    v["gpu_util"]["0"]["util_mean"] = json!(45.0);
    v["gpu_util"]["1"]["util_mean"] = json!(50.0);
    assert_eq!(rules(&run(&v)), vec!["KR002"]);
    v["elapsed_s"] = json!(600.0);
    assert_eq!(rules(&run(&v)), vec!["KR003"]);
}

#[test]
fn deadline_failed_pruned_and_unfinished() {
    let mut v = healthy();
    v["jobs"][0]["folds"] = json!([0, 1, 2, 3, 4]);
    v["jobs"][0]["fold_status"]["1"] =
        json!({"fold": 1, "status": "failed", "returncode": 1, "seconds": 60});
    v["jobs"][0]["fold_status"]["2"] = json!({"fold": 2, "status": "timeout", "killed": true});
    v["jobs"][0]["fold_status"]["3"] = json!({"fold": 3, "status": "pruned", "seconds": 900});
    v["jobs"][0]["errors"] = json!({"1": "Traceback\n  File x\nRuntimeError: CUDA out of memory"});
    v["deadline_hit"] = json!(true);
    let r = run(&v);
    let rs = rules(&r);
    for want in ["KR004", "KR006", "KR007"] {
        assert!(rs.contains(&want), "{rs:?}");
    }
    let failed = r.findings.iter().find(|f| f.rule == "KR007").unwrap();
    assert!(
        failed.evidence.contains("CUDA out of memory"),
        "{}",
        failed.evidence
    );
    let dl = r.findings.iter().find(|f| f.rule == "KR004").unwrap();
    assert!(
        dl.evidence.contains("fold 4") && dl.evidence.contains("--resume-from <user>/effb0-train"),
        "{}",
        dl.evidence
    );
    v.as_object_mut().unwrap().remove("elapsed_s");
    assert!(rules(&run(&v)).contains(&"KR008"));
}

#[test]
fn stopped_by_the_cap() {
    let mut v = healthy();
    v["elapsed_s"] = json!(10790.0);
    assert_eq!(rules(&run(&v)), vec!["KR005"]);
    v["deadline_hit"] = json!(true);
    assert!(!rules(&run(&v)).contains(&"KR005"));
}

#[test]
fn unreadable_reports_are_errors() {
    let error = |text: &str| collect(&request(text), clock()).unwrap_err();
    let e = error("{\n  \"jobs\": [,]\n}");
    assert_eq!((e.field.as_str(), e.line), ("report", Some(2)));
    assert!(e.message.contains("at column"), "{e}");
    assert!(error("[]").message.contains("not an object"));
    assert!(error("{\"a\": 1}").message.contains("no `jobs`"));
    assert!(error("").message.contains("empty"));
    assert!(error("{\"jobs\": \"\0\"}").message.contains("binary"));
    assert!(
        report_text(b"\0\x01")
            .unwrap_err()
            .message
            .contains("binary")
    );
    let e = report_text(b"{\n\"jobs\": \"\xC3\"}").unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("report", Some(2)));
    assert_eq!(
        collect(
            &CollectRequest {
                now: Some("soon".into()),
                ..request("{\"jobs\": []}")
            },
            clock()
        )
        .unwrap_err()
        .field,
        "now"
    );
}

#[test]
fn the_input_is_named_as_given() {
    let r = run(&healthy());
    assert_eq!(r.input, "kg_run.json");
    let r = collect(
        &CollectRequest {
            input: Some("runs/effb0/kg_run.json".into()),
            ..request(&healthy().to_string())
        },
        clock(),
    )
    .unwrap();
    assert_eq!(r.input, "runs/effb0/kg_run.json");
}

#[test]
fn quota_per_fold_of_cpu_tpu_and_unsampled_gpu_runs() {
    let mut v = healthy();
    v.as_object_mut().unwrap().remove("gpu_util");
    v["gpus"] = json!([]);
    // The accelerator is a GPU although nvidia-smi listed none: charged for one GPU, and said so.
    let r = run(&v);
    assert!((r.quota_hours_per_fold.unwrap() - 2.1).abs() < 1e-9);
    assert_eq!(rules(&r), vec!["KR009"]);
    v["accelerator"] = json!("cpu");
    assert_eq!(run(&v).quota_hours_per_fold, Some(0.0));
    v["accelerator"] = json!("TpuV5E8");
    let r = run(&v);
    assert!((r.quota_hours_per_fold.unwrap() - 2.1).abs() < 1e-9);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
}

#[test]
fn no_completed_fold_is_said() {
    let v = json!({"jobs": [{"name": "a", "folds": [0], "fold_status": {}}], "elapsed_s": 5000.0, "gpus": []});
    let r = run(&v);
    assert!(rules(&r).contains(&"KR009"));
    assert_eq!(r.cost_per_fold_hours, None);
}

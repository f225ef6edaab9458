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
    v["jobs"][0]["errors"] = json!({"1": "Traceback\n  File x\nRuntimeError: shape mismatch"});
    v["deadline_hit"] = json!(true);
    let r = run(&v);
    let rs = rules(&r);
    for want in ["KR004", "KR006", "KR007"] {
        assert!(rs.contains(&want), "{rs:?}");
    }
    let failed = r.findings.iter().find(|f| f.rule == "KR007").unwrap();
    assert!(
        failed.evidence.contains("RuntimeError: shape mismatch"),
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
    assert_eq!(rules(&r), vec!["KR051"]);
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

#[test]
fn input_bound_is_judged_on_the_slowest_busy_gpu() {
    // Mean of the busy GPUs 66 %: the old judgement said nothing; GPU 1 starves at 42 %.
    let mut v = healthy();
    v["gpu_util"]["0"]["util_mean"] = json!(90.0);
    v["gpu_util"]["1"]["util_mean"] = json!(42.0);
    let r = run(&v);
    assert_eq!(rules(&r), vec!["KR002"]);
    assert!(
        r.findings[0]
            .evidence
            .starts_with("slowest busy GPU 1 at 42.0 %"),
        "{}",
        r.findings[0].evidence
    );
    v["gpu_util"]["1"]["util_mean"] = json!(61.0);
    assert!(rules(&run(&v)).is_empty());
}

#[test]
fn every_gpu_near_idle_is_said() {
    let mut v = healthy();
    v["gpu_util"]["0"]["util_mean"] = json!(2.5);
    v["gpu_util"]["1"]["util_mean"] = json!(0.0);
    let r = run(&v);
    assert_eq!(rules(&r), vec!["KR010"]);
    assert!(
        r.findings[0].evidence.contains("over 2.25 h"),
        "{}",
        r.findings[0].evidence
    );
    // Too short to judge: KR003 only.
    v["elapsed_s"] = json!(600.0);
    assert_eq!(rules(&run(&v)), vec!["KR003"]);
    // One GPU without a mean might have been busy: not said.
    v["elapsed_s"] = json!(8100.0);
    v["gpu_util"]["1"] = json!({"n": 0});
    assert!(!rules(&run(&v)).contains(&"KR010"));
    // The busy level is the verdicts' (diagnose's) one.
    v["gpu_util"]["1"] = json!({"util_mean": 0.0});
    let raised = CollectRequest {
        set: Overrides(vec!["verdict.busy-util-pct=1".to_string()]),
        ..request(&v.to_string())
    };
    let r = collect(&raised, clock()).unwrap();
    assert!(
        rules(&r).contains(&"KR001") && !rules(&r).contains(&"KR010"),
        "{:?}",
        rules(&r)
    );
}

#[test]
fn folds_that_never_started_are_left_by_the_deadline_even_without_a_final_report() {
    let mut v = healthy();
    v["jobs"][0]["folds"] = json!([0, 1, 2]);
    v.as_object_mut().unwrap().remove("elapsed_s");
    let r = run(&v);
    let dl = r
        .findings
        .iter()
        .find(|f| f.rule == "KR004")
        .expect("KR004");
    assert!(
        dl.evidence
            .contains("never started: effb0 fold 2, left when the session ended"),
        "{}",
        dl.evidence
    );
    assert!(rules(&r).contains(&"KR008"));
}

#[test]
fn a_job_that_is_not_an_object_does_not_shift_the_failed_folds_logs() {
    let mut v = healthy();
    let mut failing = v["jobs"][0].clone();
    failing["name"] = json!("b3");
    failing["fold_status"]["1"] = json!({"status": "failed", "returncode": 1, "seconds": 30});
    failing["errors"] = json!({"1": "Traceback\nOSError: [Errno 28] No space left on device"});
    // Two junk items before the job: its `errors` must still be the ones read with it.
    v["jobs"] = json!([42, "x", failing]);
    let r = run(&v);
    let failed = r
        .findings
        .iter()
        .find(|f| f.rule == "KR007")
        .expect("KR007");
    assert!(
        failed
            .evidence
            .starts_with("b3 fold 1, exit code 1; log tail: Traceback"),
        "{}",
        failed.evidence
    );
    let disk = r
        .findings
        .iter()
        .find(|f| f.rule == "KR014")
        .expect("KR014");
    assert!(disk.evidence.contains("b3 fold 1"), "{}", disk.evidence);
    assert_eq!(r.jobs.len(), 1);
}

fn kernel(status: Option<&str>, log: Option<&str>, timeout_seconds: Option<u64>) -> CollectReport {
    collect(
        &CollectRequest {
            status: status.map(str::to_string),
            log: log.map(str::to_string),
            timeout_seconds,
            ..CollectRequest::default()
        },
        clock(),
    )
    .unwrap()
}

const LOG: &str = "[{\"stream_name\":\"stdout\",\"time\":1.5,\"data\":\"start\\n\"}\n,{\"stream_name\":\"stderr\",\"time\":3590.25,\"data\":\"epoch 3\\r epoch 3 50%\\r epoch 3 99%\\n\"}\n]";

#[test]
fn status_of_either_cli_generation_is_the_outcome() {
    for (text, outcome) in [
        (
            "me/k has status \"KernelWorkerStatus.COMPLETE\"\n",
            KernelOutcome::Complete,
        ),
        ("me/k has status \"complete\"", KernelOutcome::Complete),
        (
            "k has status \"cancelAcknowledged\"",
            KernelOutcome::Cancelled,
        ),
        (
            "me/k has status \"KernelWorkerStatus.CANCEL_REQUESTED\"",
            KernelOutcome::CancelRequested,
        ),
        ("me/k has status \"ERROR\"", KernelOutcome::Error),
        ("me/k has status \"newScript\"", KernelOutcome::NewScript),
        (
            "me/k has status \"KernelWorkerStatus.SOMETHING_NEW\"",
            KernelOutcome::Unknown,
        ),
    ] {
        let s = kernel(Some(text), None, None).session.unwrap();
        assert_eq!(s.outcome, Some(outcome), "{text}");
    }
    // The last line of a polling loop wins; a failure message is read; prefixes are not the kernel.
    let polled = "⏳ Kernel status: RUNNING --> me/k has status \"KernelWorkerStatus.RUNNING\"\n\
                  ⏳ Kernel status: ERROR --> me/k has status \"KernelWorkerStatus.ERROR\"\n\
                  Failure message: \"Kernel failed: exit code 1\"\n";
    let r = kernel(Some(polled), None, None);
    let s = r.session.as_ref().unwrap();
    assert_eq!(s.kernel.as_deref(), Some("me/k"));
    assert_eq!(
        s.failure_message.as_deref(),
        Some("Kernel failed: exit code 1")
    );
    assert_eq!(r.input, "me/k");
    let err = r.findings.iter().find(|f| f.rule == "KR011").unwrap();
    assert!(
        err.evidence
            .contains("failure message \"Kernel failed: exit code 1\"; no log given"),
        "{}",
        err.evidence
    );
    // A word of a failure message is not a status.
    let r = kernel(
        Some("Failure message: \"complete failure\"\nme/k has status \"running\""),
        None,
        None,
    );
    assert_eq!(r.session.unwrap().outcome, Some(KernelOutcome::Running));
}

#[test]
fn unreadable_status_and_log_name_their_field() {
    let field = |status: &str, log: Option<&str>| {
        collect(
            &CollectRequest {
                status: Some(status.to_string()),
                log: log.map(str::to_string),
                ..CollectRequest::default()
            },
            clock(),
        )
        .unwrap_err()
    };
    let e = field(
        "500 Server Error: Internal Server Error for url: https://api.kaggle.com/v1/kernels.KernelsApiService/GetKernelSessionStatus\n{\"code\":500}",
        None,
    );
    assert_eq!(e.field, "status");
    assert!(
        e.message
            .contains("an HTTP error from the Kaggle API (500 Server Error"),
        "{e}"
    );
    // Pasted with the shell's prompt: the error line is quoted, not the prompt.
    let e = field(
        "$ kaggle kernels status alice/effb0\n500 Server Error: Internal Server Error for url: https://api.kaggle.com/v1/x\n",
        None,
    );
    assert!(
        e.message.contains("API (500 Server Error") && !e.message.contains("$ kaggle"),
        "{e}"
    );
    assert!(field("  \n", None).message.contains("empty"));
    assert!(
        field("hello", None)
            .message
            .contains("no `<kernel> has status")
    );
    assert_eq!(
        field("me/k has status \"complete\"", Some("a\0b")).field,
        "log"
    );
    let e = collect(
        &CollectRequest {
            log: Some(LOG.into()),
            timeout_seconds: Some(0),
            ..CollectRequest::default()
        },
        clock(),
    )
    .unwrap_err();
    assert_eq!(e.field, "timeoutSeconds");
    // Neither a report nor a kernel: the report is what is missing.
    assert_eq!(
        collect(&CollectRequest::default(), clock())
            .unwrap_err()
            .field,
        "report"
    );
}

#[test]
fn the_log_gives_the_hours_and_its_shown_tail() {
    let s = kernel(None, Some(LOG), None).session.unwrap();
    assert_eq!((s.log_records, s.log_timed), (2, 2));
    assert!((s.hours.unwrap() - 3590.25 / 3600.0).abs() < 1e-12);
    // A progress bar redrawn with \r shows its last state.
    assert_eq!(s.log_tail, vec!["start", " epoch 3 99%"]);
    // JSON lines, a whole list on one line, a BOM: the same records.
    let lines = LOG
        .trim_start_matches('[')
        .trim_end_matches(']')
        .replace("\n,", "\n");
    let one_line = LOG.replace('\n', "");
    for text in [lines, one_line, format!("\u{feff}{LOG}")] {
        let t = kernel(None, Some(&text), None).session.unwrap();
        assert_eq!(
            (t.log_records, t.log_timed, t.hours),
            (2, 2, s.hours),
            "{text}"
        );
        assert!(t.log_unreadable_lines.is_empty(), "{text}");
    }
    // A record cut short (a truncated download) is kept as text, its line said.
    let cut = "[{\"stream_name\":\"stdout\",\"time\":7.0,\"data\":\"a\\n\"}\n,{\"stream_name\":\"stdout\",\"time\":99";
    let t = kernel(None, Some(cut), None).session.unwrap();
    assert_eq!(
        (t.log_records, t.log_timed, t.log_unreadable_lines.clone()),
        (2, 1, vec![2])
    );
    assert!((t.hours.unwrap() - 7.0 / 3600.0).abs() < 1e-12);
    // Plain text: no hours, and KR013 says why.
    let r = kernel(
        Some("me/k has status \"complete\""),
        Some("epoch 1\nepoch 2\n"),
        None,
    );
    assert_eq!(r.session.as_ref().unwrap().hours, None);
    assert_eq!(rules(&r), vec!["KR013"]);
    // Empty (a TPU log until the end): read, no records.
    let r = kernel(Some("me/k has status \"running\""), Some(""), None);
    assert_eq!(rules(&r), vec!["KR012"]);
}

#[test]
fn a_log_that_ends_at_the_cap_was_stopped_by_it() {
    // 3590 s of a 3600 s cap.
    let r = kernel(
        Some("me/k has status \"cancelAcknowledged\""),
        Some(LOG),
        Some(3600),
    );
    assert_eq!(rules(&r), vec!["KR005"]);
    assert!(
        r.findings[0]
            .evidence
            .contains("the same cap stops it at the same point again")
    );
    assert_eq!(r.findings[0].title, "Stopped by the cap");
    // Complete near the cap: not stopped.
    assert!(
        kernel(Some("me/k has status \"complete\""), Some(LOG), Some(3600))
            .findings
            .is_empty()
    );
    // Cancelled far from the cap: a stop before it.
    let r = kernel(
        Some("me/k has status \"cancelAcknowledged\""),
        Some(LOG),
        Some(36000),
    );
    assert_eq!(r.findings[0].title, "Cancelled before its cap");
    // Cancelled, no cap given: says what would tell.
    let r = kernel(
        Some("me/k has status \"cancelAcknowledged\""),
        Some(LOG),
        None,
    );
    assert!(
        r.findings[0]
            .evidence
            .contains("no cap given (timeoutSeconds)"),
        "{}",
        r.findings[0].evidence
    );
}

#[test]
fn a_report_and_a_kernel_together_do_not_repeat_a_finding() {
    let mut v = healthy();
    v["elapsed_s"] = json!(10790.0);
    let r = collect(
        &CollectRequest {
            status: Some("me/effb0-train has status \"cancelAcknowledged\"".into()),
            log: Some(LOG.into()),
            timeout_seconds: Some(3600),
            ..request(&v.to_string())
        },
        clock(),
    )
    .unwrap();
    assert_eq!(rules(&r), vec!["KR005"]);
    assert_eq!(r.input, "kg_run.json");
    assert!(
        r.findings[0].evidence.starts_with("ran 3.00 h"),
        "{}",
        r.findings[0].evidence
    );
    assert_eq!(r.jobs.len(), 1);
    assert!(r.session.is_some());
}

#[test]
fn a_fold_out_of_gpu_memory_is_kr015_not_kr007() {
    let mut v = healthy();
    v["jobs"][0]["fold_status"]["1"] =
        json!({"fold": 1, "status": "failed", "returncode": 1, "seconds": 60});
    v["jobs"][0]["errors"] = json!({"1": "Traceback\n  File x\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"});
    let r = run(&v);
    let rs = rules(&r);
    assert!(rs.contains(&"KR015") && !rs.contains(&"KR007"), "{rs:?}");
    let oom = r.findings.iter().find(|f| f.rule == "KR015").unwrap();
    assert!(oom.evidence.contains("fold 1") && oom.evidence.contains("Tried to allocate"));
}

/// A kernel whose log holds two `KGADVISE_DIAGNOSIS` lines, plain text or JSON records: the last is read.
#[test]
fn the_last_watch_diagnosis_line_of_a_log_is_kr016() {
    use crate::diagnose::watch_line::WatchDiagnosis;
    let first = WatchDiagnosis {
        verdicts: vec!["idle".into()],
        ..WatchDiagnosis::default()
    };
    let last = WatchDiagnosis {
        verdicts: vec!["input-bound".into()],
        wasted_quota_hours: Some(0.5),
        fix: Some("more DataLoader workers".into()),
        ..WatchDiagnosis::default()
    };
    let plain = format!("epoch 1\n{}\nepoch 2\n{}\n", first.line(), last.line());
    let records = format!(
        "[{}\n,{}\n]\n",
        json!({"stream_name": "stdout", "time": 10.0, "data": format!("{}\n", first.line())}),
        json!({"stream_name": "stderr", "time": 20.0, "data": format!("{}\n", last.line())})
    );
    for log in [plain, records] {
        let r = collect(
            &CollectRequest {
                log: Some(log.clone()),
                ..request("")
            },
            clock(),
        )
        .unwrap();
        let s = r.session.as_ref().unwrap();
        assert_eq!(s.diagnosis.as_ref(), Some(&last), "{log}");
        let f = r.findings.iter().find(|f| f.rule == "KR016").unwrap();
        assert!(f.evidence.contains("input-bound") && f.evidence.contains("0.50 quota hours"));
        assert_eq!(f.fix, "more DataLoader workers");
    }
}

#[test]
fn a_malformed_watch_diagnosis_line_is_reported_not_a_finding() {
    for line in [
        "KGADVISE_DIAGNOSIS {\"verdicts\": [",
        "KGADVISE_DIAGNOSIS",
        "x KGADVISE_DIAGNOSIS []",
    ] {
        let r = collect(
            &CollectRequest {
                log: Some(format!("epoch 1\n{line}\n")),
                ..request("")
            },
            clock(),
        )
        .unwrap();
        let s = r.session.as_ref().unwrap();
        assert!(s.diagnosis.is_none());
        let e = s.diagnosis_error.as_deref().unwrap();
        assert!(e.starts_with("log record 2: "), "{e}");
        assert!(!rules(&r).contains(&"KR016"));
        assert!(
            crate::rulebook::report::Report::text(&r).contains("KGADVISE_DIAGNOSIS line not read")
        );
    }
}

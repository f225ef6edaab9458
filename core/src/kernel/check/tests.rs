use chrono::NaiveDate;

use super::*;

fn clock() -> DateTime<Utc> {
    "2026-11-30T00:00:00Z".parse().unwrap()
}

/// A request for `meta` with `code` as the code file's text (None: no code file named).
fn request(meta: &str, code: Option<&str>) -> CheckRequest {
    CheckRequest {
        metadata: meta.to_string(),
        code: code.map(str::to_string),
        ..CheckRequest::default()
    }
}

fn run(request: &CheckRequest) -> CheckReport {
    check(request, clock()).unwrap()
}

/// The findings' codes, less KM033 (the smoke reminder every GPU or TPU check carries).
fn rules_of(r: &CheckReport) -> Vec<&str> {
    r.findings
        .iter()
        .map(|f| f.rule.as_str())
        .filter(|code| *code != "KM033")
        .collect()
}

const GOOD: &str = r#"{"id": "alice/train-fold0", "title": "Train fold 0", "code_file": "train.py",
  "language": "python", "kernel_type": "script", "is_private": true, "enable_gpu": true,
  "enable_internet": false, "machine_shape": "NvidiaTeslaT4"}"#;

#[test]
fn a_clean_gpu_kernel_with_a_cap_has_only_the_smoke_reminder() {
    let r = run(&CheckRequest {
        timeout_seconds: Some(3600),
        ..request(GOOD, Some("print(1)\n"))
    });
    let codes: Vec<&str> = r.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(codes, ["KM033"], "{:?}", r.findings);
    assert!(crate::kernel::text::check(&r).contains("ready to push"));
    assert!(r.ok);
    assert_eq!(r.machine_shape.as_deref(), Some("NvidiaTeslaT4"));
    assert_eq!(r.code_file_bytes, Some(9));
    assert_eq!(r.accelerator, Accelerator::Gpu);
    assert_eq!(r.input, "kernel-metadata.json");
}

#[test]
fn stored_shapes_follow_the_rules_data() {
    let cases = [
        (
            r#""machine_shape": "TpuV5E1", "enable_tpu": true"#,
            Some("TpuV5E8"),
            "KM009",
        ),
        (r#""machine_shape": "TpuV38""#, Some("TpuV5E8"), "KM009"),
        (
            r#""machine_shape": "NvidiaTeslaP100", "enable_gpu": true"#,
            Some("NvidiaTeslaT4"),
            "KM008",
        ),
        (r#""enable_gpu": true"#, Some("NvidiaTeslaT4"), "KM013"),
        (
            r#""enable_gpu": true, "machine_shape": "None""#,
            Some("NvidiaTeslaT4"),
            "KM013",
        ),
        (
            r#""machine_shape": "NvidiaTeslaT4Highmem", "enable_gpu": true"#,
            None,
            "KM007",
        ),
        (
            r#""machine_shape": "nvidiateslat4", "enable_gpu": true"#,
            None,
            "KM007",
        ),
        (
            r#""machine_shape": "TpuV6E8", "enable_tpu": true"#,
            Some("TpuV6E8"),
            "KM010",
        ),
        (
            r#""machine_shape": "NvidiaH100", "enable_gpu": true"#,
            Some("NvidiaH100"),
            "KM011",
        ),
    ];
    let with_shape = |extra: &str| CheckRequest {
        timeout_seconds: Some(3600),
        ..request(
            &format!(
                r#"{{"id": "a/bcdef", "title": "Hello world", "code_file": "x.py", "language": "python", "kernel_type": "script", {extra}}}"#
            ),
            Some("x"),
        )
    };
    for (extra, stored, rule) in cases {
        let r = run(&with_shape(extra));
        assert_eq!(r.machine_shape.as_deref(), stored, "{extra}");
        assert!(rules_of(&r).contains(&rule), "{extra}: {:?}", rules_of(&r));
    }
    // null / "" / "None" without enable flags: no accelerator.
    for shape in ["null", "\"\"", "\"None\""] {
        let r = run(&with_shape(&format!(r#""machine_shape": {shape}"#)));
        assert_eq!(r.machine_shape, None);
        assert_eq!(r.accelerator, Accelerator::Cpu);
        assert!(r.findings.is_empty(), "{shape}: {:?}", r.findings);
    }
    // An unknown shape is not an entry of the book: the rules list names only entries.
    let r = run(&with_shape(r#""machine_shape": "nvidiateslat4""#));
    assert!(rules_of(&r).contains(&"KM007"), "{:?}", rules_of(&r));
    assert!(
        r.rules.iter().all(|id| !id.starts_with("shape.")),
        "{:?}",
        r.rules
    );
    let r = run(&with_shape(r#""machine_shape": "TpuV38""#));
    assert!(
        r.rules.iter().any(|id| id == "shape.TpuV38"),
        "{:?}",
        r.rules
    );
}

#[test]
fn concurrency_fires_at_the_limit_only() {
    let at = CheckRequest {
        running_gpu: Some(2),
        timeout_seconds: Some(60),
        ..request(GOOD, None)
    };
    let below = CheckRequest {
        running_gpu: Some(1),
        running_tpu: Some(5),
        timeout_seconds: Some(60),
        ..request(GOOD, None)
    };
    assert!(rules_of(&run(&at)).contains(&"KM019"));
    assert!(!rules_of(&run(&below)).contains(&"KM019"));
}

#[test]
fn quota_below_the_cap_or_the_session() {
    let with = |plannable: f64, timeout_seconds: Option<u64>| CheckRequest {
        plannable: Some(plannable),
        timeout_seconds,
        ..request(GOOD, None)
    };
    assert!(rules_of(&run(&with(2.0, Some(3 * 3600)))).contains(&"KM020"));
    assert!(!rules_of(&run(&with(4.0, Some(3 * 3600)))).contains(&"KM020"));
    let r = run(&with(11.0, None));
    assert!(
        rules_of(&r).contains(&"KM020") && rules_of(&r).contains(&"KM021"),
        "{:?}",
        rules_of(&r)
    );
}

#[test]
fn a_quota_reading_gives_the_plannable_hours_and_plannable_wins() {
    // 1 h of GPU quota left: below a 2 h cap.
    let quota =
        "resource,used,remaining,total,refreshAt\nGPU,29.00h,1.00h,30.00h,2026-12-05T00:00:00\n";
    let low = CheckRequest {
        quota: Some(quota.to_string()),
        timeout_seconds: Some(7200),
        ..request(GOOD, None)
    };
    assert!(
        rules_of(&run(&low)).contains(&"KM020"),
        "{:?}",
        run(&low).findings
    );
    let given = CheckRequest {
        plannable: Some(5.0),
        ..low.clone()
    };
    assert!(!rules_of(&run(&given)).contains(&"KM020"));
    let broken = CheckRequest {
        quota: Some("nothing like a quota".into()),
        ..low.clone()
    };
    assert_eq!(check(&broken, clock()).unwrap_err().field, "quota");
    let runs_alone = CheckRequest {
        runs: Some(String::new()),
        ..request(GOOD, None)
    };
    assert_eq!(check(&runs_alone, clock()).unwrap_err().field, "runs");
}

/// The check reserves through the quota's ledger: a run in flight holds what the figure did not include
/// when it was read (`quotaReadAt`).
#[test]
fn the_runs_log_reserves_from_when_the_quota_was_read() {
    let quota =
        "resource,used,remaining,total,refreshAt\nGPU,20.00h,10.00h,30.00h,2026-12-05T00:00:00\n";
    let runs = r#"{"kernel": "me/a", "accelerator": "NvidiaTeslaT4", "hours": 6, "pushed_at": "2026-12-01T04:00:00Z", "status": "running"}"#;
    let push = |read_at: Option<&str>| CheckRequest {
        quota: Some(quota.to_string()),
        runs: Some(runs.to_string()),
        quota_read_at: read_at.map(str::to_string),
        timeout_seconds: Some(5 * 3600),
        now: Some("2026-12-01T10:00:00Z".into()),
        ..request(GOOD, None)
    };
    // read at 08:00: 4 h of the 6 h cap are in the figure, 2 h held: 8 h plannable for a 5 h cap
    assert!(!rules_of(&run(&push(Some("2026-12-01T08:00:00Z")))).contains(&"KM020"));
    // read before the push: the whole 6 h held, 4 h plannable
    assert!(rules_of(&run(&push(Some("2026-12-01T03:00:00Z")))).contains(&"KM020"));
    assert_eq!(
        check(&push(Some("soon")), clock()).unwrap_err().field,
        "quotaReadAt"
    );
}

#[test]
fn a_tpu_push_is_judged_on_tpu_hours_or_says_they_are_unknown() {
    let tpu = GOOD
        .replace(
            "\"enable_gpu\": true",
            "\"enable_gpu\": false, \"enable_tpu\": true",
        )
        .replace("NvidiaTeslaT4", "TpuV5E8");
    // KM014 (no torch_xla image) fires on every TPU push here, KQ001 on every reading without a time:
    // only the cap's quota findings are looked at.
    let quota_rules = |r: &CheckReport| -> Vec<String> {
        rules_of(r)
            .into_iter()
            .filter(|id| *id != "KM014" && *id != "KQ001" && *id != "KM033")
            .map(str::to_string)
            .collect()
    };
    let push = |extra: CheckRequest| CheckRequest {
        timeout_seconds: Some(8 * 3600),
        ..extra
    };
    // GPU hours only (plannable, or kgkit's cache without a TPU figure): not judged on them, but said.
    let gpu_only = run(&push(CheckRequest {
        plannable: Some(1.0),
        ..request(&tpu, None)
    }));
    assert_eq!(
        quota_rules(&gpu_only),
        vec!["KM028"],
        "{:?}",
        gpu_only.findings
    );
    assert!(
        gpu_only.findings[1]
            .evidence
            .contains("plannable 1.00 h is GPU hours")
    );
    let cache = "{\"used_h\": 29.5, \"remaining_h\": 0.5, \"total_h\": 30.0, \"refresh_at\": \"2026-12-05T00:00:00Z\"}";
    let cached = run(&push(CheckRequest {
        quota: Some(cache.into()),
        ..request(&tpu, None)
    }));
    assert_eq!(quota_rules(&cached), vec!["KM028"], "{:?}", cached.findings);
    // kgkit's cache without fetched_at: its age is unknown, so KQ001 says it is not live.
    assert!(rules_of(&cached).contains(&"KQ001"));
    // The TPU figure decides, whatever the GPU one says.
    let low_tpu = "resource,used,remaining,total,refreshAt\nGPU,0.00h,30.00h,30.00h,2026-12-05T00:00:00\nTPU,19.00h,1.00h,20.00h,2026-12-05T00:00:00\n";
    let r = run(&push(CheckRequest {
        quota: Some(low_tpu.into()),
        ..request(&tpu, None)
    }));
    assert_eq!(quota_rules(&r), vec!["KM020"], "{:?}", r.findings);
    assert!(
        r.findings[0]
            .evidence
            .contains("plannable TPU quota 1.00 h")
    );
    let r = run(&push(CheckRequest {
        plannable: Some(1.0),
        plannable_tpu: Some(12.0),
        ..request(&tpu, None)
    }));
    assert!(quota_rules(&r).is_empty(), "{:?}", r.findings);
    // No quota given at all: nothing to judge, as for a GPU push.
    assert!(quota_rules(&run(&push(request(&tpu, None)))).is_empty());
    // A GPU push is never judged on TPU hours.
    let r = run(&CheckRequest {
        plannable_tpu: Some(0.5),
        timeout_seconds: Some(3600),
        ..request(GOOD, None)
    });
    assert!(rules_of(&r).is_empty(), "{:?}", r.findings);
    assert_eq!(
        check(
            &CheckRequest {
                plannable_tpu: Some(f64::NAN),
                ..request(&tpu, None)
            },
            clock()
        )
        .unwrap_err()
        .field,
        "plannableTpu"
    );
}

#[test]
fn weights_downloaded_at_run_time_are_said_louder_with_internet_off() {
    let code = "from huggingface_hub import hf_hub_download\np = hf_hub_download(\"me/effb0\", \"model.safetensors\")\n";
    let r = run(&CheckRequest {
        timeout_seconds: Some(3600),
        ..request(GOOD, Some(code))
    });
    assert_eq!(rules_of(&r), vec!["KM051"]);
    assert_eq!(r.findings[0].rule, "KM051");
    assert_eq!(r.findings[0].severity, crate::Severity::Warning);
    assert!(
        r.findings[0]
            .evidence
            .starts_with("line 2: p = hf_hub_download(")
    );
    let online = GOOD.replace("\"enable_internet\": false", "\"enable_internet\": true");
    let r = run(&CheckRequest {
        timeout_seconds: Some(3600),
        ..request(&online, Some(code))
    });
    assert_eq!(r.findings[0].severity, crate::Severity::Info);
    let chained = "import torch\nm = torch.load(\"/kaggle/input/effb0-train/model.pt\")\n";
    let r = run(&CheckRequest {
        timeout_seconds: Some(3600),
        ..request(GOOD, Some(chained))
    });
    assert!(rules_of(&r).is_empty(), "{:?}", r.findings);
}

#[test]
fn bad_requests_name_their_field() {
    let field = |r: CheckRequest| check(&r, clock()).unwrap_err().field;
    assert_eq!(
        field(CheckRequest {
            plannable: Some(-1.0),
            ..request(GOOD, None)
        }),
        "plannable"
    );
    assert_eq!(field(request("{\"id\": ", None)), "metadata");
    assert_eq!(field(request("", None)), "metadata");
    assert_eq!(
        field(CheckRequest {
            now: Some("soon".into()),
            ..request(GOOD, None)
        }),
        "now"
    );
    let e = check(&request("{\n  \"id\": \"a/b\",\n}", None), clock()).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.ends_with("[KM001]"), "{e}");
}

#[test]
fn big_code_file_is_an_error_naming_parts() {
    let big = format!("x = '{}'\n", "QUJD".repeat(300_000));
    let r = run(&CheckRequest {
        timeout_seconds: Some(60),
        ..request(GOOD, Some(&big))
    });
    let f = r.findings.iter().find(|f| f.rule == "KM017").unwrap();
    assert!(f.evidence.contains("line 1"), "{}", f.evidence);
    assert!(!r.ok);
}

#[test]
fn the_size_on_disk_is_what_counts() {
    // A code file in another encoding: its size on disk, not its text's, is compared with the limit.
    let r = run(&CheckRequest {
        timeout_seconds: Some(60),
        code_bytes: Some(2 * 1024 * 1024),
        ..request(GOOD, Some("print(1)\n"))
    });
    assert_eq!(r.code_file_bytes, Some(2 * 1024 * 1024));
    assert!(rules_of(&r).contains(&"KM017"), "{:?}", rules_of(&r));
}

#[test]
fn a_missing_code_file_is_km016_unless_a_placeholder() {
    let missing = |meta: &str| CheckRequest {
        code_path: Some("kernels/train/train.py".into()),
        timeout_seconds: Some(60),
        ..request(meta, None)
    };
    let r = run(&missing(GOOD));
    let f = r.findings.iter().find(|f| f.rule == "KM016").unwrap();
    assert!(
        f.evidence
            .contains("\"train.py\" resolves to kernels/train/train.py"),
        "{}",
        f.evidence
    );
    let template = GOOD.replace("train.py", "INSERT_CODE_FILE_PATH_HERE");
    let r = run(&missing(&template));
    assert_eq!(rules_of(&r), vec!["KM003"], "{:?}", r.findings);
}

#[test]
fn errors_come_first() {
    let r = run(&request(
        r#"{"is_private": false, "enable_gpu": "maybe"}"#,
        None,
    ));
    assert_eq!(r.findings[0].severity, crate::Severity::Error);
    assert!(
        rules_of(&r).contains(&"KM005")
            && rules_of(&r).contains(&"KM002")
            && rules_of(&r).contains(&"KM022")
    );
}

#[test]
fn placeholder_owners_only_in_ids_and_sources() {
    let with = |meta: &str| CheckRequest {
        timeout_seconds: Some(60),
        ..request(meta, None)
    };
    let meta = GOOD.replace("Train fold 0", "username");
    assert!(!rules_of(&run(&with(&meta))).contains(&"KM003"));
    let meta = GOOD.replace("alice/train-fold0", "your_username/train-fold0");
    assert!(rules_of(&run(&with(&meta))).contains(&"KM003"));
}

#[test]
fn running_kernels_match_without_version_and_case() {
    let meta = GOOD.replace(
        "\"enable_internet\"",
        "\"kernel_sources\": [\"Alice/Prep/3\"], \"enable_internet\"",
    );
    let with = |running: &str| CheckRequest {
        running_kernels: vec![running.to_string()],
        timeout_seconds: Some(60),
        ..request(&meta, None)
    };
    // Pinned to version 3: another version running binds version 3 (KM030); version 3 running blocks.
    assert!(rules_of(&run(&with(" alice/prep"))).contains(&"KM030"));
    assert!(!rules_of(&run(&with(" alice/prep"))).contains(&"KM018"));
    assert!(rules_of(&run(&with("ALICE/prep/3"))).contains(&"KM018"));
    assert!(!rules_of(&run(&with("alice/prep-v2"))).contains(&"KM018"));
    let unpinned = meta.replace("Alice/Prep/3", "Alice/Prep");
    let with_unpinned = CheckRequest {
        metadata: unpinned,
        ..with(" alice/prep/7")
    };
    assert!(rules_of(&run(&with_unpinned)).contains(&"KM018"));
}

#[test]
fn the_stored_shape_key_appears_once() {
    let r = run(&request(GOOD, None));
    let text = serde_json::to_string(&r).unwrap_or_default();
    assert_eq!(text.matches("\"machine_shape\"").count(), 1, "{text}");
}

#[test]
fn utf16_metadata_reads_like_utf8_and_binary_is_refused() {
    let t = Thresholds::defaults();
    let mut le = vec![0xFF, 0xFE];
    le.extend(GOOD.encode_utf16().flat_map(u16::to_le_bytes));
    let from_utf16 = metadata::parse_metadata(&le, &t).unwrap();
    assert_eq!(
        from_utf16,
        metadata::parse_metadata(GOOD.as_bytes(), &t).unwrap()
    );
    let mut be = vec![0xFE, 0xFF];
    be.extend(GOOD.encode_utf16().flat_map(u16::to_be_bytes));
    assert_eq!(
        metadata::parse_metadata(&be, &t).unwrap().id.as_deref(),
        Some("alice/train-fold0")
    );
    // A NUL in UTF-8 bytes, a NUL character in UTF-16, bad UTF-8 on line 2.
    let e = metadata::parse_metadata(b"{\"id\": \x00}", &t).unwrap_err();
    assert!(e.message.contains("binary data"), "{e}");
    let mut nul16 = vec![0xFF, 0xFE];
    nul16.extend("{\"id\": \0}".encode_utf16().flat_map(u16::to_le_bytes));
    assert!(
        metadata::parse_metadata(&nul16, &t)
            .unwrap_err()
            .message
            .contains("binary data")
    );
    let e = metadata::parse_metadata(b"{\n\"id\": \"\xC3\"}", &t).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("not UTF-8 text"), "{e}");
    // A NUL in a request's text is binary too.
    let e = check(&request("{\"id\": \"\0\"}", None), clock()).unwrap_err();
    assert!(e.message.contains("binary data"), "{e}");
}

#[test]
fn an_empty_or_blank_code_file_is_km027() {
    for (code, fires) in [("", true), (" \n\t\r\n", true), ("print(1)\n", false)] {
        let r = run(&request(GOOD, Some(code)));
        assert_eq!(rules_of(&r).contains(&"KM027"), fires, "{code:?}");
    }
}

#[test]
fn a_stale_allowed_entry_says_so() {
    // Far enough ahead that every dated entry is stale: the accepted values the check used are named.
    let later = NaiveDate::from_ymd_opt(2099, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    let r = check(&request(GOOD, None), later).unwrap();
    let stale: Vec<&Finding> = r.findings.iter().filter(|f| f.rule == "KH004").collect();
    assert_eq!(stale.len(), 1, "{:?}", r.findings);
    for id in ["allowed.language", "allowed.kernel_type"] {
        assert!(
            stale[0].evidence.contains(&format!("{id} (as of ")),
            "{}",
            stale[0].evidence
        );
        assert!(r.rules.iter().any(|r| r == id), "{:?}", r.rules);
    }
    // On the rules' own date nothing is stale.
    assert!(!rules_of(&run(&request(GOOD, None))).contains(&"KH004"));
}

#[test]
fn json_requests_use_the_flags_in_camel_case() {
    let r: CheckRequest = crate::request::from_json(
        r#"{"metadata": "{}", "timeoutSeconds": 7200, "runningKernels": ["a/b"], "codeCompetition": true}"#,
    )
    .unwrap();
    assert_eq!(r.timeout_seconds, Some(7200));
    assert_eq!(r.running_kernels, vec!["a/b".to_string()]);
    assert!(r.code_competition);
    let e = crate::request::from_json::<CheckRequest>(r#"{"timeout_seconds": 1}"#).unwrap_err();
    assert_eq!(e.field, "timeout_seconds");
}

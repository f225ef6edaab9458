use super::*;

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 30).unwrap_or_default()
}

fn run(meta: &str, code: CodeFile<'_>, opts: &CheckOptions) -> CheckReport {
    check_text(
        "kernel-metadata.json",
        meta.as_bytes(),
        code,
        opts,
        today(),
        &Thresholds::defaults(),
    )
    .unwrap()
}

fn rules_of(r: &CheckReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.rule.as_str()).collect()
}

const GOOD: &str = r#"{"id": "alice/train-fold0", "title": "Train fold 0", "code_file": "train.py",
  "language": "python", "kernel_type": "script", "is_private": true, "enable_gpu": true,
  "enable_internet": false, "machine_shape": "NvidiaTeslaT4"}"#;

#[test]
fn a_clean_gpu_kernel_with_a_cap_has_no_findings() {
    let opts = CheckOptions {
        timeout_seconds: Some(3600),
        ..Default::default()
    };
    let r = run(
        GOOD,
        CodeFile::Present {
            bytes: b"print(1)\n",
        },
        &opts,
    );
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert!(r.ok);
    assert_eq!(r.machine_shape.as_deref(), Some("NvidiaTeslaT4"));
    assert_eq!(r.code_file_bytes, Some(9));
    assert_eq!(r.accelerator, Accelerator::Gpu);
}

#[test]
fn stored_shapes_follow_the_rules_data() {
    let opts = CheckOptions {
        timeout_seconds: Some(3600),
        ..Default::default()
    };
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
    for (extra, stored, rule) in cases {
        let meta = format!(
            r#"{{"id": "a/bcdef", "title": "Hello world", "code_file": "x.py", "language": "python", "kernel_type": "script", {extra}}}"#
        );
        let r = run(&meta, CodeFile::Present { bytes: b"x" }, &opts);
        assert_eq!(r.machine_shape.as_deref(), stored, "{extra}");
        assert!(rules_of(&r).contains(&rule), "{extra}: {:?}", rules_of(&r));
    }
    // null / "" / "None" without enable flags: no accelerator.
    for shape in ["null", "\"\"", "\"None\""] {
        let meta = format!(
            r#"{{"id": "a/bcdef", "title": "Hello world", "code_file": "x.py", "language": "python", "kernel_type": "script", "machine_shape": {shape}}}"#
        );
        let r = run(&meta, CodeFile::Present { bytes: b"x" }, &opts);
        assert_eq!(r.machine_shape, None);
        assert_eq!(r.accelerator, Accelerator::Cpu);
        assert!(r.findings.is_empty(), "{shape}: {:?}", r.findings);
    }
}

#[test]
fn concurrency_fires_at_the_limit_only() {
    let at = CheckOptions {
        running_gpu: Some(2),
        timeout_seconds: Some(60),
        ..Default::default()
    };
    let below = CheckOptions {
        running_gpu: Some(1),
        running_tpu: Some(5),
        timeout_seconds: Some(60),
        ..Default::default()
    };
    assert!(rules_of(&run(GOOD, CodeFile::NotNamed, &at)).contains(&"KM019"));
    assert!(!rules_of(&run(GOOD, CodeFile::NotNamed, &below)).contains(&"KM019"));
}

#[test]
fn quota_below_the_cap_or_the_session() {
    let low = CheckOptions {
        plannable_hours: Some(2.0),
        plannable_tpu_hours: None,
        timeout_seconds: Some(3 * 3600),
        ..Default::default()
    };
    let ok = CheckOptions {
        plannable_hours: Some(4.0),
        plannable_tpu_hours: None,
        timeout_seconds: Some(3 * 3600),
        ..Default::default()
    };
    let nocap = CheckOptions {
        plannable_hours: Some(11.0),
        plannable_tpu_hours: None,
        ..Default::default()
    };
    assert!(rules_of(&run(GOOD, CodeFile::NotNamed, &low)).contains(&"KM020"));
    assert!(!rules_of(&run(GOOD, CodeFile::NotNamed, &ok)).contains(&"KM020"));
    let r = run(GOOD, CodeFile::NotNamed, &nocap);
    assert!(
        rules_of(&r).contains(&"KM020") && rules_of(&r).contains(&"KM021"),
        "{:?}",
        rules_of(&r)
    );
}

#[test]
fn big_code_file_is_an_error_naming_parts() {
    let big = format!("x = '{}'\n", "QUJD".repeat(300_000));
    let opts = CheckOptions {
        timeout_seconds: Some(60),
        ..Default::default()
    };
    let r = run(
        GOOD,
        CodeFile::Present {
            bytes: big.as_bytes(),
        },
        &opts,
    );
    let f = r.findings.iter().find(|f| f.rule == "KM017").unwrap();
    assert!(f.evidence.contains("line 1"), "{}", f.evidence);
    assert!(!r.ok);
}

#[test]
fn errors_come_first() {
    let r = run(
        r#"{"is_private": false, "enable_gpu": "maybe"}"#,
        CodeFile::NotNamed,
        &CheckOptions::default(),
    );
    assert_eq!(r.findings[0].severity, crate::Severity::Error);
    assert!(
        rules_of(&r).contains(&"KM005")
            && rules_of(&r).contains(&"KM002")
            && rules_of(&r).contains(&"KM022")
    );
}

#[test]
fn placeholder_owners_only_in_ids_and_sources() {
    let opts = CheckOptions {
        timeout_seconds: Some(60),
        ..Default::default()
    };
    let meta = GOOD.replace("Train fold 0", "username");
    assert!(!rules_of(&run(&meta, CodeFile::NotNamed, &opts)).contains(&"KM003"));
    let meta = GOOD.replace("alice/train-fold0", "your_username/train-fold0");
    assert!(rules_of(&run(&meta, CodeFile::NotNamed, &opts)).contains(&"KM003"));
}

#[test]
fn running_kernels_match_without_version_and_case() {
    let meta = GOOD.replace(
        "\"enable_internet\"",
        "\"kernel_sources\": [\"Alice/Prep/3\"], \"enable_internet\"",
    );
    let hit = CheckOptions {
        running_kernels: vec!["alice/prep".into()],
        timeout_seconds: Some(60),
        ..Default::default()
    };
    let miss = CheckOptions {
        running_kernels: vec!["alice/prep-v2".into()],
        timeout_seconds: Some(60),
        ..Default::default()
    };
    assert!(rules_of(&run(&meta, CodeFile::NotNamed, &hit)).contains(&"KM018"));
    assert!(!rules_of(&run(&meta, CodeFile::NotNamed, &miss)).contains(&"KM018"));
}

#[test]
fn the_stored_shape_key_appears_once() {
    let r = run(GOOD, CodeFile::NotNamed, &CheckOptions::default());
    let text = serde_json::to_string(&r).unwrap_or_default();
    assert_eq!(text.matches("\"machine_shape\"").count(), 1, "{text}");
}

#[test]
fn utf16_metadata_reads_like_utf8_and_binary_is_refused() {
    let t = Thresholds::defaults();
    let mut le = vec![0xFF, 0xFE];
    le.extend(GOOD.encode_utf16().flat_map(u16::to_le_bytes));
    let from_utf16 = parse_metadata(&le, &t).unwrap();
    assert_eq!(from_utf16, parse_metadata(GOOD.as_bytes(), &t).unwrap());
    let mut be = vec![0xFE, 0xFF];
    be.extend(GOOD.encode_utf16().flat_map(u16::to_be_bytes));
    assert_eq!(
        parse_metadata(&be, &t).unwrap().id.as_deref(),
        Some("alice/train-fold0")
    );
    // A NUL in UTF-8 bytes, a NUL character in UTF-16, bad UTF-8 on line 2.
    let e = parse_metadata(b"{\"id\": \x00}", &t).unwrap_err();
    assert!(e.message.contains("binary data"), "{e}");
    let mut nul16 = vec![0xFF, 0xFE];
    nul16.extend("{\"id\": \0}".encode_utf16().flat_map(u16::to_le_bytes));
    assert!(
        parse_metadata(&nul16, &t)
            .unwrap_err()
            .message
            .contains("binary data")
    );
    let e = parse_metadata(b"{\n\"id\": \"\xC3\"}", &t).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.contains("not UTF-8 text"), "{e}");
}

#[test]
fn an_empty_or_blank_code_file_is_km027() {
    let opts = CheckOptions::default();
    for (bytes, fires) in [
        (&b""[..], true),
        (b" \n\t\r\n", true),
        (b"print(1)\n", false),
    ] {
        let r = run(GOOD, CodeFile::Present { bytes }, &opts);
        assert_eq!(rules_of(&r).contains(&"KM027"), fires, "{bytes:?}");
    }
}

#[test]
fn a_stale_allowed_entry_says_so() {
    // Far enough ahead that every dated entry is stale: the accepted values the check used are named.
    let later = NaiveDate::from_ymd_opt(2099, 1, 1).unwrap_or_default();
    let r = check_text(
        "kernel-metadata.json",
        GOOD.as_bytes(),
        CodeFile::NotNamed,
        &CheckOptions::default(),
        later,
        &Thresholds::defaults(),
    )
    .unwrap();
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
    assert!(!rules_of(&run(GOOD, CodeFile::NotNamed, &CheckOptions::default())).contains(&"KH004"));
}

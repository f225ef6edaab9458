//! End-to-end: the foundation subcommands through the real binary, against cli.md's contract.

use kgadvise_tests::{has_key_anywhere, json_of, kgadvise};

#[test]
fn one_cell_as_json() {
    let out = kgadvise()
        .args([
            "matrix",
            "--platform",
            "t4x2",
            "--capability",
            "bf16",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.matrix/1");
    assert_eq!(v["support"], "no");
    assert_eq!(v["platform"], "t4x2");
    assert_eq!(v["capability"], "bf16");
    assert!(v["note"].as_str().unwrap().contains("emulated"), "{v}");
    assert!(v["findings"].is_array());
}

#[test]
fn every_cell_is_answerable_through_the_cli() {
    let platforms = ["t4x2", "p100", "tpu-v5e-8", "cpu", "windows", "linux"];
    let out = kgadvise().args(["matrix", "--json"]).output().unwrap();
    let v = json_of(&out);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 60);
    for c in cells {
        assert!(platforms.contains(&c["platform"].as_str().unwrap()));
        assert!(
            ["yes", "no", "partial", "n/a"].contains(&c["support"].as_str().unwrap()),
            "{c}"
        );
        assert!(!c["note"].as_str().unwrap().is_empty());
    }
}

#[test]
fn a_platforms_column_carries_its_notes() {
    // CE §3: the Windows column says what runs natively (bitsandbytes among them) and what needs WSL2
    let out = kgadvise()
        .args(["matrix", "--platform", "windows"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\nLocal Windows:\n  - "), "{text}");
    assert!(
        text.contains("bitsandbytes") && text.contains("WSL2"),
        "{text}"
    );
    let v = json_of(
        &kgadvise()
            .args(["matrix", "--platform", "windows", "--json"])
            .output()
            .unwrap(),
    );
    assert!(v["notes"].as_array().unwrap().len() >= 3, "{v}");
    let whole = json_of(&kgadvise().args(["matrix", "--json"]).output().unwrap());
    assert_eq!(whole["notes"], serde_json::json!([]), "{whole}");
}

#[test]
fn unknown_identifiers_exit_2_listing_valid_values() {
    let out = kgadvise()
        .args(["matrix", "--platform", "v100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown platform `v100`") && err.contains("t4x2, p100"),
        "{err}"
    );

    let out = kgadvise()
        .args(["defaults", "vision", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.error/1");
    assert!(v["error"].as_str().unwrap().contains("images, text"), "{v}");

    let out = kgadvise()
        .args(["matrix", "--capability", "fp8"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fp16-amp, bf16"));
}

#[test]
fn images_defaults_on_t4x2() {
    let out = kgadvise()
        .args(["defaults", "images", "--platform", "t4x2", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    for key in [
        "domain",
        "always",
        "when_measured",
        "platform",
        "findings",
        "schema",
    ] {
        assert!(has_key_anywhere(&v, key), "missing {key}");
    }
    let always: Vec<&str> = v["always"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(
        always
            .iter()
            .any(|s| s.contains("fp16") && s.contains("GradScaler")),
        "{always:?}"
    );
    assert!(
        always.iter().any(|s| s.contains("channels_last")),
        "{always:?}"
    );
}

#[test]
fn p100_defaults_warn_and_drop_compile() {
    let out = kgadvise()
        .args(["defaults", "images", "--platform", "p100", "--json"])
        .output()
        .unwrap();
    // warnings are not errors: exit 0
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"KH001") && rules.contains(&"KH002"),
        "{rules:?}"
    );
}

#[test]
fn worth_gpu_contract() {
    let out = kgadvise()
        .args(["worth-gpu", "--task", "gbdt", "--rows", "2000000", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["choice"], "gpu");
    assert!(v["reason"].as_str().unwrap().contains("million"));
    let out = kgadvise()
        .args(["worth-gpu", "--task", "xgb", "--rows", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_rules_and_entries() {
    let out = kgadvise()
        .args(["explain", "KH001", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["rule"], "KH001");
    assert!(v["doc"].as_str().unwrap().contains("### Why it matters"));
    let out = kgadvise()
        .args(["explain", "matrix.bf16.t4x2"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("no: emulated"));
    let out = kgadvise().args(["explain", "KZ999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn now_is_validated_and_stale_facts_are_reported() {
    let out = kgadvise()
        .args(["matrix", "--now", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--now"));
    let out = kgadvise()
        .args([
            "matrix",
            "--platform",
            "t4x2",
            "--capability",
            "bf16",
            "--now",
            "2027-12-01",
            "--json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["findings"][0]["rule"], "KH004");
}

#[test]
fn inference_past_the_limit_exits_1_with_the_fixes_and_notes() {
    let out = kgadvise()
        .args([
            "inference",
            "--item-seconds",
            "0.9",
            "--test-items",
            "40000",
            "--limit-hours",
            "9",
            "--platform",
            "t4x2",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "KH020 is an error");
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.inference/1");
    assert_eq!(v["budget"], "over-limit");
    assert_eq!(v["expected_hours"], 10.0);
    assert_eq!(v["speedup_needed"], 1.39);
    assert!(
        v["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().contains("both T4s")),
        "{v}"
    );
    assert!(
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["id"] == "note.chain-kernel-outputs"),
        "{v}"
    );
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["KH020", "KH022"]);
}

#[test]
fn inference_within_the_margin_exits_0_and_bad_values_name_the_flag() {
    let out = kgadvise()
        .args([
            "inference",
            "--batch-seconds",
            "2",
            "--batch-size",
            "64",
            "--test-items",
            "40000",
            "--timed-items",
            "40000",
            "--limit-hours",
            "9",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("keeps the margin"), "{text}");
    let out = kgadvise()
        .args([
            "inference",
            "--item-seconds",
            "0.5",
            "--test-items",
            "0",
            "--limit-hours",
            "9",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--test-items 0: expected at least 1 item"),
        "{err}"
    );
}

#[test]
fn defaults_refuse_zero_cores_or_processes() {
    for (flag, expected) in [
        ("--cores", "--cores 0: expected at least 1 CPU core"),
        ("--processes", "--processes 0: expected at least 1 process"),
    ] {
        let out = kgadvise()
            .args(["defaults", "images", "--platform", "linux", flag, "0"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{err}");
    }
}

#[test]
fn hours_flags_take_units_as_kaggle_quota_prints_them() {
    let cap = |measured: &str| {
        kgadvise()
            .args([
                "cap",
                "--measured",
                measured,
                "--json",
                "--now",
                "2026-12-01",
            ])
            .output()
            .unwrap()
    };
    let plain = json_of(&cap("4.5"));
    assert_eq!(json_of(&cap("4.5h")), plain);
    assert_eq!(json_of(&cap("270m")), plain);
    assert_eq!(json_of(&cap("4h30m")), plain);
    let out = cap("4.5x");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--measured") && stderr.contains("give hours as a number"),
        "{stderr}"
    );
}

/// The link `--share-url` prints (on stderr with `--json`) for a command line (words split on spaces).
fn shared_link(command_line: &str, stdin: &str) -> String {
    let out = kgadvise()
        .args(command_line.split_whitespace())
        .args(["--json", "--share-url", "http://advisor.test/"])
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("share: "))
        .unwrap_or_else(|| panic!("no link in: {stderr}"))
        .to_string()
}

#[test]
fn share_links_hold_the_typed_fields_by_their_request_keys() {
    // Numbers as core prints them, a flag as `true`, the struct's order; defaults and absent values out.
    assert_eq!(
        shared_link("cap --fold-hours 4 --folds 7 --tpu", ""),
        "http://advisor.test/?page=cap&foldHours=4&folds=7&tpu=true"
    );
    assert_eq!(
        shared_link(
            "inference --item-seconds 0.9 --test-items 40000 --timed-items 40000 --limit-hours 90m \
             --platform t4x2",
            ""
        ),
        "http://advisor.test/?page=inference&itemSeconds=0.9&testItems=40000&limitHours=1.5\
         &timedItems=40000&platform=t4x2"
    );
    // The file texts and the threshold overrides stay out; --now goes last.
    let quota = std::fs::read_to_string(kgadvise_tests::fixture("quota/cli.json")).unwrap();
    assert_eq!(
        shared_link(
            "plan --deadline 2026-10-06 --quota - --fold-hours 1.5 --folds 5 \
             --set plan.screens-per-promotion=3 --now 2026-09-18T12:00:00Z",
            &quota
        ),
        "http://advisor.test/?page=plan&deadline=2026-10-06&foldHours=1.5&folds=5\
         &now=2026-09-18T12%3A00%3A00Z"
    );
    // The entry as the answer names it.
    assert_eq!(
        shared_link("explain kh001", ""),
        "http://advisor.test/?page=rules&id=KH001"
    );
}

//! Exit-code and message audit: every CLI error path found (missing and unreadable files, folders, bad
//! flag values, negative and non-finite numbers, unknown identifiers, `--set` names and values, `--now`
//! for every command) exits 2 with a message that names the input and says what was expected; with
//! --json the same message is a `kgadvise.error/1` object on stdout. Never a panic.

use kgadvise_tests::{fixture, json_of, kgadvise, workspace_root};

const NOW: &str = "2026-09-15T12:00:00Z";

/// Runs one error case twice (text and --json) and checks the contract; `names` are substrings the
/// message must hold (the input: a flag, a path, a value), `expects` what it says was expected.
fn assert_usage_error(args: &[&str], names: &[&str], expects: &str) {
    let label = args.join(" ");
    let out = kgadvise().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{label}: exit {:?}\n{stderr}",
        out.status.code()
    );
    assert!(!stderr.contains("panicked"), "{label}: panic\n{stderr}");
    for n in names {
        assert!(
            stderr.contains(n),
            "{label}: the message does not name {n:?}\n{stderr}"
        );
    }
    assert!(
        stderr.contains(expects),
        "{label}: the message does not say {expects:?}\n{stderr}"
    );
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let out = kgadvise().args(&with_json).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{label} --json");
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.error/1", "{label} --json: {v}");
    let msg = v["error"].as_str().unwrap_or_default();
    for n in names {
        assert!(
            msg.contains(n),
            "{label} --json: the error does not name {n:?}: {msg}"
        );
    }
}

fn p(rel: &str) -> String {
    fixture(rel).display().to_string()
}

fn m(rel: &str) -> String {
    workspace_root()
        .join("tests")
        .join("malformed")
        .join(rel)
        .display()
        .to_string()
}

#[test]
fn missing_and_unreadable_inputs_name_the_file() {
    let missing = "/nonexistent/kgadvise-input";
    let folder = workspace_root().join("tests").display().to_string();
    let api = p("quota/api.json");
    let kernel = p("kernel/KM016/trigger");
    let idea = p("stats/binary_idea.csv");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["quota", missing], "expected"),
        (vec!["quota", &api, "--runs", missing], "expected"),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--quota",
                missing,
                "--fold-hours",
                "1",
                "--folds",
                "5",
            ],
            "expected",
        ),
        (
            vec!["tpu", "--t4-hours", "3", "--quota", missing],
            "expected",
        ),
        (vec!["check", missing], "expected a kernel folder"),
        (vec!["check", &folder], "expected a kernel folder"),
        (vec!["check", &kernel, "--quota", missing], "expected"),
        (vec!["collect", missing], "expected kgkit's kg_run.json"),
        (vec!["collect", &folder], "expected kgkit's kg_run.json"),
        (vec!["diagnose", missing], "expected"),
        (vec!["diagnose", &folder], "expected"),
        (
            vec![
                "compare",
                "--idea",
                missing,
                "--control",
                &idea,
                "--metric",
                "auc",
            ],
            "expected",
        ),
        (
            vec![
                "compare",
                "--idea",
                &idea,
                "--control",
                missing,
                "--metric",
                "auc",
            ],
            "expected",
        ),
        (
            vec![
                "compare",
                "--idea",
                &idea,
                "--control",
                &idea,
                "--metric",
                "auc",
                "--folds",
                missing,
            ],
            "expected",
        ),
        (
            vec!["prune", "--baseline", missing, "--current", missing],
            "expected",
        ),
        (vec!["fidelity", missing], "expected"),
        (vec!["fidelity", &folder], "expected"),
    ];
    for (args, expects) in cases {
        let name = if args.contains(&missing) {
            missing
        } else {
            folder.as_str()
        };
        let mut all = args.clone();
        all.extend(["--now", NOW]);
        assert_usage_error(&all, &[name], expects);
    }
}

#[test]
fn bad_flag_values_name_the_flag_and_what_was_expected() {
    let kernel = p("kernel/KM016/trigger");
    let api = p("quota/api.json");
    let nv = m("nvsmi/crlf.csv");
    let idea = p("stats/binary_idea.csv");
    let curve = m("prune/no-points.json");
    // (args, what the message names, what it says was expected)
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (vec!["matrix", "--platform", "nope"], "nope", "valid values"),
        (
            vec!["matrix", "--capability", "nope"],
            "nope",
            "valid values",
        ),
        (vec!["defaults", "nope"], "nope", "valid values"),
        (
            vec!["defaults", "images", "--platform", "nope"],
            "nope",
            "valid values",
        ),
        (
            vec!["worth-gpu", "--task", "nope", "--rows", "10"],
            "nope",
            "valid values",
        ),
        (vec!["explain", "KZ999"], "KZ999", "expected a rule code"),
        (
            vec![
                "compare",
                "--idea",
                &idea,
                "--control",
                &idea,
                "--metric",
                "nope",
            ],
            "nope",
            "valid values",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "-5",
                "--fold-hours",
                "1",
                "--folds",
                "5",
            ],
            "--gpu-remaining -5",
            "expected",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "inf",
                "--fold-hours",
                "1",
                "--folds",
                "5",
            ],
            "--gpu-remaining inf",
            "expected",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "5",
                "--fold-hours",
                "NaN",
                "--folds",
                "5",
            ],
            "--fold-hours NaN",
            "expected",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "5",
                "--fold-hours",
                "0",
                "--folds",
                "5",
            ],
            "--fold-hours 0",
            "expected",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "5",
                "--fold-hours",
                "1",
                "--folds",
                "0",
            ],
            "--folds 0",
            "expected",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "5",
                "--fold-hours",
                "1",
                "--folds",
                "5",
                "--weekly-hours",
                "-1",
            ],
            "--weekly-hours",
            "expected",
        ),
        (vec!["cap", "--measured", "-1"], "--measured -1", "expected"),
        (
            vec!["cap", "--measured", "1", "--factor", "0"],
            "--factor 0",
            "expected",
        ),
        (
            vec!["cap", "--fold-hours", "1", "--folds", "5", "--gpus", "0"],
            "--gpus",
            "expected",
        ),
        (vec!["tpu", "--t4-hours", "-3"], "--t4-hours -3", "expected"),
        (
            vec!["tpu", "--t4-hours", "3", "--queue-hours", "-1"],
            "--queue-hours",
            "expected",
        ),
        (
            vec!["check", &kernel, "--plannable", "-1"],
            "--plannable -1",
            "expected",
        ),
        (
            vec!["diagnose", &nv, "--interval-s", "0"],
            "--interval-s 0",
            "expected",
        ),
        (
            vec!["diagnose", &nv, "--interval-s", "-1"],
            "--interval-s -1",
            "expected",
        ),
        (
            vec![
                "diagnose",
                "--data-rate",
                "nan",
                "--compute-rate",
                "1",
                "--loop-rate",
                "1",
            ],
            "--data-rate",
            "expected",
        ),
        (vec!["sample", "--seconds", "0"], "--seconds 0", "expected"),
        (
            vec!["sample", "--interval-ms", "0"],
            "--interval-ms 0",
            "expected",
        ),
        (
            vec![
                "compare",
                "--idea",
                &idea,
                "--control",
                &idea,
                "--metric",
                "auc",
                "--resamples",
                "1",
            ],
            "--resamples 1",
            "expected",
        ),
        (
            vec![
                "prune",
                "--baseline",
                &curve,
                "--current",
                &curve,
                "--margin",
                "-1",
            ],
            "--margin -1",
            "expected",
        ),
        (
            vec![
                "prune",
                "--baseline",
                &curve,
                "--current",
                &curve,
                "--min-frac",
                "2",
            ],
            "--min-frac 2",
            "expected",
        ),
        (
            vec!["quota", &api, "--read-at", "yesterday"],
            "yesterday",
            "expected RFC 3339",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "soon",
                "--gpu-remaining",
                "5",
                "--fold-hours",
                "1",
                "--folds",
                "5",
            ],
            "--deadline",
            "expected RFC 3339",
        ),
        (
            vec![
                "plan",
                "--deadline",
                "2026-09-30",
                "--gpu-remaining",
                "5",
                "--fold-hours",
                "1",
                "--folds",
                "5",
                "--refresh-at",
                "soon",
            ],
            "--refresh-at",
            "expected RFC 3339",
        ),
        (
            vec!["tpu", "--t4-hours", "3", "--refresh-at", "soon"],
            "--refresh-at",
            "expected RFC 3339",
        ),
    ];
    for (args, name, expects) in cases {
        let mut all = args.clone();
        all.extend(["--now", NOW]);
        assert_usage_error(&all, &[name], expects);
    }
}

#[test]
fn clap_parse_errors_exit_2_and_answer_json_too() {
    // Type errors caught by the parser: clap's message names the flag and the value.
    let kernel = p("kernel/KM016/trigger");
    for (args, flag) in [
        (
            vec!["worth-gpu", "--task", "gbdt", "--rows", "abc"],
            "--rows",
        ),
        (
            vec!["worth-gpu", "--task", "gbdt", "--rows", "-5"],
            "--rows",
        ),
        (
            vec!["check", kernel.as_str(), "--running-gpu", "abc"],
            "--running-gpu",
        ),
        (
            vec!["check", kernel.as_str(), "--timeout-seconds", "-5"],
            "--timeout-seconds",
        ),
        (vec!["cap", "--measured", "lots"], "--measured"),
    ] {
        assert_usage_error(&args, &[flag], "invalid value");
    }
    // A missing required flag and an unknown subcommand.
    assert_usage_error(&["cap"], &["--measured"], "required");
    assert_usage_error(&["frobnicate"], &["frobnicate"], "unrecognized subcommand");
}

#[test]
fn every_command_refuses_a_bad_now_and_bad_set() {
    let kernel = p("kernel/KM016/trigger");
    let api = p("quota/api.json");
    let nv = m("nvsmi/crlf.csv");
    let idea = p("stats/binary_idea.csv");
    let control = p("stats/binary_control.csv");
    let ideas = p("stats/fidelity_ideas.csv");
    let run = p("kernel/KR001/trigger");
    let commands: Vec<Vec<&str>> = vec![
        vec!["matrix"],
        vec!["defaults", "images"],
        vec!["worth-gpu", "--task", "gbdt", "--rows", "1000"],
        vec![
            "inference",
            "--item-seconds",
            "0.5",
            "--test-items",
            "1000",
            "--limit-hours",
            "9",
        ],
        vec!["quota", &api],
        vec![
            "plan",
            "--deadline",
            "2026-09-30",
            "--gpu-remaining",
            "5",
            "--fold-hours",
            "1",
            "--folds",
            "5",
        ],
        vec!["cap", "--measured", "2"],
        vec!["tpu", "--t4-hours", "3"],
        vec!["explain", "KH001"],
        vec!["check", &kernel],
        vec!["collect", &run],
        vec!["diagnose", &nv],
        vec![
            "compare",
            "--idea",
            &idea,
            "--control",
            &control,
            "--metric",
            "auc",
        ],
        vec!["fidelity", &ideas],
    ];
    for args in &commands {
        // The command itself works at a fixed --now (exit 0 or 1), so the errors below come from the flags.
        let mut ok = args.clone();
        ok.extend(["--now", NOW]);
        let out = kgadvise().args(&ok).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{ok:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );

        for bad in ["garbage", "2026-13-45", "30/11/2026", ""] {
            let mut a = args.clone();
            a.extend(["--now", bad]);
            assert_usage_error(&a, &["--now"], "expected RFC 3339");
        }
        for (set, expects) in [
            ("nope.threshold=1", "valid names"),
            ("cap.factor=abc", "expected name=number"),
            ("novalue", "is not name=value"),
        ] {
            let mut a = args.clone();
            a.extend(["--now", NOW, "--set", set]);
            assert_usage_error(&a, &["--set"], expects);
        }
    }
}

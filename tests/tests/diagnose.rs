//! End-to-end: `kgadvise diagnose` and `kgadvise sample` through the real binary, against cli.md's contract,
//! every real nvidia-smi sample of tests/fixtures/realdata, and fixtures for every verdict in both polarities.

use kgadvise_core::diagnose::verdict::DiagnoseReport;
use kgadvise_core::diagnose::{DiagnoseRequest, Diagnoser};
use kgadvise_tests::{fixture, has_key_anywhere, json_of, kgadvise, realdata};

/// Core's report of a whole input given as bytes.
fn core_report(bytes: &[u8]) -> DiagnoseReport {
    let clock = "2026-12-01T00:00:00Z".parse().unwrap();
    let mut d = Diagnoser::of(&DiagnoseRequest::default(), clock).unwrap();
    d.push(bytes);
    d.finish()
}

fn diagnose(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["diagnose", "--json"];
    all.extend_from_slice(args);
    let out = kgadvise().args(&all).output().unwrap();
    (out.status.code(), json_of(&out))
}

fn verdicts(v: &serde_json::Value) -> Vec<String> {
    v["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn fx(name: &str) -> String {
    fixture(&format!("diagnose/{name}"))
        .to_string_lossy()
        .into_owned()
}

const CATEGORIES: [&str; 4] = [
    "nvidia-smi-csv",
    "nvidia-smi-table",
    "nvidia-smi-dmon",
    "nvidia-smi-query",
];

#[test]
fn every_real_sample_parses_through_core_and_cli() {
    let mut seen = 0;
    for cat in CATEGORIES {
        for path in realdata(cat) {
            seen += 1;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap();
            let core = core_report(&bytes);
            let (code, v) = diagnose(&[path.to_str().unwrap()]);
            assert_eq!(code, Some(0), "{name}: {v}");
            assert_eq!(v["schema"], "kgadvise.diagnose/1");
            // the CLI streams, the core reads a whole string: same answer
            assert_eq!(verdicts(&v), core.verdicts, "{name}");
            let vs = verdicts(&v);
            assert!(!vs.is_empty(), "{name}: no verdict at all");
            if name.starts_with("error-")
                || name.contains("not-supported")
                || name.contains("pmon")
                || name.contains("_version_")
                || name.contains("list-L")
                || name.contains("help-query")
                || name.contains("compute-apps")
            {
                assert_eq!(vs[0], "no-data", "{name}: {v}");
                let ev = v["findings"][0]["evidence"].as_str().unwrap();
                assert!(!ev.is_empty(), "{name}");
            } else if !vs.contains(&"no-data".to_string()) {
                // a utilisation log: per-GPU numbers are there
                assert!(!v["gpus"].as_array().unwrap().is_empty(), "{name}: {v}");
                assert!(v["gpus"][0]["util_mean"].is_number(), "{name}: {v}");
            }
            // no utilisation log here is long: every one is too short or a snapshot (or has no data)
            assert!(
                vs.contains(&"too-short".to_string())
                    || vs.contains(&"no-data".to_string())
                    || v["span_s"].is_null(),
                "{name}: {vs:?}"
            );
        }
    }
    assert!(seen >= 50, "only {seen} real samples");
}

#[test]
fn real_samples_give_the_right_numbers() {
    let dir = |c: &str, f: &str| {
        realdata(c)
            .into_iter()
            .find(|p| p.to_string_lossy().contains(f))
            .unwrap()
    };
    // 2x T4 Kaggle table: both idle at 0 %, 15360 MiB total, power beside utilisation
    let (_, v) = diagnose(&[dir("nvidia-smi-table", "kaggle-2xT4").to_str().unwrap()]);
    assert_eq!(verdicts(&v), ["idle", "too-short"]);
    assert_eq!(v["gpus"].as_array().unwrap().len(), 2);
    assert_eq!(v["gpus"][1]["mem_total_mib"], 15360.0);
    assert_eq!(v["gpus"][0]["power_limit_w"], 70.0);
    // repeated headers, 224 samples at ~1 s
    let (_, v) = diagnose(&[dir("nvidia-smi-csv", "rtx2070-repeated").to_str().unwrap()]);
    assert_eq!(v["gpus"][0]["samples"], 224);
    assert_eq!(v["gpus"][0]["name"], "NVIDIA GeForce RTX 2070");
    assert!(v["span_s"].as_f64().unwrap() > 200.0);
    // MIG: utilisation [N/A] is no value, never 0
    let (_, v) = diagnose(
        &[dir("nvidia-smi-table", "h100-MIG-590.48.01-cuda13.1_load")
            .to_str()
            .unwrap()],
    );
    assert!(v["gpus"][0]["util_mean"].is_null(), "{v}");
    assert_eq!(verdicts(&v)[0], "no-data");
    // table then CSV in one file
    let (_, v) = diagnose(&[dir("nvidia-smi-csv", "v100-table-then-csv")
        .to_str()
        .unwrap()]);
    assert_eq!(v["formats"], serde_json::json!(["table", "csv"]));
    assert_eq!(v["gpus"][0]["samples"], 5);
    // the two-line curly-quote driver error is one message
    let (_, v) = diagnose(&[dir("nvidia-smi-table", "2line-curlyquote")
        .to_str()
        .unwrap()]);
    let ev = v["findings"][0]["evidence"].as_str().unwrap();
    assert!(
        ev.contains("couldn't communicate") && ev.contains("Make sure"),
        "{ev}"
    );
    // dmon: sm column, 1 s default interval
    let (_, v) = diagnose(&[dir("nvidia-smi-dmon", "l40s-595.80_dmon").to_str().unwrap()]);
    assert_eq!(v["gpus"][0]["samples"], 5);
    assert_eq!(v["span_s"], 4.0);
    // -q -x v13: average power draw and current limit
    let (_, v) = diagnose(&[dir("nvidia-smi-query", "rtx3080-595.58.03")
        .to_str()
        .unwrap()]);
    assert_eq!(v["gpus"][0]["util_mean"], 65.0);
    assert_eq!(v["gpus"][0]["power_limit_w"], 320.0);
}

#[test]
fn contract_keys_are_present() {
    let (_, v) = diagnose(&[&fx("second-gpu-idle.csv")]);
    for key in [
        "schema",
        "findings",
        "verdicts",
        "gpus",
        "span_s",
        "wasted_quota_hours",
        "rules",
    ] {
        assert!(has_key_anywhere(&v, key), "missing {key}");
    }
    for key in [
        "index",
        "name",
        "samples",
        "util_mean",
        "util_p10",
        "util_p90",
        "mem_peak_mib",
        "mem_total_mib",
        "timeline",
    ] {
        assert!(v["gpus"][0].get(key).is_some(), "gpus[0] lacks {key}: {v}");
    }
    for f in v["findings"].as_array().unwrap() {
        for key in ["rule", "severity", "title", "evidence", "fix"] {
            assert!(f.get(key).is_some(), "{f}");
        }
    }
}

/// (fixture, extra args, verdicts that must hold, verdicts that must not)
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);
const CASES: &[Case] = &[
    (
        "idle-2xT4.csv",
        &[],
        &["idle"],
        &["second-gpu-idle", "input-bound", "too-short", "no-data"],
    ),
    (
        "both-busy-compute-bound.csv",
        &[],
        &["compute-bound"],
        &[
            "idle",
            "second-gpu-idle",
            "input-bound",
            "mixed",
            "too-short",
        ],
    ),
    (
        "second-gpu-idle.csv",
        &[],
        &["second-gpu-idle", "compute-bound"],
        &["idle", "input-bound"],
    ),
    (
        "input-bound.csv",
        &[],
        &["input-bound"],
        &["compute-bound", "mixed", "second-gpu-idle", "memory-bound"],
    ),
    (
        "mixed.csv",
        &[],
        &["mixed"],
        &["input-bound", "compute-bound", "memory-bound"],
    ),
    (
        "mixed.csv",
        &[
            "--data-rate",
            "400",
            "--compute-rate",
            "900",
            "--loop-rate",
            "380",
        ],
        &["input-bound"],
        &["mixed", "stalls"],
    ),
    (
        "memory-bound.csv",
        &[],
        &["memory-bound", "mixed"],
        &["idle"],
    ),
    ("mixed.csv", &["--oom"], &["memory-bound"], &[]),
    (
        "compute-bound-low-power.csv",
        &[],
        &["compute-bound"],
        &["input-bound"],
    ),
    (
        "too-short.csv",
        &[],
        &["too-short", "compute-bound"],
        &["no-data"],
    ),
    (
        "mig-na-util.csv",
        &[],
        &["no-data"],
        &["idle", "input-bound"],
    ),
    (
        "kgkit-sampler-noheader.csv",
        &[],
        &["second-gpu-idle", "compute-bound"],
        &["too-short"],
    ),
    (
        "table-loop-2xT4.txt",
        &[],
        &["memory-bound", "second-gpu-idle", "compute-bound"],
        &["too-short"],
    ),
    (
        "input-bound-crlf-bom.csv",
        &[],
        &["input-bound"],
        &["no-data"],
    ),
    (
        "input-bound-utf16le.csv",
        &[],
        &["input-bound"],
        &["no-data"],
    ),
    (
        "input-bound-utf16be.csv",
        &[],
        &["input-bound"],
        &["no-data"],
    ),
    ("binary-garbage.bin", &[], &["no-data"], &["idle"]),
];

#[test]
fn every_verdict_fires_and_stays_quiet_on_fixtures() {
    for (file, args, must, must_not) in CASES {
        let mut all = vec![fx(file)];
        all.extend(args.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, v) = diagnose(&refs);
        assert_eq!(code, Some(0), "{file}: {v}");
        let vs = verdicts(&v);
        for m in *must {
            assert!(
                vs.iter().any(|x| x == m),
                "{file} {args:?}: expected {m} in {vs:?}"
            );
        }
        for m in *must_not {
            assert!(
                !vs.iter().any(|x| x == m),
                "{file} {args:?}: {m} must not fire, got {vs:?}"
            );
        }
        // fix-first order and one finding per verdict with its rule
        let order = [
            "no-data",
            "idle",
            "memory-bound",
            "second-gpu-idle",
            "input-bound",
            "stalls",
            "compute-bound",
            "mixed",
            "too-short",
        ];
        let pos: Vec<usize> = vs
            .iter()
            .map(|x| order.iter().position(|o| o == x).unwrap())
            .collect();
        assert!(
            pos.windows(2).all(|w| w[0] < w[1]),
            "{file}: not fix-first: {vs:?}"
        );
    }
}

#[test]
fn rates_alone_stalls_and_compute() {
    let (_, v) = diagnose(&[
        "--data-rate",
        "1100",
        "--compute-rate",
        "1000",
        "--loop-rate",
        "300",
    ]);
    assert_eq!(verdicts(&v), ["stalls"]);
    let ev = v["findings"][0]["evidence"].as_str().unwrap();
    assert!(
        ev.contains("0.7") && ev.contains("threshold.verdict.stalls-ratio"),
        "{ev}"
    );
    let (_, v) = diagnose(&[
        "--data-rate",
        "1100",
        "--compute-rate",
        "1000",
        "--loop-rate",
        "800",
    ]);
    assert!(verdicts(&v).is_empty(), "{v}");
    let (_, v) = diagnose(&[
        "--data-rate",
        "1100",
        "--compute-rate",
        "1000",
        "--loop-rate",
        "950",
    ]);
    assert_eq!(verdicts(&v), ["compute-bound"]);
    // threshold override
    let (_, v) = diagnose(&[
        "--data-rate",
        "1100",
        "--compute-rate",
        "1000",
        "--loop-rate",
        "800",
        "--set",
        "verdict.stalls-ratio=0.9",
    ]);
    assert_eq!(verdicts(&v), ["stalls"]);
}

#[test]
fn waste_and_low_power_confidence() {
    let (_, v) = diagnose(&[&fx("second-gpu-idle.csv")]);
    let w = v["wasted_quota_hours"].as_f64().unwrap();
    assert!(
        (w - 1.0).abs() < 0.02,
        "2 h with one of two T4s idle wastes 1 h, got {w}"
    );
    let (_, v) = diagnose(&[&fx("idle-2xT4.csv")]);
    assert!(
        (v["wasted_quota_hours"].as_f64().unwrap() - 0.75).abs() < 0.02,
        "{v}"
    );
    let (_, v) = diagnose(&[&fx("compute-bound-low-power.csv")]);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "KV052")
        .unwrap()
        .clone();
    assert!(
        f["title"].as_str().unwrap().contains("low confidence"),
        "{f}"
    );
    let (_, v) = diagnose(&[&fx("both-busy-compute-bound.csv")]);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "KV007")
        .unwrap()
        .clone();
    assert!(
        !f["title"].as_str().unwrap().contains("low confidence"),
        "{f}"
    );
}

#[test]
fn malformed_lines_are_named_never_a_panic() {
    let (code, v) = diagnose(&[&fx("malformed-truncated.csv")]);
    assert_eq!(code, Some(0));
    assert_eq!(v["gpus"][0]["samples"], 40, "{v}");
    let lines: Vec<u64> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [6, 11, 16, 45], "{v}");
    let msgs = v["diagnostics"].to_string();
    assert!(msgs.contains("expected 9 comma-separated fields"), "{msgs}");
    assert!(
        msgs.contains("utilization.gpu): expected a number, found `abc %`"),
        "{msgs}"
    );
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "KV010")
    );
    // binary garbage through stdin
    let bytes = std::fs::read(fx("binary-garbage.bin")).unwrap();
    let out = kgadvise()
        .args(["diagnose", "-", "--json"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(verdicts(&json_of(&out)), ["no-data"]);
}

#[test]
fn fields_and_interval_flags() {
    let real = realdata("nvidia-smi-csv");
    let i3 = real
        .iter()
        .find(|p| p.to_string_lossy().contains("NA-new-driver"))
        .unwrap();
    let (_, v) = diagnose(&[i3.to_str().unwrap()]);
    assert_eq!(verdicts(&v), ["no-data"]);
    assert!(
        v["diagnostics"]
            .to_string()
            .contains("give the --query-gpu field list"),
        "{v}"
    );
    let fields = "memory.total,memory.free,memory.used,temperature.gpu,fan.speed,utilization.gpu,utilization.memory";
    let (_, v) = diagnose(&[i3.to_str().unwrap(), "--fields", fields]);
    assert_eq!(v["gpus"][0]["util_mean"], 0.0, "{v}");
    assert_eq!(v["gpus"][0]["mem_total_mib"], 2004.0);
    // no timestamps: span unknown until --interval-s
    let v100 = real
        .iter()
        .find(|p| p.to_string_lossy().contains("v100"))
        .unwrap();
    let (_, v) = diagnose(&[v100.to_str().unwrap()]);
    assert!(v["span_s"].is_null());
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "KV011")
    );
    let (_, v) = diagnose(&[v100.to_str().unwrap(), "--interval-s", "600"]);
    assert_eq!(v["span_s"], 2400.0, "{v}");
    let out = kgadvise()
        .args(["diagnose", "--interval-s", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = kgadvise()
        .args(["diagnose", "/nonexistent/gpu.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/gpu.csv"));
}

#[test]
fn human_output_has_table_and_sparkline() {
    let out = kgadvise()
        .args(["diagnose", &fx("second-gpu-idle.csv")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Verdicts (fix first): second-gpu-idle, compute-bound"),
        "{text}"
    );
    assert!(
        text.contains("Tesla T4") && text.contains("util %"),
        "{text}"
    );
    assert!(text.contains('▇') || text.contains('█'), "{text}");
    assert!(text.contains('▁'), "{text}");
}

#[test]
fn sample_runs_a_fake_nvidia_smi() {
    let dir = std::env::temp_dir().join(format!("kgadvise-sample-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args_file = dir.join("args.txt");
    let save = dir.join("raw.csv");
    let out = kgadvise()
        .env("KGADVISE_NVIDIA_SMI", fx("fake-nvidia-smi.sh"))
        .env("FAKE_NVSMI_ARGS", &args_file)
        .args([
            "sample",
            "--seconds",
            "1",
            "--interval-ms",
            "250",
            "--save",
            save.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(v["schema"], "kgadvise.diagnose/1");
    assert_eq!(verdicts(&v)[0], "second-gpu-idle", "{v}");
    assert_eq!(v["gpus"].as_array().unwrap().len(), 2);
    let args = std::fs::read_to_string(&args_file).unwrap();
    assert!(
        args.contains("--query-gpu=timestamp,index,name,utilization.gpu")
            && args.contains("-lms 250"),
        "{args}"
    );
    assert!(
        std::fs::read_to_string(&save)
            .unwrap()
            .starts_with("timestamp, index")
    );
    // nvidia-smi's own error becomes no-data
    let out = kgadvise()
        .env("KGADVISE_NVIDIA_SMI", fx("fake-nvidia-smi-no-devices.sh"))
        .args(["sample", "--seconds", "5", "--json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(verdicts(&v), ["no-data"]);
    assert!(
        v["findings"][0]["evidence"]
            .as_str()
            .unwrap()
            .contains("No devices were found")
    );
    // absent nvidia-smi: exit 2 with a clear message
    let out = kgadvise()
        .env("KGADVISE_NVIDIA_SMI", dir.join("no-such-nvidia-smi"))
        .args(["sample", "--seconds", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not found") && err.contains("KGADVISE_NVIDIA_SMI"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `diagnose --json` of a file read by `threads` workers (`KGADVISE_THREADS`): the whole report, timeline
/// included, which must not depend on the number of threads.
fn diagnose_with_threads(path: &std::path::Path, threads: &str) -> serde_json::Value {
    let out = kgadvise()
        .env("KGADVISE_THREADS", threads)
        .args([
            "diagnose",
            path.to_str().unwrap(),
            "--json",
            "--now",
            "2026-12-01",
        ])
        .output()
        .unwrap();
    json_of(&out)
}

#[test]
fn large_files_read_in_parallel_give_the_sequential_answer() {
    // > 32 MiB so the CLI takes its parallel reader; a repeated header, a bad row and a pasted table inside.
    let path = std::env::temp_dir().join(format!("kgadvise-parallel-{}.csv", std::process::id()));
    let mut text = String::from(
        "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n",
    );
    let mut s = 0u64;
    while text.len() < 34 << 20 {
        let (h, m, sec) = (s / 3600 % 24, s / 60 % 60, s % 60);
        text.push_str(&format!(
            "2026/11/28 {h:02}:{m:02}:{sec:02}.000, 0, Tesla T4, {}, {}, 15360\n",
            50 + s % 50,
            9000 + s % 999
        ));
        text.push_str(&format!(
            "2026/11/28 {h:02}:{m:02}:{sec:02}.000, 1, Tesla T4, {}, 3, 15360\n",
            s % 3
        ));
        s += 1;
        if s == 200_000 {
            text.push_str("timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n");
        }
        if s == 300_000 {
            text.push_str("2026/11/28 10:00:00.000, 0, Tes\n+-------+\n");
        }
    }
    std::fs::write(&path, &text).unwrap();
    let (seq, par) = (
        diagnose_with_threads(&path, "1"),
        diagnose_with_threads(&path, "3"),
    );
    let _ = std::fs::remove_file(&path);
    assert_eq!(seq, par);
    assert!(seq["gpus"][0]["timeline_step_samples"].as_u64().unwrap() > 1);
    assert_eq!(seq["diagnostics_total"], 1, "{seq}");
    assert_eq!(seq["gpus"][0]["samples"].as_u64().unwrap(), s);
}

#[test]
fn parallel_reader_handles_crlf_long_lines_invalid_utf8_and_no_final_newline() {
    // Blocks of 8 MiB end mid-line and a 9 MiB line spans a whole block: each line must be read once.
    let path =
        std::env::temp_dir().join(format!("kgadvise-parallel-odd-{}.csv", std::process::id()));
    let mut bytes: Vec<u8> =
        b"timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\r\n"
            .to_vec();
    let mut s = 0u64;
    while bytes.len() < 40 << 20 {
        let (h, m, sec) = (s / 3600 % 24, s / 60 % 60, s % 60);
        let row = format!(
            "2026/11/28 {h:02}:{m:02}:{sec:02}.{:03}, {}, Tesla T4, {} %, {} MiB, {}.{:02} W\r\n",
            s % 1000,
            s % 2,
            s % 101,
            9000 + s % 999,
            20 + s % 50,
            s % 100
        );
        bytes.extend_from_slice(row.as_bytes());
        s += 1;
        match s {
            100_000 => bytes.extend(std::iter::repeat_n(b'x', 9 << 20).chain(*b"\r\n")),
            250_000 => bytes.extend_from_slice(
                b"2026/11/28 10:00:00.000, 0, Tesla \xff\xfe, 5 %, 1 MiB, 1 W\r\n",
            ),
            300_000 => bytes
                .extend_from_slice(b"2026/11/28 10:00:00.000, 0, Tesla T4, [N/A], [N/A], [N/A]\n"),
            _ => {}
        }
    }
    bytes.extend_from_slice(b"2026/11/28 23:59:59.000, 1, Tesla T4, 99 %, 1 MiB, 1.5 W");
    std::fs::write(&path, &bytes).unwrap();
    let seq = diagnose_with_threads(&path, "1");
    let (two, three) = (
        diagnose_with_threads(&path, "2"),
        diagnose_with_threads(&path, "3"),
    );
    let _ = std::fs::remove_file(&path);
    assert_eq!(seq, two);
    assert_eq!(seq, three);
    let samples: u64 = seq["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["samples"].as_u64().unwrap())
        .sum();
    // Every row, the one with invalid bytes (replaced) and the [N/A] one included.
    assert_eq!(samples, s + 3, "{seq}");
    // The 9 MiB line is cut into 1 MiB pieces, each reported.
    assert!(seq["lines"].as_u64().unwrap() > s + 5, "{seq}");
}

/// The CSV fast path agrees bit for bit with the general reader on every line of every real sample that it
/// takes (the layout in force when the line is read), and real rows do take it.
#[test]
fn csv_fast_path_matches_the_general_reader_on_realdata() {
    let mut taken = 0;
    for cat in [
        "nvidia-smi-csv",
        "nvidia-smi-table",
        "nvidia-smi-dmon",
        "nvidia-smi-query",
    ] {
        for path in realdata(cat) {
            let bytes = std::fs::read(&path).unwrap();
            let text = kgadvise_core::text::decode_input(&bytes);
            taken += kgadvise_core::diagnose::nvsmi::fast_path_check::agreement_on(&text);
        }
    }
    assert!(taken > 100, "only {taken} real CSV rows took the fast path");
}

/// `kgadvise diagnose` reads a UTF-16 log without a BOM (recognised by its NUL bytes, as the page reads
/// it), from a file and from stdin: the same report as its UTF-8 original.
#[test]
fn a_bom_less_utf16_log_reads_as_its_utf8_original() {
    let text = std::fs::read_to_string(fx("input-bound.csv")).unwrap();
    let (_, utf8) = diagnose(&[&fx("input-bound.csv"), "--now", "2026-12-01"]);
    assert_eq!(verdicts(&utf8), ["input-bound"]);
    for le in [true, false] {
        let bytes: Vec<u8> = text
            .encode_utf16()
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect();
        let path =
            std::env::temp_dir().join(format!("kgadvise-utf16-{le}-{}.csv", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let (code, v) = diagnose(&[path.to_str().unwrap(), "--now", "2026-12-01"]);
        let _ = std::fs::remove_file(&path);
        assert_eq!(code, Some(0));
        assert_eq!(v, utf8, "UTF-16 {}", if le { "LE" } else { "BE" });
        let out = kgadvise()
            .args(["diagnose", "-", "--json", "--now", "2026-12-01"])
            .write_stdin(bytes)
            .output()
            .unwrap();
        assert_eq!(json_of(&out), utf8);
    }
}

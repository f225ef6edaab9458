use super::*;
use crate::text::when::{DateRole, parse_time, rfc3339};
use proptest::prelude::*;
use serde_json::Value;

fn at(s: &str) -> DateTime<Utc> {
    parse_time(s, DateRole::Instant).unwrap()
}

fn t() -> Thresholds {
    Thresholds::defaults()
}

fn rules_of(r: &QuotaReport) -> Vec<&str> {
    r.findings.iter().map(|f| f.rule.as_str()).collect()
}

const TABLE: &str = "resource  used   remaining  total   refreshAt            \n\
--------  -----  ---------  ------  -------------------  \n\
GPU       2.42h  27.58h     30.00h  2026-09-19T00:00:00  \n\
TPU       0.00h  20.00h     20.00h  2026-09-19T00:00:00  \n";

#[test]
fn every_form_is_read() {
    // (name, text, form, gpu (used, remaining, total), tpu remaining, refresh)
    type Case<'a> = (
        &'a str,
        String,
        QuotaForm,
        Option<(f64, f64, f64)>,
        Option<f64>,
        Option<&'a str>,
    );
    let cases: Vec<Case> = vec![
        ("table with trailing blanks", TABLE.to_string(), QuotaForm::Table, Some((2.42, 27.58, 30.0)), Some(20.0), Some("2026-09-19T00:00:00Z")),
        (
            "CSV CRLF after a warning line",
            "Warning: Looks like you're using an outdated `kaggle` version (installed: 2.1.2), please consider upgrading to the latest version (2.2.2)\r\nresource,used,remaining,total,refreshAt\r\nGPU,19.55h,10.45h,30.00h,2026-09-19T00:00:00\r\nTPU,0.00h,20.00h,20.00h,2026-09-19T00:00:00\r\n".to_string(),
            QuotaForm::Csv,
            Some((19.55, 10.45, 30.0)),
            Some(20.0),
            Some("2026-09-19T00:00:00Z"),
        ),
        (
            "CSV with \\r\\r\\n (Windows text-mode stdout)",
            "resource,used,remaining,total,refreshAt\r\r\nGPU,0.22h,29.78h,30.00h,2026-08-29T00:00:00\r\r\n".to_string(),
            QuotaForm::Csv,
            Some((0.22, 29.78, 30.0)),
            None,
            Some("2026-08-29T00:00:00Z"),
        ),
        (
            "CSV with empty refreshAt, over quota",
            "resource,used,remaining,total,refreshAt\nGPU,31.20h,0.00h,30.00h,\n".to_string(),
            QuotaForm::Csv,
            Some((31.2, 0.0, 30.0)),
            None,
            None,
        ),
        (
            "CSV projection (resource,remaining)",
            "resource,remaining\nGPU,10.45h\n".to_string(),
            QuotaForm::Csv,
            Some((19.55, 10.45, 30.0)),
            None,
            None,
        ),
        (
            "table without refreshAt value",
            "resource  used   remaining  total   refreshAt  \n--------  -----  ---------  ------  ---------  \nGPU       2.42h  27.58h     30.00h             \n".to_string(),
            QuotaForm::Table,
            Some((2.42, 27.58, 30.0)),
            None,
            None,
        ),
        (
            "--format json with strings",
            r#"[{"resource": "GPU", "used": "19.55h", "remaining": "10.45h", "total": "30.00h", "refreshAt": "2026-09-19T00:00:00"}, {"resource": "TPU", "used": "0.00h", "remaining": "20.00h", "total": "20.00h", "refreshAt": "2026-09-19T00:00:00"}]"#.to_string(),
            QuotaForm::CliJson,
            Some((19.55, 10.45, 30.0)),
            Some(20.0),
            Some("2026-09-19T00:00:00Z"),
        ),
        (
            "--format json with numbers",
            r#"[{"resource": "GPU", "used": 19.55, "remaining": 10.45, "total": 30, "refreshAt": "2026-09-19T00:00:00Z"}]"#.to_string(),
            QuotaForm::CliJson,
            Some((19.55, 10.45, 30.0)),
            None,
            Some("2026-09-19T00:00:00Z"),
        ),
        (
            "API payload",
            r#"{"quotaRefreshTime": "2026-09-19T00:00:00Z", "gpuQuota": {"timeUsed": "36905.6s", "timeReserved": "7200s", "totalTimeAllowed": "108000s"}, "tpuQuota": {"totalTimeAllowed": "72000s"}}"#.to_string(),
            QuotaForm::ApiPayload,
            Some((10.2516, 19.7484, 30.0)),
            Some(20.0),
            Some("2026-09-19T00:00:00Z"),
        ),
        (
            "kgkit cache",
            "{\n \"used_h\": 19.55,\n \"remaining_h\": 10.45,\n \"total_h\": 30.0,\n \"refresh_at\": \"2026-09-19T00:00:00Z\",\n \"fetched_at\": \"2026-09-15T08:00:00Z\"\n}".to_string(),
            QuotaForm::KgkitCache,
            Some((19.55, 10.45, 30.0)),
            None,
            Some("2026-09-19T00:00:00Z"),
        ),
        (
            "kgkit cache with null refresh_at",
            r#"{"used_h": 1, "remaining_h": 29, "total_h": 30, "refresh_at": null, "fetched_at": "2026-09-15T08:00:00Z"}"#.to_string(),
            QuotaForm::KgkitCache,
            Some((1.0, 29.0, 30.0)),
            None,
            None,
        ),
    ];
    for (name, text, form, gpu, tpu, refresh) in cases {
        let r = read_quota(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.form, form, "{name}");
        match gpu {
            Some((u, rem, tot)) => {
                let g = r.gpu.as_ref().unwrap_or_else(|| panic!("{name}: no GPU"));
                assert!(
                    (g.used - u).abs() < 1e-3
                        && (g.remaining - rem).abs() < 1e-3
                        && (g.total - tot).abs() < 1e-9,
                    "{name}: {g:?}"
                );
                assert_eq!(g.refresh_at.map(rfc3339).as_deref(), refresh, "{name}");
            }
            None => assert!(r.gpu.is_none(), "{name}"),
        }
        assert_eq!(r.tpu.as_ref().map(|q| q.remaining), tpu, "{name}");
    }
}

#[test]
fn api_reserved_and_fetched_at_are_kept() {
    let r = read_quota(r#"{"gpuQuota": {"timeUsed": "0s", "timeReserved": "151.500s", "totalTimeAllowed": "108000s"}}"#).unwrap();
    let g = r.gpu.unwrap();
    assert!((g.reserved.unwrap() - 151.5 / 3600.0).abs() < 1e-9);
    let r = read_quota(
        r#"{"used_h": 1, "remaining_h": 29, "total_h": 30, "fetched_at": "2026-09-15T08:00:00"}"#,
    )
    .unwrap();
    assert_eq!(
        r.fetched_at.map(rfc3339).as_deref(),
        Some("2026-09-15T08:00:00Z")
    );
}

#[test]
fn no_info_and_banner() {
    let r = read_quota("No quota information available\n").unwrap();
    assert_eq!(r.form, QuotaForm::NoInfo);
    assert!(r.gpu.is_none() && r.tpu.is_none());
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-15T10:00:00Z"), &t());
    assert_eq!(rules_of(&rep), vec!["KQ005"]);

    let banner = "Accelerator Quota Exceeded\nYou've exceeded the number of hours allowed to use GPU. Your quota will reset to 30 hours in 2 days. You can continue working in this session until you've reached your 9 hour limit.";
    let r = read_quota(banner).unwrap();
    assert_eq!(r.form, QuotaForm::UiBanner);
    assert_eq!(r.reset_in_days, Some(2.0));
    let g = r.gpu.as_ref().unwrap();
    assert_eq!((g.remaining, g.total), (0.0, 30.0));
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-15T10:00:00Z"), &t());
    assert_eq!(rep.gpu.as_ref().unwrap().refresh_at, "2026-09-17T10:00:00Z");
    assert!(rules_of(&rep).contains(&"KQ006"));
}

#[test]
fn malformed_input_names_the_line_and_what_was_expected() {
    // (text, line, words the message must contain)
    let cases: &[(&str, Option<usize>, &[&str])] = &[
        ("", None, &["empty", "expected"]),
        ("hello world\nfoo\n", Some(1), &["header", "resource"]),
        (
            "resource,used,remaining,total,refreshAt\n",
            Some(1),
            &["no GPU or TPU row", "expected rows like"],
        ),
        (
            "resource,used,remaining,total,refreshAt\nGPU,abc,27.58h,30.00h,2026-09-19T00:00:00\n",
            Some(2),
            &["`used`", "`abc`", "expected"],
        ),
        (
            "resource,used,remaining,total,refreshAt\nGPU,2.42h,27.58h,30.00h,2026-19-45T00:00:00\n",
            Some(2),
            &["refreshAt", "2026-19-45", "expected ISO 8601"],
        ),
        (
            "resource,used,remaining,total,refreshAt\nGPU,-2h,27.58h,30.00h,\n",
            Some(2),
            &["non-negative"],
        ),
        (
            "resource,used,total\nGPU,,\n",
            Some(2),
            &["expected `remaining`"],
        ),
        (
            "resource  used   remaining  total   refreshAt\nGPU       2.42h\n",
            Some(2),
            &["fields", "expected"],
        ),
        (
            r#"{"gpuQuota": {"timeUsed": "12x", "totalTimeAllowed": "108000s"}}"#,
            None,
            &["timeUsed", "12x", "protobuf duration"],
        ),
        (
            r#"{"gpuQuota": {"timeUsed": "12s"}}"#,
            None,
            &["totalTimeAllowed"],
        ),
        (
            r#"{"quotaRefreshTime": "tomorrow", "gpuQuota": {"totalTimeAllowed": "1s"}}"#,
            None,
            &["quotaRefreshTime", "tomorrow"],
        ),
        (
            r#"{"used_h": "lots", "remaining_h": 1, "total_h": 30}"#,
            None,
            &["used_h", "lots"],
        ),
        (
            r#"{"used_h": 1, "remaining_h": 1, "total_h": 30, "fetched_at": "yesterday"}"#,
            None,
            &["fetched_at"],
        ),
        ("{\"a\": 1}", None, &["gpuQuota", "used_h"]),
        (
            "{\n  \"gpuQuota\": {\n",
            Some(3),
            &["not valid JSON", "column"],
        ),
        ("[1, 2]", None, &["item 1", "expected an object"]),
        ("[]", None, &["no GPU or TPU item"]),
        (
            r#"[{"resource": "GPU", "used": true, "total": 30}]"#,
            None,
            &["item 1", "`used`"],
        ),
        (
            "Accelerator Quota Exceeded\nsomething else",
            None,
            &["reset to"],
        ),
        // the malformed-input corpus (tests/malformed/quota of the main branch)
        (
            r#"[{"resource": "GPU", "used": 1e308, "remaining": 1e308, "total": 1e308, "refreshAt": "2026-09-19T00:00:00"}]"#,
            None,
            &["item 1", "expected hours between 0 and 168"],
        ),
        (
            r#"{"gpuQuota": {"timeUsed": "1e12s", "totalTimeAllowed": "108000s"}}"#,
            None,
            &["timeUsed", "between 0 and 168"],
        ),
        (
            r#"{"quotaRefreshTime": "2026-09-19T00:00:00Z", "gpuQuota": {"timeUsed": "-5s", "totalTimeAllowed": "108000s"}}"#,
            None,
            &["timeUsed", "-5s"],
        ),
        (
            "resource,used,remaining,total,refreshAt\r\nGPU,2.42h,27.58h,30.00h,19/09/2026\r\n",
            Some(2),
            &["19/09/2026", "expected ISO 8601"],
        ),
        (
            "resource,used\r\nGPU,2.42h\r\n",
            Some(2),
            &["expected `remaining`"],
        ),
        (
            "resource,used,remaining,total,refreshAt\r\nFPGA,1.00h,2.00h,3.00h,2026-09-19T00:00:00\r\n",
            Some(1),
            &["no GPU or TPU row"],
        ),
        (
            r#"[{"resource": "GPU", "used": "19.55h", "remaining": "10.4"#,
            Some(1),
            &["not valid JSON", "column"],
        ),
        (
            r#"{"used_h": 3.5}"#,
            None,
            &["used_h, remaining_h, total_h"],
        ),
        (
            "resource  used   remaining  total   refreshAt            \n--------  -----  ---------  ------  -------------------  \nGPU       2.42h  27.5",
            Some(3),
            &["3 fields", "refreshAt"],
        ),
        (
            "I think I have about ten hours left this week?\n",
            Some(1),
            &["header"],
        ),
        ("\u{0}\u{1}\u{2}abc\u{3}", None, &["binary data"]),
    ];
    for (text, line, words) in cases {
        let e = read_quota(text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} was read"));
        assert_eq!(e.line, *line, "{text:?}: {e}");
        let msg = e.to_string();
        for w in *words {
            assert!(msg.contains(w), "{text:?}: `{msg}` lacks `{w}`");
        }
    }
}

#[test]
fn utf16_and_bom_are_decoded() {
    let text = "resource,used,remaining,total,refreshAt\r\nGPU,2.42h,27.58h,30.00h,2026-09-19T00:00:00\r\n";
    let mut le = vec![0xFF, 0xFE];
    le.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let mut be = vec![0xFE, 0xFF];
    be.extend(text.encode_utf16().flat_map(|u| u.to_be_bytes()));
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend(text.as_bytes());
    for bytes in [le, be, bom] {
        let r = read_quota(&decode_text(&bytes)).unwrap();
        assert_eq!(r.gpu.unwrap().remaining, 27.58);
    }
}

#[test]
fn hours_and_durations() {
    assert_eq!(parse_hours("10.45h"), Ok(10.45));
    assert_eq!(parse_hours(" 10.45 h "), Ok(10.45));
    assert_eq!(parse_hours("7"), Ok(7.0));
    assert!(parse_hours("NaNh").is_err());
    assert!(parse_hours("inf").is_err());
    assert!((parse_duration_hours(&Value::from("71094.4s")).unwrap() - 19.748_444).abs() < 1e-5);
    assert_eq!(parse_duration_hours(&Value::from("0s")), Ok(0.0));
    assert!(parse_duration_hours(&Value::from("71094.4")).is_err());
    assert!(parse_duration_hours(&Value::from("-3s")).is_err());
    assert!(parse_duration_hours(&Value::Bool(true)).is_err());
}

#[test]
fn rolled_over_week_gives_full_hours_and_says_so() {
    let r = read_quota(
        "resource,used,remaining,total,refreshAt\nGPU,25.00h,5.00h,30.00h,2026-11-28T00:00:00\n",
    )
    .unwrap();
    // exactly at the reset: rolled over
    for now in [
        "2026-11-28T00:00:00Z",
        "2026-12-01T08:00:00Z",
        "2026-12-04T23:59:59Z",
    ] {
        let rep = quota_state(&r, None, Observed::Now, at(now), &t());
        let g = rep.gpu.unwrap();
        assert!(g.rolled_over, "{now}");
        assert_eq!(
            (g.used, g.remaining, g.plannable),
            (0.0, 30.0, 30.0),
            "{now}"
        );
        assert_eq!(g.refresh_at, "2026-12-05T00:00:00Z", "{now}");
        assert!(rep.findings.iter().any(|f| f.rule == "KQ002"));
    }
    // two weeks later: still the next Saturday
    let rep = quota_state(&r, None, Observed::Now, at("2026-12-13T01:00:00Z"), &t());
    assert_eq!(rep.gpu.unwrap().refresh_at, "2026-12-19T00:00:00Z");
    // just before the reset: not rolled over
    let rep = quota_state(&r, None, Observed::Now, at("2026-11-27T23:59:59Z"), &t());
    let g = rep.gpu.unwrap();
    assert!(!g.rolled_over);
    assert_eq!(g.remaining, 5.0);
    assert!(!rep.findings.iter().any(|f| f.rule == "KQ002"));
}

#[test]
fn live_and_not_live() {
    let cache = r#"{"used_h": 19.55, "remaining_h": 10.45, "total_h": 30, "refresh_at": "2026-09-19T00:00:00Z", "fetched_at": "2026-09-13T10:00:00Z"}"#;
    let r = read_quota(cache).unwrap();
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-15T10:00:00Z"), &t());
    assert!(!rep.live);
    assert_eq!(rep.age_minutes, Some(2880.0));
    let f = rep.findings.iter().find(|f| f.rule == "KQ001").unwrap();
    assert!(f.evidence.contains("2.0 days"), "{}", f.evidence);
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-13T10:10:00Z"), &t());
    assert!(rep.live);
    assert!(!rep.findings.iter().any(|f| f.rule == "KQ001"));
    // a saved CSV read an hour ago / read now / unknown
    let csv = read_quota(TABLE).unwrap();
    let now = at("2026-09-15T10:00:00Z");
    assert!(
        !quota_state(
            &csv,
            None,
            Observed::At(at("2026-09-15T09:00:00Z")),
            now,
            &t()
        )
        .live
    );
    assert!(
        quota_state(
            &csv,
            None,
            Observed::At(at("2026-09-15T09:50:00Z")),
            now,
            &t()
        )
        .live
    );
    assert!(quota_state(&csv, None, Observed::Now, now, &t()).live);
    assert!(!quota_state(&csv, None, Observed::Unknown, now, &t()).live);
}

const RUNS: &str = r#"{"kernel": "me/a-train", "accelerator": "NvidiaTeslaT4", "hours": 5, "pushed_at": "2026-09-15T07:00:00Z", "status": "running"}
{"kernel": "me/b-train", "accelerator": "NvidiaTeslaT4", "pushed_at": "2026-09-15T09:00:00Z", "status": "queued"}
{"kernel": "me/old", "accelerator": "NvidiaTeslaT4", "hours": 3, "pushed_at": "2026-09-14T07:00:00Z", "status": "running"}
{"kernel": "me/done", "accelerator": "NvidiaTeslaT4", "hours": 3, "pushed_at": "2026-09-15T08:00:00Z", "finished_at": "2026-09-15T09:30:00Z", "status": "complete", "gpu_hours": 1.5}
{"kernel": "me/tpu", "accelerator": "TpuV5E8", "hours": 8, "pushed_at": "2026-09-15T06:00:00Z", "status": "pushed"}
not json
[1]
{"kernel": "me/c", "hours": "x", "pushed_at": "soon", "status": "collected"}
"#;

#[test]
fn runs_log_reserves_hours_and_skips_stale_entries() {
    let log = read_runs_log(RUNS);
    assert_eq!(log.runs.len(), 6);
    assert_eq!(log.diagnostics.len(), 4, "{:?}", log.diagnostics);
    // a status that is not a string reserves nothing (the corpus' runs-garbage.jsonl)
    let garbage = read_runs_log("not json\n{\"status\": 5}\n");
    assert!(garbage.runs.is_empty());
    assert!(
        garbage
            .diagnostics
            .iter()
            .any(|d| d.starts_with("line 2") && d.contains("`status` 5"))
    );
    assert!(
        log.diagnostics
            .iter()
            .any(|d| d.starts_with("line 6") && d.contains("not JSON"))
    );
    assert!(
        log.diagnostics
            .iter()
            .any(|d| d.starts_with("line 7") && d.contains("expected a JSON object"))
    );
    assert!(
        log.diagnostics
            .iter()
            .any(|d| d.starts_with("line 8") && d.contains("pushed_at"))
    );
    let now = at("2026-09-15T10:00:00Z");
    // an undated figure: counted from now
    let l = ledger(&log, None, now, &t());
    // a-train: 5 h cap, ran 3 h -> 2 h; b-train queued: its whole default 12 h cap; tpu (pushed on a
    // TPU: queued): its whole 8 h cap
    let by: Vec<(&str, f64)> = l
        .held
        .iter()
        .map(|r| (r.kernel.as_str(), r.reserved_hours))
        .collect();
    assert_eq!(
        by,
        vec![("me/a-train", 2.0), ("me/b-train", 12.0), ("me/tpu", 8.0)]
    );
    assert_eq!(l.stale.len(), 1);
    assert!(l.stale[0].contains("me/old"));

    let csv = read_quota(TABLE).unwrap();
    // the figure was read at 09:00: a-train had run 2 h of it (3 h held); me/done ran 08:00-09:30 for
    // 1.5 h, of which only the 0.5 h after the reading counts against it
    let rep = quota_state(
        &csv,
        Some(&log),
        Observed::At(at("2026-09-15T09:00:00Z")),
        now,
        &t(),
    );
    let g = rep.gpu.as_ref().unwrap();
    assert_eq!(g.spent_since_hours, 0.5);
    assert_eq!(g.remaining, 27.08);
    assert_eq!(g.reserved, 15.0);
    assert_eq!(g.plannable, 12.08);
    assert_eq!(
        rep.reservations_counted_from.as_deref(),
        Some("2026-09-15T09:00:00Z")
    );
    let tp = rep.tpu.as_ref().unwrap();
    assert_eq!((tp.reserved, tp.plannable), (8.0, 12.0));
    assert!(
        rep.findings
            .iter()
            .any(|f| f.rule == "KQ004" && f.evidence.contains("me/a-train"))
    );
    assert!(
        rep.findings
            .iter()
            .any(|f| f.rule == "KQ050" && f.evidence.contains("stale"))
    );
    assert_eq!(rep.stale_runs.len(), 1);
}

/// One run of a ledger test: a runs-log line for kernel `k`.
fn run_line(k: &str, accelerator: &str, hours: Option<f64>, pushed: &str, status: &str) -> String {
    let hours = hours
        .map(|h| format!(", \"hours\": {h}"))
        .unwrap_or_default();
    format!(
        r#"{{"kernel": "{k}", "accelerator": "{accelerator}"{hours}, "pushed_at": "{pushed}", "status": "{status}"}}"#
    )
}

fn held(text: &str, read: Option<&str>, now: &str) -> Vec<(String, f64)> {
    ledger(&read_runs_log(text), read.map(at), at(now), &t())
        .held
        .into_iter()
        .map(|r| (r.kernel, r.reserved_hours))
        .collect()
}

#[test]
fn a_running_run_holds_its_cap_less_what_it_ran_before_the_reading() {
    let log = run_line(
        "me/a",
        "NvidiaTeslaT4",
        Some(6.0),
        "2026-09-15T04:00:00Z",
        "running",
    );
    let now = "2026-09-15T10:00:00Z";
    // read at 06:00: 2 h of the 6 h cap are in the figure, 4 h held, whatever the time now
    assert_eq!(
        held(&log, Some("2026-09-15T06:00:00Z"), now),
        [("me/a".into(), 4.0)]
    );
    // read before the push: the whole cap
    assert_eq!(
        held(&log, Some("2026-09-14T06:00:00Z"), now),
        [("me/a".into(), 6.0)]
    );
    // undated: counted from now (6 h ran: nothing left)
    assert_eq!(held(&log, None, now), [("me/a".into(), 0.0)]);
}

#[test]
fn a_queued_job_holds_its_whole_cap_for_its_whole_wait() {
    // queued 20 h ago with a 4 h cap: past cap + 1 h, but a TPU queue lasts up to 24 h
    let log = run_line(
        "me/q",
        "TpuV5E8",
        Some(4.0),
        "2026-09-14T14:00:00Z",
        "queued",
    );
    assert_eq!(
        held(&log, Some("2026-09-15T09:00:00Z"), "2026-09-15T10:00:00Z"),
        [("me/q".into(), 4.0)]
    );
    // stale only past the longest wait + cap + margin (24 + 4 + 1 h)
    assert!(held(&log, None, "2026-09-15T19:30:00Z").is_empty());
    assert_eq!(held(&log, None, "2026-09-15T18:30:00Z").len(), 1);
}

#[test]
fn a_tpu_run_without_a_cap_holds_the_tpu_session_limit() {
    let log = run_line("me/t", "TpuV5E8", None, "2026-09-15T09:00:00Z", "queued");
    assert_eq!(
        held(&log, Some("2026-09-15T09:30:00Z"), "2026-09-15T10:00:00Z"),
        [("me/t".into(), 9.0)]
    );
    let gpu = run_line(
        "me/g",
        "NvidiaTeslaT4",
        None,
        "2026-09-15T09:00:00Z",
        "queued",
    );
    assert_eq!(
        held(&gpu, Some("2026-09-15T09:30:00Z"), "2026-09-15T10:00:00Z"),
        [("me/g".into(), 12.0)]
    );
}

#[test]
fn a_pending_push_holds_its_whole_cap_until_a_newer_version() {
    let pending = run_line(
        "me/p",
        "NvidiaTeslaT4",
        Some(3.0),
        "2026-09-10T09:00:00Z",
        "pending",
    );
    // five days later: never stale, never decayed
    assert_eq!(
        held(
            &pending,
            Some("2026-09-15T09:00:00Z"),
            "2026-09-15T10:00:00Z"
        ),
        [("me/p".into(), 3.0)]
    );
    // Kaggle lists a newer version: the later entry replaces it
    let later = run_line(
        "me/p",
        "NvidiaTeslaT4",
        Some(3.0),
        "2026-09-15T09:00:00Z",
        "complete",
    );
    let l = ledger(
        &read_runs_log(&format!("{pending}\n{later}\n")),
        None,
        at("2026-09-15T10:00:00Z"),
        &t(),
    );
    assert!(l.held.is_empty());
    assert_eq!(l.replaced.len(), 1);
    assert!(l.replaced[0].contains("line 2"), "{:?}", l.replaced);
}

#[test]
fn a_re_push_replaces_the_older_reservation_and_cpu_runs_hold_nothing() {
    let text = [
        run_line(
            "me/r",
            "NvidiaTeslaT4",
            Some(5.0),
            "2026-09-15T07:00:00Z",
            "running",
        ),
        run_line(
            "me/cpu",
            "none",
            Some(5.0),
            "2026-09-15T07:00:00Z",
            "running",
        ),
        run_line(
            "me/r",
            "NvidiaTeslaT4",
            Some(2.0),
            "2026-09-15T08:00:00Z",
            "running",
        ),
    ]
    .join("\n");
    let l = ledger(
        &read_runs_log(&text),
        Some(at("2026-09-15T09:00:00Z")),
        at("2026-09-15T10:00:00Z"),
        &t(),
    );
    let by: Vec<(&str, usize, f64)> = l
        .held
        .iter()
        .map(|r| (r.kernel.as_str(), r.line, r.reserved_hours))
        .collect();
    assert_eq!(by, [("me/r", 3, 1.0)]);
    assert_eq!(l.replaced.len(), 1);
    assert_eq!(l.cpu.len(), 1);
}

#[test]
fn a_kgkit_total_of_zero_is_unknown_not_zero() {
    let cache = r#"{"used_h": 12.5, "remaining_h": 17.5, "total_h": 0, "refresh_at": "2026-09-12T00:00:00Z", "fetched_at": "2026-09-11T10:00:00Z"}"#;
    let r = read_quota(cache).unwrap();
    let g = r.gpu.as_ref().unwrap();
    assert!(g.total_unknown);
    assert_eq!(g.total, 30.0);
    // the week rolled over: a full week of the facts' hours, not 0
    let rep = quota_state(
        &r,
        None,
        Observed::Unknown,
        at("2026-09-15T10:00:00Z"),
        &t(),
    );
    assert_eq!(rep.gpu.as_ref().unwrap().remaining, 30.0);
    assert!(rules_of(&rep).contains(&"KQ009"));
    let known = read_quota(&cache.replace("\"total_h\": 0", "\"total_h\": 30")).unwrap();
    let rep = quota_state(
        &known,
        None,
        Observed::Unknown,
        at("2026-09-15T10:00:00Z"),
        &t(),
    );
    assert!(!rules_of(&rep).contains(&"KQ009"));
}

#[test]
fn no_reservation_no_kq004() {
    let csv = read_quota(TABLE).unwrap();
    let rep = quota_state(
        &csv,
        Some(&read_runs_log("")),
        Observed::Now,
        at("2026-09-15T10:00:00Z"),
        &t(),
    );
    assert!(!rep.findings.iter().any(|f| f.rule == "KQ004"));
    assert_eq!(rep.gpu.unwrap().reserved, 0.0);
}

#[test]
fn plannable_never_below_zero() {
    let r = read_quota(r#"{"gpuQuota": {"timeUsed": "100000s", "timeReserved": "43200s", "totalTimeAllowed": "108000s"}}"#).unwrap();
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-15T10:00:00Z"), &t());
    let g = rep.gpu.unwrap();
    assert_eq!(g.plannable, 0.0);
    assert!(rep.findings.iter().any(|f| f.rule == "KQ006"));
}

#[test]
fn use_it_or_lose_it_boundaries() {
    let t = t();
    // (hours to reset, plannable, fires)
    let cases = [
        (36.0, 1.0, true),
        (36.01, 5.0, false),
        (0.5, 1.0, true),
        (0.0, 5.0, false),
        (-1.0, 5.0, false),
        (20.0, 0.99, false),
        (20.0, 11.0, true),
    ];
    for (h, p, fires) in cases {
        assert_eq!(use_it_or_lose_it(h, p, &t), fires, "{h} {p}");
    }
    // through the state: reset Saturday 00:00, now Friday 12:00 -> 12 h left
    let r = read_quota(TABLE).unwrap();
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-18T12:00:00Z"), &t);
    assert!(rep.use_it_or_lose_it);
    assert!(rep.findings.iter().any(|f| f.rule == "KQ003"));
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-15T12:00:00Z"), &t);
    assert!(!rep.use_it_or_lose_it);
    assert!(!rep.findings.iter().any(|f| f.rule == "KQ003"));
}

#[test]
fn assumed_reset_is_the_next_saturday() {
    for (now, next) in [
        ("2026-12-01T08:00:00Z", "2026-12-05T00:00:00Z"),
        ("2026-12-05T00:00:00Z", "2026-12-12T00:00:00Z"),
        ("2026-12-04T23:59:59Z", "2026-12-05T00:00:00Z"),
        ("2026-12-05T13:00:00Z", "2026-12-12T00:00:00Z"),
    ] {
        assert_eq!(rfc3339(assumed_next_reset(at(now))), next, "{now}");
    }
    let r = reading_from_numbers(Some((11.0, None)), None);
    let rep = quota_state(&r, None, Observed::Now, at("2026-12-01T08:00:00Z"), &t());
    assert!(rep.gpu.unwrap().refresh_assumed);
    assert!(rep.findings.iter().any(|f| f.rule == "KQ007"));
    let r = reading_from_numbers(Some((11.0, Some(at("2026-12-05T00:00:00Z")))), None);
    let rep = quota_state(&r, None, Observed::Now, at("2026-12-01T08:00:00Z"), &t());
    assert!(!rep.findings.iter().any(|f| f.rule == "KQ007"));
}

proptest! {
    #[test]
    fn plannable_is_at_most_remaining(
        used in 0.0f64..40.0,
        total in 0.0f64..45.0,
        reserved in proptest::option::of(0.0f64..20.0),
        cap in 0.1f64..14.0,
        ran_min in 0i64..2000,
        now_min in 0i64..30_000,
        refresh_min in -30_000i64..30_000,
    ) {
        let base = at("2026-09-01T00:00:00Z");
        let now = base + Duration::minutes(now_min);
        let q = AcceleratorQuota {
            used,
            remaining: (total - used).max(0.0),
            total,
            reserved,
            refresh_at: Some(base + Duration::minutes(refresh_min)),
            total_unknown: false,
        };
        let reading = QuotaReading { form: QuotaForm::Numbers, gpu: Some(q), tpu: None, fetched_at: None, reset_in_days: None, notes: vec![] };
        let line = format!(
            "{{\"kernel\": \"k\", \"hours\": {cap}, \"status\": \"running\", \"pushed_at\": \"{}\"}}",
            rfc3339(now - Duration::minutes(ran_min))
        );
        let log = read_runs_log(&line);
        let rep = quota_state(&reading, Some(&log), Observed::Now, now, &Thresholds::defaults());
        let g = rep.gpu.unwrap();
        prop_assert!(g.plannable <= g.remaining + 1e-9);
        prop_assert!(g.plannable >= 0.0);
        prop_assert!(g.remaining <= g.total + 1e-9);
        prop_assert!(g.hours_to_reset > 0.0);
    }

    #[test]
    fn reading_never_panics(text in "\\PC{0,200}") {
        let _ = read_quota(&text);
        let _ = read_runs_log(&text);
    }
}

#[test]
fn a_normal_quota_fires_no_warning() {
    // TABLE read just now, mid-week: no KQ001-KQ007 at all (each of those has its own firing test above).
    let r = read_quota(TABLE).unwrap();
    let rep = quota_state(&r, None, Observed::Now, at("2026-09-15T10:00:00Z"), &t());
    assert!(rep.live);
    for id in [
        "KQ001", "KQ002", "KQ003", "KQ004", "KQ005", "KQ006", "KQ007",
    ] {
        assert!(
            !rules_of(&rep).contains(&id),
            "{id} fired: {:?}",
            rep.findings
        );
    }
}

#[test]
fn quoted_csv_fields_keep_their_commas() {
    assert_eq!(
        csv_fields(r#"GPU, "2,42h" ,"a ""b""",x"#),
        vec!["GPU", "2,42h", r#"a "b""#, "x"]
    );
    assert_eq!(csv_fields(""), vec![""]);
    let e = read_quota("resource,used,remaining,total,refreshAt\nGPU,\"2,42h\",\"27,58h\",\"30,00h\",2026-09-19T00:00:00\n")
        .unwrap_err();
    assert!(e.message.contains("`2,42h` is not hours"), "{e:?}");
    assert_eq!(e.line, Some(2));
}

#[test]
fn the_quota_request_says_how_fresh_the_figure_is() {
    let now = at("2026-09-15T10:00:00Z");
    let request = |live: bool, read_at: Option<&str>| QuotaRequest {
        quota: TABLE.to_string(),
        live,
        read_at: read_at.map(str::to_string),
        now: Some(rfc3339(now)),
        ..QuotaRequest::default()
    };
    let live = |r: QuotaRequest| quota(&r, now).unwrap().live;
    assert!(live(request(true, None)));
    assert!(
        live(request(true, Some("2026-09-10T00:00:00Z"))),
        "live wins"
    );
    assert!(live(request(false, Some("2026-09-15T09:55:00Z"))));
    assert!(!live(request(false, Some("2026-09-15T09:00:00Z"))));
    assert!(!live(request(false, None)));
    // A read time after now (a saved file with a fixed `now` in the past) says nothing.
    let r = quota(&request(false, Some("2026-09-16T00:00:00Z")), now).unwrap();
    assert!(!r.live && r.observed_at.is_none());
    let e = quota(&request(false, Some("soon")), now).unwrap_err();
    assert_eq!(e.field, "readAt");
    let e = quota(&QuotaRequest::default(), now).unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("quota", None));
    let e = quota(
        &QuotaRequest {
            quota: "resource,used,remaining,total,refreshAt\nGPU,2.42h,lots,30.00h,\n".into(),
            ..QuotaRequest::default()
        },
        now,
    )
    .unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("quota", Some(2)));
    let r: QuotaRequest =
        crate::request::from_json(r#"{"quota": "x", "readAt": "2026-09-15", "live": true}"#)
            .unwrap();
    assert_eq!(r.read_at.as_deref(), Some("2026-09-15"));
}

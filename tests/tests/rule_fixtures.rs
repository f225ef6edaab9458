//! Every rule's fixture, in one data-driven test. `tests/fixtures/rules/<CODE>.toml` holds cases, each an
//! advisor request (`command` and `request`, the JSON the npm package and the Python wheel take, written
//! as TOML; `files` reads text fields from `tests/fixtures/`, and a folder as its files' bytes in base64
//! by name, as kgkit's artifacts are sent) that must produce a finding of the rule (`fires = true`) or
//! must not (`fires = false`). The text and JSON of the rule's findings in the firing
//! cases are insta snapshots (`tests/tests/snapshots/`), so a change of wording is reviewed, not missed:
//! `cargo insta review` (or `INSTA_UPDATE=always cargo test -p kgadvise-tests --test rule_fixtures`)
//! re-blesses them. Each rule of the book has a fixture with a case of each kind. A rule that stops the
//! answer (KM001: metadata that cannot be read) fires in a case with `refused = true`: the request is
//! refused with an error naming the rule (`[KM001]`), and the error is what the snapshot shows.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use kgadvise_core::Finding;
use kgadvise_core::advise::advise_json;
use kgadvise_core::request::RequestError;
use kgadvise_core::rulebook;
use kgadvise_core::rulebook::finding::render_text;
use kgadvise_core::stats::npy::FileBytes;
use kgadvise_tests::fixture;
use serde::Deserialize;

/// The time of every case without a `now` of its own.
const CLOCK: &str = "2026-12-01T00:00:00Z";

/// Rules whose fixtures are not written yet (each area adds its own as its advisor takes requests).
const PENDING: &[&str] = &[];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    fires: bool,
    command: String,
    #[serde(default)]
    request: BTreeMap<String, toml::Value>,
    /// Request fields read from a file under tests/fixtures/ (field name -> relative path).
    #[serde(default)]
    files: BTreeMap<String, String>,
    /// The request must be refused with an error naming the rule (a firing case of a rule that stops
    /// the answer).
    #[serde(default)]
    refused: bool,
}

fn clock() -> DateTime<Utc> {
    CLOCK.parse().expect("CLOCK is RFC 3339")
}

/// The case's request as JSON, with its file fields read in.
fn request_json(code: &str, case: &Case) -> String {
    let mut request = serde_json::to_value(&case.request)
        .unwrap_or_else(|e| panic!("{code} {:?}: request is not JSON: {e}", case.name));
    for (field, rel) in &case.files {
        let path = fixture(rel);
        if path.is_dir() {
            request[field] = folder_json(&path);
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{code} {:?}: cannot read {}: {e}",
                case.name,
                path.display()
            )
        });
        request[field] = serde_json::Value::String(text);
    }
    request.to_string()
}

/// A folder as a request takes one (kgkit's artifacts): its files by name, each file's bytes as base64.
fn folder_json(dir: &std::path::Path) -> serde_json::Value {
    let mut files = serde_json::Map::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a readable entry").path();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path
            .file_name()
            .expect("a file name")
            .to_string_lossy()
            .into_owned();
        files.insert(
            name,
            serde_json::to_value(FileBytes(bytes)).expect("bytes are base64 text"),
        );
    }
    serde_json::Value::Object(files)
}

/// A case's request answered by its advisor: the loop's (`loop-push`, ...: CLI-only, not among the
/// surfaces' advisors) or one of `request::ADVISORS`.
fn advise(command: &str, json: &str) -> Result<String, RequestError> {
    kgadvise_core::kaggle_loop::advise_json(command, json, clock())
        .unwrap_or_else(|| advise_json(command, json, clock()))
}

/// The findings of one case (the report's `findings`).
fn findings_of(code: &str, case: &Case) -> Vec<Finding> {
    let json = request_json(code, case);
    let report =
        advise(&case.command, &json).unwrap_or_else(|e| panic!("{code} {:?}: {e}", case.name));
    let report: serde_json::Value = serde_json::from_str(&report).expect("reports are JSON");
    serde_json::from_value(report["findings"].clone())
        .unwrap_or_else(|e| panic!("{code} {:?}: findings: {e}", case.name))
}

/// The error of a case that must be refused.
fn refusal_of(code: &str, case: &Case) -> RequestError {
    match advise(&case.command, &request_json(code, case)) {
        Ok(report) => panic!(
            "{code} {:?}: expected the request to be refused, got {report}",
            case.name
        ),
        Err(e) => e,
    }
}

/// Runs one rule's fixture: every case as it says, and the snapshot of what the firing ones show.
fn check_fixture(code: &str, fixture: &Fixture) -> (bool, bool) {
    let (mut fired, mut clean) = (false, false);
    let mut shown = String::new();
    for case in &fixture.case {
        if case.refused {
            let error = refusal_of(code, case);
            assert!(
                case.fires && error.message.contains(&format!("[{code}]")),
                "{code} {:?}: a refused case fires the rule its error names: {error}",
                case.name
            );
            fired = true;
            let json = serde_json::to_string_pretty(&error).expect("errors are JSON");
            shown.push_str(&format!("## {}\nrefused: {error}\n{json}\n\n", case.name));
            continue;
        }
        let findings = findings_of(code, case);
        for f in &findings {
            let title = kgadvise_core::rulebook()
                .rule(&f.rule)
                .map(|r| r.title.as_ref());
            assert_eq!(
                Some(f.title.as_str()),
                title,
                "{code} {:?}: one code, one message: a finding's title is its rule's",
                case.name
            );
        }
        let of_rule: Vec<Finding> = findings.into_iter().filter(|f| f.rule == code).collect();
        assert_eq!(
            !of_rule.is_empty(),
            case.fires,
            "{code} {:?}: expected the rule {}; findings of it: {of_rule:#?}",
            case.name,
            if case.fires { "to fire" } else { "not to fire" }
        );
        if case.fires {
            fired = true;
            let json = serde_json::to_string_pretty(&of_rule).expect("findings are JSON");
            shown.push_str(&format!(
                "## {}\n{}\n{json}\n\n",
                case.name,
                render_text(&of_rule)
            ));
        } else {
            clean = true;
        }
    }
    insta::assert_snapshot!(code.to_string(), shown);
    (fired, clean)
}

#[test]
fn every_rule_fires_on_its_fixture_and_not_on_its_clean_cases() {
    let mut missing = Vec::new();
    for doc in rulebook().rules.iter() {
        let code = doc.id.as_ref();
        if PENDING.contains(&code) {
            continue;
        }
        let path = fixture(&format!("rules/{code}.toml"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            missing.push(format!("{code}: no fixture {}", path.display()));
            continue;
        };
        let fixture: Fixture =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match check_fixture(code, &fixture) {
            (true, true) => {}
            (fired, _) => missing.push(format!(
                "{code}: no case {} ({})",
                if fired {
                    "where it must not fire"
                } else {
                    "where it fires"
                },
                path.display()
            )),
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn fixtures_are_of_rules_of_the_book_and_pending_is_true() {
    let codes: std::collections::BTreeSet<&str> =
        rulebook().rules.iter().map(|r| r.id.as_ref()).collect();
    for entry in std::fs::read_dir(fixture("rules")).expect("tests/fixtures/rules") {
        let name = entry.expect("a readable entry").file_name();
        let name = name.to_string_lossy();
        let code = name.trim_end_matches(".toml");
        assert!(
            codes.contains(code),
            "tests/fixtures/rules/{name}: not a rule of the book"
        );
        assert!(
            !PENDING.contains(&code),
            "{code} has a fixture: take it off PENDING"
        );
    }
}

//! An advisor and a request field are declared once, in core: the libraries' files that name them are
//! written from core's table of advisors and its request schemas (`kgadvise_tests::surfaces`), and each
//! schema is what serde reads. `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces` rewrites the
//! generated parts (python/kgadvise/__init__.pyi's functions, npm/index.js's exports) and web/field-docs.json.

use kgadvise_core::advise::{
    TABLE, advise_json, advisor_names, library_advisors, report_schema, request_schema,
};
use kgadvise_tests::surfaces::{npm_exports, page_field_docs, python_functions, with_part};
use kgadvise_tests::workspace_root;

/// The generated part of `rel` (between its `mark` lines) is `part`; with `KGADVISE_BLESS=1` it is
/// rewritten so.
fn generated_part_is_fresh(rel: &str, mark: &str, part: &str) {
    let path = workspace_root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let want = with_part(&text, mark, part)
        .unwrap_or_else(|| panic!("{rel}: no generated part between `{mark} Generated ...` lines"));
    if std::env::var_os("KGADVISE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{rel}: {e}"));
        return;
    }
    assert!(
        text == want,
        "{rel} is stale: regenerate it with `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces`"
    );
}

#[test]
fn the_python_stub_is_written_from_core() {
    generated_part_is_fresh("python/kgadvise/__init__.pyi", "#", &python_functions());
}

#[test]
fn the_npm_exports_are_written_from_core() {
    generated_part_is_fresh("npm/index.js", "//", &npm_exports());
}

/// The page's hints for its typed controls are the request fields' doc comments, read from the site's
/// field-docs.json (trunk copies web/field-docs.json; the wasm holds none of them).
#[test]
fn the_page_field_docs_are_written_from_core() {
    let path = workspace_root().join("web").join("field-docs.json");
    let want = page_field_docs();
    if std::env::var_os("KGADVISE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        text == want,
        "web/field-docs.json is stale: regenerate it with `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces`"
    );
}

/// Every advisor has a schema whose keys are what serde reads: each key is taken (whatever its value's
/// fate), a key not in it is refused as unknown. So keywords, signatures and stubs read from a schema are
/// the request struct's.
#[test]
fn every_schema_is_the_request_serde_reads() {
    let clock = chrono::DateTime::UNIX_EPOCH;
    assert_eq!(advisor_names().len(), TABLE.len());
    for command in advisor_names() {
        let schema = request_schema(command).unwrap_or_else(|| panic!("{command}: no schema"));
        let properties = schema["properties"].as_object().expect("properties");
        assert!(
            properties.contains_key("now") && properties.contains_key("set"),
            "{command}"
        );
        let mut order: Vec<&str> = schema["x-order"]
            .as_array()
            .expect("x-order")
            .iter()
            .filter_map(|k| k.as_str())
            .collect();
        order.sort_unstable();
        assert_eq!(
            order,
            properties.keys().map(String::as_str).collect::<Vec<_>>(),
            "{command}"
        );
        for key in properties.keys() {
            let probe = format!("{{\"{key}\": 3}}");
            if let Err(e) = advise_json(command, &probe, clock) {
                assert!(
                    !e.message.starts_with("unknown field"),
                    "{command} {key}: {e}"
                );
            }
        }
        let e = advise_json(command, r#"{"notAKey": 3}"#, clock).unwrap_err();
        assert!(e.message.starts_with("unknown field"), "{command}: {e}");
        for field in properties.values() {
            assert!(
                field.get("description").is_some(),
                "{command}: a field without a doc comment: {field}"
            );
        }
    }
    assert!(request_schema("no-such-advisor").is_none());
}

/// The requests of the rule fixtures (tests/fixtures/rules/*.toml) whose files are text, by command.
fn fixture_requests() -> Vec<(String, serde_json::Value)> {
    let dir = workspace_root().join("tests/fixtures/rules");
    let mut requests = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/fixtures/rules") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("a fixture");
        let fixture: toml::Value = toml::from_str(&text).expect("TOML");
        for case in fixture["case"].as_array().into_iter().flatten() {
            let mut request = case
                .get("request")
                .map(|r| serde_json::to_value(r).expect("JSON"))
                .unwrap_or_else(|| serde_json::json!({}));
            let files = case.get("files").and_then(toml::Value::as_table);
            let texts = files.into_iter().flatten().map(|(field, rel)| {
                let path = workspace_root().join("tests/fixtures").join(rel.as_str()?);
                Some((field.clone(), std::fs::read_to_string(path).ok()?))
            });
            let Some(texts) = texts.collect::<Option<Vec<_>>>() else {
                continue;
            };
            for (field, text) in texts {
                request[field] = serde_json::Value::String(text);
            }
            let command = case["command"].as_str().expect("command").to_string();
            requests.push((command, request));
        }
    }
    requests
}

/// Every advisor has a report schema (what serde writes, from which js/build.rs declares the npm
/// package's types): each report of the rule fixtures' requests has only keys of the schema (or of
/// one of its alternatives), every required one among them.
#[test]
fn every_report_schema_is_the_report_serde_writes() {
    let clock = chrono::DateTime::UNIX_EPOCH;
    let mut answered = std::collections::BTreeSet::new();
    // explain has no rule of its own, so no fixture: its three answers.
    let explain = [
        serde_json::json!({"id": "KH001"}),
        serde_json::json!({"list": true}),
        serde_json::json!({"allMarkdown": true}),
    ];
    let requests = explain.into_iter().map(|r| ("explain".to_string(), r));
    for (command, request) in fixture_requests().into_iter().chain(requests) {
        // A command of the CLI alone (`loop-log`) is no advisor of the table.
        let Some(schema) = report_schema(&command) else {
            continue;
        };
        let alternatives: Vec<&serde_json::Value> =
            match schema.get("anyOf").or_else(|| schema.get("oneOf")) {
                Some(any) => any.as_array().expect("alternatives").iter().collect(),
                None => vec![&schema],
            };
        let Ok(report) = advise_json(&command, &request.to_string(), clock) else {
            continue;
        };
        let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
        let keys = report.as_object().expect("an object");
        let fits = |alternative: &&serde_json::Value| {
            let alternative = match alternative["$ref"].as_str() {
                Some(r) => &schema["$defs"][r.trim_start_matches("#/$defs/")],
                None => alternative,
            };
            let properties = alternative["properties"].as_object().expect("properties");
            let required = alternative["required"].as_array().expect("required");
            keys.keys().all(|k| properties.contains_key(k))
                && required
                    .iter()
                    .all(|k| k.as_str().is_some_and(|k| keys.contains_key(k)))
        };
        assert!(
            alternatives.iter().any(fits),
            "{command}: {report}\n{schema}"
        );
        answered.insert(command);
    }
    assert_eq!(answered.len(), advisor_names().len(), "{answered:?}");
    assert!(report_schema("no-such-advisor").is_none());
}

/// What a new advisor needs on the libraries' side is its row in core's table: the Python functions and
/// the npm exports are written from the rows (the tests above), the Python package makes its functions
/// from `_native.functions()` (python/tests/test_api.py checks them against the schemas), and the npm
/// declarations from the rows' request and report schemas (js/build.rs). The one Python-only fact is which function returns a
/// `DiagnoseReport`.
#[test]
fn the_libraries_offer_every_advisor_but_bench() {
    let left_out: Vec<&str> = TABLE
        .iter()
        .filter(|a| !a.library)
        .map(|a| a.command)
        .collect();
    assert_eq!(left_out, ["bench"]);
    let stub = python_functions();
    let exports = npm_exports();
    for advisor in library_advisors() {
        assert!(stub.contains(&format!("def {}(", advisor.command.replace('-', "_"))));
        assert!(exports.contains(&format!("advisor('{}')", advisor.command)));
        assert!(!advisor.summary.is_empty() && !advisor.summary.contains('\n'));
    }
}

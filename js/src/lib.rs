//! kgadvise-js: the kgadvise core for JavaScript, the wasm half of the npm package `kgadvise` (`npm/`).
//!
//! A translation layer and nothing more, like the CLI and the page: JSON requests in (the request types of
//! `kgadvise_core::request`, keys in camelCase), the report JSON out, exactly what `kgadvise <command>
//! --json` prints. Which advisors exist is core's [`advisor_names`]; the JavaScript functions of `npm/index.js`
//! call [`advise`] by command name, so an advisor that core answers needs no change here.
//!
//! The time is an argument: JavaScript passes its clock (`Date.now()`), used when a request has no `now`.
//! A [`RequestError`] crosses to JavaScript as JSON (`field`, `value`, `line`, `message`, and `text`, the
//! message with the field said by its request key); `npm/index.js` throws it as an `Error` with `code` 2.
//!
//! Nothing here may trap: a panic in wasm is an `unreachable` trap that loses the call. Core denies
//! panicking constructs; this crate does too. Should one trap all the same, the glue is built with
//! wasm-bindgen's reset-state function and `npm/index.js` starts a fresh instance after reporting it.

use chrono::{DateTime, Utc};
use kgadvise_core::advise::{advise_json, advisor_names};
use kgadvise_core::request::{RequestError, text_of};
use wasm_bindgen::prelude::*;

/// The report of the advisor `command` (a CLI command name: `cap`, `worth-gpu`) for a JSON `request`, as
/// JSON. `clock_ms` is the caller's clock in milliseconds since the Unix epoch: the time of the answer
/// when the request has no `now`. An error is [`error_json`] of the request error.
#[wasm_bindgen]
pub fn advise(command: &str, request: &str, clock_ms: f64) -> Result<String, String> {
    let clock = clock_of(clock_ms).map_err(|e| error_json(&e))?;
    advise_json(command, request, clock).map_err(|e| error_json(&e))
}

/// The command names [`advise`] answers, comma-separated (core's [`advisor_names`]).
#[wasm_bindgen]
pub fn advisors() -> String {
    advisor_names().join(",")
}

/// The text of the advisor `command`'s request field `field` given as bytes (a file's contents): core's
/// one decoding of file inputs ([`text_of`]), the CLI's for the same file. An error is [`error_json`].
#[wasm_bindgen]
pub fn text(command: &str, field: &str, bytes: &[u8]) -> Result<String, String> {
    text_of(command, field, bytes).map_err(|e| error_json(&e))
}

/// Stops the instance with a trap, as a panic would. Only the package's tests call it (through the glue,
/// not the package's API): it proves that a trap is reported as an error and the next call answers.
#[wasm_bindgen(js_name = "__trapForTests")]
pub fn trap_for_tests() {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
}

/// The caller's clock as a time: finite milliseconds within chrono's range.
fn clock_of(clock_ms: f64) -> Result<DateTime<Utc>, RequestError> {
    let time = if clock_ms.is_finite() && clock_ms.abs() < 8.0e15 {
        DateTime::from_timestamp_millis(clock_ms as i64)
    } else {
        None
    };
    time.ok_or_else(|| {
        RequestError::new(
            "now",
            "the JavaScript clock (Date.now()) is not a usable time; expected `now` in the request",
        )
    })
}

/// A request error as JSON: its fields (`field`, `value`, `line`, `message`) and `text`, the whole message
/// with the field said by its request key (which is the JavaScript key).
pub fn error_json(e: &RequestError) -> String {
    let mut object = serde_json::Map::new();
    object.insert("field".into(), e.field.clone().into());
    if let Some(value) = &e.value {
        object.insert("value".into(), value.clone().into());
    }
    if let Some(line) = e.line {
        object.insert("line".into(), line.into());
    }
    object.insert("message".into(), e.message.clone().into());
    object.insert("text".into(), e.to_string().into());
    serde_json::Value::Object(object).to_string()
}

/// The declarations generator of build.rs, for its tests.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../build/dts.rs"]
mod dts;

#[cfg(test)]
mod tests {
    use super::*;

    fn error(json: &str) -> serde_json::Value {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_report_is_the_cores_json() {
        let clock = DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let ours = advise(
            "cap",
            r#"{"measured": 3.5}"#,
            clock.timestamp_millis() as f64,
        )
        .unwrap();
        let core = advise_json("cap", r#"{"measured": 3.5}"#, clock).unwrap();
        assert_eq!(ours, core);
    }

    #[test]
    fn an_error_carries_its_field_and_the_text_names_it() {
        let e = error(&advise("cap", r#"{"measured": -1}"#, 0.0).unwrap_err());
        assert_eq!(e["field"], "measured");
        assert_eq!(e["value"], "-1");
        assert!(
            e["text"]
                .as_str()
                .unwrap()
                .starts_with("measured -1: expected")
        );
        let e = error(&advise("no-such", "{}", 0.0).unwrap_err());
        assert_eq!(e["field"], "");
        assert!(
            e["text"]
                .as_str()
                .unwrap()
                .contains("unknown advisor `no-such`")
        );
    }

    #[test]
    fn a_clock_that_is_not_a_time_is_an_error_not_a_trap() {
        for ms in [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e300, -1e300] {
            let e = error(&advise("cap", r#"{"measured": 1}"#, ms).unwrap_err());
            assert_eq!(e["field"], "now", "{ms}");
        }
        // With `now` in the request the clock is still read, and must still be a time.
        assert!(advise("cap", r#"{"measured": 1, "now": "2026-01-01"}"#, 0.0).is_ok());
    }

    #[test]
    fn bytes_decode_as_core_decodes_the_field() {
        let latin1 = b"x\n\xe9t\xe9";
        for (command, field, _) in kgadvise_core::request::FILE_INPUTS {
            assert_eq!(
                text(command, field, latin1).map_err(|e| error(&e)),
                text_of(command, field, latin1).map_err(|e| error(&error_json(&e))),
                "{command} {field}"
            );
        }
        assert_eq!(
            text("diagnose", "log", latin1).unwrap(),
            "x\n\u{fffd}t\u{fffd}"
        );
        let e = error(&text("check", "metadata", latin1).unwrap_err());
        assert_eq!(e["field"], "metadata");
        assert_eq!(e["line"], 2);
        assert!(
            e["text"]
                .as_str()
                .unwrap()
                .contains("not UTF-8 text (byte offset 2)")
        );
    }

    #[test]
    fn advisors_are_cores() {
        assert_eq!(advisors().split(',').collect::<Vec<_>>(), advisor_names());
    }

    /// Every advisor of core's table, the CLI's alone (`bench`) too, is declared from its schemas: an
    /// advisor that lands with a type the writer cannot read fails here, not in the npm build.
    #[test]
    fn every_report_and_request_of_core_is_declared() {
        let schemas = dts::schemas();
        let functions: Vec<dts::Function> = schemas
            .entries
            .iter()
            .map(|e| dts::Function {
                js: e.command.replace('-', "_"),
                command: e.command.clone(),
            })
            .collect();
        let text =
            dts::generate(&schemas, &functions).unwrap_or_else(|e| panic!("{}", e.join("\n")));
        assert!(
            text.contains("export function bench(request?: Input<BenchRequest>): BenchReport;"),
            "{text}"
        );
        assert!(!text.contains(": never"), "{text}");
    }

    #[test]
    fn the_declarations_follow_serde() {
        let functions = dts::functions_of_api(include_str!("../../npm/index.js"));
        assert_eq!(functions.len(), 16, "{functions:?}");
        let text = dts::generate(&dts::schemas(), &functions)
            .unwrap_or_else(|e| panic!("{}", e.join("\n")));
        // Requests: camelCase keys, every field optional (serde(default)); `set` takes both forms.
        assert!(
            text.contains("export function cap(request?: Input<CapRequest>): CapReport;"),
            "{text}"
        );
        assert!(text.contains("  foldHours?: number | null;"), "{text}");
        assert!(text.contains("  tpu?: boolean;"), "{text}");
        assert!(text.contains("  set?: Overrides;"), "{text}");
        assert!(
            text.contains("export type Overrides = string[] | { [key: string]: number } | null;"),
            "{text}"
        );
        // Reports: the Rust names, integers as numbers, enums as their serde names, an `Option` as
        // `| null` unless serde leaves the key out.
        assert!(text.contains("  timeout_seconds: number;"), "{text}");
        assert!(
            text.contains("export type Severity = \"error\" | \"warning\" | \"info\";"),
            "{text}"
        );
        assert!(text.contains("  platform_name: string | null;"), "{text}");
        assert!(text.contains("  fold_plan?: FoldPlan;"), "{text}");
        // Field docs become JSDoc (the keys keep the struct's order in build.rs's declarations alone:
        // `preserve_order` is on for the build-dependency, not here).
        assert!(
            text.contains(
                "   * Signed per-fold gain (positive = the idea is better).\n   */\n  gain: number;"
            ),
            "{text}"
        );
        // An advisor core does not answer yet gets the generic types.
        for f in functions
            .iter()
            .filter(|f| !advisor_names().contains(&f.command.as_str()))
        {
            let generic = format!(
                "export function {}(request?: Input<AdvisorRequest>): AdvisorReport;",
                f.js
            );
            assert!(text.contains(&generic), "{text}");
        }
    }

    fn entry(command: &str, request: serde_json::Value, report: serde_json::Value) -> dts::Entry {
        dts::Entry {
            command: command.into(),
            summary: format!("The {command} advisor."),
            library: true,
            request,
            report,
        }
    }

    fn defs(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().cloned().unwrap()
    }

    /// The writer on schemas as schemars writes them: named types, optional keys, unions, maps, a
    /// request's type named as a different report type, and an advisor `npm/index.js` has not yet.
    #[test]
    fn the_writer_reads_what_schemars_writes() {
        let schemas = dts::Schemas {
            entries: vec![entry(
                "x",
                serde_json::json!({"$ref": "#/$defs/Kind"}),
                serde_json::json!({"$ref": "#/$defs/XReport"}),
            )],
            requests: defs(serde_json::json!({
                "Kind": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}},
            })),
            reports: defs(serde_json::json!({
                "XReport": {
                    "description": "The report.",
                    "type": "object",
                    "properties": {
                        "kind": {"$ref": "#/$defs/Kind", "description": "Its kind."},
                        "maybe": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]},
                        "left-out": {"type": ["number", "null"]},
                        "map": {"type": "object", "additionalProperties": {"type": "boolean"}},
                        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
                    },
                    "required": ["kind", "maybe", "map", "pair"],
                },
                "Kind": {"oneOf": [
                    {"type": "string", "enum": ["a", "b"]},
                    {"const": "c", "description": "The third."},
                ]},
                "Finding": {"type": "object", "properties": {"rule": {"type": "string"}}, "required": ["rule"]},
            })),
            finding: serde_json::json!({"$ref": "#/$defs/Finding"}),
        };
        let functions = dts::functions_of_api(
            "export const x = advisor('x');\nexport const later = advisor('later');\n",
        );
        let text =
            dts::generate(&schemas, &functions).unwrap_or_else(|e| panic!("{}", e.join("\n")));
        for expected in [
            "export function x(request?: Input<KindInput>): XReport;",
            "export function later(request?: Input<AdvisorRequest>): AdvisorReport;",
            "  findings: Finding[];",
            "/**\n * The report.\n */\nexport interface XReport {",
            "  /**\n   * Its kind.\n   */\n  kind: Kind;",
            "  maybe: Kind | null;",
            "  \"left-out\"?: number;",
            "  map: { [key: string]: boolean };",
            "  pair: [string, number];",
            "export type Kind = \"a\" | \"b\" | \"c\";",
            "export interface KindInput {\n  n?: number | null;\n}",
        ] {
            assert!(text.contains(expected), "{expected}\n---\n{text}");
        }
        // What it cannot read is an error naming the type, and so is a library advisor without a
        // function in npm/index.js.
        let errors = dts::generate(&schemas, functions.get(1..).unwrap_or_default()).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("core answers `x` but npm/index.js has no function")),
            "{errors:?}"
        );
        let mut broken = schemas;
        broken.reports.insert(
            "XReport".into(),
            serde_json::json!({"type": "object", "properties": {"odd": {"not": {}}}}),
        );
        let errors = dts::generate(&broken, &functions).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("XReport.odd: the keyword `not` is not supported")),
            "{errors:?}"
        );
    }
}

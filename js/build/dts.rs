//! TypeScript declarations from JSON Schemas (build.rs): the schemas core derives from its serde types
//! with schemars (feature `schema`), the requests as serde reads them and the reports as serde writes
//! them (`advise::schema_generators`). No Rust is read here: what a type's JSON is, schemars says.
//!
//! The writer knows the part of JSON Schema that schemars writes: `$ref` into `$defs` (a named type),
//! `type` (one or a list, `null` among them), `const`/`enum` (literal unions), `properties`/`required`
//! (an object; a key not required is optional), `additionalProperties` (a map), `items`/`prefixItems`
//! (arrays, tuples), `anyOf`/`oneOf` (unions), `allOf` (intersections), `description`/`title` (the doc
//! comments). Anything else is an error naming the type, never a silent `unknown`.
//!
//! Why not a maintained converter: json-schema-to-typescript is an npm package (node at `cargo build`),
//! and the Rust crates that read JSON Schema write Rust (typify, schemafy), not TypeScript.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The first words of every error line in a declarations file that could not be generated.
pub const ERROR_MARK: &str = "kgadvise-dts: error";

/// A JavaScript function of the package and the advisor (CLI command) it calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub js: String,
    pub command: String,
}

/// The functions `npm/index.js` defines, one per line: `export const worthGpu = advisor('worth-gpu');`.
pub fn functions_of_api(js: &str) -> Vec<Function> {
    js.lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("export const ")?;
            let (name, rest) = rest.split_once('=')?;
            let rest = rest.trim().strip_prefix("advisor(")?;
            let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
            let command = rest.get(1..)?.split(quote).next()?;
            Some(Function {
                js: name.trim().to_string(),
                command: command.to_string(),
            })
        })
        .collect()
}

/// An advisor of core's table (`advise::TABLE`): command name, one-line doc, whether the libraries have a
/// function for it, and the schemas of its request and report (a `$ref` into [`Schemas`]'s definitions).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub command: String,
    pub summary: String,
    pub library: bool,
    pub request: Value,
    pub report: Value,
}

/// Every advisor's schemas, and the definitions they refer to: the requests' (what serde reads) and the
/// reports' (what serde writes), one namespace each.
pub struct Schemas {
    pub entries: Vec<Entry>,
    pub requests: Map<String, Value>,
    pub reports: Map<String, Value>,
    /// `Finding` in the reports' namespace: the generic report's findings.
    pub finding: Value,
}

/// Core's table of advisors with their schemas: the build and its tests take this one list.
pub fn schemas() -> Schemas {
    let (mut requests, mut reports) = kgadvise_core::advise::schema_generators();
    let entries = kgadvise_core::advise::TABLE
        .iter()
        .map(|advisor| {
            let (request, report) = advisor.schemas_in(&mut requests, &mut reports);
            Entry {
                command: advisor.command.to_string(),
                summary: advisor.summary.to_string(),
                library: advisor.library,
                request: request.to_value(),
                report: report.to_value(),
            }
        })
        .collect();
    let finding = reports.subschema_for::<kgadvise_core::Finding>().to_value();
    Schemas {
        entries,
        requests: requests.definitions().clone(),
        reports: reports.definitions().clone(),
        finding,
    }
}

/// Which namespace of definitions a schema's `$ref`s point into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Space {
    Request,
    Report,
}

/// The writer: the TypeScript names of the definitions, the declarations in the order first reached,
/// and the errors met.
struct Writer<'a> {
    schemas: &'a Schemas,
    names: BTreeMap<(Space, String), String>,
    declared: BTreeSet<String>,
    decls: Vec<String>,
    errors: Vec<String>,
}

impl<'a> Writer<'a> {
    fn new(schemas: &'a Schemas) -> Writer<'a> {
        // A report's type keeps its name; a request's type that has the name of a different report type
        // is `...Input`.
        let mut names = BTreeMap::new();
        for name in schemas.reports.keys() {
            names.insert((Space::Report, name.clone()), name.clone());
        }
        for (name, schema) in &schemas.requests {
            let ts = match schemas.reports.get(name) {
                Some(other) if other != schema => format!("{name}Input"),
                _ => name.clone(),
            };
            names.insert((Space::Request, name.clone()), ts);
        }
        Writer {
            schemas,
            names,
            declared: BTreeSet::new(),
            decls: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn defs(&self, space: Space) -> &'a Map<String, Value> {
        match space {
            Space::Request => &self.schemas.requests,
            Space::Report => &self.schemas.reports,
        }
    }

    fn error(&mut self, at: &str, message: String) -> String {
        self.errors.push(format!("{at}: {message}"));
        "never".to_string()
    }

    /// The TypeScript of a schema; `at` names it in errors, `indent` is the indentation of its lines.
    fn ts(&mut self, schema: &Value, space: Space, at: &str, indent: &str) -> String {
        let object = match schema {
            Value::Bool(true) => return "unknown".into(),
            Value::Bool(false) => return "never".into(),
            Value::Object(object) => object,
            _ => return self.error(at, format!("not a schema: {schema}")),
        };
        for key in object.keys() {
            if !KNOWN.contains(&key.as_str()) && !key.starts_with("x-") {
                return self.error(at, format!("the keyword `{key}` is not supported"));
            }
        }
        if let Some(reference) = object.get("$ref") {
            return self.reference(reference, space, at);
        }
        if let Some(value) = object.get("const") {
            return literal(value);
        }
        if let Some(values) = object.get("enum") {
            let values: Vec<String> = values
                .as_array()
                .into_iter()
                .flatten()
                .map(literal)
                .collect();
            return union(&values, indent);
        }
        let mut parts = Vec::new();
        if let Some(types) = object.get("type") {
            let types: Vec<&str> = match types {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let alternatives: Vec<String> = types
                .iter()
                .map(|t| self.typed(t, object, space, at, indent))
                .collect();
            parts.push(union(&alternatives, indent));
        }
        if let Some(all) = object.get("allOf").and_then(Value::as_array) {
            for s in all {
                parts.push(self.ts(s, space, at, indent));
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(any) = object.get(key).and_then(Value::as_array) {
                let inner = format!("{indent}  ");
                let alternatives: Vec<String> =
                    any.iter().map(|s| self.ts(s, space, at, &inner)).collect();
                let u = union(&alternatives, indent);
                parts.push(if parts.is_empty() || alternatives.len() < 2 {
                    u
                } else {
                    format!("({u})")
                });
            }
        }
        match parts.len() {
            0 => "unknown".into(),
            1 => parts.concat(),
            _ => parts.join(" & "),
        }
    }

    /// A named type: its TypeScript name, declared when first reached (before the types it reaches).
    fn reference(&mut self, reference: &Value, space: Space, at: &str) -> String {
        let Some(name) = reference.as_str().and_then(|r| r.strip_prefix("#/$defs/")) else {
            return self.error(at, format!("the reference {reference} is not into `$defs`"));
        };
        let key = (space, name.to_string());
        let Some(ts) = self.names.get(&key).cloned() else {
            return self.error(at, format!("`{name}` is not in the definitions"));
        };
        if self.declared.insert(ts.clone()) {
            self.declare(space, name, &ts);
        }
        ts
    }

    /// The TypeScript of one `type` of a schema.
    fn typed(
        &mut self,
        ty: &str,
        object: &Map<String, Value>,
        space: Space,
        at: &str,
        indent: &str,
    ) -> String {
        match ty {
            "string" => "string".into(),
            "number" | "integer" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => {
                if let Some(prefix) = object.get("prefixItems").and_then(Value::as_array) {
                    let elems: Vec<String> = prefix
                        .iter()
                        .map(|s| self.ts(s, space, at, indent))
                        .collect();
                    return format!("[{}]", elems.join(", "));
                }
                let elem = match object.get("items") {
                    Some(items) => self.ts(items, space, at, indent),
                    None => "unknown".into(),
                };
                if elem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    format!("{elem}[]")
                } else {
                    format!("Array<{elem}>")
                }
            }
            "object" => self.object(object, space, at, indent),
            other => self.error(at, format!("the type `{other}` is not supported")),
        }
    }

    /// An object: its properties (a key not `required` is optional), or a map of its
    /// `additionalProperties`.
    fn object(
        &mut self,
        object: &Map<String, Value>,
        space: Space,
        at: &str,
        indent: &str,
    ) -> String {
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            let value = match object.get("additionalProperties") {
                Some(Value::Bool(false)) => return "{}".into(),
                Some(s) => self.ts(s, space, at, indent),
                None => "unknown".into(),
            };
            return format!("{{ [key: string]: {value} }}");
        };
        let required: BTreeSet<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let inner = format!("{indent}  ");
        let mut body = String::from("{\n");
        for (key, schema) in properties {
            let optional = !required.contains(key.as_str());
            let ty = if optional && space == Space::Report {
                self.ts(&without_null(schema), space, &format!("{at}.{key}"), &inner)
            } else {
                self.ts(schema, space, &format!("{at}.{key}"), &inner)
            };
            body.push_str(&jsdoc(&doc_of(schema), &inner));
            let mark = if optional { "?" } else { "" };
            let _ = writeln!(body, "{inner}{}{mark}: {ty};", property(key));
        }
        if let Some(value) = object.get("additionalProperties").filter(|v| **v != false) {
            let value = self.ts(value, space, at, &inner);
            let _ = writeln!(body, "{inner}[key: string]: {value};");
        }
        body.push_str(indent);
        body.push('}');
        body
    }

    /// The declaration of a named type.
    fn declare(&mut self, space: Space, name: &str, ts_name: &str) {
        let Some(schema) = self.defs(space).get(name) else {
            return;
        };
        // Its place, taken before the declarations of the types it reaches.
        let slot = self.decls.len();
        self.decls.push(String::new());
        let body = self.ts(schema, space, name, "");
        let mut text = jsdoc(&doc_of(schema), "");
        // An object with nothing beside its properties is an interface.
        let is_object = schema.get("type").is_some_and(|t| t == "object")
            && schema.get("properties").is_some()
            && ["allOf", "anyOf", "oneOf"]
                .iter()
                .all(|k| schema.get(k).is_none());
        if is_object {
            let _ = writeln!(text, "export interface {ts_name} {body}");
        } else {
            let eq = if body.starts_with('\n') { " =" } else { " = " };
            let _ = writeln!(text, "export type {ts_name}{eq}{body};");
        }
        if let Some(d) = self.decls.get_mut(slot) {
            *d = text;
        }
    }
}

/// A schema less its `null`: a report's key that serde may leave out (`skip_serializing_if =
/// "Option::is_none"`, the only kind core has) is left out, never written as `null`.
fn without_null(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        if let Some(Value::Array(types)) = object.get_mut("type") {
            types.retain(|t| t != "null");
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alternatives)) = object.get_mut(key) {
                alternatives.retain(|a| a.get("type").is_none_or(|t| t != "null"));
            }
        }
    }
    schema
}

/// The keywords the writer reads or may ignore (formats, bounds and the like say nothing TypeScript
/// can).
const KNOWN: &[&str] = &[
    "$ref",
    "$schema",
    "$defs",
    "type",
    "const",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "title",
    "description",
    "default",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "uniqueItems",
    "contentEncoding",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// The doc lines of a schema: its `title` and `description` (schemars' split of the doc comment).
fn doc_of(schema: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for key in ["title", "description"] {
        if let Some(text) = schema.get(key).and_then(Value::as_str) {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.extend(text.lines().map(|l| l.trim_end().to_string()));
        }
    }
    lines
}

/// A JSDoc block at `indent` for the doc lines, or nothing.
fn jsdoc(lines: &[String], indent: &str) -> String {
    if lines.iter().all(|l| l.trim().is_empty()) {
        return String::new();
    }
    let mut s = format!("{indent}/**\n");
    for line in lines {
        let line = line.replace("*/", "*\\/");
        if line.is_empty() {
            let _ = writeln!(s, "{indent} *");
        } else {
            let _ = writeln!(s, "{indent} * {line}");
        }
    }
    let _ = writeln!(s, "{indent} */");
    s
}

/// Alternatives as one union: objects one a line, else on one line.
fn union(alternatives: &[String], indent: &str) -> String {
    let mut unique: Vec<&String> = Vec::new();
    for a in alternatives {
        if !unique.contains(&a) {
            unique.push(a);
        }
    }
    if unique.is_empty() {
        "never".to_string()
    } else if unique.len() == 1 {
        unique.iter().map(|a| a.as_str()).collect()
    } else if unique.iter().any(|a| a.contains('\n')) {
        unique
            .iter()
            .map(|a| {
                if a.contains(" & ") && !a.starts_with('(') {
                    format!("\n{indent}  | ({a})")
                } else {
                    format!("\n{indent}  | {a}")
                }
            })
            .collect()
    } else {
        unique
            .iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

/// A JSON value as a TypeScript literal type.
fn literal(value: &Value) -> String {
    match value {
        Value::String(s) => string_literal(s),
        other => other.to_string(),
    }
}

fn is_identifier(key: &str) -> bool {
    let mut cs = key.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn property(key: &str) -> String {
    if is_identifier(key) {
        key.to_string()
    } else {
        string_literal(key)
    }
}

fn string_literal(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The declarations file: the functions of `npm/index.js` with the request and report types core gives
/// their advisors, every type those reach, and the generic types of advisors core does not answer yet.
/// Advisors core answers that the package leaves out are the table's `library: false` ones (`bench` judges
/// runs the CLI timed itself); the JavaScript user has `benchHistory`.
pub fn generate(schemas: &Schemas, functions: &[Function]) -> Result<String, Vec<String>> {
    let mut w = Writer::new(schemas);
    let finding = w.ts(&schemas.finding, Space::Report, "Finding", "");
    let mut fns = String::new();
    for f in functions {
        let cli = format!("`kgadvise {} --json`", f.command);
        match schemas.entries.iter().find(|e| e.command == f.command) {
            Some(e) => {
                let request = w.ts(&e.request, Space::Request, &e.command, "");
                let report = w.ts(&e.report, Space::Report, &e.command, "");
                let doc = [
                    e.summary.clone(),
                    String::new(),
                    format!(
                        "Returns the object {cli} prints for the same inputs. Throws a `KgadviseError` (`code` 2) when the request cannot be answered."
                    ),
                ];
                fns.push_str(&jsdoc(&doc, ""));
                let _ = writeln!(
                    fns,
                    "export function {}(request?: Input<{request}>): {report};\n",
                    f.js
                );
            }
            None => {
                fns.push_str(&jsdoc(
                    &[
                        format!("{cli} as a function, once core answers `{}` by request.", f.command),
                        String::new(),
                        format!(
                            "Not in this build: core's `advise_json` has no `{}` yet, so it throws a `KgadviseError` (`code` 2, unknown advisor).",
                            f.command
                        ),
                    ],
                    "",
                ));
                let _ = writeln!(
                    fns,
                    "export function {}(request?: Input<AdvisorRequest>): AdvisorReport;\n",
                    f.js
                );
            }
        }
    }
    for e in &schemas.entries {
        if e.library && !functions.iter().any(|f| f.command == e.command) {
            w.errors.push(format!(
                "core answers `{}` but npm/index.js has no function for it (`export const name = advisor('{}');`: \
                 regenerate with `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces`)",
                e.command, e.command
            ));
        }
    }
    if !w.errors.is_empty() {
        return Err(w.errors);
    }
    Ok(declarations_file(&fns, &finding, &w.decls))
}

/// The file: its header, the functions, the generic advisor types, then every declared type.
fn declarations_file(fns: &str, finding: &str, decls: &[String]) -> String {
    let mut out = String::from(
        "// The kgadvise npm package's declarations, generated by js/build.rs from the JSON schemas of\n\
         // kgadvise-core's request and report types (do not edit: scripts/build-npm.sh writes this file).\n\n\
         export * from './base.js';\n\
         import type { Input } from './base.js';\n\n",
    );
    out.push_str(fns);
    out.push_str(&jsdoc(
        &["The request of an advisor this build's core does not answer yet.".into()],
        "",
    ));
    out.push_str("export type AdvisorRequest = { [key: string]: unknown };\n\n");
    out.push_str(&jsdoc(
        &["The report of an advisor this build's core does not answer yet: its schema and findings.".into()],
        "",
    ));
    let _ = writeln!(
        out,
        "export interface AdvisorReport {{\n  schema: string;\n  findings: {finding}[];\n  [key: string]: unknown;\n}}\n"
    );
    for d in decls {
        out.push_str(d);
        out.push('\n');
    }
    out
}

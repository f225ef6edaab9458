//! The parts of the libraries' files written from core's table of advisors (`advise::TABLE`) and its
//! requests' JSON schemas (`advise::request_schema`), so that an advisor and a request field are declared
//! once, in core: the Python stub's advisor functions (`python/kgadvise/__init__.pyi`) and the npm
//! package's exports (`npm/index.js`), and the web page's `web/field-docs.json` (each request field's doc
//! comment, the hint of the page's control for it). `tests/tests/surfaces.rs` checks the files hold what
//! is written here, and rewrites them with `KGADVISE_BLESS=1`.

use kgadvise_core::advise::{Advisor, TABLE, library_advisors, request_schema};
use serde_json::Value;

/// The line before the generated part of a file (after its comment mark).
pub const BEGIN: &str = "Generated from core's table of advisors: KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test surfaces";
/// The line after it.
pub const END: &str = "End of the generated part.";

/// `worth-gpu` -> `worth_gpu`.
fn snake_command(command: &str) -> String {
    command.replace('-', "_")
}

/// `worth-gpu` -> `worthGpu`.
fn camel_command(command: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in command.chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `foldHours` -> `fold_hours`: a request key as the Python keyword.
pub fn snake_key(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The JSON type of a field's schema, without `null` (`["number", "null"]` is `number`; an `anyOf` with
/// `null` is its other branch).
fn json_type(field: &Value) -> (&str, &Value) {
    if let Some(branches) = field.get("anyOf").and_then(Value::as_array)
        && let Some(other) = branches
            .iter()
            .find(|b| b.get("type").and_then(Value::as_str) != Some("null"))
    {
        return json_type(other);
    }
    if let Some(reference) = field.get("$ref").and_then(Value::as_str) {
        return (reference.rsplit('/').next().unwrap_or(reference), field);
    }
    let name = match field.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => "any",
    };
    (name, field)
}

/// A field's Python type in the stub: the aliases the stub declares (`Text`, `Time`, `Overrides`,
/// `Folder`) for what core marks so, else the JSON type's.
fn python_type(field: &Value) -> String {
    let marked = |key: &str| field.get(key).and_then(Value::as_bool) == Some(true);
    if marked("x-time") {
        return "Time".into();
    }
    if marked("x-file") {
        return "Text".into();
    }
    let (name, schema) = json_type(field);
    match name {
        "Overrides" => "Overrides".into(),
        "integer" => "int".into(),
        "number" => "float".into(),
        "boolean" => "bool".into(),
        "string" => "str".into(),
        "array" => match schema.get("items").map(json_type) {
            Some(("string", _)) => "Sequence[str]".into(),
            _ => "Sequence[Mapping[str, Any]]".into(),
        },
        "object" => match schema.get("additionalProperties").map(json_type) {
            Some(("FileBytes", _)) => "Folder".into(),
            _ => "Mapping[str, Any]".into(),
        },
        _ => "Any".into(),
    }
}

/// `text` in lines of at most `width` characters after `indent`.
fn wrap(text: &str, indent: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > width {
            lines.push(format!("{indent}{line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(format!("{indent}{line}"));
    }
    lines
}

/// One advisor's function in the stub: its keywords (required, a flag defaulting to `False`, or
/// optional), its return type, its docstring (the one-line doc and each field's doc comment).
fn python_function(advisor: &Advisor) -> String {
    let schema = request_schema(advisor.command).unwrap_or_default();
    let empty = serde_json::Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out = format!("def {}(\n    *,\n", snake_command(advisor.command));
    let mut docs = wrap(advisor.summary, "    ", 110);
    docs.push(String::new());
    let order = schema.get("x-order").and_then(Value::as_array);
    let keys = order.into_iter().flatten().filter_map(Value::as_str);
    for (key, field) in keys.filter_map(|k| properties.get(k).map(|f| (k, f))) {
        let keyword = snake_key(key);
        let ty = python_type(field);
        let required = field.get("x-required").and_then(Value::as_bool) == Some(true);
        out.push_str(&match (required, ty.as_str()) {
            (true, _) => format!("    {keyword}: {ty},\n"),
            (false, "bool") => format!("    {keyword}: bool = False,\n"),
            (false, _) => format!("    {keyword}: Optional[{ty}] = None,\n"),
        });
        let doc = field
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        docs.extend(wrap(&format!("``{keyword}``: {doc}"), "    ", 110));
    }
    // `advise` gives diagnose's report with core's words beside it (python/kgadvise/_report.py).
    let report = if advisor.command == "diagnose" {
        "DiagnoseReport"
    } else {
        "Report"
    };
    if let Some(first) = docs.first_mut() {
        *first = format!("    \"\"\"{}", first.trim_start());
    }
    out.push_str(&format!(") -> {report}:\n{}\"\"\"\n", docs.join("\n")));
    out.replace("\n\"\"\"", "\n    \"\"\"")
}

/// The stub's advisor functions, one per advisor the libraries offer, in the table's order.
pub fn python_functions() -> String {
    let functions: Vec<String> = library_advisors().map(python_function).collect();
    functions.join("\n")
}

/// npm/index.js's exports: one function per advisor the libraries offer, and the list of them.
pub fn npm_exports() -> String {
    let names: Vec<String> = library_advisors()
        .map(|advisor| camel_command(advisor.command))
        .collect();
    let mut out = String::new();
    for (advisor, name) in library_advisors().zip(&names) {
        out.push_str(&format!(
            "export const {name} = advisor('{}');\n",
            advisor.command
        ));
    }
    let list = wrap(&names.join(", "), "  ", 110).join("\n");
    out.push_str(&format!("\nconst FUNCTIONS = [\n{list},\n];\n"));
    out
}

/// The site's `field-docs.json` (`web/field-docs.json`): each advisor's request fields' doc comments,
/// `{"cap": {"measured": "Measured runtime of a kernel of your own, hours.", ...}, ...}`, by command and
/// request key (a page's URL key for a typed value is its request field). The page shows a typed control's
/// hint from it: the doc is written once, on the request field, and stays out of the wasm.
pub fn page_field_docs() -> String {
    let mut commands = serde_json::Map::new();
    for advisor in TABLE {
        let schema = request_schema(advisor.command).unwrap_or_default();
        let empty = serde_json::Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let order = schema.get("x-order").and_then(Value::as_array);
        let mut fields = serde_json::Map::new();
        for key in order.into_iter().flatten().filter_map(Value::as_str) {
            let doc = properties
                .get(key)
                .and_then(|field| field.get("description"))
                .and_then(Value::as_str);
            if let Some(doc) = doc {
                fields.insert(key.to_string(), Value::from(doc));
            }
        }
        commands.insert(advisor.command.to_string(), Value::Object(fields));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(commands)).unwrap_or_default();
    text.push('\n');
    text
}

/// `text` with the part between the lines `{mark} {BEGIN}` and `{mark} {END}` replaced by `part`; `None`
/// when the file has no such part.
pub fn with_part(text: &str, mark: &str, part: &str) -> Option<String> {
    let begin = format!("{mark} {BEGIN}\n");
    let end = format!("{mark} {END}\n");
    let start = text.find(&begin)? + begin.len();
    let stop = start + text.get(start..)?.find(&end)?;
    Some(format!("{}{part}{}", &text[..start], &text[stop..]))
}

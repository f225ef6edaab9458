//! Turns `rules/*.toml` (the single source of the knowledge) into JSON at build time, so that the TOML
//! parser stays out of the binaries and the wasm: `rulebook()` reads the JSON with the serde_json that core
//! links anyway. The schema (`deny_unknown_fields`) and the cross-references are still checked when the
//! JSON is read (and by `rulebook::tests` on the TOML text itself, feature `rules-toml`), so a bad data
//! edit names its file. A file that is not valid TOML fails the build here, with the TOML line and column.
//!
//! Writes `$OUT_DIR/rules_embedded.rs`: `EMBEDDED_JSON` (file name, JSON) and, for the `rules-toml`
//! feature, `EMBEDDED` (file name, TOML text through `include_str!`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The rule files, in the order the rule book lists their entries. Adding a data file: put it in
/// `rules/` and add it here (the build fails on a `.toml` in `rules/` that is not listed).
const FILES: &[&str] = &[
    "hardware.toml",
    "domains.toml",
    "bench.toml",
    "kernel.toml",
    "run_report.toml",
    "quota.toml",
    "verdicts.toml",
    "stats.toml",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let rules = manifest.join("..").join("rules");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", rules.display());
    let mut errors = Vec::new();
    if let Ok(dir) = std::fs::read_dir(&rules) {
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".toml") && !FILES.contains(&name.as_str()) {
                errors.push(format!(
                    "rules/{name}: not embedded; add it to FILES in core/build.rs"
                ));
            }
        }
    }
    let mut json_list = String::new();
    let mut toml_list = String::new();
    for file in FILES {
        let path = rules.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        match convert(&path) {
            Ok(json) => {
                let _ = writeln!(json_list, "    ({file:?}, {json:?}),");
            }
            Err(e) => errors.push(format!("rules/{file}: {e}")),
        }
        let _ = writeln!(
            toml_list,
            "    ({file:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    if !errors.is_empty() {
        for e in &errors {
            println!("cargo:warning={}", e.replace('\n', " "));
            eprintln!("{e}");
        }
        std::process::exit(1);
    }
    let code = format!(
        "/// The rule files as compact JSON, converted from `rules/*.toml` by `core/build.rs`: (file name, JSON).\n\
         pub const EMBEDDED_JSON: &[(&str, &str)] = &[\n{json_list}];\n\n\
         /// The rule files as written: (file name, TOML text).\n\
         #[cfg(feature = \"rules-toml\")]\n\
         pub const EMBEDDED: &[(&str, &str)] = &[\n{toml_list}];\n"
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("rules_embedded.rs"), code).expect("OUT_DIR is writable");
}

/// One TOML file to compact JSON. Values are kept as they are: tables, arrays, strings, integers,
/// floats, booleans. A TOML date-time has no JSON form, so it is refused (the schema writes dates as strings).
fn convert(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let value: toml::Table = toml::from_str(&text).map_err(|e| e.to_string())?;
    let mut out = String::new();
    write_value(&toml::Value::Table(value), &mut out)?;
    Ok(out)
}

fn write_value(v: &toml::Value, out: &mut String) -> Result<(), String> {
    match v {
        toml::Value::String(s) => {
            out.push_str(&serde_json::to_string(s).map_err(|e| e.to_string())?)
        }
        toml::Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        toml::Value::Float(f) => {
            if !f.is_finite() {
                return Err(format!("the float {f} has no JSON form"));
            }
            // serde_json writes the shortest text that reads back as the same f64.
            out.push_str(&serde_json::to_string(f).map_err(|e| e.to_string())?)
        }
        toml::Value::Boolean(b) => {
            let _ = write!(out, "{b}");
        }
        toml::Value::Datetime(d) => {
            return Err(format!(
                "the bare TOML date-time {d}: write dates as strings (\"2026-01-01\")"
            ));
        }
        toml::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out)?;
            }
            out.push(']');
        }
        toml::Value::Table(table) => {
            out.push('{');
            for (i, (key, item)) in table.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).map_err(|e| e.to_string())?);
                out.push(':');
                write_value(item, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

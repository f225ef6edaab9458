//! Turns `rules/*.toml` (the single source of the knowledge) into a compact text form at build time, so
//! that no TOML or JSON parser for the rules is in the binaries or the wasm: `rulebook()` reads the
//! fields in schema order with a small decoder (`rulebook::compact`). The schema is checked here (unknown
//! tables and keys, missing keys, wrong types: the build fails naming the file and entry); a file that is
//! not valid TOML fails the build with the TOML line and column. The cross-references are validated when
//! the rule book is read, and `rulebook::tests` (feature `rules-toml`) reads the TOML text itself with
//! serde and checks that it gives exactly the rule book the compact form gives.
//!
//! Writes `$OUT_DIR/rules_embedded.rs`: `EMBEDDED_COMPACT` (file name, compact text) and, for the
//! `rules-toml` feature, `EMBEDDED` (file name, TOML text through `include_str!`).

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
    let mut compact_list = String::new();
    let mut toml_list = String::new();
    for file in FILES {
        let path = rules.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        match convert(&path) {
            Ok(compact) => {
                let _ = writeln!(compact_list, "    ({file:?}, {compact:?}),");
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
        "/// The rule files in the compact form of `rulebook::compact`, converted from `rules/*.toml` by\n\
         /// `core/build.rs`: (file name, text).\n\
         pub const EMBEDDED_COMPACT: &[(&str, &str)] = &[\n{compact_list}];\n\n\
         /// The rule files as written: (file name, TOML text).\n\
         #[cfg(feature = \"rules-toml\")]\n\
         pub const EMBEDDED: &[(&str, &str)] = &[\n{toml_list}];\n"
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("rules_embedded.rs"), code).expect("OUT_DIR is writable");
}

/// How a field is written in the compact form (see `rulebook::compact`).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A string (also dates and enum names).
    Str,
    /// An optional string: `+text`, or nothing when absent.
    OptStr,
    /// A boolean: `1` or `0`.
    Bool,
    /// An optional boolean that defaults to false.
    DefBool,
    /// A number (integer or float), as text.
    Num,
    /// An optional number: its text, or nothing when absent.
    OptNum,
    /// A list of strings: each item after a GS (0x1D).
    List,
    /// A list of `DefaultItem` tables: each after a GS, its fields separated by FS (0x1C).
    Items,
}
use Kind::*;

/// The schema of `rulebook::RulesFile`, field by field in the order the decoder reads them. It must match
/// the structs in core/src/rulebook.rs: `rulebook::tests::embedded_compact_is_the_toml` checks that the
/// compact form gives exactly the rule book that serde gives from the TOML text.
const TABLES: &[(&str, &[(&str, Kind)])] = &[
    (
        "platform",
        &[
            ("id", Str),
            ("key", Str),
            ("name", Str),
            ("kaggle", Bool),
            ("machine_shape", OptStr),
            ("gpus", Num),
            ("cpu_cores", OptNum),
            ("amp", Str),
            ("notes", List),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "capability",
        &[
            ("id", Str),
            ("key", Str),
            ("name", Str),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "cell",
        &[
            ("id", Str),
            ("capability", Str),
            ("platform", Str),
            ("support", Str),
            ("note", Str),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "shape",
        &[
            ("id", Str),
            ("name", Str),
            ("accelerator", Str),
            ("status", Str),
            ("platform", OptStr),
            ("stored_as", OptStr),
            ("what", Str),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "domain",
        &[
            ("id", Str),
            ("key", Str),
            ("name", Str),
            ("training", Bool),
            ("pytorch", Bool),
            ("templates", List),
            ("always", Items),
            ("when_measured", Items),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "template",
        &[
            ("id", Str),
            ("key", Str),
            ("file", Str),
            ("on_by_default", List),
            ("opt_in", List),
            ("why_not_default", Str),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "worth_gpu",
        &[
            ("id", Str),
            ("task", Str),
            ("name", Str),
            ("cpu_below_rows", Num),
            ("gpu_from_rows", Num),
            ("gpu_from_refits", OptNum),
            ("cpu_reason", Str),
            ("gpu_reason", Str),
            ("refits_reason", OptStr),
            ("between_reason", Str),
            ("advice", List),
            ("kgadvise_thresholds", List),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "rule",
        &[
            ("id", Str),
            ("title", Str),
            ("severity", Str),
            ("what", Str),
            ("why", Str),
            ("example", Str),
            ("fix", Str),
            ("thresholds", List),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "threshold",
        &[
            ("id", Str),
            ("value", Num),
            ("unit", Str),
            ("what", Str),
            ("kgadvise", Bool),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
    (
        "fact",
        &[
            ("id", Str),
            ("value", Num),
            ("unit", Str),
            ("what", Str),
            ("source", Str),
            ("as_of", Str),
        ],
    ),
];

/// The fields of a domain's `always` / `when_measured` items (`rulebook::DefaultItem`).
const DEFAULT_ITEM: &[(&str, Kind)] = &[
    ("text", Str),
    ("amp", DefBool),
    ("workers", DefBool),
    ("requires", OptStr),
    ("multi_gpu", DefBool),
    ("gpu", DefBool),
];

/// Separators of the compact form; the rules text may not contain them.
const RS: char = '\u{1e}';
const US: char = '\u{1f}';
const GS: char = '\u{1d}';
const FS: char = '\u{1c}';

/// One TOML file to the compact form: entries separated by RS, each `table US field US field ...` in
/// the order of [`TABLES`]. The schema is checked here (unknown tables and keys, missing keys, wrong
/// types), naming the entry.
fn convert(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let doc: toml::Table = toml::from_str(&text).map_err(|e| e.to_string())?;
    let mut records = Vec::new();
    for (table, entries) in &doc {
        let Some((_, fields)) = TABLES.iter().find(|(name, _)| name == table) else {
            return Err(format!("unknown table `[[{table}]]`"));
        };
        let toml::Value::Array(entries) = entries else {
            return Err(format!(
                "`{table}` must be an array of tables (`[[{table}]]`)"
            ));
        };
        for entry in entries {
            let toml::Value::Table(entry) = entry else {
                return Err(format!(
                    "`{table}` must be an array of tables (`[[{table}]]`)"
                ));
            };
            let what = format!(
                "{table} `{}`",
                entry.get("id").and_then(|v| v.as_str()).unwrap_or("?")
            );
            let mut record = table.clone();
            for field in encode_table(entry, fields, &what)? {
                record.push(US);
                record.push_str(&field);
            }
            records.push(record);
        }
    }
    Ok(records.join(&RS.to_string()))
}

fn encode_table(
    entry: &toml::Table,
    fields: &[(&str, Kind)],
    what: &str,
) -> Result<Vec<String>, String> {
    if let Some(key) = entry
        .keys()
        .find(|k| !fields.iter().any(|(name, _)| name == k))
    {
        let known: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
        return Err(format!(
            "{what}: unknown field `{key}`, expected one of {}",
            known.join(", ")
        ));
    }
    let mut out = Vec::new();
    for (name, kind) in fields {
        let value = entry.get(*name);
        let wrong = |expected: &str| format!("{what}: `{name}` must be {expected}");
        let field = match (kind, value) {
            (Str | Bool | Num | List | Items, None) => {
                return Err(format!("{what}: missing field `{name}`"));
            }
            (OptStr | OptNum | DefBool, None) => match kind {
                DefBool => "0".to_string(),
                _ => String::new(),
            },
            (Str, Some(v)) => text(v.as_str().ok_or_else(|| wrong("a string"))?, what)?.to_string(),
            (OptStr, Some(v)) => format!(
                "+{}",
                text(v.as_str().ok_or_else(|| wrong("a string"))?, what)?
            ),
            (Bool | DefBool, Some(v)) => if v.as_bool().ok_or_else(|| wrong("true or false"))? {
                "1"
            } else {
                "0"
            }
            .to_string(),
            (Num | OptNum, Some(v)) => match v {
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) if f.is_finite() => format!("{f:?}"),
                _ => return Err(wrong("a finite number")),
            },
            (List, Some(v)) => {
                let items = v.as_array().ok_or_else(|| wrong("a list of strings"))?;
                let mut s = String::new();
                for item in items {
                    s.push(GS);
                    s.push_str(text(
                        item.as_str().ok_or_else(|| wrong("a list of strings"))?,
                        what,
                    )?);
                }
                s
            }
            (Items, Some(v)) => {
                let items = v.as_array().ok_or_else(|| wrong("a list of tables"))?;
                let mut s = String::new();
                for item in items {
                    let item = item.as_table().ok_or_else(|| wrong("a list of tables"))?;
                    s.push(GS);
                    let sub = encode_table(item, DEFAULT_ITEM, &format!("{what} `{name}`"))?;
                    s.push_str(&sub.join(&FS.to_string()));
                }
                s
            }
        };
        out.push(field);
    }
    Ok(out)
}

fn text<'a>(s: &'a str, what: &str) -> Result<&'a str, String> {
    if s.contains([RS, US, GS, FS]) {
        return Err(format!(
            "{what}: a string holds a control character U+001C..U+001F"
        ));
    }
    Ok(s)
}

//! Turns `rules/*.toml` (the single source of the knowledge) into postcard bytes at build time, so that
//! no TOML or JSON parser for the rules is in the binaries or the wasm. The schema is the serde structs
//! of core/src/rulebook/schema.rs, compiled here too: each file is read with `toml` (unknown tables and
//! keys, missing keys and wrong types fail the build naming the file, with the TOML line and column) and
//! written with `postcard`. The cross-references are validated when the rule book is read, and
//! `rulebook::tests` (feature `rules-toml`) checks that the embedded bytes give exactly the rule book
//! serde gives from the TOML text.
//!
//! Writes `$OUT_DIR/<file>.postcard` and `$OUT_DIR/rules_embedded.rs`: `EMBEDDED_POSTCARD` (file name,
//! bytes through `include_bytes!`) and, for the `rules-toml` feature, `EMBEDDED` (file name, TOML text
//! through `include_str!`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

// The methods of the schema types are for the library, not for this script.
#[allow(dead_code)]
#[path = "src/rulebook/schema.rs"]
mod schema;

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
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let rules = manifest.join("..").join("rules");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/rulebook/schema.rs");
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
    let mut postcard_list = String::new();
    let mut toml_list = String::new();
    for file in FILES {
        let path = rules.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        match convert(&path) {
            Ok(bytes) => {
                let target = out.join(file.replace(".toml", ".postcard"));
                std::fs::write(&target, bytes).expect("OUT_DIR is writable");
                let _ = writeln!(
                    postcard_list,
                    "    ({file:?}, include_bytes!({:?})),",
                    target.display().to_string()
                );
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
        "/// The rule files as postcard bytes of `rulebook::RulesFile`, converted from `rules/*.toml` by\n\
         /// `core/build.rs`: (file name, bytes).\n\
         pub const EMBEDDED_POSTCARD: &[(&str, &[u8])] = &[\n{postcard_list}];\n\n\
         /// The rule files as written: (file name, TOML text).\n\
         #[cfg(feature = \"rules-toml\")]\n\
         pub const EMBEDDED: &[(&str, &str)] = &[\n{toml_list}];\n"
    );
    std::fs::write(out.join("rules_embedded.rs"), code).expect("OUT_DIR is writable");
}

/// One TOML file to postcard bytes, through the schema's serde structs.
fn convert(path: &Path) -> Result<Vec<u8>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let parsed: schema::RulesFile = toml::from_str(&text).map_err(|e| e.to_string())?;
    postcard::to_allocvec(&parsed).map_err(|e| e.to_string())
}

//! Writes the npm package's TypeScript declarations, `$OUT_DIR/kgadvise.d.ts`, from the JSON schemas of
//! core's types: the advisors are the rows of core's table (`advise::TABLE`, core linked here as a
//! build-dependency with its feature `schema`), each row gives its one-line doc and the schemas of its
//! request (as serde reads it) and its report (as serde writes it), which schemars derives from the serde
//! types, and build/dts.rs writes them as TypeScript. The JavaScript functions are those `npm/index.js`
//! defines. An advisor that core answers is declared with its own types without any change here; one it
//! does not answer yet gets the generic `AdvisorRequest`/`AdvisorReport` (and throws "unknown advisor").
//!
//! A schema the writer cannot read is not a build failure of the workspace: the file then starts with
//! `// kgadvise-dts: error` lines (and cargo prints a warning), and scripts/build-npm.sh refuses it.

#[path = "build/dts.rs"]
mod dts;

use std::path::{Path, PathBuf};

// Only for its feature `preserve_order`: a schema's properties in the order of the struct's fields.
use schemars as _;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let api_js = manifest.join("../npm/index.js");
    println!("cargo::rerun-if-changed={}", api_js.display());
    println!("cargo::rerun-if-changed=build/dts.rs");

    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("kgadvise.d.ts");
    let text = match declarations(&api_js) {
        Ok(text) => text,
        Err(errors) => {
            for e in &errors {
                println!("cargo::warning=kgadvise-dts: {e}");
            }
            errors
                .iter()
                .map(|e| format!("// {}: {e}\n", dts::ERROR_MARK))
                .collect()
        }
    };
    if let Err(e) = std::fs::write(&out, text) {
        println!(
            "cargo::warning=kgadvise-dts: cannot write {}: {e}",
            out.display()
        );
    }
}

fn declarations(api_js: &Path) -> Result<String, Vec<String>> {
    let api = std::fs::read_to_string(api_js)
        .map_err(|e| vec![format!("cannot read {}: {e}", api_js.display())])?;
    let functions = dts::functions_of_api(&api);
    if functions.is_empty() {
        return Err(vec![format!(
            "{}: no `export const name = advisor('command')` lines",
            api_js.display()
        )]);
    }
    dts::generate(&dts::schemas(), &functions)
}

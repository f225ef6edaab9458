//! Turns `rules/*.toml` (the single source of the knowledge) into Rust source at build time, so that
//! the binaries and the wasm hold the rule book as a `static` in their data section: no TOML, JSON or
//! binary decoder for the rules, and nothing to build or check at run time.
//!
//! It compiles the library's own schema and loader (`src/rulebook/schema.rs`, `src/rulebook/load.rs`
//! through `#[path]`) and reads the files with them exactly as `RuleBook::from_sources` does with the
//! `rules-toml` feature: unknown tables and keys, missing keys and wrong types fail the build naming the
//! file, with the TOML line and column, and so does any cross-reference error (duplicate or malformed
//! IDs, unknown platforms/capabilities/shapes/templates, an incomplete matrix, empty sources). The
//! validated book is baked with `databake` (the `Bake` derives of the schema types, which exist only in
//! this script's copy: see below): text and lists become `Cow::Borrowed` of literals, dates `AsOf::ymd`
//! const calls, and the ID index comes out already sorted. `rulebook::tests::embedded_book_is_the_toml`
//! (feature `rules-toml`) checks that the baked book equals what serde reads from the TOML text.
//!
//! Without the feature `rule-prose` (the page's build) the finding rules' long prose (`what`, `why`,
//! `example`) is baked empty (`RuleBook::without_rule_prose`): the page reads it from the site's
//! `web/rules-prose.json` (`explain::rules_prose_json`, kept fresh by `tests/tests/rules_data.rs`).
//!
//! Writes `$OUT_DIR/rules_embedded.rs`: `RULEBOOK` (the baked `RuleBook`) and, for the `rules-toml`
//! feature, `EMBEDDED` (file name, TOML text through `include_str!`); and `$OUT_DIR/rule_ids.rs`: one
//! typed constant per entry ID (`rulebook::ids`), so that a mistyped ID in core fails the build.
//!
//! The library is compiled with `--cfg kgadvise_lib` (`cargo::rustc-cfg` below; a build script's cfgs never
//! apply to the build script itself), and the schema's `Bake` derives are `cfg_attr(not(kgadvise_lib))`:
//! databake is a build-dependency only.
// A build script reports by failing the build: the workspace's no-panic lints are for the library.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::path::PathBuf;

use databake::Bake;

// The methods of the schema types are for the library, not for this script.
#[allow(dead_code)]
#[path = "src/rulebook/schema.rs"]
mod schema;

#[allow(dead_code)]
#[path = "src/rulebook/load.rs"]
mod load;

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
    "loop.toml",
];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let rules = manifest.join("..").join("rules");
    println!("cargo::rustc-cfg=kgadvise_lib");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/rulebook/schema.rs");
    println!("cargo::rerun-if-changed=src/rulebook/load.rs");
    println!("cargo::rerun-if-changed={}", rules.display());
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
    let mut texts = Vec::new();
    let mut toml_list = String::new();
    for file in FILES {
        let path = rules.join(file);
        println!("cargo::rerun-if-changed={}", path.display());
        match std::fs::read_to_string(&path) {
            Ok(text) => texts.push((*file, text)),
            Err(e) => errors.push(format!("rules/{file}: {e}")),
        }
        let _ = writeln!(
            toml_list,
            "    ({file:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    let sources: Vec<(&str, &str)> = texts.iter().map(|(f, t)| (*f, t.as_str())).collect();
    let book = schema::RuleBook::from_sources(&sources)
        .map_err(|found| errors.extend(found.iter().map(|e| e.to_string())))
        .ok();
    let book = match book {
        Some(book) if errors.is_empty() => book,
        _ => fail(&errors),
    };
    // The page's build leaves the rules' long prose out of the wasm (it reads it from rules-prose.json);
    // every other build (feature `rule-prose`, a default) keeps it.
    let book = if std::env::var_os("CARGO_FEATURE_RULE_PROSE").is_some() {
        book
    } else {
        book.without_rule_prose()
    };
    let baked = book.bake(&Default::default());
    let code = format!(
        "// Baked by core/build.rs from rules/*.toml: do not edit.\n\
         extern crate alloc;\n\n\
         /// The rule book, validated by core/build.rs.\n\
         static RULEBOOK: RuleBook = {baked};\n\n\
         /// The rule files as written: (file name, TOML text).\n\
         #[cfg(feature = \"rules-toml\")]\n\
         pub const EMBEDDED: &[(&str, &str)] = &[\n{toml_list}];\n"
    );
    std::fs::write(out.join("rules_embedded.rs"), code).expect("OUT_DIR is writable");
    match id_constants(&book) {
        Ok(ids) => std::fs::write(out.join("rule_ids.rs"), ids).expect("OUT_DIR is writable"),
        Err(errors) => fail(&errors),
    }
}

/// One typed constant per entry ID (`rulebook::ids`): `rule::KQ020`, `threshold::CAP_FACTOR`,
/// `fact::QUOTA_GPU_SESSION_HOURS`, `entry::MATRIX_BF16_T4X2`. Core names IDs only through them, so a
/// mistyped ID fails the build instead of silently never firing. The constant's name is the ID without
/// its `threshold.`/`fact.` prefix, upper-cased, with `.` and `-` as `_`.
fn id_constants(book: &schema::RuleBook) -> Result<String, Vec<String>> {
    let mut modules: [(&str, &str, &str, Vec<String>); 4] = [
        (
            "rule",
            "RuleId",
            "Finding rules (`[[rule]]`), by code.",
            Vec::new(),
        ),
        (
            "threshold",
            "ThresholdId",
            "Named numbers (`[[threshold]]`).",
            Vec::new(),
        ),
        (
            "fact",
            "FactId",
            "Dated Kaggle facts (`[[fact]]`).",
            Vec::new(),
        ),
        (
            "entry",
            "EntryId",
            "Every other data entry (platforms, matrix cells, shapes, domains, ...).",
            Vec::new(),
        ),
    ];
    let mut seen = std::collections::BTreeMap::new();
    let mut errors = Vec::new();
    for (id, kind) in book.index.iter() {
        let (slot, stripped) = match *kind {
            "rule" => (0, id.as_ref()),
            "threshold" => (1, id.trim_start_matches("threshold.")),
            "fact" => (2, id.trim_start_matches("fact.")),
            _ => (3, id.as_ref()),
        };
        let name: String = stripped
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            errors.push(format!(
                "`{id}`: its constant name `{name}` is not a Rust identifier"
            ));
            continue;
        }
        if let Some(other) = seen.insert((slot, name.clone()), id.to_string()) {
            errors.push(format!(
                "`{id}` and `{other}` both give the constant name `{name}`"
            ));
        }
        let (_, ty, _, consts) = &mut modules[slot];
        consts.push(format!(
            "    pub const {name}: {ty} = {ty}({:?});\n",
            id.as_ref()
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut code = String::from("// Generated by core/build.rs from rules/*.toml: do not edit.\n");
    for (module, ty, doc, consts) in &modules {
        let _ = write!(
            code,
            "\n/// {doc}\npub mod {module} {{\n    use super::{ty};\n{}}}\n",
            consts.concat()
        );
    }
    Ok(code)
}

/// Fails the build with every problem found, each on its own line (and as a cargo warning, which cargo
/// shows even when it hides the script's output).
fn fail(errors: &[String]) -> ! {
    for e in errors {
        println!("cargo::warning={}", e.replace('\n', " "));
        eprintln!("{e}");
    }
    std::process::exit(1);
}

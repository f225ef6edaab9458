//! Shared helpers of the conformance and end-to-end tests: where the fixtures are (all inside the
//! repository: `tests/fixtures/`, the real samples in `tests/fixtures/realdata/`), and how to run the real
//! `kgadvise` binary.

use std::path::{Path, PathBuf};

/// The workspace root (the folder holding `Cargo.toml` of the workspace).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// `tests/fixtures/realdata/<rel>`: one real sample written by someone else (provenance in
/// `tests/fixtures/realdata/SOURCES.md`). Panics naming the file when it is missing.
pub fn real_sample(rel: &str) -> PathBuf {
    let path = fixture("realdata").join(rel);
    assert!(
        path.is_file(),
        "{} is missing: the real samples live in tests/fixtures/realdata/ (see its SOURCES.md)",
        path.display()
    );
    path
}

/// Every file of one `tests/fixtures/realdata/<category>` folder, sorted. Panics with a clear message when
/// the folder is missing or empty, so a test that walks it cannot pass vacuously.
pub fn realdata(category: &str) -> Vec<PathBuf> {
    let dir = fixture("realdata").join(category);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e} (the real samples live in tests/fixtures/realdata/)",
                dir.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
}

/// `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    workspace_root().join("tests").join("fixtures").join(rel)
}

/// The `kgadvise` binary built by `cargo test --workspace` (cli/tests makes cargo build it), as an
/// assert_cmd command.
/// Hermetic: no Kaggle CLI is found (a name on no PATH) and the state folder is the test's current
/// folder's, unless a test sets them.
pub fn kgadvise() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(kgadvise_path());
    cmd.env("KGADVISE_KAGGLE", "kgadvise-tests-no-kaggle-cli")
        .env_remove("KGADVISE_STATE_DIR");
    cmd
}

/// Path of the built binary: next to this test executable's `deps/` folder.
pub fn kgadvise_path() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let bin = profile_dir.join(format!("kgadvise{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: run the tests with `cargo test --workspace` so the CLI is built",
        bin.display()
    );
    bin
}

/// Parses the stdout of a `--json` run, failing with the output when it is not exactly one JSON object.
pub fn json_of(output: &std::process::Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&output.stdout);
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) if v.is_object() => v,
        _ => panic!(
            "stdout is not one JSON object:\n{text}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// Asserts that a JSON object has a key somewhere (top level or nested), per cli.md's contract
/// ("a JSON key listed here may sit anywhere in the object").
pub fn has_key_anywhere(v: &serde_json::Value, key: &str) -> bool {
    match v {
        serde_json::Value::Object(map) => {
            map.contains_key(key) || map.values().any(|x| has_key_anywhere(x, key))
        }
        serde_json::Value::Array(items) => items.iter().any(|x| has_key_anywhere(x, key)),
        _ => false,
    }
}

/// The rule codes of a report's findings (`findings[].rule`), in the report's order: the one helper
/// for "which rules fired" over a report's JSON.
pub fn finding_rules(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .map(|findings| {
            findings
                .iter()
                .filter_map(|f| f["rule"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

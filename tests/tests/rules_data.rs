//! The rules data as a whole: docs/rules.md is generated from it and must be fresh; every rule is
//! explainable through the CLI; the core builds for wasm32 (the browser target).

use kgadvise_tests::{kgadvise, workspace_root};

#[test]
fn docs_rules_md_is_fresh() {
    let path = workspace_root().join("docs").join("rules.md");
    let expected = kgadvise_core::rulebook::registry::render_rules_markdown();
    if std::env::var_os("KGADVISE_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/rules.md is stale: regenerate it with `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test rules_data` \
         or `kgadvise explain --all-markdown > docs/rules.md`"
    );
}

#[test]
fn every_rule_code_is_explained_by_the_cli() {
    for rule in kgadvise_core::rulebook().rules.iter() {
        let out = kgadvise().args(["explain", &rule.id]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", rule.id);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("### What it checks") && text.contains(&*rule.title),
            "{}: {text}",
            rule.id
        );
    }
}

/// The core must stay portable to the browser. Built in its own target dir so it never waits on the
/// lock of the `cargo test` that runs it.
#[test]
fn core_builds_for_wasm32() {
    let root = workspace_root();
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "kgadvise-core",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .env("CARGO_TARGET_DIR", root.join("target").join("wasm32-check"))
        .current_dir(&root)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "kgadvise-core does not build for wasm32-unknown-unknown (rustup target add wasm32-unknown-unknown?):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

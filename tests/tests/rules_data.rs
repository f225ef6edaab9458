//! The rules data as a whole: docs/rules.md is generated from it and must be fresh; every rule is
//! explainable through the CLI. (The core's wasm32 build is a step of scripts/test-all.sh.)

use kgadvise_tests::{kgadvise, workspace_root};

#[test]
fn docs_rules_md_is_fresh() {
    let path = workspace_root().join("docs").join("rules.md");
    let expected = kgadvise_core::registry::render_rules_markdown();
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

//! The rules data as a whole: docs/rules.md and the site's web/rules-prose.json are generated from it and
//! must be fresh, and the CLI's `explain --all-markdown` regenerates docs/rules.md. (The rule book itself is validated by core/build.rs, which
//! fails the build on any error; the core's wasm32 build is a step of scripts/test-all.sh.)

use kgadvise_tests::{kgadvise, workspace_root};

#[test]
fn docs_rules_md_is_fresh() {
    let path = workspace_root().join("docs").join("rules.md");
    let expected = kgadvise_core::explain::render_rules_markdown();
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

/// The page's wasm holds the rule book without the rules' long prose (core's feature `rule-prose` is off
/// there); the page reads it from the site's rules-prose.json, which trunk copies from web/ and the service
/// worker caches. That file is the rules' prose exactly.
#[test]
fn web_rules_prose_json_is_fresh() {
    let path = workspace_root().join("web").join("rules-prose.json");
    let expected = kgadvise_core::explain::rules_prose_json();
    if std::env::var_os("KGADVISE_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "web/rules-prose.json is stale: regenerate it with `KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test rules_data`"
    );
}

/// The documented way to regenerate docs/rules.md, `kgadvise explain --all-markdown`, gives exactly the
/// rendering the freshness test above compares with (one run of the binary; each rule's doc sections are
/// checked in core, `explain::tests`, and `explain ID` through the CLI in cli_foundation.rs).
#[test]
fn cli_all_markdown_is_the_rules_doc() {
    let out = kgadvise()
        .args(["explain", "--all-markdown"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout) == kgadvise_core::explain::render_rules_markdown(),
        "`kgadvise explain --all-markdown` differs from explain::render_rules_markdown()"
    );
}

//! The binary of this package through `CARGO_BIN_EXE_kgadvise` (the one cargo built for this test run), and
//! checks the two things every subcommand relies on: --help works and a usage error exits 2.

#[test]
fn help_lists_the_subcommands_and_examples() {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_kgadvise"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "matrix",
        "defaults",
        "worth-gpu",
        "explain",
        "Examples:",
        "Exit codes",
    ] {
        assert!(text.contains(word), "--help lacks {word}:\n{text}");
    }
}

#[test]
fn a_usage_error_exits_2() {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_kgadvise"))
        .arg("no-such-command")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

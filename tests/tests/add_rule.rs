//! `scripts/add-rule.sh` in a copy of the repository's rules, core sources and rule fixtures: the next
//! free code, a rule stub the rule book's loader accepts, a function stub beside the area's latest rule
//! (before its tests), and a two-sided fixture.

use std::path::{Path, PathBuf};
use std::process::Command;

use kgadvise_core::RuleBook;
use kgadvise_tests::workspace_root;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A fresh copy of what the script reads and writes, in the system's temporary folder.
fn scratch_repo(name: &str) -> PathBuf {
    let root = workspace_root();
    let repo =
        std::env::temp_dir().join(format!("kgadvise-add-rule-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    for dir in ["rules", "core/src", "tests/fixtures/rules"] {
        copy_tree(&root.join(dir), &repo.join(dir));
    }
    repo
}

fn add_rule(repo: &Path, args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg(workspace_root().join("scripts/add-rule.sh"))
        .args(args)
        .env("KGADVISE_ROOT", repo)
        .output()
        .expect("bash runs")
}

fn rule_book(repo: &Path) -> RuleBook {
    let mut files: Vec<(String, String)> = std::fs::read_dir(repo.join("rules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    let sources: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    RuleBook::from_sources(&sources).unwrap_or_else(|e| panic!("the stub is refused: {e:?}"))
}

#[test]
fn add_rule_scaffolds_the_next_free_code() {
    let repo = scratch_repo("next");
    let before = rule_book(&repo);
    let highest = before
        .rules
        .iter()
        .map(|r| r.id.to_string())
        .filter(|id| id.starts_with("KS"))
        .max()
        .unwrap();
    let next = format!("KS{:03}", highest[2..].parse::<u32>().unwrap() + 1);

    let out = add_rule(&repo, &["KS", "Folds of different sizes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let book = rule_book(&repo);
    let doc = book.rule(&next).expect("the new rule is in the book");
    assert_eq!(doc.title, "Folds of different sizes");
    let fixture =
        std::fs::read_to_string(repo.join(format!("tests/fixtures/rules/{next}.toml"))).unwrap();
    let cases: toml::Table = toml::from_str(&fixture).unwrap();
    let fires: Vec<bool> = cases["case"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["fires"].as_bool().unwrap())
        .collect();
    assert_eq!(fires, [true, false]);
    let stubbed = walk(&repo.join("core/src"))
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.contains(&format!("rule::{next}"))
        })
        .collect::<Vec<_>>();
    assert_eq!(stubbed.len(), 1, "one module holds the stub: {stubbed:?}");
    let text = std::fs::read_to_string(&stubbed[0]).unwrap();
    let stub_at = text.find(&format!("rule::{next}")).unwrap();
    if let Some(tests_at) = text.rfind("\n#[cfg(test)]") {
        assert!(
            stub_at < tests_at,
            "the stub goes before the module's tests"
        );
    }

    // The same code again is refused; an unknown area is a usage error.
    let again = add_rule(&repo, &["--code", &next, "KS", "Again"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("taken"));
    assert_eq!(add_rule(&repo, &["KX", "Nope"]).status.code(), Some(2));
    std::fs::remove_dir_all(&repo).unwrap();
}

#[test]
fn add_rule_scaffolds_a_rule_of_the_loop() {
    let repo = scratch_repo("loop");
    let out = add_rule(&repo, &["KL", "A push Kaggle answered twice"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let book = rule_book(&repo);
    let added = book
        .rules
        .iter()
        .find(|r| r.title == "A push Kaggle answered twice")
        .expect("the new rule is in the book");
    let code = added.id.to_string();
    assert!(code.starts_with("KL"), "{code}");
    assert!(
        repo.join(format!("tests/fixtures/rules/{code}.toml"))
            .is_file()
    );
    let stubbed: Vec<PathBuf> = walk(&repo.join("core/src"))
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains(&format!("rule::{code}"))
        })
        .collect();
    assert_eq!(stubbed.len(), 1, "{stubbed:?}");
    assert!(
        stubbed[0].starts_with(repo.join("core/src/kaggle_loop")),
        "{stubbed:?}"
    );
    std::fs::remove_dir_all(&repo).unwrap();
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

//! The floors of core (ARCHITECTURE.md, "Floors"): an area of `core/src` may use its own floor and the
//! floors below it, never one above, and the areas' imports have no cycle. Read from the `crate::…` paths
//! of every source file (comments left out), so a new import that climbs fails here, naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kgadvise_tests::workspace_root;

/// Every area of core/src (a folder or a file beside lib.rs) and its floor, lowest first: `text/` reads
/// user text; the rule book stands on it; `request.rs` (what every request shares) on both; the advisors
/// (explain among them) on those; `advise.rs`, which reaches every advisor by name, on top.
const FLOORS: &[(&str, u8)] = &[
    ("text", 0),
    ("rulebook", 1),
    ("request", 2),
    ("bench", 3),
    ("diagnose", 3),
    ("explain", 3),
    ("hardware", 3),
    ("kernel", 3),
    ("quota", 3),
    ("stats", 3),
    ("advise", 4),
];

type Imports = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

#[test]
fn no_area_imports_a_higher_floor_and_no_cycle() {
    let imports = core_imports();
    let floor = |area: &str| FLOORS.iter().find(|(a, _)| *a == area).map(|(_, f)| *f);
    let mut wrong = Vec::new();
    for (area, uses) in &imports {
        let Some(own) = floor(area) else {
            wrong.push(format!(
                "core/src/{area}: not on a floor (add it to FLOORS)"
            ));
            continue;
        };
        for (used, files) in uses {
            match floor(used) {
                Some(f) if f <= own => {}
                _ => wrong.push(format!("{area} imports {used}, a higher floor: {files:?}")),
            }
        }
    }
    if let Some(cycle) = cycle(&imports) {
        wrong.push(format!("a cycle between areas: {}", cycle.join(" -> ")));
    }
    assert!(wrong.is_empty(), "core's floors:\n{}", wrong.join("\n"));
}

#[test]
fn the_cycle_finder_finds_one() {
    let edges = |pairs: &[(&str, &str)]| {
        let mut imports = Imports::new();
        for (from, to) in pairs {
            imports
                .entry(from.to_string())
                .or_default()
                .entry(to.to_string())
                .or_default();
        }
        imports
    };
    assert_eq!(cycle(&edges(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        cycle(&edges(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(
        crate_paths("use crate::text::json; // crate::advise\nx(crate::quota::y)"),
        ["text", "quota"]
    );
    let names = root_names("pub use rulebook::finding::{Finding, Severity};\npub use text::X;");
    assert_eq!(names["Severity"], "rulebook");
    assert_eq!(names["X"], "text");
}

/// The names lib.rs re-exports at the crate's root (`pub use rulebook::finding::{Finding, Severity};`),
/// each with the area it comes from: `crate::Severity` is an import of `rulebook`.
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in lib.lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let area = path.split("::").next().unwrap_or_default();
        let last = path.rsplit("::").next().unwrap_or_default();
        for name in last
            .trim_end_matches(';')
            .trim_matches(['{', '}'])
            .split(',')
        {
            names.insert(name.trim().to_string(), area.to_string());
        }
    }
    names
}

/// area -> the areas it uses -> the files that use each.
fn core_imports() -> Imports {
    let src = workspace_root().join("core/src");
    let reexported = root_names(&std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default());
    let mut imports = Imports::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap_or(&file);
        let area = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_string();
        if area == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let uses = imports.entry(area.clone()).or_default();
        for used in crate_paths(&text) {
            let used = reexported.get(&used).cloned().unwrap_or(used);
            if used != area {
                uses.entry(used)
                    .or_default()
                    .insert(rel.display().to_string());
            }
        }
    }
    imports
}

/// The first segment of every `crate::` path outside comments.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or_default();
        for (i, _) in code.match_indices("crate::") {
            let preceded = code[..i].chars().next_back();
            if preceded.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `kgadvise_crate::` or the like
            }
            let name: String = code[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// One cycle of the import graph (its first area repeated at the end), if there is one.
fn cycle(imports: &Imports) -> Option<Vec<String>> {
    fn visit(
        area: &str,
        imports: &Imports,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|a| a == area) {
            let mut cycle = path[at..].to_vec();
            cycle.push(area.to_string());
            return Some(cycle);
        }
        if done.contains(area) {
            return None;
        }
        path.push(area.to_string());
        for used in imports.get(area).into_iter().flat_map(|u| u.keys()) {
            if let Some(cycle) = visit(used, imports, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(area.to_string());
        None
    }
    let mut done = BTreeSet::new();
    imports
        .keys()
        .find_map(|area| visit(area, imports, &mut Vec::new(), &mut done))
}

//! The layers point one way (docs/ARCHITECTURE.md, "Invariants"): a front
//! end never imports another (only `src/cli` names `crate::cli`), and the
//! database layer knows nothing of issues (`src/pg` never names
//! `crate::issues`). Checked on the source text, comments aside.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Lines of `file` that name `needle` outside a comment.
fn uses(file: &Path, needle: &str) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let code = l.split("//").next().unwrap_or("");
            code.contains(needle)
        })
        .map(|(n, l)| format!("{}:{}: {}", file.display(), n + 1, l.trim()))
        .collect()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn only_the_cli_names_the_cli() {
    let cli = src().join("cli");
    let offending: Vec<String> = rust_files(&src())
        .iter()
        .filter(|f| !f.starts_with(&cli) && !f.ends_with("main.rs") && !f.ends_with("lib.rs"))
        .flat_map(|f| uses(f, "crate::cli"))
        .collect();
    assert!(
        offending.is_empty(),
        "front ends import the CLI:\n{}",
        offending.join("\n")
    );
}

#[test]
fn the_database_layer_knows_nothing_of_issues() {
    let offending: Vec<String> = rust_files(&src().join("pg"))
        .iter()
        .flat_map(|f| {
            let mut found = uses(f, "crate::issues");
            found.extend(uses(f, "lease_"));
            found
        })
        .collect();
    assert!(
        offending.is_empty(),
        "src/pg names issue rules:\n{}",
        offending.join("\n")
    );
}

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

/// The lines of `file` that are code: comment lines, `#[cfg(test)]` modules
/// (tests spell the classes they expect) and the failure-class declarations
/// themselves (`class_enum!` blocks; the sandbox's hand-written
/// `FailureClass` and its `as_str`) left out.
fn code_lines(file: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let sandbox = file.ends_with("src/sandbox/mod.rs");
    let mut out = Vec::new();
    let mut in_declaration = false;
    for (n, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t == "#[cfg(test)]" {
            let next = lines[n + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty());
            if next.is_some_and(|l| l.starts_with("mod ") || l.starts_with("pub mod ")) {
                break;
            }
        }
        if line.contains("class_enum! {")
            || (sandbox && (t == "pub enum FailureClass {" || t == "impl FailureClass {"))
        {
            in_declaration = true;
        }
        if in_declaration {
            in_declaration = *line != "}";
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push((n + 1, line.to_string()));
    }
    out
}

/// Issue 20: a failure class is spelled once, as a variant of its domain's
/// enum; everywhere else the code names the variant. (A declaration's
/// `example` is a Scheme program and may pass a class as data.)
#[test]
fn failure_classes_are_spelled_only_in_their_enums() {
    let quoted: Vec<String> = tusk::failure_classes()
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect();
    let mut offending = Vec::new();
    for file in rust_files(&src()) {
        for (n, line) in code_lines(&file) {
            if line.trim_start().starts_with("example: r#\"") {
                continue;
            }
            for class in quoted.iter().filter(|q| line.contains(q.as_str())) {
                offending.push(format!("{}:{n}: {class}", file.display()));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "failure classes spelled outside their enums (use the variant):\n{}",
        offending.join("\n")
    );
}

#[test]
fn failure_classes_are_unique_across_domains() {
    let all = tusk::failure_classes();
    let mut seen = std::collections::BTreeSet::new();
    let twice: Vec<&str> = all.iter().copied().filter(|c| !seen.insert(*c)).collect();
    assert!(twice.is_empty(), "classes in two enums: {twice:?}");
    assert!(all.len() > 100, "{} classes", all.len());
}

/// The functions of `file` longer than `limit` lines (signature to closing
/// brace, nested functions inside their parent), outside `#[cfg(test)]`
/// modules. Braces in strings, characters and line comments are skipped.
fn long_functions(file: &Path, limit: usize) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let code = |line: &str| -> String {
        let mut out = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => {
                                chars.next();
                            }
                            '"' => break,
                            _ => {}
                        }
                    }
                }
                '\'' => {
                    // A character literal ('{', '\'', '\u{7b}'), not a lifetime.
                    let rest: String = chars.clone().take(12).collect();
                    if let Some(end) = rest.find('\'').filter(|&e| e > 0 && e <= 10) {
                        for _ in 0..=end {
                            chars.next();
                        }
                    }
                }
                '/' if chars.peek() == Some(&'/') => break,
                c => out.push(c),
            }
        }
        out
    };
    let starts_fn = |line: &str| -> Option<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "fn")?;
        let before_ok = words[..at].iter().all(|w| {
            w.starts_with("pub") || ["const", "async", "unsafe", "extern", "\"C\""].contains(w)
        });
        let name = words.get(at + 1).unwrap_or(&"").split(['(', '<']).next();
        before_ok.then(|| name.unwrap_or("").to_string())
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let Some(name) = starts_fn(&code(lines[i])) else {
            i += 1;
            continue;
        };
        let (mut depth, mut started, mut j) = (0i64, false, i);
        while j < lines.len() {
            let line = code(lines[j]);
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        started = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (started && depth <= 0) || (!started && line.trim_end().ends_with(';')) {
                break;
            }
            j += 1;
        }
        if started && j - i + 1 > limit {
            out.push(format!(
                "{}:{}: {name} ({} lines)",
                file.display(),
                i + 1,
                j - i + 1
            ));
        }
        i = if started { j + 1 } else { i + 1 };
    }
    out
}

#[test]
fn no_function_outside_tests_is_over_100_lines() {
    let long: Vec<String> = rust_files(&src())
        .iter()
        .flat_map(|f| long_functions(f, 100))
        .collect();
    assert!(
        long.is_empty(),
        "functions over 100 lines (split them into named steps):\n{}",
        long.join("\n")
    );
    // The counter itself sees a long function.
    let probe = std::env::temp_dir().join(format!("tusk-long-fn-{}.rs", std::process::id()));
    let body: String = (0..101)
        .map(|i| format!("    let _x{i} = '{{';\n"))
        .collect();
    std::fs::write(&probe, format!("pub fn probe() {{\n{body}}}\n")).unwrap();
    let found = long_functions(&probe, 100);
    std::fs::remove_file(&probe).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
}

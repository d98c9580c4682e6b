//! Every transcript in the README and docs/ is what really happens: each
//! ```` ```console ```` block is run, command by command (`$ ` lines, through
//! bash, with this build's `tusk` first on PATH), in a fresh directory that
//! holds only the repository's `examples/`; each command's stdout must equal
//! the lines shown under it. Run ids, durations, instants, digests and
//! session ids are normalized on both sides; nothing else is.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One shown command and the output shown under it.
struct Step {
    command: String,
    shown: String,
}

/// The ```console blocks of a Markdown file, each as its steps.
fn console_blocks(text: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Step>> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_end() == "```console" => current = Some(Vec::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.push(current.take().unwrap()),
            Some(steps) => match line.strip_prefix("$ ") {
                Some(command) => steps.push(Step {
                    command: command.to_string(),
                    shown: String::new(),
                }),
                None => {
                    let step = steps
                        .last_mut()
                        .expect("a console block starts with a `$ ` command");
                    step.shown.push_str(line);
                    step.shown.push('\n');
                }
            },
        }
    }
    assert!(current.is_none(), "an unclosed ```console block");
    blocks
}

/// `text` with what differs between runs replaced by a name for it.
fn normalize(text: &str) -> String {
    let rules: [(&str, &str); 7] = [
        (r"run-\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{12}", "<run>"),
        (r"(repl|mcp)-[0-9a-f]{8,}", "<session>"),
        (r"\d+ ms\b", "<ms>"),
        (
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
            "<instant>",
        ),
        (r"pol1_[0-9a-f]{64}", "<digest>"),
        (r"\b[0-9a-f]{64}\b", "<sha256>"),
        (r"[ \t]+\n", "\n"),
    ];
    let mut out = text.to_string();
    for (pattern, name) in rules {
        out = regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&out, name)
            .into_owned();
    }
    out
}

fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_console_transcript_is_what_running_it_prints() {
    let bin_dir = Path::new(crate::common::BIN)
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut readme_blocks = 0;
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (b, block) in console_blocks(&text).into_iter().enumerate() {
            if file.ends_with("README.md") {
                readme_blocks += 1;
            }
            let dir = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(&examples, dir.path().join("examples")).unwrap();
            for step in block {
                let out = Command::new("bash")
                    .args(["-c", &step.command])
                    .current_dir(dir.path())
                    .env("PATH", &path)
                    .env_remove("TUSK_STORE")
                    .env("LC_ALL", "C")
                    .output()
                    .unwrap();
                let got = String::from_utf8_lossy(&out.stdout);
                checked += 1;
                if normalize(&got) != normalize(&step.shown) {
                    failures.push(format!(
                        "{} (block {}): `{}`\n--- shown\n{}--- printed\n{}",
                        file.display(),
                        b + 1,
                        step.command,
                        step.shown,
                        got
                    ));
                }
            }
        }
    }
    assert!(readme_blocks >= 1, "the README shows no transcript");
    assert!(checked >= 5, "only {checked} commands in the transcripts");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn normalization_is_narrow() {
    assert_eq!(
        normalize("run run-20261128T095026.082Z-416f082e69df · 18 ms  \n"),
        "run <run> · <ms>\n"
    );
    // Ids, counts and words are compared as they are.
    assert_eq!(
        normalize("bd-1 4 call(s) accepted\n"),
        "bd-1 4 call(s) accepted\n"
    );
}

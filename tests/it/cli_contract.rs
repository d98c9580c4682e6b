//! The command line keeps its word: with `--json`, a usage error of any
//! subcommand (discovered from `tusk --help`, so a new one is covered) is one
//! JSON error object on stdout with the documented class and exit code, and
//! so is a missing file.

use crate::common::{Run, Test};
use serde_json::Value;

/// The subcommands `tusk PATH --help` lists.
fn subcommands(t: &Test, path: &[String]) -> Vec<String> {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let help = String::from_utf8(t.run(&args).stdout).unwrap();
    crate::common::help_commands(&help)
        .into_iter()
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path, parents included.
fn command_paths(t: &Test) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut todo = vec![Vec::new()];
    while let Some(path) = todo.pop() {
        for name in subcommands(t, &path) {
            let mut child = path.clone();
            child.push(name);
            todo.push(child.clone());
            paths.push(child);
        }
    }
    paths
}

fn json_error(out: &Run, what: &str) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: stdout is not one JSON object ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(v["result"], "rejected", "{what}: {v:#}");
    assert!(
        v["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: {v:#}"
    );
    v
}

#[test]
fn every_subcommand_answers_a_bad_flag_with_json_under_json() {
    let t = Test::on_files();
    let paths = command_paths(&t);
    assert!(paths.len() > 40, "found only {} command paths", paths.len());
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.extend(["--definitely-not-a-flag", "--json"]);
        let out = t.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = json_error(&out, &args.join(" "));
        assert_eq!(v["class"], "cli.unknown_flag", "{args:?}: {v:#}");
        assert!(v["hint"].is_string(), "{args:?}: {v:#}");
        // Without --json, clap's text on stderr and nothing on stdout.
        args.pop();
        let out = t.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(
        !t.path(".premath").exists(),
        "a usage error wrote something"
    );
}

#[test]
fn an_unknown_subcommand_or_flag_names_the_nearest() {
    let t = Test::on_files();
    for (args, class, near) in [
        (&["isue", "--json"][..], "cli.unknown_subcommand", "issue"),
        (
            &["issue", "lst", "--json"],
            "cli.unknown_subcommand",
            "list",
        ),
        (
            &["issue", "list", "--jsn", "--json"],
            "cli.unknown_flag",
            "--json",
        ),
        (
            &["eval", "--timeout-ms", "soon", "--json"],
            "cli.invalid_value",
            "",
        ),
    ] {
        let out = t.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = json_error(&out, &args.join(" "));
        assert_eq!(v["class"], class, "{args:?}: {v:#}");
        assert!(
            v["hint"].as_str().unwrap().contains(near),
            "{args:?}: {v:#}"
        );
    }
    // Help and version still print as text, exit 0.
    let out = t.run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("Exit codes:") && help.contains("130"),
        "{help}"
    );
}

#[test]
fn a_missing_file_is_a_json_error_with_its_class() {
    let t = Test::on_files();
    let cases: [(&[&str], i32, &str); 3] = [
        (&["eval", "nope.scm", "--json"], 2, "request.unusable"),
        (
            &["issue", "list", "--issues", "typo.jsonl", "--json"],
            1,
            "issue_store.not_found",
        ),
        (
            &["dep", "diagnostics", "--issues", "typo.jsonl", "--json"],
            1,
            "issue_store.not_found",
        ),
    ];
    for (args, code, class) in cases {
        let out = t.run(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let v = json_error(&out, &args.join(" "));
        assert_eq!(v["class"], class, "{args:?}: {v:#}");
    }
}

/// The required arguments a command's usage line names (`<ID>`, `--input
/// <INPUT>`), outside its optional `[...]` groups.
fn required_in_usage(help: &str) -> Vec<String> {
    let usage = help
        .lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .unwrap_or_default();
    let mut depth = 0;
    let mut outside = String::new();
    for c in usage.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    outside
        .split_whitespace()
        .filter(|w| w.starts_with('<') && *w != "<COMMAND>")
        .map(str::to_string)
        .collect()
}

#[test]
fn a_missing_argument_is_named_in_the_json_error() {
    let t = Test::on_files();
    let mut checked = 0;
    for path in command_paths(&t) {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = String::from_utf8(t.run(&args).stdout).unwrap();
        if help.contains("\nCommands:") {
            continue;
        }
        let required = required_in_usage(&help);
        // Servers (`observe`) print no JSON; their usage errors are clap's.
        if required.is_empty() || !help.contains("--json") {
            continue;
        }
        args.pop();
        args.push("--json");
        let out = t.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v = json_error(&out, &args.join(" "));
        assert_eq!(v["class"], "cli.missing_argument", "{args:?}: {v:#}");
        let message = v["message"].as_str().unwrap();
        assert!(
            required.iter().any(|r| message.contains(r.as_str())),
            "{args:?}: the message names none of {required:?}: {message}"
        );
        checked += 1;
    }
    assert!(
        checked >= 10,
        "only {checked} commands have required arguments"
    );
}

/// Every command that names a thing by id or path answers a name that is not
/// there with one JSON object under `--json` (the command's documented
/// report, or the CLI's error object) and a non-zero exit.
#[test]
fn an_unknown_id_or_file_answers_in_json() {
    let t = Test::on_files();
    assert!(t.run(&["init"]).status.success());
    let cases: &[&[&str]] = &[
        &["actions", "nosuch"],
        &["actions", "issue.get"],
        &["replay", "--run", "nope"],
        &["replay", "diff", "a", "b"],
        &["harness-join-check", "--input", "nope.json"],
        &["issue", "show", "bd-99"],
        &["issue", "claim", "bd-99"],
        &["issue", "close", "bd-99"],
        &["issue", "update", "bd-99", "--status", "open"],
        &["issue", "comment", "bd-99", "--text", "x"],
        &["issue", "lease-renew", "bd-99"],
        &["issue", "lease-release", "bd-99"],
        &["dep", "add", "bd-98", "bd-99"],
        &["dep", "tree", "bd-99"],
        &["harness-session", "read", "--path", "nope.json"],
        &["harness-feature", "read", "--path", "nope.json"],
        &["policy", "digest", "--policy", "nope.toml"],
        &["eval", "nope.scm"],
        &["scheme-eval", "--program", "nope.json"],
        &["issue", "list", "--issues", "nope.jsonl"],
        &["store", "status", "--store", "postgres://127.0.0.1:1/none"],
        &["doctor", "--policy", "nope.toml"],
    ];
    for case in cases {
        let mut args = case.to_vec();
        args.push("--json");
        let out = t.run(&args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: stdout is not one JSON object ({e}): {stdout}\nstderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(v.is_object(), "{args:?}: {v:#}");
    }
    // The misspelled action gets what was meant.
    let v = json_error(&t.run(&["actions", "issue.get", "--json"]), "actions");
    assert_eq!(v["class"], "cli.unknown_action");
    assert!(v["hint"].as_str().unwrap().contains("issue.show"), "{v:#}");
}

/// Every flag and argument of every command has help (issue 60): `--help`
/// of each command and subcommand, walked from the top, lists no option
/// without a description.
#[test]
fn every_flag_of_every_command_has_help() {
    fn help(path: &[String]) -> String {
        let out = std::process::Command::new(crate::common::BIN)
            .args(path)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{path:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }
    let option = regex::Regex::new(
        r"^\s{2,}((?:-\w, )?--?[\w-]+(?: <[^>]+>)?(?:\.\.\.)?|\[?<[^>]+>\]?(?:\.\.\.)?)(.*)$",
    )
    .unwrap();
    let noise = regex::Regex::new(r"\[(default|possible values|aliases?): [^\]]*\]").unwrap();
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    let (mut missing, mut walked) = (Vec::new(), 0);
    while let Some(path) = todo.pop() {
        walked += 1;
        let text = help(&path);
        let lines: Vec<&str> = text.lines().collect();
        let mut section = "";
        for (i, line) in lines.iter().enumerate() {
            if !line.is_empty() && !line.starts_with(' ') && line.ends_with(':') {
                section = line;
                continue;
            }
            if section.contains("ommands") {
                if let Some(name) = line
                    .split_whitespace()
                    .next()
                    .filter(|_| line.starts_with("  "))
                {
                    if name != "help" {
                        let mut sub = path.clone();
                        sub.push(name.to_string());
                        todo.push(sub);
                    }
                }
            } else if !section.is_empty() {
                if let Some(m) = option.captures(line) {
                    let rest = noise.replace_all(m[2].trim(), "").trim().to_string();
                    let next = lines.get(i + 1).copied().unwrap_or("");
                    let wrapped = next.starts_with("          ")
                        && !next.trim().is_empty()
                        && !next.trim().starts_with('-');
                    if rest.is_empty() && !wrapped {
                        missing.push(format!("tusk {} {}", path.join(" "), &m[1]));
                    }
                }
            }
        }
    }
    assert!(walked > 60, "walked only {walked} commands");
    assert!(
        missing.is_empty(),
        "flags without help:\n{}",
        missing.join("\n")
    );
}

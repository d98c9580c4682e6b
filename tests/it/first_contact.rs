//! What a new user meets first, through the real binary in scratch
//! directories: `--version` with the build's commit, shell completions and
//! manual pages from the clap definitions, `tusk doctor` on fresh, healthy and
//! broken set-ups, `tusk prime` against the action catalogue, `-C DIR`, the
//! nearest-subcommand suggestion, and refusals that name their fix.

use crate::common::Test;
use crate::pg_support;

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

/// `tusk doctor --json ARGS`: exit code and the report.
fn doctor(dir: &Test, extra: &[&str]) -> (i32, Value) {
    let (code, out, err) = dir.tusk(&["doctor", "--json"]).args(extra).run().parts();
    let report: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("doctor --json printed no JSON ({e}):\n{out}\n{err}"));
    (code, report)
}

fn digest(dir: &Test) -> String {
    let (code, out, err) = dir.run(&["policy", "digest"]).parts();
    assert_eq!(code, 0, "{err}");
    out.trim().to_string()
}

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no {id} check in {report:#}"))
}

/// The top-level subcommands as `tusk --help` lists them (not `help`).
fn subcommands() -> Vec<String> {
    let (code, out, err) = Test::on_files().run(&["--help"]).parts();
    assert_eq!(code, 0, "{err}");
    let list: Vec<String> = crate::common::help_commands(&out)
        .into_iter()
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(
        list.len() > 20 && list.contains(&"doctor".to_string()),
        "{out}"
    );
    list
}

#[test]
fn version_names_the_package_and_the_commit_it_was_built_from() {
    let (code, out, err) = Test::on_files().run(&["--version"]).parts();
    assert_eq!(code, 0, "{err}");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(manifest)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let in_checkout = git(&["rev-parse", "--show-toplevel"])
        .is_some_and(|top| std::fs::canonicalize(top).ok() == std::fs::canonicalize(manifest).ok());
    let version = env!("CARGO_PKG_VERSION");
    match git(&["rev-parse", "--short", "HEAD"]).filter(|_| in_checkout) {
        Some(commit) => assert_eq!(out.trim(), format!("tusk {version} ({commit})")),
        None => assert_eq!(out.trim(), format!("tusk {version}")),
    }
}

#[test]
fn completions_for_every_shell_name_every_subcommand() {
    let names = subcommands();
    let dir = Test::on_files();
    for shell in SHELLS {
        let (code, script, err) = dir.run(&["completions", shell]).parts();
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(script.len() > 1000, "{shell}: {script}");
        for name in &names {
            assert!(
                script.contains(name.as_str()),
                "{shell} script lacks {name}"
            );
        }
        // Nested subcommands are completed too.
        assert!(
            script.contains("claim-next"),
            "{shell} script lacks issue claim-next"
        );
    }
    let (code, _, err) = dir.run(&["completions", "tcsh"]).parts();
    assert_eq!(code, 2);
    assert!(err.contains("possible values"), "{err}");
}

#[test]
fn man_prints_tusk_1_or_writes_a_page_per_subcommand() {
    let dir = Test::on_files();
    let (code, page, err) = dir.run(&["man"]).parts();
    assert_eq!(code, 0, "{err}");
    assert!(page.contains(".TH tusk 1"), "{page}");
    assert!(page.contains("doctor"), "{page}");
    let (code, _, err) = dir.run(&["man", "pages"]).parts();
    assert_eq!(code, 0, "{err}");
    let page = |name: &str| {
        let path = dir.path("pages").join(format!("{name}.1"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    assert_eq!(page("tusk").trim(), {
        let (_, stdout, _) = dir.run(&["man"]).parts();
        stdout.trim().to_string()
    });
    for name in subcommands() {
        let text = page(&format!("tusk-{name}"));
        assert!(
            text.starts_with(".ie") || text.contains(".TH"),
            "{name}: {text}"
        );
    }
    assert!(page("tusk-issue-claim-next").contains("claim"));
    // Synopses give every flag its value name (clap_mangen's own printed
    // `[-C ]`), global flags included.
    let top = page("tusk");
    assert!(top.contains("[\\-C DIR] [\\-\\-otlp URL]"), "{top}");
    let show = page("tusk-issue-show");
    let synopsis = show
        .lines()
        .skip_while(|l| !l.starts_with(".SH SYNOPSIS"))
        .nth(1)
        .unwrap();
    for part in [
        "[\\-\\-store URL]",
        "[\\-\\-json]",
        "[\\-\\-otlp URL]",
        " ID",
    ] {
        assert!(synopsis.contains(part), "{part}: {synopsis}");
    }
}

/// Subcommand help keeps the store's and the global flags in their own
/// sections; the top-level help lists the commands in sections.
#[test]
fn help_separates_global_flags_and_groups_commands() {
    let dir = Test::on_files();
    let (_, help, _) = dir.run(&["issue", "list", "--help"]).parts();
    let section = |title: &str| -> Vec<String> {
        help.lines()
            .skip_while(|l| *l != title)
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(str::to_string)
            .collect()
    };
    let own = section("Options:").join("\n");
    assert!(
        own.contains("--status") && !own.contains("--otlp") && !own.contains("--store"),
        "{help}"
    );
    assert!(
        section("Store options:")
            .join("\n")
            .contains("--store <URL>"),
        "{help}"
    );
    assert!(
        section("Global options:")
            .join("\n")
            .contains("--otlp <URL>"),
        "{help}"
    );
    let (_, top, _) = dir.run(&["--help"]).parts();
    let titles: Vec<&str> = top.lines().filter(|l| l.ends_with("commands:")).collect();
    assert_eq!(
        titles,
        [
            "Queue commands:",
            "Program commands:",
            "Server commands:",
            "Harness commands:",
            "Setup commands:"
        ],
        "{top}"
    );
    let queue: Vec<&str> = top
        .lines()
        .skip_while(|l| *l != "Queue commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(queue, ["issue", "dep", "plan", "store", "merge-driver"]);
}

#[test]
fn doctor_on_a_fresh_directory_says_to_run_init_and_writes_nothing() {
    let dir = Test::on_files();
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["schema"], "tusk.doctor.v0");
    assert_eq!(report["result"], "warn");
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "store",
            "recovery",
            "policy",
            "authority",
            "effects",
            "trajectory",
            "files",
            "git",
            "sandbox",
            "disk"
        ]
    );
    let store = check(&report, "store");
    assert_eq!(store["status"], "warn");
    assert!(
        store["fix"].as_str().unwrap().contains("tusk init"),
        "{store}"
    );
    // No policy file: the built-in default and its digest, as `tusk policy digest` prints it.
    let policy = check(&report, "policy");
    assert_eq!(policy["status"], "ok");
    assert!(policy["message"].as_str().unwrap().contains(&digest(&dir)));
    assert!(policy.get("fix").is_none());
    assert_eq!(check(&report, "sandbox")["status"], "ok", "{report:#}");
    for c in report["checks"].as_array().unwrap() {
        let keys: Vec<&String> = c.as_object().unwrap().keys().collect();
        assert!(keys.len() == 3 || keys.len() == 4, "{c}");
        assert_eq!(c["fix"].is_string(), c["status"] != "ok", "{c}");
    }
    assert!(!dir.path(".premath").exists(), "doctor created files");
    assert!(check(&report, "disk")["message"]
        .as_str()
        .unwrap()
        .ends_with("MiB free under ."));
    let (code, text, _) = dir.run(&["doctor"]).parts();
    assert_eq!(code, 0);
    assert!(text.contains("fix: run `tusk init`"), "{text}");
    assert!(text.lines().last().unwrap().starts_with("warn: "), "{text}");
}

#[test]
fn doctor_on_a_healthy_store_is_all_ok() {
    let dir = Test::on_files();
    assert_eq!(dir.run(&["init"]).parts().0, 0);
    let (code, _, err) = dir.run(&["issue", "add", "Write the parser"]).parts();
    assert_eq!(code, 0, "{err}");
    dir.write("p.scm", "(issue.ready)");
    let (code, _, err) = dir.run(&["eval", "p.scm"]).parts();
    assert_eq!(code, 0, "{err}");
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["result"], "ok", "{report:#}");
    for c in report["checks"].as_array().unwrap() {
        assert_eq!(c["status"], "ok", "{c}");
    }
    let message = |id| check(&report, id)["message"].as_str().unwrap().to_string();
    assert!(message("store").contains("1 issue(s)"), "{report:#}");
    // The `issue add` and the `eval`: a command is a recorded run too.
    assert!(message("effects").contains("2 run(s)"), "{report:#}");
    assert!(message("trajectory").contains("step row(s)"), "{report:#}");
    assert!(
        message("authority").contains("actor tester (from TUSK_ACTOR)"),
        "{report:#}"
    );
    let (code, text, _) = dir.run(&["doctor"]).parts();
    assert_eq!(code, 0);
    assert!(
        text.lines().last().unwrap().starts_with("ok: 10 ok"),
        "{text}"
    );
}

#[test]
fn doctor_fails_a_corrupt_store_and_names_the_line() {
    let dir = Test::on_files();
    dir.write(
        ".premath/issues.jsonl",
        "{\"id\":\"bd-1\",\"title\":\"a\",\"status\":\"open\"}\n{not json\n",
    );
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(report["result"], "fail");
    let store = check(&report, "store");
    assert_eq!(store["status"], "fail");
    assert!(
        store["message"].as_str().unwrap().contains("line 2"),
        "{store}"
    );
    assert!(store["fix"].as_str().unwrap().contains("repair"), "{store}");
    // The other checks still run and report on their own.
    assert_eq!(check(&report, "sandbox")["status"], "ok");
    let (code, text, _) = dir.run(&["doctor"]).parts();
    assert_eq!(code, 1);
    assert!(text.lines().last().unwrap().starts_with("fail: "), "{text}");
}

#[test]
fn doctor_judges_the_policy_file() {
    let dir = Test::on_files();
    assert_eq!(dir.run(&["init"]).parts().0, 0);
    dir.write(".premath/mutation_policy.json", "{\"schema\": 1,");
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 1);
    let policy = check(&report, "policy");
    assert_eq!(policy["status"], "fail");
    assert!(
        policy["fix"]
            .as_str()
            .unwrap()
            .contains("tusk policy digest"),
        "{policy}"
    );
    dir.write(
        ".premath/mutation_policy.json",
        r#"{"schema": 1, "policyKind": "premath.mutation_policy.v1",
            "allowedActions": ["issue.add", "issue.clam"], "requireJoinClosed": false}"#,
    );
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 0);
    let policy = check(&report, "policy");
    assert_eq!(policy["status"], "warn", "{policy}");
    let message = policy["message"].as_str().unwrap();
    assert!(
        message.contains("issue.clam") && !message.contains("issue.add,"),
        "{policy}"
    );
    assert!(message.contains(&digest(&dir)), "{policy}");
}

#[test]
fn doctor_reports_torn_and_corrupt_logs() {
    let dir = Test::on_files();
    assert_eq!(dir.run(&["init"]).parts().0, 0);
    dir.write("p.scm", "(issue.ready)");
    assert_eq!(dir.run(&["eval", "p.scm"]).parts().0, 0);
    // A writer that died mid-append leaves a torn last line.
    let effects = dir.path(".premath/host_effects.jsonl");
    let whole = std::fs::read(&effects).unwrap();
    let mut torn = whole.clone();
    torn.extend_from_slice(b"{\"kind\":\"premath.sch");
    std::fs::write(&effects, &torn).unwrap();
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 0, "{report:#}");
    let c = check(&report, "effects");
    assert_eq!(c["status"], "warn", "{c}");
    let fix = c["fix"].as_str().unwrap();
    assert!(
        fix.contains(&format!(
            "truncate -s {} .premath/host_effects.jsonl",
            whole.len()
        )),
        "{fix}"
    );
    // A torn row in the middle (the next run started a new line) is skipped
    // with a warning, and a row edited after the fact breaks its run's chain.
    let mut lines: Vec<String> = String::from_utf8(whole.clone())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.insert(1, "{\"kind\":\"premath.sch".into());
    std::fs::write(&effects, lines.join("\n") + "\n").unwrap();
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 0, "{report:#}");
    let c = check(&report, "effects");
    assert_eq!(c["status"], "warn", "{c}");
    assert!(
        c["message"].as_str().unwrap().contains("skipping line 2"),
        "{c}"
    );
    assert!(
        c["fix"].as_str().unwrap().contains("replay --verify"),
        "{c}"
    );
    lines.remove(1);
    lines[1] = lines[1].replace("\"issue.ready\"", "\"issue.list\"");
    std::fs::write(&effects, lines.join("\n") + "\n").unwrap();
    let (_, report) = doctor(&dir, &[]);
    let c = check(&report, "effects");
    assert_eq!(c["status"], "warn", "{c}");
    let message = c["message"].as_str().unwrap();
    assert!(
        message.contains("1 run(s) fail the log's own checks"),
        "{c}"
    );
    std::fs::write(&effects, &whole).unwrap();
    assert_eq!(check(&doctor(&dir, &[]).1, "effects")["status"], "ok");
    // A bad row in the middle of the trajectory is a failure.
    let trajectory = dir.path(".premath/harness_trajectory.jsonl");
    let mut text = std::fs::read_to_string(&trajectory).unwrap();
    text.insert_str(0, "{oops\n");
    std::fs::write(&trajectory, text).unwrap();
    let (code, report) = doctor(&dir, &[]);
    assert_eq!(code, 1);
    let c = check(&report, "trajectory");
    assert_eq!(c["status"], "fail", "{c}");
    assert!(c["message"].as_str().unwrap().contains("line 1"), "{c}");
}

#[test]
fn doctor_fails_an_unreachable_database_and_says_what_to_do() {
    let dir = Test::on_files();
    let url = "postgres://tusk@127.0.0.1:1/x";
    let (code, report) = doctor(&dir, &["--store", url]);
    assert_eq!(code, 1, "{report:#}");
    let store = check(&report, "store");
    assert_eq!(store["status"], "fail");
    assert!(
        store["message"]
            .as_str()
            .unwrap()
            .contains("cannot reach the server"),
        "{store}"
    );
    assert!(
        store["fix"]
            .as_str()
            .unwrap()
            .contains("start the PostgreSQL server"),
        "{store}"
    );
    // The logs live in the same database: they cannot be read either.
    assert_eq!(check(&report, "effects")["status"], "fail");
    // TUSK_STORE names it just as well.
    let out = dir.tusk(&["doctor", "--json"]).env("TUSK_STORE", url).run();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(check(&report, "store")["status"], "fail");
    let (code, report) = doctor(&dir, &["--store", "mysql://x"]);
    assert_eq!(code, 1);
    assert!(check(&report, "store")["fix"]
        .as_str()
        .unwrap()
        .contains("postgres://"));
}

#[test]
fn doctor_on_a_database_checks_its_schema() {
    let db = pg_support::TestDb::bare();
    let dir = Test::on_files();
    let (code, report) = doctor(&dir, &["--store", &db.url]);
    assert_eq!(code, 1, "{report:#}");
    let store = check(&report, "store");
    assert!(
        store["fix"].as_str().unwrap().contains("tusk store init"),
        "{store}"
    );
    db.run_ok(&["store", "init"]);
    db.run_ok(&["issue", "add", "On the database"]);
    let (code, report) = doctor(&dir, &["--store", &db.url]);
    assert_eq!(code, 0, "{report:#}");
    let store = check(&report, "store");
    assert_eq!(store["status"], "ok", "{store}");
    let message = store["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("schema version {}", tusk::pg::SCHEMA_VERSION))
            && message.contains("1 issue line(s)"),
        "{message}"
    );
    assert!(
        !message.contains(":tusk-test-"),
        "the password is printed: {message}"
    );
}

/// An argument line of the guide: name, type, required.
type ArgLine = (String, String, bool);

/// `(id, arguments)` for each `### \`id\`` section of the guide.
fn featured_sections(guide: &str) -> Vec<(String, Vec<ArgLine>)> {
    let mut out: Vec<(String, Vec<ArgLine>)> = Vec::new();
    for line in guide.lines() {
        if let Some(rest) = line.strip_prefix("### `") {
            let id = rest.split('`').next().unwrap().to_string();
            out.push((id, Vec::new()));
        } else if line.starts_with("## ") {
            if out.last().is_some() && line != "## Five actions to start with" {
                break;
            }
        } else if let (Some(rest), Some(last)) = (line.strip_prefix("- `"), out.last_mut()) {
            let (name, rest) = rest.split_once("` (").expect("- `name` (type, required)");
            let inner = rest.split(')').next().unwrap();
            let (ty, req) = inner.split_once(", ").unwrap();
            last.1.push((name.into(), ty.into(), req == "required"));
        }
    }
    out
}

#[test]
fn prime_is_generated_from_the_catalogue() {
    let dir = Test::on_files();
    let (code, guide, err) = dir.run(&["prime"]).parts();
    assert_eq!(code, 0, "{err}");
    let (code, catalogue, err) = dir.run(&["actions", "--json"]).parts();
    assert_eq!(code, 0, "{err}");
    let catalogue: Vec<Value> = serde_json::from_str(&catalogue).unwrap();
    let find = |id: &str| {
        catalogue
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("the guide names {id}, which is no action"))
    };
    let featured = featured_sections(&guide);
    assert_eq!(featured.len(), 5, "{guide}");
    for (id, args) in &featured {
        let action = find(id);
        let properties = action["args"]["properties"].as_object().unwrap();
        let required: Vec<&str> = action["args"]["required"]
            .as_array()
            .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        let names: Vec<&str> = args.iter().map(|(n, _, _)| n.as_str()).collect();
        let mut want: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut have = names.clone();
        want.sort();
        have.sort();
        assert_eq!(have, want, "{id}'s arguments");
        for (name, ty, req) in args {
            assert_eq!(
                *req,
                required.contains(&name.as_str()),
                "{id}.{name} required"
            );
            // An optional struct is `anyOf [{$ref}, null]`: a hash.
            let property = properties[name]["anyOf"]
                .as_array()
                .and_then(|b| b.iter().find(|b| b["type"] != "null"))
                .unwrap_or(&properties[name]);
            let schema_type = if property.get("$ref").is_some() {
                &json!("object")
            } else {
                &property["type"]
            };
            let base = match ty.as_str() {
                "hash" => "object",
                t => t.strip_prefix("list-of-").map_or(t, |_| "array"),
            };
            assert!(
                schema_type == base
                    || schema_type
                        .as_array()
                        .is_some_and(|t| t.contains(&json!(base))),
                "{id}.{name}: guide says {ty}, schema {schema_type}"
            );
        }
        let heading = format!("### `{id}` ({})", action["kind"].as_str().unwrap());
        assert!(guide.contains(&heading), "{heading}");
        let example = action["example"].as_str().unwrap();
        assert!(
            guide.contains(&format!("Example: `{example}`")),
            "{id} example"
        );
    }
    // Every action, in the catalogue's order, with its kind and description.
    let listed: Vec<&str> = guide
        .split("## All actions\n\n")
        .nth(1)
        .expect("an All actions section")
        .lines()
        .take_while(|l| l.starts_with("- `"))
        .collect();
    assert_eq!(listed.len(), catalogue.len());
    for (line, action) in listed.iter().zip(&catalogue) {
        let want = format!(
            "- `{}` ({}): {}",
            action["id"].as_str().unwrap(),
            action["kind"].as_str().unwrap(),
            action["description"].as_str().unwrap()
        );
        assert!(line.starts_with(&want), "{line}");
        // Each payload's shape (issue 56), the featured ones' in their
        // sections: the keys a program reads.
        let featured = featured.iter().any(|(id, _)| *id == action["id"]);
        assert_eq!(line.contains(" → `"), !featured, "{line}");
    }
    for want in [
        "`issue.blocked` (read)",
        "items: [Item]",
        "- `Blocker` = `{",
        "dependsOnId",
        "- `Decision` = `{attempt, retry, maxAttempts, backoffClass",
        "## Readiness",
        "`parent-child` only organizes",
        "handled: true",
        "unexamined",
        "match-lambda",
        "make-hash",
        "two-element array",
    ] {
        assert!(guide.contains(want), "{want:?} missing from the guide");
    }
    // The helpers it names are bound, and its example runs as shown.
    let helpers: Vec<&str> = guide
        .lines()
        .filter_map(|l| l.strip_prefix("- `("))
        .map(|l| l.split([' ', ')']).next().unwrap())
        .collect();
    assert_eq!(helpers.len(), 6, "{helpers:?}");
    dir.write("helpers.scm", &format!("(begin {} #t)", helpers.join(" ")));
    let (code, out, err) = dir.run(&["eval", "--json", "helpers.scm"]).parts();
    assert_eq!(code, 0, "{out}{err}");
    // The guide's programs run as shown: the first claims the next ready
    // issue, the second (issue 46) is a worker's whole turn.
    let program = |n: usize| {
        guide
            .split("```scheme\n")
            .nth(n)
            .and_then(|rest| rest.split("\n```").next())
            .expect("a program of the guide")
    };
    let digest = digest(&dir);
    let run = |name: &str, text: &str| -> Value {
        dir.write(name, text);
        let (code, out, err) = dir
            .run(&[
                "eval",
                "--json",
                name,
                "--policy-digest",
                &digest,
                "--instruction-ref",
                "instr://prime",
            ])
            .parts();
        assert_eq!(code, 0, "{out}{err}");
        serde_json::from_str(&out).unwrap()
    };
    let example = program(1);
    assert!(example.contains("issue.claim_next"), "{example}");
    assert_eq!(dir.run(&["issue", "add", "First"]).parts().0, 0);
    let result = run("example.scm", example);
    assert_eq!(result["value"], "bd-1", "{result:#}");
    assert_eq!(dir.run(&["issue", "add", "Second"]).parts().0, 0);
    let result = run("turn.scm", program(2));
    assert_eq!(result["value"], json!({"closed": "bd-2"}), "{result:#}");
    // Read by a model at the start of its work: kept under 24 KB (every
    // payload's shape is in it since issue 56).
    assert!(
        guide.len() < 24 * 1024,
        "the guide is {} bytes",
        guide.len()
    );
    // The authority section names the gate's classes and the digest command.
    let authority = guide.split("## Authority").nth(1).unwrap();
    for needle in [
        "mutation.use_evidence_missing",
        "mutation.policy_digest_mismatch",
        "mutation.action_not_allowed",
        "tusk policy digest",
    ] {
        assert!(authority.contains(needle), "{needle}");
    }
}

#[test]
fn an_unknown_subcommand_suggests_the_nearest() {
    let dir = Test::on_files();
    for (typo, near) in [
        (vec!["isue"], "'issue'"),
        (vec!["doctr"], "'doctor'"),
        (vec!["issue", "redy"], "'ready'"),
    ] {
        let (code, _, err) = dir.run(&typo).parts();
        assert_eq!(code, 2, "{typo:?}");
        assert!(
            err.contains(&format!("a similar subcommand exists: {near}")),
            "{err}"
        );
    }
}

#[test]
fn a_mutation_without_authority_names_the_flags_and_the_digest_command() {
    let dir = Test::on_files();
    dir.write("add.scm", "(issue.add (hash \"title\" \"x\"))");
    let (code, text, _) = dir.run(&["eval", "add.scm"]).parts();
    assert_eq!(code, 1);
    assert!(
        text.contains("call-1 issue.add → mutation.use_evidence_missing"),
        "{text}"
    );
    assert!(
        text.contains("fix: give the mutation authority")
            && text.contains("--policy-digest \"$(tusk policy digest)\" --instruction-ref REF"),
        "{text}"
    );
    // The JSON keeps its shape and class; the diagnostic names the fix.
    let (code, out, _) = dir.run(&["eval", "--json", "add.scm"]).parts();
    assert_eq!(code, 1);
    let result: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        result["failureClasses"],
        json!(["mutation.use_evidence_missing"])
    );
    let effect = &result["effects"][0];
    assert_eq!(effect["resultClass"], "mutation.use_evidence_missing");
    let diagnostic = effect["payload"]["diagnostic"].as_str().unwrap();
    assert!(
        diagnostic.contains("missing: policyDigest, instructionRef")
            && diagnostic.contains("tusk policy digest"),
        "{diagnostic}"
    );
    // A stale digest says where the right one comes from.
    let (code, text, _) = dir
        .run(&[
            "eval",
            "add.scm",
            "--policy-digest",
            "pol1_00",
            "--instruction-ref",
            "instr://t",
        ])
        .parts();
    assert_eq!(code, 1);
    assert!(text.contains("mutation.policy_digest_mismatch"), "{text}");
    assert!(
        text.contains("fix: use the active policy's digest"),
        "{text}"
    );
    assert!(!dir.path(".premath/issues.jsonl").exists());
}

#[test]
fn dash_c_runs_in_another_directory() {
    let dir = Test::on_files();
    std::fs::create_dir(dir.path("repo")).unwrap();
    let (code, _, err) = dir
        .run(&["-C", "repo", "issue", "add", "Elsewhere"])
        .parts();
    assert_eq!(code, 0, "{err}");
    assert!(dir.path("repo/.premath/issues.jsonl").exists());
    assert!(!dir.path(".premath").exists());
    let (code, _, err) = dir.run(&["-C", "missing", "issue", "list"]).parts();
    assert_eq!(code, 2);
    assert!(err.contains("cannot change to missing"), "{err}");
}

//! A change and its record are one (issue 61): writers killed at every
//! fault point between a change and its rows, and at random moments, leave
//! no change in the store without its row and no accepted row without its
//! change, once the store is next opened; `tusk replay` keeps parity.
//!
//! The writers are `tusk eval` programs and command-line loops adding
//! issues, each title unique, so that the store's issues and the effect
//! log's `issue.add` rows can be compared as sets.

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

const EFFECTS: &str = ".premath/host_effects.jsonl";
const TRAJECTORY: &str = ".premath/harness_trajectory.jsonl";

fn store_with_one_issue() -> Test {
    let test = Test::on_files();
    test.tusk(&["init", "--no-git"]).run().status(0);
    test.tusk(&["issue", "add", "target"]).run().status(0);
    test
}

/// The titles of the store's issues, but the first (the seed).
fn titles_in_store(test: &Test) -> BTreeSet<String> {
    test.store_lines()
        .iter()
        .filter_map(|issue| issue["title"].as_str().map(str::to_string))
        .filter(|t| t != "target")
        .collect()
}

fn parsed_lines(test: &Test, rel: &str) -> Vec<Value> {
    let path = test.path(rel);
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    // A row torn by a kill mid-write is not a row.
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The titles of the accepted `issue.add` rows (recovered ones included),
/// and the step ids their envelopes name.
fn add_rows(test: &Test) -> (BTreeSet<String>, Vec<String>) {
    let mut texts = BTreeSet::new();
    let mut steps = Vec::new();
    for row in parsed_lines(test, EFFECTS) {
        if row["action"] != "issue.add" || row["envelope"]["resultClass"] != "accepted" {
            continue;
        }
        if let Some(text) = row["args"]["title"].as_str().filter(|t| *t != "target") {
            assert!(texts.insert(text.to_string()), "two rows for {text}");
        }
        if let Some(step) = row["envelope"]["trajectoryRow"]["stepId"].as_str() {
            steps.push(step.to_string());
        }
    }
    (texts, steps)
}

/// Journals of the store still there (a live writer's, or unsettled).
fn journals(test: &Test) -> Vec<String> {
    std::fs::read_dir(test.path(".premath/issues.jsonl.pending"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("calls-"))
                .collect()
        })
        .unwrap_or_default()
}

/// Opens the store (a read settles what a dead writer left), then holds
/// the invariant: every issue in the store has its accepted row, every
/// accepted row its issue, every such row its trajectory row.
fn assert_one(test: &Test, context: &str) {
    test.tusk(&["issue", "list"]).run().status(0);
    assert_eq!(
        journals(test),
        Vec::<String>::new(),
        "{context}: a journal left"
    );
    let store = titles_in_store(test);
    let (rows, steps) = add_rows(test);
    let in_store_only: Vec<_> = store.difference(&rows).collect();
    let in_log_only: Vec<_> = rows.difference(&store).collect();
    assert!(
        in_store_only.is_empty() && in_log_only.is_empty(),
        "{context}: changes without their row {in_store_only:?}; rows without their change {in_log_only:?}"
    );
    let trajectory: BTreeSet<String> = parsed_lines(test, TRAJECTORY)
        .iter()
        .filter_map(|r| r["stepId"].as_str().map(str::to_string))
        .collect();
    let missing: Vec<_> = steps.iter().filter(|s| !trajectory.contains(*s)).collect();
    assert!(
        missing.is_empty(),
        "{context}: rows without their trajectory row {missing:?}"
    );
}

fn assert_replay_parity(test: &Test, context: &str) {
    let out = test.tusk(&["replay", "--json"]).run();
    let v = out.json();
    assert_eq!(v["parity"], true, "{context}: {}", out.stdout());
}

fn authority(test: &Test) -> [String; 4] {
    [
        "--policy-digest".into(),
        test.policy_digest(),
        "--instruction-ref".into(),
        "instr://crash".into(),
    ]
}

fn add_program(titles: &[String]) -> String {
    titles
        .iter()
        .map(|t| format!("(issue.add (hash \"title\" \"{t}\"))\n"))
        .collect()
}

/// `tusk doctor`'s `recovery` check (which settles what it finds).
fn recovery_check(test: &Test) -> Value {
    let v = test.tusk(&["doctor", "--json"]).run().json();
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "recovery")
        .cloned()
        .unwrap()
}

fn killed(out: &std::process::Output) -> bool {
    out.status.signal() == Some(9)
}

#[test]
fn a_writer_killed_at_each_fault_point_leaves_each_change_with_its_row() {
    let test = store_with_one_issue();
    let auth = authority(&test);
    let mut n = 0;
    for point in tusk::fault::FILE_POINTS {
        // A program: the first and the second of its three comments.
        for nth in [1, 2] {
            n += 1;
            let texts: Vec<String> = (0..3).map(|i| format!("p{n}-{i}")).collect();
            let file = test.write("p.scm", &add_program(&texts));
            let out = test
                .tusk(&["eval"])
                .arg(&file)
                .args(&auth)
                .env("TUSK_FAULT", format!("{point}@{nth}"))
                .command()
                .output()
                .unwrap();
            assert!(killed(&out), "{point}@{nth}: {out:?}");
            assert_one(&test, &format!("eval killed at {point}@{nth}"));
        }
        // The command line.
        n += 1;
        let out = test
            .tusk(&["issue", "add", &format!("c{n}")])
            .env("TUSK_FAULT", *point)
            .command()
            .output()
            .unwrap();
        assert!(killed(&out), "{point}: {out:?}");
        assert_one(&test, &format!("command killed at {point}"));
    }
    // Every kind of kill left its trace: a recovered row, and a run closed.
    let effects = parsed_lines(&test, EFFECTS);
    let recovered = effects.iter().filter(|r| r["recovered"] == true).count();
    assert!(recovered >= 9, "{recovered} recovered rows and footers");
    assert_replay_parity(&test, "after every fault point");
    let replay = test.tusk(&["replay"]).run().status(0).stdout();
    assert!(replay.contains("recovered"), "{replay}");
}

#[test]
fn doctor_settles_what_a_killed_writer_left_and_says_so() {
    let test = store_with_one_issue();
    let auth = authority(&test);
    let file = test.write(
        "p.scm",
        "(issue.comment (hash \"id\" \"bd-1\" \"author\" \"tester\" \"text\" \"d-1\"))",
    );
    let out = test
        .tusk(&["eval"])
        .arg(&file)
        .args(&auth)
        .env("TUSK_FAULT", "store.after_rename")
        .command()
        .output()
        .unwrap();
    assert!(killed(&out), "{out:?}");
    // The comment is in the store; its row is not, yet.
    let comment_rows = |test: &Test| {
        parsed_lines(test, EFFECTS)
            .into_iter()
            .filter(|r| r["action"] == "issue.comment")
            .collect::<Vec<_>>()
    };
    assert_eq!(test.stored("bd-1")["comments"][0]["text"], "d-1");
    assert!(comment_rows(&test).is_empty());
    let check = recovery_check(&test);
    assert_eq!(check["status"], "warn", "{check}");
    let message = check["message"].as_str().unwrap();
    assert!(message.contains("recovered the rows of run-"), "{message}");
    assert!(message.contains("closed run(s) run-"), "{message}");
    assert_one(&test, "after doctor");
    let rows = comment_rows(&test);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["recovered"], true);
    assert_eq!(rows[0]["args"]["text"], "d-1");
    // Once settled, nothing is left to say.
    let check = recovery_check(&test);
    assert_eq!(check["status"], "ok", "{check}");
    // The history names the recovered change as what it is.
    let history = test
        .tusk(&["issue", "history", "bd-1"])
        .run()
        .status(0)
        .stdout();
    assert!(history.contains("recovered"), "{history}");
    assert_replay_parity(&test, "after doctor");
}

/// Kills through the issue's own recipe: programs making 60 changes and
/// command-line writers, SIGKILLed at random moments (200 kills).
#[test]
fn writers_killed_at_random_moments_leave_each_change_with_its_row() {
    const KILLS: usize = 200;
    let _heavy = heavy();
    let test = store_with_one_issue();
    let auth = authority(&test);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut killed_mid_way = 0;
    for round in 0..KILLS {
        let mut child = if round % 4 == 3 {
            test.tusk(&["issue", "add", &format!("k{round}")])
                .command()
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        } else {
            let texts: Vec<String> = (0..60).map(|i| format!("r{round}-{i}")).collect();
            let file = test.write("p.scm", &add_program(&texts));
            test.tusk(&["eval"])
                .arg(&file)
                .args(&auth)
                .command()
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        };
        let wait = if round % 4 == 3 {
            rng.below(60)
        } else {
            30 + rng.below(500)
        };
        std::thread::sleep(Duration::from_millis(wait));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.signal() == Some(9) {
            killed_mid_way += 1;
        }
        assert_one(&test, &format!("round {round}, killed after {wait} ms"));
        if round % 50 == 49 {
            assert_replay_parity(&test, &format!("round {round}"));
        }
    }
    assert!(
        killed_mid_way >= KILLS / 2,
        "only {killed_mid_way} of {KILLS} writers were killed before they ended"
    );
}

/// A journal and a writer marker are input: a cloned `.premath/` can carry
/// forged ones. Recovery writes to no file but the logs beside the store.
#[test]
fn forged_journals_and_markers_write_nothing_outside_the_store() {
    let test = store_with_one_issue();
    let victim = test.write("victim.jsonl", "{\"runId\":\"run-x\",\"writer\":\"w\"}\n");
    let before = std::fs::read(&victim).unwrap();
    let pending = test.path(".premath/issues.jsonl.pending");
    std::fs::create_dir_all(&pending).unwrap();
    let journal = serde_json::json!({
        "kind": "tusk.pending_calls.v0",
        "temp": "gone.tmp",
        "calls": [{
            "runId": "run-x", "seq": 1,
            "effects": victim, "trajectory": victim,
            "effectRow": "{\"kind\":\"premath.host_effect.row.v0\",\"runId\":\"run-x\",\"seq\":1}",
            "stepId": "s", "trajectoryRow": "{\"stepId\":\"s\"}",
            "endKind": "premath.scheme_eval.run_end.v0"
        }]
    });
    std::fs::write(pending.join("calls-forged.json"), journal.to_string()).unwrap();
    let escape = serde_json::json!({
        "kind": "tusk.pending_calls.v0", "temp": "../../etc/passwd", "calls": []
    });
    std::fs::write(pending.join("calls-escape.json"), escape.to_string()).unwrap();
    let marker = serde_json::json!({
        "kind": "tusk.log_writer.v0", "writer": "w", "log": victim,
        "footer": {"kind": "premath.scheme_eval.run_end.v0"}
    });
    std::fs::write(pending.join("writer-forged.json"), marker.to_string()).unwrap();
    let check = recovery_check(&test);
    assert_eq!(check["status"], "fail", "{check}");
    let message = check["message"].as_str().unwrap();
    assert!(
        message.contains("outside the store's directory"),
        "{message}"
    );
    assert!(message.contains("is not a file name"), "{message}");
    assert_eq!(std::fs::read(&victim).unwrap(), before);
    // The marker is dropped by the next settling, writing nothing either.
    test.tusk(&["issue", "add", "after"]).run().status(0);
    assert_eq!(std::fs::read(&victim).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(&pending)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("forged") || n.contains("escape"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The harness's files beside the store (the session file, the feature
/// ledger) are journaled like the store: a writer killed after replacing
/// one and before its rows leaves its recovered row, once the store is
/// next opened, and nothing in the journal directory.
#[test]
fn a_harness_file_replaced_before_its_row_gets_its_row() {
    let test = store_with_one_issue();
    let auth = authority(&test);
    let cases = [
        (
            "harness.session.write",
            r#"(harness.session.write (hash "state" "stopped" "summary" "crash-summary" "nextStep" "lexer"))"#,
            ".premath/harness_session.json",
            "crash-summary",
        ),
        (
            "harness.feature.write",
            r#"(harness.feature.write (hash "featureId" "crash-feature" "status" "in_progress"))"#,
            ".premath/harness_feature_ledger.json",
            "crash-feature",
        ),
    ];
    for point in tusk::fault::HARNESS_FILE_POINTS {
        for (action, program, file, marker) in cases {
            let p = test.write("p.scm", program);
            let out = test
                .tusk(&["eval"])
                .arg(&p)
                .args(&auth)
                .env("TUSK_FAULT", point)
                .command()
                .output()
                .unwrap();
            assert!(killed(&out), "{action} at {point}: {out:?}");
            assert!(
                test.read(file).contains(marker),
                "{action}: the file was replaced"
            );
            let recovered = |test: &Test| {
                parsed_lines(test, EFFECTS)
                    .iter()
                    .filter(|r| r["action"] == action && r["recovered"] == true)
                    .count()
            };
            assert_eq!(
                recovered(&test),
                0,
                "{action}: no row before the store is opened"
            );
            test.tusk(&["issue", "list"]).run().status(0);
            assert_eq!(
                recovered(&test),
                1,
                "{action} at {point}: its recovered row"
            );
            assert_eq!(
                journals(&test),
                Vec::<String>::new(),
                "{action}: a journal left"
            );
            let leftovers: Vec<String> = std::fs::read_dir(test.path(".premath"))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".tusk-tmp-"))
                .collect();
            assert!(
                leftovers.is_empty(),
                "{action}: temp files left {leftovers:?}"
            );
            assert_replay_parity(&test, action);
        }
    }
}

//! `tusk replay` through the real binary (host-api §7): parity on recorded
//! runs of every kind, divergence found at the right call and field, the log's
//! own integrity checks, truncated logs, and whole REPL sessions.

use crate::common::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const EFFECTS: &str = ".premath/host_effects.jsonl";

/// Records one run with `tusk eval`; returns its run id.
fn record(s: &Test, program: &str, extra: &[&str]) -> String {
    let (_, r) = s.eval(program, extra);
    r["runId"].as_str().expect("a run id").to_string()
}

fn replay(s: &Test, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["replay", "--json"];
    all.extend_from_slice(args);
    let out = s.run(&all);
    let code = out.status.code().expect("exited");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, v)
}

/// Every file under the scratch dir with its bytes: replay must change none.
fn snapshot(s: &Test) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &std::path::Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(s.dir(), &mut out);
    if let Some(db) = &s.db {
        let issues = s.run(&["store", "export"]).stdout;
        out.insert("db:issues".into(), issues);
        for table in ["tusk_effects", "tusk_trajectory"] {
            out.insert(format!("db:{table}"), db.log_text(table).into_bytes());
        }
    }
    out
}

/// Rewrites the effect log's rows through `edit` (row index, row) → rows,
/// then recomputes the chain: the checks under test are the others.
fn edit_log(s: &Test, edit: impl FnMut(usize, Value) -> Option<Value>) {
    rewrite_log(s, edit, true);
}

/// [`edit_log`], rechaining or not (a tamperer who does not know the chain).
fn rewrite_log(s: &Test, mut edit: impl FnMut(usize, Value) -> Option<Value>, chain: bool) {
    let mut rows: Vec<Value> = s
        .jsonl(EFFECTS)
        .into_iter()
        .enumerate()
        .filter_map(|(i, row)| edit(i, row))
        .collect();
    if chain {
        rechain(&mut rows);
    }
    let mut text = String::new();
    for row in rows {
        text.push_str(&serde_json::to_string(&row).unwrap());
        text.push('\n');
    }
    s.write(EFFECTS, &text);
}

/// Gives a recorded run a different program, keeping the log self-consistent
/// (as if the program had been recorded so): replay must then diverge.
fn swap_program(s: &Test, run_id: &str, program: &str) {
    edit_log(s, |_, mut row| {
        if row["kind"] == "premath.scheme_eval.run.v0" && row["runId"] == run_id {
            row["program"] = json!(program);
            row["programDigest"] = json!(format!("sha256:{}", sha256_hex(program)));
        }
        Some(row)
    });
}

/// Three issues, written to the store (the logs start empty: a command
/// that adds them would be a recorded run of its own).
fn seeded() -> Test {
    Test::new().issues(&[
        issue_with("bd-1", json!({"title": "one"})),
        issue_with("bd-2", json!({"title": "two"})),
        issue_with("bd-3", json!({"title": "three"})),
    ])
}

/// The flags that give a mutation the default policy's authority.
fn authority(digest: &str) -> [&str; 4] {
    ["--policy-digest", digest, "--instruction-ref", "instr://t"]
}

fn digest(s: &Test) -> String {
    let out = s.run(&["policy", "digest"]);
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn parity_on_reads_mutations_rejections_and_budget_breaches() {
    let s = seeded();
    let d = digest(&s);
    let auth = authority(&d);
    let reads = record(
        &s,
        r#"(define r (issue.ready)) (display "n=") (display (hash-ref (payload r) "count"))
           (map (lambda (i) (hash-ref i "id")) (hash-ref (payload r) "items"))"#,
        &[],
    );
    let mutation = record(
        &s,
        r#"(define c (issue.claim_next (hash "assignee" "agent.a")))
           (list (result-class c) (result-class (issue.claim (hash "id" "bd-404" "assignee" "b"))))"#,
        &auth,
    );
    let gate = record(
        &s,
        r#"(result-class (issue.update (hash "id" "bd-2" "title" "renamed")))"#,
        &[],
    );
    let budget = record(
        &s,
        "(issue.ready) (issue.ready) (issue.ready) (issue.ready) 'unreached",
        &["--max-calls", "2"],
    );
    let invalid = record(&s, "(host-call \"shell.exec\") (car '())", &[]);
    let timeout = record(
        &s,
        "(issue.ready) (let loop () (loop))",
        &["--timeout-ms", "300"],
    );
    // The live store moved on since (a claim, no rename); replay must not
    // care. The command is a recorded one-call run of its own (issue 57).
    assert!(s.run(&["issue", "close", "bd-3"]).status.success());
    let close = s
        .jsonl(".premath/host_effects.jsonl")
        .last()
        .map(|footer| footer["runId"].as_str().unwrap().to_string())
        .unwrap();
    let before = snapshot(&s);

    let (code, set) = replay(&s, &[]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["kind"], "premath.scheme_eval.replay_set.v0");
    assert_eq!(set["parity"], true);
    assert_eq!(set["runCount"], 7);
    let checked: Vec<(String, Value)> = set["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["runId"].as_str().unwrap().to_string(),
                r["checkedCalls"].clone(),
            )
        })
        .collect();
    assert_eq!(
        checked,
        vec![
            (reads.clone(), json!(1)),
            (mutation.clone(), json!(2)),
            (gate, json!(1)),
            (budget.clone(), json!(3)),
            (invalid, json!(1)),
            (timeout, json!(1)),
            (close, json!(1)),
        ]
    );
    assert_eq!(snapshot(&s), before, "replay touched a file");

    // One run: the spec's object.
    let (code, one) = replay(&s, &["--run", &mutation]);
    assert_eq!(code, 0);
    assert_eq!(
        one,
        json!({"kind": "premath.scheme_eval.replay.v0", "runId": mutation, "parity": true, "checkedCalls": 2, "chained": true})
    );
    // The readable form says the same.
    let out = s.run(&["replay", "--run", &budget]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("{budget}: parity · 3 call(s) checked")),
        "{text}"
    );
}

#[test]
fn divergence_is_found_at_the_right_call_and_field() {
    let s = seeded();
    let program = r#"(issue.ready) (issue.show (hash "id" "bd-1")) (issue.list) "done""#;
    let cases: Vec<(&str, Value)> = vec![
        (
            r#"(issue.ready) (issue.blocked) (issue.list) "done""#,
            json!({"seq": 2, "field": "action", "expected": "issue.show", "got": "issue.blocked"}),
        ),
        (
            r#"(issue.ready) (issue.show (hash "id" "bd-2")) (issue.list) "done""#,
            json!({"seq": 2, "field": "argsDigest",
                   "expected": format!("he1_{}", sha256_hex(r#"{"id":"bd-1"}"#)),
                   "got": format!("he1_{}", sha256_hex(r#"{"id":"bd-2"}"#))}),
        ),
        (
            r#"(issue.ready) (issue.show (hash "id" "bd-1")) "done""#,
            json!({"seq": 3, "field": "callCount", "expected": 3, "got": 2}),
        ),
        (
            r#"(issue.ready) (issue.show (hash "id" "bd-1")) (issue.list) (issue.list) "done""#,
            json!({"seq": 4, "field": "callCount", "expected": 3, "got": 4}),
        ),
        (
            r#"(issue.ready) (issue.show (hash "id" "bd-1")) (issue.list) "changed""#,
            json!({"seq": null, "field": "valueDigest",
                   "expected": format!("sha256:{}", sha256_hex("\"done\"")),
                   "got": format!("sha256:{}", sha256_hex("\"changed\""))}),
        ),
    ];
    for (changed, expected) in cases {
        s.write(EFFECTS, "");
        let run = record(&s, program, &[]);
        swap_program(&s, &run, changed);
        let (code, r) = replay(&s, &["--run", &run]);
        assert_eq!(code, 1, "{changed}: {r:#}");
        assert_eq!(r["parity"], false);
        assert_eq!(r["divergence"], expected, "{changed}");
        let seq = expected["seq"].as_u64().unwrap_or(4) as usize;
        assert_eq!(r["checkedCalls"], seq.min(4) - 1, "{changed}: {r:#}");
    }
}

#[test]
fn the_log_is_checked_before_anything_runs() {
    let s = seeded();
    let run = record(&s, r#"(issue.show (hash "id" "bd-1")) (issue.list) 1"#, &[]);
    let pristine = s.log_text(EFFECTS).into_bytes();
    let restore = || {
        s.write(EFFECTS, std::str::from_utf8(&pristine).unwrap());
    };

    // A row whose args no longer match its argsDigest.
    edit_log(&s, |_, mut row| {
        if row["seq"] == 1 {
            row["args"] = json!({"id": "bd-2"});
        }
        Some(row)
    });
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 1);
    assert_eq!(r["divergence"]["field"], "log.argsDigest");
    assert_eq!(r["divergence"]["seq"], 1);
    assert_eq!(r["checkedCalls"], 0);

    // A program edited without its digest.
    restore();
    edit_log(&s, |_, mut row| {
        if row["kind"] == "premath.scheme_eval.run.v0" {
            row["program"] = json!("2");
        }
        Some(row)
    });
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 1);
    assert_eq!(r["divergence"]["field"], "log.programDigest");

    // A call row missing (seq 1 then nothing, footer present).
    restore();
    edit_log(&s, |i, row| (i != 1).then_some(row));
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 1);
    assert_eq!(
        r["divergence"],
        json!({"seq": 1, "field": "log.seq", "expected": 1, "got": 2, "line": 2})
    );

    // A row of another kind inside the run, and a row for a run with no header.
    restore();
    edit_log(&s, |i, row| {
        if i == 1 {
            Some(json!({"kind": "something.else", "runId": "run-x"}))
        } else {
            Some(row)
        }
    });
    let mut text = s.log_text(EFFECTS);
    text.push_str(
        &serde_json::to_string(
            &json!({"kind": "premath.host_effect.row.v0", "runId": "run-ghost", "seq": 1}),
        )
        .unwrap(),
    );
    text.push('\n');
    s.write(EFFECTS, &text);
    let (code, set) = replay(&s, &[]);
    assert_eq!(code, 1, "{set:#}");
    assert_eq!(set["parity"], false);
    let stray: Vec<&Value> = set["strayRows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["field"])
        .collect();
    assert_eq!(stray, vec!["log.kind", "log.header"]);

    // A selection that names nothing, a missing log: exit 2.
    restore();
    assert_eq!(
        s.run(&["replay", "--run", "run-nope"]).status.code(),
        Some(2)
    );
    assert_eq!(
        s.run(&["replay", "--session", "session-nope"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        s.run(&["replay", "--effects", "missing.jsonl"])
            .status
            .code(),
        Some(2)
    );
    let mut corrupt = pristine.clone();
    corrupt.splice(0..0, b"{not json\n".iter().copied());
    std::fs::write(s.path("corrupt.jsonl"), corrupt).unwrap();
    // A line that is not JSON is skipped with a warning naming it; the runs
    // around it replay.
    let out = s.run(&["replay", "--effects", "corrupt.jsonl"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("skipping line 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A host killed mid-write leaves half a row; the next run's header starts
/// on a new line after it, the fragment is skipped with a warning naming its
/// line, and every intact run replays with parity.
#[test]
fn a_torn_middle_row_leaves_the_other_runs_replayable() {
    let s = Test::new();
    if s.db.is_some() {
        // A database log holds whole rows only: nothing can be torn.
        return;
    }
    let first = record(&s, "(issue.list) 1", &[]);
    let log = s.path(".premath/host_effects.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(br#"{"kind":"premath.scheme_eval.run.v0","runId":"run-killed","prog"#);
    std::fs::write(&log, &bytes).unwrap();
    let second = record(&s, "(issue.ready) 2", &[]);
    let third = record(&s, "(issue.blocked) 3", &[]);
    let out = s.run(&["replay", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    let torn_line = String::from_utf8_lossy(&bytes).lines().count();
    assert!(
        stderr.contains(&format!("skipping line {torn_line}")),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["runId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [first.as_str(), second.as_str(), third.as_str()]);
    assert_eq!(v["parity"], true);
}

#[test]
fn a_truncated_log_is_reported_not_crashed_on() {
    let s = seeded();
    let first = record(&s, "(issue.ready) 1", &[]);
    let second = record(&s, "(issue.ready) (issue.list) 2", &[]);
    let text = s.log_text(EFFECTS);
    // Cut the log in the middle of the second run's second call row.
    let cut = text.find(r#""seq":2"#).expect("second call row") + 3;
    // A database commits each row whole: only a file has a torn tail.
    if s.db.is_none() {
        s.write(EFFECTS, &text[..cut]);

        let out = s.run(&["replay", "--json"]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("torn last line"), "{stderr}");
        let set: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(set["runs"][0]["runId"], first);
        assert_eq!(set["runs"][0]["parity"], true);
        assert_eq!(set["runs"][1]["runId"], second);
        assert_eq!(set["runs"][1]["parity"], false);
        assert_eq!(set["runs"][1]["divergence"]["field"], "log.runEnd");
        assert_eq!(set["runs"][1]["divergence"]["seq"], 2);
    }

    // Cut at a line boundary (the footer never written): the same report, no warning.
    let footer_start = text
        .rfind("{\"kind\":\"premath.scheme_eval.run_end.v0\"")
        .unwrap();
    s.write(EFFECTS, &text[..footer_start]);
    let (code, r) = replay(&s, &["--run", &second]);
    assert_eq!(code, 1);
    assert_eq!(r["divergence"]["field"], "log.runEnd");
    assert_eq!(r["divergence"]["seq"], 3);
}

#[test]
fn embedder_bindings_and_read_only_profiles_replay_as_recorded() {
    let s = seeded();
    // The program lists what it can call: replay must bind the same set.
    let ro = record(&s, "(length (host-actions))", &["--read-only"]);
    let full = record(&s, "(length (host-actions))", &[]);
    let (code, set) = replay(&s, &[]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["runs"][0]["runId"], ro);
    assert_eq!(set["runs"][1]["runId"], full);
}

#[test]
fn a_session_replays_in_one_engine_and_so_does_one_of_its_forms() {
    use tusk::runtime::{Host, Request};
    use tusk::sandbox::EngineMode;
    let s = seeded();
    let host = Host::new(s.host_config());
    let forms = [
        "(define x 41)",
        "(issue.ready) (+ x 1)",
        r#"(define (f) (issue.show (hash "id" "bd-1"))) (result-class (f))"#,
        "(set! x (+ x (hash-ref (payload (issue.ready)) \"count\"))) x",
    ];
    let mut runs = Vec::new();
    for (i, form) in forms.iter().enumerate() {
        let mode = if i == 0 {
            EngineMode::ResetSession
        } else {
            EngineMode::Session
        };
        let r = host
            .run(
                &Request {
                    program: form.to_string(),
                    ..Default::default()
                },
                tusk::runtime::RunOptions {
                    mode,
                    session_id: Some("session-test"),
                    ..Default::default()
                },
            )
            .unwrap();
        assert!(r.accepted, "{}", r.json);
        runs.push(r.json["runId"].as_str().unwrap().to_string());
    }
    // Another run in between, outside the session.
    let lone = record(&s, "(issue.list) 5", &[]);

    let (code, set) = replay(&s, &["--session", "session-test"]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["runCount"], 4);
    assert_eq!(set["checkedCalls"], 3);
    assert!(set["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["sessionId"] == "session-test" && r["parity"] == true));
    let (code, set) = replay(&s, &["--all"]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["runs"][4]["runId"], lone);

    // A form that needs its session's definitions is replayed as its
    // session: the earlier forms first, then it, reported alone.
    let (code, r) = replay(&s, &["--run", &runs[1]]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["runId"], runs[1].as_str());
    assert_eq!(r["parity"], true, "{r:#}");

    // Once a form of a session diverges, later forms are not replayed.
    swap_program(&s, &runs[0], "(define x 1)");
    let (code, set) = replay(&s, &["--session", "session-test"]);
    assert_eq!(code, 1);
    assert_eq!(set["runs"][0]["parity"], true);
    assert_eq!(set["runs"][1]["divergence"]["field"], "valueDigest");
    assert_eq!(set["runs"][2]["parity"], false);
    assert_eq!(set["runs"][2]["checkedCalls"], 0);
    assert!(set["runs"][2]["skipped"].is_string());
    // A later form replayed on its own says which earlier form diverged.
    let (code, r) = replay(&s, &["--run", &runs[2]]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["runId"], runs[2].as_str(), "{r:#}");
    assert!(r["skipped"].is_string(), "{r:#}");
    let earlier = &r["earlierDivergence"];
    assert_eq!(earlier["runId"], runs[1].as_str(), "{r:#}");
    assert_eq!(earlier["divergence"]["field"], "valueDigest");
}

#[test]
fn repl_sessions_replay_whole_even_when_two_share_a_log() {
    let s = seeded();
    let run = |stdin: &str| {
        let out = s.tusk(&["repl", "--json"]).stdin(stdin).run();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines[0]["sessionId"].as_str().unwrap().to_string()
    };
    let a = run("(define n (hash-ref (payload (issue.ready)) \"count\"))\n(define (twice x) (* 2 x))\n(twice n)\n");
    let b = run("(define n 100)\n(issue.list)\n(+ n 1)\n");
    let (code, set) = replay(&s, &["--session", &a]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["runCount"], 3);
    assert_eq!(set["checkedCalls"], 1);

    // Interleave the two sessions' runs in the file, as two REPLs writing at
    // once would: A1 B1 A2 B2 A3 B3. Each run's rows stay whole.
    let rows = s.jsonl(EFFECTS);
    let mut runs: Vec<Vec<Value>> = Vec::new();
    for row in rows {
        if row["kind"] == "premath.scheme_eval.run.v0" {
            runs.push(Vec::new());
        }
        runs.last_mut().unwrap().push(row);
    }
    assert_eq!(runs.len(), 6);
    let order = [0, 3, 1, 4, 2, 5];
    let text: String = order
        .iter()
        .flat_map(|&i| runs[i].iter())
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    s.write(EFFECTS, &text);
    let (code, set) = replay(&s, &[]);
    assert_eq!(code, 0, "{set:#}");
    let sessions: Vec<&str> = set["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, [&a, &a, &a, &b, &b, &b]);
}

#[test]
fn replay_on_several_lanes_reports_exactly_what_replay_in_order_does() {
    let s = seeded();
    let d = digest(&s);
    let auth = authority(&d);
    let lone: Vec<String> = [
        ("(issue.ready)", &[][..]),
        (r#"(issue.list) (issue.show (hash "id" "bd-2"))"#, &[]),
        ("(issue.ready) (car '())", &[]),
        (r#"(issue.show (hash "id" "bd-9"))"#, &[]),
        (
            r#"(issue.claim (hash "id" "bd-1" "assignee" "w"))"#,
            &auth[..],
        ),
        (
            "(let loop ((i 0)) (issue.ready) (loop (+ i 1)))",
            &["--max-calls", "5"],
        ),
        (r#"(issue.ready) "last""#, &[]),
    ]
    .iter()
    .map(|(program, extra)| record(&s, program, extra))
    .collect();
    let session = |stdin: &str| {
        let out = s.tusk(&["repl", "--json"]).stdin(stdin).run();
        assert_eq!(out.status.code(), Some(0));
        let first: Value = serde_json::from_str(
            String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        first["sessionId"].as_str().unwrap().to_string()
    };
    let a = session("(define n (hash-ref (payload (issue.ready)) \"count\"))\n(+ n 1)\n(* n 2)\n");
    let b = session("(define m 7)\n(issue.list)\n(+ m 1)\n");
    // A lone run and the second form of session A diverge: the lanes must
    // still report session A's third form as not replayed.
    swap_program(
        &s,
        &lone[1],
        r#"(issue.list) (issue.show (hash "id" "bd-3"))"#,
    );
    let a2 = s
        .jsonl(EFFECTS)
        .into_iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0" && r["sessionId"] == a.as_str())
        .nth(1)
        .map(|r| r["runId"].as_str().unwrap().to_string())
        .unwrap();
    swap_program(&s, &a2, "(+ n 2)");

    let out = |jobs: Option<&str>| {
        let mut args = vec!["replay", "--json"];
        args.extend(jobs.iter().flat_map(|j| ["--jobs", j]));
        let out = s.run(&args);
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let in_order = out(Some("1"));
    assert_eq!(in_order.0, Some(1), "{}", in_order.1);
    for jobs in [Some("2"), Some("5"), None] {
        assert_eq!(out(jobs), in_order, "--jobs {jobs:?}");
    }
    let set: Value = serde_json::from_str(&in_order.1).unwrap();
    let runs = set["runs"].as_array().unwrap();
    let seen: Vec<(&str, bool, bool)> = runs
        .iter()
        .map(|r| {
            (
                r["runId"].as_str().unwrap(),
                r["parity"] == true,
                r.get("skipped").is_none(),
            )
        })
        .collect();
    let mut expected: Vec<(&str, bool, bool)> = lone
        .iter()
        .map(|id| (id.as_str(), id != &lone[1], true))
        .collect();
    let ids_of = |sid: &str| -> Vec<String> {
        s.jsonl(EFFECTS)
            .into_iter()
            .filter(|r| r["kind"] == "premath.scheme_eval.run.v0" && r["sessionId"] == sid)
            .map(|r| r["runId"].as_str().unwrap().to_string())
            .collect()
    };
    let (a_ids, b_ids) = (ids_of(&a), ids_of(&b));
    expected.extend([
        (a_ids[0].as_str(), true, true),
        (&a_ids[1], false, true),
        (&a_ids[2], false, false),
    ]);
    expected.extend(b_ids.iter().map(|id| (id.as_str(), true, true)));
    assert_eq!(seen, expected, "{set:#}");
    assert_eq!(
        s.run(&["replay", "--jobs", "0"]).status.code(),
        Some(2),
        "no lanes is a usage error"
    );
    assert_eq!(
        s.run(&["replay", "--jobs", "2", "--live", "snap"])
            .status
            .code(),
        Some(2),
        "a live replay runs in order"
    );
}

/// Copies the scratch dir's `.premath/` data files into `rel` (a snapshot).
fn snapshot_dir(s: &Test, rel: &str) -> String {
    std::fs::create_dir_all(s.path(rel)).unwrap();
    for name in [
        "issues.jsonl",
        "mutation_policy.json",
        "harness_session.json",
        "harness_trajectory.jsonl",
    ] {
        let from = s.path(&format!(".premath/{name}"));
        if from.exists() {
            std::fs::copy(from, s.path(&format!("{rel}/{name}"))).unwrap();
        }
    }
    rel.to_string()
}

#[test]
fn live_replay_reruns_the_real_actions_on_a_copy_of_a_snapshot() {
    let s = seeded();
    if s.db.is_some() {
        // `--live DIR` re-executes against a copy of a `.premath/` file snapshot;
        // a database store has no such directory to copy.
        return;
    }
    s.write(
        ".premath/mutation_policy.json",
        r#"{"schema":1,"policyKind":"premath.mutation_policy.v1","allowedActions":["issue.claim_next","issue.add","harness.session.write"],"requireJoinClosed":true}"#,
    );
    let before = snapshot_dir(&s, "snap");
    let vectors =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/harness-typestate");
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(vectors.join("golden/join_closed_accept/case.json")).unwrap(),
    )
    .unwrap();
    s.write("closed.json", &input["input"].to_string());
    let d = digest(&s);
    let auth = [
        &authority(&d)[..],
        &["--join-evidence", "closed.json", "--issue-id", "bd-1"],
    ]
    .concat();
    record(
        &s,
        r#"(map (lambda (i) (hash-ref i "id")) (hash-ref (payload (issue.ready)) "items"))"#,
        &[],
    );
    // Mutations with leases and timestamps, a value that is a whole envelope,
    // a gate rejection (not allowed by the policy) and a harness write.
    record(
        &s,
        r#"(define c (issue.claim_next (hash "assignee" "agent.a")))
           (issue.add (hash "title" "found on the way"))
           (list c (result-class (issue.close (hash "id" "bd-2")))
                 (result-class (harness.session.write (hash "state" "active" "issueId" "bd-1" "summary" "s"))))"#,
        &auth,
    );
    let (_, ro) = s.eval("(issue.blocked) (length (host-actions))", &["--read-only"]);
    assert_eq!(ro["result"], "accepted");
    let snap_before = std::fs::read(s.path("snap/issues.jsonl")).unwrap();
    let live_before = snapshot(&s);

    let (code, set) = replay(&s, &["--live", &before]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["checkedCalls"], 1 + 4 + 1);
    assert!(set["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["mode"] == "live"));
    // Neither the snapshot nor the live files were written.
    assert_eq!(
        std::fs::read(s.path("snap/issues.jsonl")).unwrap(),
        snap_before
    );
    assert_eq!(snapshot(&s), live_before);

    // A store that differs from the recording's: the first read diverges on
    // its payload, and the claim takes another issue.
    assert!(s
        .run(&["issue", "add", "newcomer", "--priority", "0"])
        .status
        .success());
    let after = snapshot_dir(&s, "snap-after");
    let (code, set) = replay(&s, &["--live", &after]);
    assert_eq!(code, 1);
    assert_eq!(set["runs"][0]["divergence"]["field"], "payloadDigest");
    assert_eq!(set["runs"][0]["divergence"]["seq"], 1);
    assert_eq!(set["runs"][1]["divergence"]["field"], "payloadDigest");

    // A policy that no longer allows the claim: the mutation's class differs.
    let strict = snapshot_dir(&s, "snap-strict");
    std::fs::copy(
        s.path("snap/issues.jsonl"),
        s.path("snap-strict/issues.jsonl"),
    )
    .unwrap();
    std::fs::write(
        s.path("snap-strict/mutation_policy.json"),
        r#"{"schema":1,"policyKind":"premath.mutation_policy.v1","allowedActions":[],"requireJoinClosed":true}"#,
    )
    .unwrap();
    let (code, set) = replay(&s, &["--live", &strict]);
    assert_eq!(code, 1);
    assert_eq!(set["runs"][0]["parity"], true);
    assert_eq!(set["runs"][1]["divergence"]["field"], "resultClass");
    assert_eq!(set["runs"][1]["divergence"]["expected"], "accepted");
    assert_eq!(
        set["runs"][1]["divergence"]["got"],
        "mutation.policy_digest_mismatch"
    );

    // A snapshot that is not a directory: exit 2.
    assert_eq!(
        s.run(&["replay", "--live", "closed.json"]).status.code(),
        Some(2)
    );
}

#[test]
fn live_replay_of_a_repl_session() {
    let s = seeded();
    if s.db.is_some() {
        // `--live DIR` re-executes against a copy of a `.premath/` file snapshot;
        // a database store has no such directory to copy.
        return;
    }
    let snap = snapshot_dir(&s, "snap");
    let d = digest(&s);
    let out = s.tusk(&["repl", "--json", "--policy-digest", &d, "--instruction-ref", "instr://t"]).stdin("(define (claim who) (issue.claim_next (hash \"assignee\" who)))\n(result-class (claim \"a\"))\n(hash-ref* (claim \"b\") \"payload\" \"issue\" \"id\")\n").run();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (code, set) = replay(&s, &["--live", &snap]);
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(set["runCount"], 3);
    assert_eq!(set["checkedCalls"], 2);
}

#[test]
fn a_run_stopped_by_the_clock_is_compared_only_up_to_its_recorded_stop() {
    let s = seeded();
    let run = record(
        &s,
        "(issue.ready) (issue.list) (let loop () (loop))",
        &["--timeout-ms", "300"],
    );
    // As if the recording's clock had run out before the second call (a slower
    // machine): the replay gets one call further, which is not a divergence.
    edit_log(&s, |_, row| (row["seq"] != 2).then_some(row));
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["checkedCalls"], 1);
    // The same record for a run that ended by itself is a divergence.
    edit_log(&s, |_, mut row| {
        if row["kind"] == "premath.scheme_eval.run_end.v0" {
            row["failureClasses"] = json!([]);
        }
        Some(row)
    });
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 1);
    assert_eq!(
        r["divergence"],
        json!({"seq": 2, "field": "callCount", "expected": 1, "got": 2})
    );
}

#[test]
fn a_header_asking_for_more_than_the_replayers_limits_is_refused_not_run() {
    let s = Test::new();
    let spin = record(&s, "(let loop () (loop))", &["--timeout-ms", "300"]);
    let fine = record(&s, "(issue.list) 1", &[]);
    // A forged header: a day of wall clock and more calls than eval allows.
    edit_log(&s, |_, mut row| {
        if row["kind"] == "premath.scheme_eval.run.v0" && row["runId"] == spin.as_str() {
            row["limits"]["timeoutMs"] = json!(86_400_000u64);
            row["limits"]["maxCalls"] = json!(100_000);
        }
        Some(row)
    });
    let started = std::time::Instant::now();
    let (code, r) = replay(&s, &[]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "replay ran the forged run"
    );
    assert_eq!(code, 1, "{r:#}");
    let runs = r["runs"].as_array().unwrap();
    let forged = runs.iter().find(|x| x["runId"] == spin.as_str()).unwrap();
    assert_eq!(forged["divergence"]["field"], "log.limits", "{forged:#}");
    assert_eq!(
        forged["divergence"]["expected"],
        json!({"timeoutMs": "at most 5000", "maxCalls": "at most 64"})
    );
    assert_eq!(
        forged["divergence"]["got"],
        json!({"timeoutMs": 86_400_000u64, "maxCalls": 100_000})
    );
    assert_eq!(forged["checkedCalls"], 0);
    let other = runs.iter().find(|x| x["runId"] == fine.as_str()).unwrap();
    assert_eq!(other["parity"], true, "{other:#}");

    // The replayer's own flags raise the ceiling: the run is then executed
    // (under the recorded limits) and a time-limited run reaches parity.
    edit_log(&s, |_, mut row| {
        if row["kind"] == "premath.scheme_eval.run.v0" && row["runId"] == spin.as_str() {
            row["limits"]["timeoutMs"] = json!(300);
            row["limits"]["maxCalls"] = json!(100);
        }
        Some(row)
    });
    let (code, r) = replay(&s, &["--run", &spin]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["divergence"]["field"], "log.limits");
    let (code, r) = replay(&s, &["--run", &spin, "--max-calls", "100"]);
    assert_eq!(code, 0, "{r:#}");
}

/// The 1-based line of the row matching `pred` in the current log.
fn line_of(s: &Test, pred: impl Fn(&Value) -> bool) -> usize {
    s.jsonl(EFFECTS).iter().position(pred).expect("the row") + 1
}

fn call_of<'a>(run: &'a str, seq: u64) -> impl Fn(&Value) -> bool + 'a {
    move |row: &Value| row["runId"] == run && row["seq"] == seq
}

/// `replay --verify --json` of one run: (exit code, its problem).
fn verify(s: &Test, run: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["--verify", "--run", run];
    args.extend_from_slice(extra);
    let (code, v) = replay(s, &args);
    assert_eq!(v["kind"], "tusk.replay.verify.v0", "{v:#}");
    (code, v["runs"][0].clone())
}

#[test]
fn every_tampering_breaks_the_chain_at_the_row_it_names() {
    let s = seeded();
    let a = record(
        &s,
        r#"(issue.show (hash "id" "bd-1")) (issue.list) (issue.ready) 1"#,
        &[],
    );
    let b = record(&s, "(issue.blocked) (issue.list) 2", &[]);
    let pristine = s.log_text(EFFECTS);
    let (code, ok) = verify(&s, &a, &[]);
    assert_eq!(code, 0, "{ok:#}");
    assert_eq!(ok["chained"], true);
    assert_eq!(ok["ok"], true);

    // Each tampering keeps every other check satisfied (argsDigest, seq and
    // callId recomputed): only the chain can tell.
    let a1 = line_of(&s, call_of(&a, 1));
    let a2 = line_of(&s, call_of(&a, 2));
    let a3 = line_of(&s, call_of(&a, 3));
    let footer = line_of(&s, |r| {
        r["runId"] == a.as_str() && r["kind"] == "premath.scheme_eval.run_end.v0"
    });
    // Each case edits the parsed rows; they are written back as they are
    // (no rechaining), the way a tamperer unaware of the chain would.
    let header_of = |r: &Value| r["kind"] == "premath.scheme_eval.run.v0";
    let footer_of = |r: &Value| r["kind"] == "premath.scheme_eval.run_end.v0";
    let find = |rows: &[Value], pred: &dyn Fn(&Value) -> bool| {
        rows.iter().position(pred).expect("the row")
    };
    type Edit<'a> = Box<dyn Fn(&mut Vec<Value>) + 'a>;
    let cases: Vec<(&str, Edit, usize)> = vec![
        (
            "an edited argument",
            Box::new(|rows| {
                let at = find(rows, &call_of(&a, 1));
                let row = &mut rows[at];
                let args = json!({"id": "bd-2"});
                let digest = tusk::canonical::args_digest(Some(&args));
                row["args"] = args;
                row["argsDigest"] = json!(digest);
                row["envelope"]["argsDigest"] = json!(digest);
            }),
            a2,
        ),
        (
            "a deleted row, the rest renumbered",
            Box::new(|rows| {
                rows.remove(find(rows, &call_of(&a, 2)));
                let at = find(rows, &call_of(&a, 3));
                let row = &mut rows[at];
                row["seq"] = json!(2);
                row["envelope"]["callId"] = json!("call-2");
            }),
            a3 - 1,
        ),
        (
            "two rows swapped, seqs swapped back",
            Box::new(|rows| {
                rows.swap(a2 - 1, a3 - 1);
                for (i, seq) in [(a2 - 1, 2), (a3 - 1, 3)] {
                    rows[i]["seq"] = json!(seq);
                    rows[i]["envelope"]["callId"] = json!(format!("call-{seq}"));
                }
            }),
            a2,
        ),
        (
            "a row moved from another run",
            Box::new(|rows| {
                let mut foreign = rows[find(rows, &call_of(&b, 2))].clone();
                foreign["runId"] = json!(a);
                let at = find(rows, &call_of(&a, 2));
                rows[at] = foreign;
            }),
            a2,
        ),
        (
            "an edited footer",
            Box::new(|rows| {
                let at = find(rows, &|r: &Value| r["runId"] == a.as_str() && footer_of(r));
                rows[at]["outputTruncated"] = json!(true);
            }),
            footer,
        ),
        (
            "an edited header",
            Box::new(|rows| {
                let at = find(rows, &|r: &Value| r["runId"] == a.as_str() && header_of(r));
                rows[at]["limits"]["maxCalls"] = json!(63);
            }),
            a1,
        ),
    ];
    for (what, edit, line) in cases {
        s.write(EFFECTS, &pristine);
        let mut rows = s.jsonl(EFFECTS);
        edit(&mut rows);
        let text: String = rows
            .iter()
            .map(|r| format!("{}\n", serde_json::to_string(r).unwrap()))
            .collect();
        s.write(EFFECTS, &text);
        let (code, r) = replay(&s, &["--run", &a]);
        assert_eq!(code, 1, "{what}: {r:#}");
        assert_eq!(r["divergence"]["field"], "log.chain", "{what}: {r:#}");
        assert_eq!(r["divergence"]["line"], line, "{what}: {r:#}");
        assert_eq!(r["checkedCalls"], 0, "{what}: nothing ran");
        let (code, v) = verify(&s, &a, &[]);
        assert_eq!(code, 1, "{what}");
        assert_eq!(v["problem"]["field"], "log.chain", "{what}: {v:#}");
        assert_eq!(v["problem"]["line"], line, "{what}: {v:#}");
        if what != "a row moved from another run" {
            // The other run is untouched and still replays.
            let (code, r) = replay(&s, &["--run", &b]);
            assert_eq!(code, 0, "{what}: {r:#}");
        }
    }

    // The same edit with the chain recomputed passes the chain: an unsigned
    // log is only tamper-evident to someone who cannot write it.
    s.write(EFFECTS, &pristine);
    edit_log(&s, |_, mut row| {
        if row["runId"] == a.as_str() && row["kind"] == "premath.scheme_eval.run_end.v0" {
            row["outputTruncated"] = json!(true);
        }
        Some(row)
    });
    assert_eq!(verify(&s, &a, &[]).0, 0);
}

#[test]
fn signed_logs_verify_with_their_key_and_fail_with_another() {
    let s = seeded();
    for name in ["fleet", "other"] {
        let out = s.run(&["keygen", name]);
        assert!(out.status.success(), "{out:?}");
    }
    let key = s.path("fleet").display().to_string();
    let signed = record(&s, "(issue.list) (issue.ready) 1", &["--sign-key", &key]);
    let unsigned = record(&s, "(issue.list) 2", &[]);
    let (code, v) = verify(&s, &signed, &["--trust", "fleet.pub"]);
    assert_eq!(code, 0, "{v:#}");
    let id = v["signedBy"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 16);
    // Another key's trust refuses it; so does a run without a signature.
    let (code, v) = verify(&s, &signed, &["--trust", "other.pub"]);
    assert_eq!(code, 1);
    assert_eq!(v["problem"]["field"], "log.signature", "{v:#}");
    assert!(v["problem"]["got"].as_str().unwrap().contains(&id), "{v:#}");
    let (code, v) = verify(&s, &unsigned, &["--trust", "fleet.pub"]);
    assert_eq!(code, 1);
    assert_eq!(v["problem"]["got"], "no signature");
    // A replay with --trust checks first and reports the key.
    let (code, r) = replay(&s, &["--run", &signed, "--trust", "fleet.pub"]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["signedBy"], json!(id));
    let (code, r) = replay(&s, &["--run", &unsigned, "--trust", "fleet.pub"]);
    assert_eq!(code, 1);
    assert_eq!(r["divergence"]["field"], "log.signature");

    // A forger who rewrites a signed run and recomputes its chain still
    // cannot sign the new head.
    edit_log(&s, |_, mut row| {
        if row["runId"] == signed.as_str() && row["kind"] == "premath.scheme_eval.run_end.v0" {
            row["outputTruncated"] = json!(true);
        }
        Some(row)
    });
    let (code, v) = verify(&s, &signed, &[]);
    assert_eq!(code, 0, "the chain alone is recomputable: {v:#}");
    let (code, v) = verify(&s, &signed, &["--trust", "fleet.pub"]);
    assert_eq!(code, 1);
    assert!(
        v["problem"]["got"]
            .as_str()
            .unwrap()
            .contains("does not match"),
        "{v:#}"
    );

    // Keys: the secret is private to its owner, and never overwritten.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(s.path("fleet"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let out = s.run(&["keygen", "fleet", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["class"], "keygen.write_failed");
    // A bad key file is refused before anything runs.
    s.write("bad.key", "not hex\n");
    let out = s.run(&["eval", "--sign-key", "bad.key", "--json", "-"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn logs_written_before_the_chain_still_replay_as_unchained() {
    let s = seeded();
    let run = record(&s, "(issue.list) (issue.ready) 1", &[]);
    let mut rows = s.jsonl(EFFECTS);
    unchain(&mut rows);
    let text: String = rows
        .iter()
        .map(|r| format!("{}\n", serde_json::to_string(r).unwrap()))
        .collect();
    s.write(EFFECTS, &text);
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["chained"], false);
    let (code, v) = verify(&s, &run, &[]);
    assert_eq!(code, 0);
    assert_eq!(v["chained"], false);
    let out = s.run(&["replay", "--verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("unchained"), "{text}");
    // Stripping only the header's link does not make a chained run unchained.
    let run2 = record(&s, "(issue.list) 2", &[]);
    rewrite_log(
        &s,
        |_, mut row| {
            if row["runId"] == run2.as_str() && row["kind"] == "premath.scheme_eval.run.v0" {
                row.as_object_mut().unwrap().shift_remove("prevRowDigest");
            }
            Some(row)
        },
        false,
    );
    let (code, v) = verify(&s, &run2, &[]);
    assert_eq!(code, 1);
    assert_eq!(v["problem"]["field"], "log.chain", "{v:#}");
}

#[test]
fn redacted_values_never_reach_the_logs_and_the_run_replays() {
    let secret = "s3cret-token-7f2a";
    // The secret is in the store already (written there, not by a command:
    // a command is a recorded run, redacted by the policy in force then).
    let s = Test::new().issues(&[
        issue_with("bd-1", json!({"title": "one", "notes": secret})),
        issue_with("bd-2", json!({"title": "two"})),
        issue_with("bd-3", json!({"title": "three"})),
    ]);
    let policy = json!({
        "schema": 1,
        "policyKind": "premath.mutation_policy.v1",
        "allowedActions": ["issue.update"],
        "redact": {
            "issue.show": {"payload": ["issue.notes"]},
            "issue.update": {"args": ["notes"], "payload": ["issue.notes"]},
        }
    });
    s.write(
        ".premath/mutation_policy.json",
        &serde_json::to_string(&policy).unwrap(),
    );
    let d = digest(&s);
    // The secret comes from the store, goes through the program into another
    // issue: the action gets the real value, the logs only its marker.
    let program = r#"
(define secret (hash-ref (hash-ref (payload (issue.show (hash "id" "bd-1"))) "issue") "notes"))
(issue.update (hash "id" "bd-2" "notes" secret))
'copied"#;
    let (code, r) = s.eval(
        program,
        &["--policy-digest", &d, "--instruction-ref", "instr://redact"],
    );
    assert_eq!(code, 0, "{r:#}");
    let run = r["runId"].as_str().unwrap().to_string();
    let stored = s.run(&["issue", "show", "bd-2", "--json"]);
    assert!(String::from_utf8_lossy(&stored.stdout).contains(secret));
    let effects = s.log_text(EFFECTS);
    let trajectory = s.log_text(".premath/trajectory.jsonl");
    assert!(!effects.contains(secret), "the effect log holds the secret");
    // A command's record is redacted by the same rules (issue 57).
    let other = "0th3r-s3cret-91bd";
    assert!(s
        .run(&["issue", "update", "bd-3", "--notes", other])
        .status
        .success());
    let effects = s.log_text(EFFECTS);
    assert!(
        effects.contains("\"command\":\"tusk issue update\"") && !effects.contains(other),
        "a command's record holds the secret"
    );
    let (code, set) = replay(&s, &[]);
    assert_eq!((code, set["parity"].clone()), (0, json!(true)), "{set:#}");
    assert!(
        !trajectory.contains(secret),
        "the trajectory holds the secret"
    );
    let marker = format!(
        "#<redacted sha256:{}>",
        sha256_hex(&serde_json::to_string(secret).unwrap())
    );
    assert!(effects.contains(&marker), "{effects}");
    let rows = s.jsonl(EFFECTS);
    let header = rows.iter().find(|r| r["runId"] == run.as_str()).unwrap();
    assert_eq!(header["redact"], policy["redact"]);
    let update = rows.iter().find(|r| call_of(&run, 2)(r)).unwrap();
    assert_eq!(update["args"]["notes"], json!(marker));
    assert_eq!(
        update["argsDigest"],
        json!(tusk::canonical::args_digest(Some(&update["args"])))
    );
    // Replay feeds the program the recorded (redacted) payload; it passes
    // the marker on, and the replayed arguments redact to the same digest.
    let (code, r) = replay(&s, &["--run", &run]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["checkedCalls"], 2);

    // A rule naming an action that does not exist is refused before any run.
    let mut typo = policy.clone();
    typo["redact"] = json!({"issue.updte": {"args": ["notes"]}});
    s.write(
        ".premath/mutation_policy.json",
        &serde_json::to_string(&typo).unwrap(),
    );
    let out = s.run(&["eval", "--json", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("issue.updte"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 55: a rule names a property; the secret is redacted under every
/// spelling a program can write, the log records the canonical key, and
/// the run replays.
#[test]
fn redaction_meets_every_spelling_of_a_key() {
    let s = seeded();
    let policy = json!({
        "schema": 1,
        "policyKind": "premath.mutation_policy.v1",
        "allowedActions": ["issue.update", "dep.add"],
        "redact": {
            "issue.update": {"args": ["acceptanceCriteria", "notes"]},
            "dep.add": {"args": ["issueId"]},
        }
    });
    s.write(
        ".premath/mutation_policy.json",
        &serde_json::to_string(&policy).unwrap(),
    );
    let d = digest(&s);
    let spellings = [
        ("acceptance_criteria", "acceptanceCriteria"),
        ("AcceptanceCriteria", "acceptanceCriteria"),
        ("acceptance-criteria", "acceptanceCriteria"),
        ("ACCEPTANCE_CRITERIA", "acceptanceCriteria"),
        ("Notes", "notes"),
        ("NOTES", "notes"),
    ];
    let mut runs = Vec::new();
    for (i, (spelled, canonical)) in spellings.iter().enumerate() {
        let program =
            format!(r#"(result-class (issue.update (hash "id" "bd-1" "{spelled}" "S3CRET-{i}")))"#);
        let (code, r) = s.eval(
            &program,
            &["--policy-digest", &d, "--instruction-ref", "instr://redact"],
        );
        assert_eq!(code, 0, "{spelled}: {r:#}");
        let run = r["runId"].as_str().unwrap().to_string();
        let row = s
            .jsonl(EFFECTS)
            .into_iter()
            .find(|r| call_of(&run, 1)(r))
            .unwrap();
        assert!(
            row["args"][*canonical]
                .as_str()
                .unwrap()
                .starts_with("#<redacted sha256:"),
            "{spelled}: {row}"
        );
        assert!(row["args"].get(*spelled).is_none(), "{spelled}: {row}");
        runs.push(run);
    }
    // Two spellings of one key in one call (refused: the second is left
    // unknown), an alias (`id` for `issueId`), nested in a list: all hidden.
    for program in [
        r#"(result-class (issue.update (hash "id" "bd-1" "notes" "S3CRET-a" "Notes" "S3CRET-b")))"#,
        r#"(result-class (dep.add (hash "id" "S3CRET-c" "dependsOnId" "bd-2")))"#,
        r#"(result-class (dep.add (hash "issueId" "bd-3" "id" "S3CRET-d" "dependsOnId" "bd-2")))"#,
    ] {
        let (_, r) = s.eval(
            program,
            &["--policy-digest", &d, "--instruction-ref", "instr://redact"],
        );
        runs.push(r["runId"].as_str().unwrap().to_string());
    }
    // The program text is recorded whole (docs/policy.md says so): every
    // other member of every row is checked.
    for mut row in s.jsonl(EFFECTS) {
        if let Some(m) = row.as_object_mut() {
            m.remove("program");
        }
        assert!(
            !row.to_string().contains("S3CRET"),
            "a row holds a secret: {row}"
        );
    }
    let trajectory = s.log_text(".premath/harness_trajectory.jsonl");
    assert!(!trajectory.is_empty());
    assert!(
        !trajectory.contains("S3CRET"),
        "the trajectory holds a secret"
    );
    // The action got the real value; every run replays.
    let stored = s.stored("bd-1");
    assert_eq!(stored["acceptance_criteria"], "S3CRET-3");
    assert_eq!(stored["notes"], "S3CRET-5");
    let (code, r) = replay(&s, &[]);
    assert_eq!(code, 0, "{r:#}");
    for run in &runs {
        assert!(
            r["runs"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["runId"] == run.as_str() && x["parity"] == true),
            "{run}: {r:#}"
        );
    }
}

/// Issue 55: a header asking for more than the ceiling buys nothing on any
/// path that executes a run: the debugger (`tusk repl --run`), a debugging
/// session's restaged form (`tusk replay --session`); the dashboard's replay
/// button is `observe::a_forged_ceiling_is_refused_by_the_replay_button`.
#[test]
fn a_forged_ceiling_is_refused_on_every_path_that_runs_a_run() {
    let s = Test::new();
    let spin = record(
        &s,
        "(define n 0) (let loop () (loop))",
        &["--timeout-ms", "300"],
    );
    // A debugging session of the run: its first form is restaged on replay.
    let out = s
        .tusk(&["repl", "--json", "--timeout-ms", "1000", "--run", &spin])
        .stdin(":step\n(+ n 1)\n")
        .run();
    let lines: Vec<Value> = out
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sid = lines
        .iter()
        .find_map(|l| l["sessionId"].as_str())
        .unwrap_or_else(|| panic!("no form ran: {}\n{}", out.stdout(), out.stderr()))
        .to_string();
    let forms = || {
        s.jsonl(EFFECTS)
            .into_iter()
            .filter(|r| r["sessionId"] == sid.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(forms()[0]["debugOf"]["restaged"], true, "{:#?}", forms());
    // The session replays as recorded; now the debugged run's header is
    // forged to ask for 9 s of wall clock and 4 GB.
    let (code, r) = replay(&s, &["--session", &sid]);
    assert_eq!(code, 0, "{r:#}");
    edit_log(&s, |_, mut row| {
        if row["kind"] == "premath.scheme_eval.run.v0" && row["runId"] == spin.as_str() {
            row["limits"]["timeoutMs"] = json!(9000);
            row["limits"]["maxMemoryMb"] = json!(4096);
        }
        Some(row)
    });
    let started = std::time::Instant::now();
    let (code, r) = replay(&s, &["--session", &sid, "--timeout-ms", "1000"]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(6),
        "the forged limits were honoured"
    );
    assert_eq!(code, 1, "{r:#}");
    let text = r.to_string();
    assert!(text.contains("log.limits"), "{r:#}");
    // The debugger refuses to open it under its own limits.
    let started = std::time::Instant::now();
    let out = s
        .tusk(&["repl", "--timeout-ms", "1000", "--run", &spin])
        .stdin(":continue\n")
        .run();
    assert!(started.elapsed() < std::time::Duration::from_secs(6));
    assert_eq!(out.code(), 2, "{out:?}");
    assert!(
        out.stderr()
            .contains("asks for more than this session allows"),
        "{}",
        out.stderr()
    );
    assert!(out.stderr().contains("--timeout-ms"), "{}", out.stderr());
}

#[test]
fn replay_diff_names_the_first_call_where_two_runs_part() {
    let s = seeded();
    let program =
        r#"(issue.list) (define r (issue.ready)) (issue.blocked) (hash-ref (payload r) "count")"#;
    let first = record(&s, program, &[]);
    let again = record(&s, program, &[]);
    // The same program on the same store: identical.
    let out = s.run(&["replay", "diff", &first, &again]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("identical"));

    // Another store state: a blocking edge makes issue.list's payload differ
    // first (its items carry dependencies), though both calls are accepted.
    assert!(s.run(&["dep", "add", "bd-2", "bd-1"]).status.success());
    let later = record(&s, program, &[]);
    let (code, d) = {
        let out = s.run(&["replay", "diff", &first, &later, "--json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code().unwrap(), v)
    };
    assert_eq!(code, 1, "{d:#}");
    assert_eq!(d["kind"], "tusk.replay.diff.v0");
    assert_eq!(d["sameProgram"], true);
    assert_eq!(d["identical"], false);
    let first_diff = &d["firstDifference"];
    assert_eq!(first_diff["field"], "payloadDigest", "{d:#}");
    let seq = first_diff["seq"].as_u64().unwrap();
    let rows = s.jsonl(EFFECTS);
    let payload = |run: &str| {
        rows.iter().find(|r| call_of(run, seq)(r)).unwrap()["envelope"]["payload"].clone()
    };
    assert_ne!(payload(&first), payload(&later));
    for earlier in 1..seq {
        let a = rows.iter().find(|r| call_of(&first, earlier)(r)).unwrap();
        let b = rows.iter().find(|r| call_of(&later, earlier)(r)).unwrap();
        assert_eq!(a["envelope"]["payload"], b["envelope"]["payload"]);
    }
    let at = &first_diff["at"];
    assert!(at["path"].as_str().is_some(), "{d:#}");
    // The text form names the call and the path.
    let out = s.run(&["replay", "diff", &first, &later]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("first difference at call {seq} (")),
        "{text}"
    );
    assert!(
        text.contains(&format!("at {}", at["path"].as_str().unwrap())),
        "{text}"
    );

    // Different call counts and final values.
    let short = record(&s, "(issue.list) 7", &[]);
    let out = s.run(&["replay", "diff", &first, &short, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sameProgram"], false);
    assert_eq!(v["callCounts"], json!([3, 1]));
    // issue.list differs already (the edge), so compare two short runs.
    let short2 = record(&s, "(issue.list) 8", &[]);
    let out = s.run(&["replay", "diff", &short, &short2, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["firstDifference"]["field"], "valueDigest", "{v:#}");
    assert_eq!(v["firstDifference"]["seq"], Value::Null);

    // A run that is not in the log.
    let out = s.run(&["replay", "diff", &first, "run-nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run-nope"));
}

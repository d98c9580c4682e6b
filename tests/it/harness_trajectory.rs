//! `tusk harness-trajectory append|query` through the binary.

use crate::common::Test;
use serde_json::{json, Value};

const T: &str = ".premath/harness_trajectory.jsonl";

fn append(test: &Test, step: &str, action: &str, class: &str, finished: &str) -> Value {
    test.run(&[
        "harness-trajectory",
        "append",
        "--step-id",
        step,
        "--action",
        action,
        "--result-class",
        class,
        "--finished-at",
        finished,
        "--json",
    ])
    .status(0)
    .json()
}

fn query(test: &Test, args: &[&str]) -> Value {
    let mut all = vec!["harness-trajectory", "query", "--json"];
    all.extend_from_slice(args);
    test.run(&all).status(0).json()
}

fn step_ids(projection: &Value) -> Vec<String> {
    projection["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i["stepId"].as_str().unwrap(),
                i["action"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn append_creates_the_file_and_writes_one_normalized_line() {
    let test = Test::new();
    let out = test
        .run(&[
            "harness-trajectory",
            "append",
            "--step-id",
            " s1 ",
            "--action",
            "issue.claim",
            "--result-class",
            "accepted",
            "--finished-at",
            "2026-02-01T10:00:05Z",
            "--started-at",
            "2026-02-01T10:00:00Z",
            "--issue-id",
            " ",
            "--witness-ref",
            "w://b",
            "--witness-ref",
            " w://a ",
            "--witness-ref",
            "w://b",
            "--witness-ref",
            "",
            "--lineage-ref",
            "  ",
            "--instruction-ref",
            "i://1",
            "--json",
        ])
        .status(0)
        .json();
    let row = json!({
        "schema": 1, "stepKind": "premath.harness.step.v1", "stepId": "s1", "action": "issue.claim",
        "resultClass": "accepted", "finishedAt": "2026-02-01T10:00:05Z",
        "startedAt": "2026-02-01T10:00:00Z", "witnessRefs": ["w://a", "w://b"], "instructionRefs": ["i://1"]
    });
    assert_eq!(
        out,
        json!({"action": "harness-trajectory.append", "schema": 1, "path": test.trajectory_name(), "row": row})
    );
    let text = test.read(T);
    assert_eq!(text.lines().count(), 1);
    assert!(text.ends_with('\n'));
    assert_eq!(serde_json::from_str::<Value>(text.trim_end()).unwrap(), row);
    // Default finishedAt is now, as RFC3339 UTC.
    let out = test
        .run(&[
            "harness-trajectory",
            "append",
            "--step-id",
            "s2",
            "--action",
            "a",
            "--result-class",
            "ok",
            "--json",
        ])
        .status(0)
        .json();
    let finished = out["row"]["finishedAt"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(finished).is_ok() && finished.ends_with('Z'),
        "{finished}"
    );
    let text = test
        .run(&[
            "harness-trajectory",
            "append",
            "--step-id",
            "s3",
            "--action",
            "a",
            "--result-class",
            "ok",
        ])
        .status(0)
        .stdout();
    assert_eq!(
        text,
        format!(
            "premath harness-trajectory append\n  Step ID: s3\n  Result Class: ok\n  Path: {}\n",
            test.trajectory_name()
        )
    );
}

#[test]
fn malformed_timestamps_and_empty_required_fields_are_rejected_at_append() {
    let test = Test::new();
    for (flag, value) in [
        ("--finished-at", "2026-02-30T00:00:00Z"),
        ("--finished-at", "2026-02-01"),
        ("--finished-at", "1706781600"),
        ("--finished-at", "2026-02-01T25:00:00Z"),
        ("--started-at", "soon"),
    ] {
        let mut args = vec![
            "harness-trajectory",
            "append",
            "--step-id",
            "s",
            "--action",
            "a",
            "--result-class",
            "ok",
        ];
        if flag == "--started-at" {
            args.extend_from_slice(&["--finished-at", "2026-02-01T00:00:00Z"]);
        }
        args.extend_from_slice(&[flag, value]);
        let name = if flag == "--started-at" {
            "startedAt"
        } else {
            "finishedAt"
        };
        test.run(&args).error(2, name);
    }
    test.run(&[
        "harness-trajectory",
        "append",
        "--step-id",
        " ",
        "--action",
        "a",
        "--result-class",
        "ok",
    ])
    .error(2, "stepId");
    test.run(&[
        "harness-trajectory",
        "append",
        "--step-id",
        "s",
        "--action",
        "a",
        "--result-class",
        "",
    ])
    .error(2, "resultClass");
    assert!(
        !test.path(T).exists() || test.read(T).is_empty(),
        "nothing may be written"
    );
}

#[test]
fn projection_order_counts_and_modes() {
    let test = Test::new();
    // Same instant written three ways; newest first, ties broken by stepId
    // then action, both ascending (as the reference does).
    append(&test, "b", "x", "accepted", "2026-02-01T10:00:00Z");
    append(
        &test,
        "a",
        "y",
        "Verified-Accept",
        "2026-02-01T11:00:00+01:00",
    );
    append(
        &test,
        "b",
        "z",
        "transient.timeout",
        "2026-02-01T10:00:00.000Z",
    );
    append(&test, "c", "x", "rejected", "2026-02-01T09:59:59.999Z");
    append(&test, "a", "x", "Rate-Limit", "2026-02-01T12:00:00Z");
    append(&test, "d", "x", "OK", "2026-01-31T00:00:00Z");
    append(&test, "e", "x", "network_down", "2026-02-01T10:00:00.5Z");
    let p = query(&test, &[]);
    assert_eq!(
        p["projectionKind"],
        "premath.harness.trajectory.projection.v1"
    );
    assert_eq!(p["mode"], "latest");
    assert_eq!(p["limit"], 20);
    assert_eq!(p["totalCount"], 7);
    assert_eq!(p["failedCount"], 4);
    assert_eq!(p["retryNeededCount"], 3);
    assert_eq!(p["count"], 7);
    assert_eq!(
        step_ids(&p),
        ["a/x", "e/x", "a/y", "b/x", "b/z", "c/x", "d/x"]
    );

    let f = query(&test, &["--mode", "failed"]);
    assert_eq!(step_ids(&f), ["a/x", "e/x", "b/z", "c/x"]);
    assert_eq!(
        (
            f["totalCount"].clone(),
            f["failedCount"].clone(),
            f["count"].clone()
        ),
        (json!(7), json!(4), json!(4))
    );
    let r = query(&test, &["--mode", "retry-needed", "--limit", "2"]);
    assert_eq!(step_ids(&r), ["a/x", "e/x"]);
    assert_eq!(r["count"], 2);
    assert_eq!(r["retryNeededCount"], 3);
    let z = query(&test, &["--limit", "0"]);
    assert_eq!(z["count"], 0);
    assert_eq!(z["items"], json!([]));
    assert_eq!(z["totalCount"], 7);
    // Items are the stored rows.
    assert_eq!(
        p["items"][0],
        serde_json::from_str::<Value>(test.read(T).lines().nth(4).unwrap()).unwrap()
    );

    let text = test
        .run(&[
            "harness-trajectory",
            "query",
            "--mode",
            "failed",
            "--limit",
            "1",
        ])
        .status(0)
        .stdout();
    assert!(
        text.starts_with(&format!(
            "premath harness-trajectory query\n  Path: {}\n  Mode: failed\n  Count: 1 (total=7, failed=4, retry_needed=3)\n",
            test.trajectory_name()
        )),
        "{text}"
    );
    assert!(
        text.contains("  - a [Rate-Limit] x (2026-02-01T12:00:00Z)"),
        "{text}"
    );

    test.run(&["harness-trajectory", "query", "--mode", "oldest"])
        .error(2, "--mode");
}

#[test]
fn default_limit_is_twenty_and_absent_file_is_empty() {
    let test = Test::new();
    let p = query(&test, &[]);
    assert_eq!(
        (p["totalCount"].clone(), p["count"].clone()),
        (json!(0), json!(0))
    );
    let mut text = String::new();
    for i in 0..45 {
        text.push_str(&format!(
            "{{\"schema\":1,\"stepKind\":\"premath.harness.step.v1\",\"stepId\":\"s{i:02}\",\"action\":\"a\",\"resultClass\":\"ok\",\"finishedAt\":\"2026-02-01T00:00:{:02}Z\"}}\n",
            i % 60
        ));
    }
    test.write(T, &text);
    let p = query(&test, &[]);
    assert_eq!(p["count"], 20);
    assert_eq!(p["items"][0]["stepId"], "s44");
    assert_eq!(p["items"][19]["stepId"], "s25");
}

const ROW: &str = r#"{"schema":1,"stepKind":"premath.harness.step.v1","stepId":"s1","action":"a","resultClass":"ok","finishedAt":"2026-02-01T00:00:00Z"}"#;

#[test]
fn torn_last_line_is_skipped_with_a_warning_and_repaired_by_the_next_append() {
    let test = Test::new();
    if test.db.is_some() {
        // A database row is committed whole: only a file has a torn tail.
        return;
    }
    test.write(T, &format!("{ROW}\n{}", &ROW[..40]));
    let run = test
        .run(&["harness-trajectory", "query", "--json"])
        .status(0);
    assert_eq!(run.json()["totalCount"], 1);
    assert!(
        run.stderr().contains("warning")
            && run.stderr().contains("line 2")
            && run.stderr().contains("torn"),
        "{run:?}"
    );
    // KPI reads the same way.
    let run = test
        .run(&["harness-kpi", "--now", "2026-02-01T01:00:00Z", "--json"])
        .status(0);
    assert_eq!(run.json()["windowRows"], 1);
    assert!(run.stderr().contains("torn"), "{run:?}");

    // The next append moves the torn bytes aside and starts on a line of its own.
    let run = test
        .run(&[
            "harness-trajectory",
            "append",
            "--step-id",
            "s2",
            "--action",
            "a",
            "--result-class",
            "ok",
            "--finished-at",
            "2026-02-01T00:00:01Z",
        ])
        .status(0);
    assert!(run.stderr().contains(".torn"), "{run:?}");
    assert_eq!(test.read(&format!("{T}.torn")), format!("{}\n", &ROW[..40]));
    let run = test
        .run(&["harness-trajectory", "query", "--json"])
        .status(0);
    assert_eq!(run.json()["totalCount"], 2);
    assert!(run.stderr().is_empty(), "{run:?}");

    // A complete last row that only lacks its newline is a row, and is kept.
    test.write(T, ROW);
    assert_eq!(query(&test, &[])["totalCount"], 1);
    append(&test, "s2", "a", "ok", "2026-02-01T00:00:01Z");
    assert_eq!(query(&test, &[])["totalCount"], 2);
    assert_eq!(test.read(T).lines().next().unwrap(), ROW);
}

#[test]
fn a_bad_line_anywhere_else_is_an_error_naming_it() {
    let test = Test::new();
    for (bad, needle) in [
        ("{not json}".to_string(), "line 2"),
        (ROW.replace("2026-02-01T00:00:00Z", "Feb 1"), "finishedAt"),
        (ROW.replace("\"schema\":1", "\"schema\":3"), "schema"),
        (ROW.replace(",\"action\":\"a\"", ""), "action"),
        (ROW.replace("step.v1", "other"), "stepKind"),
        (ROW.replace("}", ",\"witnessRefs\":[null]}"), "line 2"),
    ] {
        test.write(T, &format!("{ROW}\n{bad}\n{ROW}\n"));
        test.run(&["harness-trajectory", "query"]).error(2, needle);
        test.run(&["harness-kpi", "--json"]).error(2, "line 2");
    }
    // A torn-looking line that is not last is not forgiven.
    test.write(T, &format!("{}\n{ROW}\n", &ROW[..30]));
    test.run(&["harness-trajectory", "query"])
        .error(2, "line 1");
    if test.db.is_some() {
        // A text column cannot hold invalid UTF-8: that corruption exists only in files.
        return;
    }
    // Invalid UTF-8 is a bad line too.
    let mut bytes = format!("{ROW}\n").into_bytes();
    bytes.extend_from_slice(&ROW.replace("s1", "s\u{e9}").into_bytes()[..]);
    let pos = bytes.iter().rposition(|&b| b == 0xc3).unwrap();
    bytes[pos] = 0xff;
    bytes.push(b'\n');
    std::fs::write(test.path(T), bytes).unwrap();
    test.run(&["harness-trajectory", "query"])
        .error(2, "line 2");
}

#[test]
fn concurrent_appends_never_interleave_within_a_line() {
    let test = Test::new();
    let procs = 8;
    let per = 25;
    // Long refs make each line span many pages of a pipe-sized write.
    let big = "w://".to_string() + &"x".repeat(20_000);
    std::thread::scope(|scope| {
        for p in 0..procs {
            let test = &test;
            let big = format!("{big}{p}");
            scope.spawn(move || {
                for i in 0..per {
                    let step = format!("p{p}-{i}");
                    test.run(&[
                        "harness-trajectory",
                        "append",
                        "--step-id",
                        &step,
                        "--action",
                        "a",
                        "--result-class",
                        "ok",
                        "--finished-at",
                        "2026-02-01T00:00:00Z",
                        "--witness-ref",
                        &big,
                    ])
                    .status(0);
                }
            });
        }
    });
    let text = test.read(T);
    let mut steps: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("every line is a whole row")["stepId"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(steps.len(), procs * per);
    steps.sort();
    steps.dedup();
    assert_eq!(steps.len(), procs * per);
    assert_eq!(query(&test, &["--limit", "0"])["totalCount"], procs * per);
}

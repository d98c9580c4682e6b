//! `tusk harness-kpi` through the binary: formula, window, thresholds, decisions.

use crate::common::Test;
use serde_json::{json, Value};

const T: &str = ".premath/harness_trajectory.jsonl";
const NOW: &str = "2026-02-10T12:00:00Z";

/// Writes `rows` of (finishedAt, resultClass, issueId) as a trajectory.
fn trajectory(test: &Test, rows: &[(&str, &str, Option<&str>)]) {
    let mut text = String::new();
    for (i, (finished, class, issue)) in rows.iter().enumerate() {
        let mut row = json!({"schema": 1, "stepKind": "premath.harness.step.v1", "stepId": format!("s{i}"),
            "action": "verify.run", "resultClass": class, "finishedAt": finished});
        if let Some(issue) = issue {
            row["issueId"] = json!(issue);
        }
        text.push_str(&row.to_string());
        text.push('\n');
    }
    test.write(T, &text);
}

/// `n` rows an hour before NOW, of which `completed` succeeded.
fn counts(test: &Test, n: usize, completed: usize) {
    let rows: Vec<_> = (0..n)
        .map(|i| {
            (
                "2026-02-10T11:00:00Z",
                if i < completed {
                    "accepted"
                } else {
                    "rejected"
                },
                None,
            )
        })
        .collect();
    trajectory(test, &rows);
}

fn kpi(test: &Test, args: &[&str]) -> Value {
    let mut all = vec!["harness-kpi", "--now", NOW, "--json"];
    all.extend_from_slice(args);
    test.run(&all).status(0).json()
}

#[test]
fn output_shape_and_formula() {
    let test = Test::new();
    // 8 of 10 completed in a 48 h window by 2 workers.
    counts(&test, 10, 8);
    let k = kpi(&test, &["--window-hours", "48", "--active-workers", "2"]);
    assert_eq!(
        k,
        json!({
            "kind": "premath.multithread.throughput.v1", "windowHours": 48, "now": NOW,
            "windowRows": 10, "completedRows": 8, "activeWorkers": 2,
            "completedRowsPerDay": 4.0, "throughputPerWorkerPerDay": 2.0, "gatePassRate": 0.8,
            "kpi": 1.6, "decision": "pass",
            "thresholds": {"target": 0.8, "rollback": 0.4, "minimumRows": 3}
        })
    );
    // Reproducible with --now.
    assert_eq!(
        kpi(&test, &["--window-hours", "48", "--active-workers", "2"]),
        k
    );
    let text = test
        .run(&[
            "harness-kpi",
            "--now",
            NOW,
            "--window-hours",
            "48",
            "--active-workers",
            "2",
        ])
        .status(0)
        .stdout();
    assert!(text.starts_with("harness-kpi: pass\nkpi: 1.6000"), "{text}");
    assert!(text.contains("10 rows, 8 completed"), "{text}");
}

#[test]
fn decisions_at_each_threshold_edge() {
    let test = Test::new();
    // kpi = c² · 24 / (H · workers · n)
    counts(&test, 5, 4);
    let at = |hours: &str, workers: &str| {
        kpi(
            &test,
            &["--window-hours", hours, "--active-workers", workers],
        )
    };
    let k = at("24", "4");
    assert_eq!(
        (k["kpi"].clone(), k["decision"].clone()),
        (json!(0.8), json!("pass"))
    );
    let k = at("24.001", "4");
    assert!(k["kpi"].as_f64().unwrap() < 0.8);
    assert_eq!(k["decision"], "watch");
    counts(&test, 5, 2);
    let k = at("24", "2");
    assert_eq!(
        (k["kpi"].clone(), k["decision"].clone()),
        (json!(0.4), json!("watch"))
    );
    let k = at("24.001", "2");
    assert!(k["kpi"].as_f64().unwrap() < 0.4);
    assert_eq!(k["decision"], "rollback");
    // Minimum sample: 2 window rows is insufficient however good; 3 is judged.
    counts(&test, 2, 2);
    assert_eq!(at("24", "1")["decision"], "insufficient_data");
    counts(&test, 3, 3);
    assert_eq!(at("24", "1")["decision"], "pass");
    counts(&test, 3, 0);
    let k = at("24", "1");
    assert_eq!(
        (k["kpi"].clone(), k["decision"].clone()),
        (json!(0.0), json!("rollback"))
    );
    // Empty window.
    trajectory(&test, &[]);
    let k = at("24", "1");
    assert_eq!(
        (
            k["windowRows"].clone(),
            k["gatePassRate"].clone(),
            k["decision"].clone()
        ),
        (json!(0), json!(0.0), json!("insufficient_data"))
    );
}

#[test]
fn window_is_half_open_at_the_start_and_closed_at_now() {
    let test = Test::new();
    trajectory(
        &test,
        &[
            ("2026-02-09T12:00:00Z", "accepted", None), // exactly now − 24 h: out
            ("2026-02-09T12:00:00.001Z", "accepted", None), // just inside
            ("2026-02-10T12:00:00Z", "ok", None),       // exactly now: in
            ("2026-02-10T13:00:00+01:00", "passed", None), // the same instant, another offset: in
            ("2026-02-10T12:00:00.001Z", "accepted", None), // after now: out
            ("2026-01-01T00:00:00Z", "accepted", None),
        ],
    );
    let k = kpi(&test, &[]);
    assert_eq!(k["windowHours"], 24);
    assert_eq!(k["windowRows"], 3);
    let k = kpi(&test, &["--window-hours", "1000"]);
    assert_eq!(k["windowRows"], 5);
    let k = kpi(&test, &["--window-hours", "0.5"]);
    assert_eq!(
        (k["windowHours"].clone(), k["windowRows"].clone()),
        (json!(0.5), json!(2))
    );
}

#[test]
fn active_workers_default_to_distinct_issue_ids_in_the_window() {
    let test = Test::new();
    trajectory(
        &test,
        &[
            ("2026-02-10T10:00:00Z", "accepted", Some("bd-1")),
            ("2026-02-10T10:00:00Z", "accepted", Some("bd-2")),
            ("2026-02-10T10:00:00Z", "rejected", Some("bd-1")),
            ("2026-02-10T10:00:00Z", "accepted", None),
            ("2026-01-01T10:00:00Z", "accepted", Some("bd-old")),
        ],
    );
    let k = kpi(&test, &[]);
    assert_eq!(k["activeWorkers"], 2);
    assert_eq!(k["throughputPerWorkerPerDay"], 1.5);
    // No issue ids: at least one worker. An explicit 0 is reported but counts as 1.
    trajectory(&test, &[("2026-02-10T10:00:00Z", "accepted", None); 3]);
    assert_eq!(kpi(&test, &[])["activeWorkers"], 1);
    let k = kpi(&test, &["--active-workers", "0"]);
    assert_eq!(
        (
            k["activeWorkers"].clone(),
            k["throughputPerWorkerPerDay"].clone()
        ),
        (json!(0), json!(3.0))
    );
}

#[test]
fn bad_input_is_exit_2() {
    let test = Test::new();
    test.run(&["harness-kpi", "--now", "noon"])
        .error(2, "--now");
    test.run(&["harness-kpi", "--window-hours", "0"])
        .error(2, "--window-hours");
    test.run(&["harness-kpi", "--window-hours", "-3"])
        .error(2, "--window-hours");
    test.run(&["harness-kpi", "--window-hours", "inf"])
        .error(2, "--window-hours");
    test.write(T, "{}\n");
    test.run(&["harness-kpi", "--now", NOW]).error(2, "line 1");
    // An absent trajectory is no data, not an error.
    let other = test.path("none.jsonl");
    let k = test
        .run(&[
            "harness-kpi",
            "--path",
            other.to_str().unwrap(),
            "--now",
            NOW,
            "--json",
        ])
        .status(0)
        .json();
    assert_eq!(k["decision"], "insufficient_data");
}

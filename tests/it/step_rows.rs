//! Every run leaves one step row in the trajectory, whatever its outcome, so
//! retry projections and the KPI see runs that failed before any host call.

use crate::common::*;
use serde_json::Value;

const T: &str = ".premath/harness_trajectory.jsonl";

fn steps(s: &Test) -> Vec<Value> {
    s.jsonl(T)
        .into_iter()
        .filter(|r| r["action"] == "scheme_eval.run")
        .collect()
}

#[test]
fn runs_that_fail_before_any_call_leave_a_step_row() {
    let s = Test::new();
    let (_, timeout) = s.eval(
        "(let loop () (loop))",
        &["--timeout-ms", "300", "--issue-id", "bd-7"],
    );
    let (_, invalid) = s.eval("(define (f x) (+ x", &["--issue-id", "bd-7"]);
    let (_, crashed) = s.eval(
        "(define b (box 1)) (set-box! b b) (car b)",
        &["--issue-id", "bd-7"],
    );
    let rows = steps(&s);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    for (row, (result, class)) in rows.iter().zip([
        (&timeout, "scheme_eval.timeout"),
        (&invalid, "scheme_eval.invalid_program"),
        (&crashed, "scheme_eval.worker_crashed"),
    ]) {
        assert_eq!(row["resultClass"], class);
        assert_eq!(row["issueId"], "bd-7");
        assert_eq!(
            row["stepId"],
            format!("scheme_eval.run.{}", result["runId"].as_str().unwrap())
        );
    }
    // Step ids are unique across runs, per-call ones included.
    let mut ids: Vec<String> = s.jsonl(T).iter().map(|r| r["stepId"].to_string()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);

    let query = |mode: &str| -> Value {
        let out = s.run(&["harness-trajectory", "query", "--mode", mode, "--json"]);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let failed = query("failed");
    assert_eq!(failed["failedCount"], 3, "{failed:#}");
    let retry = query("retry-needed");
    assert_eq!(
        retry["retryNeededCount"], 1,
        "only the timeout reads as transient: {retry:#}"
    );
    assert_eq!(retry["items"][0]["resultClass"], "scheme_eval.timeout");

    // A fleet of rejected runs is not a pass.
    let out = s.run(&["harness-kpi", "--json"]);
    let kpi: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(kpi["windowRows"], 3, "{kpi:#}");
    assert_eq!(kpi["completedRows"], 0);
    assert_ne!(kpi["decision"], "pass", "{kpi:#}");
}

#[test]
fn the_kpi_counts_steps_not_host_calls() {
    let s = Test::new();
    // One accepted run making three reads: one step, three call rows.
    let (code, _) = s.eval("(issue.ready) (issue.list) (issue.blocked)", &[]);
    assert_eq!(code, 0);
    assert_eq!(s.jsonl(T).len(), 4);
    let out = s.run(&["harness-kpi", "--json"]);
    let kpi: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(kpi["windowRows"], 1, "{kpi:#}");
    assert_eq!(kpi["completedRows"], 1);
}

//! `tusk harness-retry decide|escalate` and their host actions through the
//! binary: every rule kind, every escalation action with the store checked
//! afterwards, every issue-context source in its order, every fail-closed
//! class, and a policy whose digest does not match.

use crate::common::*;
use serde_json::{json, Value};

/// `tusk` with extra environment variables (the issue-context sources).
fn tusk_env(s: &Test, args: &[&str], env: &[(&str, &str)]) -> (i32, Value, String) {
    let mut tusk = s.tusk(args);
    for k in [
        "PREMATH_ACTIVE_ISSUE_ID",
        "PREMATH_ISSUE_ID",
        "PREMATH_HARNESS_SESSION_PATH",
        "PREMATH_ISSUES_PATH",
    ] {
        tusk = tusk.env_remove(k);
    }
    for (k, v) in env {
        tusk = tusk.env(k, v);
    }
    let out = tusk.run();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.code(),
        json,
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn decide(s: &Test, class: &str, attempt: &str) -> Value {
    let (code, v, err) = tusk_env(
        s,
        &[
            "harness-retry",
            "decide",
            "--failure-class",
            class,
            "--attempt",
            attempt,
            "--json",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    v
}

fn issue(s: &Test, id: &str) -> Value {
    let out = s.run(&["issue", "show", id, "--json"]);
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["issue"].clone()
}

/// `tusk harness-retry escalate --failure-class check_failed` plus `extra`, with
/// no issue-context variables set.
fn escalate(s: &Test, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        "harness-retry",
        "escalate",
        "--failure-class",
        "check_failed",
    ];
    args.extend_from_slice(extra);
    tusk_env(s, &args, &[])
}

#[test]
fn every_rule_kind_and_the_attempt_rule() {
    let s = Test::new();
    for (class, attempt, rule, retry, backoff, action) in [
        (
            "scheme_eval.timeout",
            "1",
            "transient_retry",
            true,
            "exponential_short",
            "issue_discover",
        ),
        (
            "scheme_eval.worker_crashed",
            "2",
            "transient_retry",
            true,
            "exponential_short",
            "issue_discover",
        ),
        (
            "scheme_eval.timeout",
            "3",
            "transient_retry",
            false,
            "exponential_short",
            "issue_discover",
        ),
        (
            "lease_contention_active",
            "1",
            "operational_retry",
            true,
            "fixed_short",
            "issue_discover",
        ),
        (
            "lease_mutation_lock_busy",
            "2",
            "operational_retry",
            false,
            "fixed_short",
            "issue_discover",
        ),
        (
            "scheme_eval.invalid_program",
            "1",
            "semantic_no_retry",
            false,
            "none",
            "mark_blocked",
        ),
        (
            "mutation.use_evidence_missing",
            "1",
            "semantic_no_retry",
            false,
            "none",
            "mark_blocked",
        ),
        (
            "governance.eval_gate_unmet",
            "1",
            "governance_no_retry",
            false,
            "none",
            "mark_blocked",
        ),
        ("never_heard_of_it", "1", "default", false, "none", "stop"),
    ] {
        let d = decide(&s, class, attempt);
        assert_eq!(d["ruleId"], rule, "{class}");
        assert_eq!(d["retry"], retry, "{class} attempt {attempt}");
        assert_eq!(d["backoffClass"], backoff, "{class}");
        assert_eq!(d["escalationAction"], action, "{class}");
        assert_eq!(d["matchedFailureClass"], class);
    }
    let (code, _, err) = tusk_env(
        &s,
        &[
            "harness-retry",
            "decide",
            "--failure-class",
            "x",
            "--attempt",
            "0",
        ],
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("retry_policy_invalid_shape"), "{err}");
}

#[test]
fn a_policy_file_is_data_and_its_digest_is_checked() {
    let s = Test::new();
    // A policy written in the reference's format with one rule of our own.
    let mut doc = json!({
        "schema": 1, "policyKind": "ci.harness.retry.policy.v1", "policyId": "policy.test.v1",
        "defaultRule": {"maxAttempts": 1, "backoffClass": "none", "escalationAction": "stop"},
        "rules": [{"ruleId": "flaky", "failureClasses": ["flaky_io"], "maxAttempts": 4,
                   "backoffClass": "fixed_short", "escalationAction": "issue_discover"}]
    });
    let digest = format!("pol1_{}", sha256_hex(&canonical(&doc)));
    doc["policyDigest"] = json!(digest);
    s.write(".premath/harness_retry_policy.json", &doc.to_string());
    let d = decide(&s, "flaky_io", "3");
    assert_eq!(
        (
            d["ruleId"].clone(),
            d["retry"].clone(),
            d["policyDigest"].clone()
        ),
        (json!("flaky"), json!(true), json!(digest))
    );
    // The built-in table no longer applies: the file is the policy.
    assert_eq!(decide(&s, "scheme_eval.timeout", "1")["ruleId"], "default");
    doc["rules"][0]["maxAttempts"] = json!(9);
    s.write(".premath/harness_retry_policy.json", &doc.to_string());
    let (code, _, err) = tusk_env(
        &s,
        &["harness-retry", "decide", "--failure-class", "flaky_io"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("retry_policy_invalid_digest"), "{err}");
    // A program sees the same refusal as a rejected envelope.
    let (_, r) = s.eval(
        "(result-class (harness.retry.decide (hash \"failureClasses\" (list \"flaky_io\"))))",
        &[],
    );
    assert_eq!(r["value"], "retry_policy_invalid_digest");
    s.write(".premath/harness_retry_policy.json", "{not json");
    let (code, _, err) = tusk_env(
        &s,
        &["harness-retry", "decide", "--failure-class", "x"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("retry_policy_invalid_json"), "{err}");
}

#[test]
fn every_escalation_action_and_the_store_afterwards() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    s.run(&["issue", "add", "Lexer"]);
    // stop: no mutation, and no issue context needed at all.
    let before = std::fs::read_to_string(s.path(".premath/issues.jsonl")).unwrap();
    let (code, v, _) = tusk_env(
        &s,
        &[
            "harness-retry",
            "escalate",
            "--failure-class",
            "nothing_known",
            "--json",
        ],
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(v["outcome"], "stop");
    assert_eq!(
        std::fs::read_to_string(s.path(".premath/issues.jsonl")).unwrap(),
        before
    );
    // issue_discover: a follow-up discovered from the active issue.
    let (code, v, err) = tusk_env(
        &s,
        &[
            "harness-retry",
            "escalate",
            "--failure-class",
            "scheme_eval.timeout",
            "--attempt",
            "3",
            "--issue-id",
            "bd-1",
            "--json",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["outcome"], "issue_discover");
    let created = v["createdIssueId"].as_str().unwrap();
    let new = issue(&s, created);
    assert!(new["title"]
        .as_str()
        .unwrap()
        .contains("retry exhausted (scheme_eval.timeout)"));
    assert_eq!(new["dependencies"][0]["dependsOnId"], "bd-1");
    assert_eq!(new["dependencies"][0]["type"], "discovered-from");
    assert!(new["description"]
        .as_str()
        .unwrap()
        .starts_with("[harness-escalation]"));
    // mark_blocked: the issue blocked, the note added to its notes, once.
    s.run(&["issue", "update", "bd-2", "--notes", "earlier note"]);
    for _ in 0..2 {
        let (code, v, err) = tusk_env(
            &s,
            &[
                "harness-retry",
                "escalate",
                "--failure-class",
                "scheme_eval.invalid_program",
                "--issue-id",
                "bd-2",
                "--json",
            ],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(v["outcome"], "mark_blocked");
    }
    let blocked = issue(&s, "bd-2");
    assert_eq!(blocked["status"], "blocked");
    let notes = blocked["notes"].as_str().unwrap();
    assert!(
        notes.starts_with("earlier note\n\n[harness-escalation]"),
        "{notes}"
    );
    assert_eq!(notes.matches("[harness-escalation]").count(), 1, "{notes}");
    // The host action, behind the gate.
    let (code, r) = s.eval(
        "(result-class (harness.escalate (hash \"failureClasses\" (list \"scheme_eval.invalid_program\") \"issueId\" \"bd-1\")))",
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(r["value"], "mutation.use_evidence_missing");
    assert_eq!(issue(&s, "bd-1")["status"], "open");
}

#[test]
fn the_active_issue_comes_from_each_source_in_order() {
    let s = Test::new();
    for t in ["One", "Two", "Three", "Four"] {
        s.run(&["issue", "add", t]);
    }
    // The session names bd-3 (read only when the earlier sources are silent).
    s.run(&[
        "harness-session",
        "write",
        "--state",
        "active",
        "--issue-id",
        "bd-3",
    ]);
    let esc = |env: &[(&str, &str)], flag: Option<&str>| -> Value {
        let mut args = vec![
            "harness-retry",
            "escalate",
            "--failure-class",
            "check_failed",
            "--json",
        ];
        if let Some(id) = flag {
            args.extend(["--issue-id", id]);
        }
        let (code, v, err) = tusk_env(&s, &args, env);
        assert_eq!(code, 0, "{err}");
        v
    };
    let all = [
        ("PREMATH_ACTIVE_ISSUE_ID", "bd-2"),
        ("PREMATH_ISSUE_ID", "bd-4"),
    ];
    let v = esc(&all, Some("bd-1"));
    assert_eq!(
        (v["issueId"].clone(), v["issueContext"].clone()),
        (json!("bd-1"), json!("explicit"))
    );
    let v = esc(&all, None);
    assert_eq!(
        (v["issueId"].clone(), v["issueContext"].clone()),
        (json!("bd-2"), json!("PREMATH_ACTIVE_ISSUE_ID"))
    );
    let v = esc(&all[1..], None);
    assert_eq!(
        (v["issueId"].clone(), v["issueContext"].clone()),
        (json!("bd-4"), json!("PREMATH_ISSUE_ID"))
    );
    let v = esc(&[], None);
    assert_eq!(
        (v["issueId"].clone(), v["issueContext"].clone()),
        (json!("bd-3"), json!("session"))
    );
    // No session: the ready frontier, only when it holds exactly one issue.
    // (Each escalation above blocked its issue: two fresh ones are ready.)
    std::fs::remove_file(s.path(".premath/harness_session.json")).unwrap();
    s.run(&["issue", "add", "Five"]);
    s.run(&["issue", "add", "Six"]);
    let (code, _, err) = escalate(&s, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("escalation_issue_context_ambiguous"), "{err}");
    let one = Test::new();
    one.run(&["issue", "add", "Only"]);
    let (code, v, err) = escalate(&one, &["--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (v["issueId"].clone(), v["issueContext"].clone()),
        (json!("bd-1"), json!("ready-frontier"))
    );
    let none = Test::new();
    let (code, _, err) = escalate(&none, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("escalation_issue_context_unbound"), "{err}");
    // A session file that is not a session fails closed.
    none.write(".premath/harness_session.json", "[1, 2]");
    let (code, _, err) = escalate(&none, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("escalation_session_invalid"), "{err}");
    // One that cannot be read (a directory where the file should be).
    let dir = Test::new();
    std::fs::create_dir_all(dir.path(".premath/harness_session.json")).unwrap();
    let (code, _, err) = escalate(&dir, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("escalation_session_read_failed"), "{err}");
}

#[test]
fn escalations_that_cannot_be_carried_out_fail_closed() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    // mark_blocked on an issue that does not exist.
    let (code, _, err) = escalate(&s, &["--issue-id", "bd-99"]);
    assert_eq!(code, 2);
    assert!(err.contains("escalation_issue_not_found"), "{err}");
    // issue_discover from a parent the store does not have.
    let (code, _, err) = tusk_env(
        &s,
        &[
            "harness-retry",
            "escalate",
            "--failure-class",
            "scheme_eval.timeout",
            "--issue-id",
            "bd-99",
        ],
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("escalation_issue_command_failed"), "{err}");
    // A policy naming an action there is no escalation for.
    let mut doc = json!({
        "schema": 1, "policyKind": "ci.harness.retry.policy.v1", "policyId": "p",
        "defaultRule": {"maxAttempts": 1, "backoffClass": "none", "escalationAction": "page_someone"},
        "rules": [{"ruleId": "r", "failureClasses": ["x_y"], "maxAttempts": 1,
                   "backoffClass": "none", "escalationAction": "stop"}]
    });
    doc["policyDigest"] = json!(format!("pol1_{}", sha256_hex(&canonical(&doc))));
    s.write(".premath/harness_retry_policy.json", &doc.to_string());
    let (code, _, err) = tusk_env(
        &s,
        &[
            "harness-retry",
            "escalate",
            "--failure-class",
            "other_class",
            "--issue-id",
            "bd-1",
        ],
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("escalation_unknown_action"), "{err}");
}

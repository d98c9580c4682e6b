//! `harness.boot` and `harness.stop` through the binary, with the refs a stop
//! writes computed independently here.

use crate::common::*;
use serde_json::{json, Value};

fn auth(s: &Test) -> Vec<String> {
    let out = s.run(&["policy", "digest"]);
    let digest = String::from_utf8(out.stdout).unwrap().trim().to_string();
    vec![
        "--policy-digest".into(),
        digest,
        "--instruction-ref".into(),
        "instr://hooks".into(),
    ]
}

fn run(s: &Test, program: &str) -> Value {
    let a = auth(s);
    let flags: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, r) = s.eval(program, &flags);
    assert_eq!(code, 0, "{r:#}");
    r
}

fn hex(v: &Value) -> String {
    sha256_hex(&canonical(v))
}

#[test]
fn stop_releases_persists_and_writes_the_exact_refs() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    let r = run(
        &s,
        r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a"))
           (payload (harness.stop (hash "issueId" "bd-1" "workerId" "agent.a" "summary" "parser done"
                                        "nextStep" "write the lexer" "lease" "release")))"#,
    );
    let stop = &r["value"];
    let run_id = r["runId"].as_str().unwrap();
    // The lease: released, and the handoff ref's digest over the state after it.
    let issue: Value =
        serde_json::from_slice(&s.run(&["issue", "show", "bd-1", "--json"]).stdout).unwrap();
    let after = &issue["issue"];
    assert!(after["lease"].is_null());
    let digest = hex(&json!({
        "issueId": "bd-1", "workerId": "agent.a", "leaseId": "", "leaseOwner": "",
        "leaseState": "released", "leaseAction": "issue_lease_release",
        "status": after["status"], "assignee": after["assignee"].as_str().unwrap_or(""),
    }));
    let lease_ref = format!("lease://handoff/bd-1/released/{digest}");
    assert_eq!(stop["leaseRef"], lease_ref);
    let issues_path = "./.premath/issues.jsonl";
    let ctx = format!(
        "ctx://issue/bd-1/{}",
        hex(&json!({"kind": "ctx", "issueId": "bd-1", "issuesPath": issues_path}))
    );
    let cover = format!(
        "cover://worker-loop/bd-1/{}",
        hex(&json!({"kind": "cover", "ctxRef": ctx, "workerPool": "tusk.scheme_eval.v1"}))
    );
    let refinement = format!(
        "refinement://worker-loop/bd-1/agent.a/{}",
        hex(
            &json!({"kind": "refinement", "coverRef": cover, "workerId": "agent.a", "runId": run_id})
        )
    );
    assert_eq!(stop["lineageRefs"], json!([ctx, cover, refinement]));
    // The session: stopped, with summary, next step, issue and refs.
    let session: Value = serde_json::from_str(
        &std::fs::read_to_string(s.path(".premath/harness_session.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(session["state"], "stopped");
    assert_eq!(session["issueId"], "bd-1");
    assert_eq!(session["summary"], "parser done");
    assert_eq!(session["nextStep"], "write the lexer");
    assert_eq!(session["witnessRefs"], json!([lease_ref]));
    // The stop row carries the same refs.
    let rows = s.jsonl(".premath/harness_trajectory.jsonl");
    let row = rows
        .iter()
        .find(|r| r["action"] == "harness.stop")
        .expect("a stop row");
    assert_eq!(row["witnessRefs"], json!([lease_ref]));
    assert_eq!(row["issueId"], "bd-1");
    let mut lineage = vec![ctx.clone(), cover.clone(), refinement.clone()];
    lineage.sort();
    assert_eq!(row["lineageRefs"], json!(lineage));
}

#[test]
fn a_refused_lease_action_writes_nothing() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    run(
        &s,
        r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a"))"#,
    );
    let before = std::fs::read_to_string(s.path(".premath/issues.jsonl")).unwrap();
    let a = auth(&s);
    let flags: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, r) = s.eval(
        r#"(harness.stop (hash "issueId" "bd-1" "workerId" "agent.b" "summary" "x" "nextStep" "y" "lease" "release"))"#,
        &flags,
    );
    assert_eq!(code, 1);
    assert!(
        r["failureClasses"][0]
            .as_str()
            .unwrap()
            .starts_with("lease_"),
        "{r:#}"
    );
    assert_eq!(
        std::fs::read_to_string(s.path(".premath/issues.jsonl")).unwrap(),
        before
    );
    assert!(!s.path(".premath/harness_session.json").exists());
    assert!(s
        .jsonl(".premath/harness_trajectory.jsonl")
        .iter()
        .all(|r| r["action"] != "harness.stop"));
}

#[test]
fn boot_reports_roots_leases_a_stranded_handoff_and_the_next_target() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    s.run(&["issue", "add", "Lexer"]);
    run(
        &s,
        r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a"))"#,
    );
    // The state a stop killed between its first and second write leaves: a
    // session still active on bd-1 (here its lease is still held, renewed).
    s.run(&[
        "harness-session",
        "write",
        "--state",
        "active",
        "--issue-id",
        "bd-1",
    ]);
    let r = run(
        &s,
        r#"(payload (harness.boot (hash "workerId" "agent.a")))"#,
    );
    let boot = &r["value"];
    assert_eq!(boot["roots"]["issuesPath"], "./.premath/issues.jsonl");
    assert_eq!(boot["session"]["mode"], "attach", "{boot:#}");
    let leases = boot["leases"].as_array().unwrap();
    assert_eq!(leases.len(), 1, "{boot:#}");
    assert_eq!(leases[0]["issueId"], "bd-1");
    assert_eq!(leases[0]["leaseState"], "active");
    assert_eq!(leases[0]["stranded"], true);
    assert!(leases[0]["resume"]
        .as_str()
        .unwrap()
        .contains("issue.lease_renew"));
    assert_eq!(boot["next"]["source"], "ready");
    assert_eq!(boot["next"]["issueId"], "bd-2");
    assert_eq!(boot["diagnostics"]["graphScope"], "active");
}

#[test]
fn a_rejected_run_holding_a_lease_names_it_and_boot_offers_to_resume() {
    let s = Test::new().issues(&[issue_with("bd-1", json!({"title": "Parser"}))]);
    let a = auth(&s);
    let mut flags: Vec<&str> = a.iter().map(String::as_str).collect();
    flags.extend(["--timeout-ms", "500"]);
    // Claims, then runs out of time without stopping.
    let (code, r) = s.eval(
        r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a")) (let loop () (loop))"#,
        &flags,
    );
    assert_eq!(code, 1);
    let step = s
        .jsonl(".premath/harness_trajectory.jsonl")
        .into_iter()
        .find(|row| row["action"] == "scheme_eval.run")
        .unwrap();
    assert_eq!(step["resultClass"], "scheme_eval.timeout");
    assert!(
        step["witnessRefs"]
            .as_array()
            .unwrap()
            .contains(&json!("lease://held/bd-1/lease1_bd-1_agent.a")),
        "{step:#}"
    );
    assert!(r["runId"].is_string());
    let r = run(
        &s,
        r#"(payload (harness.boot (hash "workerId" "agent.a" "issueId" "bd-1")))"#,
    );
    let lease = &r["value"]["leases"][0];
    assert_eq!(lease["leaseId"], "lease1_bd-1_agent.a");
    assert!(
        lease["resume"]
            .as_str()
            .unwrap()
            .contains("issue.lease_renew"),
        "{lease:#}"
    );
}

#[test]
fn a_stop_killed_between_its_writes_leaves_a_state_boot_reports() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    run(
        &s,
        r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a"))
           (harness.session.write (hash "state" "active" "issueId" "bd-1"))"#,
    );
    let a = auth(&s);
    let program = s.write(
        "stop.scm",
        r#"(harness.stop (hash "issueId" "bd-1" "workerId" "agent.a" "summary" "s" "nextStep" "n" "lease" "release"))"#,
    );
    let out = s
        .tusk(&["eval"])
        .arg(&program)
        .args(&a)
        .env("TUSK_TEST_CRASH_AT", "lease")
        .run();
    assert_eq!(out.status.code(), None, "the host was killed mid-stop");
    // The lease is released, the session still active on the issue, no stop row.
    let issue: Value =
        serde_json::from_slice(&s.run(&["issue", "show", "bd-1", "--json"]).stdout).unwrap();
    assert!(issue["issue"]["lease"].is_null());
    let session: Value = serde_json::from_str(
        &std::fs::read_to_string(s.path(".premath/harness_session.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(session["state"], "active");
    assert!(s
        .jsonl(".premath/harness_trajectory.jsonl")
        .iter()
        .all(|r| r["action"] != "harness.stop"));
    // The next boot sees the half-done handoff and says how to resume.
    let r = run(
        &s,
        r#"(payload (harness.boot (hash "workerId" "agent.a")))"#,
    );
    let lease = &r["value"]["leases"][0];
    assert_eq!(lease["issueId"], "bd-1");
    assert_eq!(lease["leaseState"], "unleased");
    assert_eq!(lease["stranded"], true);
    assert!(
        lease["resume"].as_str().unwrap().contains("issue.claim"),
        "{lease:#}"
    );
    // And the stop, run again, completes.
    let r = run(
        &s,
        r#"(result-class (harness.stop (hash "issueId" "bd-1" "workerId" "agent.a" "summary" "s" "nextStep" "n" "lease" "keep")))"#,
    );
    assert_eq!(r["value"], "accepted");
}

#[test]
fn boot_falls_back_to_the_next_feature_and_refuses_a_rejected_ledger() {
    let s = Test::new();
    s.run(&["issue", "add", "Parser"]);
    s.run(&["issue", "update", "bd-1", "--status", "closed"]);
    for (id, status) in [("f2", "pending"), ("f1", "blocked"), ("f3", "pending")] {
        let out = s.run(&[
            "harness-feature",
            "write",
            "--feature-id",
            id,
            "--status",
            status,
        ]);
        assert!(out.status.success(), "{out:?}");
    }
    let r = run(&s, r#"(payload (harness.boot))"#);
    let boot = &r["value"];
    assert_eq!(
        boot["next"],
        json!({"source": "feature", "featureId": "f2"}),
        "{boot:#}"
    );
    assert_eq!(boot["session"]["featureCount"], 3);
    // Two features in progress: the ledger's check rejects it, and boot says so.
    for id in ["f1", "f3"] {
        s.run(&[
            "harness-feature",
            "write",
            "--feature-id",
            id,
            "--status",
            "in_progress",
        ]);
    }
    let a = auth(&s);
    let flags: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, r) = s.eval(r#"(harness.boot)"#, &flags);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(
        r["effects"][0]["payload"]["cause"], "harness.feature_ledger_rejected",
        "{r:#}"
    );
}

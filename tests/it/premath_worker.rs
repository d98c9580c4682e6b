//! premath's own worker loop (`tools/harness/multithread_loop.py`, copied
//! unchanged from premath 183f91f, CC0: see tests/premath_worker/README.md)
//! runs against the real tusk binary (`PREMATH_BIN`): a success path (claim,
//! session and ledger projections, close, stop handoff) and a failure path
//! (verify fails, the lease is renewed through `transport-dispatch`, the
//! handoff is recorded). The worker parses the JSON of every command it runs,
//! `harness-session write` included; the test then reads the session back
//! through `harness-session read|bootstrap --json`. The expected refs are the
//! ones premath's binary produced for the same store (they hash only the
//! issue, lease and policy, not the directory).

use crate::common::{Test, BIN};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

const SCRIPT: &str = "tools/harness/multithread_loop.py";
const CONTRACT: &str = "specs/premath/draft/CONTROL-PLANE-CONTRACT.json";

/// A repo root laid out as premath's (the script finds the contract two
/// directories above itself) with two open issues.
fn repo() -> Test {
    let dir = Test::on_files();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/premath_worker");
    for rel in [SCRIPT, CONTRACT] {
        let to = dir.path(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(source.join(rel), to).unwrap();
    }
    dir.write(
        ".premath/issues.jsonl",
        "{\"id\":\"bd-1\",\"title\":\"One\",\"status\":\"open\",\"priority\":1}\n\
         {\"id\":\"bd-2\",\"title\":\"Two\",\"status\":\"open\",\"priority\":2}\n",
    );
    dir
}

fn worker(root: &Path, verify_cmd: &str) -> Output {
    Command::new("python3")
        .arg(root.join(SCRIPT))
        .args([
            "worker",
            "--worker-id",
            "w1",
            "--mutation-mode",
            "human-override",
            "--override-reason",
            "test",
            "--work-cmd",
            "true",
            "--verify-cmd",
            verify_cmd,
            "--worktree-root",
            ".",
        ])
        .current_dir(root)
        .env("PREMATH_BIN", BIN)
        .env_remove("TUSK_STORE")
        .env_remove("PREMATH_HOST_ACTION_TRANSPORT")
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed to run premath's worker loop: {e}"))
}

fn tusk_json(repo: &Test, args: &[&str]) -> Value {
    let out = repo.run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn issue(root: &Path, id: &str) -> Value {
    std::fs::read_to_string(root.join(".premath/issues.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|i| i["id"] == id)
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const POLICY_REF_1: &str = "policy://worker-lane/human-override/3eef5427aa33857654f9376d9c3b9281cde2f546393056d655c4fc3c75eaa5a0";
const RELEASED_1: &str =
    "lease://handoff/bd-1/released/ccd7dd51b4f4d5b26e07a860d689ca922098c17bd9da5bc4fa3a7e706444b137";
const ACTIVE_2: &str =
    "lease://handoff/bd-2/active/b5bf11241ed1a9585f62179756f330acae279def85652d4bc92e9dffe0844af9";
const POLICY_REF_2: &str = "policy://worker-lane/human-override/591a5de1cd9887b446bb5f8c3ad14c65a00b4d59cb3807e269496dda0e2404b7";
const RENEW_2: &str = "transport://dispatch/issue.lease_renew/ts1_600bd17cab2fa723f590da173041757ccea9299516d81db48baa99fb5754e1bf";

#[test]
fn premaths_worker_loop_closes_an_issue_then_recovers_a_failed_one() {
    let repo = repo();
    let root = repo.dir();

    // Success: bd-1 claimed, worked, verified, closed; the lease released.
    let out = worker(root, "true");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("[worker:w1] closed issue bd-1"),
        "{}",
        text(&out)
    );
    let closed = issue(root, "bd-1");
    assert_eq!(closed["status"], "closed");
    assert!(closed.get("lease").is_none(), "{closed}");
    let read = tusk_json(&repo, &["harness-session", "read", "--json"]);
    assert_eq!(read["action"], "harness-session.read");
    assert_eq!(read["path"], ".premath/harness_session.json");
    let session = &read["session"];
    assert_eq!(session["state"], "stopped");
    assert_eq!(session["issueId"], "bd-1");
    assert_eq!(session["nextStep"], "claim next ready issue");
    assert_eq!(session["witnessRefs"], json!([RELEASED_1, POLICY_REF_1]));

    // Failure: verify fails on bd-2; the live lease is renewed through
    // transport-dispatch and the handoff says how to resume.
    let out = worker(root, "false");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(
            "work/verify failed for bd-2 (work_rc=0, verify_rc=1, lease_state=active, action=issue_lease_renew)"
        ),
        "{}",
        text(&out)
    );
    let held = issue(root, "bd-2");
    assert_eq!(held["status"], "in_progress");
    assert_eq!(held["lease"]["lease_id"], "lease1_bd-2_w1");
    assert!(held["lease"]["renewed_at"].is_string(), "{held}");

    let boot = tusk_json(&repo, &["harness-session", "bootstrap", "--json"]);
    assert_eq!(boot["action"], "harness-session.bootstrap");
    assert_eq!(boot["mode"], "resume");
    assert_eq!(boot["resumeIssueId"], "bd-2");
    assert_eq!(boot["featureCount"], 2);
    assert_eq!(boot["featureClosureComplete"], false);
    assert_eq!(
        boot["witnessRefs"],
        json!([ACTIVE_2, POLICY_REF_2, RENEW_2])
    );

    let rows: Vec<Value> = std::fs::read_to_string(root.join(".premath/harness_trajectory.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = rows.last().unwrap();
    assert_eq!(last["stepId"], "w1.bd-2.1");
    assert_eq!(
        last["resultClass"],
        "retry_needed_lease_active_transport_dispatched"
    );
    assert_eq!(
        last["witnessRefs"],
        json!([
            ACTIVE_2,
            POLICY_REF_2,
            RENEW_2,
            "worker://loop/w1/bd-2/failed"
        ])
    );
    let ledger: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(".premath/harness_feature_ledger.json")).unwrap(),
    )
    .unwrap();
    let statuses: Vec<(&str, &str)> = ledger["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["featureId"].as_str().unwrap(),
                f["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(statuses, [("bd-1", "completed"), ("bd-2", "blocked")]);
}

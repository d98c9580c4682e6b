//! premath's MCP tool calls, recorded from `premath mcp-serve` with the
//! official Python SDK (`vectors/premath-mcp/record.py`, fixtures committed
//! there), replayed against `tusk mcp --premath-tools` with the same SDK
//! (`tests/mcp/premath_drop_in.py`): each tool is listed with premath's input
//! schema and answers premath's text and error flag (a mutation also leaves
//! premath's store), and each call is a recorded tusk run. Only what is truly
//! variable is normalized (clock instants, a write witness's id and
//! milliseconds), and premath's lease `resolverWitness` set aside (tusk does
//! not compute it); the script's docstring says exactly what. Needs the venv
//! of `bash tests/mcp/setup.sh` (fails, never skips, without it).
//!
//! The other tests cover what is tusk's: a mutation through a premath tool
//! is a run `tusk replay` replays, and tusk's gate still stands behind
//! premath's instruction witness.

use crate::common::{self, Test};

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// Every tool of premath's `mcp-serve` with a tusk twin.
const TWINS: [&str; 17] = [
    "issue_ready",
    "issue_list",
    "issue_check",
    "issue_backend_status",
    "issue_blocked",
    "issue_add",
    "issue_claim",
    "issue_lease_renew",
    "issue_lease_release",
    "issue_discover",
    "issue_update",
    "dep_add",
    "dep_remove",
    "dep_replace",
    "dep_diagnostics",
    "init_tool",
    "issue_lease_projection",
];

#[test]
fn premaths_mcp_tool_calls_get_premaths_answers_from_tusk() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/mcp-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash tests/mcp/setup.sh` (installs the pinned MCP Python SDK)",
        python.display()
    );
    let out = Command::new(&python)
        .arg(root.join("tests/mcp/premath_drop_in.py"))
        .arg(common::BIN)
        .env_remove("TUSK_STORE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every recorded case ran (the script exits 0 only when all passed),
    // and every tool with a twin has a case.
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("vectors/premath-mcp/cases.json")).unwrap(),
    )
    .unwrap();
    let cases = cases["cases"].as_array().unwrap();
    for tool in TWINS {
        assert!(
            cases.iter().any(|c| c["tool"] == tool),
            "no recorded case calls {tool}"
        );
    }
    let n = cases.len();
    assert!(n >= 60, "{n} cases");
    assert!(
        stdout.contains(&format!("{n} passed, 0 failed")),
        "{stdout}"
    );
}

const STORE: &str = "{\"id\":\"bd-1\",\"title\":\"One\",\"status\":\"open\",\"priority\":1}\n\
                     {\"id\":\"bd-2\",\"title\":\"Two\",\"status\":\"open\",\"priority\":2}\n";

/// A directory with the store and an accepted instruction witness `instr-1`
/// claiming every change morphism, join gate closed.
fn scratch() -> Test {
    let dir = Test::on_files();
    let write = |rel: &str, text: &str| {
        dir.write(rel, text);
    };
    write(".premath/issues.jsonl", STORE);
    write(
        "artifacts/ciwitness/instr-1.json",
        &json!({
            "instructionId": "instr-1", "verdictClass": "accepted",
            "policyDigest": "pol1_1ab3e7f398a472c2cf0f3fbd7ead7ece7bd74e836cbde924f1e33f02895d18ab",
            "capabilityClaims": ["capabilities.change_morphisms", "capabilities.change_morphisms.all"],
            "failureClasses": [], "joinClosed": true, "joinFailureClasses": [],
        })
        .to_string(),
    );
    dir
}

fn policy_digest(dir: &Test) -> String {
    let out = dir.run(&["policy", "digest"]);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Calls premath's tools in order on `tusk mcp --premath-tools <flags>` in
/// `dir`; returns each call's (isError, text).
fn call_tools(dir: &Test, flags: &[&str], calls: &[(&str, Value)]) -> Vec<(bool, String)> {
    let mut requests = common::mcp_handshake("premath-mcp-test");
    for (i, (tool, args)) in calls.iter().enumerate() {
        requests.push(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}),
        );
    }
    let mut cmd = dir.tusk(&["mcp", "--premath-tools"]).args(flags).command();
    let replies = common::jsonrpc_stdio(&mut cmd, &requests);
    replies[1..]
        .iter()
        .map(|r| {
            let result = &r["result"];
            (
                result["isError"] == true,
                result["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

fn rows(dir: &Test) -> Vec<Value> {
    common::read_jsonl(&dir.path(".premath/host_effects.jsonl"))
}

#[test]
fn a_premath_mutation_is_a_recorded_run_that_replays() {
    let dir = scratch();
    let digest = policy_digest(&dir);
    let flags = ["--policy-digest", digest.as_str()];
    let answers = call_tools(
        &dir,
        &flags,
        &[
            (
                "issue_claim",
                json!({"id": "bd-1", "assignee": "ann", "instruction_id": "instr-1"}),
            ),
            (
                "dep_add",
                json!({"issue_id": "bd-2", "depends_on_id": "bd-1", "instructionId": "instr-1"}),
            ),
        ],
    );
    for (is_error, text) in &answers {
        assert!(!is_error, "{text}");
    }
    let claimed: Value = serde_json::from_str(&answers[0].1).unwrap();
    assert_eq!(claimed["issue"]["assignee"], "ann");
    assert_eq!(claimed["instruction"]["instructionId"], "instr-1");

    // Two runs, each header/row/footer; the header carries the instruction
    // id as instructionRef and the witness's claims; the rows are accepted.
    let rows = rows(&dir);
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.len(), 6, "{kinds:?}");
    let headers: Vec<&Value> = rows
        .iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .collect();
    assert_eq!(headers.len(), 2);
    for header in &headers {
        assert_eq!(header["authority"]["instructionRef"], "instr-1");
        assert_eq!(header["authority"]["policyDigest"], digest.as_str());
        assert_eq!(
            header["authority"]["capabilityClaims"],
            json!([
                "capabilities.change_morphisms",
                "capabilities.change_morphisms.all"
            ])
        );
    }
    let calls: Vec<&Value> = rows
        .iter()
        .filter(|r| r["kind"] == "premath.host_effect.row.v0")
        .collect();
    assert_eq!(calls[0]["action"], "premath.issue_claim");
    assert_eq!(calls[1]["action"], "premath.dep_add");
    assert!(calls
        .iter()
        .all(|c| c["envelope"]["resultClass"] == "accepted"));
    // The trajectory has the runs' rows too.
    let steps = common::read_jsonl(&dir.path(".premath/harness_trajectory.jsonl"));
    assert!(!steps.is_empty());

    // The store changed as the answers say.
    let store = std::fs::read_to_string(dir.path(".premath/issues.jsonl")).unwrap();
    assert!(store.contains("\"assignee\":\"ann\""), "{store}");
    assert!(store.contains("\"depends_on_id\":\"bd-1\""), "{store}");

    // tusk replay accepts every run.
    let replay = dir.run(&["replay"]);
    let text = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    for header in headers {
        let run_id = header["runId"].as_str().unwrap();
        let one = dir.run(&["replay", "--run", run_id, "--json"]);
        assert_eq!(one.status.code(), Some(0), "{run_id}");
        let report: Value = serde_json::from_slice(&one.stdout).unwrap();
        assert_eq!(report["parity"], true, "{report}");
        assert_eq!(report["checkedCalls"], 1, "{report}");
    }
}

#[test]
fn tusks_gate_stands_behind_premaths_instruction_witness() {
    let dir = scratch();
    let add = json!({"title": "X", "instruction_id": "instr-1"});

    // An accepted witness is not authority enough: without the server's
    // policy digest the gate refuses, and the refusal is recorded.
    let answers = call_tools(&dir, &[], &[("issue_add", add.clone())]);
    assert!(answers[0].0);
    assert!(answers[0].1.contains("policyDigest"), "{}", answers[0].1);
    let refused: Vec<Value> = rows(&dir)
        .into_iter()
        .filter(|r| r["action"] == "premath.issue_add")
        .collect();
    assert_eq!(
        refused[0]["envelope"]["failureClasses"],
        json!(["mutation.use_evidence_missing"])
    );

    // A wrong digest is refused as for any mutation.
    let answers = call_tools(
        &dir,
        &["--policy-digest", "pol1_00"],
        &[("issue_add", add.clone())],
    );
    assert!(answers[0].1.contains("does not match the active policy"));

    // The policy governs the tool as its tusk twin: a policy without
    // issue.add refuses premath's issue_add (and init_tool, which creates
    // the store issue.add would).
    std::fs::write(
        dir.path(".premath/mutation_policy.json"),
        json!({"schema": 1, "policyKind": "premath.mutation_policy.v1",
               "allowedActions": ["issue.update"], "requireJoinClosed": false})
        .to_string(),
    )
    .unwrap();
    let digest = policy_digest(&dir);
    let answers = call_tools(
        &dir,
        &["--policy-digest", &digest, "--instruction-ref", "instr://t"],
        &[
            ("issue_add", add),
            ("init_tool", json!({})),
            (
                "issue_update",
                json!({"id": "bd-1", "title": "Uno", "instruction_id": "instr-1"}),
            ),
        ],
    );
    assert!(answers[0].0 && answers[1].0, "{answers:?}");
    assert!(
        answers[0].1.contains("does not allow `issue.add`"),
        "{}",
        answers[0].1
    );
    assert!(!answers[2].0, "{}", answers[2].1);

    // Nothing but the update reached the store.
    let store = std::fs::read_to_string(dir.path(".premath/issues.jsonl")).unwrap();
    assert!(store.contains("Uno") && !store.contains("\"X\""), "{store}");
}

#[test]
fn premath_tools_name_no_other_file() {
    let dir = scratch();
    let digest = policy_digest(&dir);
    let outside = tempfile::tempdir().unwrap();
    let outside_root = outside.path().display().to_string();
    let calls: Vec<(&str, Value)> = vec![
        (
            "issue_add",
            json!({"title": "X", "instruction_id": "../../etc/passwd"}),
        ),
        (
            "issue_add",
            json!({"title": "X", "instruction_id": "instr-1", "issues_path": "/tmp/other.jsonl"}),
        ),
        ("init_tool", json!({"root_path": outside_root})),
    ];
    let answers = call_tools(
        &dir,
        &["--policy-digest", &digest, "--instruction-ref", "instr://t"],
        &calls,
    );
    let expect = [
        "not a path",
        "serves one issue store",
        "its own directory only",
    ];
    for ((is_error, text), want) in answers.iter().zip(expect) {
        assert!(is_error, "{text}");
        assert!(text.contains(want), "{text}");
    }
    assert!(!outside.path().join(".premath").exists());
    // Refused before any run: nothing recorded, nothing written.
    assert!(rows(&dir).is_empty());
}

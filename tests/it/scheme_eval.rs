//! `tusk scheme-eval`: premath's JSON programs run as tusk runs (effect-log
//! header, rows, footer) that `tusk replay` replays, through tusk's gate.
//! premath's own outputs are compared in `parity_vectors.rs`; these tests
//! cover what is tusk's: the record, replay, and the refusals premath does
//! not make.

use crate::common::Test;
use serde_json::{json, Value};
use std::path::Path;

/// premath's control-plane contract (kept with its worker loop).
const CONTRACT: &str = "tests/premath_worker/specs/premath/draft/CONTROL-PLANE-CONTRACT.json";

fn contract() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(CONTRACT)).unwrap()
}

/// A scratch directory with premath's contract, one open issue and `program`.
/// (The program's files are premath's, whatever the suite's backend.)
fn scratch(program: &Value) -> Test {
    let dir = Test::on_files();
    let write = |rel: &str, text: &str| {
        dir.write(rel, text);
    };
    write(
        "specs/premath/draft/CONTROL-PLANE-CONTRACT.json",
        &contract(),
    );
    write(
        ".premath/issues.jsonl",
        "{\"id\":\"bd-1\",\"title\":\"One\",\"status\":\"open\",\"priority\":1}\n",
    );
    write("p.json", &program.to_string());
    dir
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn digest(dir: &Test) -> String {
    let out = dir.run(&["policy", "digest"]);
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

const CLAIMS: [&str; 4] = [
    "--capability-claim",
    "capabilities.change_morphisms",
    "--capability-claim",
    "capabilities.change_morphisms.issue_claim",
];

#[test]
fn a_program_is_one_recorded_run_that_replays() {
    let program = json!({"calls": [
        {"action": "issue.ready"},
        {"action": "issue.claim", "args": {"id": "bd-1", "assignee": "w1"}},
    ]});
    let dir = scratch(&program);
    let digest = digest(&dir);
    let mut args = vec![
        "scheme-eval",
        "--program",
        "p.json",
        "--json",
        "--policy-digest",
        &digest,
        "--instruction-ref",
        "instr://t",
    ];
    args.extend(CLAIMS);
    let out = dir.run(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["result"], "accepted");
    let run_id = result["runId"].as_str().unwrap().to_string();

    // Header, two call rows, footer: one tusk run, with the claims as authority.
    let rows = jsonl(&dir.path(".premath/host_effects.jsonl"));
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.len(), 4, "{kinds:?}");
    assert_eq!(rows[0]["runId"], run_id.as_str());
    assert_eq!(
        rows[0]["authority"]["capabilityClaims"],
        json!([
            "capabilities.change_morphisms",
            "capabilities.change_morphisms.issue_claim"
        ])
    );
    assert_eq!(rows[2]["action"], "issue.claim");
    assert_eq!(rows[3]["result"], "accepted");

    // premath's rows: one per call, premath's step ids, no run row.
    let steps = jsonl(&dir.path(".premath/harness_trajectory.jsonl"));
    let ids: Vec<&str> = steps
        .iter()
        .map(|s| s["stepId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids[1].starts_with("scheme_eval.2.call-2.issue.claim.he1_"));
    assert_eq!(steps[1]["instructionRefs"], json!(["instr://t"]));

    // The claim happened in the store.
    let store = std::fs::read_to_string(dir.path(".premath/issues.jsonl")).unwrap();
    assert!(store.contains("\"assignee\":\"w1\""), "{store}");

    let replay = dir.run(&["replay", "--run", &run_id]);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(String::from_utf8_lossy(&replay.stdout).contains("parity · 2 call(s)"));
}

#[test]
fn tusks_gate_still_wants_the_active_policys_digest() {
    // premath accepts any non-empty digest; tusk's gate the active policy's.
    let program =
        json!({"calls": [{"action": "issue.claim", "args": {"id": "bd-1", "assignee": "w1"}}]});
    let dir = scratch(&program);
    let before = std::fs::read_to_string(dir.path(".premath/issues.jsonl")).unwrap();
    let mut args = vec![
        "scheme-eval",
        "--program",
        "p.json",
        "--json",
        "--policy-digest",
        "pol1_other",
        "--instruction-ref",
        "instr://t",
    ];
    args.extend(CLAIMS);
    let out = dir.run(&args);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["effects"][0]["resultClass"],
        "mutation.policy_digest_mismatch"
    );
    let after = std::fs::read_to_string(dir.path(".premath/issues.jsonl")).unwrap();
    assert_eq!(before, after);
}

#[test]
fn what_tusk_does_not_run_is_refused_by_name() {
    let dir = scratch(&json!({"calls": [{"action": "fiber.spawn", "args": {"taskRef": "t"}}]}));
    let out = dir.run(&["scheme-eval", "--program", "p.json", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["effects"][0]["resultClass"],
        "scheme_eval.host_action_unimplemented"
    );
    assert!(result["effects"][0]["payload"]["diagnostic"]
        .as_str()
        .unwrap()
        .contains("fiber"));
}

#[test]
fn programs_tusk_cannot_run_as_one_run_are_refused_before_anything_is_written() {
    for (program, needle) in [
        (
            json!({"calls": [{"action": "issue.list", "args": {"labels": []}}]}),
            "args.labels is an empty array",
        ),
        (
            json!({"calls": [{"action": "issue.list", "args": "open"}]}),
            "not a JSON object",
        ),
    ] {
        let dir = scratch(&program);
        let out = dir.run(&["scheme-eval", "--program", "p.json", "--json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{program}: {stderr}");
        assert!(stderr.contains(needle), "{program}: {stderr}");
        // Under --json, the CLI's one error object.
        let error: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(error["result"], "rejected", "{error}");
        assert!(!dir.path(".premath/host_effects.jsonl").exists());
        assert!(!dir.path(".premath/harness_trajectory.jsonl").exists());
    }
}

#[test]
fn a_path_argument_is_refused_as_tusk_refuses_every_file_argument() {
    // premath's actions take `issuesPath`; a tusk program never names a file
    // other than its own store (scheme_eval_issues_path_and_snake_case_json).
    let dir =
        scratch(&json!({"calls": [{"action": "issue.ready", "args": {"issuesPath": "/etc/x"}}]}));
    let out = dir.run(&["scheme-eval", "--program", "p.json", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["effects"][0]["resultClass"], "host.args_invalid");
}

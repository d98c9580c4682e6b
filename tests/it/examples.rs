//! The worker programs in `examples/` run as written against a seeded store.

use crate::common::*;
use serde_json::json;

/// What premath's content rules ask of an active issue (`issue check`).
const DESCRIPTION: &str = "Acceptance: the parser parses.\n\nVerify: `cargo test parser`";

fn seeded() -> (Test, String) {
    let s = Test::new();
    for args in [
        vec![
            "issue",
            "add",
            "Write the parser",
            "--priority",
            "1",
            "--description",
            DESCRIPTION,
        ],
        vec![
            "issue",
            "add",
            "Test the parser",
            "--description",
            DESCRIPTION,
        ],
        vec!["dep", "add", "bd-2", "bd-1"],
    ] {
        assert_eq!(s.run(&args).status.code(), Some(0), "{args:?}");
    }
    let digest = String::from_utf8(s.run(&["policy", "digest"]).stdout)
        .unwrap()
        .trim()
        .to_string();
    (s, digest)
}

fn example(name: &str) -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name),
    )
    .unwrap()
}

#[test]
fn ready_report_runs_read_only() {
    let (s, _) = seeded();
    let (code, r) = s.eval(&example("ready_report.scm"), &["--read-only"]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(
        r["value"],
        json!({"ready": ["bd-1"], "blocked": 1, "graph": "accepted"})
    );
}

#[test]
fn worker_loop_and_claim_next_run_with_authority() {
    let (s, digest) = seeded();
    let auth = [
        "--policy-digest",
        digest.as_str(),
        "--instruction-ref",
        "instr://test",
    ];
    let (code, r) = s.eval(&example("worker_loop.scm"), &auth);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(
        r["value"],
        json!({"issue": "bd-1", "verified": true, "retry": false, "stopped": "accepted", "handoff": "released"})
    );
    let session: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(s.path(".premath/harness_session.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(session["state"], "stopped");
    assert_eq!(session["nextStep"], "continue bd-1");
    assert!(session["witnessRefs"][0]
        .as_str()
        .unwrap()
        .starts_with("lease://handoff/bd-1/released/"));
    // The lease is back: the issue is ready again for the next worker.
    let ready: serde_json::Value =
        serde_json::from_slice(&s.run(&["issue", "ready", "--json"]).stdout).unwrap();
    assert!(ready["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["id"] == "bd-1"));
    let (code, r) = s.eval(&example("claim_next.scm"), &auth);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["value"], json!({"claimed": true, "id": "bd-1"}));
    // Without authority the same program is refused and the store is untouched.
    let (s2, _) = seeded();
    let before = std::fs::read(s2.path(".premath/issues.jsonl")).unwrap();
    let (code, r) = s2.eval(&example("claim_next.scm"), &[]);
    assert_eq!(code, 1);
    assert_eq!(r["value"]["why"], json!(["mutation.use_evidence_missing"]));
    assert_eq!(
        before,
        std::fs::read(s2.path(".premath/issues.jsonl")).unwrap()
    );
}

#[path = "../../examples/embed.rs"]
mod embed;

#[test]
fn embedding_example_registers_its_own_action() {
    let s = Test::new();
    let results = embed::run_programs(s.dir());
    assert_eq!(results[0]["result"], "accepted", "{}", results[0]);
    assert_eq!(results[0]["value"], "hello, ada");
    assert_eq!(results[0]["effects"][0]["action"], "demo.greet");
    // The embedder's schema is enforced like a built-in one.
    assert_eq!(results[1]["value"], "host.args_invalid");
    // Its calls are recorded like any other: effect rows and trajectory rows.
    let rows = s.jsonl(".premath/host_effects.jsonl");
    assert_eq!(rows.len(), 6, "header, call, footer per run");
    assert_eq!(rows[1]["action"], "demo.greet");
    // Per run: the call's row, then the run's step row.
    let steps = s.jsonl(".premath/harness_trajectory.jsonl");
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[0]["action"], "scheme_eval.demo.greet");
    assert_eq!(steps[1]["action"], "scheme_eval.run");
    // And a recorded embedder run replays: the header names its bound actions.
    let out = s.run(&["replay"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Runs `examples/NAME` with bash on the suite's binary (`TUSK_BIN`) and
/// `env`, outside any fleet store; asserts exit 0 and returns its stdout.
fn run_example_script(name: &str, env: &[(&str, &std::path::Path)]) -> String {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let mut command = std::process::Command::new("bash");
    command
        .arg(&script)
        .env("TUSK_BIN", BIN)
        .env_remove("TUSK_STORE")
        .env_remove("PREMATH_ISSUES_PATH");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    stdout
}

/// The README's first command, `examples/quickstart.sh`, run as written (on
/// the suite's binary, in a fresh directory): every step must pass, and its
/// output must show the report, the worker loop, the claim and a replay with
/// parity.
#[test]
fn quickstart_script_runs_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let stdout = run_example_script("quickstart.sh", &[("TUSK_DEMO_DIR", &demo)]);
    // Each eval's summary line says accepted; none is rejected.
    let summaries: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("host call(s)"))
        .collect();
    assert_eq!(summaries.len(), 3, "{stdout}");
    assert!(
        summaries.iter().all(|l| l.starts_with("accepted")),
        "{stdout}"
    );
    assert!(stdout.contains("\"graph\":\"accepted\""), "{stdout}");
    assert!(stdout.contains("\"claimed\":true"), "{stdout}");
    assert!(stdout.contains("== replay"), "{stdout}");
    // The replay step ends the script: three runs, each with parity.
    let replay = stdout.split("== replay").nth(1).unwrap();
    assert!(replay.contains("parity"), "{replay}");
    assert!(!replay.contains("diverge"), "{replay}");
    // The store holds what the steps did: bd-1 claimed by the example worker.
    let issues = std::fs::read_to_string(demo.join(".premath/issues.jsonl")).unwrap();
    assert_eq!(issues.lines().count(), 2);
}

/// The README's one-machine fleet, `examples/fleet_local.sh`, run as written
/// on a real throwaway cluster: two workers claim two different issues.
#[test]
fn fleet_script_runs_two_workers_on_a_throwaway_cluster() {
    let stdout = run_example_script("fleet_local.sh", &[]);
    let claimed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("\"id\""))
        .collect();
    assert_eq!(
        claimed,
        ["    \"id\": \"bd-1\",", "    \"id\": \"bd-2\","],
        "{stdout}"
    );
    assert!(stdout.contains("issueCount: 2"), "{stdout}");
    assert!(
        stdout.contains("worker.a") && stdout.contains("worker.b"),
        "{stdout}"
    );
}

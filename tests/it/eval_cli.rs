//! `tusk eval` through the real binary: envelopes, digests, logs, exit codes,
//! the mutation gate and every failure class of host-api §§2–5.

use crate::common::*;
use serde_json::{json, Value};

#[test]
fn accepted_run_envelope_and_logs() {
    let s = Test::new();
    let (code, r) = s.eval(
        r#"(define e (harness.session.bootstrap))
           (display "booted")
           (list (result-class e) (hash-ref* e "payload" "mode") 'sym 1.5 #t (hash "k" (vector 1 2) "v" (void)))"#,
        &[],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["kind"], "premath.scheme_eval.result.v0");
    assert_eq!(r["profile"], "steel.sandbox.v1");
    assert_eq!(r["result"], "accepted");
    assert_eq!(
        r["value"],
        json!(["accepted", "fresh", "sym", 1.5, true, {"k": [1, 2], "v": null}])
    );
    assert_eq!(r["output"], "booted");
    assert_eq!(r["executedCallCount"], 1);
    assert_eq!(r["usage"]["hostCalls"], 1);
    let program = std::fs::read_to_string(s.path("program.scm")).unwrap();
    assert_eq!(
        r["programDigest"],
        format!("sha256:{}", sha256_hex(&program))
    );

    let e = &r["effects"][0];
    assert_eq!(e["schema"], "premath.host_effect.v0");
    assert_eq!(e["callId"], "call-1");
    let digest = format!("he1_{}", sha256_hex("{}"));
    assert_eq!(e["argsDigest"], digest);
    assert_eq!(
        e["witnessRefs"],
        json!([format!(
            "host-effect://scheme-eval/harness.session.bootstrap/{digest}/1"
        )])
    );
    assert_eq!(e["policyDigest"], Value::Null);

    let log = s.jsonl(".premath/host_effects.jsonl");
    assert_eq!(log.len(), 3);
    assert_eq!(log[0]["kind"], "premath.scheme_eval.run.v0");
    assert_eq!(log[0]["program"], program);
    assert_eq!(log[0]["limits"]["maxCalls"], 64);
    assert_eq!(log[1]["kind"], "premath.host_effect.row.v0");
    assert_eq!(log[1]["seq"], 1);
    assert_eq!(log[1]["envelope"], *e);
    assert_eq!(log[2]["kind"], "premath.scheme_eval.run_end.v0");
    assert_eq!(log[2]["result"], "accepted");
    assert_eq!(
        log[2]["valueDigest"],
        format!("sha256:{}", sha256_hex(&canonical(&r["value"])))
    );
    for row in &log {
        assert_eq!(row["runId"], r["runId"]);
    }

    let traj = s.jsonl(".premath/harness_trajectory.jsonl");
    assert_eq!(traj.len(), 2, "the call's row, then the run's step row");
    let step = &traj[1];
    assert_eq!(step["action"], "scheme_eval.run");
    assert_eq!(
        step["stepId"],
        format!("scheme_eval.run.{}", r["runId"].as_str().unwrap())
    );
    assert_eq!(
        step["resultClass"],
        r["failureClasses"]
            .get(0)
            .cloned()
            .unwrap_or("accepted".into())
    );
    assert!(step["witnessRefs"]
        .as_array()
        .unwrap()
        .contains(&format!("run://{}", r["runId"].as_str().unwrap()).into()));
    assert_eq!(traj[0]["action"], "scheme_eval.harness.session.bootstrap");
    assert_eq!(
        traj[0]["stepId"],
        format!(
            "scheme_eval.1.call-1.harness.session.bootstrap.{digest}.{}",
            r["runId"].as_str().unwrap()
        )
    );
    assert_eq!(traj[0]["stepId"], e["trajectoryRow"]["stepId"]);
    assert_eq!(traj[0]["witnessRefs"], e["witnessRefs"]);
}

#[test]
fn args_digest_is_canonical_json_of_args() {
    let s = Test::new();
    let (_, r) = s.eval(
        r#"(harness.trajectory.query (hash "mode" "failed" 'limit 5))"#,
        &[],
    );
    let expected = format!(
        "he1_{}",
        sha256_hex(&canonical(&json!({"limit": 5, "mode": "failed"})))
    );
    assert_eq!(r["effects"][0]["argsDigest"], expected);
    let log = s.jsonl(".premath/host_effects.jsonl");
    assert_eq!(log[1]["args"], json!({"mode": "failed", "limit": 5}));
}

#[test]
fn readable_summary_without_json() {
    let s = Test::new();
    let p = s.write("p.scm", "(host-call \"shell.exec\") (display \"x\") 42");
    let out = s.run(&["eval", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("rejected"), "{text}");
    // The host call was refused, but the program ran to its end.
    assert!(text.contains("\nvalue: 42\n"), "{text}");
    assert!(
        text.contains("call-1 shell.exec → scheme_eval.effect_denied"),
        "{text}"
    );
    assert!(
        text.contains("capability the sandbox does not have"),
        "{text}"
    );
    // It never read the refusal: the summary says so, and how to.
    assert!(
        text.contains(
            "not examined: call-1 (the program never read the refusal; test (accepted? e)"
        ),
        "{text}"
    );
    // A program that reads it and goes on: rejected, handled (exit 1 all the same).
    let p = s.write(
        "q.scm",
        "(define e (host-call \"shell.exec\")) (if (accepted? e) 1 (result-class e))",
    );
    let out = s.run(&["eval", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("rejected (handled) · "), "{text}");
    assert!(
        text.contains("handled: the program examined every refusal and finished"),
        "{text}"
    );
    assert!(!text.contains("not examined"), "{text}");
    // An error message's lines stay marked as the message's: none passes
    // for an effect line of the summary.
    let p = s.write(
        "r.scm",
        "(error \"bad\\n  call-9 issue.close → accepted\\nvalue: 1\")",
    );
    let out = s.run(&["eval", p.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\n  |   call-9 issue.close"), "{text}");
    assert!(text.contains("\n  | value: 1"), "{text}");
    assert!(!text.contains("\n  call-9"), "{text}");
}

#[test]
fn host_bookkeeping_is_not_charged_to_the_program_memory_limit() {
    // 4000 envelopes kept for the result take well over 4 MiB of host memory;
    // the program itself allocates almost nothing and must not be stopped.
    let s = Test::new();
    let (code, r) = s.eval(
        "(let loop ((i 0)) (if (< i 4000) (begin (issue.ready) (loop (+ i 1))) i))",
        &[
            "--max-calls",
            "4000",
            "--max-memory-mb",
            "4",
            "--timeout-ms",
            "60000",
        ],
    );
    assert_eq!(code, 0, "{}", r["error"]);
    assert_eq!(r["value"], 4000);
    assert_eq!(r["effects"].as_array().unwrap().len(), 4000);
    // The limit still bites on the program's own allocations.
    let (code, r) = s.eval(
        "(let loop ((i 0) (acc '())) (if (< i 4000) (begin (issue.ready) (loop (+ i 1) (cons (make-string 2048 #\\a) acc))) i))",
        &["--max-calls", "4000", "--max-memory-mb", "4", "--timeout-ms", "60000"],
    );
    assert_eq!(code, 1);
    assert_eq!(r["failureClasses"], json!(["scheme_eval.memory_exceeded"]));
}

#[test]
fn request_object_on_stdin() {
    let s = Test::new();
    let req = json!({"program": "(+ 1 2)", "issueId": "bd-1", "limits": {"maxCalls": 3}});
    let out = s
        .tusk(&["eval", "--json", "--request", "-"])
        .stdin(req.to_string())
        .run();
    assert_eq!(out.status.code(), Some(0));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["value"], 3);
    let log = s.jsonl(".premath/host_effects.jsonl");
    assert_eq!(log[0]["limits"]["maxCalls"], 3);
}

#[test]
fn unreadable_requests_exit_2_and_write_nothing() {
    let s = Test::new();
    for args in [
        vec!["eval", "--json", "missing.scm"],
        vec!["eval", "--json", "--request", "-"],
    ] {
        let out = s.tusk(&args).stdin("{\"program\": 1}").run();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
    }
    let out = s
        .tusk(&["eval", "--request", "-"])
        .stdin("{\"program\": \"1\", \"surprise\": true}")
        .run();
    assert_eq!(out.status.code(), Some(2));
    s.write("bad_policy.json", "{\"schema\": 1}");
    let out = s
        .tusk(&["eval", "-", "--policy", "bad_policy.json"])
        .stdin("1")
        .run();
    assert_eq!(out.status.code(), Some(2));
    assert!(!s.path(".premath/host_effects.jsonl").exists());
}

#[test]
fn host_call_failure_classes() {
    let s = Test::new();
    let (code, r) = s.eval(
        r#"(list (result-class (host-call "no.such.action"))
                 (result-class (host-call "shell.exec" (hash "cmd" "touch pwned")))
                 (result-class (harness.session.read (hash "path" "/etc/passwd")))
                 (result-class (harness.trajectory.query (hash "limit" "ten")))
                 (result-class (harness.trajectory.query (hash "limit" (lambda (x) x))))
                 (result-class (harness.trajectory.query 1 2)))"#,
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(
        r["value"],
        json!([
            "scheme_eval.host_action_unallowlisted",
            "scheme_eval.effect_denied",
            "host.args_invalid",
            "host.args_invalid",
            "host.args_invalid",
            "host.args_invalid"
        ])
    );
    assert_eq!(
        classes(&r),
        vec![
            "host.args_invalid",
            "scheme_eval.effect_denied",
            "scheme_eval.host_action_unallowlisted"
        ]
    );
    let diag = r["effects"][2]["payload"]["diagnostic"].as_str().unwrap();
    assert!(diag.contains("`path`"), "{diag}");
    assert_eq!(r["effects"][1]["payload"]["result"], "rejected");
    assert_eq!(r["effects"][1]["payload"]["schema"], 1);
    assert!(!s.path("pwned").exists());
    // A rejected effect does not stop the program.
    assert_eq!(r["executedCallCount"], 0);
    assert_eq!(r["usage"]["hostCalls"], 6);
}

#[test]
fn execution_error_keeps_program_going() {
    let s = Test::new();
    s.write(".premath/harness_session.json", "{not json");
    let (code, r) = s.eval(
        r#"(define e (harness.session.read)) (list (result-class e) 7)"#,
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(
        r["value"],
        json!(["scheme_eval.host_action_execution_error", 7])
    );
    assert!(r["effects"][0]["payload"]["diagnostic"]
        .as_str()
        .unwrap()
        .contains("harness.session.read failed"));
}

fn policy_digest(s: &Test) -> String {
    let out = s.run(&["policy", "digest"]);
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

const WRITE_SESSION: &str =
    r#"(harness.session.write (hash "state" "active" "issueId" "bd-1" "summary" "working"))"#;

#[test]
fn mutation_gate_rejections_write_nothing() {
    let s = Test::new();
    let session = s.path(".premath/harness_session.json");
    let digest = policy_digest(&s);
    assert!(digest.starts_with("pol1_"));

    let (code, r) = s.eval(WRITE_SESSION, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        r["effects"][0]["resultClass"],
        "mutation.use_evidence_missing"
    );
    assert!(!session.exists());

    let (_, r) = s.eval(
        WRITE_SESSION,
        &[
            "--policy-digest",
            "pol1_00",
            "--instruction-ref",
            "instr://t",
        ],
    );
    assert_eq!(
        r["effects"][0]["resultClass"],
        "mutation.policy_digest_mismatch"
    );
    assert!(!session.exists());

    s.write(
        "narrow.json",
        r#"{"schema":1,"policyKind":"premath.mutation_policy.v1","allowedActions":["issue.claim"],"requireJoinClosed":false}"#,
    );
    let narrow = String::from_utf8(
        s.run(&["policy", "digest", "--policy", "narrow.json"])
            .stdout,
    )
    .unwrap();
    let (_, r) = s.eval(
        WRITE_SESSION,
        &[
            "--policy",
            "narrow.json",
            "--policy-digest",
            narrow.trim(),
            "--instruction-ref",
            "instr://t",
        ],
    );
    assert_eq!(
        r["effects"][0]["resultClass"],
        "mutation.action_not_allowed"
    );
    assert!(!session.exists());

    let (code, r) = s.eval(
        WRITE_SESSION,
        &["--policy-digest", &digest, "--instruction-ref", "instr://t"],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["effects"][0]["policyDigest"], digest);
    assert_eq!(r["effects"][0]["instructionRef"], "instr://t");
    assert!(session.exists());
}

#[test]
fn program_text_cannot_grant_authority() {
    let s = Test::new();
    let digest = policy_digest(&s);
    let program = format!(
        r#"(harness.session.write (hash "state" "active" "policyDigest" "{digest}" "instructionRef" "instr://me"))"#
    );
    let (code, r) = s.eval(&program, &[]);
    assert_eq!(code, 1);
    assert_eq!(r["effects"][0]["resultClass"], "host.args_invalid");
    assert!(!s.path(".premath/harness_session.json").exists());
}

#[test]
fn join_gate_requires_accepted_evidence() {
    let s = Test::new();
    s.write(
        ".premath/mutation_policy.json",
        r#"{"schema":1,"policyKind":"premath.mutation_policy.v1","allowedActions":["harness.session.write"],"requireJoinClosed":true}"#,
    );
    let digest = policy_digest(&s);
    let auth = [
        "--policy-digest",
        digest.as_str(),
        "--instruction-ref",
        "instr://t",
    ];
    let (_, r) = s.eval(WRITE_SESSION, &auth);
    assert_eq!(
        r["effects"][0]["resultClass"],
        "mutation.use_evidence_missing"
    );
    assert!(r["effects"][0]["payload"]["diagnostic"]
        .as_str()
        .unwrap()
        .contains("join witness"));
    assert!(!s.path(".premath/harness_session.json").exists());

    let vectors =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/harness-typestate");
    let case = |name: &str| -> Value {
        let text = std::fs::read_to_string(vectors.join(name).join("case.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["input"].clone()
    };
    s.write(
        "open.json",
        &case("adversarial/join_result_missing_reject").to_string(),
    );
    let mut args = auth.to_vec();
    args.extend(["--join-evidence", "open.json"]);
    let (_, r) = s.eval(WRITE_SESSION, &args);
    assert_eq!(
        r["effects"][0]["resultClass"],
        "mutation.use_evidence_missing"
    );
    assert!(!s.path(".premath/harness_session.json").exists());

    s.write(
        "closed.json",
        &case("golden/join_closed_accept").to_string(),
    );
    let mut args = auth.to_vec();
    args.extend(["--join-evidence", "closed.json"]);
    let (code, r) = s.eval(WRITE_SESSION, &args);
    assert_eq!(code, 0, "{r:#}");
    let expected = "join://sha256:db7ba52648cc9e4f3ba87de0a288e46e7fa354c8f54d3acb069b5570fdaf7446";
    assert!(
        r["effects"][0]["witnessRefs"]
            .as_array()
            .unwrap()
            .contains(&json!(expected)),
        "{r:#}"
    );
    assert!(s.path(".premath/harness_session.json").exists());

    s.write("broken.json", "{\"evidence\": 1}");
    let mut args = auth.to_vec();
    args.extend(["--join-evidence", "broken.json"]);
    let out = s.run(&[&["eval", "--json", "program.scm"][..], &args[..]].concat());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn read_only_profile_has_no_write_path() {
    let s = Test::new();
    let digest = policy_digest(&s);
    let (code, r) = s.eval(
        &format!("(list (procedure? harness.session.read) {WRITE_SESSION})"),
        &[
            "--read-only",
            "--policy-digest",
            &digest,
            "--instruction-ref",
            "instr://t",
        ],
    );
    assert_eq!(code, 1);
    // Not bound, and the diagnostic says why (not a bare "unbound identifier").
    assert_eq!(r["error"]["class"], "scheme_eval.effect_denied", "{r:#}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("read-only profile"));
    let (_, r) = s.eval(
        r#"(result-class (host-call "harness.session.write" (hash "state" "active")))"#,
        &[
            "--read-only",
            "--policy-digest",
            &digest,
            "--instruction-ref",
            "instr://t",
        ],
    );
    assert_eq!(r["value"], "scheme_eval.effect_denied");
    assert!(!s.path(".premath/harness_session.json").exists());
}

#[test]
fn limits_each_end_the_run_with_one_result() {
    let s = Test::new();
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        ("(define (spin) (spin)) (spin)", vec!["--timeout-ms", "300"], "scheme_eval.timeout"),
        ("(let loop ((i 0)) (harness.session.bootstrap) (loop (+ i 1)))", vec!["--max-calls", "5"], "scheme_eval.call_budget_exceeded"),
        ("(make-vector 2000000000 0)", vec![], "scheme_eval.memory_exceeded"),
        ("(define (build n acc) (if (= n 0) acc (build (- n 1) (cons n acc)))) (build 100000000 '())", vec!["--max-memory-mb", "64"], "scheme_eval.memory_exceeded"),
        ("(car '())", vec![], "scheme_eval.runtime_error"),
        ("(define x", vec![], "scheme_eval.invalid_program"),
        ("(frobnicate 1)", vec![], "scheme_eval.invalid_program"),
    ];
    for (program, flags, class) in cases {
        let (code, r) = s.eval(program, &flags);
        assert_eq!(code, 1, "{program}: {r:#}");
        assert_eq!(r["error"]["class"], class, "{program}: {r:#}");
        assert!(classes(&r).contains(&class.to_string()), "{program}");
        assert_eq!(r["value"], Value::Null);
    }
    let (_, r) = s.eval(
        "(let loop ((i 0)) (harness.session.bootstrap) (loop (+ i 1)))",
        &["--max-calls", "5"],
    );
    assert_eq!(r["usage"]["hostCalls"], 6);
    assert_eq!(r["executedCallCount"], 5);
    assert_eq!(
        r["effects"][5]["resultClass"],
        "scheme_eval.call_budget_exceeded"
    );
    let (code, r) = s.eval(
        "(let loop ((i 0)) (when (< i 10000) (display \"0123456789\") (loop (+ i 1)))) 'done",
        &["--max-output-bytes", "100"],
    );
    assert_eq!(code, 0);
    assert_eq!(r["output"].as_str().unwrap().len(), 100);
    assert_eq!(r["outputTruncated"], true);
    let big = format!("(quote {})", "x ".repeat(600_000));
    let (code, r) = s.eval(&big, &[]);
    assert_eq!(code, 1);
    assert_eq!(r["error"]["class"], "scheme_eval.invalid_program");
}

#[test]
fn syntax_error_reports_position() {
    let s = Test::new();
    let (_, r) = s.eval(
        "(define a 1)\n(define b (+ a \"x\"))\n(undefined-thing 3)",
        &[],
    );
    assert_eq!(r["error"]["class"], "scheme_eval.invalid_program");
    assert_eq!(r["error"]["line"], 3, "{r:#}");
    assert_eq!(r["error"]["column"], 2);
}

#[test]
fn a_closed_stdout_ends_tusk_quietly() {
    let s = Test::new();
    for i in 0..300 {
        s.run(&[
            "issue",
            "add",
            &format!("Issue number {i} with a long enough title"),
        ]);
    }
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{}' issue list --json | head -c 10 >/dev/null; echo \"exit=$?\"",
            BIN
        ))
        .current_dir(s.dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{stderr}"
    );
}

/// `issue.lease_projection` from a program is the CLI's
/// `tusk issue lease-projection --json` (the clock aside), and needs no authority.
#[test]
fn lease_projection_action_is_the_cli_payload() {
    let s = Test::new();
    s.write(
        ".premath/issues.jsonl",
        concat!(
            r#"{"id":"bd-1","title":"stale","status":"in_progress","assignee":"w","lease":{"lease_id":"L1","owner":"w","acquired_at":"2020-01-01T00:00:00Z","expires_at":"2020-01-01T01:00:00Z"}}"#,
            "\n",
            r#"{"id":"bd-2","title":"contended","status":"open","assignee":"w","lease":{"lease_id":"L2","owner":"v","acquired_at":"2020-01-01T00:00:00Z","expires_at":"2999-01-01T00:00:00Z","renewed_at":"2020-01-01T00:30:00Z"}}"#,
            "\n",
            r#"{"id":"bd-3","title":"free"}"#,
            "\n",
        ),
    );
    let (code, r) = s.eval(
        "(payload (issue.lease_projection))",
        &["--issues", ".premath/issues.jsonl"],
    );
    assert_eq!(code, 0, "{r:#}");
    let out = s.run(&["issue", "lease-projection", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let mut cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut value = r["value"].clone();
    for v in [&mut cli, &mut value] {
        let checked = v["projection"]
            .as_object_mut()
            .unwrap()
            .remove("checkedAt")
            .unwrap();
        assert!(checked.as_str().unwrap().ends_with("+00:00"), "{checked}");
    }
    assert_eq!(value, cli);
    assert_eq!(
        cli["projection"],
        json!({"contendedCount": 1, "contendedIssueIds": ["bd-2"], "staleCount": 1, "staleIssueIds": ["bd-1"]})
    );
    assert_eq!(cli["count"], 2);
    assert_eq!(
        cli["items"][1]["lease"],
        json!({"acquiredAt": "2020-01-01T00:00:00+00:00", "expiresAt": "2999-01-01T00:00:00+00:00",
               "leaseId": "L2", "owner": "v", "renewedAt": "2020-01-01T00:30:00+00:00", "state": "active"})
    );
    // No argument can name a file.
    let (code, r) = s.eval(
        r#"(result-class (issue.lease_projection (hash "issuesPath" "x")))"#,
        &[],
    );
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["value"], "host.args_invalid");
    assert_eq!(classes(&r), ["host.args_invalid"]);
}

/// `tusk eval --request` takes an `actions` list (the program binds only
/// those) and refuses a recorded field over its limit before writing anything.
#[test]
fn request_actions_narrow_and_oversized_fields_are_refused_unrecorded() {
    let s = Test::new();
    let out = s
        .tusk(&["eval", "--request", "-", "--json"])
        .stdin(r#"{"program": "(issue.list)", "actions": ["issue.ready"]}"#)
        .run();
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        r["failureClasses"],
        serde_json::json!(["scheme_eval.effect_denied"])
    );
    let header = &s.jsonl(".premath/host_effects.jsonl")[0];
    assert_eq!(header["hostActions"], serde_json::json!(["issue.ready"]));
    let before = s.log_text(".premath/host_effects.jsonl");
    for field in ["issueId", "instructionRef", "policyDigest"] {
        let request = serde_json::json!({"program": "1", field: "x".repeat(4096)});
        let out = s
            .tusk(&["eval", "--request", "-", "--json"])
            .stdin(request.to_string())
            .run();
        assert_eq!(out.status.code(), Some(2), "{field}");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["error"]["class"], "request.field_too_large", "{field}");
    }
    let out = s
        .tusk(&["eval", "--request", "-", "--json"])
        .stdin(r#"{"program": "1", "actions": ["no.such_action"]}"#)
        .run();
    assert_eq!(out.status.code(), Some(2));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["error"]["class"], "request.unknown_action");
    assert_eq!(before, s.log_text(".premath/host_effects.jsonl"));
}

/// A handled rejection still rejects the run, and the result says which call
/// decided it (and the text summary says so on screen).
#[test]
fn decided_by_names_the_call_that_rejected_the_run() {
    let s = Test::new();
    let program = r#"(define e (issue.show (hash "id" "bd-404")))
(if (accepted? e) "found" "handled: not found")"#;
    let (code, r) = s.eval(program, &[]);
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["value"], "handled: not found");
    assert_eq!(
        r["decidedBy"],
        serde_json::json!({"kind": "call", "callId": "call-1", "action": "issue.show", "resultClass": "issue.not_found"})
    );
    let out = s.tusk(&["eval", "-"]).stdin(program).run();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("rejected by call-1 issue.show → issue.not_found"),
        "{text}"
    );
    // A run rejected by its own error names the error; an accepted run has none.
    let (_, r) = s.eval("(car '())", &[]);
    assert_eq!(r["decidedBy"]["kind"], "error");
    assert_eq!(r["decidedBy"]["resultClass"], "scheme_eval.runtime_error");
    let (_, r) = s.eval("(+ 1 2)", &[]);
    assert!(r.get("decidedBy").is_none());
    let help = String::from_utf8_lossy(&s.run(&["eval", "--help"]).stdout).into_owned();
    assert!(help.contains("even when the program handled it"), "{help}");
}

/// Values keep their kind across the boundary: program → JSON for every
/// kind the sandbox converts (the empty list is `[]`, void alone `null`),
/// JSON → program through an envelope's payload, and every run replays with
/// parity; a log written before the empty list became `[]` still replays.
#[test]
fn values_keep_their_kind_across_the_boundary() {
    use serde_json::json;
    let s = Test::new();
    for (program, want) in [
        ("'()", json!([])),
        ("(list)", json!([])),
        ("(list 1 2)", json!([1, 2])),
        ("(vector)", json!([])),
        ("(vector 1 \"a\")", json!([1, "a"])),
        ("(hash \"k\" '())", json!({"k": []})),
        ("(hash)", json!({})),
        ("\"text\"", json!("text")),
        ("'sym", json!("sym")),
        ("#\\a", json!("a")),
        ("42", json!(42)),
        ("1/2", json!(0.5)),
        ("1.5", json!(1.5)),
        ("#t", json!(true)),
        ("(void)", json!(null)),
        (
            "(list (list) (vector) (hash \"v\" (void)))",
            json!([[], [], {"v": null}]),
        ),
        ("(list (cons \"a\" 1))", json!([["a", 1]])),
    ] {
        let (code, r) = s.eval(program, &[]);
        assert_eq!(code, 0, "{program}: {r:#}");
        assert_eq!(r["value"], want, "{program}");
    }
    // A void inside a list has no JSON form (issue 62): an error saying so.
    let (code, r) = s.eval("(list 1 (void))", &[]);
    assert_eq!(code, 1, "{r:#}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("at `[1]`"),
        "{r:#}"
    );
    // JSON → program: an envelope's `[]` is the empty list, its `null` void.
    assert_eq!(
        s.run(&["issue", "add", "Parser", "--json"]).status.code(),
        Some(0)
    );
    let (code, r) = s.eval(
        r#"(define e (issue.blocked))
(list (null? (hash-ref (payload e) "items")) (list? (hash-ref (payload e) "items"))
      (void? (hash-ref e "instructionRef")) (hash-ref (payload e) "items"))"#,
        &[],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["value"], json!([true, true, true, []]));
    let out = s.run(&["replay"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // A log from before `jsonEncoding` 2 (the empty list was `null`):
    // rewrite one run's header and footer the old way; it replays with
    // parity, and the same footer under the new header diverges.
    let s = Test::new();
    let (_, r) = s.eval("(begin (issue.ready) '())", &[]);
    let run_id = r["runId"].as_str().unwrap().to_string();
    let path = s.path(".premath/host_effects.jsonl");
    let rows: Vec<serde_json::Value> = s.jsonl(".premath/host_effects.jsonl");
    let old_digest = tusk::canonical::sha256_digest(&serde_json::Value::Null);
    let write = |legacy: bool| {
        let mut rows = rows.clone();
        for row in rows.iter_mut() {
            if row["kind"] == "premath.scheme_eval.run.v0" && legacy {
                row.as_object_mut().unwrap().remove("jsonEncoding");
            }
            if row["kind"] == "premath.scheme_eval.run_end.v0" {
                row["valueDigest"] = json!(old_digest);
            }
        }
        // A log from before jsonEncoding is also from before the chain; the
        // current rule's log keeps a valid chain, so the digest rule decides.
        if legacy {
            unchain(&mut rows);
        } else {
            rechain(&mut rows);
        }
        let text: String = rows
            .iter()
            .map(|row| format!("{}\n", serde_json::to_string(row).unwrap()))
            .collect();
        std::fs::write(&path, text).unwrap();
    };
    write(true);
    let out = s.run(&["replay", "--run", &run_id]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    write(false);
    let out = s.run(&["replay", "--run", &run_id]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

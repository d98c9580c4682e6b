//! Who did what (issue 57), on the command line: the actor recorded on
//! every run (`--actor`, `TUSK_ACTOR`, the git user's email in a work
//! tree, the OS user), authority stated once (`TUSK_POLICY_DIGEST`,
//! `TUSK_INSTRUCTION_REF`, `config.json`), and `tusk doctor` saying where
//! each comes from.

use crate::common::*;
use serde_json::{json, Value};

/// The `principal` of the last run's header in the effect log.
fn last_principal(t: &Test) -> Value {
    t.jsonl(".premath/host_effects.jsonl")
        .into_iter()
        .rev()
        .find(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .map(|h| h["principal"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn the_actor_is_recorded_from_the_flag_the_variable_git_or_the_user() {
    let t = Test::on_files().issues(&[issue("bd-1")]);
    let eval = |t: &Test, pre: &[&str], env: &[(&str, &str)]| {
        let mut args: Vec<&str> = pre.to_vec();
        args.extend(["eval", "--json", "-"]);
        let mut run = t.tusk(&args).stdin("(issue.ready)");
        for (k, v) in env {
            run = run.env(k, v);
        }
        run.run()
    };
    eval(&t, &["--actor", "alice@example.com"], &[]).status(0);
    assert_eq!(last_principal(&t), "alice@example.com");
    eval(&t, &[], &[("TUSK_ACTOR", "bob"), ("USER", "nobody")]).status(0);
    assert_eq!(last_principal(&t), "bob");
    // The flag wins over the variable.
    eval(&t, &["--actor", "carol"], &[("TUSK_ACTOR", "bob")]).status(0);
    assert_eq!(last_principal(&t), "carol");
    // Outside a work tree, no variable: the OS user.
    let eval_bare = |t: &Test, env: &[(&str, &str)]| {
        let mut run = t
            .tusk(&["eval", "--json", "-"])
            .stdin("(issue.ready)")
            .env_remove("TUSK_ACTOR");
        for (k, v) in env {
            run = run.env(k, v);
        }
        run.run()
    };
    eval_bare(&t, &[("USER", "dave")]).status(0);
    assert_eq!(last_principal(&t), "dave");
    // In a work tree: the git user's email.
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(t.dir())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["config", "user.email", "erin@example.com"]);
    eval_bare(&t, &[("USER", "dave")]).status(0);
    assert_eq!(last_principal(&t), "erin@example.com");
    // An actor that is not a printable name: refused before anything runs,
    // naming where it came from and the fix.
    let rows = t.jsonl(".premath/host_effects.jsonl").len();
    let run = eval(&t, &[], &[("TUSK_ACTOR", "two words")]);
    assert_eq!(run.code(), 2, "{run:?}");
    let said = run.stdout() + &run.stderr();
    assert!(
        said.contains("TUSK_ACTOR") && said.contains("--actor NAME"),
        "{said}"
    );
    assert_eq!(t.jsonl(".premath/host_effects.jsonl").len(), rows);
}

#[test]
fn authority_stated_once_fails_closed_as_the_flags_do() {
    let t = Test::on_files().issues(&[issue("bd-1"), issue("bd-2")]);
    let digest = t.policy_digest();
    let close = |t: &Test, id: &str, flags: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["eval", "--json", "-"];
        args.extend(flags);
        let mut run = t
            .tusk(&args)
            .stdin(format!("(issue.close (hash \"id\" \"{id}\"))"));
        for (k, v) in env {
            run = run.env(k, v);
        }
        run.reply()
    };
    let env_ok = [
        ("TUSK_POLICY_DIGEST", digest.as_str()),
        ("TUSK_INSTRUCTION_REF", "instr://who"),
    ];
    // Without any: refused, as ever.
    let (code, r) = close(&t, "bd-1", &[], &[]);
    assert_eq!(
        (code, r["failureClasses"].clone()),
        (1, json!(["mutation.use_evidence_missing"]))
    );
    // From the environment.
    let (code, r) = close(&t, "bd-1", &[], &env_ok);
    assert_eq!(code, 0, "{r:#}");
    // A digest that is not the active policy's fails closed.
    let (code, r) = close(
        &t,
        "bd-2",
        &[],
        &[
            ("TUSK_POLICY_DIGEST", "pol1_0000"),
            ("TUSK_INSTRUCTION_REF", "i"),
        ],
    );
    assert_eq!(
        (code, r["failureClasses"].clone()),
        (1, json!(["mutation.policy_digest_mismatch"]))
    );
    // From config.json; the environment wins over the file, a flag over both.
    t.write(
        ".premath/config.json",
        &json!({"policyDigest": "pol1_0000", "instructionRef": "instr://file"}).to_string(),
    );
    let (code, r) = close(&t, "bd-2", &[], &[]);
    assert_eq!(
        r["failureClasses"],
        json!(["mutation.policy_digest_mismatch"]),
        "{code}"
    );
    let (code, r) = close(
        &t,
        "bd-2",
        &["--policy-digest", &digest],
        &[("TUSK_POLICY_DIGEST", "pol1_1111")],
    );
    assert_eq!(code, 0, "{r:#}");
    t.write(
        ".premath/config.json",
        &json!({"policyDigest": digest, "instructionRef": "instr://file"}).to_string(),
    );
    let (code, r) = close(&t, "bd-2", &[], &[("TUSK_POLICY_DIGEST", "pol1_1111")]);
    assert_eq!(
        r["failureClasses"],
        json!(["mutation.policy_digest_mismatch"]),
        "{code}"
    );
    // The header records what the run carried.
    let header = t
        .jsonl(".premath/host_effects.jsonl")
        .into_iter()
        .rev()
        .find(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .unwrap();
    assert_eq!(
        header["authority"]["instructionRef"], "instr://file",
        "{header:#}"
    );
    // doctor says where each comes from, and fails a digest that would be refused.
    let doctor = |env: &[(&str, &str)]| {
        let mut run = t.tusk(&["doctor", "--json"]);
        for (k, v) in env {
            run = run.env(k, v);
        }
        let (_, v) = run.reply();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "authority")
            .cloned()
            .unwrap()
    };
    let check = doctor(&[("TUSK_ACTOR", "alice")]);
    assert_eq!(check["status"], "ok", "{check:#}");
    let message = check["message"].as_str().unwrap();
    assert!(
        message.contains("actor alice (from TUSK_ACTOR)"),
        "{message}"
    );
    assert!(message.contains("config.json"), "{message}");
    let check = doctor(&[("TUSK_POLICY_DIGEST", "pol1_1111")]);
    assert_eq!(check["status"], "fail", "{check:#}");
    assert!(
        check["fix"].as_str().unwrap().contains(&digest),
        "{check:#}"
    );
    // A member that is not a string: the request cannot be served.
    t.write(".premath/config.json", r#"{"policyDigest": 7}"#);
    let (code, r) = close(&t, "bd-2", &[], &[]);
    assert_eq!(code, 2, "{r:#}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"policyDigest\" is 7"),
        "{r:#}"
    );
}

/// The effect log's rows.
fn effects(t: &Test) -> Vec<Value> {
    t.jsonl(".premath/host_effects.jsonl")
}

#[test]
fn a_command_line_change_is_a_recorded_run_that_replays() {
    let t = Test::on_files().issues(&[issue("bd-1"), issue("bd-2")]);
    // A read is not recorded; a refused command is (who tried what), its
    // call rejected and nothing changed.
    t.tusk(&["issue", "list"]).run().status(0);
    assert!(effects(&t).is_empty(), "{:#?}", effects(&t));
    let store = t.store_text();
    t.tusk(&["issue", "close", "bd-404"]).run().status(1);
    assert_eq!(t.store_text(), store);
    let refused = effects(&t);
    assert_eq!(refused.len(), 3, "{refused:#?}");
    assert_eq!(refused[1]["envelope"]["resultClass"], "issue.not_found");
    assert_eq!(refused[2]["result"], "rejected");
    std::fs::remove_file(t.path(".premath/host_effects.jsonl")).unwrap();
    std::fs::remove_file(t.path(".premath/harness_trajectory.jsonl")).unwrap();
    // A change: its own output, and a one-call run in both logs.
    let out = t
        .tusk(&[
            "--actor", "alice", "issue", "close", "bd-1", "--reason", "done", "--json",
        ])
        .run()
        .status(0)
        .json();
    assert_eq!(out["issue"]["status"], "closed", "{out:#}");
    let rows = effects(&t);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    assert_eq!(rows[0]["command"], "tusk issue close");
    assert_eq!(rows[0]["principal"], "alice");
    assert_eq!(
        rows[0]["program"],
        "(result-class (issue.close (hash \"id\" \"bd-1\" \"reason\" \"done\")))"
    );
    assert_eq!(rows[1]["action"], "issue.close");
    assert_eq!(rows[1]["args"], json!({"id": "bd-1", "reason": "done"}));
    assert_eq!(rows[1]["envelope"]["resultClass"], "accepted");
    assert_eq!(rows[2]["result"], "accepted");
    let steps = t.jsonl(".premath/harness_trajectory.jsonl");
    assert_eq!(steps.len(), 2, "{steps:#?}");
    assert!(steps.iter().all(|s| s["lineageRefs"]
        .as_array()
        .unwrap()
        .contains(&json!("principal://alice"))));
    // dep, label and comment commands too; all replay with parity, and
    // live on a copy of the store as it was.
    let before = t.path("snapshot");
    std::fs::create_dir_all(&before).unwrap();
    std::fs::copy(t.path(".premath/issues.jsonl"), before.join("issues.jsonl")).unwrap();
    t.tusk(&["dep", "add", "bd-2", "bd-1"]).run().status(0);
    t.tusk(&["issue", "label", "add", "bd-2", "core"])
        .run()
        .status(0);
    t.tusk(&["issue", "comment", "add", "bd-2", "hi", "--author", "alice"])
        .run()
        .status(0);
    let headers: Vec<Value> = effects(&t)
        .into_iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .collect();
    let commands: Vec<&str> = headers
        .iter()
        .map(|h| h["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "tusk issue close",
            "tusk dep add",
            "tusk issue label add",
            "tusk issue comment add"
        ]
    );
    let (code, set) = t.tusk(&["replay", "--json"]).run().reply();
    assert_eq!(code, 0, "{set:#}");
    assert_eq!(
        (set["parity"].clone(), set["runCount"].clone()),
        (json!(true), json!(4))
    );
    let first = headers[1]["runId"].as_str().unwrap().to_string();
    let (code, live) = t
        .tusk(&[
            "replay",
            "--json",
            "--run",
            &first,
            "--live",
            before.to_str().unwrap(),
        ])
        .run()
        .reply();
    assert_eq!(code, 0, "{live:#}");
}

#[test]
fn issue_history_names_every_change_who_made_it_and_how() {
    let t =
        Test::on_files().issues(&[issue_with("bd-1", json!({"title": "First"})), issue("bd-2")]);
    t.tusk(&[
        "--actor",
        "alice",
        "issue",
        "update",
        "bd-1",
        "--priority",
        "0",
    ])
    .run()
    .status(0);
    let digest = t.policy_digest();
    let (code, r) = t
        .tusk(&[
            "eval", "--json", "-", "--policy-digest", &digest, "--instruction-ref", "instr://h",
        ])
        .env("TUSK_ACTOR", "bob")
        .stdin(
            "(issue.claim (hash \"id\" \"bd-1\" \"assignee\" \"agent.b\"))
             (issue.lease_renew (hash \"id\" \"bd-1\" \"assignee\" \"agent.b\" \"leaseTtlSeconds\" 600))",
        )
        .run()
        .reply();
    assert_eq!(code, 0, "{r:#}");
    let run = r["runId"].as_str().unwrap().to_string();
    t.tusk(&[
        "issue",
        "comment",
        "add",
        "bd-1",
        "looks good",
        "--author",
        "carol",
    ])
    .run()
    .status(0);
    t.tusk(&["dep", "add", "bd-2", "bd-1"]).run().status(0);
    t.tusk(&["issue", "close", "bd-1", "--reason", "shipped"])
        .run()
        .status(0);
    // Another issue's change is not bd-1's.
    t.tusk(&["issue", "update", "bd-2", "--title", "Second"])
        .run()
        .status(0);

    let (code, h) = t
        .tusk(&["issue", "history", "bd-1", "--json"])
        .run()
        .reply();
    assert_eq!(code, 0, "{h:#}");
    assert_eq!(h["kind"], "tusk.issue.history.v0");
    let entries = h["entries"].as_array().unwrap();
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "issue.update",
            "issue.claim",
            "issue.lease_renew",
            "issue.comment",
            "dep.add",
            "issue.close"
        ],
        "{h:#}"
    );
    assert_eq!(h["total"], 6);
    let e = |i: usize| &entries[i];
    assert_eq!(
        (e(0)["actor"].clone(), e(0)["command"].clone()),
        (json!("alice"), json!("tusk issue update"))
    );
    assert!(
        e(0)["changes"]
            .as_array()
            .unwrap()
            .contains(&json!({"field": "priority", "from": null, "to": 0})),
        "{:#}",
        e(0)
    );
    assert_eq!(
        (e(1)["actor"].clone(), e(1)["runId"].clone()),
        (json!("bob"), json!(run))
    );
    assert!(e(1).get("command").is_none());
    assert_eq!(e(1)["lease"]["event"], "taken");
    assert_eq!(e(1)["lease"]["owner"], "agent.b");
    assert!(
        e(1)["changes"]
            .as_array()
            .unwrap()
            .contains(&json!({"field": "status", "from": "open", "to": "in_progress"})),
        "{:#}",
        e(1)
    );
    assert_eq!(e(2)["lease"]["event"], "renewed");
    assert_eq!(
        e(3)["comment"],
        json!({"author": "carol", "text": "looks good"})
    );
    assert_eq!(
        e(4)["edge"],
        json!({"event": "added", "issueId": "bd-2", "dependsOnId": "bd-1", "type": "blocks"})
    );
    assert_eq!(e(5)["lease"]["event"], "released");
    let changes = e(5)["changes"].as_array().unwrap();
    assert!(
        changes.contains(&json!({"field": "status", "from": "in_progress", "to": "closed"})),
        "{changes:#?}"
    );
    assert!(
        changes.contains(&json!({"field": "close_reason", "from": null, "to": "shipped"})),
        "{changes:#?}"
    );
    // Paged.
    let (_, p1) = t
        .tusk(&["issue", "history", "bd-1", "--json", "--limit", "4"])
        .run()
        .reply();
    assert_eq!(
        (p1["count"].clone(), p1["nextAfter"].clone()),
        (json!(4), json!(4))
    );
    let (_, p2) = t
        .tusk(&["issue", "history", "bd-1", "--json", "--after", "4"])
        .run()
        .reply();
    assert_eq!(p2["entries"][0]["action"], "dep.add");
    assert!(p2["nextAfter"].is_null());
    // The text: one line an entry.
    let text = t
        .tusk(&["issue", "history", "bd-1"])
        .run()
        .status(0)
        .stdout();
    assert!(text.starts_with("bd-1: 6 change(s)\n"), "{text}");
    assert!(
        text.contains("alice  issue.update  `tusk issue update`: priority null → 0"),
        "{text}"
    );
    assert!(
        text.contains(&format!("bob  issue.claim  run {run}")),
        "{text}"
    );
    // An issue with no change: an empty history, not an error.
    let (code, h) = t
        .tusk(&["issue", "history", "bd-9", "--json"])
        .run()
        .reply();
    assert_eq!((code, h["total"].clone()), (0, json!(0)));
}

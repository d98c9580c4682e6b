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

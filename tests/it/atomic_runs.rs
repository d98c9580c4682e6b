//! Runs that keep their word (issue 59): an atomic run applies all of its
//! issue changes or none, reads its own writes, refuses to commit over a
//! change made under it, and a dry run changes nothing and returns its
//! plan. Every test drives the real binary, on this run's backend (the
//! file store, or PostgreSQL with `TUSK_TEST_BACKEND=postgres`).

use crate::common::*;
use serde_json::Value;

/// A store of two open issues.
fn two_issues() -> Test {
    let test = Test::new();
    test.tusk(&["issue", "add", "First"]).run().status(0);
    test.tusk(&["issue", "add", "Second"]).run().status(0);
    test
}

fn authority(test: &Test) -> Vec<String> {
    vec![
        "--policy-digest".into(),
        test.policy_digest(),
        "--instruction-ref".into(),
        "instr://atomic".into(),
    ]
}

/// `tusk eval --json PROGRAM` with authority and `flags`.
fn eval(test: &Test, program: &str, flags: &[&str]) -> (i32, Value) {
    let auth = authority(test);
    let mut extra: Vec<&str> = auth.iter().map(String::as_str).collect();
    extra.extend_from_slice(flags);
    test.eval(program, &extra)
}

fn the_commit(result: &Value) -> &Value {
    let last = result["effects"].as_array().unwrap().last().unwrap();
    assert_eq!(last["action"], "run.commit", "{result:#}");
    last
}

fn assert_replay_parity(test: &Test) {
    let out = test.tusk(&["replay", "--json"]).run();
    let v = out.json();
    assert_eq!(v["parity"], true, "{}", out.stdout());
}

/// The issue's own scenario: a label, a comment, then a failing
/// `hash-ref`. Without `--atomic` the label and comment stay; with it,
/// nothing does, and the fixed program run again comments once.
#[test]
fn a_failing_atomic_run_keeps_none_of_its_writes() {
    let test = two_issues();
    let failing = "(issue.label (hash \"id\" \"bd-1\" \"add\" (list \"urgent\")))\n\
                   (issue.comment (hash \"id\" \"bd-1\" \"author\" \"agent.a\" \"text\" \"seen\"))\n\
                   (hash-ref (payload (issue.show (hash \"id\" \"bd-1\"))) \"nope\")\n";
    let before = test.store_text();
    let (code, result) = eval(&test, failing, &["--atomic"]);
    assert_eq!(code, 1, "{result:#}");
    assert_eq!(result["result"], "rejected");
    assert_eq!(result["error"]["class"], "scheme_eval.runtime_error");
    let classes = result["failureClasses"].to_string();
    assert!(classes.contains("run.aborted"), "{classes}");
    assert_eq!(result["commit"]["outcome"], "aborted");
    assert_eq!(result["commit"]["issues"], serde_json::json!(["bd-1"]));
    // What rejected the run is the error, not the abort that followed it.
    assert_eq!(result["decidedBy"]["kind"], "error", "{result:#}");
    assert_eq!(
        test.store_text(),
        before,
        "an aborted run changed the store"
    );

    // Fixed, and run again: one comment, one label, one commit.
    let fixed = failing.replace("\"nope\")", "\"issue\")");
    let (code, result) = eval(&test, &fixed, &["--atomic"]);
    assert_eq!(code, 0, "{result:#}");
    assert_eq!(result["commit"]["outcome"], "committed");
    let issue = test.stored("bd-1");
    assert_eq!(issue["labels"], serde_json::json!(["urgent"]));
    assert_eq!(issue["comments"].as_array().unwrap().len(), 1, "{issue}");
    assert_replay_parity(&test);
}

/// Each staged change is seen by the run's own later reads; the commit
/// applies them all at once, and a run without `--atomic` would have made
/// the same answers.
#[test]
fn an_atomic_run_reads_its_own_writes_and_commits_them_together() {
    let test = two_issues();
    let program = "(issue.add (hash \"title\" \"Third\"))\n\
                   (issue.update (hash \"id\" \"bd-2\" \"status\" \"in_progress\"))\n\
                   (issue.label (hash \"id\" \"bd-3\" \"add\" (list \"new\")))\n\
                   (define shown (hash-ref (payload (issue.show (hash \"id\" \"bd-3\"))) \"issue\"))\n\
                   (define listed (map (lambda (i) (hash-ref i \"id\")) (hash-ref (payload (issue.list)) \"issues\")))\n\
                   (list (hash-ref shown \"labels\") listed)\n";
    let (code, result) = eval(&test, program, &["--atomic"]);
    assert_eq!(code, 0, "{result:#}");
    assert_eq!(
        result["value"],
        serde_json::json!([["new"], ["bd-1", "bd-2", "bd-3"]]),
        "{result:#}"
    );
    assert_eq!(result["commit"]["outcome"], "committed");
    assert_eq!(
        result["commit"]["issues"],
        serde_json::json!(["bd-2", "bd-3"])
    );
    let commit = the_commit(&result);
    assert_eq!(commit["resultClass"], "accepted");
    assert_eq!(test.stored("bd-2")["status"], "in_progress");
    assert_eq!(test.stored("bd-3")["labels"], serde_json::json!(["new"]));
    // The effect log holds the program's five calls and the host's commit.
    let log = test.tusk(&["runs", "--json", "--limit", "1"]).run().json();
    assert_eq!(log["items"][0]["callCount"], 6, "{log:#}");
    assert_replay_parity(&test);
}

/// An issue the run read changes under it, just before its commit: nothing
/// of the run lands, and `run.conflict` names the issue and its fields.
/// An id the run added, taken meanwhile, is a conflict too.
#[test]
fn a_change_under_an_atomic_run_is_a_conflict_and_nothing_lands() {
    let test = two_issues();
    let program = "(issue.show (hash \"id\" \"bd-2\"))\n\
                   (issue.update (hash \"id\" \"bd-1\" \"priority\" 0))\n\
                   'done\n";
    let meanwhile = format!(
        "commit.before={} issue update bd-2 --title Renamed >/dev/null",
        BIN
    );
    let auth = authority(&test);
    let file = test.write("conflict.scm", program);
    let out = test
        .tusk(&["eval", "--json", "--atomic"])
        .arg(&file)
        .args(&auth)
        .env("TUSK_FAULT_MEANWHILE", &meanwhile)
        .run();
    let (code, result) = out.reply();
    assert_eq!(code, 1, "{result:#}");
    assert_eq!(
        result["failureClasses"],
        serde_json::json!(["run.conflict"])
    );
    assert_eq!(result["commit"]["outcome"], "conflict");
    // `updated_at` moves too unless both fall in one second.
    let conflicts = &result["commit"]["conflicts"];
    assert_eq!(conflicts.as_array().unwrap().len(), 1, "{result:#}");
    assert_eq!(conflicts[0]["id"], "bd-2");
    assert_eq!(conflicts[0]["fields"][0], "title", "{result:#}");
    assert_eq!(result["decidedBy"]["kind"], "commit");
    let diagnostic = the_commit(&result)["payload"]["diagnostic"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(diagnostic.contains("bd-2 (title"), "{diagnostic}");
    assert_eq!(
        test.stored("bd-1")["priority"],
        2,
        "the run's change landed"
    );
    assert_eq!(test.stored("bd-2")["title"], "Renamed");

    // The run adds bd-3; another process adds bd-3 first.
    let program = "(issue.add (hash \"title\" \"Mine\"))\n";
    let meanwhile = format!("commit.before={} issue add Theirs >/dev/null", BIN);
    let file = test.write("taken.scm", program);
    let (code, result) = test
        .tusk(&["eval", "--json", "--atomic"])
        .arg(&file)
        .args(&auth)
        .env("TUSK_FAULT_MEANWHILE", &meanwhile)
        .run()
        .reply();
    assert_eq!(code, 1, "{result:#}");
    assert_eq!(
        result["commit"]["conflicts"],
        serde_json::json!([{"id": "bd-3", "fields": ["id"]}]),
        "{result:#}"
    );
    assert_eq!(test.stored("bd-3")["title"], "Theirs");
    assert_replay_parity(&test);
}

/// A dry run changes nothing, returns `tusk.plan.v1` (fields before and
/// after, comments added, what it read and at which version), writes the
/// same plan with --plan-out, and its id is the digest of its content.
#[test]
fn a_dry_run_changes_nothing_and_returns_its_plan() {
    let test = two_issues();
    let program = "(issue.comment (hash \"id\" \"bd-1\" \"author\" \"agent.a\" \"text\" \"plan it\"))\n\
                   (issue.close (hash \"id\" \"bd-2\" \"reason\" \"done\"))\n\
                   (dep.add (hash \"issueId\" \"bd-1\" \"dependsOnId\" \"bd-2\"))\n\
                   (hash-ref (hash-ref (payload (issue.show (hash \"id\" \"bd-2\"))) \"issue\") \"status\")\n";
    let before = test.store_text();
    let plan_file = test.path("plan.json");
    let (code, result) = eval(
        &test,
        program,
        &["--dry-run", "--plan-out", plan_file.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{result:#}");
    assert_eq!(
        result["value"], "closed",
        "the dry run reads its own writes"
    );
    assert_eq!(test.store_text(), before, "a dry run changed the store");
    assert_eq!(result["commit"]["outcome"], "dryRun");
    let plan = &result["plan"];
    assert_eq!(plan["kind"], "tusk.plan.v1");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_file).unwrap()).unwrap();
    assert_eq!(&written, plan);
    let changes = plan["changes"].as_array().unwrap();
    let ids: Vec<&str> = changes.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["bd-1", "bd-2"]);
    assert_eq!(changes[0]["commentsAdded"][0]["text"], "plan it");
    assert_eq!(
        changes[0]["edgesAdded"][0]["depends_on_id"], "bd-2",
        "{plan:#}"
    );
    assert_eq!(
        changes[1]["fields"]["status"],
        serde_json::json!({"before": "open", "after": "closed"})
    );
    let reads: Vec<&str> = plan["reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(reads, ["bd-1", "bd-2"]);
    assert!(plan["reads"][0]["version"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    // The id is the digest of the rest.
    let mut rest = plan.clone();
    rest.as_object_mut().unwrap().remove("planId");
    let digest =
        tusk::canonical::sha256_hex(tusk::canonical::to_canonical_string(&rest).as_bytes());
    assert_eq!(plan["planId"], format!("plan-{digest}"));
    assert_replay_parity(&test);
}

/// What an atomic run cannot stage is refused, and a program cannot make
/// the host's commit call itself.
#[test]
fn atomic_runs_refuse_what_they_cannot_stage() {
    let test = two_issues();
    let (code, result) = eval(
        &test,
        "(issue.update (hash \"id\" \"bd-1\" \"priority\" 1))\n\
         (harness.session.write (hash \"summary\" \"s\" \"nextStep\" \"n\"))\n",
        &["--atomic"],
    );
    assert_eq!(code, 1, "{result:#}");
    let refused = &result["effects"][1];
    assert_eq!(
        refused["resultClass"], "run.atomic_unsupported",
        "{result:#}"
    );
    assert!(refused["payload"]["diagnostic"]
        .as_str()
        .unwrap()
        .contains("without `atomic`"));
    assert_eq!(result["commit"]["outcome"], "aborted");
    assert!(!test.path(".premath/harness_session.json").exists());
    assert_eq!(test.stored("bd-1")["priority"], 2);

    let (code, result) = eval(&test, "(host-call \"run.commit\")", &["--atomic"]);
    assert_eq!(code, 1);
    assert_eq!(
        result["effects"][0]["resultClass"],
        "scheme_eval.host_action_unallowlisted"
    );
    assert_replay_parity(&test);
}

/// An atomic run killed at each point of its commit leaves all of its
/// changes with its `run.commit` row, or none of them (on a database every
/// point is inside the commit's transaction: none); replay keeps parity.
#[test]
fn an_atomic_run_killed_during_its_commit_leaves_all_or_nothing() {
    let test = two_issues();
    let auth = authority(&test);
    // Each point, and whether the commit is in the store once the next
    // command has settled. The program's four calls pass
    // `rows.after_trajectory` first: `@5` is the commit's own; `@2` a kill
    // while the run is still staging.
    let points: &[(&str, bool)] = match test.db {
        Some(_) => &[
            ("rows.after_trajectory@2", false),
            ("rows.after_trajectory@5", false),
            ("unit.before_commit", false),
        ],
        None => &[
            ("rows.after_trajectory@2", false),
            ("store.before_rename", false),
            ("store.after_rename", true),
            ("rows.after_trajectory@5", true),
        ],
    };
    for (n, &(point, applied)) in points.iter().enumerate() {
        let titles: Vec<String> = (0..3).map(|i| format!("k{n}-{i}")).collect();
        let program: String = titles
            .iter()
            .map(|t| format!("(issue.add (hash \"title\" \"{t}\"))\n"))
            .chain(std::iter::once(format!(
                "(issue.update (hash \"id\" \"bd-1\" \"notes\" \"{point}\"))\n"
            )))
            .collect();
        let file = test.write("killed.scm", &program);
        let out = test
            .tusk(&["eval", "--atomic"])
            .arg(&file)
            .args(&auth)
            .env("TUSK_FAULT", point)
            .command()
            .output()
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(9), "{point}: {out:?}");
        // The next command settles what the killed one left.
        test.tusk(&["issue", "list"]).run().status(0);
        let in_store: Vec<String> = test
            .store_lines()
            .iter()
            .filter_map(|i| i["title"].as_str().map(str::to_string))
            .filter(|t| titles.contains(t))
            .collect();
        let noted = test.stored("bd-1")["notes"] == point;
        if applied {
            assert_eq!(in_store, titles, "{point}: part of the commit");
            assert!(noted, "{point}: the update is missing");
        } else {
            assert!(in_store.is_empty() && !noted, "{point}: {in_store:?}");
        }
        let runs = test.tusk(&["runs", "--json", "--limit", "1"]).run().json();
        let run_id = runs["items"][0]["runId"].as_str().unwrap().to_string();
        let rows = test
            .tusk(&["replay", "--json", "--run", &run_id])
            .run()
            .json();
        assert_eq!(rows["parity"], true, "{point}: {rows:#}");
        // A commit that reached the store has its row.
        let commits = commit_rows(&test, &run_id);
        assert_eq!(commits, usize::from(applied), "{point}");
    }
    assert_replay_parity(&test);
}

/// The host's `run.commit` rows of run `run_id` in the effect log.
fn commit_rows(test: &Test, run_id: &str) -> usize {
    test.jsonl(".premath/host_effects.jsonl")
        .iter()
        .filter(|r| r["runId"] == run_id && r["action"] == "run.commit" && r["byHost"] == true)
        .count()
}

/// Retries that do not repeat: the same key and program answer the first
/// run's result and run nothing; another program is refused; a run that
/// changed nothing releases its key; a retry while the first runs is told
/// to wait.
#[test]
fn an_idempotency_key_answers_a_retry_with_the_first_result() {
    let test = two_issues();
    let add = "(issue.add (hash \"title\" \"Once\"))\n";
    let (code, first) = eval(&test, add, &["--idempotency-key", "k-1"]);
    assert_eq!(code, 0, "{first:#}");
    assert_eq!(first["idempotency"]["replayed"], false);
    let (code, again) = eval(&test, add, &["--idempotency-key", "k-1"]);
    assert_eq!(code, 0, "{again:#}");
    assert_eq!(again["idempotency"]["replayed"], true, "{again:#}");
    assert_eq!(again["runId"], first["runId"]);
    assert_eq!(again["value"], first["value"]);
    let onces = test
        .store_lines()
        .iter()
        .filter(|i| i["title"] == "Once")
        .count();
    assert_eq!(onces, 1, "the retry ran");
    let runs = test.tusk(&["runs", "--json"]).run().json();
    let logged = runs["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["runId"] == first["runId"])
        .count();
    assert_eq!(logged, 1);

    // Another program under the key: refused, nothing run.
    let (code, refused) = eval(
        &test,
        "(issue.add (hash \"title\" \"Twice\"))",
        &["--idempotency-key", "k-1"],
    );
    assert_eq!(code, 2, "{refused:#}");
    assert_eq!(refused["class"], "request.idempotency_conflict");
    assert!(refused["message"]
        .as_str()
        .unwrap()
        .contains("use a new key"));
    // Another principal has keys of its own.
    let auth = authority(&test);
    let file = test.write("other.scm", add);
    let (code, theirs) = test
        .tusk(&["eval", "--json", "--idempotency-key", "k-1"])
        .arg(&file)
        .args(&auth)
        .env("TUSK_ACTOR", "someone.else")
        .run()
        .reply();
    assert_eq!(code, 0, "{theirs:#}");
    assert_eq!(theirs["idempotency"]["replayed"], false);

    // A run that executed nothing releases its key: the retry runs.
    let (_, failed) = eval(&test, "(car (list))", &["--idempotency-key", "k-2"]);
    assert_eq!(failed["idempotency"]["released"], true, "{failed:#}");
    let (_, retried) = eval(&test, "(car (list))", &["--idempotency-key", "k-2"]);
    assert_ne!(retried["runId"], failed["runId"]);

    // A retry while the first run is still running (made exactly then).
    let keyed = test.write(
        "keyed.scm",
        "(issue.update (hash \"id\" \"bd-1\" \"priority\" 1))\n",
    );
    let mut retry_args = vec![
        BIN.to_string(),
        "eval".into(),
        "--json".into(),
        "--atomic".into(),
    ];
    retry_args.extend(auth.iter().cloned());
    retry_args.extend(["--idempotency-key".into(), "k-3".into()]);
    retry_args.push(keyed.display().to_string());
    let retry_out = test.path("retry.json");
    let meanwhile = format!(
        "commit.before={} > {}",
        retry_args.join(" "),
        retry_out.display()
    );
    let (code, first) = test
        .tusk(&["eval", "--json", "--atomic", "--idempotency-key", "k-3"])
        .arg(&keyed)
        .args(&auth)
        .env("TUSK_FAULT_MEANWHILE", &meanwhile)
        .run()
        .reply();
    assert_eq!(code, 0, "{first:#}");
    let retry: Value = serde_json::from_str(&std::fs::read_to_string(&retry_out).unwrap()).unwrap();
    assert_eq!(
        retry["class"], "request.idempotency_in_progress",
        "{retry:#}"
    );
    assert_eq!(test.stored("bd-1")["priority"], 1);
    assert_replay_parity(&test);
}

/// `tusk prime` teaches a model when to ask for each (issue 59), and the
/// scheme_eval table it prints names the three fields.
#[test]
fn prime_teaches_atomic_runs_dry_runs_and_keys() {
    let test = Test::new();
    let guide = test.run(&["prime"]).status(0).stdout();
    for needle in [
        "## All or nothing, a look first, a safe retry",
        "| `atomic` | boolean |",
        "| `dryRun` | boolean |",
        "| `idempotencyKey` | string |",
        "`run.conflict`: read again and rerun",
        "`idempotency.replayed: true`",
    ] {
        assert!(guide.contains(needle), "tusk prime lacks {needle:?}");
    }
}

/// A dry run's plan is kept by its id and applied later, exactly, by a
/// person (`tusk plan apply`) or a program (`plan.apply`); a second apply
/// answers the first and writes nothing; a plan whose reads moved is
/// stale, an edited one invalid, an unknown id not found.
#[test]
fn a_kept_plan_is_applied_once_exactly_as_planned() {
    let test = two_issues();
    let program =
        "(issue.comment (hash \"id\" \"bd-1\" \"author\" \"agent.a\" \"text\" \"planned\"))\n\
                   (issue.close (hash \"id\" \"bd-2\" \"reason\" \"done\"))\n\
                   (issue.add (hash \"title\" \"Follow-up\"))\n";
    let plan_file = test.path("plan.json");
    let (code, dry) = eval(
        &test,
        program,
        &["--dry-run", "--plan-out", plan_file.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{dry:#}");
    let id = dry["plan"]["planId"].as_str().unwrap().to_string();
    let before = test.store_text();

    // An edited plan, a plan for another store and an unknown id write nothing.
    let mut edited = dry["plan"].clone();
    edited["changes"][1]["fields"]["status"]["after"] = "open".into();
    test.write("edited.json", &edited.to_string());
    let (code, v) = test.store(&["plan", "apply", "edited.json"]).run().reply();
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["failureClasses"], serde_json::json!(["plan.invalid"]));
    let unknown = format!("plan-{}", "0".repeat(64));
    let (_, v) = test.store(&["plan", "apply", &unknown]).run().reply();
    assert_eq!(
        v["failureClasses"],
        serde_json::json!(["plan.not_found"]),
        "{v:#}"
    );
    assert_eq!(test.store_text(), before);

    // Applied by its id: exactly the planned fields.
    let (code, applied) = test.store(&["plan", "apply", &id]).run().reply();
    assert_eq!(code, 0, "{applied:#}");
    assert_eq!(
        applied["applied"],
        serde_json::json!(["bd-1", "bd-2", "bd-3"])
    );
    assert_eq!(applied["replayed"], false);
    let planned = |issue: &str, field: &str| -> Value {
        dry["plan"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == issue)
            .unwrap()["fields"][field]["after"]
            .clone()
    };
    let closed = test.stored("bd-2");
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["closed_at"], planned("bd-2", "closed_at"));
    assert_eq!(test.stored("bd-1")["comments"], planned("bd-1", "comments"));
    assert_eq!(test.stored("bd-3")["title"], "Follow-up");
    // Again, by id or by file: the first answer, nothing written.
    let after = test.store_text();
    for target in [id.as_str(), plan_file.to_str().unwrap()] {
        let (code, again) = test.store(&["plan", "apply", target]).run().reply();
        assert_eq!(code, 0, "{again:#}");
        assert_eq!(again["replayed"], true, "{again:#}");
    }
    assert_eq!(test.store_text(), after);

    // A plan whose reads moved is stale: nothing written, what moved named.
    let (_, dry) = eval(
        &test,
        "(issue.update (hash \"id\" \"bd-1\" \"priority\" 0))",
        &["--dry-run"],
    );
    let id = dry["plan"]["planId"].as_str().unwrap().to_string();
    test.run(&["issue", "update", "bd-1", "--title", "Moved"]);
    let (code, stale) = test.store(&["plan", "apply", &id]).run().reply();
    assert_eq!(code, 1, "{stale:#}");
    assert_eq!(stale["failureClasses"], serde_json::json!(["plan.stale"]));
    assert_eq!(stale["moved"][0]["id"], "bd-1");
    assert_eq!(test.stored("bd-1")["priority"], 2);

    // A program applies a plan with its own authority, and only with it.
    let (_, dry) = eval(
        &test,
        "(issue.update (hash \"id\" \"bd-1\" \"priority\" 1))",
        &["--dry-run"],
    );
    let apply = format!(
        "(plan.apply (hash \"planId\" \"{}\"))",
        dry["plan"]["planId"].as_str().unwrap()
    );
    let (code, refused) = test.eval(&apply, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        refused["effects"][0]["resultClass"],
        "mutation.use_evidence_missing"
    );
    let (code, ok) = eval(&test, &apply, &[]);
    assert_eq!(code, 0, "{ok:#}");
    assert_eq!(test.stored("bd-1")["priority"], 1);
    assert_replay_parity(&test);
}

/// `tusk plan VERB ID --json` as `actor`: (exit code, answer).
fn plan_as(test: &Test, verb: &str, id: &str, actor: &str) -> (i32, Value) {
    test.store(&["plan", verb, id])
        .env("TUSK_ACTOR", actor)
        .run()
        .reply()
}

/// A policy file holding `approval` rules.
fn approval_policy(test: &Test, approval: Value) {
    let mutations: Vec<String> = tusk::runtime::builtin_registry().mutation_ids();
    let policy = serde_json::json!({
        "schema": 1,
        "policyKind": "premath.mutation_policy.v1",
        "allowedActions": mutations,
        "requireJoinClosed": false,
        "approval": approval,
    });
    test.write(".premath/mutation_policy.json", &policy.to_string());
}

/// Approval (issue 59): a rule holds a principal's action back; the call
/// writes nothing and answers `plan.approval_required` with its plan kept
/// by id; the plan cannot be applied around the rule; only an approver's
/// `plan approve` applies it, recorded with both names; an atomic run of
/// such a call is held whole. A rule naming no real action is refused.
#[test]
fn an_approval_rule_holds_a_change_until_an_approver_approves_it() {
    let test = two_issues();
    approval_policy(
        &test,
        serde_json::json!({
            "require": [{"actions": ["issue.close"], "principals": ["agent.*"]}],
            "approvers": ["alice"]
        }),
    );
    let auth = authority(&test);
    let program = "(issue.update (hash \"id\" \"bd-1\" \"priority\" 1))\n\
                   (issue.close (hash \"id\" \"bd-2\" \"reason\" \"done\"))\n";
    let file = test.write("close.scm", program);
    let (code, held) = test
        .tusk(&["eval", "--json"])
        .arg(&file)
        .args(&auth)
        .env("TUSK_ACTOR", "agent.a")
        .run()
        .reply();
    assert_eq!(code, 1, "{held:#}");
    let refused = &held["effects"][1];
    assert_eq!(refused["resultClass"], "plan.approval_required", "{held:#}");
    let id = refused["payload"]["planId"].as_str().unwrap().to_string();
    assert_eq!(refused["payload"]["plan"]["requestedBy"], "agent.a");
    assert_eq!(
        refused["payload"]["plan"]["actions"],
        serde_json::json!(["issue.close"])
    );
    // The ungated call landed; the gated one did not.
    assert_eq!(test.stored("bd-1")["priority"], 1);
    assert_eq!(test.stored("bd-2")["status"], "open");

    // Not around the rule: applied by anyone but an approver, refused.
    let (code, v) = plan_as(&test, "apply", &id, "agent.b");
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(
        v["failureClasses"],
        serde_json::json!(["plan.approval_required"])
    );
    let (_, v) = plan_as(&test, "approve", &id, "bob");
    assert_eq!(
        v["failureClasses"],
        serde_json::json!(["plan.not_approver"]),
        "{v:#}"
    );
    assert_eq!(test.stored("bd-2")["status"], "open");
    // The approver's approval applies it, with both names.
    let (code, v) = plan_as(&test, "approve", &id, "alice");
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        (v["approvedBy"].as_str(), v["requestedBy"].as_str()),
        (Some("alice"), Some("agent.a"))
    );
    assert_eq!(test.stored("bd-2")["status"], "closed");
    let runs = test.tusk(&["runs", "--json", "--limit", "1"]).run().json();
    assert_eq!(runs["items"][0]["principal"], "alice");

    // An atomic run with a held-back call is held whole.
    test.run(&["issue", "add", "Third"]);
    let program = "(issue.update (hash \"id\" \"bd-3\" \"priority\" 0))\n\
                   (issue.close (hash \"id\" \"bd-3\" \"reason\" \"done\"))\n";
    let file = test.write("atomic.scm", program);
    let (code, held) = test
        .tusk(&["eval", "--json", "--atomic"])
        .arg(&file)
        .args(&auth)
        .env("TUSK_ACTOR", "agent.a")
        .run()
        .reply();
    assert_eq!(code, 1, "{held:#}");
    assert_eq!(held["commit"]["outcome"], "approvalRequired", "{held:#}");
    assert_eq!(
        held["failureClasses"],
        serde_json::json!(["plan.approval_required"])
    );
    let id = held["plan"]["planId"].as_str().unwrap().to_string();
    assert_eq!(
        test.stored("bd-3")["priority"],
        2,
        "a held run applied a change"
    );
    let (code, _) = plan_as(&test, "approve", &id, "alice");
    assert_eq!(code, 0);
    let third = test.stored("bd-3");
    assert_eq!(
        (third["priority"].as_i64(), third["status"].as_str()),
        (Some(0), Some("closed"))
    );
    assert_replay_parity(&test);

    // A rule naming an action that does not exist is refused, whole.
    approval_policy(
        &test,
        serde_json::json!({"require": [{"actions": ["issue.clsoe"], "principals": ["agent.*"]}], "approvers": ["alice"]}),
    );
    let out = test.tusk(&["policy", "digest"]).run();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        out.stderr()
            .contains("`approval` names `issue.clsoe`, which is not a registered action"),
        "{}",
        out.stderr()
    );
}

/// The gate lets `plan.apply` through on evidence alone, so the plan may
/// apply only actions the policy allows: a plan closing an issue, under a
/// policy that does not allow `issue.close`, is refused and writes nothing.
/// The default policy's digest stays premath's (it lists no `plan.*`).
#[test]
fn a_plan_applies_only_actions_the_policy_allows() {
    let test = two_issues();
    let default_digest = test.policy_digest();
    let (_, dry) = eval(
        &test,
        "(issue.close (hash \"id\" \"bd-1\"))",
        &["--dry-run"],
    );
    let id = dry["plan"]["planId"].as_str().unwrap().to_string();
    let mutations: Vec<String> = tusk::runtime::builtin_registry()
        .mutation_ids()
        .into_iter()
        .filter(|m| m != "issue.close")
        .collect();
    let policy = serde_json::json!({
        "schema": 1,
        "policyKind": "premath.mutation_policy.v1",
        "allowedActions": mutations,
    });
    test.write(".premath/mutation_policy.json", &policy.to_string());
    let (code, v) = eval(
        &test,
        &format!("(plan.apply (hash \"planId\" \"{id}\"))"),
        &[],
    );
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(
        v["effects"][0]["resultClass"], "mutation.action_not_allowed",
        "{v:#}"
    );
    assert_eq!(test.stored("bd-1")["status"], "open");
    assert_eq!(
        default_digest, "pol1_397177886a16079ca9f32f440727d2c4eab8bfef3e2dcc4575e85ef728a25c04",
        "the default policy's digest moved"
    );
}

/// A staged run's changes count against its memory limit (issue 59,
/// point 6): past it, the staging call fails naming the bound, and the
/// run applies nothing.
#[test]
fn staged_changes_are_bounded_by_the_run_memory_limit() {
    let test = two_issues();
    let before = test.store_text();
    let program = "(define big (make-string 200000 #\\x))\n\
                   (for ([i (in-range 40)]) (issue.add (hash \"title\" (format \"big ~a\" i) \"description\" big)))\n";
    let (code, result) = eval(
        &test,
        program,
        &["--atomic", "--max-memory-mb", "4", "--max-calls", "100"],
    );
    assert_eq!(code, 1, "{result:#}");
    let failed: Vec<&Value> = result["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["resultClass"] == "scheme_eval.host_action_execution_error")
        .collect();
    assert!(!failed.is_empty(), "{result:#}");
    let diagnostic = failed[0]["payload"]["diagnostic"].as_str().unwrap();
    assert!(
        diagnostic.contains("may add at most 4194304 bytes to the store"),
        "{diagnostic}"
    );
    assert_eq!(result["commit"]["outcome"], "aborted");
    assert_eq!(test.store_text(), before);
}

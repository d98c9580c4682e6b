//! `tusk harness-feature write|read|check|next` through the binary: the
//! reference's (premath-cli) ledger shape, flags, output and exit codes. The
//! byte-for-byte comparison with the reference is tests/it/parity_vectors.rs; these
//! tests pin the rules themselves and tusk's deliberate differences.

use crate::common::Run;

use crate::common::Test;
use serde_json::{json, Value};

const L: &str = ".premath/harness_feature_ledger.json";
const KIND: &str = "premath.harness.feature_ledger.v1";
const T: &str = "2026-02-01T10:00:00Z";

fn fw(test: &Test, args: &[&str]) -> Run {
    let mut all = vec!["harness-feature", "write", "--now", T, "--json"];
    all.extend_from_slice(args);
    test.run(&all)
}

fn ledger(test: &Test) -> Value {
    serde_json::from_str(&test.read(L)).unwrap()
}

fn doc(features: Value) -> String {
    json!({"schema": 1, "ledgerKind": KIND, "updatedAt": T, "features": features}).to_string()
}

#[test]
fn write_creates_the_ledger_in_the_reference_shape() {
    let test = Test::new();
    let out = fw(
        &test,
        &[
            "--feature-id",
            " f1 ",
            "--status",
            "in_progress",
            "--issue-id",
            " bd-1 ",
            "--summary",
            " Parser ",
            "--session-ref",
            " hs1_x ",
            "--instruction-ref",
            "b",
            "--instruction-ref",
            " a ",
            "--instruction-ref",
            "b",
            "--instruction-ref",
            "  ",
            "--verification-ref",
            "ci://1",
        ],
    )
    .status(0)
    .json();
    let row = json!({"featureId": "f1", "status": "in_progress", "issueId": "bd-1",
        "summary": "Parser", "instructionRefs": ["a", "b"], "verificationRefs": ["ci://1"],
        "updatedAt": T});
    let stored = json!({"schema": 1, "ledgerKind": KIND, "sessionRef": "hs1_x", "updatedAt": T,
        "features": [row]});
    assert_eq!(
        out,
        json!({"action": "harness-feature.write", "featureId": "f1", "path": L, "ledger": stored})
    );
    // The file: the reference's key order, pretty, one trailing newline.
    let mut expected = serde_json::to_string_pretty(&stored).unwrap();
    expected.push('\n');
    assert_eq!(test.read(L), expected);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(test.path(L))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
    // Only the ledger and its lock are left in the directory (no temp file).
    let mut names: Vec<String> = std::fs::read_dir(test.path(".premath"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "harness_feature_ledger.json",
            "harness_feature_ledger.json.lock"
        ]
    );
    let text = test
        .run(&[
            "harness-feature",
            "write",
            "--feature-id",
            "f2",
            "--status",
            "pending",
        ])
        .status(0)
        .stdout();
    assert_eq!(
        text,
        format!("premath harness-feature write\n  Feature: f2\n  Path: {L}\n")
    );
}

#[test]
fn upsert_rules_follow_the_reference() {
    let test = Test::new();
    fw(
        &test,
        &[
            "--feature-id",
            "b",
            "--status",
            "pending",
            "--issue-id",
            "bd-2",
            "--summary",
            "two",
            "--instruction-ref",
            "i1",
            "--verification-ref",
            "v1",
            "--session-ref",
            "s",
        ],
    )
    .status(0);
    // Absent flags keep, the status always replaces, empty normalized ref lists
    // keep, rows are sorted by id, and the later clock is recorded.
    test.run(&[
        "harness-feature",
        "write",
        "--now",
        "2026-02-02T00:00:00.900+00:00",
        "--feature-id",
        "b",
        "--status",
        "blocked",
        "--instruction-ref",
        " ",
    ])
    .status(0);
    fw(&test, &["--feature-id", "a", "--status", "pending"]).status(0);
    let l = ledger(&test);
    assert_eq!(l["sessionRef"], "s");
    assert_eq!(l["updatedAt"], T);
    assert_eq!(
        l["features"],
        json!([
            {"featureId": "a", "status": "pending", "updatedAt": T},
            {"featureId": "b", "status": "blocked", "issueId": "bd-2", "summary": "two",
             "instructionRefs": ["i1"], "verificationRefs": ["v1"],
             "updatedAt": "2026-02-02T00:00:00Z"}
        ])
    );
    // A given "" clears issueId, summary and the ledger's sessionRef; given refs replace.
    fw(
        &test,
        &[
            "--feature-id",
            "b",
            "--status",
            "completed",
            "--issue-id",
            "",
            "--summary",
            "  ",
            "--session-ref",
            "",
            "--verification-ref",
            "v3",
            "--verification-ref",
            "v2",
        ],
    )
    .status(0);
    let l = ledger(&test);
    assert!(l.get("sessionRef").is_none(), "{l}");
    assert_eq!(
        l["features"][1],
        json!({"featureId": "b", "status": "completed", "instructionRefs": ["i1"],
               "verificationRefs": ["v2", "v3"], "updatedAt": T})
    );
}

#[test]
fn write_input_errors() {
    let test = Test::new();
    fw(&test, &["--feature-id", "  ", "--status", "pending"])
        .error(1, "error: feature-id must be non-empty");
    assert!(!test.path(".premath").exists(), "nothing is created");
    // Bad or missing status, missing feature id: usage errors (exit 2).
    let run = fw(&test, &["--feature-id", "f", "--status", "closed"]).status(2);
    assert!(
        run.stderr()
            .contains("invalid value 'closed' for '--status <STATUS>'"),
        "{run:?}"
    );
    assert!(run
        .stderr()
        .contains("[possible values: pending, in_progress, blocked, completed]"));
    let run = fw(&test, &["--feature-id", "f"]).status(2);
    assert!(run.stderr().contains("--status <STATUS>"), "{run:?}");
    let run = fw(&test, &["--status", "pending"]).status(2);
    assert!(
        run.stderr().contains("--feature-id <FEATURE_ID>"),
        "{run:?}"
    );
    test.run(&[
        "harness-feature",
        "write",
        "--feature-id",
        "f",
        "--status",
        "pending",
        "--now",
        "tomorrow",
    ])
    .error(2, "--now");
    assert!(!test.path(L).exists());
}

#[test]
fn read_prints_the_ledger() {
    let test = Test::new();
    test.run(&["harness-feature", "read"]).error(
        1,
        &format!(
            "error: failed to read harness feature ledger {L}: unable to read {L}: No such file"
        ),
    );
    fw(&test, &["--feature-id", "a", "--status", "pending"]).status(0);
    let out = test
        .run(&["harness-feature", "read", "--json"])
        .status(0)
        .json();
    assert_eq!(
        out,
        json!({"action": "harness-feature.read", "path": L, "ledger": ledger(&test)})
    );
    assert_eq!(
        test.run(&["harness-feature", "read"]).status(0).stdout(),
        format!("premath harness-feature read\n  Path: {L}\n  Features: 1\n")
    );
    fw(
        &test,
        &[
            "--feature-id",
            "a",
            "--status",
            "pending",
            "--session-ref",
            "hs",
        ],
    )
    .status(0);
    assert!(test
        .run(&["harness-feature", "read"])
        .status(0)
        .stdout()
        .ends_with("  Features: 1\n  Session Ref: hs\n"));
    // Another path.
    test.write("x/l.json", &doc(json!([])));
    let out = test
        .run(&["harness-feature", "read", "--path", "x/l.json", "--json"])
        .status(0)
        .json();
    assert_eq!(out["path"], "x/l.json");
    assert_eq!(out["ledger"]["features"], json!([]));
}

#[test]
fn malformed_ledgers_are_errors_everywhere_and_never_rewritten() {
    let cases: [(&str, &str); 6] = [
        ("{\"features\": [", "unable to parse"),
        ("[]", "unable to parse"),
        (
            r#"{"schema":1,"ledgerKind":"premath.harness.feature_ledger.v1","features":[]}"#,
            "missing field `updatedAt`",
        ),
        (
            r#"{"schema":1,"ledgerKind":"premath.harness.feature_ledger.v1","updatedAt":"t","features":[{"featureId":"a","updatedAt":"t"}]}"#,
            "missing field `status`",
        ),
        (
            r#"{"schema":2,"ledgerKind":"premath.harness.feature_ledger.v1","updatedAt":"t"}"#,
            "invalid schema 2 (expected 1)",
        ),
        (
            r#"{"schema":1,"ledgerKind":"other","updatedAt":"t"}"#,
            "invalid ledger kind other (expected premath.harness.feature_ledger.v1)",
        ),
    ];
    for (text, needle) in cases {
        let test = Test::new();
        test.write(L, text);
        for (args, prefix) in [
            (
                &["harness-feature", "read"][..],
                "failed to read harness feature ledger",
            ),
            (
                &["harness-feature", "check"],
                "failed to read harness feature ledger",
            ),
            (
                &["harness-feature", "next"],
                "failed to compute next feature from",
            ),
            (
                &[
                    "harness-feature",
                    "write",
                    "--feature-id",
                    "a",
                    "--status",
                    "pending",
                ],
                "failed to read harness feature ledger",
            ),
        ] {
            let run = test.run(args).error(1, needle);
            assert!(
                run.stderr().starts_with(&format!("error: {prefix} {L}: ")),
                "{run:?}"
            );
            assert!(run.stdout().is_empty(), "{run:?}");
        }
        assert_eq!(test.read(L), text, "never rewritten");
    }
}

#[test]
fn an_old_tusk_ledger_is_named_exit_2() {
    let test = Test::new();
    let old = json!({"schema": 1, "ledgerKind": KIND, "features": [
        {"featureId": "a", "title": "A", "state": "closed", "verificationRefs": ["v"],
         "updatedAt": "2026-02-01T00:00:00Z"}]})
    .to_string();
    test.write(L, &old);
    for args in [
        &["harness-feature", "read"][..],
        &["harness-feature", "check", "--json"],
        &["harness-feature", "next"],
        &[
            "harness-feature",
            "write",
            "--feature-id",
            "a",
            "--status",
            "completed",
        ],
    ] {
        test.run(args).error(2, "old tusk shape");
    }
    assert_eq!(test.read(L), old);
    // The session bootstrap names it too.
    test.run(&["harness-session", "write", "--state", "active"])
        .status(0);
    test.run(&["harness-session", "bootstrap"])
        .error(2, "old tusk shape");
}

#[test]
fn check_reports_every_class_in_the_reference_order() {
    let test = Test::new();
    test.run(&["harness-feature", "check", "--json"])
        .error(1, "unable to read");
    let row = |id: &str, status: &str| json!({"featureId": id, "status": status, "updatedAt": T});
    let mut done_bad_ref = row("c", "completed");
    done_bad_ref["instructionRefs"] = json!([" ", "x"]);
    let mut blank_vref = row("d", "pending");
    blank_vref["verificationRefs"] = json!(["ok", ""]);
    let mut bad_status = row("b", "done");
    bad_status["updatedAt"] = json!(" ");
    let mut bad = json!({"schema": 1, "ledgerKind": KIND, "updatedAt": " ", "features": [
        row(" ", "pending"), row("a", "in_progress"), row("a", "in_progress"), bad_status,
        done_bad_ref, blank_vref, row("e", "pending")]});
    test.write(L, &bad.to_string());
    let report = test
        .run(&["harness-feature", "check", "--require-closure", "--json"])
        .status(1)
        .json();
    let classes: Vec<(&str, Option<&str>)> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["class"].as_str().unwrap(), e["featureId"].as_str()))
        .collect();
    let p = "harness_feature_ledger.";
    let expected: Vec<(String, Option<&str>)> = [
        ("updated_at.empty", None),
        ("feature_id.empty", None),
        ("feature_id.duplicate", Some("a")),
        ("feature.updated_at.empty", Some("b")),
        ("status.invalid", Some("b")),
        ("completed_missing_verification_ref", Some("c")),
        ("instruction_ref.empty", Some("c")),
        ("verification_ref.empty", Some("d")),
        ("in_progress.non_contractible", None),
        ("closure_incomplete", None),
    ]
    .into_iter()
    .map(|(c, id)| (format!("{p}{c}"), id))
    .collect();
    assert_eq!(
        classes,
        expected
            .iter()
            .map(|(c, id)| (c.as_str(), *id))
            .collect::<Vec<_>>()
    );
    assert_eq!(report["result"], "rejected");
    assert_eq!(report["requireClosure"], true);
    assert_eq!(
        report["errors"][4]["message"],
        "feature status `done` is invalid (expected pending|in_progress|blocked|completed)"
    );
    assert!(report["errors"][0].get("featureId").is_none());
    let mut sorted: Vec<&str> = expected.iter().map(|(c, _)| c.as_str()).collect();
    sorted.sort_unstable();
    assert_eq!(report["failureClasses"], json!(sorted));
    assert_eq!(
        report["summary"],
        json!({"featureCount": 7, "pendingCount": 2, "inProgressCount": 2,
               "blockedCount": 0, "completedCount": 1, "closureComplete": false})
    );
    // The blank-id row is skipped (not counted as pending); the in_progress
    // feature is next even in a rejected ledger.
    assert_eq!(report["nextFeatureId"], "a");
    let text = test.run(&["harness-feature", "check"]).status(1).stdout();
    assert!(
        text.starts_with(
            "[harness-feature] FAIL (features=7, closureComplete=false, nextFeature=a)\n  - harness_feature_ledger.updated_at.empty (ledger.updatedAt must be non-empty)\n"
        ),
        "{text}"
    );
    assert!(text.contains(
        "  - harness_feature_ledger.feature_id.duplicate feature=a (featureId must be unique)\n"
    ));

    // An empty ledger is rejected.
    bad["updatedAt"] = json!(T);
    bad["features"] = json!([]);
    test.write(L, &bad.to_string());
    let report = test
        .run(&["harness-feature", "check", "--json"])
        .status(1)
        .json();
    assert_eq!(
        report["failureClasses"],
        json!(["harness_feature_ledger.empty"])
    );
}

#[test]
fn check_closure() {
    let test = Test::new();
    fw(&test, &["--feature-id", "a", "--status", "completed"]).status(0);
    let r = test
        .run(&["harness-feature", "check", "--json"])
        .status(1)
        .json();
    assert_eq!(
        r["failureClasses"],
        json!(["harness_feature_ledger.completed_missing_verification_ref"])
    );
    fw(
        &test,
        &[
            "--feature-id",
            "a",
            "--status",
            "completed",
            "--verification-ref",
            "ci://1",
        ],
    )
    .status(0);
    fw(&test, &["--feature-id", "b", "--status", "blocked"]).status(0);
    let r = test
        .run(&["harness-feature", "check", "--json"])
        .status(0)
        .json();
    assert_eq!(r["result"], "accepted");
    assert_eq!(r["errors"], json!([]));
    assert_eq!(r["nextFeatureId"], Value::Null);
    assert_eq!(r["summary"]["closureComplete"], false);
    let r = test
        .run(&["harness-feature", "check", "--require-closure", "--json"])
        .status(1)
        .json();
    assert_eq!(
        r["failureClasses"],
        json!(["harness_feature_ledger.closure_incomplete"])
    );
    fw(
        &test,
        &[
            "--feature-id",
            "b",
            "--status",
            "completed",
            "--verification-ref",
            "ci://2",
        ],
    )
    .status(0);
    let r = test
        .run(&["harness-feature", "check", "--require-closure", "--json"])
        .status(0)
        .json();
    assert_eq!(r["summary"]["closureComplete"], true);
    assert_eq!(r["summary"]["completedCount"], 2);
    assert_eq!(
        test.run(&["harness-feature", "check", "--require-closure"])
            .status(0)
            .stdout(),
        "[harness-feature] OK (features=2, closureComplete=true, nextFeature=none)\n"
    );
}

#[test]
fn next_projects_an_accepted_ledger() {
    let test = Test::new();
    let missing = test
        .run(&["harness-feature", "next", "--json"])
        .status(0)
        .json();
    assert_eq!(
        missing,
        json!({"action": "harness-feature.next", "path": L, "exists": false,
               "nextFeatureId": null, "closureComplete": null, "featureCount": null})
    );
    assert_eq!(
        test.run(&["harness-feature", "next"]).status(0).stdout(),
        format!(
            "premath harness-feature next\n  Path: {L}\n  Next Feature: none (ledger missing)\n"
        )
    );
    for (id, status) in [("c", "pending"), ("b", "pending"), ("z", "blocked")] {
        fw(&test, &["--feature-id", id, "--status", status]).status(0);
    }
    let n = test
        .run(&["harness-feature", "next", "--json"])
        .status(0)
        .json();
    assert_eq!(n["nextFeatureId"], "b");
    assert_eq!(
        (n["exists"].clone(), n["featureCount"].clone()),
        (json!(true), json!(3))
    );
    fw(&test, &["--feature-id", "y", "--status", "in_progress"]).status(0);
    assert_eq!(
        test.run(&["harness-feature", "next"]).status(0).stdout(),
        format!("premath harness-feature next\n  Path: {L}\n  Next Feature: y\n  Closure Complete: false\n  Feature Count: 4\n")
    );
    // A second in_progress feature makes the ledger rejected: next refuses it.
    fw(&test, &["--feature-id", "x", "--status", "in_progress"]).status(0);
    test.run(&["harness-feature", "next", "--json"]).error(
        1,
        &format!("error: failed to compute next feature from {L}: ledger rejected: harness_feature_ledger.in_progress.non_contractible"),
    );
    // As does an empty one.
    test.write(L, &doc(json!([])));
    test.run(&["harness-feature", "next"])
        .error(1, "ledger rejected: harness_feature_ledger.empty");
}

#[test]
fn unknown_members_survive_a_rewrite() {
    let test = Test::new();
    test.write(
        L,
        &json!({"schema": 1, "ledgerKind": KIND, "owner": "team-a", "updatedAt": T, "features": [
            {"featureId": "a", "status": "pending", "updatedAt": T, "estimate": 3}
        ]})
        .to_string(),
    );
    let out = fw(&test, &["--feature-id", "a", "--status", "in_progress"])
        .status(0)
        .json();
    assert_eq!(out["ledger"]["owner"], "team-a");
    let text = test.read(L);
    let l: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(l["owner"], "team-a");
    assert_eq!(l["features"][0]["estimate"], 3);
    assert_eq!(l["features"][0]["status"], "in_progress");
    // After the known members, in the reference's order.
    let keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["schema", "ledgerKind", "updatedAt", "features", "owner"]
    );
    // read shows them as well.
    let read = test
        .run(&["harness-feature", "read", "--json"])
        .status(0)
        .json();
    assert_eq!(read["ledger"]["features"][0]["estimate"], 3);
}

/// Runs host action `id` with `args` against the `.premath` of `root`, at `T`.
fn action(root: &std::path::Path, id: &str, args: Value) -> tusk::host::ActionOutcome {
    use chrono::{DateTime, Utc};
    let paths = tusk::host::HostPaths::under(root);
    let now: DateTime<Utc> = T.parse().unwrap();
    let ctx = tusk::host::ActionContext {
        paths: &paths,
        now,
        issue_id: None,
        run_id: None,
        principal: None,
        approval: None,
        allowed: None,
    };
    let action = tusk::harness::actions()
        .into_iter()
        .find(|a| a.id() == id)
        .unwrap();
    let args = tusk::host::registry::validate_args(&action.spec().args, Some(&args))
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    action
        .call(&ctx, args)
        .unwrap_or_else(|e| panic!("{id}: {e:?}"))
}

/// The host actions' payloads are the JSON the twin commands print.
#[test]
fn host_actions_return_the_twin_commands_json() {
    let cli = Test::new();
    let host = tempfile::tempdir().unwrap();
    let host_ledger = tusk::host::HostPaths::under(host.path()).feature_ledger;
    let same_path = |mut v: Value| {
        v["path"] = json!(L);
        v
    };
    let next = action(host.path(), "harness.feature.next", json!({}));
    assert!(next.is_accepted());
    assert_eq!(
        same_path(next.payload),
        json_of(&cli, &["harness-feature", "next", "--json"])
    );
    let write = action(
        host.path(),
        "harness.feature.write",
        json!({"featureId": " f1 ", "status": "in_progress", "issueId": "bd-1", "summary": "s",
               "sessionRef": "hs", "instructionRefs": ["b", "a"], "verificationRefs": ["v"]}),
    );
    assert!(write.is_accepted(), "{:?}", write.payload);
    let printed = fw(
        &cli,
        &[
            "--feature-id",
            " f1 ",
            "--status",
            "in_progress",
            "--issue-id",
            "bd-1",
            "--summary",
            "s",
            "--session-ref",
            "hs",
            "--instruction-ref",
            "b",
            "--instruction-ref",
            "a",
            "--verification-ref",
            "v",
        ],
    )
    .status(0)
    .json();
    assert_eq!(same_path(write.payload), printed);
    // The files are the same bytes.
    assert_eq!(std::fs::read_to_string(&host_ledger).unwrap(), cli.read(L));
    let next = action(host.path(), "harness.feature.next", json!({}));
    assert_eq!(
        same_path(next.payload),
        json_of(&cli, &["harness-feature", "next", "--json"])
    );
    // A ledger the check rejects: the command fails, the action is rejected
    // with the same message.
    action(
        host.path(),
        "harness.feature.write",
        json!({"featureId": "f1", "status": "completed", "verificationRefs": [" "]}),
    );
    fw(&cli, &["--feature-id", "f1", "--status", "completed"]).status(0);
    let dropped = std::fs::read_to_string(&host_ledger).unwrap();
    assert!(
        dropped.contains("\"verificationRefs\""),
        "blank refs keep the stored ones"
    );
    // Make both ledgers rejected the same way: a second in_progress feature.
    action(
        host.path(),
        "harness.feature.write",
        json!({"featureId": "f2", "status": "in_progress"}),
    );
    action(
        host.path(),
        "harness.feature.write",
        json!({"featureId": "f3", "status": "in_progress"}),
    );
    fw(&cli, &["--feature-id", "f2", "--status", "in_progress"]).status(0);
    fw(&cli, &["--feature-id", "f3", "--status", "in_progress"]).status(0);
    let rejected = action(host.path(), "harness.feature.next", json!({}));
    assert_eq!(
        rejected.failure_classes,
        ["harness.feature_ledger_rejected"]
    );
    let stderr = cli
        .run(&["harness-feature", "next", "--json"])
        .status(1)
        .stderr();
    assert_eq!(
        rejected.payload["diagnostic"]
            .as_str()
            .unwrap()
            .replace(&host_ledger.display().to_string(), L),
        stderr.trim_end().strip_prefix("error: ").unwrap()
    );
}

fn json_of(test: &Test, args: &[&str]) -> Value {
    test.run(args).status(0).json()
}

#[test]
fn concurrent_writers_lose_no_row() {
    let test = Test::new();
    let ids: Vec<String> = (0..8).map(|i| format!("f{i}")).collect();
    std::thread::scope(|scope| {
        for id in &ids {
            let test = &test;
            scope.spawn(move || {
                test.run(&[
                    "harness-feature",
                    "write",
                    "--feature-id",
                    id,
                    "--status",
                    "pending",
                ])
                .status(0);
            });
        }
    });
    let l = ledger(&test);
    let stored: Vec<&str> = l["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["featureId"].as_str().unwrap())
        .collect();
    assert_eq!(stored, ids.iter().map(String::as_str).collect::<Vec<_>>());
}

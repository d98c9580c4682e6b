//! `tusk harness-session write|read|bootstrap` through the binary.

use crate::common::Test;
use serde_json::{json, Value};

const S: &str = ".premath/harness_session.json";

/// Writes a session; returns the session as printed (premath's
/// `{action, path, session}` under `--json`).
fn write(test: &Test, now: &str, extra: &[&str]) -> Value {
    let mut args = vec!["harness-session", "write", "--now", now, "--json"];
    args.extend_from_slice(extra);
    let out = test.run(&args).status(0).json();
    assert_eq!(out["action"], "harness-session.write");
    out["session"].clone()
}

#[test]
fn new_session_has_derived_id_and_normalized_fields() {
    let test = Test::new();
    let s = write(
        &test,
        "2026-02-01T10:00:00Z",
        &[
            "--state",
            "active",
            "--issue-id",
            " bd-7 ",
            "--summary",
            "   ",
            "--next-step",
            "",
            "--witness-ref",
            " w://b ",
            "--witness-ref",
            "w://a",
            "--witness-ref",
            "w://b",
            "--witness-ref",
            "  ",
            "--lineage-ref",
            "ctx://x",
            "--instruction-ref",
            "",
        ],
    );
    assert_eq!(
        s,
        json!({
            "schema": 1, "sessionKind": "premath.harness.session.v1",
            "sessionId": "hs1_20260201T100000Z_bd-7", "state": "active",
            "startedAt": "2026-02-01T10:00:00Z", "updatedAt": "2026-02-01T10:00:00Z",
            "issueId": "bd-7", "witnessRefs": ["w://a", "w://b"], "lineageRefs": ["ctx://x"],
            "issuesPath": ".premath/issues.jsonl"
        })
    );
    // The file holds exactly what was printed, in the reference's key order
    // (no issuesSnapshotRef: there is no store at the default --issues path).
    let stored: Value = serde_json::from_str(&test.read(S)).unwrap();
    assert_eq!(stored, s);
    let text = test.read(S);
    let keys: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  \""))
        .map(|l| l.split('"').next().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "schema",
            "sessionKind",
            "sessionId",
            "state",
            "issueId",
            "witnessRefs",
            "lineageRefs",
            "startedAt",
            "updatedAt",
            "issuesPath"
        ]
    );
    // Readable by the team, as premath's artifacts are (not a temp file's 0600).
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(test.path(S))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
    // Without an issue id the id says "none".
    let sb2 = Test::new();
    let s2 = write(&sb2, "2026-02-01T10:00:00+02:00", &["--state", "stopped"]);
    assert_eq!(s2["sessionId"], "hs1_20260201T080000Z_none");
    assert_eq!(s2["stoppedAt"], "2026-02-01T08:00:00Z");
}

#[test]
fn update_in_place_keeps_identity_and_refreshes_updated_at() {
    let test = Test::new();
    write(
        &test,
        "2026-02-01T10:00:00Z",
        &[
            "--state",
            "active",
            "--issue-id",
            "bd-1",
            "--summary",
            "first",
            "--witness-ref",
            "w://1",
        ],
    );
    let s = write(
        &test,
        "2026-02-01T11:30:00Z",
        &[
            "--state",
            "stopped",
            "--summary",
            "second",
            "--next-step",
            "run tests",
            "--issue-id",
            "bd-2",
        ],
    );
    assert_eq!(s["sessionId"], "hs1_20260201T100000Z_bd-1");
    assert_eq!(s["startedAt"], "2026-02-01T10:00:00Z");
    assert_eq!(s["updatedAt"], "2026-02-01T11:30:00Z");
    assert_eq!(s["stoppedAt"], "2026-02-01T11:30:00Z");
    assert_eq!(s["summary"], "second");
    assert_eq!(s["nextStep"], "run tests");
    assert_eq!(s["issueId"], "bd-2");
    // Not given: kept.
    assert_eq!(s["witnessRefs"], json!(["w://1"]));

    // Staying stopped keeps stoppedAt; blank inputs do not clear stored values.
    let s = write(
        &test,
        "2026-02-01T12:00:00Z",
        &[
            "--state",
            "stopped",
            "--summary",
            " ",
            "--witness-ref",
            "w://2",
        ],
    );
    assert_eq!(s["stoppedAt"], "2026-02-01T11:30:00Z");
    assert_eq!(s["updatedAt"], "2026-02-01T12:00:00Z");
    assert_eq!(s["summary"], "second");
    assert_eq!(s["witnessRefs"], json!(["w://2"]));

    // Back to active drops stoppedAt; an explicit session id overrides.
    let s = write(
        &test,
        "2026-02-01T13:00:00Z",
        &["--state", "active", "--session-id", "custom-1"],
    );
    assert!(s.get("stoppedAt").is_none());
    assert_eq!(s["sessionId"], "custom-1");
    assert_eq!(s["startedAt"], "2026-02-01T10:00:00Z");
    let s = write(&test, "2026-02-01T14:00:00Z", &["--state", "active"]);
    assert_eq!(s["sessionId"], "custom-1");
}

#[test]
fn real_clock_refreshes_updated_at() {
    let test = Test::new();
    let a = test
        .run(&["harness-session", "write", "--state", "active", "--json"])
        .status(0)
        .json();
    // Timestamps are whole seconds (as the reference's): wait for the next one.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let b = test
        .run(&["harness-session", "write", "--state", "active", "--json"])
        .status(0)
        .json();
    let (a, b) = (&a["session"], &b["session"]);
    assert_eq!(a["startedAt"], b["startedAt"]);
    assert_eq!(a["sessionId"], b["sessionId"]);
    assert!(a["updatedAt"].is_string());
    assert_ne!(a["updatedAt"], b["updatedAt"]);
}

#[test]
fn unknown_members_survive_an_update() {
    let test = Test::new();
    test.write(S, r#"{"schema":1,"sessionKind":"premath.harness.session.v1","sessionId":"s1","state":"active",
        "startedAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z","x-extension":{"keep":[1,2]}}"#);
    let s = write(&test, "2026-02-01T00:00:00Z", &["--state", "active"]);
    assert_eq!(s["x-extension"], json!({"keep": [1, 2]}));
    assert_eq!(s["sessionId"], "s1");
}

#[test]
fn malformed_session_is_exit_2_never_a_fresh_start() {
    let good = r#"{"schema":1,"sessionKind":"premath.harness.session.v1","sessionId":"s1","state":"active","startedAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}"#;
    for (bad, needle) in [
        ("{\"schema\":1,", "not valid JSON"),
        ("", "not valid JSON"),
        ("[]", "JSON object"),
        (&good.replace("\"active\"", "\"paused\""), "state"),
        (
            &good.replace(
                "2026-01-01T00:00:00Z\",\"updatedAt",
                "2026-01-01 noon\",\"updatedAt",
            ),
            "startedAt",
        ),
        (&good.replace("\"schema\":1", "\"schema\":2"), "schema"),
        (&good.replace("session.v1", "session.v0"), "sessionKind"),
        (&good.replace(",\"sessionId\":\"s1\"", ""), "sessionId"),
        (&good.replace("}", ",\"witnessRefs\":\"w\"}"), "witnessRefs"),
    ] {
        let test = Test::new();
        test.write(S, bad);
        test.run(&["harness-session", "read", "--json"])
            .error(2, needle);
        test.run(&["harness-session", "bootstrap", "--json"])
            .error(2, needle);
        test.run(&["harness-session", "write", "--state", "active", "--json"])
            .error(2, needle);
        assert_eq!(
            test.read(S),
            bad,
            "the malformed file must be left as it was"
        );
    }
}

#[test]
fn bad_flag_values_are_exit_2() {
    let test = Test::new();
    test.run(&["harness-session", "write", "--state", "paused"])
        .error(2, "--state");
    test.run(&[
        "harness-session",
        "write",
        "--state",
        "active",
        "--now",
        "yesterday",
    ])
    .error(2, "--now");
    assert!(!test.path(S).exists());
    // Without --state the session is written stopped (as premath).
    let s = write(&test, "2026-02-01T10:00:00Z", &[]);
    assert_eq!(s["state"], "stopped");
    assert_eq!(s["stoppedAt"], "2026-02-01T10:00:00Z");
}

#[test]
fn read_prints_the_session_and_missing_is_refused() {
    let test = Test::new();
    test.run(&["harness-session", "read", "--json"])
        .error(1, "no session");
    let s = write(
        &test,
        "2026-02-01T10:00:00Z",
        &["--state", "active", "--summary", "hello"],
    );
    let read = test
        .run(&["harness-session", "read", "--json"])
        .status(0)
        .json();
    assert_eq!(read["action"], "harness-session.read");
    assert_eq!(read["path"], S);
    assert_eq!(read["session"], s);
    let text = test.run(&["harness-session", "read"]).status(0).stdout();
    assert_eq!(
        text,
        format!(
            "premath harness-session read\n  Session ID: hs1_20260201T100000Z_none\n  State: active\n  Path: {S}\n"
        )
    );
    // --path elsewhere.
    let other = test.path("elsewhere/s.json");
    let other = other.to_str().unwrap();
    test.run(&[
        "harness-session",
        "write",
        "--path",
        other,
        "--state",
        "stopped",
    ])
    .status(0);
    let s = test
        .run(&["harness-session", "read", "--path", other, "--json"])
        .status(0)
        .json();
    assert_eq!(s["session"]["state"], "stopped");
    assert_eq!(s["path"], other);
}

#[test]
fn bootstrap_modes_and_feature_projection() {
    let test = Test::new();
    let b = test
        .run(&["harness-session", "bootstrap", "--json"])
        .status(0)
        .json();
    assert_eq!(b["mode"], "fresh");
    assert_eq!(b["bootstrapKind"], "premath.harness.bootstrap.v1");
    // premath's members are all there, null for what a fresh start lacks.
    assert!(
        b["sessionId"].is_null() && b["featureCount"].is_null(),
        "{b:#}"
    );
    assert_eq!(b["action"], "harness-session.bootstrap");
    assert_eq!(b["sessionRef"], S);
    assert_eq!(b["instructionRefs"], json!([]));

    write(
        &test,
        "2026-02-01T10:00:00Z",
        &[
            "--state",
            "active",
            "--issue-id",
            "bd-3",
            "--summary",
            "working",
            "--next-step",
            "verify",
        ],
    );
    let b = test
        .run(&["harness-session", "bootstrap", "--json"])
        .status(0)
        .json();
    assert_eq!(b["mode"], "attach");
    assert_eq!(b["issueId"], "bd-3");
    assert_eq!(b["summary"], "working");
    assert_eq!(b["nextStep"], "verify");

    write(&test, "2026-02-01T11:00:00Z", &["--state", "stopped"]);
    let led = ".premath/harness_feature_ledger.json";
    test.run(&[
        "harness-feature",
        "write",
        "--path",
        led,
        "--feature-id",
        "f1",
        "--status",
        "completed",
        "--verification-ref",
        "ci://1",
    ])
    .status(0);
    test.run(&[
        "harness-feature",
        "write",
        "--path",
        led,
        "--feature-id",
        "f2",
        "--status",
        "pending",
    ])
    .status(0);
    let b = test
        .run(&["harness-session", "bootstrap", "--json"])
        .status(0)
        .json();
    assert_eq!(b["mode"], "resume");
    assert_eq!(b["stoppedAt"], "2026-02-01T11:00:00Z");
    assert_eq!(b["nextFeatureId"], "f2");
    assert_eq!(b["featureClosureComplete"], false);
    assert_eq!(b["featureCount"], 2);

    // An explicit ledger path; all closed → no next feature.
    let other = test.path("other-ledger.json");
    let other = other.to_str().unwrap();
    test.run(&[
        "harness-feature",
        "write",
        "--path",
        other,
        "--feature-id",
        "g",
        "--status",
        "completed",
        "--verification-ref",
        "ci://2",
    ])
    .status(0);
    let b = test
        .run(&[
            "harness-session",
            "bootstrap",
            "--feature-ledger",
            other,
            "--json",
        ])
        .status(0)
        .json();
    assert_eq!(b["featureClosureComplete"], true);
    assert_eq!(b["featureCount"], 1);
    assert!(b["nextFeatureId"].is_null());

    // A broken ledger is unusable input, not "no ledger".
    test.write(led, "{\"schema\":1");
    test.run(&["harness-session", "bootstrap", "--json"])
        .error(2, "failed to project harness feature ledger .premath/harness_feature_ledger.json: unable to parse");
    // So is one its check rejects (as the reference): a completed feature
    // without a verification ref, or no feature at all.
    test.write(
        led,
        r#"{"schema":1,"ledgerKind":"premath.harness.feature_ledger.v1","updatedAt":"t","features":[{"featureId":"a","status":"completed","updatedAt":"t"}]}"#,
    );
    test.run(&["harness-session", "bootstrap", "--json"]).error(
        2,
        "ledger rejected: harness_feature_ledger.completed_missing_verification_ref",
    );
    test.write(
        led,
        r#"{"schema":1,"ledgerKind":"premath.harness.feature_ledger.v1","updatedAt":"t","features":[]}"#,
    );
    test.run(&["harness-session", "bootstrap"])
        .error(2, "ledger rejected: harness_feature_ledger.empty");

    let text = test
        .run(&["harness-session", "bootstrap", "--feature-ledger", other])
        .status(0)
        .stdout();
    assert!(
        text.starts_with(&format!(
            "premath harness-session bootstrap\n  Session Ref: {S}\n  Mode: resume\n"
        )),
        "{text}"
    );
}

const ISSUES: &str = ".premath/issues.jsonl";

fn snapshot(test: &Test, now: &str) -> String {
    let s = write(test, now, &["--state", "active", "--issues", ISSUES]);
    assert_eq!(s["issuesPath"], ISSUES);
    s["issuesSnapshotRef"]
        .as_str()
        .expect("snapshot ref")
        .to_string()
}

#[test]
fn issues_snapshot_ref_is_stable_and_moves_with_every_mutation() {
    let test = Test::new();
    // No store: the path is recorded, no ref (as the reference).
    let s = write(
        &test,
        "2026-02-01T09:00:00Z",
        &["--state", "active", "--issues", ISSUES],
    );
    assert_eq!(s["issuesPath"], ISSUES);
    assert!(s.get("issuesSnapshotRef").is_none(), "{s}");
    // An empty store has the digest of nothing.
    test.write(ISSUES, "");
    let empty = snapshot(&test, "2026-02-01T10:00:00Z");
    assert_eq!(
        empty,
        "iss1_e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );

    let a = r#"{"id":"bd-1","title":"A","status":"open","dependencies":[{"issue_id":"bd-1","depends_on_id":"bd-2","type":"blocks"},{"issue_id":"bd-1","depends_on_id":"bd-0","type":"related"}]}"#;
    let b = r#"{"id":"bd-2","title":"B","status":"open"}"#;
    test.write(ISSUES, &format!("{a}\n{b}\n"));
    let r1 = snapshot(&test, "2026-02-01T10:01:00Z");
    assert_ne!(r1, empty);
    assert!(r1.starts_with("iss1_") && r1.len() == 5 + 64, "{r1}");
    // Unchanged store: same ref, on every write.
    assert_eq!(snapshot(&test, "2026-02-01T10:02:00Z"), r1);
    // Same memory in another layout (line order, key order, dependency order, an
    // overridden duplicate line, blank lines): same ref.
    let a_reordered = r#"{"dependencies":[{"depends_on_id":"bd-0","issue_id":"bd-1","type":"related"},{"type":"blocks","issue_id":"bd-1","depends_on_id":"bd-2"}],"status":"open","title":"A","id":"bd-1"}"#;
    test.write(
        ISSUES,
        &format!("{b}\n\n{{\"id\":\"bd-1\",\"title\":\"old\"}}\n{a_reordered}\n"),
    );
    assert_eq!(snapshot(&test, "2026-02-01T10:03:00Z"), r1);

    // Any mutation moves it: a status change, a new issue, a removed dependency.
    let mut seen = vec![empty.clone(), r1.clone()];
    for store in [
        format!("{}\n{b}\n", a.replace("\"open\"", "\"in_progress\"")),
        format!("{a}\n{b}\n{}\n", r#"{"id":"bd-3","title":"C"}"#),
        format!(
            "{}\n{b}\n",
            r#"{"id":"bd-1","title":"A","status":"open","dependencies":[{"issue_id":"bd-1","depends_on_id":"bd-2","type":"blocks"}]}"#
        ),
    ] {
        test.write(ISSUES, &store);
        let r = snapshot(&test, "2026-02-01T10:04:00Z");
        assert!(!seen.contains(&r), "ref did not change for {store}");
        seen.push(r);
    }

    // A store that does not load records the path and no ref (as the
    // reference), never a stale one.
    test.write(ISSUES, &format!("{a}\nnot json\n"));
    let s = write(&test, "2026-02-01T10:05:00Z", &["--state", "active"]);
    assert_eq!(s["issuesPath"], ISSUES);
    assert!(s.get("issuesSnapshotRef").is_none(), "{s}");

    // Every write records the --issues path (default .premath/issues.jsonl),
    // replacing the stored one; --issues-path is the older spelling.
    test.write(ISSUES, &format!("{a}\n{b}\n"));
    let s = write(&test, "2026-02-01T10:06:00Z", &["--state", "stopped"]);
    assert_eq!(s["issuesPath"], ISSUES);
    assert_eq!(s["issuesSnapshotRef"], r1.as_str());
    test.write("other/issues.jsonl", b);
    let s = write(
        &test,
        "2026-02-01T10:07:00Z",
        &["--state", "stopped", "--issues", " other/issues.jsonl "],
    );
    assert_eq!(s["issuesPath"], "other/issues.jsonl");
    assert!(!seen.contains(&s["issuesSnapshotRef"].as_str().unwrap().to_string()));
    let s = write(
        &test,
        "2026-02-01T10:08:00Z",
        &["--state", "stopped", "--issues-path", "missing.jsonl"],
    );
    assert_eq!(s["issuesPath"], "missing.jsonl");
    assert!(s.get("issuesSnapshotRef").is_none(), "{s}");
}

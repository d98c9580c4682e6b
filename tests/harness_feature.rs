//! `tusk harness-feature write|check|next` through the binary.

mod harness_support;

use harness_support::Sandbox;
use serde_json::{json, Value};

const L: &str = ".premath/harness_feature_ledger.json";

fn fw(sb: &Sandbox, args: &[&str]) -> harness_support::Run {
    let mut all = vec![
        "harness-feature",
        "write",
        "--now",
        "2026-02-01T10:00:00Z",
        "--json",
    ];
    all.extend_from_slice(args);
    sb.tusk(&all)
}

#[test]
fn write_upserts_in_order_and_keeps_what_is_not_given() {
    let sb = Sandbox::new();
    fw(&sb, &["--feature-id", "f1"]).expect_error(2, "title");
    assert!(!sb.path(L).exists());
    let out = fw(
        &sb,
        &[
            "--feature-id",
            "f1",
            "--title",
            " Parser ",
            "--issue-id",
            "bd-1",
        ],
    )
    .expect(0)
    .json();
    assert_eq!(
        out["feature"],
        json!({"featureId": "f1", "title": "Parser", "state": "pending", "issueId": "bd-1", "updatedAt": "2026-02-01T10:00:00Z"})
    );
    assert_eq!(out["nextFeatureId"], "f1");
    fw(&sb, &["--feature-id", "f2", "--title", "Printer"]).expect(0);
    let out = sb
        .tusk(&[
            "harness-feature",
            "write",
            "--feature-id",
            "f1",
            "--state",
            "in_progress",
            "--now",
            "2026-02-02T00:00:00+00:00",
            "--json",
        ])
        .expect(0)
        .json();
    assert_eq!(
        out["feature"],
        json!({"featureId": "f1", "title": "Parser", "state": "in_progress", "issueId": "bd-1", "updatedAt": "2026-02-02T00:00:00Z"})
    );
    let ledger: Value = serde_json::from_str(&sb.read(L)).unwrap();
    assert_eq!(ledger["schema"], 1);
    assert_eq!(ledger["ledgerKind"], "premath.harness.feature_ledger.v1");
    let ids: Vec<_> = ledger["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["featureId"].clone())
        .collect();
    assert_eq!(ids, [json!("f1"), json!("f2")]);
    fw(&sb, &["--feature-id", "f1", "--state", "done"]).expect_error(2, "--state");
    fw(&sb, &["--feature-id", " ", "--title", "x"]).expect_error(2, "featureId");
}

#[test]
fn closing_requires_a_verification_ref() {
    let sb = Sandbox::new();
    fw(&sb, &["--feature-id", "f1", "--title", "one"]).expect(0);
    let before = sb.read(L);
    fw(&sb, &["--feature-id", "f1", "--state", "closed"]).expect_error(1, "verification");
    fw(
        &sb,
        &[
            "--feature-id",
            "f1",
            "--state",
            "closed",
            "--verification-ref",
            "  ",
        ],
    )
    .expect_error(1, "verification");
    assert_eq!(sb.read(L), before, "a refused write changes nothing");
    // A new feature cannot be born closed without one either.
    fw(
        &sb,
        &["--feature-id", "f9", "--title", "nine", "--state", "closed"],
    )
    .expect_error(1, "verification");
    let out = fw(
        &sb,
        &[
            "--feature-id",
            "f1",
            "--state",
            "closed",
            "--verification-ref",
            "ci://b",
            "--verification-ref",
            " ci://a",
            "--verification-ref",
            "ci://b",
        ],
    )
    .expect(0)
    .json();
    assert_eq!(
        out["feature"]["verificationRefs"],
        json!(["ci://a", "ci://b"])
    );
    assert_eq!(out["featureClosureComplete"], true);
    // Refs stored earlier satisfy a later close.
    fw(
        &sb,
        &[
            "--feature-id",
            "f2",
            "--title",
            "two",
            "--verification-ref",
            "ci://c",
        ],
    )
    .expect(0);
    let out = fw(&sb, &["--feature-id", "f2", "--state", "closed"])
        .expect(0)
        .json();
    assert_eq!(out["feature"]["verificationRefs"], json!(["ci://c"]));
}

#[test]
fn next_returns_the_first_open_feature() {
    let sb = Sandbox::new();
    sb.tusk(&["harness-feature", "next"])
        .expect_error(2, "no feature ledger");
    fw(
        &sb,
        &[
            "--feature-id",
            "a",
            "--title",
            "A",
            "--state",
            "closed",
            "--verification-ref",
            "v://1",
        ],
    )
    .expect(0);
    fw(
        &sb,
        &[
            "--feature-id",
            "b",
            "--title",
            "B",
            "--state",
            "in_progress",
        ],
    )
    .expect(0);
    fw(&sb, &["--feature-id", "c", "--title", "C"]).expect(0);
    let n = sb
        .tusk(&["harness-feature", "next", "--json"])
        .expect(0)
        .json();
    assert_eq!(n["nextFeatureId"], "b");
    assert_eq!(n["nextFeature"]["title"], "B");
    assert_eq!(
        (n["featureCount"].clone(), n["closedCount"].clone()),
        (json!(3), json!(1))
    );
    assert_eq!(n["featureClosureComplete"], false);
    assert_eq!(
        sb.tusk(&["harness-feature", "next"])
            .expect(0)
            .stdout
            .trim(),
        "next feature: b (in_progress) B"
    );
    for id in ["b", "c"] {
        fw(
            &sb,
            &[
                "--feature-id",
                id,
                "--state",
                "closed",
                "--verification-ref",
                "v://2",
            ],
        )
        .expect(0);
    }
    let n = sb
        .tusk(&["harness-feature", "next", "--json"])
        .expect(0)
        .json();
    assert_eq!(n["featureClosureComplete"], true);
    assert!(n.get("nextFeatureId").is_none());
    assert_eq!(
        sb.tusk(&["harness-feature", "next"])
            .expect(0)
            .stdout
            .trim(),
        "all 3 features closed"
    );
}

#[test]
fn check_reports_every_problem() {
    let sb = Sandbox::new();
    sb.tusk(&["harness-feature", "check"])
        .expect_error(2, "no feature ledger");
    fw(&sb, &["--feature-id", "a", "--title", "A"]).expect(0);
    let ok = sb
        .tusk(&["harness-feature", "check", "--json"])
        .expect(0)
        .json();
    assert_eq!(ok["result"], "accepted");
    assert_eq!(ok["checkKind"], "premath.harness.feature_ledger.check.v1");
    assert_eq!(ok["failureClasses"], json!([]));

    let bad = json!({"schema": 1, "ledgerKind": "premath.harness.feature_ledger.v1", "features": [
        {"featureId": "a", "title": "A", "state": "closed", "updatedAt": "2026-02-01T00:00:00Z"},
        {"featureId": "a", "title": "A2", "state": "pending", "updatedAt": "2026-02-01T00:00:00Z"},
        {"featureId": "b", "title": "", "state": "blocked", "updatedAt": "yesterday", "verificationRefs": ["z", "a"]}
    ]});
    sb.write(L, &bad.to_string());
    let run = sb.tusk(&["harness-feature", "check", "--json"]).expect(1);
    let report = run.json();
    assert_eq!(report["result"], "rejected");
    assert_eq!(
        report["failureClasses"],
        json!([
            "feature_ledger.duplicate_feature_id",
            "feature_ledger.field_missing",
            "feature_ledger.refs_not_normalized",
            "feature_ledger.state_invalid",
            "feature_ledger.timestamp_invalid",
            "feature_ledger.verification_missing"
        ])
    );
    assert_eq!(report["errors"].as_array().unwrap().len(), 6);
    assert_eq!(report["errors"][0]["index"], 0);
    assert_eq!(report["featureCount"], 3);
    let text = sb.tusk(&["harness-feature", "check"]).expect(1).stdout;
    assert!(
        text.starts_with("harness-feature check: rejected"),
        "{text}"
    );
    assert!(
        text.contains("features[1]: featureId \"a\" appears more than once"),
        "{text}"
    );

    // next and write refuse an invalid ledger instead of acting on it.
    let before = sb.read(L);
    sb.tusk(&["harness-feature", "next"])
        .expect_error(2, "invalid feature ledger");
    fw(&sb, &["--feature-id", "c", "--title", "C"]).expect_error(2, "invalid feature ledger");
    assert_eq!(sb.read(L), before);

    // Not JSON at all: unusable input everywhere.
    sb.write(L, "{\"features\": [");
    for args in [
        &["harness-feature", "check"][..],
        &["harness-feature", "next"],
        &[
            "harness-feature",
            "write",
            "--feature-id",
            "x",
            "--title",
            "x",
        ],
    ] {
        sb.tusk(args).expect_error(2, "not valid JSON");
    }
}

#[test]
fn unknown_members_are_kept() {
    let sb = Sandbox::new();
    sb.write(L, &json!({"schema": 1, "ledgerKind": "premath.harness.feature_ledger.v1", "owner": "team-a", "features": [
        {"featureId": "a", "title": "A", "state": "pending", "updatedAt": "2026-02-01T00:00:00Z", "estimate": 3}
    ]}).to_string());
    fw(&sb, &["--feature-id", "a", "--state", "in_progress"]).expect(0);
    let ledger: Value = serde_json::from_str(&sb.read(L)).unwrap();
    assert_eq!(ledger["owner"], "team-a");
    assert_eq!(ledger["features"][0]["estimate"], 3);
    assert_eq!(ledger["features"][0]["state"], "in_progress");
}

//! Work routing (issue 22): one filter narrows `issue list|ready|blocked`
//! and `claim-next`, the same from the command line and from a program, and
//! workers with disjoint filters drain a store without ever taking each
//! other's work. Runs on PostgreSQL too (`TUSK_TEST_BACKEND=postgres`).

use crate::common::*;
use serde_json::{json, Value};

/// A JSON value as a Scheme expression building it.
fn scheme(v: &Value) -> String {
    match v {
        Value::String(s) => serde_json::to_string(s).unwrap(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => if *b { "#t" } else { "#f" }.to_string(),
        Value::Array(items) => format!(
            "(list {})",
            items.iter().map(scheme).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(map) => format!(
            "(hash {})",
            map.iter()
                .map(|(k, v)| format!("{} {}", serde_json::to_string(k).unwrap(), scheme(v)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Value::Null => "(void)".to_string(),
    }
}

fn child_of(parent: &str, id: &str) -> Value {
    json!({"issue_id": id, "depends_on_id": parent, "type": "parent-child"})
}

fn store() -> Test {
    Test::new().issues(&[
        issue_with(
            "p",
            json!({"status": "closed", "issue_type": "epic", "title": "Epic"}),
        ),
        issue_with(
            "a",
            json!({"issue_type": "feature", "priority": 1, "labels": ["frontend", "ui"],
                   "title": "Fix Button color", "dependencies": [child_of("p", "a")]}),
        ),
        issue_with(
            "b",
            json!({"issue_type": "bug", "labels": ["backend"], "assignee": "alice"}),
        ),
        issue_with(
            "c",
            json!({"priority": 3, "labels": ["frontend", "review"], "dependencies": [child_of("p", "c")]}),
        ),
        issue_with(
            "web-1",
            json!({"priority": 0, "labels": ["ui"], "description": "The NAV bar",
                   "created_at": "2026-03-01T00:00:00Z", "updated_at": "2026-03-02T00:00:00Z"}),
        ),
        issue_with(
            "d",
            json!({"labels": ["backend"], "dependencies": [blocks("d", "b")]}),
        ),
    ])
}

#[test]
fn every_filter_narrows_the_views_and_its_host_action_twin_agrees() {
    let test = store();
    // (flags, the same filter as the host action's argument, ready ids)
    let cases: Vec<(Vec<&str>, Value, Vec<&str>)> = vec![
        (vec![], json!({}), vec!["web-1", "a", "b", "c"]),
        (
            vec!["--label", "frontend"],
            json!({"labels": ["frontend"]}),
            vec!["a", "c"],
        ),
        (
            vec!["--label", "frontend", "--label", "review"],
            json!({"labels": ["frontend", "review"]}),
            vec!["c"],
        ),
        (
            vec!["--label-any", "ui", "--label-any", "backend"],
            json!({"labelsAny": ["ui", "backend"]}),
            vec!["web-1", "a", "b"],
        ),
        (
            vec!["--exclude-label", "frontend"],
            json!({"excludeLabels": ["frontend"]}),
            vec!["web-1", "b"],
        ),
        (vec!["--type", "bug"], json!({"types": ["bug"]}), vec!["b"]),
        (
            vec!["--type", "bug", "--type", "feature"],
            json!({"types": ["bug", "feature"]}),
            vec!["a", "b"],
        ),
        (
            vec!["--priority-min", "1", "--priority-max", "2"],
            json!({"priorityMin": 1, "priorityMax": 2}),
            vec!["a", "b"],
        ),
        (
            vec!["--unassigned"],
            json!({"unassigned": true}),
            vec!["web-1", "a", "c"],
        ),
        (
            vec!["--id-prefix", "web-"],
            json!({"idPrefix": "web-"}),
            vec!["web-1"],
        ),
        (
            vec!["--title-contains", "BUTTON"],
            json!({"titleContains": "BUTTON"}),
            vec!["a"],
        ),
        (
            vec!["--parent", "p"],
            json!({"parent": "p"}),
            vec!["a", "c"],
        ),
        (
            vec!["--description-contains", "nav"],
            json!({"descriptionContains": "nav"}),
            vec!["web-1"],
        ),
        (
            vec!["--created-after", "2026-02-01T00:00:00Z"],
            json!({"createdAfter": "2026-02-01T00:00:00Z"}),
            vec!["web-1"],
        ),
        (
            vec!["--updated-before", "2026-03-02T00:00:00+00:00"],
            json!({"updatedBefore": "2026-03-02T00:00:00+00:00"}),
            vec![],
        ),
        (
            vec![
                "--updated-after",
                "2026-03-02T00:00:00Z",
                "--updated-before",
                "2026-03-03T00:00:00Z",
            ],
            json!({"updatedAfter": "2026-03-02T00:00:00Z", "updatedBefore": "2026-03-03T00:00:00Z"}),
            vec!["web-1"],
        ),
    ];
    for (flags, filter, want) in cases {
        let mut args = vec!["issue", "ready"];
        args.extend(&flags);
        let v = test.store(&args).ok();
        assert_eq!(ids(&v), want, "{flags:?}");
        assert_eq!(v["count"], want.len());
        let r = test.eval_with_authority(&format!(
            "(issue.ready (hash \"filter\" {}))",
            scheme(&filter)
        ));
        assert_eq!(r["result"], "accepted", "{filter}: {r:#}");
        assert_eq!(ids(&r["value"]["payload"]), want, "host {filter}");
    }
    // list and blocked take the same filter (list sees closed and blocked issues).
    let v = test.store(&["issue", "list", "--label", "backend"]).ok();
    assert_eq!(ids(&v), ["b", "d"]);
    let v = test
        .store(&["issue", "list", "--parent", "p", "--status", "open"])
        .ok();
    assert_eq!(ids(&v), ["a", "c"]);
    let v = test.store(&["issue", "blocked", "--label", "backend"]).ok();
    assert_eq!(ids(&v), ["d"]);
    assert!(ids(&test.store(&["issue", "blocked", "--label", "ui"]).ok()).is_empty());
    let r = test
        .eval_with_authority(r#"(issue.list (hash "filter" (hash "labels" (list "backend"))))"#);
    assert_eq!(ids(&r["value"]["payload"]), ["b", "d"]);
    let r = test.eval_with_authority(
        r#"(issue.blocked (hash "filter" (hash "labelsAny" (list "backend"))))"#,
    );
    assert_eq!(ids(&r["value"]["payload"]), ["d"]);
    // The lease projection too: two leases, one per role.
    test.store(&["issue", "claim", "a", "--assignee", "web.1"])
        .ok();
    test.store(&["issue", "claim", "b", "--assignee", "alice"])
        .ok();
    assert_eq!(
        ids(&test.store(&["issue", "lease-projection"]).ok()),
        ["a", "b"]
    );
    let v = test
        .store(&["issue", "lease-projection", "--label", "frontend"])
        .ok();
    assert_eq!(ids(&v), ["a"]);
    let r = test.eval_with_authority(
        r#"(issue.lease_projection (hash "filter" (hash "labels" (list "backend"))))"#,
    );
    assert_eq!(ids(&r["value"]["payload"]), ["b"]);
}

#[test]
fn a_filter_that_cannot_be_meant_is_refused() {
    let test = store();
    let (code, v) = test
        .store(&[
            "issue",
            "ready",
            "--priority-min",
            "3",
            "--priority-max",
            "1",
        ])
        .reply();
    assert_eq!(code, 2);
    assert_eq!(v["class"], "cli.invalid_value");
    assert!(
        v["message"].as_str().unwrap().contains("priorityMin"),
        "{v}"
    );
    let (code, _) = test
        .store(&["issue", "claim-next", "--assignee", "w", "--label", " "])
        .reply();
    assert_eq!(code, 2);
    for program in [
        r#"(issue.ready (hash "filter" (hash "labelz" (list "ui"))))"#,
        r#"(issue.ready (hash "filter" (hash "priorityMin" 3 "priorityMax" 1)))"#,
        r#"(issue.claim_next (hash "assignee" "w" "filter" (hash "unassigned" #t "assignee" "x")))"#,
        r#"(issue.ready (hash "filter" (hash "createdAfter" "yesterday")))"#,
    ] {
        let r = test.eval_with_authority(program);
        assert_eq!(r["result"], "rejected", "{program}: {r:#}");
        assert_eq!(
            r["failureClasses"],
            json!(["host.args_invalid"]),
            "{program}"
        );
    }
    // Nothing was claimed by the refused claim.
    assert!(test.store_lines().iter().all(|i| i.get("lease").is_none()));
}

/// Claims with `claim-next` and `filter` until nothing is left; the ids taken.
fn drain(test: &Test, worker: &str, flags: &[&str]) -> Vec<String> {
    let mut taken = Vec::new();
    loop {
        let mut args = vec!["issue", "claim-next", "--assignee", worker];
        args.extend(flags);
        let v = test.store(&args).ok();
        if v["claimed"] == false {
            return taken;
        }
        taken.push(v["issue"]["id"].as_str().unwrap().to_string());
    }
}

#[test]
fn workers_with_disjoint_filters_drain_only_their_own_work() {
    let mut issues = Vec::new();
    for n in 0..12 {
        let group = ["ui", "api", "docs"][n % 3];
        issues.push(issue_with(
            &format!("bd-{n}"),
            json!({"labels": [group], "priority": n % 4}),
        ));
    }
    let test = Test::new().issues(&issues);
    let taken: Vec<(String, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = ["ui", "api"]
            .into_iter()
            .map(|group| {
                let test = &test;
                s.spawn(move || {
                    let worker = format!("agent.{group}");
                    (group.to_string(), drain(test, &worker, &["--label", group]))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (group, ids) in &taken {
        assert_eq!(ids.len(), 4, "{group}: {ids:?}");
        for id in ids {
            let stored = test.stored(id);
            assert_eq!(stored["labels"], json!([group]), "{group} took {id}");
            assert_eq!(stored["assignee"], format!("agent.{group}"));
        }
    }
    // The docs group is untouched, and a program routes the same way.
    let r = test.eval_with_authority(
        r#"(issue.claim_next (hash "assignee" "agent.docs" "filter" (hash "labels" (list "docs"))))"#,
    );
    let claimed = r["value"]["payload"]["issue"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(test.stored(&claimed)["labels"], json!(["docs"]));
    assert_eq!(drain(&test, "agent.docs", &["--label", "docs"]).len(), 3);
    assert!(drain(&test, "agent.any", &[]).is_empty());
}

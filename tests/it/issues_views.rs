//! Read views through the binary: ready, blocked, list, show, check, dep
//! diagnostics, absent and corrupt stores.

use crate::common::*;
use serde_json::{json, Value};

#[test]
fn absent_store_read_is_an_error_and_nothing_is_created() {
    let test = Test::new();
    if test.is_file() {
        // A typo in --issues must not read as an empty queue: premath's
        // message, exit 1, and a JSON error naming the fix.
        for args in [
            &["issue", "ready"][..],
            &["issue", "blocked"],
            &["issue", "list"],
            &["issue", "check"],
            &["issue", "show", "bd-1"],
            &["issue", "lease-projection"],
            &["dep", "diagnostics"],
            &["dep", "project"],
        ] {
            let v = test.store(args).rejected(&["issue_store.not_found"]);
            assert_eq!(v["class"], "issue_store.not_found");
            assert!(v["hint"].as_str().unwrap().contains("tusk init"), "{v:#}");
            assert_eq!(
                v["message"],
                format!("issues file not found: {}", test.issues_path().display())
            );
            let text = test.store_raw(args).run();
            assert_eq!(text.status.code(), Some(1));
            assert!(String::from_utf8_lossy(&text.stderr).contains("issues file not found"));
        }
    } else {
        // A database always has its store: an empty one reads as empty.
        for view in ["ready", "blocked", "list"] {
            let v = test.store(&["issue", view]).ok();
            assert_eq!(v["count"], 0);
            assert_eq!(v["items"], json!([]));
            assert_eq!(v["action"], format!("issue.{view}"));
            assert_eq!(v["issuesPath"], test.issues_path().display().to_string());
        }
        assert_eq!(test.store(&["issue", "check"]).ok()["issueCount"], 0);
        assert_eq!(
            test.store(&["dep", "diagnostics"]).ok()["cycles"],
            json!([])
        );
        test.store(&["issue", "show", "bd-1"])
            .rejected(&["issue.not_found"]);
    }
    // A rejected mutation on an absent store creates nothing either.
    test.store(&["issue", "claim", "bd-1", "--assignee", "a"])
        .rejected(&["issue.not_found", "lease_not_found"]);
    if test.is_file() {
        assert!(!test.issues_path().parent().unwrap().exists());
    } else {
        assert_eq!(test.store_text(), "");
    }
}

#[test]
fn ready_is_open_and_unblocked_in_priority_then_id_order() {
    let test = Test::new().issues(&[
        issue_with("c", json!({"priority": 1})),
        issue_with("b", json!({"priority": 1})),
        issue_with("a", json!({"priority": 3})),
        issue_with("z", json!({"priority": 0, "status": "in_progress"})),
        issue_with(
            "d",
            json!({"priority": 0, "dependencies": [blocks("d", "done")]}),
        ),
        issue_with("done", json!({"status": "closed"})),
        issue_with(
            "e",
            json!({"priority": 0, "dependencies": [blocks("e", "b")]}),
        ),
        issue_with(
            "m",
            json!({"priority": 0, "dependencies": [blocks("m", "missing")]}),
        ),
        issue_with(
            "r",
            json!({"priority": 4, "dependencies": [{"issue_id": "r", "depends_on_id": "b", "type": "related"}]}),
        ),
        issue_with(
            "p",
            json!({"dependencies": [{"issue_id": "p", "depends_on_id": "b", "type": "parent-child"}]}),
        ),
        issue_with("x", json!({"status": "deferred"})),
        json!({"id": "dflt", "title": "defaults to open, priority 2"}),
    ]);
    let v = test.store(&["issue", "ready"]).ok();
    // d: its blocker is closed; e, m, p: blocked (open / missing target / parent-child
    // is blocking); r: `related` does not block; z, x, done: not open.
    assert_eq!(ids(&v), ["d", "b", "c", "dflt", "a", "r"]);
    assert_eq!(v["count"], 6);
    // premath's ready item: {id, priority, status, title}, defaults filled in.
    assert_eq!(
        v["items"][3],
        json!({"id": "dflt", "priority": 2, "status": "open", "title": "defaults to open, priority 2"})
    );
    assert_eq!(
        v["items"][0],
        json!({"id": "d", "title": "Issue d", "status": "open", "priority": 0})
    );
}

#[test]
fn ready_and_list_order_ids_naturally_within_a_priority() {
    let test = Test::new().issues(&[
        issue("bd-10"),
        issue("bd-2"),
        issue("bd-1"),
        issue_with("bd-100", json!({"priority": 1})),
        issue("bd-02"),
    ]);
    // Equal numbers (bd-02, bd-2) fall back to byte order.
    let want = ["bd-100", "bd-1", "bd-02", "bd-2", "bd-10"];
    assert_eq!(ids(&test.store(&["issue", "ready"]).ok()), want);
    assert_eq!(ids(&test.store(&["issue", "list"]).ok()), want);
}

#[test]
fn blocked_lists_blockers_and_manual_blocks() {
    let test = Test::new().issues(&[
        issue("a"),
        issue_with(
            "b",
            json!({"dependencies": [blocks("b", "a"), blocks("b", "gone"), blocks("b", "c")]}),
        ),
        issue_with("c", json!({"status": "closed"})),
        issue_with("m", json!({"status": "blocked", "priority": 0})),
        issue_with(
            "closed-blocked",
            json!({"status": "closed", "dependencies": [blocks("closed-blocked", "a")]}),
        ),
        issue_with("deferred", json!({"status": "deferred"})),
        issue_with(
            "w",
            json!({"priority": 4, "dependencies": [{"issue_id": "w", "depends_on_id": "deferred", "type": "waits-for"}]}),
        ),
    ]);
    let v = test.store(&["issue", "blocked"]).ok();
    // `deferred` is kept as it is and counts as not closed, so it blocks w.
    assert_eq!(ids(&v), ["m", "b", "w"]);
    assert_eq!(v["items"][2]["blockers"][0]["blockerStatus"], "deferred");
    assert_eq!(v["items"][0]["manualBlocked"], true);
    assert_eq!(v["items"][0]["blockers"], json!([]));
    assert_eq!(v["items"][1]["manualBlocked"], false);
    assert_eq!(
        v["items"][1]["blockers"],
        json!([
            {"issueId": "b", "dependsOnId": "a", "type": "blocks", "blockerStatus": "open", "blockerMissing": false, "createdBy": ""},
            {"issueId": "b", "dependsOnId": "gone", "type": "blocks", "blockerStatus": null, "blockerMissing": true, "createdBy": ""},
        ])
    );
    // premath's blocked item: {blockers, id, manualBlocked, priority, status, title}.
    assert_eq!(
        v["items"][0],
        json!({"blockers": [], "id": "m", "manualBlocked": true, "priority": 0,
               "status": "blocked", "title": "Issue m"})
    );
    // An edge's `created_by` is carried as `createdBy`.
    let test = Test::new().issues(&[
        issue("a"),
        issue_with(
            "b",
            json!({"dependencies": [{"issue_id": "b", "depends_on_id": "a", "type": "blocks", "created_by": "planner"}]}),
        ),
    ]);
    assert_eq!(
        test.store(&["issue", "blocked"]).ok()["items"][0]["blockers"][0]["createdBy"],
        "planner"
    );
}

#[test]
fn list_filters_and_lease_counts() {
    let test = Test::new().issues(&[
        issue_with(
            "a",
            json!({"labels": ["ui", "p"], "assignee": "x", "issue_type": "bug"}),
        ),
        issue_with(
            "b",
            json!({"labels": ["ui"], "priority": 0, "status": "in_progress", "assignee": "y",
                                 "lease": lease("y", "l-b", true)}),
        ),
        issue_with(
            "c",
            json!({"status": "in_progress", "assignee": "z", "lease": lease("z", "l-c", false)}),
        ),
        issue_with(
            "d",
            json!({"status": "in_progress", "assignee": "q", "lease": lease("other", "l-d", true)}),
        ),
    ]);
    let all = test.store(&["issue", "list"]).ok();
    // Priority first (b is 0), then id.
    assert_eq!(ids(&all), ["b", "a", "c", "d"]);
    assert_eq!(
        all["leaseCounts"],
        json!({"active": 2, "stale": 1, "contended": 1, "unleased": 1})
    );
    // premath's list item: {assignee, id, issueType, priority, status, title}.
    assert_eq!(
        all["items"][1],
        json!({"assignee": "x", "id": "a", "issueType": "bug", "priority": 2,
               "status": "open", "title": "Issue a"})
    );
    assert_eq!(
        all["items"][0],
        json!({"assignee": "y", "id": "b", "issueType": "task", "priority": 0,
               "status": "in_progress", "title": "Issue b"})
    );
    assert_eq!(
        ids(&test.store(&["issue", "list", "--label", "ui"]).ok()),
        ["b", "a"]
    );
    assert_eq!(
        ids(&test
            .store(&["issue", "list", "--status", "in_progress"])
            .ok()),
        ["b", "c", "d"]
    );
    assert_eq!(
        ids(&test.store(&["issue", "list", "--assignee", "x"]).ok()),
        ["a"]
    );
    assert_eq!(
        ids(&test.store(&["issue", "list", "--issue-type", "bug"]).ok()),
        ["a"]
    );
    assert_eq!(
        ids(&test.store(&["issue", "list", "--priority", "0"]).ok()),
        ["b"]
    );
    assert_eq!(
        ids(&test
            .store(&["issue", "list", "--label", "ui", "--priority", "2"])
            .ok()),
        ["a"]
    );
}

#[test]
fn show_projects_the_last_line_and_raw_prints_it_as_stored() {
    let last = "{\"id\":\"a\",\"title\":\"new\",\"x_custom\":7,\"dependencies\":[{\"issue_id\":\"a\",\"depends_on_id\":\"q\",\"dep_type\":\"blocks\"}]}";
    let test = Test::new().issue_text(&format!(
        "{{\"id\":\"a\",\"title\":\"old\",\"x_custom\":{{\"k\":[1,2]}}}}\n\n{last}\n"
    ));
    let v = test.store(&["issue", "show", "a"]).ok();
    assert_eq!(v["issue"]["title"], "new");
    assert_eq!(v["issue"]["xCustom"], 7);
    assert_eq!(
        v["issue"]["dependencies"],
        json!([{"issueId": "a", "dependsOnId": "q", "depType": "blocks"}])
    );
    assert_eq!(v["leaseState"], "unleased");
    assert_eq!(v["blockers"][0]["blockerMissing"], true);
    assert_eq!(test.store(&["issue", "list"]).ok()["count"], 1);
    // --raw: the winning line, byte for byte, with or without --json.
    for args in [
        &["issue", "show", "a", "--raw"][..],
        &["issue", "show", "a", "--raw", "--json"],
    ] {
        let out = test.store_raw(args).run();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{last}\n"),
            "{args:?}"
        );
    }
}

/// `issue show --json` prints the issue in the camelCase projection `issue
/// claim` and `list` use, every other stored member camelCased too; `--raw`
/// the stored line; an unknown id is rejected as before.
#[test]
fn show_json_is_camel_case_and_raw_is_the_stored_line() {
    let stored = issue_with(
        "a",
        json!({"issue_type": "bug", "acceptance_criteria": "done", "assignee": "w",
               "created_at": "2026-03-01T12:00:00Z", "close_reason": "",
               "lease": lease("w", "L1", true), "labels": ["x"],
               "dependencies": [{"issue_id": "a", "depends_on_id": "b", "type": "blocks",
                                 "created_at": "2026-03-01T12:00:00Z", "created_by": "p"}],
               "comments": [{"id": 1, "issue_id": "a", "author": "w", "text": "hi",
                             "created_at": "2026-03-01T12:30:00Z"}]}),
    );
    let test = Test::new().issues(&[issue("b"), stored.clone()]);
    let v = test.store(&["issue", "show", "a"]).ok();
    let shown = &v["issue"];
    // The claim projection: premath's (A) plus the lease in camelCase.
    let claimed = {
        let mut c = basic(&stored);
        c["lease"] = json!({"acquiredAt": "2020-01-01T00:00:00+00:00",
                            "expiresAt": "2999-01-01T00:00:00+00:00",
                            "leaseId": "L1", "owner": "w", "renewedAt": null});
        c
    };
    for (key, value) in claimed.as_object().unwrap() {
        assert_eq!(&shown[key], value, "{key}: {shown:#}");
    }
    assert_eq!(shown["issueType"], "bug");
    assert_eq!(shown["lease"]["leaseId"], "L1");
    assert_eq!(shown["acceptanceCriteria"], "done");
    assert_eq!(shown["createdAt"], "2026-03-01T12:00:00Z");
    assert_eq!(shown["closeReason"], "");
    assert_eq!(shown["labels"], json!(["x"]));
    assert_eq!(shown["dependencies"][0]["dependsOnId"], "b");
    assert_eq!(shown["dependencies"][0]["createdBy"], "p");
    assert_eq!(shown["comments"][0]["issueId"], "a");
    assert_eq!(shown["comments"][0]["createdAt"], "2026-03-01T12:30:00Z");
    assert_eq!(v["leaseState"], "active");
    assert_eq!(v["action"], "issue.show");
    assert_eq!(v["blockers"][0]["dependsOnId"], "b");
    // No snake_case key anywhere in what --json prints.
    fn keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    out.push(k.clone());
                    keys(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    keys(&v, &mut all);
    let snake: Vec<&String> = all.iter().filter(|k| k.contains('_')).collect();
    assert!(snake.is_empty(), "snake_case keys {snake:?} in {v:#}");
    // Without a lease, `lease` is null as in `issue claim`'s projection.
    assert_eq!(
        test.store(&["issue", "show", "b"]).ok()["issue"]["lease"],
        Value::Null
    );
    // --raw: the stored line byte for byte.
    let line = test
        .store_text()
        .lines()
        .find(|l| l.contains("\"acceptance_criteria\""))
        .unwrap()
        .to_string();
    let out = test.store_raw(&["issue", "show", "a", "--raw"]).run();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{line}\n"));
    // An unknown id: rejected as before, with --json, --raw or neither.
    let rejected = test
        .store(&["issue", "show", "zz"])
        .rejected(&["issue.not_found"]);
    assert_eq!(
        test.store(&["issue", "show", "zz", "--raw"])
            .rejected(&["issue.not_found"]),
        rejected
    );
    let out = test.store_raw(&["issue", "show", "zz", "--raw"]).run();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "issue.show: rejected [issue.not_found]: no issue with id \"zz\"\n"
    );
    // The text (no --json) is for a person: prose as paragraphs.
    let out = test.store_raw(&["issue", "show", "a"]).run();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("acceptance_criteria:\n  done\n"), "{text}");
    assert!(text.contains("lease state: active"), "{text}");
}

/// The text a person reads (issue 60): `issue show` renders prose as
/// paragraphs whose lines stay lines, comments as who, when and what, the
/// edges and open blockers, every piece escaped for the terminal; `issue
/// list` shows labels. The JSON is unchanged.
#[test]
fn show_and_list_text_read_as_text() {
    let test = Test::new().issues(&[
        issue_with(
            "bd-1",
            json!({"description": "line one\n\nline three", "labels": ["ui", "api"],
                   "notes": "evil \u{1b}[31mred", "x_custom": {"k": 1},
                   "comments": [{"id": 1, "issue_id": "bd-1", "author": "alice",
                                 "text": "looks good\nship it", "created_at": "2026-01-02T00:00:00Z"}]}),
        ),
        issue_with("bd-2", json!({"dependencies": [blocks("bd-2", "bd-1")]})),
    ]);
    let text = test.store_raw(&["issue", "show", "bd-1"]).run().stdout();
    assert!(text.starts_with("bd-1  "), "{text}");
    assert!(text.contains("  labels: ui, api\n"), "{text}");
    assert!(
        text.contains("description:\n  line one\n\n  line three\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "comments:\n  #1 alice · 2026-01-02T00:00:00Z\n    looks good\n    ship it\n"
        ),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "a control character reached the terminal: {text:?}"
    );
    assert!(text.contains("evil \\x1b[31mred"), "{text}");
    assert!(text.contains("  x_custom: {\"k\":1}"), "{text}");
    let waiting = test.store_raw(&["issue", "show", "bd-2"]).run().stdout();
    assert!(
        waiting.contains("  depends on: bd-1 (blocks)\n"),
        "{waiting}"
    );
    assert!(waiting.contains("  waiting on: bd-1 (open)\n"), "{waiting}");
    let list = test.store_raw(&["issue", "list"]).run().stdout();
    assert!(list.contains("[ui, api]"), "{list}");
    // The JSON keeps the stored members as they are.
    let v = test.store(&["issue", "show", "bd-1"]).ok();
    assert_eq!(v["issue"]["description"], "line one\n\nline three");
}

#[test]
fn check_reports_graph_errors_and_warnings() {
    let long_notes = "n".repeat(2001);
    let test = Test::new().issues(&[
        sound("a"),
        sound_with("a", json!({"title": "repeat"})),
        sound_with("b", json!({"dependencies": [blocks("b", "nowhere")]})),
        sound_with(
            "s",
            json!({"dependencies": [{"issue_id": "s", "depends_on_id": "s", "type": "related"}]}),
        ),
        sound_with("c1", json!({"dependencies": [blocks("c1", "c2")]})),
        sound_with("c2", json!({"dependencies": [blocks("c2", "c3")]})),
        sound_with("c3", json!({"dependencies": [blocks("c3", "c1")]})),
        // A cycle through a closed issue is not an error.
        sound_with("k1", json!({"dependencies": [blocks("k1", "k2")]})),
        sound_with(
            "k2",
            json!({"status": "closed", "dependencies": [blocks("k2", "k1")]}),
        ),
        sound_with("n", json!({"notes": long_notes})),
        sound_with(
            "old",
            json!({"status": "in_progress", "lease": lease("w", "l", false)}),
        ),
    ]);
    let (code, v) = test.store(&["issue", "check"]).reply();
    assert_eq!(code, 1);
    assert_eq!(v["kind"], "premath.issue_graph.check.v1");
    assert_eq!(v["result"], "rejected");
    assert_eq!(
        v["failureClasses"],
        json!([
            "issue_graph.cycle",
            "issue_graph.dangling_dependency",
            "issue_graph.duplicate_id",
            "issue_graph.self_loop"
        ])
    );
    let errors = v["errors"].as_array().unwrap();
    let find = |class: &str| errors.iter().find(|e| e["class"] == class).unwrap().clone();
    assert_eq!(find("issue_graph.duplicate_id")["lines"], json!([1, 2]));
    assert_eq!(
        find("issue_graph.dangling_dependency")["dependsOnId"],
        "nowhere"
    );
    assert_eq!(find("issue_graph.self_loop")["issueId"], "s");
    assert_eq!(
        find("issue_graph.cycle")["path"],
        json!(["c1", "c2", "c3", "c1"])
    );
    assert_eq!(
        errors
            .iter()
            .filter(|e| e["class"] == "issue_graph.cycle")
            .count(),
        1
    );
    let warnings: Vec<(&str, &str)> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["class"].as_str().unwrap(), w["issueId"].as_str().unwrap()))
        .collect();
    assert!(
        warnings.contains(&("issue_graph.notes.large", "n")),
        "{warnings:?}"
    );
    assert_eq!(
        v["summary"],
        json!({"errorCount": errors.len(), "issueCount": v["issueCount"], "noteWarnThreshold": 2000,
            "warningCount": warnings.len()})
    );
    assert_eq!(
        v["warningClasses"],
        json!([
            "issue_graph.closed_with_open_blockers",
            "issue_graph.lease_stale",
            "issue_graph.notes.large"
        ])
    );
    assert!(
        warnings.contains(&("issue_graph.closed_with_open_blockers", "k2")),
        "{warnings:?}"
    );
    assert!(
        warnings.contains(&("issue_graph.lease_stale", "old")),
        "{warnings:?}"
    );

    let clean = Test::new().issues(&[
        sound("a"),
        sound_with("b", json!({"dependencies": [blocks("b", "a")]})),
    ]);
    let v = clean.store(&["issue", "check"]).ok();
    assert_eq!(v["result"], "accepted");
    assert_eq!(v["failureClasses"], json!([]));
}

/// `--note-warn-threshold`: notes of more characters (not bytes) than the
/// threshold draw premath's warning; the summary names the threshold; warnings
/// alone exit 0; premath's text.
#[test]
fn check_note_warn_threshold() {
    let test = Test::new().issues(&[
        sound_with("a", json!({"notes": "héllo"})),
        sound_with("b", json!({"notes": "x".repeat(2001)})),
    ]);
    let v = test.store(&["issue", "check"]).ok();
    assert_eq!(v["summary"]["noteWarnThreshold"], 2000);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
    let v = test
        .store(&["issue", "check", "--note-warn-threshold", "5"])
        .ok();
    assert_eq!(v["summary"]["noteWarnThreshold"], 5);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
    let v = test
        .store(&["issue", "check", "--note-warn-threshold", "4"])
        .ok();
    assert_eq!(
        v["warnings"][0],
        json!({"class": "issue_graph.notes.large", "issueId": "a",
            "message": "notes payload exceeds warning threshold (len=5, threshold=4)"})
    );
    assert_eq!(v["warningClasses"], json!(["issue_graph.notes.large"]));
    let out = test
        .store_raw(&["issue", "check", "--note-warn-threshold", "4"])
        .run();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("[issue-graph] OK (issues=2, errors=0, warnings=2)\n  - WARN a issue_graph.notes.large (notes payload exceeds warning threshold (len=5, threshold=4))\n"),
        "{text}"
    );
    for bad in ["-1", "many"] {
        let out = test
            .store_raw(&["issue", "check", &format!("--note-warn-threshold={bad}")])
            .run();
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

/// `dep project --view`: every edge of every issue (closed ones too) with its
/// role, sorted by (issue, target, type, created_by); integrity over all issues;
/// premath's text; a bad view is a usage error; the host action agrees.
#[test]
fn dep_project_views() {
    let test = Test::new().issues(&[
        issue_with(
            "b",
            json!({"status": "closed", "dependencies": [
                {"issue_id": "b", "depends_on_id": "a", "type": "supersedes"},
                {"issue_id": "b", "depends_on_id": "a", "type": "blocks", "created_by": "me"},
            ]}),
        ),
        issue_with(
            "a",
            json!({"status": "closed", "dependencies": [
                {"issue_id": "a", "depends_on_id": "b", "type": "discovered-from"},
            ]}),
        ),
        issue("c"),
    ]);
    let v = test.store(&["dep", "project"]).ok();
    assert_eq!(v["view"], "execution");
    assert_eq!(v["count"], 3);
    assert_eq!(
        v["integrity"],
        json!({"cyclePath": ["a", "b", "a"], "hasCycle": true})
    );
    let rows = |v: &serde_json::Value| -> Vec<(String, String, String, String, bool)> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    format!(
                        "{}->{}",
                        i["issueId"].as_str().unwrap(),
                        i["dependsOnId"].as_str().unwrap()
                    ),
                    i["type"].as_str().unwrap().to_string(),
                    i["role"].as_str().unwrap().to_string(),
                    i["createdBy"].as_str().unwrap().to_string(),
                    i["blocking"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let r = |e: &str, t: &str, role: &str, by: &str, b: bool| {
        (
            e.to_string(),
            t.to_string(),
            role.to_string(),
            by.to_string(),
            b,
        )
    };
    assert_eq!(
        rows(&v),
        [
            r("a->b", "discovered-from", "informational", "", false),
            r("b->a", "blocks", "blocking", "me", true),
            r("b->a", "supersedes", "informational", "", false),
        ]
    );
    let v = test.store(&["dep", "project", "--view", "gtd"]).ok();
    assert_eq!(
        rows(&v),
        [
            r("a->b", "discovered-from", "captured-work", "", false),
            r("b->a", "blocks", "next-action", "me", true),
            r("b->a", "supersedes", "dedupe", "", false),
        ]
    );
    assert!(v["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["view"] == "gtd"));
    let v = test.store(&["dep", "project", "--view", "groupoid"]).ok();
    assert_eq!(
        rows(&v),
        [
            r("a->b", "discovered-from", "provenance", "", false),
            r("b->a", "blocks", "constraint", "me", true),
            r("b->a", "supersedes", "equivalence", "", false),
        ]
    );
    let out = test
        .store_raw(&["dep", "project", "--view", "groupoid"])
        .run();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("premath dep project\n  View: groupoid\n  Path: "),
        "{text}"
    );
    assert!(
        text.ends_with("  Count: 3\n  Integrity: cycle detected (a -> b -> a)\n  - a -> b (discovered-from, role=provenance, blocking=false)\n  - b -> a (blocks, role=constraint, blocking=true)\n  - b -> a (supersedes, role=equivalence, blocking=false)\n"),
        "{text}"
    );
    assert_eq!(
        test.store_raw(&["dep", "project", "--view", "kanban"])
            .run()
            .status
            .code(),
        Some(2)
    );

    let clean = Test::new().issues(&[issue("a")]);
    let v = clean.store(&["dep", "project", "--view", "gtd"]).ok();
    assert_eq!(v["count"], 0);
    assert_eq!(v["items"], json!([]));
    assert_eq!(
        v["integrity"],
        json!({"cyclePath": null, "hasCycle": false})
    );
}

#[test]
fn dep_diagnostics_scopes_cycles_and_dangling_edges() {
    let test = Test::new().issues(&[
        issue_with("b", json!({"dependencies": [blocks("b", "a")]})),
        issue_with(
            "a",
            json!({"dependencies": [blocks("a", "c"), {"issue_id": "a", "depends_on_id": "ghost", "type": "related"}]}),
        ),
        issue_with("c", json!({"dependencies": [blocks("c", "b")]})),
        issue_with(
            "x",
            json!({"status": "closed", "dependencies": [blocks("x", "y")]}),
        ),
        issue_with(
            "y",
            json!({"status": "closed", "dependencies": [blocks("y", "x"), blocks("y", "void")]}),
        ),
    ]);
    // Findings are reported, not a rejection: exit 0 (premath's rule).
    let (code, active) = test.store(&["dep", "diagnostics"]).reply();
    assert_eq!(code, 0, "{active:#}");
    assert_eq!(active["action"], "dep.diagnostics");
    assert_eq!(active["graphScope"], "active");
    // premath's integrity: the first issue (id order) on a cycle, BFS back to it.
    assert_eq!(
        active["integrity"],
        json!({"cyclePath": ["a", "c", "b", "a"], "hasCycle": true})
    );
    assert_eq!(active["cycles"], json!([["a", "c", "b", "a"]]));
    assert_eq!(
        active["danglingEdges"],
        json!([{"issueId": "a", "dependsOnId": "ghost", "type": "related"}])
    );
    assert!(active.get("result").is_none());
    for flag in ["--graph-scope", "--scope"] {
        for value in ["full", "all"] {
            let (code, all) = test.store(&["dep", "diagnostics", flag, value]).reply();
            assert_eq!(code, 0);
            assert_eq!(all["graphScope"], "full");
            assert_eq!(
                all["cycles"],
                json!([["a", "c", "b", "a"], ["x", "y", "x"]])
            );
            assert_eq!(all["danglingEdges"].as_array().unwrap().len(), 2);
            assert_eq!(all["integrity"]["cyclePath"], json!(["a", "c", "b", "a"]));
        }
    }
    let clean = Test::new().issues(&[issue("a")]);
    assert_eq!(
        clean.store(&["dep", "diagnostics"]).ok()["integrity"],
        json!({"cyclePath": null, "hasCycle": false})
    );
    let out = clean
        .store_raw(&["dep", "diagnostics", "--graph-scope", "some"])
        .run();
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown scope is a usage error"
    );
}

#[test]
fn dep_diagnostics_integrity_follows_every_edge_type_and_the_active_scope() {
    let test = Test::new().issues(&[
        // A cycle of informational edges: premath's integrity sees it, the
        // blocking cycles do not.
        issue_with(
            "bd-1",
            json!({"dependencies": [{"issue_id": "bd-1", "depends_on_id": "bd-2", "type": "related"}]}),
        ),
        issue_with(
            "bd-2",
            json!({"dependencies": [{"issue_id": "bd-2", "depends_on_id": "bd-1", "type": "discovered-from"}]}),
        ),
        // A self-loop on an in_progress issue, and a cycle through a blocked one.
        issue_with(
            "bd-3",
            json!({"status": "In_Progress", "dependencies": [blocks("bd-3", "bd-3")]}),
        ),
        issue_with(
            "bd-4",
            json!({"status": "blocked", "dependencies": [blocks("bd-4", "bd-5")]}),
        ),
        issue_with("bd-5", json!({"dependencies": [blocks("bd-5", "bd-4")]})),
    ]);
    let active = test.store(&["dep", "diagnostics"]).ok();
    assert_eq!(
        active["integrity"]["cyclePath"],
        json!(["bd-1", "bd-2", "bd-1"])
    );
    // `blocked` is outside the active scope: only the self-loop is left there.
    assert_eq!(active["cycles"], json!([["bd-3", "bd-3"]]));
    let full = test
        .store(&["dep", "diagnostics", "--graph-scope", "full"])
        .ok();
    assert_eq!(
        full["cycles"],
        json!([["bd-3", "bd-3"], ["bd-4", "bd-5", "bd-4"]])
    );
    let no_related = Test::new().issues(&[issue_with(
        "bd-3",
        json!({"dependencies": [blocks("bd-3", "bd-3")]}),
    )]);
    assert_eq!(
        no_related.store(&["dep", "diagnostics"]).ok()["integrity"]["cyclePath"],
        json!(["bd-3", "bd-3"])
    );
}

#[test]
fn corrupt_store_is_refused_naming_the_line_and_never_rewritten() {
    let good = "{\"id\":\"a\",\"title\":\"t\"}\n";
    let cases: Vec<(Vec<u8>, usize, &str)> = vec![
        (format!("{good}{{\"id\":\"b\",\"title\":\n").into_bytes(), 2, "not valid JSON"),
        (format!("{good}\n{{\"id\":\"b\"}}\n").into_bytes(), 3, "missing field `title`"),
        (format!("{good}[\"b\",\"t\"]\n").into_bytes(), 2, "not a JSON object"),
        ([good.as_bytes(), b"{\"id\":\"b\",\"title\":\"\xff\"}\n"].concat(), 2, "invalid UTF-8"),
        ([good.as_bytes(), b"{\"id\":\"b\",\"title\":\"x\"}\0\n"].concat(), 2, "NUL"),
        (
            format!("{good}{good}{{\"id\":\"c\",\"title\":\"t\",\"dependencies\":[{{\"issue_id\":\"c\",\"depends_on_id\":\"a\",\"type\":\"tracks\"}}]}}\n")
                .into_bytes(),
            3,
            "unknown dependency type \"tracks\"",
        ),
        (format!("{good}{{\"id\":\"b\",\"title\":\"t\",\"priority\":\"high\"}}\n").into_bytes(), 2, "not a valid issue"),
    ];
    for (bytes, line, needle) in cases {
        let test = Test::new();
        match &test.db {
            None => {
                std::fs::create_dir_all(test.issues_path().parent().unwrap()).unwrap();
                std::fs::write(test.issues_path(), &bytes).unwrap();
            }
            // A database's text column cannot hold invalid UTF-8 or NUL: those
            // corruptions exist only in files.
            Some(db) => match std::str::from_utf8(&bytes) {
                Ok(text) if !text.contains('\0') => db.put_issue_text(text),
                _ => continue,
            },
        }
        for args in [
            vec!["issue", "ready"],
            vec!["issue", "list"],
            vec!["issue", "check"],
            vec!["issue", "add", "new"],
            vec!["issue", "claim", "a", "--assignee", "w"],
            vec!["issue", "claim-next", "--assignee", "w"],
            vec!["dep", "add", "a", "b"],
        ] {
            let (code, v) = test.store(&args).reply();
            assert_eq!(code, 2, "{args:?}: {v:#}");
            assert_eq!(
                v["failureClasses"],
                json!(["memory.store_corrupt"]),
                "{args:?}"
            );
            let diag = v["diagnostic"].as_str().unwrap();
            assert!(diag.contains(&format!("line {line}:")), "{args:?}: {diag}");
            assert!(diag.contains(needle), "{args:?}: {diag}");
            assert_eq!(
                test.store_bytes(),
                bytes,
                "{args:?} changed a corrupt store"
            );
        }
        // Without --json the error goes to stderr, still naming the line.
        let out = test.store_raw(&["issue", "ready"]).run();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("line {line}:")));
    }
}

#[test]
fn readable_table_without_json() {
    let test = Test::new().issues(&[
        issue_with("bd-1", json!({"title": "Parse the thing", "priority": 1})),
        issue_with(
            "bd-2",
            json!({"title": "Then render", "dependencies": [blocks("bd-2", "bd-1")]}),
        ),
    ]);
    let out = test.store_raw(&["issue", "ready"]).run();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("ID"), "{text}");
    assert!(
        lines[1].starts_with("bd-1")
            && lines[1].contains("P1")
            && lines[1].ends_with("Parse the thing"),
        "{text}"
    );
    assert_eq!(lines.len(), 3, "{text}");
    let blocked = String::from_utf8(test.store_raw(&["issue", "blocked"]).run().stdout).unwrap();
    assert!(blocked.contains("bd-1 / Then render"), "{blocked}");
}

#[test]
fn backend_status_reports_the_memory_the_projection_cache_and_jj() {
    let test = Test::new();
    let dir = test.dir().display().to_string();
    let cache = test.dir().join("cache.json");
    let cache_arg = cache.display().to_string();
    let status = |test: &Test| {
        test.store(&[
            "issue",
            "backend-status",
            "--repo",
            &dir,
            "--projection",
            &cache_arg,
        ])
        .ok()
    };
    let kind = if test.is_file() { "jsonl" } else { "postgres" };
    let v = status(&test);
    assert_eq!(v["action"], "issue.backend-status");
    assert_eq!(v["issuesPath"], test.issues_path().display().to_string());
    assert_eq!(v["repoRoot"], dir.as_str());
    let memory = &v["canonicalMemory"];
    assert_eq!(memory["kind"], kind);
    assert_eq!(memory["path"], v["issuesPath"]);
    assert_eq!(memory["error"], Value::Null);
    if test.is_file() {
        // No file yet: nothing to digest.
        assert_eq!(memory["exists"], false);
        assert_eq!(memory["snapshotRef"], Value::Null);
    } else {
        assert_eq!(memory["exists"], true);
    }
    assert_eq!(
        v["queryProjection"],
        json!({"error": null, "exists": false, "kind": "premath.surreal.issue_projection.v0",
               "path": cache_arg, "projectionKind": null, "schema": null,
               "snapshotRefMatchesAuthority": null, "snapshotRefMatchesProjection": null,
               "sourceIssuesPath": null, "sourcePathMatchesAuthority": null,
               "sourceSnapshotRef": null, "state": "missing"})
    );
    let jj = &v["jj"];
    match jj["state"].as_str().unwrap() {
        "unavailable" => {
            assert_eq!(jj["available"], false);
            assert_eq!(jj["error"], Value::Null);
        }
        // A temp dir is no jj workspace.
        state => {
            assert_eq!(state, "error", "{jj:#}");
            assert_eq!(jj["available"], true);
            assert!(jj["error"]
                .as_str()
                .unwrap()
                .starts_with("jj command failed"));
        }
    }

    test.store(&["issue", "add", "One", "--id", "bd-1"]).ok();
    let v = status(&test);
    let want_ref = tusk::issues::snapshot_ref(&test.issue_store()).unwrap();
    assert_eq!(v["canonicalMemory"]["exists"], true);
    assert_eq!(v["canonicalMemory"]["snapshotRef"], want_ref.as_str());

    // premath's cache of this store, as premath writes it: its issues and
    // their snapshot ref. Judged with premath's digests.
    let write_cache = |source_ref: &str| {
        std::fs::write(
            &cache,
            json!({"schema": 1, "kind": "premath.surreal.issue_projection.v0",
                   "sourceIssuesPath": test.issues_path().display().to_string(), "sourceSnapshotRef": source_ref,
                   "generatedAtUnixMs": 1, "issueCount": 1, "issues": test.store_lines()})
            .to_string(),
        )
        .unwrap();
    };
    write_cache(&want_ref);
    let q = &status(&test)["queryProjection"];
    assert_eq!(q["exists"], true);
    assert_eq!(q["schema"], 1);
    assert_eq!(q["sourceSnapshotRef"], want_ref.as_str());
    assert_eq!(q["snapshotRefMatchesProjection"], true);
    assert_eq!(q["snapshotRefMatchesAuthority"], true);
    if test.is_file() {
        assert_eq!(
            (&q["sourcePathMatchesAuthority"], &q["state"]),
            (&json!(true), &json!("fresh"))
        );
    } else {
        // premath's cache can only name a file: it is not this database's.
        assert_eq!(
            (&q["sourcePathMatchesAuthority"], &q["state"]),
            (&json!(false), &json!("stale"))
        );
    }
    // The memory moved on: the cache is stale.
    test.store(&["issue", "add", "Two", "--id", "bd-2"]).ok();
    let q = &status(&test)["queryProjection"];
    assert_eq!(q["snapshotRefMatchesAuthority"], false);
    assert_eq!(q["state"], "stale");
    // A cache whose ref is not its own issues' is invalid.
    write_cache("iss1_x");
    let q = &status(&test)["queryProjection"];
    assert_eq!(q["state"], "invalid");
    assert_eq!(q["snapshotRefMatchesProjection"], false);
    assert!(q["error"]
        .as_str()
        .unwrap()
        .starts_with("projection payload snapshot mismatch (sourceSnapshotRef=iss1_x, "));
    std::fs::write(&cache, "{").unwrap();
    let q = &status(&test)["queryProjection"];
    assert_eq!(q["state"], "invalid");
    assert!(q["error"].as_str().unwrap().starts_with("failed to parse"));

    // A store that cannot be read is reported, not fatal.
    if test.is_file() {
        std::fs::write(test.issues_path(), "not json\n").unwrap();
        let v = status(&test);
        assert_eq!(v["canonicalMemory"]["exists"], true);
        assert_eq!(v["canonicalMemory"]["snapshotRef"], Value::Null);
        assert!(v["canonicalMemory"]["error"]
            .as_str()
            .unwrap()
            .contains("line 1"));
    }
}

/// The flag `issue add` offers for acceptance satisfies the check that asks
/// for it (beads' `acceptance_criteria` member counts as the section, and
/// its verification command counts too).
#[test]
fn acceptance_criteria_flag_satisfies_issue_check() {
    let test = Test::new().issue_text("");
    test.store(&[
        "issue",
        "add",
        "Parser",
        "--acceptance-criteria",
        "the parser reads every example\n`cargo test parser`",
    ])
    .ok();
    let v = test.store(&["issue", "check"]).ok();
    assert_eq!(v["summary"]["errorCount"], 0, "{v:#}");
    test.store(&["issue", "add", "Bare"]).ok();
    let (code, v) = test.store(&["issue", "check"]).reply();
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["summary"]["errorCount"], 2, "{v:#}");
}

#[test]
fn search_stats_and_dep_tree_with_their_host_twins() {
    let test = Test::new().issues(&[
        issue_with(
            "bd-1",
            json!({"title": "Write the parser", "priority": 1, "labels": ["lang"],
                   "created_at": "2026-01-02T00:00:00Z",
                   "dependencies": [blocks("bd-1", "bd-2"),
                                    {"issue_id": "bd-1", "depends_on_id": "bd-3", "type": "related"}]}),
        ),
        issue_with(
            "bd-2",
            json!({"title": "Lexer", "description": "tokens for the PARSER",
                   "created_at": "2026-01-01T00:00:00Z", "assignee": "ann",
                   "dependencies": [{"issue_id": "bd-2", "depends_on_id": "bd-4", "type": "related"}]}),
        ),
        issue_with(
            "bd-3",
            json!({"title": "Docs", "notes": "mention the parser", "status": "closed",
                   "dependencies": [{"issue_id": "bd-3", "depends_on_id": "bd-1", "type": "related"}]}),
        ),
        issue_with(
            "bd-4",
            json!({"title": "Spec", "issue_type": "epic", "created_at": "2026-01-03T00:00:00Z",
                   "comments": [{"id": 1, "issue_id": "bd-4", "author": "a", "text": "parser first",
                                 "created_at": "2026-01-03T00:00:00Z"}]}),
        ),
    ]);
    // Search: title 3, description 2, notes and comments 1; then priority, id.
    let v = test.store(&["issue", "search", "Parser"]).ok();
    let got: Vec<(String, u64)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["score"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [("bd-1", 3), ("bd-2", 2), ("bd-3", 1), ("bd-4", 1)]
        .iter()
        .map(|(i, s)| (i.to_string(), *s))
        .collect();
    assert_eq!(got, want);
    assert_eq!(v["items"][3]["matched"], json!(["comments"]));
    let v = test
        .store(&["issue", "search", "parser", "--limit", "2"])
        .ok();
    assert_eq!(
        (v["count"].clone(), v["totalCount"].clone()),
        (json!(2), json!(4))
    );
    let (code, _) = test.store(&["issue", "search", "  "]).reply();
    assert_eq!(code, 1);
    let r = test.eval_with_authority(r#"(issue.search (hash "query" "parser" "limit" 2))"#);
    assert_eq!(r["value"]["payload"]["items"], v["items"]);

    // Stats.
    let s = test.store(&["issue", "stats"]).ok();
    assert_eq!(s["issueCount"], 4);
    assert_eq!(s["byStatus"], json!({"closed": 1, "open": 3}));
    assert_eq!(s["byType"], json!({"epic": 1, "task": 3}));
    assert_eq!(s["byAssignee"], json!({"(unassigned)": 3, "ann": 1}));
    assert_eq!(s["byLabel"], json!({"lang": 1}));
    assert_eq!(
        (s["readyCount"].clone(), s["blockedCount"].clone()),
        (json!(2), json!(1))
    );
    // bd-2 and bd-4 are ready; bd-2 was created first.
    assert_eq!(s["oldestReady"]["id"], "bd-2");
    let r = test.eval_with_authority("(issue.stats)");
    let mut host = r["value"]["payload"].clone();
    let mut cli = s.clone();
    for v in [&mut host, &mut cli] {
        v.as_object_mut().unwrap().remove("issuesPath");
    }
    assert_eq!(host, cli);

    // Dep tree: down, up, both; a cycle is marked, not expanded; depth-limited.
    let t = test.store(&["dep", "tree", "bd-1"]).ok();
    let tree = &t["tree"];
    assert_eq!(tree["id"], "bd-1");
    let kids: Vec<&str> = tree["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(kids, ["bd-2", "bd-3"]);
    assert_eq!(tree["children"][0]["children"][0]["id"], "bd-4");
    let back = &tree["children"][1]["children"][0];
    assert_eq!(
        (back["id"].clone(), back["cycle"].clone()),
        (json!("bd-1"), json!(true))
    );
    assert!(back.get("children").is_none());
    let shallow = test
        .store(&["dep", "tree", "bd-1", "--max-depth", "1"])
        .ok();
    assert_eq!(shallow["tree"]["children"][0]["truncated"], true);
    let up = test
        .store(&["dep", "tree", "bd-4", "--direction", "up"])
        .ok();
    assert_eq!(up["tree"]["children"][0]["id"], "bd-2");
    assert_eq!(up["tree"]["children"][0]["children"][0]["id"], "bd-1");
    let r = test.eval_with_authority(r#"(dep.tree (hash "id" "bd-4" "direction" "up"))"#);
    assert_eq!(r["value"]["payload"]["tree"], up["tree"]);
    // Text, Mermaid and Graphviz forms.
    let text = String::from_utf8(test.store_raw(&["dep", "tree", "bd-1"]).run().stdout).unwrap();
    assert!(
        text.starts_with("bd-1 [open] Write the parser\n  → bd-2 [open] Lexer (blocks)\n"),
        "{text}"
    );
    assert!(
        text.contains("→ bd-1 [open] (see above) (related) (cycle)"),
        "{text}"
    );
    let mermaid = String::from_utf8(
        test.store_raw(&["dep", "tree", "bd-1", "--format", "mermaid"])
            .run()
            .stdout,
    )
    .unwrap();
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    assert!(mermaid.contains("-->|\"blocks\"|"), "{mermaid}");
    let dot = String::from_utf8(
        test.store_raw(&["dep", "tree", "bd-1", "--format", "dot"])
            .run()
            .stdout,
    )
    .unwrap();
    assert!(
        dot.contains("\"bd-1\" -> \"bd-2\" [label=\"blocks\"];"),
        "{dot}"
    );
    test.store(&["dep", "tree", "bd-9"])
        .rejected(&["issue.not_found"]);
}

/// An edge of `id` of type `ty` on `on`.
fn edge(id: &str, on: &str, ty: &str) -> Value {
    json!({"issue_id": id, "depends_on_id": on, "type": ty})
}

/// An epic `e1` (open) with children `c1`, `c2` and grandchild `g1` (a
/// child of `c1`); an epic `e2` blocked by `x` (open) with child `c3`
/// and grandchild `g2`; `x` itself; a closed epic `e3` with child `c4`.
fn family() -> Vec<Value> {
    let with = |id: &str, deps: Vec<Value>| issue_with(id, json!({"dependencies": deps}));
    vec![
        issue_with("e1", json!({"issue_type": "epic"})),
        with("c1", vec![edge("c1", "e1", "parent-child")]),
        with("c2", vec![edge("c2", "e1", "parent-child")]),
        with("g1", vec![edge("g1", "c1", "parent-child")]),
        issue_with(
            "e2",
            json!({"issue_type": "epic", "dependencies": [edge("e2", "x", "blocks")]}),
        ),
        with("c3", vec![edge("c3", "e2", "parent-child")]),
        with("g2", vec![edge("g2", "c3", "parent-child")]),
        issue("x"),
        issue_with("e3", json!({"issue_type": "epic", "status": "closed"})),
        with("c4", vec![edge("c4", "e3", "parent-child")]),
    ]
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Issue 62: a store says which readiness rule it follows. Without the
/// setting, premath's: a child waits for its epic to close. With
/// `"readiness": "beads"`, beads': children of an open epic are ready, a
/// child (and grandchild) of a blocked epic is blocked, with its reason.
#[test]
fn readiness_follows_the_stores_rule() {
    // premath's rule (no setting): only what waits on nothing open.
    let premath = Test::new().issues(&family());
    let ready = premath.store(&["issue", "ready"]).ok();
    assert_eq!(sorted(ids(&ready)), ["c4", "e1", "x"], "{ready:#}");
    // beads' rule.
    let beads = Test::new()
        .issues(&family())
        .file(".premath/config.json", r#"{"readiness": "beads"}"#);
    let ready = beads.store(&["issue", "ready"]).ok();
    assert_eq!(
        sorted(ids(&ready)),
        ["c1", "c2", "c4", "e1", "g1", "x"],
        "{ready:#}"
    );
    let blocked = beads.store(&["issue", "blocked"]).ok();
    assert_eq!(sorted(ids(&blocked)), ["c3", "e2", "g2"], "{blocked:#}");
    let item = |id: &str| {
        blocked["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == id)
            .unwrap()
            .clone()
    };
    let reasons = |id: &str| item(id)["blockers"].clone();
    assert_eq!(reasons("e2")[0]["reason"], "blocker", "{blocked:#}");
    assert_eq!(reasons("e2")[0]["dependsOnId"], "x");
    assert_eq!(reasons("c3")[0]["reason"], "blocked-parent");
    assert_eq!(reasons("c3")[0]["dependsOnId"], "e2");
    assert_eq!(reasons("g2")[0]["reason"], "blocked-parent");
    assert_eq!(reasons("g2")[0]["dependsOnId"], "c3");
    // The host views and claim-next follow the same rule.
    let r = beads.eval_with_authority(
        r#"(list (length (hash-ref (payload (issue.ready)) "items"))
                 (hash-ref* (payload (issue.claim_next (hash "assignee" "a"))) "issue" "id"))"#,
    );
    assert_eq!(r["value"][0], 6, "{r:#}");
    let claimed = r["value"][1].as_str().unwrap();
    assert!(
        ["c1", "c2", "c4", "e1", "g1", "x"].contains(&claimed),
        "{r:#}"
    );
    // --respect-blockers: a child of a blocked epic cannot be claimed.
    let refused = beads
        .store(&[
            "issue",
            "claim",
            "g2",
            "--assignee",
            "a",
            "--respect-blockers",
        ])
        .rejected(&["issue.not_ready"]);
    assert!(
        refused.to_string().contains("e2") || refused.to_string().contains("c3"),
        "{refused:#}"
    );
    beads
        .store(&[
            "issue",
            "claim",
            "g1",
            "--assignee",
            "a",
            "--respect-blockers",
        ])
        .ok();
    // premath's rule refuses the same claim of g1 (its parent is open).
    premath
        .store(&[
            "issue",
            "claim",
            "g1",
            "--assignee",
            "a",
            "--respect-blockers",
        ])
        .rejected(&["issue.not_ready"]);
    // Under premath's rule, no reason member (premath's shape).
    let blocked = premath.store(&["issue", "blocked"]).ok();
    assert!(!blocked.to_string().contains("\"reason\""), "{blocked:#}");
    // A value that names no rule is refused, naming both.
    let bad = Test::new()
        .issues(&family())
        .file(".premath/config.json", r#"{"readiness": "bd"}"#);
    let v = bad.store(&["issue", "ready"]).reply().1;
    assert!(v.to_string().contains("write \\\"beads\\\""), "{v:#}");
}

/// Issue 62: `tusk init` writes beads' rule for a store it creates, and a
/// child of a new epic is ready at once.
#[test]
fn init_writes_beads_readiness_for_a_new_store() {
    let t = Test::on_files();
    let dir = t.path("fresh");
    std::fs::create_dir_all(&dir).unwrap();
    let v = t
        .tusk(&["-C", "fresh", "init", "--json", "--no-git"])
        .run()
        .json();
    // The JSON stays premath's; the rule is in config.json.
    assert!(v.get("readiness").is_none(), "{v:#}");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".premath/config.json")).unwrap())
            .unwrap();
    assert_eq!(config["readiness"], "beads");
    for title in ["epic", "child"] {
        t.tusk(&["-C", "fresh", "issue", "add", title])
            .run()
            .status(0);
    }
    t.tusk(&[
        "-C",
        "fresh",
        "dep",
        "add",
        "bd-2",
        "bd-1",
        "--type",
        "parent-child",
    ])
    .run()
    .status(0);
    let ready = t
        .tusk(&["-C", "fresh", "issue", "ready", "--json"])
        .run()
        .json();
    assert_eq!(sorted(ids(&ready)), ["bd-1", "bd-2"], "{ready:#}");
    // A second init leaves the setting alone.
    let v = t
        .tusk(&["-C", "fresh", "init", "--json", "--no-git"])
        .run()
        .json();
    assert!(v.get("readiness").is_none(), "{v:#}");
}

/// `issue list --status` takes the statuses an issue can have (issue 60): a
/// status no issue can have is refused, naming the ones there are (it used
/// to answer `0 issue(s)`, exit 0), on the command line and as
/// `issue.list`; a status the store's config.json declares is listed.
#[test]
fn list_refuses_a_status_no_issue_can_have() {
    let test = Test::new().issues(&[issue("bd-1"), issue("bd-2")]);
    let (code, v) = test.store(&["issue", "list", "--status", "done"]).reply();
    assert_eq!(code, 2, "{v}");
    assert_eq!(
        v["failureClasses"],
        serde_json::json!(["issue.invalid_status"]),
        "{v}"
    );
    let message = v["message"].as_str().unwrap();
    assert!(
        message.contains("\"done\" is not one of open, in_progress"),
        "{message}"
    );
    let text = test.store_raw(&["issue", "list", "--status", "done"]).run();
    assert_eq!(text.status.code(), Some(2), "{text:?}");
    assert!(
        String::from_utf8_lossy(&text.stderr).contains("status.custom"),
        "{text:?}"
    );
    let listed = test.store(&["issue", "list", "--status", "open"]).ok();
    assert_eq!(listed["count"], 2, "{listed}");
    let run = test.eval_with_authority(r#"(issue.list (hash "status" "done"))"#);
    assert_eq!(
        run["effects"][0]["resultClass"], "issue.invalid_status",
        "{run}"
    );
    if test.is_file() {
        let config = test.issues_path().parent().unwrap().join("config.json");
        std::fs::write(&config, r#"{"status.custom": "in_review"}"#).unwrap();
        let listed = test.store(&["issue", "list", "--status", "in_review"]).ok();
        assert_eq!(listed["count"], 0, "{listed}");
    }
    // Every flag of the command says what it does.
    let help = test.run(&["issue", "list", "--help"]).stdout();
    let bare: Vec<&str> = help
        .lines()
        .filter(|l| l.trim_start().starts_with("--") || l.trim_start().starts_with("-h"))
        .filter(|l| {
            let flag_end = l.trim_start().find("  ").unwrap_or(l.trim_start().len());
            l.trim_start()[flag_end..].trim().is_empty()
        })
        .collect();
    assert!(bare.is_empty(), "flags without help: {bare:?}");
}

/// The verification commands `issue check` accepts are the project's
/// (issue 60): premath's list by default, the store's config.json
/// `verification.commands` when it names some; a finding names the issue
/// and the commands to use; a config that is not a list is refused.
#[test]
fn check_accepts_the_verification_commands_the_project_names() {
    let test = Test::on_files().issues(&[issue_with(
        "bd-1",
        json!({"description": "Acceptance:\n- done\n\nVerify: `true`"}),
    )]);
    let errors = |test: &Test| -> Vec<Value> {
        let (_, v) = test.store(&["issue", "check"]).reply();
        v["errors"].as_array().cloned().unwrap_or_default()
    };
    let found = errors(&test);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0]["class"],
        "issue_graph.verification_command.missing"
    );
    assert_eq!(found[0]["issueId"], "bd-1");
    let config = test.path(".premath/config.json");
    std::fs::write(&config, r#"{"verification.commands": "make, true"}"#).unwrap();
    assert_eq!(errors(&test), Vec::<Value>::new());
    let run = test.eval_with_authority("(issue.check)");
    assert_eq!(run["effects"][0]["resultClass"], "accepted", "{run}");
    std::fs::write(&config, r#"{"verification.commands": "make, npm test"}"#).unwrap();
    let found = errors(&test);
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("one of make, npm test"), "{message}");
    std::fs::write(&config, r#"{"verification.commands": 7}"#).unwrap();
    let (code, v) = test.store(&["issue", "check"]).reply();
    assert_eq!(code, 2, "{v}");
    assert_eq!(v["failureClasses"], json!(["issue.config_invalid"]), "{v}");
}

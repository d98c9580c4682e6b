//! Mutations other than leases through the binary: add, update, close, discover,
//! dep add/remove/replace, and round-trip fidelity.

use crate::common::*;
use serde_json::json;
use serde_json::Value;

#[test]
fn first_add_creates_the_store_and_ids_follow_the_store_prefix() {
    let test = Test::new();
    let v = test
        .store(&[
            "issue",
            "add",
            "First",
            "--priority",
            "1",
            "--labels",
            "a,b",
            "--description",
            "why",
        ])
        .ok();
    assert_eq!(v["action"], "issue.add");
    assert_eq!(v["result"], "accepted");
    assert_eq!(v["failureClasses"], json!([]));
    let stored = test.stored("bd-1");
    assert_eq!(v["issue"], basic(&stored));
    assert_eq!(v["issue"]["id"], "bd-1");
    assert_eq!(v["issue"]["issueType"], "task");
    assert_eq!(stored["title"], "First");
    assert_eq!(stored["status"], "open");
    assert_eq!(stored["priority"], 1);
    assert_eq!(stored["issue_type"], "task");
    assert_eq!(stored["labels"], json!(["a", "b"]));
    assert_eq!(stored["description"], "why");
    assert!(stored.get("notes").is_none(), "empty fields are omitted");
    assert_eq!(
        test.store(&["issue", "add", "Second", "--owner", "o"]).ok()["issue"],
        json!({"assignee": "", "id": "bd-2", "issueType": "task", "owner": "o",
               "priority": 2, "status": "open", "title": "Second"})
    );
    assert_eq!(test.stored("bd-2")["owner"], "o");
    #[cfg(unix)]
    if test.is_file() {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(test.issues_path())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o644);
    }

    let other = Test::new().issues(&[issue("tk-9"), issue("tk-10"), issue("bd-50"), issue("odd")]);
    assert_eq!(
        other.store(&["issue", "add", "Next"]).ok()["issue"]["id"],
        "tk-11"
    );
    assert_eq!(
        other
            .store(&["issue", "add", "Mine", "--id", "custom-x"])
            .ok()["issue"]["id"],
        "custom-x"
    );
}

#[test]
fn add_rejects_bad_input_without_writing() {
    let test = Test::new().issues(&[issue("a")]);
    let before = test.store_text();
    test.store(&["issue", "add", "Dup", "--id", "a"])
        .rejected(&["issue.duplicate_id"]);
    test.store(&["issue", "add", "  "])
        .rejected(&["issue.invalid_title"]);
    test.store(&["issue", "add", "P", "--priority", "7"])
        .rejected(&["issue.invalid_priority"]);
    test.store(&["issue", "add", "T", "--issue-type", "story"])
        .rejected(&["issue.invalid_type"]);
    test.store(&["issue", "add", "S", "--status", "Not Valid"])
        .rejected(&["issue.invalid_status"]);
    test.store(&["issue", "add", "I", "--id", "has space"])
        .rejected(&["issue.invalid_id"]);
    assert_eq!(test.store_text(), before);
    // Clap-level errors are unusable input.
    assert_eq!(
        test.store_raw(&["issue", "add", "P", "--priority", "high"])
            .run()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn update_changes_only_given_fields_and_clears_empty_ones() {
    let test = Test::new().issues(&[issue_with(
        "a",
        json!({"notes": "old", "labels": ["x"], "x_keep": {"deep": [1]}}),
    )]);
    let v = test
        .store(&[
            "issue",
            "update",
            "a",
            "--title",
            "Renamed",
            "--notes",
            "",
            "--priority",
            "0",
            "--assignee",
            "w",
            "--owner",
            "o",
        ])
        .ok();
    let stored = test.stored("a");
    assert_eq!(v["issue"], basic(&stored));
    assert_eq!(v["issue"]["owner"], "o");
    assert_eq!(stored["title"], "Renamed");
    assert!(stored.get("notes").is_none());
    assert_eq!(stored["priority"], 0);
    assert_eq!(stored["assignee"], "w");
    assert_eq!(stored["labels"], json!(["x"]));
    assert_eq!(stored["x_keep"], json!({"deep": [1]}));
    assert!(stored["updated_at"].as_str().unwrap().ends_with('Z'));
    test.store(&["issue", "update", "a", "--labels", ""]).ok();
    assert!(test.stored("a").get("labels").is_none());
    test.store(&["issue", "update", "a", "--status", "closed"])
        .ok();
    assert!(test.stored("a")["closed_at"].is_string());
    test.store(&["issue", "update", "a", "--status", "open"])
        .ok();
    assert!(test.stored("a").get("closed_at").is_none());
    test.store(&["issue", "update", "nope", "--title", "x"])
        .rejected(&["issue.not_found"]);
    test.store(&["issue", "update", "a"])
        .rejected(&["issue.update_empty"]);
    test.store(&["issue", "update", "a", "--issue-type", "story"])
        .rejected(&["issue.invalid_type"]);
}

#[test]
fn close_sets_closed_at_and_drops_the_lease() {
    let test = Test::new().issues(&[issue_with(
        "a",
        json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "l1", true)}),
    )]);
    let v = test.store(&["issue", "close", "a"]).ok();
    let stored = test.stored("a");
    assert_eq!(stored, v["issue"]);
    assert_eq!(stored["status"], "closed");
    assert!(stored["closed_at"].is_string());
    assert!(stored.get("lease").is_none());
    test.store(&["issue", "close", "a"])
        .rejected(&["issue.already_closed"]);
    test.store(&["issue", "close", "zz"])
        .rejected(&["issue.not_found"]);
}

#[test]
fn discover_links_discovered_from_and_needs_the_parent() {
    let test = Test::new().issues(&[issue("bd-1")]);
    let v = test
        .store(&[
            "issue",
            "discover",
            "bd-1",
            "Found while working",
            "--priority",
            "1",
        ])
        .ok();
    assert_eq!(
        v["dependency"],
        json!({"dependsOnId": "bd-1", "issueId": "bd-2", "type": "discovered-from"})
    );
    let id = v["issue"]["id"].as_str().unwrap().to_string();
    assert_eq!(id, "bd-2");
    let stored = test.stored(&id);
    assert_eq!(v["issue"], basic(&stored));
    assert_eq!(stored["dependencies"][0]["issue_id"], "bd-2");
    assert_eq!(stored["dependencies"][0]["depends_on_id"], "bd-1");
    assert_eq!(stored["dependencies"][0]["type"], "discovered-from");
    assert_eq!(stored["priority"], 1);
    // discovered-from is informational: the new issue is ready at once.
    assert!(ids(&test.store(&["issue", "ready"]).ok()).contains(&id));
    let before = test.store_text();
    test.store(&["issue", "discover", "bd-404", "Orphan"])
        .rejected(&["issue.parent_not_found"]);
    assert_eq!(test.store_text(), before);
}

#[test]
fn dep_add_checks_endpoints_duplicates_self_loops_and_cycles() {
    let test = Test::new().issues(&[issue("a"), issue("b"), issue("c"), issue("d")]);
    let v = test.store(&["dep", "add", "b", "a"]).ok();
    assert_eq!(
        (
            v["issueId"].as_str(),
            v["dependsOnId"].as_str(),
            v["type"].as_str()
        ),
        (Some("b"), Some("a"), Some("blocks"))
    );
    assert_eq!(test.stored("b")["dependencies"][0]["depends_on_id"], "a");
    test.store(&["dep", "add", "c", "b", "--type", "waits-for"])
        .ok();
    let before = test.store_text();
    let cycle = test
        .store(&["dep", "add", "a", "c"])
        .rejected(&["dep.cycle"]);
    assert_eq!(cycle["cycle"], json!(["a", "c", "b", "a"]));
    test.store(&["dep", "add", "a", "a"])
        .rejected(&["dep.self_loop"]);
    test.store(&["dep", "add", "b", "a"])
        .rejected(&["dep.duplicate"]);
    test.store(&["dep", "add", "b", "a", "--type", "related"])
        .rejected(&["dep.duplicate"]);
    test.store(&["dep", "add", "x", "a"])
        .rejected(&["dep.issue_not_found"]);
    test.store(&["dep", "add", "a", "x"])
        .rejected(&["dep.target_not_found"]);
    test.store(&["dep", "add", "a", "d", "--type", "tracks"])
        .rejected(&["dep.invalid_type"]);
    assert_eq!(test.store_text(), before);
    // An informational edge may point back: it closes no blocking cycle.
    test.store(&["dep", "add", "a", "c", "--type", "related"])
        .ok();
    let out = test.store_raw(&["dep", "add", "d", "c"]).run();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("premath dep add\n  Added: d -> c (blocks)\n"),
        "{text}"
    );
}

#[test]
fn dep_remove_and_replace() {
    let test = Test::new().issues(&[
        issue("a"),
        issue_with("b", json!({"dependencies": [blocks("b", "a")]})),
        issue_with(
            "c",
            json!({"dependencies": [{"issue_id": "c", "depends_on_id": "b", "dep_type": "related", "x_note": 1}]}),
        ),
    ]);
    // --from-type defaults to blocks, as premath's: c -> b is related.
    test.store(&["dep", "replace", "c", "b", "--to-type", "blocks"])
        .rejected(&["dep.not_found"]);
    // Turning c -> b into a blocking edge is fine (`--type` is the hidden
    // alias of --to-type); then a -> c would close a cycle.
    let v = test
        .store(&[
            "dep",
            "replace",
            "c",
            "b",
            "--from-type",
            "related",
            "--type",
            "blocks",
        ])
        .ok();
    assert_eq!(v["previousType"], "related");
    assert_eq!(v["changed"], true);
    let edge = &test.stored("c")["dependencies"][0];
    assert_eq!(
        edge,
        &json!({"issue_id": "c", "depends_on_id": "b", "dep_type": "blocks", "x_note": 1})
    );
    test.store(&["dep", "add", "a", "c", "--type", "related"])
        .ok();
    let r = test
        .store(&[
            "dep",
            "replace",
            "a",
            "c",
            "--from-type",
            "related",
            "--to-type",
            "blocks",
        ])
        .rejected(&["dep.cycle"]);
    assert_eq!(r["cycle"], json!(["a", "c", "b", "a"]));
    let same = test
        .store(&["dep", "replace", "b", "a", "--type", "blocks"])
        .ok();
    assert_eq!(same["changed"], false);
    test.store(&["dep", "replace", "b", "c", "--type", "blocks"])
        .rejected(&["dep.not_found"]);
    test.store(&["dep", "replace", "b", "a", "--type", "nope"])
        .rejected(&["dep.invalid_type"]);
    test.store(&[
        "dep",
        "replace",
        "b",
        "a",
        "--from-type",
        "nope",
        "--to-type",
        "related",
    ])
    .rejected(&["dep.invalid_type"]);
    // --to-type is required: a usage error.
    assert_eq!(
        test.store_raw(&["dep", "replace", "b", "a"])
            .run()
            .status
            .code(),
        Some(2)
    );

    test.store(&["dep", "remove", "b", "a", "--type", "related"])
        .rejected(&["dep.not_found"]);
    let v = test.store(&["dep", "remove", "b", "a"]).ok();
    assert_eq!(v["removedTypes"], json!(["blocks"]));
    assert!(test.stored("b").get("dependencies").is_none());
    test.store(&["dep", "remove", "b", "a"])
        .rejected(&["dep.not_found"]);
    test.store(&["dep", "remove", "zz", "a"])
        .rejected(&["dep.issue_not_found"]);
    assert!(ids(&test.store(&["issue", "ready"]).ok()).contains(&"b".to_string()));
}

/// `--notes-file PATH` (`-`: standard input) sets the notes as read; it
/// excludes `--notes` (usage error, exit 2); an unreadable file writes nothing.
#[test]
fn update_notes_file_and_stdin() {
    let test = Test::new().issues(&[issue("a")]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.md");
    std::fs::write(&file, "line one\nlinë two\n").unwrap();
    let file = file.to_str().unwrap();
    test.store(&["issue", "update", "a", "--notes-file", file])
        .ok();
    assert_eq!(test.stored("a")["notes"], "line one\nlinë two\n");

    let out = test
        .store(&["issue", "update", "a", "--notes-file", "-"])
        .stdin("from stdin\n")
        .run();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(test.stored("a")["notes"], "from stdin\n");

    let before = test.store_text();
    let out = test
        .store_raw(&["issue", "update", "a", "--notes", "x", "--notes-file", file])
        .run();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
    let missing = dir.path().join("absent.md");
    let out = test
        .store_raw(&[
            "issue",
            "update",
            "a",
            "--notes-file",
            missing.to_str().unwrap(),
        ])
        .run();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed to read notes file"));
    assert_eq!(test.store_text(), before);
}

/// `--created-by` is stored on the edge as given (omitted when empty), kept by
/// later rewrites of the line, replaced by `dep replace --created-by` only when
/// not blank, and shown by the views; premath's `dependency` members.
#[test]
fn dep_created_by_is_stored_kept_and_replaced() {
    let test = Test::new().issues(&[issue("a"), issue("b"), issue("c")]);
    let v = test
        .store(&["dep", "add", "a", "b", "--created-by", " planner "])
        .ok();
    assert_eq!(
        v["dependency"],
        json!({"dependsOnId": "b", "issueId": "a", "type": "blocks"})
    );
    assert_eq!(
        test.stored("a")["dependencies"][0]["created_by"],
        " planner "
    );
    test.store(&["dep", "add", "a", "c", "--type", "related"])
        .ok();
    assert!(test.stored("a")["dependencies"][1]
        .get("created_by")
        .is_none());
    test.store(&["issue", "update", "a", "--title", "Renamed"])
        .ok();
    assert_eq!(
        test.stored("a")["dependencies"][0]["created_by"],
        " planner "
    );
    let blocked = test.store(&["issue", "blocked"]).ok();
    assert_eq!(blocked["items"][0]["blockers"][0]["createdBy"], " planner ");

    let v = test
        .store(&[
            "dep",
            "replace",
            "a",
            "b",
            "--to-type",
            "waits-for",
            "--created-by",
            "  ",
        ])
        .ok();
    assert_eq!(
        v["dependency"],
        json!({"createdBy": "  ", "dependsOnId": "b", "fromType": "blocks", "issueId": "a", "toType": "waits-for"})
    );
    assert_eq!(
        test.stored("a")["dependencies"][0]["created_by"],
        " planner "
    );
    assert_eq!(test.stored("a")["dependencies"][0]["type"], "waits-for");
    let v = test
        .store(&[
            "dep",
            "replace",
            "a",
            "c",
            "--from-type",
            "related",
            "--to-type",
            "related",
            "--created-by",
            "reviewer",
        ])
        .ok();
    assert_eq!(v["changed"], true);
    assert_eq!(
        test.stored("a")["dependencies"][1]["created_by"],
        "reviewer"
    );
    // Another edge of the pair with the new type: premath's duplicate.
    let store = Test::new().issues(&[
        issue("p"),
        issue_with(
            "q",
            json!({"dependencies": [blocks("q", "p"), {"issue_id": "q", "depends_on_id": "p", "type": "related"}]}),
        ),
    ]);
    store
        .store(&[
            "dep",
            "replace",
            "q",
            "p",
            "--from-type",
            "related",
            "--to-type",
            "blocks",
        ])
        .rejected(&["dep.duplicate"]);
    let v = store
        .store(&[
            "dep",
            "replace",
            "q",
            "p",
            "--from-type",
            "related",
            "--to-type",
            "supersedes",
        ])
        .ok();
    assert_eq!(v["previousType"], "related");
    assert_eq!(store.stored("q")["dependencies"][0]["type"], "blocks");
    assert_eq!(store.stored("q")["dependencies"][1]["type"], "supersedes");
}

/// Fields and values this program does not know survive, and every line but the
/// mutated one keeps its bytes (spacing, key order, escapes, CRLF, blank lines).
#[test]
fn unknown_fields_survive_and_other_lines_stay_byte_identical() {
    let lines = [
        r#"{"id":"bd-1","title":"Keep me","status":"open","priority":2,"x_unknown":{"nested":[1,2.50,"\u00e9"]},"owner":"ann","metadata":{"a":null}}"#,
        r#"{ "title" : "Spaced out", "id" : "bd-2", "ephemeral": true, "mol_type": "m", "zzz": [ ] }"#,
        "",
        r#"{"id":"bd-3","title":"Target","status":"open","x_future_field":{"v":2},"dependencies":[{"issue_id":"bd-3","depends_on_id":"bd-1","type":"related","created_by":"x","x_edge":true}],"labels":["l"]}"#,
        r#"{"id":"bd-4","title":"Escapes \"quoted\" \n and \u2603","description":"d","status":"deferred"}"#,
    ];
    let text = format!(
        "{}\r\n{}\n{}\n{}\n{}",
        lines[0], lines[1], lines[2], lines[3], lines[4]
    );
    let test = Test::new().issue_text(&text);
    test.store(&["issue", "update", "bd-3", "--notes", "touched"])
        .ok();
    test.store(&["issue", "claim", "bd-3", "--assignee", "agent.z"])
        .ok();
    test.store(&["dep", "add", "bd-3", "bd-2", "--type", "related"])
        .ok();
    let after = test.store_text();
    let new_lines: Vec<&str> = after.split('\n').collect();
    assert_eq!(new_lines.len(), 5, "{after}");
    assert_eq!(new_lines[0], format!("{}\r", lines[0]));
    assert_eq!(new_lines[1], lines[1]);
    assert_eq!(new_lines[2], lines[2]);
    assert_eq!(
        new_lines[4], lines[4],
        "last line keeps its missing trailing newline"
    );
    let mutated: serde_json::Value = serde_json::from_str(new_lines[3]).unwrap();
    assert_eq!(mutated["x_future_field"], json!({"v": 2}));
    assert_eq!(
        mutated["dependencies"][0],
        json!({"issue_id":"bd-3","depends_on_id":"bd-1","type":"related","created_by":"x","x_edge":true})
    );
    assert_eq!(mutated["dependencies"][1]["depends_on_id"], "bd-2");
    assert_eq!(mutated["notes"], "touched");
    assert_eq!(mutated["labels"], json!(["l"]));
    // Key order of the original line is kept; new keys come after.
    let keys: Vec<&str> = mutated
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        &keys[..7],
        [
            "id",
            "title",
            "status",
            "x_future_field",
            "dependencies",
            "labels",
            "notes"
        ]
    );
}

#[test]
fn snapshot_ref_follows_content_not_line_layout() {
    // The snapshot ref is exposed through the library; here it must be stable across
    // the same memory written differently, and change when an issue changes.
    let a = Test::new().issue_text("{\"id\":\"b\",\"title\":\"B\"}\n{\"id\":\"a\",\"title\":\"A\",\"dependencies\":[{\"issue_id\":\"a\",\"depends_on_id\":\"y\",\"type\":\"related\"},{\"issue_id\":\"a\",\"depends_on_id\":\"x\",\"type\":\"related\"}]}\n");
    let b = Test::new().issue_text("\n{\"title\":\"A\",\"id\":\"a\",\"dependencies\":[{\"issue_id\":\"a\",\"depends_on_id\":\"x\",\"type\":\"related\"},{\"issue_id\":\"a\",\"depends_on_id\":\"y\",\"type\":\"related\"}]}\n{\"id\":\"b\",\"title\":\"old\"}\n{\"id\":\"b\",\"title\":\"B\"}\n");
    let ra = tusk::issues::snapshot_ref(&a.issue_store()).unwrap();
    assert!(ra.starts_with("iss1_") && ra.len() == 5 + 64, "{ra}");
    assert_eq!(ra, tusk::issues::snapshot_ref(&b.issue_store()).unwrap());
    a.store(&["issue", "update", "b", "--title", "B2"]).ok();
    assert_ne!(ra, tusk::issues::snapshot_ref(&a.issue_store()).unwrap());
    let absent = Test::new();
    assert_eq!(
        tusk::issues::snapshot_ref(&absent.issue_store()).unwrap(),
        format!("iss1_{}", tusk::canonical::sha256_hex(b""))
    );
}

#[test]
fn a_repeated_id_is_mutated_on_its_winning_last_line_only() {
    let text = "{\"id\":\"a\",\"title\":\"first\"}\n{\"id\":\"b\",\"title\":\"b\"}\n{\"id\":\"a\",\"title\":\"second\"}\n";
    let test = Test::new().issue_text(text);
    test.store(&["issue", "update", "a", "--title", "third"])
        .ok();
    let after = test.store_text();
    let lines: Vec<&str> = after.lines().collect();
    assert_eq!(lines[0], "{\"id\":\"a\",\"title\":\"first\"}");
    assert_eq!(lines[1], "{\"id\":\"b\",\"title\":\"b\"}");
    assert!(
        lines[2].starts_with("{\"id\":\"a\",\"title\":\"third\""),
        "{after}"
    );
    assert_eq!(
        test.store(&["issue", "show", "a"]).ok()["issue"]["title"],
        "third"
    );
}

/// The event log round trip through the binary, on either backend: a store with
/// members premath does not know (on issues and on edges), beads types and
/// edges out of order migrates to `issue.event.v1`, replays into an empty
/// store as the same memory with every member kept, and a second replay is a
/// cache hit that writes nothing. A stale store is rewritten under the lock.
#[test]
fn event_log_round_trip_keeps_every_member() {
    let source = Test::new().issue_text(concat!(
        "{\"id\":\"bd-2\",\"title\":\"Child\",\"issue_type\":\"bug\",\"created_at\":\"2026-01-01T00:00:00+00:00\",\"updated_at\":\"2026-01-02T00:00:00.250Z\",",
        "\"dependencies\":[{\"issue_id\":\"bd-2\",\"depends_on_id\":\"bd-3\",\"type\":\"related\"},{\"issue_id\":\"bd-2\",\"depends_on_id\":\"bd-1\",\"type\":\"blocks\",\"created_at\":\"x\"}],\"x_team\":\"core\"}\n",
        "{\"id\":\"bd-1\",\"title\":\"Parent\",\"status\":\"closed\",\"external_ref\":\"gh-12\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\n",
        "{\"id\":\"bd-3\",\"title\":\"Other\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\n",
    ));
    let dir = source.dir();
    let log = dir.join("log").join("events.jsonl");
    let cache = dir.join("cache.json");
    let (log_s, cache_s) = (log.to_str().unwrap(), cache.to_str().unwrap());
    let (code, migrated) = source
        .store(&["issue", "migrate-events", "--events", log_s])
        .reply();
    assert_eq!(code, 0, "{migrated:#}");
    assert_eq!(migrated["eventCount"], 5);
    assert_eq!(migrated["issueCount"], 3);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["event_id"], "issue.upsert:bd-1");
    assert_eq!(lines[0]["issue"]["external_ref"], "gh-12");
    // Edges follow their issue's upsert, sorted by target.
    assert_eq!(
        lines[2]["event_id"],
        "issue.add_dependency:bd-2:bd-1:blocks"
    );
    assert_eq!(lines[2]["created_at"], "x");
    assert_eq!(lines[2]["occurred_at"], "2026-01-02T00:00:00.250Z");
    assert_eq!(
        lines[3]["event_id"],
        "issue.add_dependency:bd-2:bd-3:related"
    );

    let target = Test::new();
    let replay = [
        "issue",
        "replay-events",
        "--events",
        log_s,
        "--cache",
        cache_s,
    ];
    let (code, first) = target.store(&replay).reply();
    assert_eq!(code, 0, "{first:#}");
    assert_eq!(first["cacheHit"], false);
    assert_eq!(first["issueCount"], 3);
    assert_eq!(
        first["snapshotRef"],
        tusk::issues::snapshot_ref(&source.issue_store()).unwrap()
    );
    let rebuilt = target.store_lines();
    let child = rebuilt.iter().find(|l| l["id"] == "bd-2").unwrap();
    assert_eq!(child["x_team"], "core");
    assert_eq!(child["issue_type"], "bug");
    assert_eq!(child["dependencies"][0]["created_at"], "x");
    assert_eq!(rebuilt[0]["external_ref"], "gh-12");

    let before = target.store_text();
    let (code, second) = target.store(&replay).reply();
    assert_eq!(code, 0);
    assert_eq!(second["cacheHit"], true);
    assert_eq!(second["equivalentToExisting"], true);
    assert_eq!(target.store_text(), before, "a cache hit writes nothing");

    // The store moved on: the cache no longer matches, the replay rewrites it.
    target
        .store(&["issue", "update", "bd-3", "--title", "Changed"])
        .ok();
    let (code, third) = target.store(&replay).reply();
    assert_eq!(code, 0);
    assert_eq!(third["cacheHit"], false);
    assert_eq!(third["equivalentToExisting"], false);
    assert_eq!(target.store_text(), before);
}

/// A failed replay leaves the store and the cache as they were.
#[test]
fn a_failed_replay_writes_nothing() {
    let test = Test::new().issue_text("{\"id\":\"a\",\"title\":\"A\"}\n");
    let before = test.store_text();
    let dir = test.dir();
    let log = dir.join("events.jsonl");
    let cache = dir.join("cache.json");
    std::fs::write(
        &log,
        "{\"event_id\":\"e\",\"issue_id\":\"a\",\"occurred_at\":\"2026-01-01T00:00:00Z\",\"action\":\"add_dependency\",\"depends_on_id\":\"zz\",\"type\":\"blocks\"}\n",
    )
    .unwrap();
    let err = test
        .store_raw(&[
            "issue",
            "replay-events",
            "--events",
            log.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
        ])
        .fails();
    assert_eq!(
        err,
        format!(
            "error: failed to replay {}: replay unresolved dependency for event e: a -> zz\n",
            log.display()
        )
    );
    assert_eq!(test.store_text(), before);
    assert!(!cache.exists());
    // Not an event at all: the line is named.
    std::fs::write(&log, "\n{\"event_id\":\"e\"}\n").unwrap();
    let err = test
        .store_raw(&["issue", "replay-events", "--events", log.to_str().unwrap()])
        .fails();
    assert!(
        err.contains(": line 2: parse error: missing field `issue_id`"),
        "{err}"
    );
    assert_eq!(test.store_text(), before);
}

/// The event commands never write one file over another: the log over the
/// store, the store over its own log, or the cache over either.
#[test]
fn event_commands_refuse_to_write_one_file_over_another() {
    let test = Test::new().issue_text("{\"id\":\"a\",\"title\":\"A\"}\n");
    let before = test.store_text();
    let dir = test.dir();
    let log = dir.join("events.jsonl");
    let log_s = log.to_str().unwrap();
    let (code, _) = test
        .store(&["issue", "migrate-events", "--events", log_s])
        .reply();
    assert_eq!(code, 0);
    let log_text = std::fs::read_to_string(&log).unwrap();
    let refused = |args: &[&str], says: &str| {
        let err = test.store_raw(args).fails();
        assert!(err.contains(says), "{args:?}: {err}");
    };
    refused(
        &[
            "issue",
            "replay-events",
            "--events",
            log_s,
            "--cache",
            log_s,
        ],
        "the event log and the cache are one file",
    );
    if test.is_file() {
        let store = test.issues_path();
        let store = store.to_str().unwrap();
        refused(
            &["issue", "migrate-events", "--events", store],
            "is the issues file",
        );
        // The same file spelled another way.
        let dotted = format!("{}/./{}", dir.join(".premath").display(), "issues.jsonl");
        refused(
            &["issue", "replay-events", "--events", &dotted],
            "the event log and the issues file are one file",
        );
    }
    assert_eq!(test.store_text(), before);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), log_text);
}

/// A store that does not exist yet is still one file with a cache named
/// through a symlinked directory: the replay refuses before creating either.
#[test]
fn replay_refuses_a_cache_that_is_the_store_to_be() {
    let t = Test::on_files();
    std::fs::create_dir(t.path("new")).unwrap();
    std::os::unix::fs::symlink(t.path("new"), t.path("link")).unwrap();
    let log = t.path("events.jsonl");
    std::fs::write(
        &log,
        "{\"event_id\":\"e\",\"issue_id\":\"a\",\"occurred_at\":\"2026-01-01T00:00:00Z\",\"action\":\"upsert_issue\",\"issue\":{\"id\":\"a\",\"title\":\"A\"}}\n",
    )
    .unwrap();
    let out = t
        .tusk(&["issue", "replay-events", "--events", "events.jsonl"])
        .args([
            "--issues",
            "link/issues.jsonl",
            "--cache",
            "new/issues.jsonl",
        ])
        .run();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the cache and the issues file are one file"),
        "{out:?}"
    );
    assert!(!t.path("new/issues.jsonl").exists());
}

/// A status typo is refused with the valid ones named (it would take the
/// issue out of every ready/blocked view); a project may declare custom
/// statuses as beads does (`status.custom`), beside a file store.
#[test]
fn statuses_are_validated_and_custom_ones_can_be_declared() {
    let test = Test::new().issues(&[issue("bd-1")]);
    let before = test.store_text();
    let v = test
        .store(&["issue", "update", "bd-1", "--status", "foo_bar"])
        .rejected(&["issue.invalid_status"]);
    let diagnostic = v["diagnostic"].as_str().unwrap();
    assert!(
        diagnostic.contains("open, in_progress, blocked, deferred, closed"),
        "{diagnostic}"
    );
    assert!(diagnostic.contains("status.custom"), "{diagnostic}");
    assert_eq!(test.store_text(), before, "nothing written");
    // Every built-in status is accepted.
    for status in ["deferred", "blocked", "in_progress", "open"] {
        test.store(&["issue", "update", "bd-1", "--status", status])
            .ok();
    }
    if test.is_file() {
        let config = test.issues_path().parent().unwrap().join("config.json");
        std::fs::write(&config, r#"{"status.custom": "in_review, qa_testing:wip"}"#).unwrap();
        test.store(&["issue", "update", "bd-1", "--status", "in_review"])
            .ok();
        test.store(&["issue", "update", "bd-1", "--status", "qa_testing"])
            .ok();
        test.store(&["issue", "update", "bd-1", "--status", "in_reveiw"])
            .rejected(&["issue.invalid_status"]);
        std::fs::write(&config, r#"{"status.custom": 7}"#).unwrap();
        test.store(&["issue", "update", "bd-1", "--status", "in_review"])
            .rejected(&["issue.config_invalid"]);
    }
}

/// A line as beads exports it: labels, comments and close_reason on the line.
fn beads_line(id: &str) -> serde_json::Value {
    json!({"id": id, "title": "Parser", "description": "", "status": "open", "priority": 2,
           "issue_type": "task", "created_at": "2026-01-01T00:00:00Z",
           "updated_at": "2026-01-01T00:00:00Z", "labels": ["triage"],
           "comments": [{"id": 1, "issue_id": id, "author": "alice", "text": "first",
                         "created_at": "2026-01-01T00:00:00Z"}],
           "x_beads_extra": {"k": 1}})
}

#[test]
fn close_with_a_reason_reopen_labels_and_comments_keep_beads_shape() {
    let test = Test::new().issues(&[beads_line("bd-1"), issue("bd-2")]);
    // A label added and removed again gives back beads' line byte for byte
    // (but for updated_at), and the other line is never rewritten.
    let original: Vec<String> = test.store_text().lines().map(str::to_string).collect();
    test.store(&["issue", "label", "add", "bd-1", "temp"]).ok();
    test.store(&["issue", "label", "remove", "bd-1", "temp"])
        .ok();
    let after: Vec<String> = test.store_text().lines().map(str::to_string).collect();
    assert_eq!(after[1], original[1]);
    let stamp = test.stored("bd-1")["updated_at"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        after[0],
        original[0].replace(
            "\"updated_at\":\"2026-01-01T00:00:00Z\"",
            &format!("\"updated_at\":\"{stamp}\"")
        )
    );
    // Labels: added at the end once each, removed; the routing filter sees them.
    let v = test
        .store(&["issue", "label", "add", "bd-1", "review", "triage", "ui"])
        .ok();
    assert_eq!(v["labels"], json!(["triage", "review", "ui"]));
    assert_eq!(v["changed"], true);
    let v = test
        .store(&["issue", "label", "remove", "bd-1", "triage"])
        .ok();
    assert_eq!(v["labels"], json!(["review", "ui"]));
    assert_eq!(
        ids(&test.store(&["issue", "ready", "--label", "review"]).ok()),
        ["bd-1"]
    );
    let unchanged = test.store_text();
    let v = test
        .store(&["issue", "label", "remove", "bd-1", "absent"])
        .ok();
    assert_eq!(v["changed"], false);
    assert_eq!(test.store_text(), unchanged, "a no-op writes nothing");
    test.store(&["issue", "label", "add", "bd-1", "a,b"])
        .rejected(&["issue.invalid_label"]);
    test.store(&["issue", "label", "remove", "bd-2", "x"]).ok();
    assert!(test.stored("bd-2").get("labels").is_none());

    // Comments: appended in beads' shape, never rewritten.
    let v = test
        .store(&[
            "issue",
            "comment",
            "add",
            "bd-1",
            "needs a lexer",
            "--author",
            "agent.a",
        ])
        .ok();
    assert_eq!(v["comment"]["id"], 2);
    let stored = test.stored("bd-1");
    let comments = stored["comments"].as_array().unwrap();
    assert_eq!(comments.len(), 2);
    assert_eq!(comments[0], beads_line("bd-1")["comments"][0]);
    assert_eq!(comments[1]["issue_id"], "bd-1");
    assert_eq!(comments[1]["author"], "agent.a");
    assert_eq!(comments[1]["text"], "needs a lexer");
    let listed = test.store(&["issue", "comment", "list", "bd-1"]).ok();
    assert_eq!(listed["count"], 2);
    assert_eq!(listed["comments"], stored["comments"]);
    test.store(&["issue", "comment", "add", "bd-1", "  ", "--author", "a"])
        .rejected(&["issue.invalid_comment"]);
    test.store(&["issue", "comment", "add", "bd-9", "x", "--author", "a"])
        .rejected(&["issue.not_found"]);

    // Close with a reason, reopen: beads' close_reason comes and goes with closed_at.
    test.store(&["issue", "close", "bd-1", "--reason", "fixed in 4f2a"])
        .ok();
    let closed = test.stored("bd-1");
    assert_eq!(closed["status"], "closed");
    assert_eq!(closed["close_reason"], "fixed in 4f2a");
    test.store(&["issue", "reopen", "bd-1"]).ok();
    let open = test.stored("bd-1");
    assert_eq!(open["status"], "open");
    assert!(open.get("close_reason").is_none() && open.get("closed_at").is_none());
    test.store(&["issue", "reopen", "bd-1"])
        .rejected(&["issue.not_closed"]);
    // Everything beads wrote that tusk does not know is still there.
    assert_eq!(open["x_beads_extra"], json!({"k": 1}));
    assert_eq!(open["description"], "");

    // The host actions do the same.
    let r = test.eval_with_authority(
        r#"(issue.label (hash "id" "bd-2" "add" (list "api")))
           (issue.comment (hash "id" "bd-2" "author" "agent.b" "text" "on it"))
           (issue.close (hash "id" "bd-2" "reason" "done"))
           (hash-ref (payload (issue.comments (hash "id" "bd-2"))) "count")"#,
    );
    assert_eq!(r["result"], "accepted", "{r:#}");
    assert_eq!(r["value"], 1);
    let two = test.stored("bd-2");
    assert_eq!(two["labels"], json!(["api"]));
    assert_eq!(two["close_reason"], "done");
    assert_eq!(two["comments"][0]["author"], "agent.b");
}

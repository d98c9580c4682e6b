//! The PostgreSQL store through the binary: `tusk store init|import|export|status`,
//! byte-exact round trips, and every way a database can be unusable (each a
//! typed error, exit 2, nothing written). Needs the cluster `.ci/run` starts.

use crate::common::{Run, Test};
use crate::pg_support::{admin_url, TestDb};
use serde_json::Value;

/// `tusk store import FILE --store URL [--replace] --json`.
fn import(dir: &Test, file: &std::path::Path, url: &str, replace: bool) -> Run {
    let mut args = vec![
        "store",
        "import",
        file.to_str().unwrap(),
        "--store",
        url,
        "--json",
    ];
    if replace {
        args.push("--replace");
    }
    dir.run(&args)
}

/// `tusk store export --store URL`: the exported text.
fn export(dir: &Test, url: &str) -> String {
    let out = dir.run(&["store", "export", "--store", url]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn json_of(out: &Run) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A store shaped like a real beads export: unknown fields at every level,
/// nested values, escapes, non-ASCII text, a blank line, a CRLF line.
fn real_shaped(n: usize) -> String {
    let mut text = String::new();
    for i in 1..=n {
        let status = ["open", "in_progress", "closed", "blocked"][i % 4];
        let kind = ["task", "bug", "feature"][i % 3];
        let line = serde_json::json!({
            "id": format!("bd-{i}"),
            "title": format!("Issue {i} — ünïcödé \"quoted\" \\ tab\t"),
            "status": status,
            "priority": i % 5,
            "issue_type": kind,
            "labels": ["fleet", format!("l{}", i % 7)],
            "x_custom": {"nested": [1, 2.5, null, true], "deep": {"k": "v"}},
            "dependencies": if i > 1 { serde_json::json!([{"issue_id": format!("bd-{i}"), "depends_on_id": format!("bd-{}", i - 1), "type": "related", "x_edge": 7}]) } else { serde_json::json!([]) },
            "created_at": "2026-01-02T03:04:05Z",
        });
        text.push_str(&serde_json::to_string(&line).unwrap());
        if i == 3 {
            text.push('\r');
        }
        text.push('\n');
        if i == 5 {
            text.push('\n');
        }
    }
    text
}

#[test]
fn import_then_export_is_byte_identical_and_reads_like_the_file() {
    let dir = Test::on_files();
    let db = TestDb::new();
    for (name, text) in [
        ("with final newline", real_shaped(300)),
        (
            "without final newline",
            real_shaped(40).trim_end_matches('\n').to_string(),
        ),
        ("empty", String::new()),
    ] {
        let file = dir.path("in.jsonl");
        std::fs::write(&file, &text).unwrap();
        let out = import(&dir, &file, &db.url, true);
        assert!(out.status.success(), "{name}: {:?}", out);
        assert_eq!(
            export(&dir, &db.url),
            text,
            "{name}: export differs from import"
        );
        // Every view reads the same from the file and from the database.
        for view in [
            &["issue", "list", "--json"][..],
            &["issue", "ready", "--json"],
            &["issue", "blocked", "--json"],
            &["issue", "check", "--json"],
        ] {
            let from_file = dir.run(&[view, &["--issues", file.to_str().unwrap()]].concat());
            let from_db = dir.run(&[view, &["--store", &db.url]].concat());
            assert_eq!(
                from_file.status.code(),
                from_db.status.code(),
                "{name} {view:?}"
            );
            let (mut a, mut b) = (json_of(&from_file), json_of(&from_db));
            a.as_object_mut().unwrap().remove("issuesPath");
            b.as_object_mut().unwrap().remove("issuesPath");
            assert_eq!(a, b, "{name} {view:?}");
        }
    }
    // A mutation rewrites one line and keeps every unknown field of it.
    let file = dir.path("in.jsonl");
    std::fs::write(&file, real_shaped(10)).unwrap();
    assert!(import(&dir, &file, &db.url, true).status.success());
    let out = dir.run(&[
        "issue", "update", "bd-4", "--title", "renamed", "--store", &db.url,
    ]);
    assert!(out.status.success(), "{out:?}");
    let exported = export(&dir, &db.url);
    let original = real_shaped(10);
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(exported.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    let row: Value = serde_json::from_str(changed[0].1).unwrap();
    assert_eq!(row["title"], "renamed");
    assert_eq!(row["x_custom"]["deep"]["k"], "v");
    assert_eq!(row["dependencies"][0]["x_edge"], 7);
}

#[test]
fn import_refuses_a_corrupt_file_or_a_non_empty_store_and_writes_nothing() {
    let dir = Test::on_files();
    let db = TestDb::new();
    let good = dir.path("good.jsonl");
    std::fs::write(&good, real_shaped(5)).unwrap();
    assert!(import(&dir, &good, &db.url, false).status.success());
    let before = export(&dir, &db.url);

    let out = import(&dir, &good, &db.url, false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["failureClasses"][0], "store.not_empty");

    let bad = dir.path("bad.jsonl");
    std::fs::write(
        &bad,
        format!("{}{{\"id\":\"x\",\"title\":\n", real_shaped(2)),
    )
    .unwrap();
    let out = import(&dir, &bad, &db.url, true);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["failureClasses"][0], "memory.store_corrupt");
    assert!(v["diagnostic"].as_str().unwrap().contains("line 3"), "{v}");

    let out = import(&dir, &dir.path("absent.jsonl"), &db.url, true);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(export(&dir, &db.url), before);
}

#[test]
fn init_is_idempotent_and_status_counts_rows() {
    let dir = Test::on_files();
    let db = TestDb::bare();
    let first = json_of(&dir.run(&["store", "init", "--store", &db.url, "--json"]));
    assert_eq!(first["schemaVersionBefore"], 0);
    assert_eq!(first["schemaVersion"], tusk::pg::SCHEMA_VERSION);
    assert_eq!(first["migrated"], true);
    let again = json_of(&dir.run(&["store", "init", "--store", &db.url, "--json"]));
    assert_eq!(again["schemaVersionBefore"], tusk::pg::SCHEMA_VERSION);
    assert_eq!(again["migrated"], false);
    assert!(dir
        .run(&["issue", "add", "one", "--store", &db.url])
        .status
        .success());
    let status = json_of(&dir.run(&["store", "status", "--store", &db.url, "--json"]));
    assert_eq!(status["backend"], "postgres");
    assert_eq!(status["schemaVersion"], tusk::pg::SCHEMA_VERSION);
    assert_eq!(status["issueLines"], 1);
    assert!(
        !status
            .to_string()
            .contains(db.url.split(':').nth(2).unwrap().split('@').next().unwrap()),
        "status must not print the password: {status}"
    );
    // TUSK_STORE selects the same database.
    let out = dir
        .tusk(&["issue", "list", "--json"])
        .env("TUSK_STORE", &db.url)
        .run();
    assert_eq!(json_of(&out)["count"], 1);
    assert!(!dir.path(".premath").exists());
    // Without a database, status reports the files.
    let files = json_of(&dir.run(&["store", "status", "--json"]));
    assert_eq!(files["backend"], "jsonl");
    assert_eq!(files["issueCount"], 0);
}

/// Runs a mutation, a read and `store status` against `url`: each must exit 2
/// with `class` and a message containing `hint`; no local file appears.
fn assert_unusable(url: &str, class: &str, hint: &str) {
    let dir = Test::on_files();
    for args in [
        &["issue", "add", "x", "--json"][..],
        &["issue", "ready", "--json"],
        &["issue", "claim-next", "--assignee", "w", "--json"],
        &["store", "status", "--json"],
    ] {
        let out = dir.run(&[args, &["--store", url]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?} on {class}: {out:?}");
        let v = json_of(&out);
        assert_eq!(v["failureClasses"][0], class, "{args:?}: {v}");
        let diag = v["diagnostic"].as_str().unwrap();
        assert!(diag.contains(hint), "{args:?}: {diag}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(class), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let entries: Vec<_> = std::fs::read_dir(dir.dir()).unwrap().collect();
    assert!(entries.is_empty(), "{entries:?}");
}

#[test]
fn an_unreachable_server_is_a_typed_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    assert_unusable(
        &format!("postgres://tusk:x@127.0.0.1:{port}/tusk"),
        "store.unreachable",
        "cannot reach the server",
    );
}

#[test]
fn wrong_credentials_are_a_typed_error() {
    let admin = admin_url();
    let (head, tail) = admin.split_once('@').unwrap();
    let user = head.rsplit_once(':').unwrap().0;
    assert_unusable(
        &format!("{user}:wrong-password@{tail}"),
        "store.auth_failed",
        "check the user and password",
    );
}

#[test]
fn a_missing_database_schema_or_version_is_a_typed_error() {
    let admin = admin_url();
    let base = admin.rsplit_once('/').unwrap().0;
    assert_unusable(
        &format!("{base}/tusk_no_such_database"),
        "store.database_missing",
        "create it first",
    );

    let bare = TestDb::bare();
    assert_unusable(&bare.url, "store.schema_missing", "tusk store init");

    let newer = TestDb::new();
    newer
        .client()
        .execute("UPDATE tusk_schema_version SET version = 99", &[])
        .unwrap();
    assert_unusable(&newer.url, "store.schema_version", "newer tusk");
    let dir = Test::on_files();
    let out = dir.run(&["store", "init", "--store", &newer.url, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["failureClasses"][0], "store.schema_version");
    // The refused writes left the database as it was.
    let n: i64 = newer
        .client()
        .query_one("SELECT count(*) FROM tusk_issue_lines", &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
}

#[test]
fn bad_urls_and_conflicting_flags_are_refused() {
    let dir = Test::on_files();
    let out = dir.run(&[
        "store",
        "status",
        "--store",
        "postgres://u:secret@/db?port=x",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let v = json_of(&out);
    assert_eq!(v["failureClasses"][0], "store.bad_url");
    assert!(!out.stdout.windows(6).any(|w| w == b"secret"));
    assert!(!out.stderr.windows(6).any(|w| w == b"secret"));

    let db = TestDb::new();
    let out = dir.run(&["issue", "list", "--store", &db.url, "--issues", "x.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not both"));
    let out = dir.run(&["store", "init", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["failureClasses"][0], "store.not_selected");
}

/// A store that exercises every readiness rule: priorities, ids that sort
/// differently as text and as numbers, open and closed blockers, a missing
/// blocker, non-blocking edges, an active lease of another owner on an open
/// issue, a stale lease, a repeated id (the last line wins), a blank line.
fn tricky_store() -> String {
    let lines = [
        r#"{"id":"t-10","title":"a","priority":1}"#,
        r#"{"id":"t-9","title":"b","priority":1}"#,
        r#"{"id":"t-2","title":"c","priority":0,"dependencies":[{"issue_id":"t-2","depends_on_id":"t-1","type":"blocks"}]}"#,
        r#"{"id":"t-1","title":"d","priority":3,"status":"closed"}"#,
        r#"{"id":"t-3","title":"e","priority":0,"dependencies":[{"issue_id":"t-3","depends_on_id":"t-4","type":"blocks"}]}"#,
        r#"{"id":"t-4","title":"f","priority":2}"#,
        r#"{"id":"t-5","title":"g","priority":0,"dependencies":[{"issue_id":"t-5","depends_on_id":"nope","type":"blocks"}]}"#,
        r#"{"id":"t-6","title":"h","priority":0,"dependencies":[{"issue_id":"t-6","depends_on_id":"t-4","type":"related"}]}"#,
        r#"{"id":"t-7","title":"i","priority":0,"status":"open","assignee":"other","lease":{"lease_id":"l7","owner":"other","acquired_at":"2026-01-01T00:00:00Z","expires_at":"2099-01-01T00:00:00Z"}}"#,
        r#"{"id":"t-8","title":"j","priority":1,"status":"open","lease":{"lease_id":"l8","owner":"gone","acquired_at":"2026-01-01T00:00:00Z","expires_at":"2026-01-01T00:01:00Z"}}"#,
        r#"{"id":"t-11","title":"old","priority":0,"status":"closed"}"#,
        "",
        r#"{"id":"t-11","title":"k","priority":4,"x":1}"#,
        r#"{"id":"t-12","title":"l","status":"in_progress","priority":0}"#,
    ];
    lines.join("\n") + "\n"
}

/// The ids `claim-next` hands out, in order, until it claims nothing.
fn drain(dir: &Test, store: &[&str]) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..20 {
        let out = dir.run(
            &[
                &["issue", "claim-next", "--assignee", "me", "--json"],
                store,
            ]
            .concat(),
        );
        assert!(out.status.success(), "{out:?}");
        let v = json_of(&out);
        if v["claimed"] != true {
            return ids;
        }
        ids.push(v["issue"]["id"].as_str().unwrap().to_string());
    }
    panic!("claim-next did not run dry: {ids:?}");
}

#[test]
fn row_locked_claims_pick_what_the_whole_store_picks() {
    let dir = Test::on_files();
    let file = dir.path("t.jsonl");
    std::fs::write(&file, tricky_store()).unwrap();
    let from_file = drain(&dir, &["--issues", file.to_str().unwrap()]);
    assert!(from_file.len() >= 5, "{from_file:?}");

    // Imported (indexed): claims take the row-locked path.
    let indexed = TestDb::new();
    indexed.put_issue_text(&tricky_store());
    assert_eq!(drain(&dir, &["--store", &indexed.url]), from_file);
    // Written by another tool (not indexed): the whole-store path, which
    // indexes the lines as it goes.
    let raw = TestDb::new();
    raw.put_raw_issue_text(&tricky_store());
    assert_eq!(drain(&dir, &["--store", &raw.url]), from_file);

    // The stores end identical, byte for byte, to the file.
    let file_text = std::fs::read_to_string(&file).unwrap();
    // Claim times differ run to run; everything else must not.
    let normalize = |t: String| -> Vec<Value> {
        t.split('\n')
            .map(|line| {
                let mut v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
                if v["assignee"] == "me" {
                    v["updated_at"] = "T".into();
                    v["lease"]["acquired_at"] = "T".into();
                    v["lease"]["expires_at"] = "T".into();
                }
                v
            })
            .collect()
    };
    for db in [&indexed, &raw] {
        let exported = export(&dir, &db.url);
        assert_eq!(normalize(exported), normalize(file_text.clone()));
    }
}

#[test]
fn an_unreachable_store_stops_every_log_reader_and_eval_with_its_class() {
    let dir = Test::on_files();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("postgres://tusk:x@127.0.0.1:{port}/tusk");
    std::fs::write(dir.path("p.scm"), "(issue.ready)").unwrap();
    for args in [
        &["harness-trajectory", "query"][..],
        &["harness-kpi"],
        &["replay"],
        &["eval", "p.scm"],
    ] {
        let out = dir.run(&[args, &["--store", &url]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cannot reach the server"),
            "{args:?}: {stderr}"
        );
    }
    let out = dir.run(&["eval", "--json", "p.scm", "--store", &url]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["error"]["class"], "store.unreachable");
    let entries: Vec<_> = std::fs::read_dir(dir.dir()).unwrap().collect();
    assert_eq!(entries.len(), 1, "only the program file: {entries:?}");
}

#[test]
fn harness_retry_escalates_on_the_database_store() {
    let dir = Test::on_files();
    let db = TestDb::new();
    assert!(dir
        .run(&["issue", "add", "Parser", "--store", &db.url])
        .status
        .success());
    // An explicit --store beats PREMATH_ISSUES_PATH naming a file.
    let out = dir
        .tusk(&[
            "harness-retry",
            "escalate",
            "--failure-class",
            "scheme_eval.timeout",
            "--attempt",
            "3",
            "--issue-id",
            "bd-1",
            "--json",
            "--store",
            &db.url,
        ])
        .env("PREMATH_ISSUES_PATH", dir.path("elsewhere.jsonl"))
        .run();
    assert!(out.status.success(), "{out:?}");
    let v = json_of(&out);
    assert_eq!(v["outcome"], "issue_discover");
    let created = v["createdIssueId"].as_str().unwrap();
    let exported = export(&dir, &db.url);
    assert!(
        exported.contains(&format!("\"id\":\"{created}\"")),
        "{exported}"
    );
    assert!(!dir.path("elsewhere.jsonl").exists());
    assert!(!dir.path(".premath").exists());
}

/// premath's lease transport on a fleet's database: `TUSK_STORE` names the
/// store when the payload has no `issuesPath`; the answer is premath's
/// envelope, and a refusal is an answer too (exit 0).
#[test]
fn transport_dispatch_leases_from_the_database() {
    let dir = Test::on_files();
    let db = TestDb::new();
    db.put_issue_text("{\"id\":\"bd-1\",\"title\":\"One\",\"status\":\"open\"}\n");
    let dispatch = |action: &str, payload: &str| {
        let out = dir
            .tusk(&[
                "transport-dispatch",
                "--action",
                action,
                "--payload",
                payload,
            ])
            .arg("--json")
            .env("TUSK_STORE", &db.url)
            .run();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        json_of(&out)
    };
    let claimed = dispatch("issue.claim_next", "{\"assignee\":\"w1\"}");
    assert_eq!(claimed["result"], "accepted", "{claimed:#}");
    assert_eq!(claimed["issue"]["id"], "bd-1");
    assert_eq!(claimed["issue"]["lease"]["state"], "active");
    assert_eq!(claimed["leaseProjection"]["staleCount"], 0);
    let refused = dispatch(
        "issue.lease_renew",
        "{\"id\":\"bd-1\",\"assignee\":\"w2\",\"leaseId\":\"lease1_bd-1_w1\"}",
    );
    assert_eq!(
        refused["failureClasses"],
        serde_json::json!(["lease_owner_mismatch"])
    );
    let released = dispatch(
        "issue.lease_release",
        "{\"id\":\"bd-1\",\"assignee\":\"w1\",\"leaseId\":\"lease1_bd-1_w1\"}",
    );
    assert_eq!(released["result"], "accepted", "{released:#}");
    assert!(released["issue"].get("lease").is_none());
    assert!(export(&dir, &db.url).contains("\"status\":\"open\""));
    assert!(!dir.path(".premath").exists());
}

/// An import keeps every line as it is, and reports a status that is neither
/// built in nor declared (`status.custom` in the working directory's
/// `.premath/config.json`) instead of taking it silently.
#[test]
fn import_reports_undeclared_statuses() {
    let dir = Test::on_files();
    let db = TestDb::new();
    let text = concat!(
        r#"{"id":"bd-1","title":"a","status":"open"}"#,
        "\n",
        r#"{"id":"bd-2","title":"b","status":"in_reveiw"}"#,
        "\n",
        r#"{"id":"bd-3","title":"c","status":"qa_testing"}"#,
        "\n"
    );
    let file = dir.path("in.jsonl");
    std::fs::write(&file, text).unwrap();
    std::fs::create_dir_all(dir.path(".premath")).unwrap();
    std::fs::write(
        dir.path(".premath/config.json"),
        r#"{"status.custom": "qa_testing:wip"}"#,
    )
    .unwrap();
    let out = import(&dir, &file, &db.url, true);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["undeclaredStatuses"],
        serde_json::json!([{"id": "bd-2", "status": "in_reveiw"}])
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("in_reveiw"));
    assert_eq!(export(&dir, &db.url), text, "kept byte for byte");
}

/// Issues of three roles with every member a filter reads, in the spellings
/// a store may hold them.
fn routed_store() -> String {
    let lines = [
        r#"{"id":"epic-1","title":"Epic","status":"closed","issue_type":"epic"}"#,
        r#"{"id":"web-1","title":"Fix the BUTTON","priority":0,"labels":["ui","web"],"issue_type":"bug"}"#,
        r#"{"id":"web-2","title":"Layout","priority":2,"labels":["ui"],"assignee":"","dependencies":[{"issue_id":"web-2","depends_on_id":"epic-1","type":"parent-child"}]}"#,
        r#"{"id":"api-1","title":"Fix the handler","priority":1,"labels":["api"],"issue_type":"bug","assignee":"carol"}"#,
        r#"{"id":"api-2","title":"Schema","priority":0,"labels":["api","slow"]}"#,
        r#"{"id":"api-3","title":"Pagination","priority":3,"labels":["api"],"dependencies":[{"issue_id":"api-3","depends_on_id":"epic-1","type":"parent-child"}]}"#,
        r#"{"id":"doc-1","title":"Guide","priority":1,"labels":["docs"],"issue_type":"task","description":"Retry rules","created_at":"2026-01-05T00:00:00Z"}"#,
        r#"{"id":"doc-2","title":"fix typos","priority":4}"#,
        r#"{"id":"web-3","title":"Blocked","priority":0,"labels":["ui"],"dependencies":[{"issue_id":"web-3","depends_on_id":"api-1","type":"blocks"}]}"#,
    ];
    lines.join("\n") + "\n"
}

/// `drain` with filter flags.
fn drain_routed(dir: &Test, store: &[&str], flags: &[&str]) -> Vec<String> {
    drain(dir, &[store, flags].concat())
}

#[test]
fn filtered_claims_pick_what_the_whole_store_picks() {
    let dir = Test::on_files();
    let filters: &[&[&str]] = &[
        &["--label", "ui"],
        &["--label", "ui", "--label", "web"],
        &["--label-any", "api", "--exclude-label", "slow"],
        &["--type", "bug"],
        &["--unassigned", "--priority-max", "1"],
        &["--priority-min", "1", "--priority-max", "3"],
        &["--id-prefix", "doc-"],
        &["--parent", "epic-1"],
        &["--title-contains", "FIX"],
        &["--description-contains", "retry"],
        &["--created-before", "2026-02-01T00:00:00Z"],
        &["--label", "nobody"],
    ];
    for flags in filters {
        let file = dir.path("r.jsonl");
        std::fs::write(&file, routed_store()).unwrap();
        let from_file = drain_routed(&dir, &["--issues", file.to_str().unwrap()], flags);
        let indexed = TestDb::new();
        indexed.put_issue_text(&routed_store());
        assert_eq!(
            drain_routed(&dir, &["--store", &indexed.url], flags),
            from_file,
            "{flags:?}"
        );
        let raw = TestDb::new();
        raw.put_raw_issue_text(&routed_store());
        assert_eq!(
            drain_routed(&dir, &["--store", &raw.url], flags),
            from_file,
            "{flags:?} (lines another tool wrote)"
        );
    }
}

#[test]
fn a_filtered_claim_does_not_wait_for_another_roles_claim() {
    let dir = Test::on_files();
    // Twenty ready ui issues ahead of the two api ones.
    let mut lines: Vec<String> = (0..20)
        .map(|n| format!(r#"{{"id":"ui-{n}","title":"u","priority":0,"labels":["ui"]}}"#))
        .collect();
    lines.push(r#"{"id":"api-1","title":"a","priority":3,"labels":["api"]}"#.into());
    lines.push(r#"{"id":"api-2","title":"a","priority":3,"labels":["api"]}"#.into());
    let db = TestDb::new();
    db.put_issue_text(&(lines.join("\n") + "\n"));
    // A ui worker's claim in flight: it holds the store lock shared.
    let mut side = db.client();
    let mut tx = side.transaction().unwrap();
    tx.execute(
        "SELECT pg_advisory_xact_lock_shared($1)",
        &[&tusk::pg::ISSUES_LOCK],
    )
    .unwrap();
    // The api worker's claim considers api lines only: it needs no more than
    // the shared lock, so it neither waits nor times out.
    let started = std::time::Instant::now();
    let out = dir.run(&[
        "issue",
        "claim-next",
        "--assignee",
        "api.1",
        "--label",
        "api",
        "--lock-timeout-ms",
        "2000",
        "--json",
        "--store",
        &db.url,
    ]);
    let v = json_of(&out);
    assert_eq!(v["claimed"], true, "{v:#}");
    assert_eq!(v["issue"]["id"], "api-1");
    assert!(
        started.elapsed() < std::time::Duration::from_millis(1500),
        "the claim waited for the other role's"
    );
    tx.rollback().unwrap();
}

#[test]
fn a_version_1_database_migrates_and_routes() {
    let dir = Test::on_files();
    let db = TestDb::new();
    db.put_issue_text(&routed_store());
    // As a database tusk's schema 1 created.
    db.client()
        .batch_execute(
            "ALTER TABLE tusk_issue_lines DROP COLUMN route; \
             UPDATE tusk_schema_version SET version = 1",
        )
        .unwrap();
    let out = dir.run(&["issue", "ready", "--store", &db.url]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let v = json_of(&dir.run(&["store", "init", "--store", &db.url, "--json"]));
    assert_eq!(v["schemaVersionBefore"], 1);
    assert_eq!(v["schemaVersion"], tusk::pg::SCHEMA_VERSION);
    let file = dir.path("r.jsonl");
    std::fs::write(&file, routed_store()).unwrap();
    let flags = ["--label-any", "api", "--exclude-label", "slow"];
    assert_eq!(
        drain_routed(&dir, &["--store", &db.url], &flags),
        drain_routed(&dir, &["--issues", file.to_str().unwrap()], &flags)
    );
    // The first whole-store claim derived the new columns of every line.
    let row = db
        .client()
        .query_one(
            "SELECT count(*) FILTER (WHERE NOT indexed), \
                    count(*) FILTER (WHERE issue_id IS NOT NULL AND route IS NULL) \
             FROM tusk_issue_lines",
            &[],
        )
        .unwrap();
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (0, 0));
}

#[test]
fn a_version_2_database_upgrades_in_place_and_keeps_its_data() {
    let dir = Test::on_files();
    let db = TestDb::new();
    db.put_issue_text(&real_shaped(50));
    let before = export(&dir, &db.url);
    // As a database tusk's schema 2 created (before the blocker-target
    // index and the writers table).
    db.client()
        .batch_execute(
            "DROP INDEX tusk_issue_blockers_target; DROP TABLE tusk_log_writers; \
             DROP TABLE tusk_issue_edges; UPDATE tusk_schema_version SET version = 2",
        )
        .unwrap();
    let refused = dir.run(&["issue", "list", "--store", &db.url]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("tusk store init"),
        "{refused:?}"
    );
    let status = json_of(&dir.run(&["store", "status", "--store", &db.url, "--json"]));
    assert_eq!(status["schemaVersion"], 2, "{status}");
    let v = json_of(&dir.run(&["store", "init", "--store", &db.url, "--json"]));
    assert_eq!(v["schemaVersionBefore"], 2);
    assert_eq!(v["schemaVersion"], tusk::pg::SCHEMA_VERSION);
    assert_eq!(export(&dir, &db.url), before, "the upgrade kept every line");
    let status = json_of(&dir.run(&["store", "status", "--store", &db.url, "--json"]));
    assert_eq!(
        status["schemaVersion"],
        tusk::pg::SCHEMA_VERSION,
        "{status}"
    );
    // The index the cycle check reads is there, and a blocking edge is checked.
    let out = dir.run(&[
        "dep", "add", "bd-2", "bd-9", "--type", "blocks", "--store", &db.url, "--json",
    ]);
    assert!(out.status.success(), "{out:?}");
    let out = dir.run(&[
        "dep", "add", "bd-9", "bd-2", "--type", "blocks", "--store", &db.url, "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v["failureClasses"], serde_json::json!(["dep.cycle"]), "{v}");
    let n: i64 = db
        .client()
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE indexname = 'tusk_issue_blockers_target'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
    // Version 4's edges, derived by `store init` for every line at once.
    let unindexed: i64 = db
        .client()
        .query_one(
            "SELECT count(*) FROM tusk_issue_lines WHERE NOT indexed",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(unindexed, 0);
    let edges: i64 = db
        .client()
        .query_one("SELECT count(*) FROM tusk_issue_edges", &[])
        .unwrap()
        .get(0);
    assert!(edges > 0);
    // Version 4's writers table too: a run registers its writer there.
    let program = dir.write("p.scm", "(issue.ready)");
    dir.tusk(&["eval", "--store", &db.url])
        .arg(program)
        .env_remove("TUSK_STORE")
        .run()
        .status(0);
    let header = db
        .log_text("tusk_effects")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .unwrap();
    assert!(header["writer"].is_string(), "{header}");
}

//! The lease machine through the binary: claim, claim-next, renew, release, every
//! failure class, and the lock bound.

use crate::common::*;
use serde_json::json;

fn lease_with_extra(owner: &str, lease_id: &str) -> serde_json::Value {
    let mut l = lease(owner, lease_id, true);
    l["x_lease_meta"] = json!({"k": 1});
    l
}

/// A stored whole-second `…Z` instant as premath prints lease instants (`…+00:00`).
fn plus_offset(t: &serde_json::Value) -> String {
    let t = t.as_str().unwrap();
    assert!(t.ends_with('Z'), "{t}");
    format!("{}+00:00", &t[..t.len() - 1])
}

fn secs_until(t: &serde_json::Value) -> i64 {
    let t = chrono::DateTime::parse_from_rfc3339(t.as_str().unwrap()).unwrap();
    (t.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds()
}

#[test]
fn claim_takes_a_new_lease_with_defaults() {
    let test = Test::new().issues(&[issue("bd-7")]);
    let v = test
        .store(&["issue", "claim", "bd-7", "--assignee", "agent.a"])
        .ok();
    assert_eq!(v["action"], "issue.claim");
    assert_eq!(v["staleLeaseCleared"], false);
    let stored = test.stored("bd-7");
    // premath's lease summary (B) of what was stored.
    assert_eq!(
        v["issue"],
        json!({"assignee": "agent.a", "id": "bd-7", "issueType": "task", "owner": "",
               "priority": stored["priority"], "status": "in_progress", "title": stored["title"],
               "lease": {"leaseId": "lease1_bd-7_agent.a", "owner": "agent.a",
                         "acquiredAt": plus_offset(&stored["lease"]["acquired_at"]),
                         "expiresAt": plus_offset(&stored["lease"]["expires_at"]),
                         "renewedAt": null}})
    );
    assert_eq!(stored["status"], "in_progress");
    assert_eq!(stored["assignee"], "agent.a");
    let lease = &stored["lease"];
    assert_eq!(lease["lease_id"], "lease1_bd-7_agent.a");
    assert_eq!(lease["owner"], "agent.a");
    assert_eq!(lease["acquired_at"], stored["updated_at"]);
    let ttl = secs_until(&lease["expires_at"]);
    assert!(
        (3590..=3600).contains(&ttl),
        "default TTL is 3600 s, got {ttl}"
    );
    assert_eq!(
        test.store(&["issue", "show", "bd-7"]).ok()["leaseState"],
        "active"
    );
}

#[test]
fn claim_binding_ttl_expiry_and_explicit_lease_id() {
    let test = Test::new().issues(&[issue("a"), issue("b")]);
    let v = test
        .store(&[
            "issue",
            "claim",
            "a",
            "--assignee",
            "w",
            "--lease-ttl-seconds",
            "30",
            "--lease-id",
            "mine-1",
        ])
        .ok();
    assert_eq!(v["issue"]["lease"]["leaseId"], "mine-1");
    assert!((20..=30).contains(&secs_until(&v["issue"]["lease"]["expiresAt"])));
    let v = test
        .store(&[
            "issue",
            "claim",
            "b",
            "--assignee",
            "w",
            "--lease-expires-at",
            "2999-06-01T10:00:00+02:00",
        ])
        .ok();
    assert_eq!(
        v["issue"]["lease"]["expiresAt"],
        "2999-06-01T08:00:00+00:00"
    );
    assert_eq!(
        test.stored("b")["lease"]["expires_at"],
        "2999-06-01T08:00:00Z"
    );
}

#[test]
fn claim_input_failures_write_nothing() {
    let test = Test::new().issues(&[issue("a")]);
    let before = test.store_text();
    fn claim<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["issue", "claim", "a"];
        args.extend_from_slice(extra);
        args
    }
    test.store(&claim(&["--assignee", "w", "--lease-ttl-seconds", "29"]))
        .rejected(&["lease_invalid_ttl"]);
    test.store(&claim(&["--assignee", "w", "--lease-ttl-seconds", "86401"]))
        .rejected(&["lease_invalid_ttl"]);
    test.store(&["issue", "list"]).ok();
    test.store(&claim(&[
        "--assignee",
        "w",
        "--lease-ttl-seconds",
        "60",
        "--lease-expires-at",
        "2999-01-01T00:00:00Z",
    ]))
    .rejected(&["lease_binding_ambiguous"]);
    test.store(&claim(&[
        "--assignee",
        "w",
        "--lease-expires-at",
        "2001-01-01T00:00:00Z",
    ]))
    .rejected(&["lease_invalid_expires_at"]);
    test.store(&claim(&["--assignee", "w", "--lease-expires-at", "soon"]))
        .rejected(&["lease_invalid_expires_at"]);
    test.store(&claim(&["--assignee", ""]))
        .rejected(&["lease_invalid_assignee"]);
    test.store(&claim(&["--assignee", " ", "--lease-ttl-seconds", "5"]))
        .rejected(&["lease_invalid_assignee", "lease_invalid_ttl"]);
    assert_eq!(test.store_text(), before);
}

#[test]
fn claim_refuses_missing_closed_and_contended_issues() {
    let test = Test::new().issues(&[
        issue_with("done", json!({"status": "closed"})),
        issue_with(
            "held",
            json!({"status": "in_progress", "assignee": "other", "lease": lease("other", "l-o", true)}),
        ),
    ]);
    let before = test.store_text();
    test.store(&["issue", "claim", "nope", "--assignee", "w"])
        .rejected(&["issue.not_found", "lease_not_found"]);
    test.store(&["issue", "claim", "done", "--assignee", "w"])
        .rejected(&["lease_issue_closed"]);
    let v = test
        .store(&["issue", "claim", "held", "--assignee", "w"])
        .rejected(&["lease_contention_active"]);
    assert_eq!(v["holder"], "other");
    assert_eq!(v["expiresAt"], "2999-01-01T00:00:00Z");
    assert_eq!(test.store_text(), before);
}

#[test]
fn same_owner_reclaim_keeps_the_lease_id() {
    let test = Test::new().issues(&[issue_with(
        "a",
        json!({"status": "in_progress", "assignee": "w", "lease": lease_with_extra("w", "keep-me")}),
    )]);
    let v = test
        .store(&[
            "issue",
            "claim",
            "a",
            "--assignee",
            "w",
            "--lease-ttl-seconds",
            "120",
        ])
        .ok();
    let lease = &test.stored("a")["lease"];
    assert_eq!(v["issue"]["lease"]["leaseId"], "keep-me");
    assert_eq!(
        v["issue"]["lease"]["renewedAt"],
        plus_offset(&lease["renewed_at"])
    );
    assert_eq!(
        v["issue"]["lease"]["acquiredAt"],
        "2020-01-01T00:00:00+00:00"
    );
    assert_eq!(lease["lease_id"], "keep-me");
    assert_eq!(
        lease["x_lease_meta"],
        json!({"k": 1}),
        "unknown lease fields survive"
    );
    assert_eq!(lease["acquired_at"], "2020-01-01T00:00:00Z");
    assert!((110..=120).contains(&secs_until(&lease["expires_at"])));
    assert!(lease["renewed_at"].is_string());
    test.store(&[
        "issue",
        "claim",
        "a",
        "--assignee",
        "w",
        "--lease-id",
        "keep-me",
    ])
    .ok();
    let before = test.store_text();
    test.store(&[
        "issue",
        "claim",
        "a",
        "--assignee",
        "w",
        "--lease-id",
        "another",
    ])
    .rejected(&["lease_id_mismatch"]);
    assert_eq!(test.store_text(), before);
}

#[test]
fn stale_lease_is_cleared_and_reclaimed() {
    let test = Test::new().issues(&[issue_with(
        "a",
        json!({"status": "in_progress", "assignee": "crashed", "lease": lease("crashed", "old-lease", false)}),
    )]);
    assert_eq!(
        test.store(&["issue", "show", "a"]).ok()["leaseState"],
        "stale"
    );
    // in_progress is not ready; the explicit claim reclaims it.
    assert_eq!(test.store(&["issue", "ready"]).ok()["count"], 0);
    let v = test
        .store(&["issue", "claim", "a", "--assignee", "fresh"])
        .ok();
    assert_eq!(v["staleLeaseCleared"], true);
    let stored = test.stored("a");
    assert_eq!(stored["assignee"], "fresh");
    assert_eq!(stored["status"], "in_progress");
    assert_eq!(stored["lease"]["owner"], "fresh");
    assert_eq!(stored["lease"]["lease_id"], "lease1_a_fresh");
    assert_ne!(stored["lease"]["acquired_at"], "2020-01-01T00:00:00Z");
    // The old owner's lease is gone: it can neither renew nor release.
    test.store(&[
        "issue",
        "lease-renew",
        "a",
        "--assignee",
        "crashed",
        "--lease-id",
        "old-lease",
    ])
    .rejected(&["lease_owner_mismatch"]);
}

#[test]
fn claim_next_takes_the_first_ready_issue_not_leased_by_others() {
    let test = Test::new().issues(&[
        issue_with(
            "a",
            json!({"priority": 0, "lease": lease("other", "l-a", true)}),
        ),
        issue_with(
            "b",
            json!({"priority": 0, "dependencies": [blocks("b", "z")]}),
        ),
        issue_with(
            "c",
            json!({"priority": 1, "lease": lease("gone", "l-c", false)}),
        ),
        issue_with("d", json!({"priority": 1})),
        issue("z"),
    ]);
    let v = test
        .store(&["issue", "claim-next", "--assignee", "me"])
        .ok();
    assert_eq!(v["action"], "issue.claim_next");
    assert_eq!(v["claimed"], true);
    assert_eq!(
        v["issue"]["id"], "c",
        "a is leased by another owner, b is blocked, c's lease is stale"
    );
    assert_eq!(v["staleLeaseCleared"], true);
    assert_eq!(test.stored("c")["lease"]["owner"], "me");
    assert_eq!(
        test.store(&["issue", "claim-next", "--assignee", "me"])
            .ok()["issue"]["id"],
        "d"
    );
    assert_eq!(
        test.store(&[
            "issue",
            "claim-next",
            "--assignee",
            "me",
            "--lease-ttl-seconds",
            "60"
        ])
        .ok()["issue"]["id"],
        "z"
    );
    let before = test.store_text();
    let none = test
        .store(&["issue", "claim-next", "--assignee", "me"])
        .ok();
    assert_eq!(none["claimed"], false);
    assert_eq!(none["issue"], serde_json::Value::Null);
    assert_eq!(none["result"], "accepted");
    assert_eq!(test.store_text(), before);
    test.store(&[
        "issue",
        "claim-next",
        "--assignee",
        "me",
        "--lease-ttl-seconds",
        "1",
    ])
    .rejected(&["lease_invalid_ttl"]);
    // The other owner's open, leased issue is claimable by that owner, keeping its id.
    let v = test
        .store(&["issue", "claim-next", "--assignee", "other"])
        .ok();
    assert_eq!(
        (
            v["issue"]["id"].as_str(),
            v["issue"]["lease"]["leaseId"].as_str()
        ),
        (Some("a"), Some("l-a"))
    );
}

#[test]
fn lease_renew_rules() {
    let test = Test::new().issues(&[
        issue_with(
            "a",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "la", true)}),
        ),
        issue_with(
            "s",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "ls", false)}),
        ),
        issue("free"),
    ]);
    let before = test.store_text();
    test.store(&[
        "issue",
        "lease-renew",
        "nope",
        "--assignee",
        "w",
        "--lease-id",
        "la",
    ])
    .rejected(&["issue.not_found", "lease_not_found"]);
    test.store(&[
        "issue",
        "lease-renew",
        "free",
        "--assignee",
        "w",
        "--lease-id",
        "la",
    ])
    .rejected(&["lease_missing"]);
    test.store(&[
        "issue",
        "lease-renew",
        "s",
        "--assignee",
        "w",
        "--lease-id",
        "ls",
    ])
    .rejected(&["lease_stale"]);
    test.store(&[
        "issue",
        "lease-renew",
        "a",
        "--assignee",
        "x",
        "--lease-id",
        "la",
    ])
    .rejected(&["lease_owner_mismatch"]);
    test.store(&[
        "issue",
        "lease-renew",
        "a",
        "--assignee",
        "w",
        "--lease-id",
        "lb",
    ])
    .rejected(&["lease_id_mismatch"]);
    test.store(&[
        "issue",
        "lease-renew",
        "a",
        "--assignee",
        "w",
        "--lease-id",
        "la",
        "--lease-ttl-seconds",
        "10",
    ])
    .rejected(&["lease_invalid_ttl"]);
    assert_eq!(test.store_text(), before);
    assert_eq!(
        test.store_raw(&["issue", "lease-renew", "a", "--assignee", "w"])
            .run()
            .status
            .code(),
        Some(2),
        "--lease-id is required"
    );

    let v = test
        .store(&[
            "issue",
            "lease-renew",
            "a",
            "--assignee",
            "w",
            "--lease-id",
            "la",
            "--lease-ttl-seconds",
            "600",
        ])
        .ok();
    let lease = &test.stored("a")["lease"];
    assert_eq!(lease, &v["lease"]);
    assert_eq!(lease["lease_id"], "la");
    assert_eq!(lease["acquired_at"], "2020-01-01T00:00:00Z");
    assert!((590..=600).contains(&secs_until(&lease["expires_at"])));
    assert!(lease["renewed_at"].is_string());
    test.store(&[
        "issue",
        "lease-renew",
        "a",
        "--assignee",
        "w",
        "--lease-id",
        "la",
        "--lease-expires-at",
        "2999-02-02T00:00:00Z",
    ])
    .ok();
    assert_eq!(
        test.stored("a")["lease"]["expires_at"],
        "2999-02-02T00:00:00Z"
    );
}

#[test]
fn lease_release_rules() {
    let test = Test::new().issues(&[
        issue_with(
            "a",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "la", true), "x_extra": 1}),
        ),
        issue_with(
            "s",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "ls", false)}),
        ),
        issue_with(
            "b",
            json!({"status": "blocked", "assignee": "w", "lease": lease("w", "lb", true)}),
        ),
        issue("free"),
    ]);
    test.store(&["issue", "lease-release", "zz", "--assignee", "w"])
        .rejected(&["issue.not_found", "lease_not_found"]);
    test.store(&["issue", "lease-release", "free", "--assignee", "w"])
        .rejected(&["lease_missing"]);
    test.store(&["issue", "lease-release", "a", "--assignee", "x"])
        .rejected(&["lease_owner_mismatch"]);
    test.store(&[
        "issue",
        "lease-release",
        "a",
        "--assignee",
        "w",
        "--lease-id",
        "nope",
    ])
    .rejected(&["lease_id_mismatch"]);
    test.store(&["issue", "lease-release", "a", "--assignee", ""])
        .rejected(&["lease_invalid_assignee"]);
    let v = test
        .store(&[
            "issue",
            "lease-release",
            "a",
            "--assignee",
            "w",
            "--lease-id",
            "la",
        ])
        .ok();
    assert_eq!(v["releasedLease"]["lease_id"], "la");
    let stored = test.stored("a");
    assert!(stored.get("lease").is_none() && stored.get("assignee").is_none());
    assert_eq!(stored["status"], "open");
    assert_eq!(stored["x_extra"], 1);
    // The owner may give back a stale lease; a non-in_progress status is kept.
    test.store(&["issue", "lease-release", "s", "--assignee", "w"])
        .ok();
    assert_eq!(test.stored("s")["status"], "open");
    test.store(&["issue", "lease-release", "b", "--assignee", "w"])
        .ok();
    assert_eq!(test.stored("b")["status"], "blocked");
    assert_eq!(
        ids(&test.store(&["issue", "ready"]).ok()),
        ["a", "free", "s"]
    );
}

#[test]
fn a_held_lock_makes_mutations_busy_and_writes_nothing() {
    use fs4::FileExt;
    let test = Test::new().issues(&[issue("a")]);
    let before = test.store_text();
    // The file store's lock is flock(2) on the lock file; the database's is an
    // advisory lock, here held by another session.
    let mut file_holder = None;
    let mut db_holder = None;
    match &test.db {
        None => {
            let lock_path = tusk::issues::store::lock_path(&test.issues_path());
            let holder = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock_path)
                .unwrap();
            FileExt::lock(&holder).unwrap();
            file_holder = Some(holder);
        }
        Some(db) => {
            let mut c = db.client();
            c.execute("SELECT pg_advisory_lock($1)", &[&tusk::pg::ISSUES_LOCK])
                .unwrap();
            db_holder = Some(c);
        }
    }
    let started = std::time::Instant::now();
    let (code, v) = test
        .store(&[
            "issue",
            "claim",
            "a",
            "--assignee",
            "w",
            "--lock-timeout-ms",
            "300",
        ])
        .reply();
    let waited = started.elapsed();
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["failureClasses"], json!(["lease_mutation_lock_busy"]));
    assert!(
        waited >= std::time::Duration::from_millis(300),
        "{waited:?}"
    );
    let (code, v) = test
        .store(&["issue", "add", "x", "--lock-timeout-ms", "100"])
        .reply();
    assert_eq!(
        (code, v["failureClasses"].clone()),
        (1, json!(["lease_mutation_lock_busy"]))
    );
    // Reads never wait for the lock.
    assert_eq!(test.store(&["issue", "ready"]).ok()["count"], 1);
    assert_eq!(test.store_text(), before);
    if let Some(holder) = &file_holder {
        FileExt::unlock(holder).unwrap();
    }
    drop(db_holder);
    test.store(&[
        "issue",
        "claim",
        "a",
        "--assignee",
        "w",
        "--lock-timeout-ms",
        "300",
    ])
    .ok();
}

#[test]
fn a_lock_left_by_a_killed_process_does_not_wedge_the_store() {
    use std::io::BufRead;
    let test = Test::new().issues(&[issue("a")]);
    if !test.is_file() {
        // A database releases a dead session's locks itself; the fleet test
        // (tests/it/pg_fleet.rs) kills workers mid-claim.
        return;
    }
    let lock_path = tusk::issues::store::lock_path(&test.issues_path());
    // Another process takes the same flock(2) lock and is then SIGKILLed while holding it.
    let mut holder = std::process::Command::new("python3")
        .args([
            "-c",
            "import fcntl,sys,time\nf=open(sys.argv[1],'a')\nfcntl.flock(f,fcntl.LOCK_EX)\nprint('locked',flush=True)\ntime.sleep(60)",
        ])
        .arg(&lock_path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 is available");
    let mut line = String::new();
    std::io::BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");
    let (code, v) = test
        .store(&[
            "issue",
            "update",
            "a",
            "--notes",
            "x",
            "--lock-timeout-ms",
            "100",
        ])
        .reply();
    assert_eq!(
        (code, v["failureClasses"].clone()),
        (1, json!(["lease_mutation_lock_busy"]))
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    test.store(&[
        "issue",
        "update",
        "a",
        "--notes",
        "after",
        "--lock-timeout-ms",
        "1000",
    ])
    .ok();
    assert_eq!(test.stored("a")["notes"], "after");
}

#[test]
fn lease_projection_counts_stale_and_contended_leases() {
    let test = Test::new().issues(&[
        issue_with(
            "bd-10",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "l-10", false)}),
        ),
        issue_with(
            "bd-2",
            json!({"status": "in_progress", "assignee": "q", "lease": lease("other", "l-2", true)}),
        ),
        issue_with(
            "bd-3",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "l-3", true)}),
        ),
        issue("bd-4"),
    ]);
    let before = test.store_text();
    let v = test.store(&["issue", "lease-projection"]).ok();
    assert_eq!(v["action"], "issue.lease_projection");
    assert_eq!(v["issuesPath"], test.issues_path().display().to_string());
    let backend = if test.db.is_some() {
        "postgres"
    } else {
        "jsonl"
    };
    assert_eq!(
        (&v["queryBackend"], &v["querySource"]),
        (&json!(backend), &json!(backend))
    );
    let p = &v["projection"];
    assert_eq!(p["staleIssueIds"], json!(["bd-10"]));
    assert_eq!(p["staleCount"], 1);
    assert_eq!(p["contendedIssueIds"], json!(["bd-2"]));
    assert_eq!(p["contendedCount"], 1);
    assert!(p["checkedAt"].as_str().unwrap().ends_with("+00:00"));
    // Leased issues only, in id order (bytes, as premath).
    assert_eq!(ids(&v), ["bd-10", "bd-2", "bd-3"]);
    assert_eq!(v["count"], 3);
    let states: Vec<(&str, bool)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["lease"]["state"].as_str().unwrap(),
                i["contended"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("stale", false), ("active", true), ("active", false)]
    );
    assert_eq!(v["items"][1]["assignee"], "q");
    assert_eq!(v["items"][1]["lease"]["leaseId"], "l-2");
    assert_eq!(test.store_text(), before, "a read writes nothing");
    // An empty store reads as empty (an absent file is an error: issues_views).
    let empty = Test::new().issue_text("");
    let v = empty.store(&["issue", "lease-projection"]).ok();
    assert_eq!(
        (v["count"].clone(), v["projection"]["staleCount"].clone()),
        (json!(0), json!(0))
    );
}

#[test]
fn an_issue_assigned_to_someone_else_is_theirs_and_only_in_progress_holds_a_lease() {
    let test = Test::new().issues(&[
        issue_with("a", json!({"assignee": "other", "priority": 0})),
        issue("b"),
        issue_with(
            "c",
            json!({"status": "in_progress", "assignee": "w", "lease": lease("w", "l-c", true)}),
        ),
    ]);
    let before = test.store_text();
    let v = test
        .store(&["issue", "claim", "a", "--assignee", "me"])
        .rejected(&["lease_contention_active"]);
    assert_eq!(v["holder"], "other");
    assert_eq!(test.store_text(), before);
    // claim-next passes it by (it is first by priority) and takes b.
    let v = test
        .store(&["issue", "claim-next", "--assignee", "me"])
        .ok();
    assert_eq!(v["issue"]["id"], "b");
    // Its assignee may claim it.
    assert_eq!(
        test.store(&["issue", "claim", "a", "--assignee", "other"])
            .ok()["issue"]["status"],
        "in_progress"
    );
    // A status other than in_progress drops the lease and keeps the assignee.
    let v = test
        .store(&["issue", "update", "c", "--status", "blocked"])
        .ok();
    assert_eq!(v["issue"]["assignee"], "w");
    let stored = test.stored("c");
    assert!(stored.get("lease").is_none(), "{stored}");
    assert_eq!(stored["assignee"], "w");
    test.store(&[
        "issue",
        "update",
        "a",
        "--status",
        "in_progress",
        "--notes",
        "n",
    ])
    .ok();
    assert!(
        test.stored("a")["lease"].is_object(),
        "in_progress keeps it"
    );
}

/// premath takes a claim of an issue that still waits on an open blocker;
/// tusk takes it too, and says so in the envelope (`warnings`) and the text;
/// `--respect-blockers` refuses it (`issue.not_ready`) and writes nothing.
#[test]
fn claiming_a_blocked_issue_warns_or_is_refused() {
    let test = Test::new().issues(&[
        issue("a"),
        issue_with("b", json!({"dependencies": [blocks("b", "a")]})),
    ]);
    let before = test.store_text();
    let v = test
        .store(&[
            "issue",
            "claim",
            "b",
            "--assignee",
            "w",
            "--respect-blockers",
        ])
        .rejected(&["issue.not_ready"]);
    let diag = v["diagnostic"].as_str().unwrap();
    assert!(diag.contains("b waits on a (open)"), "{diag}");
    assert_eq!(test.store_text(), before);
    // The host action takes the same argument.
    let digest = test.policy_digest();
    let (code, out) = test.eval(
        r#"(issue.claim (hash "id" "b" "assignee" "w" "respectBlockers" #t))"#,
        &["--policy-digest", &digest, "--instruction-ref", "instr://t"],
    );
    assert_eq!(code, 1, "{out:#}");
    assert_eq!(out["failureClasses"], json!(["issue.not_ready"]), "{out:#}");
    assert_eq!(test.store_text(), before);
    // Without the flag: taken, with a warning member and a warning line.
    let text = test
        .store_raw(&["issue", "claim", "b", "--assignee", "w"])
        .status(0)
        .stdout();
    assert!(
        text.lines()
            .any(|l| l.starts_with("warning: b waits on a (open)")),
        "{text}"
    );
    let v = test.store(&["issue", "claim", "b", "--assignee", "w"]).ok();
    assert!(
        v["warnings"][0].as_str().unwrap().contains("not ready"),
        "{v:#}"
    );
    // A ready issue's claim has no warnings member at all.
    let v = test.store(&["issue", "claim", "a", "--assignee", "w"]).ok();
    assert!(v.get("warnings").is_none(), "{v:#}");
    // Once the blocker is closed, none either.
    test.store(&["issue", "close", "a", "--reason", "done"])
        .ok();
    let v = test.store(&["issue", "claim", "b", "--assignee", "w"]).ok();
    assert!(v.get("warnings").is_none(), "{v:#}");
}

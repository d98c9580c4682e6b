//! Issue 48: issue memory that survives git. Ids that clones cannot share,
//! `tusk merge-driver` (a case per rule, both ways byte for byte, with the
//! report checked), the `tusk init` / `tusk doctor` wiring in a fresh
//! repository, and real `git merge`s of diverged clones that go through the
//! driver. Git is the `git` program, in temp directories, with its global and
//! system configuration ignored.

use crate::common::BIN;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `git ARGS` in `dir`; panics with its output unless it succeeds.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_run(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn git_run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Tusk Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Tusk Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_MERGE_AUTOEDIT", "no")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs")
}

/// `tusk ARGS` in `dir`: (exit code, stdout, stderr).
pub(crate) fn tusk(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .env_remove("TUSK_STORE")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("tusk runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `tusk ARGS --json` that must be accepted: its JSON.
pub(crate) fn ok(dir: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, out, err) = tusk(dir, &all);
    assert_eq!(code, 0, "tusk {args:?}: {out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A description `issue check` accepts (premath's content rules).
const DESCRIPTION: &str = "Acceptance: it is done.\n\n`cargo test`";

/// Adds an issue; its id.
pub(crate) fn add(dir: &Path, title: &str) -> String {
    let v = ok(dir, &["issue", "add", title, "--description", DESCRIPTION]);
    v["issue"]["id"].as_str().unwrap().to_string()
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn by_id(text: &str) -> std::collections::HashMap<String, Value> {
    lines(text)
        .into_iter()
        .map(|v| (v["id"].as_str().unwrap().to_string(), v))
        .collect()
}

/// A fresh repository with a tusk store wired by `tusk init`.
pub(crate) fn repo(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let (code, out, err) = tusk(&dir, &["init"]);
    assert_eq!(code, 0, "{out}{err}");
    dir
}

pub(crate) fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// `issue check`: no duplicate id, no dangling edge, no cycle, no error at all.
pub(crate) fn assert_whole(dir: &Path) {
    let (code, out, err) = tusk(dir, &["issue", "check", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(v["errorCount"], json!(0), "{v:#}");
    assert_eq!(code, 0, "{v:#}");
}

#[test]
fn init_wires_a_fresh_repository_and_doctor_checks_it() {
    let root = tempfile::tempdir().unwrap();
    let dir = repo(root.path(), "r");
    let attributes = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
    assert_eq!(
        attributes,
        ".premath/issues.jsonl merge=tusk\n.premath/issues.jsonl diff=tusk\n.premath/harness_feature_ledger.json merge=tusk\n.premath/host_effects.jsonl merge=union\n.premath/harness_trajectory.jsonl merge=union\n"
    );
    let driver = git(&dir, &["config", "--get", "merge.tusk.driver"]);
    assert!(
        driver.trim_end().ends_with(" merge-driver %O %A %B %P"),
        "{driver}"
    );
    assert!(driver.starts_with(&std::fs::canonicalize(BIN).unwrap().display().to_string()));
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".premath/config.json")).unwrap())
            .unwrap();
    assert_eq!(config, json!({"ids": "hash", "readiness": "beads"}));
    // A second init changes nothing and says so.
    let v = ok(&dir, &["init"]);
    assert_eq!(v["git"]["attributesAdded"], json!([]), "{v:#}");
    assert_eq!(v["git"]["mergeDriverSet"], json!(false), "{v:#}");
    assert!(v.get("ids").is_none(), "{v:#}");
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitattributes")).unwrap(),
        attributes
    );
    // The store mints hash ids: prefix, 4 characters for the first issue.
    let first = add(&dir, "First");
    assert!(first.starts_with("bd-") && first.len() == 7, "{first}");
    assert!(!first[3..].bytes().all(|b| b.is_ascii_digit()), "{first}");
    // The lock file the mutation left beside the store is ignored by git.
    assert!(dir.join(".premath/issues.jsonl.lock").exists());
    assert_eq!(v["git"]["ignoreAdded"], json!(false), "{v:#}");
    let status = git(&dir, &["status", "--porcelain", "--untracked-files=all"]);
    assert!(!status.contains("issues.jsonl.lock"), "{status}");
    assert!(status.contains(".premath/.gitignore"), "{status}");
    // And the journals' directory: a live process's writer marker is this
    // machine's (issue 61).
    let ignored = std::fs::read_to_string(dir.join(".premath/.gitignore")).unwrap();
    assert!(
        ignored.lines().any(|l| l == "/issues.jsonl.pending/"),
        "{ignored}"
    );

    let doctor = |dir: &Path| {
        let (_, out, err) = tusk(dir, &["doctor", "--json"]);
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "git")
            .cloned()
            .unwrap()
    };
    let check = doctor(&dir);
    assert_eq!(check["status"], "ok", "{check:#}");
    // Unwired: a warning naming what is missing, and a fix that works.
    git(&dir, &["config", "--unset", "merge.tusk.driver"]);
    std::fs::write(dir.join(".gitattributes"), "").unwrap();
    let check = doctor(&dir);
    assert_eq!(check["status"], "warn", "{check:#}");
    let message = check["message"].as_str().unwrap();
    assert!(
        message.contains(".premath/issues.jsonl has merge=unspecified, not merge=tusk"),
        "{message}"
    );
    assert!(
        message.contains("merge.tusk.driver is not set"),
        "{message}"
    );
    let fix = check["fix"].as_str().unwrap();
    let commands = fix.split_once("or: ").unwrap().1;
    let out = Command::new("sh")
        .current_dir(&dir)
        .args(["-c", commands])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "{fix}: {out:?}");
    assert_eq!(doctor(&dir)["status"], "ok");
    // A driver whose program has moved is named.
    git(
        &dir,
        &[
            "config",
            "merge.tusk.driver",
            "'/nowhere/it'\\''s tusk' merge-driver %O %A %B %P",
        ],
    );
    let check = doctor(&dir);
    assert_eq!(check["status"], "warn", "{check:#}");
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .contains("runs /nowhere/it's tusk, which is not there"),
        "{check:#}"
    );
    // `tusk init` is the other fix.
    git(&dir, &["config", "--unset", "merge.tusk.driver"]);
    assert_eq!(doctor(&dir)["status"], "warn");
    ok(&dir, &["init"]);
    assert_eq!(doctor(&dir)["status"], "ok");
    // A tracked log without the union driver is named too.
    std::fs::write(dir.join(".premath/host_effects.jsonl"), "").unwrap();
    git(&dir, &["add", "-f", ".premath/host_effects.jsonl"]);
    std::fs::write(
        dir.join(".gitattributes"),
        ".premath/issues.jsonl merge=tusk\n",
    )
    .unwrap();
    let check = doctor(&dir);
    assert_eq!(check["status"], "warn", "{check:#}");
    assert!(
        check["fix"]
            .as_str()
            .unwrap()
            .contains("'.premath/host_effects.jsonl merge=union'"),
        "{check:#}"
    );

    // Outside git: no wiring, sequential ids, premath's output.
    let plain = root.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let v = ok(&plain, &["init"]);
    assert!(v.get("git").is_none() && v.get("ids").is_none(), "{v:#}");
    // Only the readiness rule is set: ids stay sequential.
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(plain.join(".premath/config.json")).unwrap())
            .unwrap();
    assert_eq!(config, json!({"readiness": "beads"}));
    assert_eq!(add(&plain, "One"), "bd-1");
    assert_eq!(doctor(&plain)["status"], "ok");
    // Opting in (and out) on an existing store.
    let v = ok(&plain, &["init", "--ids", "hash"]);
    assert_eq!(v["ids"], "hash");
    assert_ne!(add(&plain, "Two"), "bd-2");
    ok(&plain, &["init", "--ids", "sequential"]);
    assert_eq!(add(&plain, "Three"), "bd-2");
    // A bad setting is refused with the fix, and nothing is added.
    std::fs::write(plain.join(".premath/config.json"), "{\"ids\": \"random\"}").unwrap();
    let (code, out, err) = tusk(&plain, &["issue", "add", "Four"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("issue.config_invalid") && out.contains("\"hash\" or \"sequential\""),
        "{out}"
    );
}

/// Runs the driver on three texts; the merged text and the report.
fn merge3(base: &str, ours: &str, theirs: &str) -> (String, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let (b, o, t) = (p("base", base), p("ours", ours), p("theirs", theirs));
    let (code, out, err) = tusk(
        dir.path(),
        &[
            "merge-driver",
            &b,
            &o,
            &t,
            ".premath/issues.jsonl",
            "--report",
            "r.json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let merged = std::fs::read_to_string(&o).unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    (merged, report, err)
}

/// Both ways: the same bytes. The merged text and the ours-side report.
fn merge_both(base: &str, ours: &str, theirs: &str) -> (String, Value) {
    let (one, report, err) = merge3(base, ours, theirs);
    let (two, _, _) = merge3(base, theirs, ours);
    assert_eq!(one, two, "A into B and B into A differ");
    assert!(!one.contains("<<<<<<<") && !one.contains(">>>>>>>"));
    for d in report["decisions"].as_array().unwrap() {
        assert!(
            err.contains(d["rule"].as_str().unwrap()),
            "{d} not on stderr:\n{err}"
        );
    }
    (one, report)
}

fn decisions<'r>(report: &'r Value, id: &str) -> Vec<&'r Value> {
    report["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["id"] == id)
        .collect()
}

fn has(report: &Value, id: &str, field: Option<&str>, rule: &str, taken: &str) -> bool {
    decisions(report, id).iter().any(|d| {
        d["rule"] == rule
            && d["taken"] == taken
            && field.map_or(d.get("field").is_none(), |f| d["field"] == f)
    })
}

const T0: &str = "2026-01-01T00:00:00Z";
const T1: &str = "2026-01-02T00:00:00Z";
const T2: &str = "2026-01-03T00:00:00Z";

fn issue(id: &str, title: &str, updated: &str, extra: Value) -> String {
    let mut v = json!({"id": id, "title": title, "status": "open", "created_at": T0, "updated_at": updated});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::to_string(&v).unwrap()
}

fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn records_added_deleted_and_changed_on_one_side() {
    // Odd spacing: an unchanged line keeps its bytes.
    let kept = "{ \"id\": \"k\",  \"title\": \"kept\" }".to_string();
    let a = issue("a", "A", T0, json!({}));
    let d = issue("d", "D", T0, json!({}));
    let x = issue("x", "X", T0, json!({}));
    let base = text(&[kept.clone(), a.clone(), d.clone(), x.clone()]);
    let a2 = issue("a", "A changed", T1, json!({}));
    let x2 = issue("x", "X changed", T1, json!({}));
    let n = issue("n", "new", T1, json!({"created_at": T1}));
    // ours: changes a, deletes d, deletes x; theirs: adds n, changes x.
    let ours = text(&[kept.clone(), a2.clone()]);
    let theirs = text(&[kept.clone(), a.clone(), d.clone(), x2.clone(), n.clone()]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    assert_eq!(merged, text(&[kept, a2, x2, n]));
    assert!(
        has(&report, "a", None, "changed_one_side", "ours"),
        "{report:#}"
    );
    assert!(has(&report, "d", None, "deleted", "ours"), "{report:#}");
    assert!(
        has(&report, "x", None, "delete_change_kept", "theirs"),
        "{report:#}"
    );
    assert!(has(&report, "n", None, "added", "theirs"), "{report:#}");
    assert!(decisions(&report, "k").is_empty());
    assert_eq!(report["schema"], "tusk.merge.v1");
    assert_eq!(report["issues"], 4);
    assert_eq!(report["path"], ".premath/issues.jsonl");
}

#[test]
fn scalar_fields_come_from_the_side_that_changed_them_and_the_later_side_wins_both() {
    let base = text(&[issue("a", "A", T0, json!({"priority": 2, "notes": "n"}))]);
    // ours: title (T1); theirs: priority and title (T2, later).
    let ours = text(&[issue(
        "a",
        "A ours",
        T1,
        json!({"priority": 2, "notes": "n", "design": "d"}),
    )]);
    let theirs = text(&[issue(
        "a",
        "A theirs",
        T2,
        json!({"priority": 0, "notes": "n"}),
    )]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    let v = &lines(&merged)[0];
    assert_eq!(v["title"], "A theirs");
    assert_eq!(v["priority"], 0);
    assert_eq!(v["design"], "d");
    assert_eq!(v["updated_at"], T2);
    assert!(
        has(&report, "a", Some("title"), "both_changed_later", "theirs"),
        "{report:#}"
    );
    assert!(
        has(&report, "a", Some("priority"), "changed_one_side", "theirs"),
        "{report:#}"
    );
    assert!(
        has(&report, "a", Some("design"), "changed_one_side", "ours"),
        "{report:#}"
    );
    // Key order: the base's, then the later side's, then the other's.
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys.last().unwrap().as_str(), "design");
    // Same updated_at: the greater line wins, the same either way.
    let ours = text(&[issue("a", "Aaa", T1, json!({"priority": 2, "notes": "n"}))]);
    let theirs = text(&[issue("a", "Abb", T1, json!({"priority": 2, "notes": "n"}))]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    assert_eq!(lines(&merged)[0]["title"], "Abb");
    assert!(
        has(&report, "a", Some("title"), "both_changed_later", "theirs"),
        "{report:#}"
    );
    // status, closed_at and close_reason are taken together.
    let ours = text(&[issue(
        "a",
        "A",
        T2,
        json!({"priority": 2, "notes": "n", "status": "closed", "closed_at": T2, "close_reason": "done"}),
    )]);
    let theirs = text(&[issue(
        "a",
        "A",
        T1,
        json!({"priority": 2, "notes": "n", "status": "blocked"}),
    )]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    let v = &lines(&merged)[0];
    assert_eq!(
        (v["status"].as_str(), v["closed_at"].as_str()),
        (Some("closed"), Some(T2))
    );
    assert!(
        has(
            &report,
            "a",
            Some("status+closed_at+close_reason"),
            "both_changed_later",
            "ours"
        ),
        "{report:#}"
    );
}

#[test]
fn labels_dependencies_and_comments_merge_as_sets() {
    let dep = |to: &str, t: &str| json!({"issue_id": "a", "depends_on_id": to, "type": t});
    let c = |id: i64, text: &str, at: &str| json!({"id": id, "issue_id": "a", "author": "x", "text": text, "created_at": at});
    let b = issue("b", "B", T0, json!({}));
    let cc = issue("c", "C", T0, json!({}));
    let dd = issue("d", "D", T0, json!({}));
    let base = text(&[
        issue(
            "a",
            "A",
            T0,
            json!({"labels": ["x", "y"], "dependencies": [dep("b", "blocks"), dep("c", "blocks")], "comments": [c(1, "one", T0)]}),
        ),
        b.clone(),
        cc.clone(),
        dd.clone(),
    ]);
    // ours: label y removed, z added; edge to c removed; comment 2 added.
    let ours = text(&[
        issue(
            "a",
            "A",
            T1,
            json!({"labels": ["x", "z"], "dependencies": [dep("b", "blocks")], "comments": [c(1, "one", T0), c(2, "ours two", T1)]}),
        ),
        b.clone(),
        cc.clone(),
        dd.clone(),
    ]);
    // theirs: label w added; edge to b retyped, edge to d added; comment 2 added too (another text).
    let theirs = text(&[
        issue(
            "a",
            "A",
            T2,
            json!({"labels": ["x", "y", "w"], "dependencies": [dep("b", "related"), dep("c", "blocks"), dep("d", "blocks")], "comments": [c(1, "one", T0), c(2, "theirs two", T2)]}),
        ),
        b,
        cc,
        dd,
    ]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    let a = &by_id(&merged)["a"];
    assert_eq!(a["labels"], json!(["x", "w", "z"]));
    assert_eq!(
        a["dependencies"],
        json!([dep("b", "related"), dep("d", "blocks")])
    );
    assert_eq!(
        a["comments"],
        json!([
            c(1, "one", T0),
            c(2, "ours two", T1),
            c(3, "theirs two", T2)
        ])
    );
    for field in ["labels", "dependencies", "comments"] {
        assert!(
            has(&report, "a", Some(field), "set_merged", "merged"),
            "{field}: {report:#}"
        );
    }
    assert!(
        has(
            &report,
            "a",
            Some("comments"),
            "comment_renumbered",
            "merged"
        ),
        "{report:#}"
    );
}

#[test]
fn leases_the_later_wins_and_a_close_ends_it() {
    let lease = |owner: &str, at: &str| json!({"lease_id": format!("l_{owner}"), "owner": owner, "acquired_at": at, "expires_at": "2027-01-01T00:00:00Z", "renewed_at": null});
    let base = text(&[issue("a", "A", T0, json!({}))]);
    let ours = text(&[issue(
        "a",
        "A",
        T2,
        json!({"status": "in_progress", "assignee": "w1", "lease": lease("w1", T1)}),
    )]);
    let theirs = text(&[issue(
        "a",
        "A",
        T1,
        json!({"status": "in_progress", "assignee": "w2", "lease": lease("w2", T2)}),
    )]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    let v = &lines(&merged)[0];
    assert_eq!(v["lease"]["owner"], "w2");
    assert!(
        has(&report, "a", Some("lease"), "lease_later", "theirs"),
        "{report:#}"
    );
    assert_eq!(v["assignee"], "w2", "the holder of the later lease");
    // Claimed on one side, closed (later) on the other: closed, without a lease.
    let theirs = text(&[issue(
        "a",
        "A",
        T2,
        json!({"status": "closed", "closed_at": T2, "title": "A!"}),
    )]);
    let ours = text(&[issue(
        "a",
        "A",
        T1,
        json!({"status": "in_progress", "assignee": "w1", "lease": lease("w1", T1)}),
    )]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    let v = &lines(&merged)[0];
    assert_eq!(v["status"], "closed");
    assert!(v.get("lease").is_none(), "{v}");
    assert!(
        has(&report, "a", Some("lease"), "lease_ended_closed", "merged"),
        "{report:#}"
    );
    // The claim is later than the close: the claim's status, but the lease
    // ends all the same (its issue was closed on the other side).
    let theirs = text(&[issue(
        "a",
        "A",
        T0,
        json!({"status": "closed", "closed_at": T0, "title": "A!"}),
    )]);
    let (merged, report) = merge_both(&base, &ours, &theirs);
    let v = &lines(&merged)[0];
    assert_eq!(
        (v["status"].as_str(), v["title"].as_str()),
        (Some("in_progress"), Some("A!"))
    );
    assert!(v.get("lease").is_none(), "{v}");
    assert!(
        decisions(&report, "a")
            .iter()
            .any(|d| d["rule"] == "lease_ended_closed"
                && d["detail"].as_str().unwrap().contains("theirs closed")),
        "{report:#}"
    );
}

#[test]
fn order_collisions_dangling_targets_and_refusals() {
    let a = issue("bd-1", "A", T0, json!({}));
    let base = text(std::slice::from_ref(&a));
    // Sequential ids: both sides minted bd-2 (and bd-3 on ours depends on its bd-2).
    let o2 = issue("bd-2", "ours two", T1, json!({"created_at": T1}));
    let o3 = issue(
        "bd-3",
        "ours three",
        T1,
        json!({"created_at": T1, "dependencies": [{"issue_id": "bd-3", "depends_on_id": "bd-2", "type": "blocks"}]}),
    );
    let t2 = issue("bd-2", "theirs two", T2, json!({"created_at": T2}));
    let (merged, report) = merge_both(
        &base,
        &text(&[a.clone(), o2.clone(), o3]),
        &text(&[a.clone(), t2]),
    );
    let v = lines(&merged);
    let ids: Vec<&str> = v.iter().map(|x| x["id"].as_str().unwrap()).collect();
    // New issues by created_at, then id; the later of the two bd-2 is bd-4.
    assert_eq!(ids, ["bd-1", "bd-2", "bd-3", "bd-4"]);
    assert_eq!(v[1]["title"], "ours two");
    assert_eq!(v[3]["title"], "theirs two");
    assert_eq!(v[2]["dependencies"][0]["depends_on_id"], "bd-2");
    assert!(
        has(
            &report,
            "bd-4",
            Some("id"),
            "id_collision_renamed",
            "theirs"
        ),
        "{report:#}"
    );
    // Deleted on theirs (unchanged on ours) while ours added an edge to it: kept.
    let b = issue("bd-2", "B", T0, json!({}));
    let base = text(&[a.clone(), b.clone()]);
    let a_dep = issue(
        "bd-1",
        "A",
        T1,
        json!({"dependencies": [{"issue_id": "bd-1", "depends_on_id": "bd-2", "type": "blocks"}]}),
    );
    let (merged, report) = merge_both(
        &base,
        &text(&[a_dep.clone(), b.clone()]),
        &text(std::slice::from_ref(&a)),
    );
    assert_eq!(merged, text(&[a_dep, b]));
    assert!(
        has(&report, "bd-2", None, "deleted", "theirs"),
        "{report:#}"
    );
    assert!(
        has(&report, "bd-2", None, "dependency_target_kept", "merged"),
        "{report:#}"
    );

    // Not a store: exit 2, nothing written, the line named.
    let dir = tempfile::tempdir().unwrap();
    let bad = "<<<<<<< HEAD\n";
    for (name, content) in [
        ("b", ""),
        ("o", "{\"id\":\"a\",\"title\":\"t\"}\n"),
        ("t", bad),
    ] {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    let (code, _, err) = tusk(
        dir.path(),
        &["merge-driver", "b", "o", "t", "--report", "r.json"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t: line 1") && err.contains("nothing written"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("o")).unwrap(),
        "{\"id\":\"a\",\"title\":\"t\"}\n"
    );
    assert!(!dir.path().join("r.json").exists());
}

#[test]
fn merge_is_symmetric_over_generated_cases() {
    // Small deterministic generator: many random edits of a 6-issue store.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let times = [T0, T1, T2];
    let base_issue = |i: usize| {
        issue(
            &format!("i{i}"),
            &format!("t{i}"),
            T0,
            json!({"labels": ["a"], "priority": 2}),
        )
    };
    let base: Vec<String> = (0..6).map(base_issue).collect();
    for _ in 0..40 {
        let side = |next: &mut dyn FnMut(u64) -> u64| -> String {
            let mut out = Vec::new();
            for (i, line) in base.iter().enumerate() {
                match next(6) {
                    0 => {}
                    1 => out.push(line.clone()),
                    k => {
                        let mut v: Value = serde_json::from_str(line).unwrap();
                        v["updated_at"] = json!(times[next(3) as usize]);
                        if k == 2 {
                            v["title"] = json!(format!("t{i}-{}", next(3)));
                        }
                        if k == 3 {
                            v["labels"] = json!(["a", format!("l{}", next(3))]);
                        }
                        if k == 4 {
                            v["status"] = json!("closed");
                            v["closed_at"] = json!(times[next(3) as usize]);
                        }
                        if k == 5 {
                            v["lease"] = json!({"lease_id": "l", "owner": format!("w{}", next(2)), "acquired_at": times[next(3) as usize], "expires_at": "2027-01-01T00:00:00Z"});
                        }
                        out.push(serde_json::to_string(&v).unwrap());
                    }
                }
            }
            if next(2) == 0 {
                out.push(issue(
                    &format!("bd-{}", next(3)),
                    &format!("new{}", next(4)),
                    T1,
                    json!({"created_at": times[next(3) as usize]}),
                ));
            }
            text(&out)
        };
        let ours = side(&mut next);
        let theirs = side(&mut next);
        let (merged, _) = merge_both(&text(&base), &ours, &theirs);
        let ids: Vec<String> = lines(&merged)
            .iter()
            .map(|v| v["id"].as_str().unwrap().to_string())
            .collect();
        let unique: HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{merged}");
    }
}

/// Two clones of one repository, each wired (`tusk init` in each: the driver
/// lives in the repository's own config, which a clone does not copy).
fn two_clones(root: &Path) -> (PathBuf, PathBuf) {
    let origin = repo(root, "origin");
    add(&origin, "Seed");
    commit_all(&origin, "seed");
    let clone = |name: &str| {
        let dir = root.join(name);
        git(root, &["clone", "-q", origin.to_str().unwrap(), name]);
        let (code, out, err) = tusk(&dir, &["init"]);
        assert_eq!(code, 0, "{out}{err}");
        dir
    };
    (clone("a"), clone("b"))
}

#[test]
fn two_clones_diverge_and_merge_both_ways_through_git() {
    let root = tempfile::tempdir().unwrap();
    let origin = repo(root.path(), "origin");
    let [p, q, r, s] = ["Parser", "Lexer", "Docs", "Release"].map(|t| add(&origin, t));
    ok(&origin, &["dep", "add", &s, &r]);
    ok(&origin, &["dep", "add", &s, &q]);
    ok(&origin, &["issue", "label", "add", &r, "docs"]);
    commit_all(&origin, "base queue");
    let clone = |name: &str| {
        let dir = root.path().join(name);
        git(
            root.path(),
            &["clone", "-q", origin.to_str().unwrap(), name],
        );
        assert_eq!(tusk(&dir, &["init"]).0, 0);
        dir
    };
    let (a, b) = (clone("a"), clone("b"));

    // Clone a: a child of the parser, a discovered issue, a claim, a note,
    // a label, a comment, an edge added and one removed, a close.
    let child_a = add(&a, "Parser: error recovery");
    ok(&a, &["dep", "add", &child_a, &p, "--type", "parent-child"]);
    let found_a = ok(
        &a,
        &[
            "issue",
            "discover",
            &q,
            "Lexer: unicode idents",
            "--description",
            DESCRIPTION,
        ],
    )["issue"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    ok(&a, &["issue", "claim", &p, "--assignee", "agent.a"]);
    ok(&a, &["issue", "update", &q, "--notes", "tokens first"]);
    ok(&a, &["issue", "label", "add", &q, "lexer"]);
    ok(
        &a,
        &[
            "issue", "comment", "add", &r, "from a", "--author", "agent.a",
        ],
    );
    ok(&a, &["dep", "add", &r, &p]);
    ok(&a, &["dep", "remove", &s, &q]);
    ok(&a, &["issue", "close", &child_a, "--reason", "done"]);
    // A recorded run on each side: the logs are committed, and merge by union.
    let record = |dir: &Path| {
        std::fs::write(dir.join("p.scm"), "(issue.ready)").unwrap();
        let (code, out, err) = tusk(dir, &["eval", "p.scm"]);
        assert_eq!(code, 0, "{out}{err}");
    };
    record(&a);
    commit_all(&a, "a's work");

    // Clone b: the same kinds of change on other issues, a comment on the
    // same issue, a close and a reopen, and a claim of an issue a closes.
    let child_b = add(&b, "Parser: spans");
    ok(&b, &["dep", "add", &child_b, &p, "--type", "parent-child"]);
    let found_b = ok(
        &b,
        &[
            "issue",
            "discover",
            &r,
            "Docs: examples",
            "--description",
            DESCRIPTION,
        ],
    )["issue"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    ok(
        &b,
        &["issue", "update", &r, "--title", "Docs and man pages"],
    );
    ok(&b, &["issue", "label", "remove", &r, "docs"]);
    ok(&b, &["issue", "label", "add", &r, "manual"]);
    ok(
        &b,
        &[
            "issue", "comment", "add", &r, "from b", "--author", "agent.b",
        ],
    );
    ok(&b, &["dep", "add", &q, &r]);
    ok(&b, &["issue", "close", &s]);
    ok(&b, &["issue", "reopen", &s]);
    ok(&b, &["issue", "claim", &child_b, "--assignee", "agent.b"]);
    record(&b);
    commit_all(&b, "b's work");

    // Both ways, in clone a: a's main with b's, and b's with a's.
    git(&a, &["fetch", "-q", b.to_str().unwrap(), "main:b-main"]);
    git(&a, &["checkout", "-q", "-b", "ab", "main"]);
    let out = git_run(&a, &["merge", "--no-edit", "b-main"]);
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("tusk merge-driver: .premath/issues.jsonl:"),
        "the driver did not run:\n{err}"
    );
    let ab = std::fs::read_to_string(a.join(".premath/issues.jsonl")).unwrap();
    assert_whole(&a);
    git(&a, &["checkout", "-q", "-b", "ba", "b-main"]);
    let out = git_run(&a, &["merge", "--no-edit", "main"]);
    assert!(out.status.success(), "{out:?}");
    let ba = std::fs::read_to_string(a.join(".premath/issues.jsonl")).unwrap();
    assert_eq!(ab, ba, "the two merges differ");
    assert_eq!(
        git(&a, &["show", "ab:.premath/issues.jsonl"]),
        git(&a, &["show", "ba:.premath/issues.jsonl"])
    );
    assert!(!ab.contains("<<<<<<<"));
    assert_whole(&a);

    // Every change of both sides is there.
    let m = by_id(&ab);
    assert_eq!(m.len(), 4 + 4);
    assert_eq!(lines(&ab).len(), 8);
    assert_eq!(m[&p]["status"], "in_progress");
    assert_eq!(m[&p]["lease"]["owner"], "agent.a");
    assert_eq!(m[&q]["notes"], "tokens first");
    assert_eq!(m[&q]["labels"], json!(["lexer"]));
    let q_deps: Vec<&str> = m[&q]["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["depends_on_id"].as_str().unwrap())
        .collect();
    assert_eq!(q_deps, [r.as_str()]);
    assert_eq!(m[&r]["title"], "Docs and man pages");
    assert_eq!(m[&r]["labels"], json!(["manual"]));
    let comments: Vec<(&str, i64)> = m[&r]["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["text"].as_str().unwrap(), c["id"].as_i64().unwrap()))
        .collect();
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!(
        comments.iter().map(|c| c.1).collect::<HashSet<_>>().len(),
        2
    );
    assert!(comments.iter().any(|c| c.0 == "from a") && comments.iter().any(|c| c.0 == "from b"));
    let r_deps: Vec<&str> = m[&r]["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["depends_on_id"].as_str().unwrap())
        .collect();
    assert_eq!(r_deps, [p.as_str()]);
    let s_deps: Vec<&str> = m[&s]["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["depends_on_id"].as_str().unwrap())
        .collect();
    assert_eq!(s_deps, [r.as_str()]);
    assert_eq!(m[&s]["status"], "open");
    assert_eq!(m[&child_a]["status"], "closed");
    assert_eq!(m[&child_a]["dependencies"][0]["depends_on_id"], p.as_str());
    assert_eq!(m[&child_b]["lease"]["owner"], "agent.b");
    assert_eq!(m[&found_a]["dependencies"][0]["type"], "discovered-from");
    assert_eq!(m[&found_b]["dependencies"][0]["depends_on_id"], r.as_str());
    // The logs were not rewritten by the store's merge: every run replays,
    // both clones' programs and commands (each command a run, issue 57).
    let (code, out, err) = tusk(&a, &["replay"]);
    assert_eq!(code, 0, "{out}{err}");
    let runs = std::fs::read_to_string(a.join(".premath/host_effects.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"premath.scheme_eval.run.v0\""))
        .count();
    assert!(runs > 2, "{runs}");
    assert!(
        out.contains(&format!("{runs} run(s): {runs} parity, 0 not")),
        "{out}{err}"
    );
    // The queue reads it: ready and list answer.
    let list = ok(&a, &["issue", "list"]);
    assert_eq!(list["count"], 8);
}

#[test]
fn a_thousand_issues_in_each_of_two_clones_never_collide() {
    const N: usize = 1000;
    let root = tempfile::tempdir().unwrap();
    let (a, b) = two_clones(root.path());
    let started = std::time::Instant::now();
    let mint = |dir: PathBuf, tag: &'static str| {
        std::thread::spawn(move || {
            (0..N)
                .map(|i| {
                    let (code, out, err) = tusk(&dir, &["issue", "add", &format!("{tag} {i}")]);
                    assert_eq!(code, 0, "{out}{err}");
                    out.trim().rsplit(' ').next().unwrap().to_string()
                })
                .collect::<Vec<String>>()
        })
    };
    let (ta, tb) = (mint(a.clone(), "a"), mint(b.clone(), "b"));
    let (ids_a, ids_b) = (ta.join().unwrap(), tb.join().unwrap());
    eprintln!("minted {} ids in {:?}", 2 * N, started.elapsed());
    let set_a: HashSet<&String> = ids_a.iter().collect();
    let set_b: HashSet<&String> = ids_b.iter().collect();
    assert_eq!(set_a.len(), N);
    assert_eq!(set_b.len(), N);
    assert_eq!(
        set_a.intersection(&set_b).count(),
        0,
        "hash ids collided across clones"
    );
    let longest = ids_a.iter().chain(&ids_b).map(String::len).max().unwrap();
    eprintln!(
        "longest id: {longest} characters; first: {} {}",
        ids_a[0], ids_b[0]
    );
    // Merged by git through the driver: every issue once.
    commit_all(&a, "a");
    commit_all(&b, "b");
    git(
        &a,
        &[
            "pull",
            "-q",
            "--no-rebase",
            "--no-edit",
            b.to_str().unwrap(),
            "main",
        ],
    );
    let merged = std::fs::read_to_string(a.join(".premath/issues.jsonl")).unwrap();
    assert_eq!(by_id(&merged).len(), 2 * N + 1);
    assert_whole_ids(&a);

    // Sequential ids, the same work on two clones: the very same ids (the
    // scheme is a function of the store, which both clones share).
    let seq_root = tempfile::tempdir().unwrap();
    let origin = repo(seq_root.path(), "origin");
    ok(&origin, &["init", "--ids", "sequential"]);
    add(&origin, "Seed");
    commit_all(&origin, "seed");
    let mut minted = Vec::new();
    for name in ["a", "b"] {
        git(
            seq_root.path(),
            &["clone", "-q", origin.to_str().unwrap(), name],
        );
        let dir = seq_root.path().join(name);
        ok(&dir, &["init"]);
        let ids: Vec<String> = (0..50).map(|i| add(&dir, &format!("{name} {i}"))).collect();
        commit_all(&dir, name);
        minted.push(ids);
    }
    assert_eq!(
        minted[0], minted[1],
        "sequential ids: every one of the 50 collides"
    );
    assert_eq!(minted[0][0], "bd-2");
    // (so 1,000 on each side would be bd-2 ..= bd-1001 on both.) The driver
    // still keeps both issues of each pair, renumbering the later.
    let (sa, sb) = (seq_root.path().join("a"), seq_root.path().join("b"));
    git(
        &sa,
        &[
            "pull",
            "-q",
            "--no-rebase",
            "--no-edit",
            sb.to_str().unwrap(),
            "main",
        ],
    );
    let merged = std::fs::read_to_string(sa.join(".premath/issues.jsonl")).unwrap();
    assert_eq!(by_id(&merged).len(), 101);
    assert_whole_ids(&sa);
}

/// No duplicate id and no dangling edge (issues added bare have no
/// acceptance lines, so premath's content rules are not asked).
fn assert_whole_ids(dir: &Path) {
    let (_, out, _) = tusk(dir, &["issue", "check", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    for e in v["errors"].as_array().unwrap() {
        let class = e["class"].as_str().unwrap();
        assert!(
            class.ends_with("acceptance.missing")
                || class.ends_with("verification_command.missing"),
            "{e}"
        );
    }
}

/// The loser of an id collision takes along the edges its side added towards
/// it, in the issues that side added and in base issues it changed: the
/// other side's issue under the old id is never named by them.
#[test]
fn a_renamed_collision_takes_its_sides_edges_from_base_issues_too() {
    let a = issue("bd-1", "A", T0, json!({}));
    let base = text(std::slice::from_ref(&a));
    // Ours: bd-2 (later), and the base issue bd-1 now waits on it.
    let o2 = issue("bd-2", "ours two", T2, json!({"created_at": T2}));
    let a_waits = issue(
        "bd-1",
        "A",
        T2,
        json!({"dependencies": [{"issue_id": "bd-1", "depends_on_id": "bd-2", "type": "blocks"}]}),
    );
    // Theirs: another bd-2 (earlier), which keeps the id.
    let t2 = issue("bd-2", "theirs two", T1, json!({"created_at": T1}));
    let (merged, report) = merge_both(&base, &text(&[a_waits, o2]), &text(&[a, t2]));
    let v = by_id(&merged);
    assert_eq!(v["bd-2"]["title"], "theirs two", "{merged}");
    assert_eq!(v["bd-3"]["title"], "ours two", "{merged}");
    assert_eq!(
        v["bd-1"]["dependencies"][0]["depends_on_id"], "bd-3",
        "bd-1's edge, added with ours' bd-2, follows it: {merged}"
    );
    assert!(
        has(&report, "bd-3", Some("id"), "id_collision_renamed", "ours"),
        "{report:#}"
    );
}

/// `(source title, target title, type)` of every edge of a store: what the
/// edges mean, whatever ids the issues carry.
fn edge_meanings(text: &str) -> HashSet<(String, String, String)> {
    let rows = lines(text);
    let title: std::collections::HashMap<&str, &str> = rows
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["title"].as_str().unwrap()))
        .collect();
    let mut out = HashSet::new();
    for r in &rows {
        for d in r["dependencies"].as_array().into_iter().flatten() {
            let to = d["depends_on_id"].as_str().unwrap();
            out.insert((
                r["title"].as_str().unwrap().to_string(),
                title.get(to).copied().unwrap_or("<missing>").to_string(),
                d["type"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

/// Issue 55: both sides add an epic and its child under the same ids; the
/// merge renames one side's pair, and its child still names its own epic,
/// through the driver and through a real `git merge` of two clones.
#[test]
fn an_epic_and_its_child_added_on_both_sides_keep_their_edge() {
    let epic = |title: &str, at: &str| {
        issue(
            "bd-2",
            title,
            at,
            json!({"created_at": at, "issue_type": "epic"}),
        )
    };
    let child = |title: &str, at: &str| {
        issue(
            "bd-3",
            title,
            at,
            json!({"created_at": at, "dependencies": [{"issue_id": "bd-3", "depends_on_id": "bd-2", "type": "parent-child"}]}),
        )
    };
    let base = text(&[issue("bd-1", "seed", T0, json!({}))]);
    let ours = text(&[
        issue("bd-1", "seed", T0, json!({})),
        epic("ours epic", T1),
        child("ours child", T1),
    ]);
    let theirs = text(&[
        issue("bd-1", "seed", T0, json!({})),
        epic("theirs epic", T2),
        child("theirs child", T2),
    ]);
    let (merged, _) = merge_both(&base, &ours, &theirs);
    let meaning = edge_meanings(&merged);
    for side in ["ours", "theirs"] {
        assert!(
            meaning.contains(&(
                format!("{side} child"),
                format!("{side} epic"),
                "parent-child".into()
            )),
            "{side}'s child lost its epic: {merged}"
        );
    }
    assert_eq!(meaning.len(), 2, "{merged}");

    // Real git: two clones each file an epic and a child under it.
    let root = tempfile::tempdir().unwrap();
    let (a, b) = two_clones(root.path());
    for (dir, who) in [(&a, "a"), (&b, "b")] {
        let e = add(dir, &format!("{who} epic"));
        let c = add(dir, &format!("{who} child"));
        ok(dir, &["dep", "add", &c, &e, "--type", "parent-child"]);
        commit_all(dir, &format!("{who}'s epic"));
    }
    git(
        &b,
        &[
            "pull",
            "-q",
            "--no-rebase",
            &root.path().join("a").display().to_string(),
            "HEAD",
        ],
    );
    let merged = std::fs::read_to_string(b.join(".premath/issues.jsonl")).unwrap();
    let meaning = edge_meanings(&merged);
    for who in ["a", "b"] {
        assert!(
            meaning.contains(&(
                format!("{who} child"),
                format!("{who} epic"),
                "parent-child".into()
            )),
            "{who}'s child lost its epic after git merge: {merged}"
        );
    }
    assert_whole(&b);
}

/// Issue 55: ids at the end of the number line: a collision's new id never
/// wraps to one in use (`bd-0` beside `bd-18446744073709551615`).
#[test]
fn a_collision_beside_the_largest_id_loses_no_issue() {
    let far = issue("bd-18446744073709551615", "far", T0, json!({}));
    let base = text(std::slice::from_ref(&far));
    let ours = text(&[
        far.clone(),
        issue("bd-5", "ours five", T1, json!({"created_at": T1})),
    ]);
    let theirs = text(&[
        far,
        issue("bd-5", "theirs five", T2, json!({"created_at": T2})),
    ]);
    let (merged, _) = merge_both(&base, &ours, &theirs);
    let v = by_id(&merged);
    assert_eq!(v.len(), 3, "{merged}");
    let titles: HashSet<&str> = v.values().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles, HashSet::from(["far", "ours five", "theirs five"]));
    // Comment ids at i64::MAX: a new comment is not numbered i64::MIN.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".premath")).unwrap();
    std::fs::write(
        dir.path().join(".premath/issues.jsonl"),
        issue("bd-1", "t", T0, json!({"comments": [{"id": i64::MAX, "issue_id": "bd-1", "author": "a", "text": "x", "created_at": T0}]})) + "\n",
    )
    .unwrap();
    let v = ok(dir.path(), &["issue", "comment", "add", "bd-1", "next"]);
    let id = v["comment"]["id"].as_i64().unwrap();
    assert!(id > 0 && id != i64::MAX, "{v}");
}

/// Issue 55: a side that lost most of its issues (truncated, edited by
/// hand: tusk has no delete action) does not spread the loss: the driver
/// refuses, writes nothing, and git reports a conflict, unless told to.
#[test]
fn a_merge_that_deletes_most_issues_is_refused_unless_allowed() {
    let all: Vec<String> = (1..=6)
        .map(|i| issue(&format!("bd-{i}"), "t", T0, json!({})))
        .collect();
    let base = text(&all);
    let ours = text(&[all[0].clone(), issue("bd-2", "changed", T1, json!({}))]);
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let (b, o, t) = (p("base", &base), p("ours", &ours), p("theirs", &base));
    let (code, _, err) = tusk(dir.path(), &["merge-driver", &b, &o, &t]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("would delete 4 of the 6 issue(s)"), "{err}");
    assert!(err.contains("TUSK_MERGE_ALLOW_DELETIONS=1"), "{err}");
    assert_eq!(std::fs::read_to_string(&o).unwrap(), ours, "written anyway");
    let (code, _, err) = tusk(
        dir.path(),
        &["merge-driver", &b, &o, &t, "--allow-deletions"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&std::fs::read_to_string(&o).unwrap()).len(), 2);

    // Through git: a clone that emptied its store conflicts, nothing lost.
    let root = tempfile::tempdir().unwrap();
    let (a, b) = two_clones(root.path());
    for t in ["two", "three"] {
        add(&a, t);
    }
    commit_all(&a, "more");
    git(
        &b,
        &[
            "pull",
            "-q",
            "--no-rebase",
            &a.display().to_string(),
            "HEAD",
        ],
    );
    std::fs::write(b.join(".premath/issues.jsonl"), "").unwrap();
    commit_all(&b, "emptied");
    add(&a, "four");
    commit_all(&a, "four");
    let out = git_run(
        &a,
        &[
            "pull",
            "-q",
            "--no-rebase",
            &b.display().to_string(),
            "HEAD",
        ],
    );
    assert!(!out.status.success(), "git merged an emptied store");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("CONFLICT") || String::from_utf8_lossy(&out.stdout).contains("CONFLICT"),
        "{said}"
    );
    let kept = std::fs::read_to_string(a.join(".premath/issues.jsonl")).unwrap();
    assert_eq!(lines(&kept).len(), 4, "{kept}");
}

/// Issue 55: git's lines are quoted and escaped: a store under a directory
/// with a space, a binary under a directory with a `%`, and the driver's
/// path argument with a control character on stderr.
#[test]
fn odd_paths_reach_git_quoted_and_the_driver_escapes_what_it_prints() {
    let root = tempfile::tempdir().unwrap();
    let bin_dir = root.path().join("bin 100%d");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let bin = bin_dir.join("tusk");
    std::fs::copy(BIN, &bin).unwrap();
    let top = root.path().join("origin");
    let sub = top.join("my project");
    std::fs::create_dir_all(&sub).unwrap();
    git(&top, &["init", "-q", "-b", "main"]);
    let run = |dir: &Path, args: &[&str]| {
        let out = Command::new(&bin)
            .current_dir(dir)
            .args(args)
            .env_remove("TUSK_STORE")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    run(&sub, &["init"]);
    let attr = git(
        &top,
        &[
            "check-attr",
            "merge",
            "--",
            "my project/.premath/issues.jsonl",
        ],
    );
    assert!(attr.trim_end().ends_with("merge: tusk"), "{attr}");
    run(&sub, &["issue", "add", "seed"]);
    commit_all(&top, "seed");
    git(&top, &["checkout", "-q", "-b", "other"]);
    run(&sub, &["issue", "add", "theirs"]);
    commit_all(&top, "theirs");
    git(&top, &["checkout", "-q", "main"]);
    run(&sub, &["issue", "add", "ours"]);
    commit_all(&top, "ours");
    // The driver (under a `%` path) merges: git expanded `%%` to `%`.
    git(&top, &["merge", "-q", "--no-edit", "other"]);
    let merged = std::fs::read_to_string(sub.join(".premath/issues.jsonl")).unwrap();
    assert_eq!(lines(&merged).len(), 3, "{merged}");
    // A path argument with an escape sequence is printed escaped.
    let dir = tempfile::tempdir().unwrap();
    let store = issue("bd-1", "t", T0, json!({})) + "\n";
    for name in ["b", "o", "t"] {
        std::fs::write(dir.path().join(name), &store).unwrap();
    }
    let (code, _, err) = tusk(
        dir.path(),
        &["merge-driver", "b", "o", "t", "evil\u{1b}[2Jpath"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("evil\\x1b[2Jpath"), "{err}");
}

/// A `tusk` on `PATH` that is the program running `init` is named by its
/// name in git's config (issue 60): a binary moved or upgraded in place
/// keeps every merge working while `tusk` stays on `PATH`; `doctor` finds a
/// bare name on `PATH`, and says so when it is not there.
#[test]
fn init_names_a_driver_found_on_path_by_its_name() {
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(std::fs::canonicalize(BIN).unwrap(), bin.join("tusk")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = root.path().join("r");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    let run = |args: &[&str], path: &str| {
        Command::new(BIN)
            .current_dir(&dir)
            .args(args)
            .env("PATH", path)
            .env_remove("TUSK_STORE")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap()
    };
    let out = run(&["init"], &path);
    assert!(out.status.success(), "{out:?}");
    let driver = git(&dir, &["config", "--get", "merge.tusk.driver"]);
    assert_eq!(driver.trim_end(), "tusk merge-driver %O %A %B %P");
    let check = |path: &str| -> Value {
        let out = run(&["doctor", "--json"], path);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "git")
            .cloned()
            .unwrap_or_else(|| panic!("no git check: {v:#}"))
    };
    assert_eq!(check(&path)["status"], "ok", "{:#}", check(&path));
    let without = std::env::var("PATH").unwrap_or_default();
    let missing = check(&without);
    assert_eq!(missing["status"], "warn", "{missing:#}");
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("runs tusk, which is not there"),
        "{missing:#}"
    );
}

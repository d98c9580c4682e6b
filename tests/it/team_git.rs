//! A team's first week (issue 60): two clones of one repository, agents on
//! both running the README's worker loop and writing the feature ledger,
//! merging both ways and rebasing, through real git: no conflict, nothing
//! lost, and the session handoff (one clone's own) never in git.

use crate::merge_driver::{add, assert_whole, commit_all, git, git_run, ok, repo, tusk};
use serde_json::Value;
use std::path::Path;

fn worker_loop(dir: &Path) {
    let (_, digest, _) = tusk(dir, &["policy", "digest"]);
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/worker_loop.scm");
    let (code, out, err) = tusk(
        dir,
        &[
            "eval",
            program.to_str().unwrap(),
            "--json",
            "--policy-digest",
            digest.trim(),
            "--instruction-ref",
            "instr://team",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"]["stopped"], "accepted", "{v:#}");
}

fn feature(dir: &Path, id: &str, at: &str) {
    ok(
        dir,
        &[
            "harness-feature",
            "write",
            "--feature-id",
            id,
            "--status",
            "pending",
            "--now",
            at,
        ],
    );
}

/// Nothing left unmerged, and no conflict marker in `.premath/`.
fn assert_clean(dir: &Path, context: &str) {
    let unmerged = git(dir, &["diff", "--name-only", "--diff-filter=U"]);
    assert!(unmerged.is_empty(), "{context}: unmerged {unmerged}");
    for entry in std::fs::read_dir(dir.join(".premath")).unwrap().flatten() {
        if entry.path().is_file() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            assert!(
                !text.contains("<<<<<<<") && !text.contains(">>>>>>>"),
                "{context}: conflict markers in {}",
                entry.path().display()
            );
        }
    }
}

#[test]
fn two_clones_running_the_worker_loop_merge_and_rebase_without_a_conflict() {
    let root = tempfile::tempdir().unwrap();
    git(
        root.path(),
        &["init", "-q", "--bare", "-b", "main", "origin.git"],
    );
    let a = repo(root.path(), "a");
    for title in ["Parse", "Check", "Render", "Ship"] {
        add(&a, title);
    }
    commit_all(&a, "the queue");
    git(&a, &["remote", "add", "origin", "../origin.git"]);
    git(&a, &["push", "-q", "-u", "origin", "main"]);
    git(root.path(), &["clone", "-q", "origin.git", "b"]);
    let b = root.path().join("b");
    // Each clone wires its own config (the attributes came with the clone).
    ok(&b, &["init"]);

    // Round 1: both work, A pushes, B merges (a merge commit).
    worker_loop(&a);
    feature(&a, "F-A", "2026-11-29T10:00:00Z");
    commit_all(&a, "a: round 1");
    git(&a, &["push", "-q"]);
    worker_loop(&b);
    feature(&b, "F-B", "2026-11-29T10:05:00Z");
    commit_all(&b, "b: round 1");
    let out = git_run(&b, &["pull", "--no-rebase", "-q", "origin", "main"]);
    assert!(out.status.success(), "{out:?}");
    assert_clean(&b, "merge");
    git(&b, &["push", "-q", "origin", "main"]);
    git(&a, &["pull", "-q", "--no-rebase", "origin", "main"]);

    // Round 2: both work again, A pushes, B rebases onto it.
    worker_loop(&a);
    feature(&a, "F-A2", "2026-11-29T11:00:00Z");
    commit_all(&a, "a: round 2");
    git(&a, &["push", "-q"]);
    worker_loop(&b);
    feature(&b, "F-B2", "2026-11-29T11:05:00Z");
    commit_all(&b, "b: round 2");
    let out = git_run(&b, &["pull", "--rebase", "-q", "origin", "main"]);
    assert!(out.status.success(), "{out:?}");
    assert_clean(&b, "rebase");
    git(&b, &["push", "-q", "origin", "main"]);
    git(&a, &["pull", "-q", "--no-rebase", "origin", "main"]);

    for (dir, name) in [(&a, "a"), (&b, "b")] {
        // The handoff is each clone's own: on disk, never in git.
        assert!(dir.join(".premath/harness_session.json").exists(), "{name}");
        let tracked = git(dir, &["ls-files", ".premath"]);
        assert!(
            !tracked.contains("harness_session.json") && !tracked.contains(".lock"),
            "{name}: {tracked}"
        );
        assert_whole(dir);
        let listed = ok(dir, &["issue", "list"]);
        assert_eq!(listed["count"], 4, "{name}: {listed:#}");
        // Every feature of both clones, merged by id.
        let ledger = ok(dir, &["harness-feature", "read"]);
        let mut ids: Vec<&str> = ledger["features"]
            .as_array()
            .or_else(|| ledger["ledger"]["features"].as_array())
            .unwrap_or_else(|| panic!("{ledger:#}"))
            .iter()
            .map(|f| f["featureId"].as_str().unwrap())
            .collect();
        ids.sort();
        assert_eq!(ids, ["F-A", "F-A2", "F-B", "F-B2"], "{name}");
        // Both clones' runs, each whole: the merged log replays with parity.
        let (code, out, err) = tusk(dir, &["replay", "--json"]);
        let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
        assert_eq!(
            (code, &report["parity"]),
            (0, &Value::Bool(true)),
            "{name}: {out}"
        );
        // Doctor is content with the wiring.
        let (_, out, _) = tusk(dir, &["doctor", "--json"]);
        let doctor: Value = serde_json::from_str(&out).unwrap();
        let git_check = doctor["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "git")
            .unwrap();
        assert_eq!(git_check["status"], "ok", "{name}: {git_check:#}");
    }
    // Same queue on both sides.
    assert_eq!(
        std::fs::read_to_string(a.join(".premath/issues.jsonl")).unwrap(),
        std::fs::read_to_string(b.join(".premath/issues.jsonl")).unwrap()
    );
}

/// Readable diffs (issue 60): `tusk init` wires git's textconv for the
/// store, so `git diff` shows the field that changed; `tusk issue diff`
/// names each change per issue and field.
#[test]
fn a_store_diff_names_the_issue_and_the_field_that_changed() {
    let root = tempfile::tempdir().unwrap();
    let dir = repo(root.path(), "r");
    let id = add(&dir, "Parse");
    let other = add(&dir, "Check");
    commit_all(&dir, "the queue");
    ok(
        &dir,
        &[
            "issue",
            "comment",
            "add",
            &id,
            "looks right",
            "--author",
            "bob",
        ],
    );
    ok(&dir, &["issue", "close", &id]);
    ok(&dir, &["dep", "add", &other, &id, "--type", "blocks"]);

    // git diff through the textconv: one member per line.
    let out = git_run(&dir, &["diff", "--", ".premath/issues.jsonl"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("-  status: open"), "{shown}");
    assert!(shown.contains("+  status: closed"), "{shown}");
    assert!(shown.contains("+  comment by bob at "), "{shown}");
    assert!(
        shown.contains(&format!("+  depends on: {id} (blocks)")),
        "{shown}"
    );
    assert!(
        !shown.contains("\"status\":"),
        "a raw JSON line in the diff: {shown}"
    );

    // tusk issue diff: against HEAD, then between two commits.
    let v = ok(&dir, &["issue", "diff"]);
    let changes = v["changes"].as_array().unwrap();
    let of = |id: &str| {
        changes
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{v:#}"))["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let fields = of(&id);
    assert!(
        fields.iter().any(|f| f == "status: \"open\" → \"closed\""),
        "{fields:?}"
    );
    assert!(
        fields
            .iter()
            .any(|f| f.starts_with("comment added by bob at ") && f.ends_with(": looks right")),
        "{fields:?}"
    );
    assert!(
        of(&other).contains(&format!("depends on: +{id} (blocks)")),
        "{v:#}"
    );
    commit_all(&dir, "work");
    let (code, text, err) = tusk(&dir, &["issue", "diff", "HEAD~1..HEAD"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains(&format!("~ {id} · Parse")), "{text}");
    let (code, text, _) = tusk(&dir, &["issue", "diff"]);
    assert_eq!((code, text.as_str()), (0, "no issue changed\n"));
    for bad in ["..HEAD", "nope"] {
        let (code, _, err) = tusk(&dir, &["issue", "diff", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
    }
}

//! `tusk init [PATH]` through the binary: the reference's JSON and text, the
//! legacy `.beads/` migration byte for byte, an existing store left alone, and
//! every refusal with its message and exit code.

use crate::common::*;
use serde_json::{json, Value};

fn run(s: &Test, args: &[&str]) -> (i32, String, String) {
    let out = s.run(args);
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn fresh_init_prints_the_reference_json_and_an_empty_store_the_queue_reads() {
    let s = Test::new();
    let (code, out, err) = run(&s, &["init", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        json!({
            "action": "init",
            "created": {"issuesFile": true, "premathDir": true, "repoRoot": false},
            "issuesPath": "./.premath/issues.jsonl",
            "migratedFromLegacy": null,
            "premathDir": "./.premath",
            "repoRoot": "."
        })
    );
    // Sorted keys, two-space indent: the reference's rendering.
    assert!(
        out.starts_with("{\n  \"action\": \"init\",\n  \"created\": {\n    \"issuesFile\": true,")
    );
    assert_eq!(std::fs::read(s.path(".premath/issues.jsonl")).unwrap(), b"");
    // Readable by the team, as premath's store is (not a temp file's 0600).
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(s.path(".premath/issues.jsonl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
    let (code, out, err) = run(&s, &["issue", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list["count"], json!(0), "{list}");
}

#[test]
fn a_second_init_creates_nothing_and_leaves_the_store_untouched() {
    let s = Test::new();
    assert_eq!(run(&s, &["init", "repo"]).0, 0);
    let (code, _, err) = run(
        &s,
        &[
            "issue",
            "add",
            "First",
            "--issues",
            "repo/.premath/issues.jsonl",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let before = std::fs::read(s.path("repo/.premath/issues.jsonl")).unwrap();
    assert!(!before.is_empty());
    let (code, out, _) = run(&s, &["init", "repo", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["created"],
        json!({"issuesFile": false, "premathDir": false, "repoRoot": false})
    );
    assert_eq!(v["issuesPath"], json!("repo/.premath/issues.jsonl"));
    assert_eq!(
        std::fs::read(s.path("repo/.premath/issues.jsonl")).unwrap(),
        before
    );
}

#[test]
fn a_missing_root_is_created_and_the_text_form_matches_the_reference() {
    let s = Test::new();
    let (code, out, err) = run(&s, &["init", "a/b"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "premath init a/b\n\n  repo root: a/b\n  premath dir: a/b/.premath\n  \
         issues path: a/b/.premath/issues.jsonl\n  created repo root: yes\n  \
         created .premath dir: yes\n  created issues file: yes\n"
    );
    assert!(s.path("a/b/.premath/issues.jsonl").is_file());
}

#[test]
fn a_legacy_beads_store_is_copied_byte_for_byte_and_named() {
    let s = Test::new();
    // Not even valid JSON on the second line: migration copies, it does not parse.
    let legacy = "{\"id\":\"bd-1\",\"title\":\"Old\",\"status\":\"open\"}\nnot json\r\n\u{e9}";
    s.write("r/.beads/issues.jsonl", legacy);
    let (code, out, err) = run(&s, &["init", "r", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["migratedFromLegacy"], json!("r/.beads/issues.jsonl"));
    assert_eq!(v["created"]["issuesFile"], json!(true));
    assert_eq!(
        std::fs::read(s.path("r/.premath/issues.jsonl")).unwrap(),
        legacy.as_bytes()
    );
    assert_eq!(
        std::fs::read(s.path("r/.beads/issues.jsonl")).unwrap(),
        legacy.as_bytes()
    );
    let (_, text, _) = run(&s, &["init", "r"]);
    assert!(!text.contains("migrated from legacy"), "{text}");
}

#[test]
fn each_refusal_names_the_path_exits_one_and_writes_nothing() {
    let s = Test::new();
    s.write("file", "x");
    let (code, out, err) = run(&s, &["init", "file", "--json"]);
    assert_eq!(code, 1);
    // premath prints nothing on stdout here; tusk, asked for JSON, its error object.
    let error: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        error["message"], "init path is not a directory: file",
        "{out}"
    );
    assert_eq!(err, "error: init path is not a directory: file\n");

    s.write("p/.premath", "x");
    let (code, _, err) = run(&s, &["init", "p"]);
    assert_eq!(code, 1);
    assert_eq!(err, "error: premath path is not a directory: p/.premath\n");

    std::fs::create_dir_all(s.path("q/.premath/issues.jsonl")).unwrap();
    let (code, _, err) = run(&s, &["init", "q"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "error: issues path exists but is not a file: q/.premath/issues.jsonl\n"
    );

    // A legacy path that cannot be read fails the migration and leaves no store.
    std::fs::create_dir_all(s.path("l/.beads/issues.jsonl")).unwrap();
    let (code, _, err) = run(&s, &["init", "l"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("error: failed to migrate legacy store l/.beads/issues.jsonl -> l/.premath/issues.jsonl: "),
        "{err}"
    );
    assert!(!s.path("l/.premath/issues.jsonl").exists());
    let leftovers: Vec<_> = std::fs::read_dir(s.path("l/.premath")).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

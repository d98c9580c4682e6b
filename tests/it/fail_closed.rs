//! Fail closed (issue 45): a named configuration file that does not exist
//! is an error, never a default; files under `.premath/` are opened as
//! files; a record that cannot be written fails the call before the
//! mutation; graph walks survive any depth.

use crate::common::*;

const MISSING_POLICY: &str = "/nonexistent/mutation_policy.json";

/// The built-in policy's digest: what an attacker who knows tusk's default
/// would send.
fn builtin_digest(t: &Test) -> String {
    t.tusk(&["policy", "digest"])
        .env_remove("TUSK_STORE")
        .run()
        .status(0)
        .stdout()
        .trim()
        .to_string()
}

#[test]
fn a_named_policy_that_does_not_exist_is_an_error_everywhere() {
    let t = Test::on_files().issues(&[issue("bd-1")]);
    let digest = builtin_digest(&t);
    let before = t.store_text();

    // `policy digest`: exit 2, the path, the class under --json.
    let run = t
        .run(&["policy", "digest", "--policy", MISSING_POLICY])
        .status(2);
    assert!(run.stdout().is_empty(), "{run:?}");
    assert!(run.stderr().contains(MISSING_POLICY), "{run:?}");
    let (code, v) = t
        .run(&["policy", "digest", "--policy", MISSING_POLICY, "--json"])
        .reply();
    assert_eq!(code, 2);
    assert_eq!(v["class"], "config.file_not_found", "{v}");
    assert!(v["message"].as_str().unwrap().contains(MISSING_POLICY));

    // `eval` with the built-in digest: nothing runs, nothing is written.
    t.write("add.scm", r#"(issue.add (hash "title" "sneaked in"))"#);
    let (code, v) = t
        .tusk(&["eval", "--json", "add.scm", "--policy", MISSING_POLICY])
        .args(["--policy-digest", &digest, "--instruction-ref", "x"])
        .run()
        .reply();
    assert_eq!(code, 2, "{v}");
    assert_eq!(v["class"], "config.file_not_found", "{v}");
    assert_eq!(t.store_text(), before, "the store must be untouched");
    assert!(!t.path(".premath/host_effects.jsonl").exists());

    // `doctor` fails the policy check and names the fix.
    let (code, v) = t
        .run(&["doctor", "--json", "--policy", MISSING_POLICY])
        .reply();
    assert_eq!(code, 1, "{v}");
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "policy")
        .unwrap_or_else(|| panic!("no policy check: {v}"));
    assert_eq!(check["status"], "fail", "{check}");
    assert!(check["message"].as_str().unwrap().contains(MISSING_POLICY));

    // The servers and the REPL do not start; print-config gives no digest.
    for args in [
        vec!["mcp", "--policy", MISSING_POLICY],
        vec!["repl", "--policy", MISSING_POLICY],
        vec![
            "mcp",
            "--print-config",
            "claude",
            "--with-authority",
            "--policy",
            MISSING_POLICY,
        ],
    ] {
        let run = t.run(&args).status(2);
        assert!(run.stderr().contains(MISSING_POLICY), "{run:?}");
    }
    assert_eq!(t.store_text(), before);
}

#[test]
fn the_default_policy_location_may_be_absent_and_says_so() {
    let t = Test::on_files();
    let run = t.run(&["policy", "digest"]).status(0);
    assert!(run.stdout().trim().starts_with("pol1_"), "{run:?}");
    assert!(
        run.stderr().contains("built-in default is active"),
        "{run:?}"
    );
    let v = t.run(&["policy", "digest", "--json"]).status(0).json();
    assert!(v["source"].is_null(), "{v}");
}

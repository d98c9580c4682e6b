//! Runs the typestate vectors through the real `tusk` binary: the project's own set,
//! the shared reference set (when `../shared` is present), and any directory named
//! by `TUSK_TYPESTATE_VECTORS`.

use crate::common::Test;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn project_vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/harness-typestate")
}

fn shared_vectors() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors/harness-typestate");
    dir.is_dir().then_some(dir)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn manifest_ids(dir: &Path) -> Vec<String> {
    read_json(&dir.join("manifest.json"))["vectors"]
        .as_array()
        .expect("manifest vectors")
        .iter()
        .map(|v| v.as_str().expect("vector id").to_string())
        .collect()
}

/// Runs the conformance subcommand on `dir` and asserts every listed vector passed.
fn assert_suite_passes(dir: &Path) {
    let out = Test::on_files().run(&["conformance", "harness-typestate", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "suite {} failed:\n{stdout}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = if dir.join("manifest.json").is_file() {
        manifest_ids(dir).len()
    } else {
        0
    };
    let last = stdout.lines().last().unwrap_or_default();
    if expected > 0 {
        assert_eq!(last, format!("{expected} passed, 0 failed"));
    } else {
        assert!(last.ends_with(" passed, 0 failed"), "{last}");
    }
}

#[test]
fn project_vectors_pass() {
    assert_suite_passes(&project_vectors());
}

#[test]
fn shared_reference_vectors_pass() {
    match shared_vectors() {
        Some(dir) => assert_suite_passes(&dir),
        None => eprintln!("../shared/vectors/harness-typestate absent; shared suite not run"),
    }
}

#[test]
fn vectors_from_environment_pass() {
    if let Some(dir) = std::env::var_os("TUSK_TYPESTATE_VECTORS") {
        assert_suite_passes(Path::new(&dir));
    }
}

/// The project carries every shared vector unchanged, so the suite cannot drift.
#[test]
fn project_set_contains_the_shared_set() {
    let Some(shared) = shared_vectors() else {
        return;
    };
    let project = project_vectors();
    let ours: BTreeSet<String> = manifest_ids(&project).into_iter().collect();
    for id in manifest_ids(&shared) {
        assert!(
            ours.contains(&id),
            "shared vector {id} missing from the project manifest"
        );
        for file in ["case.json", "expect.json", "output.json"] {
            assert_eq!(
                read_json(&shared.join(&id).join(file)),
                read_json(&project.join(&id).join(file)),
                "{id}/{file} differs from the shared copy"
            );
        }
    }
}

/// `--json` stdout is byte-identical to the reference's `output.json` for every
/// vector that has one (the shared ones and our reference-anchored invariance ones).
#[test]
fn cli_json_output_is_byte_identical_to_reference() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("typestate-cli-json");
    std::fs::create_dir_all(&tmp).unwrap();
    let project = project_vectors();
    let mut checked = 0;
    for id in manifest_ids(&project) {
        let dir = project.join(&id);
        let output = dir.join("output.json");
        if !output.is_file() {
            continue;
        }
        let input_path = tmp.join(format!("{}.json", id.replace('/', "__")));
        std::fs::write(
            &input_path,
            read_json(&dir.join("case.json"))["input"].to_string(),
        )
        .unwrap();
        let out = Test::on_files().run(&[
            "harness-join-check",
            "--input",
            input_path.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = std::fs::read_to_string(&output).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want,
            "{id}: stdout differs from output.json"
        );
        checked += 1;
    }
    assert!(checked >= 11, "only {checked} vectors with output.json");
}

/// Every failure class of the spec is provoked by at least one of our own vectors.
#[test]
fn own_vectors_cover_every_failure_class() {
    let project = project_vectors();
    let shared: BTreeSet<String> = shared_vectors()
        .map(|d| manifest_ids(&d).into_iter().collect())
        .unwrap_or_default();
    let mut covered = BTreeSet::new();
    for id in manifest_ids(&project) {
        if shared.contains(&id) || id.starts_with("invariance/") {
            continue;
        }
        let expect = read_json(&project.join(&id).join("expect.json"));
        for class in expect["expectedFailureClasses"].as_array().unwrap() {
            covered.insert(class.as_str().unwrap().to_string());
        }
    }
    for class in tusk::typestate::FAILURE_CLASSES {
        assert!(covered.contains(class), "no own vector provokes {class}");
    }
}

/// The runner reports a wrong expectation, an output mismatch and an unreadable
/// vector as failures (so a passing suite means something), and works without a
/// manifest by walking the directory.
#[test]
fn runner_reports_failures() {
    let src = project_vectors().join("golden/join_closed_accept");
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("typestate-runner-failures");
    let _ = std::fs::remove_dir_all(&root);
    for name in ["a_ok", "b_wrong_expect", "c_wrong_output", "d_broken"] {
        let dir = root.join("set").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["case.json", "expect.json", "output.json"] {
            std::fs::copy(src.join(file), dir.join(file)).unwrap();
        }
    }
    let set = root.join("set");
    let mut expect = read_json(&set.join("b_wrong_expect/expect.json"));
    expect["expectedFailureClasses"] = serde_json::json!(["tool.result_missing"]);
    std::fs::write(set.join("b_wrong_expect/expect.json"), expect.to_string()).unwrap();
    let mut output = read_json(&set.join("c_wrong_output/output.json"));
    output["witness"]["digests"]["joinSetDigest"] = Value::String("sha256:00".into());
    std::fs::write(set.join("c_wrong_output/output.json"), output.to_string()).unwrap();
    std::fs::write(set.join("d_broken/case.json"), "{not json").unwrap();

    let out = Test::on_files().run(&["conformance", "harness-typestate", set.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("PASS a_ok"), "{stdout}");
    assert!(
        stdout.contains("FAIL b_wrong_expect: failureClasses"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL c_wrong_output: output.json: /witness/digests/joinSetDigest"),
        "{stdout}"
    );
    assert!(stdout.contains("FAIL d_broken:"), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("1 passed, 3 failed"));

    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Test::on_files().run(&["conformance", "harness-typestate", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn summary_without_json_names_verdict_and_classes() {
    let case =
        read_json(&project_vectors().join("adversarial/join_result_missing_reject/case.json"));
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("typestate-summary.json");
    std::fs::write(&path, case["input"].to_string()).unwrap();
    let out = Test::on_files().run(&["harness-join-check", "--input", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("harness-join-check: rejected"), "{stdout}");
    assert!(
        stdout.contains("failureClasses: tool.join_incomplete, tool.result_missing"),
        "{stdout}"
    );
    assert!(stdout.contains("joinClosed: false"), "{stdout}");
}

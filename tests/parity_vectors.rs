//! Parity vectors recorded from the reference premath-cli
//! (`vectors/premath-cli/record.py`): tusk runs each scenario in a fresh
//! directory and must give the same exit code, stdout, stderr and files, byte
//! for byte.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn setup(root: &Path, scenario: &Value) {
    for rel in scenario["dirs"].as_array().into_iter().flatten() {
        std::fs::create_dir_all(root.join(rel.as_str().unwrap())).unwrap();
    }
    for (rel, text) in scenario["files"].as_object().into_iter().flatten() {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text.as_str().unwrap()).unwrap();
    }
}

#[test]
fn tusk_matches_every_recorded_premath_vector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/premath-cli");
    let scenarios: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("scenarios.json")).unwrap())
            .unwrap();
    let scenarios = scenarios["scenarios"].as_array().unwrap();
    assert!(!scenarios.is_empty());
    let mut mismatches = Vec::new();
    for sc in scenarios {
        let name = sc["name"].as_str().unwrap();
        let recorded = std::fs::read_to_string(dir.join(format!("{name}.json")))
            .unwrap_or_else(|e| panic!("{name}: no recorded vector ({e}); run record.py"));
        let want: Value = serde_json::from_str(&recorded).unwrap();
        assert_eq!(
            want["args"], sc["args"],
            "{name}: vector is stale; re-record"
        );
        let root = tempfile::tempdir().unwrap();
        setup(root.path(), sc);
        let args: Vec<&str> = sc["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_tusk"))
            .args(&args)
            .current_dir(root.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let mut files = serde_json::Map::new();
        for rel in sc["capture"].as_array().into_iter().flatten() {
            let rel = rel.as_str().unwrap();
            let path = root.path().join(rel);
            let content = if path.is_file() {
                Value::String(String::from_utf8(std::fs::read(path).unwrap()).unwrap())
            } else {
                Value::Null
            };
            files.insert(rel.to_string(), content);
        }
        let got = serde_json::json!({
            "exit": out.status.code(),
            "stdout": String::from_utf8_lossy(&out.stdout),
            "stderr": String::from_utf8_lossy(&out.stderr),
            "files": files,
        });
        for key in ["exit", "stdout", "stderr", "files"] {
            if got[key] != want[key] {
                mismatches.push(format!(
                    "{name}: {key}\n  premath: {}\n  tusk:    {}",
                    want[key], got[key]
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

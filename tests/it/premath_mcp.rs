//! premath's MCP tool calls, recorded from `premath mcp-serve` with the
//! official Python SDK (`vectors/premath-mcp/record.py`, fixtures committed
//! there), replayed against `tusk mcp --premath-tools` with the same SDK
//! (`tests/mcp/premath_drop_in.py`): each tool is listed with premath's input
//! schema and answers premath's text and error flag, and each call is a
//! recorded tusk run. Needs the venv of `bash tests/mcp/setup.sh` (fails,
//! never skips, without it).

use std::path::Path;
use std::process::Command;

#[test]
fn premaths_mcp_tool_calls_get_premaths_answers_from_tusk() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/mcp-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash tests/mcp/setup.sh` (installs the pinned MCP Python SDK)",
        python.display()
    );
    let out = Command::new(&python)
        .arg(root.join("tests/mcp/premath_drop_in.py"))
        .arg(env!("CARGO_BIN_EXE_tusk"))
        .env_remove("TUSK_STORE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every recorded case ran (the script exits 0 only when all passed).
    let cases: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("vectors/premath-mcp/cases.json")).unwrap(),
    )
    .unwrap();
    let n = cases["cases"].as_array().unwrap().len();
    assert!(n >= 10, "{n} cases");
    assert!(
        stdout.contains(&format!("{n} passed, 0 failed")),
        "{stdout}"
    );
}

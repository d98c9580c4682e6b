//! `tusk mcp` driven by two official MCP client SDKs over stdio: the Python SDK
//! (`tests/mcp/client_py.py`, in the venv at `target/mcp-venv`) and the TypeScript
//! SDK (`tests/mcp/client_ts.mjs`, with `tests/mcp/node_modules`). Both are pinned
//! (`tests/mcp/requirements.txt`, `tests/mcp/package-lock.json`) and installed by
//! `bash tests/mcp/setup.sh`. Each script runs its scenarios against the real binary
//! in a scratch directory, prints `ok NAME` / `FAIL NAME: WHY` and a closing
//! `N passed, M failed`, and exits 0 iff all passed.
//!
//! A missing or stale install fails the test (it never skips), with the command to fix it.

use crate::pg_support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Hard cap on one client script. Most finish well under a minute; the
/// shared server's two 100 MB results take about 55 s alone in a debug build
/// (their scenario may take 240 s on a loaded machine: shared_py.py).
const SCRIPT_LIMIT: Duration = Duration::from_secs(480);
const SETUP_HINT: &str =
    "run `bash tests/mcp/setup.sh` from the repository root to install the MCP client SDKs";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mcp_dir() -> PathBuf {
    repo().join("tests").join("mcp")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The Python SDK version pinned in requirements.txt (`mcp==X`).
fn python_pin() -> String {
    read(&mcp_dir().join("requirements.txt"))
        .lines()
        .find_map(|l| l.trim().strip_prefix("mcp==").map(|v| v.trim().to_string()))
        .expect("tests/mcp/requirements.txt pins mcp==VERSION")
}

/// The TypeScript SDK version pinned in package.json.
fn node_pin() -> String {
    let pkg: serde_json::Value =
        serde_json::from_str(&read(&mcp_dir().join("package.json"))).expect("package.json");
    pkg["dependencies"]["@modelcontextprotocol/sdk"]
        .as_str()
        .expect("package.json depends on @modelcontextprotocol/sdk")
        .to_string()
}

fn venv_python() -> PathBuf {
    let py = repo()
        .join("target")
        .join("mcp-venv")
        .join("bin")
        .join("python");
    assert!(
        py.exists(),
        "the Python MCP client is not installed ({} is missing): {SETUP_HINT}",
        py.display()
    );
    let out = Command::new(&py)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}; {SETUP_HINT}", py.display()));
    let have = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let want = python_pin();
    assert!(
        out.status.success() && have == want,
        "target/mcp-venv has mcp {have:?}, requirements.txt pins {want:?} ({}): {SETUP_HINT}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    py
}

fn node() -> PathBuf {
    let sdk = mcp_dir().join("node_modules/@modelcontextprotocol/sdk/package.json");
    assert!(
        sdk.exists(),
        "the TypeScript MCP client is not installed ({} is missing): {SETUP_HINT}",
        sdk.display()
    );
    let installed: serde_json::Value = serde_json::from_str(&read(&sdk)).expect("sdk package.json");
    let want = node_pin();
    assert_eq!(
        installed["version"].as_str(),
        Some(want.as_str()),
        "tests/mcp/node_modules has a different @modelcontextprotocol/sdk than package.json pins: {SETUP_HINT}"
    );
    let node = PathBuf::from("node");
    let ok = Command::new(&node)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "`node` is not on PATH; the TypeScript client needs Node.js >= 18"
    );
    node
}

fn drain(mut r: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

fn wait_with_limit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waiting for the client script") {
            return Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `interpreter script TUSK SCRATCH` and asserts it exits 0; prints its output.
fn run_client(interpreter: &Path, script: &str) {
    let scratch = tempfile::tempdir().expect("tempdir");
    let script = mcp_dir().join(script);
    // The Python client also serves a store on PostgreSQL (its own database).
    let db = pg_support::TestDb::new();
    let mut child = Command::new(interpreter)
        .env("TUSK_MCP_PG_URL", &db.url)
        .arg(&script)
        .arg(crate::common::BIN)
        .arg(scratch.path())
        .current_dir(mcp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "spawning {} {}: {e}",
                interpreter.display(),
                script.display()
            )
        });
    let out = drain(child.stdout.take().expect("stdout"));
    let err = drain(child.stderr.take().expect("stderr"));
    let status = wait_with_limit(&mut child, SCRIPT_LIMIT);
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let shown = format!(
        "--- {} stdout ---\n{out}--- stderr ---\n{err}",
        script.display()
    );
    let status = status.unwrap_or_else(|| {
        panic!(
            "{} did not finish within {SCRIPT_LIMIT:?}\n{shown}",
            script.display()
        )
    });
    let closing = out.lines().next_back().unwrap_or("").to_string();
    assert!(
        status.success(),
        "{} exited with {status} ({closing})\n{shown}",
        script.display()
    );
    assert!(
        closing.ends_with(" 0 failed") && !closing.starts_with("0 passed"),
        "{} exited 0 but its closing line is {closing:?}\n{shown}",
        script.display()
    );
    println!("{shown}");
}

#[test]
fn python_sdk_client() {
    let _heavy = crate::common::heavy();
    let py = venv_python();
    run_client(&py, "client_py.py");
}

#[test]
fn typescript_sdk_client() {
    let _heavy = crate::common::heavy();
    let node = node();
    run_client(&node, "client_ts.mjs");
}

/// Who did what (issue 57): a principal acts as itself over an
/// authenticated server (the official Python SDK).
#[test]
fn python_sdk_principals() {
    let _heavy = crate::common::heavy();
    let py = venv_python();
    run_client(&py, "principals_py.py");
}

/// The shared-server scenarios (principals, tokens, session isolation,
/// cancellation, progress, narrowing, bounds, fairness, HTTP hygiene,
/// malformed input), through the Python SDK, raw HTTP and raw stdio.
#[test]
fn python_sdk_shared_server() {
    let _heavy = crate::common::heavy();
    let py = venv_python();
    run_client(&py, "shared_py.py");
}

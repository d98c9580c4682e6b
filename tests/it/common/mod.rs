//! What the areas share: the one fixture, [`Test`] (a directory and a store
//! to run the real `tusk` binary against, see `test.rs`), and pure helpers.
#![allow(dead_code)]

mod issues;
mod test;

pub use issues::*;
pub use test::*;

use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Tests that load the whole machine (a release build, fleets of worker
/// processes, MCP servers moving 100 MB results) take turns. In one test binary
/// they would otherwise run side by side on a 2-core machine, and the
/// deadlines inside them (clients', servers', leases') are real time.
/// xorshift64*: a small deterministic generator, so a randomized test
/// replays from its seed without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (which must not be zero).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// One of `xs`.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

pub fn heavy() -> std::sync::MutexGuard<'static, ()> {
    static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A heavy test that failed still frees the machine for the next.
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `script` (a path in this repository) with the machine's `python3`,
/// this build's `tusk` as its first argument, then `args`, without the
/// caller's `TUSK_STORE`; its standard output, once it has exited 0 (else
/// the test fails with both streams).
pub fn python_script(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(script))
        .arg(BIN)
        .args(args)
        .env_remove("TUSK_STORE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{script}: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSONL line"))
        .collect()
}

pub fn classes(result: &Value) -> Vec<String> {
    result["failureClasses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

/// Canonical JSON written independently of the crate (keys sorted, compact).
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::to_string(k).unwrap(),
                        canonical(&map[k])
                    )
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => serde_json::to_string(other).unwrap(),
    }
}

pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `sha256:` of a row's line as written (the chain's row digest).
pub fn row_digest(row: &Value) -> String {
    format!(
        "sha256:{}",
        sha256_hex(&serde_json::to_string(row).unwrap())
    )
}

/// Recomputes every run's chain after an edit (`prevRowDigest` on each row,
/// `chainHead` on each footer), as anyone who can write the log could: what
/// is left to catch is what the other checks or a signature catch.
#[allow(dead_code)]
pub fn rechain(rows: &mut [Value]) {
    let mut last: std::collections::HashMap<String, String> = Default::default();
    for row in rows.iter_mut() {
        let run = row["runId"].as_str().unwrap_or_default().to_string();
        if row["kind"] == "premath.scheme_eval.run.v0" {
            row["prevRowDigest"] = row["programDigest"].clone();
        } else if let Some(prev) = last.get(&run) {
            row["prevRowDigest"] = Value::String(prev.clone());
        }
        if row["kind"] == "premath.scheme_eval.run_end.v0" {
            // The head covers the footer without chainHead and signature; a
            // signature, kept as it was, no longer matches a changed head.
            let mut body = row.clone();
            let map = body.as_object_mut().unwrap();
            map.shift_remove("chainHead");
            map.shift_remove("signature");
            row["chainHead"] = Value::String(row_digest(&body));
        }
        last.insert(run, row_digest(row));
    }
}

/// Strips the chain from every row, as in a log written before tusk chained it.
#[allow(dead_code)]
pub fn unchain(rows: &mut [Value]) {
    for row in rows.iter_mut() {
        if let Some(map) = row.as_object_mut() {
            for key in ["prevRowDigest", "chainHead", "signature"] {
                map.shift_remove(key);
            }
        }
    }
}

/// The parts of a result or an effect row that differ between processes by
/// design: ids, clocks, timings, memory, and the chain's digests of rows that
/// hold them. (Step ids end with their run's id: it is masked where it appears.)
#[allow(dead_code)]
pub fn normalized(mut v: Value, run_id: &str) -> Value {
    fn strip(v: &mut Value, run_id: &str) {
        match v {
            Value::String(s) if s.contains(run_id) => *s = s.replace(run_id, "<run>"),
            Value::Object(map) => {
                for key in [
                    "runId",
                    "startedAt",
                    "finishedAt",
                    "elapsedMs",
                    "peakMemoryKb",
                    "actedAt",
                    "prevRowDigest",
                    "chainHead",
                    "signature",
                    // The process that wrote the run (issue 61): a fact of the
                    // writer, like its clock.
                    "writer",
                ] {
                    map.remove(key);
                }
                map.values_mut().for_each(|v| strip(v, run_id));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| strip(v, run_id)),
            _ => {}
        }
    }
    strip(&mut v, run_id);
    v
}

/// `initialize` and `notifications/initialized`: what an MCP client sends
/// before its first call.
pub fn mcp_handshake(client: &str) -> Vec<Value> {
    vec![
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": client, "version": "0"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

/// Speaks line-delimited JSON-RPC to the server `cmd` starts (stdio): sends
/// each request, waits for the reply with its id (notifications get none),
/// closes stdin and waits for the exit, which must be a success. Returns
/// the replies in request order.
pub fn jsonrpc_stdio(cmd: &mut Command, requests: &[Value]) -> Vec<Value> {
    use std::io::BufRead;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the server");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut replies = Vec::new();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        if request.get("id").is_none() {
            continue;
        }
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "server closed");
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply.get("id") == request.get("id") {
                replies.push(reply);
                break;
            }
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the server exited {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    replies
}

/// The command names a help text lists, in every section whose title ends
/// in "commands:" (`tusk --help` groups them; a subcommand's help has one
/// `Commands:` list).
pub fn help_commands(help: &str) -> Vec<&str> {
    let mut listing = false;
    let mut names = Vec::new();
    for line in help.lines() {
        if line.to_ascii_lowercase().ends_with("commands:") {
            listing = true;
        } else if !line.starts_with("  ") {
            listing = false;
        } else if listing {
            names.extend(line.split_whitespace().next());
        }
    }
    names
}

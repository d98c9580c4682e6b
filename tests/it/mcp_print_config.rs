//! `tusk mcp --print-config claude|cursor|codex|vscode [--with-authority]`:
//! each output parses in its format (JSON with serde_json, Codex's TOML with
//! the toml crate) and has the client's shape; and the official Python MCP
//! SDK (`tests/mcp/print_config_py.py`, in the venv `bash tests/mcp/setup.sh`
//! installs) starts the server from exactly the printed command, args, cwd and
//! env, lists its tools and runs a mutation under the printed authority.

use crate::common::{Test, BIN};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CLIENTS: [&str; 4] = ["claude", "cursor", "codex", "vscode"];
const SETUP_HINT: &str =
    "run `bash tests/mcp/setup.sh` from the repository root to install the MCP client SDKs";

/// `tusk ARGS` in the test's directory, by its canonical path (TUSK_STORE as
/// given): exit code, stdout, stderr.
fn tusk_in(work: &Test, args: &[&str], store_env: Option<&str>) -> (i32, String, String) {
    let mut tusk = work
        .tusk(args)
        .cwd(std::fs::canonicalize(work.dir()).unwrap());
    if let Some(url) = store_env {
        tusk = tusk.env("TUSK_STORE", url);
    }
    tusk.run().parts()
}

/// What a client starts: command, args, cwd (if the format has one), env.
#[derive(Debug)]
struct Launch {
    command: String,
    args: Vec<String>,
    cwd: Option<String>,
    env: Option<Value>,
}

/// Parses a printed configuration in `client`'s format and checks its shape.
fn parse(client: &str, text: &str) -> Launch {
    if client == "codex" {
        let doc: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("codex config is not TOML ({e}):\n{text}"));
        let servers = doc["mcp_servers"].as_table().expect("[mcp_servers]");
        assert_eq!(servers.keys().collect::<Vec<_>>(), ["tusk"], "{text}");
        let tusk = servers["tusk"].as_table().unwrap();
        for key in tusk.keys() {
            assert!(
                ["command", "args", "cwd", "env"].contains(&key.as_str()),
                "{key}"
            );
        }
        let env = tusk.get("env").map(|e| {
            let table = e.as_table().expect("env is a table");
            Value::Object(
                table
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(v.as_str().expect("string env"))))
                    .collect(),
            )
        });
        return Launch {
            command: tusk["command"].as_str().unwrap().to_string(),
            args: tusk["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect(),
            cwd: Some(tusk["cwd"].as_str().expect("cwd").to_string()),
            env,
        };
    }
    let doc: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("{client} config is not JSON ({e}):\n{text}"));
    let top = if client == "vscode" {
        "servers"
    } else {
        "mcpServers"
    };
    let servers = doc[top]
        .as_object()
        .unwrap_or_else(|| panic!("no {top}: {doc}"));
    assert_eq!(doc.as_object().unwrap().len(), 1, "{doc}");
    assert_eq!(servers.keys().collect::<Vec<_>>(), ["tusk"], "{doc}");
    let tusk = &servers["tusk"];
    if client == "vscode" {
        assert_eq!(tusk["type"], "stdio", "{doc}");
    } else {
        assert!(tusk.get("type").is_none(), "{doc}");
    }
    Launch {
        command: tusk["command"].as_str().unwrap().to_string(),
        args: tusk["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect(),
        cwd: None,
        env: tusk.get("env").cloned(),
    }
}

fn print_config(work: &Test, extra: &[&str], store_env: Option<&str>) -> (String, Launch) {
    let client = extra[0];
    let mut args = vec!["mcp", "--print-config"];
    args.extend_from_slice(extra);
    let (code, out, err) = tusk_in(work, &args, store_env);
    assert_eq!(code, 0, "{err}");
    (out.clone(), parse(client, &out))
}

#[test]
fn each_format_parses_and_names_this_binary_and_directory() {
    let work = Test::on_files();
    let dir = std::fs::canonicalize(work.dir()).unwrap();
    let dir_text = dir.to_str().unwrap();
    let exe = std::fs::canonicalize(BIN).unwrap();
    let (_, digest, _) = tusk_in(&work, &["policy", "digest"], None);
    let digest = digest.trim();
    for client in CLIENTS {
        let (_, plain) = print_config(&work, &[client], None);
        assert_eq!(Path::new(&plain.command), exe, "{client}");
        assert_eq!(plain.args, ["-C", dir_text, "mcp"], "{client}");
        assert_eq!(plain.env, None, "{client}");
        assert_eq!(plain.cwd.is_some(), client == "codex", "{client}");
        if let Some(cwd) = &plain.cwd {
            assert_eq!(cwd, dir_text);
        }
        let (_, with) = print_config(&work, &[client, "--with-authority"], None);
        assert_eq!(
            with.args,
            [
                "-C",
                dir_text,
                "mcp",
                "--policy-digest",
                digest,
                "--instruction-ref",
                "instr://mcp"
            ],
            "{client}"
        );
        // Flags given with --print-config reach the server; a given
        // instruction ref replaces the default.
        let (_, custom) = print_config(
            &work,
            &[
                client,
                "--with-authority",
                "--instruction-ref",
                "instr://agent \"a\"",
                "--read-only",
                "--max-calls",
                "7",
            ],
            Some("postgres://tusk:secret@127.0.0.1:5432/tusk"),
        );
        let args: Vec<&str> = custom.args.iter().map(String::as_str).collect();
        assert_eq!(
            args,
            [
                "-C",
                dir_text,
                "mcp",
                "--instruction-ref",
                "instr://agent \"a\"",
                "--max-calls",
                "7",
                "--read-only",
                "--policy-digest",
                digest
            ],
            "{client}"
        );
        // The shell's TUSK_STORE goes into the server's environment.
        assert_eq!(
            custom.env,
            Some(json!({"TUSK_STORE": "postgres://tusk:secret@127.0.0.1:5432/tusk"})),
            "{client}"
        );
    }
    // A digest given by hand and one computed cannot both be meant.
    let (code, _, err) = tusk_in(
        &work,
        &[
            "mcp",
            "--print-config",
            "claude",
            "--with-authority",
            "--policy-digest",
            "pol1_00",
        ],
        None,
    );
    assert_eq!(code, 2, "{err}");
    // The configuration is for stdio: --http is refused, and so is an unknown client.
    for args in [
        &["mcp", "--print-config", "claude", "--http", "127.0.0.1:0"][..],
        &["mcp", "--print-config", "emacs"][..],
        &["mcp", "--with-authority"][..],
    ] {
        let (code, _, err) = tusk_in(&work, args, None);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    // A broken policy file cannot give a digest: exit 2, nothing printed.
    std::fs::create_dir_all(dir.join(".premath")).unwrap();
    std::fs::write(dir.join(".premath/mutation_policy.json"), "{").unwrap();
    let (code, out, err) = tusk_in(
        &work,
        &["mcp", "--print-config", "codex", "--with-authority"],
        None,
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("mutation_policy.json"), "{err}");
}

fn venv_python() -> PathBuf {
    let py = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python");
    assert!(
        py.exists(),
        "the Python MCP client is not installed ({} is missing): {SETUP_HINT}",
        py.display()
    );
    py
}

#[test]
fn the_python_sdk_starts_the_server_from_each_printed_config() {
    let work = Test::on_files();
    let dir = std::fs::canonicalize(work.dir()).unwrap();
    // The SDK starts servers without a cwd in this other directory: the
    // printed args alone must lead the server to `dir`.
    let elsewhere = tempfile::tempdir().unwrap();
    let store = dir.join(".premath/issues.jsonl");
    let (code, _, err) = tusk_in(&work, &["init"], None);
    assert_eq!(code, 0, "{err}");
    let mut launches = Vec::new();
    for client in CLIENTS {
        for authority in [true, false] {
            let mut args = vec![client];
            if authority {
                args.push("--with-authority");
            }
            let (_, launch) = print_config(&work, &args, None);
            launches.push(json!({
                "name": format!("{client}{}", if authority { "+authority" } else { "" }),
                "command": launch.command,
                "args": launch.args,
                "cwd": launch.cwd,
                "env": launch.env,
                "authority": authority,
                "store": store,
            }));
        }
    }
    let file = work.dir().join("launches.json");
    std::fs::write(&file, serde_json::to_string(&launches).unwrap()).unwrap();
    sdk_script_passes_eight("print_config_py.py", &[file.as_os_str()], elsewhere.path());
    // Nothing was written where the SDK started the servers.
    assert!(!elsewhere.path().join(".premath").exists());
}

/// `--url URL --token-env VAR` (a shared server) and `--portable` (a file to
/// commit), through the official Python SDK: each client's printed settings
/// reach a real `tusk mcp --http --auth` with the token read from the
/// environment, and the SDK logs nothing, the disconnect included; the
/// portable stdio configurations start `tusk` from PATH in the project.
#[test]
fn the_python_sdk_connects_with_each_shared_and_portable_config() {
    let work = Test::on_files();
    let (code, _, err) = tusk_in(&work, &["init"], None);
    assert_eq!(code, 0, "{err}");
    let tusk = std::fs::canonicalize(BIN).unwrap();
    sdk_script_passes_eight(
        "print_config_shared_py.py",
        &[tusk.as_os_str(), work.dir().as_os_str()],
        work.dir(),
    );
}

/// Runs `tests/mcp/SCRIPT ARGS` with the SDK venv's python in `cwd` (no
/// TUSK_STORE) and asserts its last line: all eight of its cases passed.
fn sdk_script_passes_eight(script: &str, args: &[&std::ffi::OsStr], cwd: &Path) {
    let py = venv_python();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(script);
    let out = Command::new(&py)
        .arg(&script)
        .args(args)
        .current_dir(cwd)
        .env_remove("TUSK_STORE")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}; {SETUP_HINT}", py.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("8 passed, 0 failed"),
        "{}\n{stdout}\n{stderr}",
        out.status
    );
}

#[test]
fn shared_and_portable_configs_are_refused_when_they_cannot_work() {
    let work = Test::on_files();
    for (args, says) in [
        (
            &["mcp", "--print-config", "claude", "--url", "ftp://x/mcp"][..],
            "not an http:// or https:// URL",
        ),
        (
            &[
                "mcp",
                "--print-config",
                "cursor",
                "--url",
                "http://127.0.0.1:1/mcp",
                "--token-env",
                "1TOKEN",
            ],
            "not an environment variable name",
        ),
        (
            &[
                "mcp",
                "--print-config",
                "vscode",
                "--url",
                "http://127.0.0.1:1/mcp",
                "--read-only",
            ],
            "--read-only",
        ),
        (
            &[
                "mcp",
                "--print-config",
                "codex",
                "--url",
                "http://h/mcp",
                "--portable",
            ],
            "cannot be used with",
        ),
        (
            &[
                "mcp",
                "--print-config",
                "codex",
                "--url",
                "http://h/mcp",
                "--with-authority",
            ],
            "cannot be used with",
        ),
        (&["mcp", "--token-env", "T"], "required"),
        // Issue 55: a password in the URL would land in a file meant for
        // the repository.
        (
            &[
                "mcp",
                "--print-config",
                "claude",
                "--url",
                "http://alice:hunter2@h:8765/mcp",
            ],
            "give --url http://h:8765/mcp and the token with --token-env VAR",
        ),
    ] {
        let (code, out, err) = tusk_in(&work, args, None);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("hunter2"), "the password was echoed: {err}");
    }
    // A database URL in TUSK_STORE is a reference in a portable file, never
    // its value (it carries a password).
    for client in CLIENTS {
        let (code, out, err) = tusk_in(
            &work,
            &["mcp", "--print-config", client, "--portable"],
            Some("postgres://tusk:pw@db.example/tusk"),
        );
        assert_eq!(code, 0, "{err}");
        assert!(!out.contains("pw@db"), "{client}: {out}");
        let reference = match client {
            "claude" => "\"TUSK_STORE\": \"${TUSK_STORE}\"",
            "codex" => "env_vars = [\"TUSK_STORE\"]",
            _ => "\"TUSK_STORE\": \"${env:TUSK_STORE}\"",
        };
        assert!(out.contains(reference), "{client}: {out}");
    }
}

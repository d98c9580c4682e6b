//! `tusk mcp --print-config CLIENT [--with-authority]`: the configuration an
//! MCP client needs to start this server over stdio.
//!
//! The server is this binary (its absolute path) with `-C DIR mcp` and every
//! flag given here with `--print-config` (so `--read-only`, `--policy P`,
//! limits, … carry over). `-C` makes the server independent of the directory
//! the client starts it in: only Codex documents a `cwd` setting. With
//! `--with-authority` the args also carry the active policy's digest and an
//! instruction ref, so the agent's mutations need no authority of their own.
//! `TUSK_STORE`, when set here, goes into the server's `env` (clients pass
//! only part of their own environment on).
//!
//! Formats (checked against each client's documentation):
//! - `claude`: `{"mcpServers": {"tusk": {command, args, env?}}}` (Claude Code's
//!   `.mcp.json`, Claude Desktop's `claude_desktop_config.json`);
//! - `cursor`: the same shape (`.cursor/mcp.json`, `~/.cursor/mcp.json`);
//! - `vscode`: `{"servers": {"tusk": {"type": "stdio", command, args, env?}}}`
//!   (`.vscode/mcp.json`);
//! - `codex`: a `[mcp_servers.tusk]` table with `command`, `args`, `cwd` and
//!   `[mcp_servers.tusk.env]` (`~/.codex/config.toml`).

use super::mcp::McpArgs;
use super::store::STORE_ENV;
use super::{CliError, Exit};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, ValueEnum};
use serde_json::{json, Map, Value};
use std::path::Path;

/// The instruction ref `--with-authority` uses when none is given.
pub const DEFAULT_INSTRUCTION_REF: &str = "instr://mcp";

/// The clients whose configuration `--print-config` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Client {
    /// Claude Code (`.mcp.json`) and Claude Desktop: `mcpServers` JSON.
    Claude,
    /// Cursor (`.cursor/mcp.json`): `mcpServers` JSON.
    Cursor,
    /// Codex (`~/.codex/config.toml`): an `[mcp_servers.tusk]` TOML table.
    Codex,
    /// VS Code (`.vscode/mcp.json`): `servers` JSON with `"type": "stdio"`.
    Vscode,
}

/// How the client starts the server.
#[derive(Debug, PartialEq)]
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
    pub cwd: String,
    pub env: Vec<(String, String)>,
}

fn utf8(what: &str, path: &Path) -> Result<String, String> {
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{what} {} is not UTF-8", path.display()))
}

/// The flags given on this command line (other than `--print-config` and
/// `--with-authority`), in declaration order, as the server should receive them.
fn forwarded(matches: &ArgMatches) -> Result<Vec<String>, String> {
    let cmd = super::Cli::command();
    let Some(mcp) = cmd.find_subcommand("mcp") else {
        return Err("the mcp command is missing from the command line definitions".into());
    };
    let mut out = Vec::new();
    for arg in mcp.get_arguments() {
        let id = arg.get_id().as_str();
        if matches!(id, "print_config" | "with_authority")
            || matches.value_source(id) != Some(ValueSource::CommandLine)
        {
            continue;
        }
        let flag = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => String::new(),
        };
        match arg.get_action() {
            ArgAction::SetTrue | ArgAction::SetFalse => out.push(flag),
            ArgAction::Count => {
                for _ in 0..matches.get_count(id) {
                    out.push(flag.clone());
                }
            }
            ArgAction::Set | ArgAction::Append => {
                for value in matches.get_raw(id).into_iter().flatten() {
                    let value = value
                        .to_str()
                        .ok_or_else(|| format!("the value of {flag} is not UTF-8"))?;
                    if !flag.is_empty() {
                        out.push(flag.clone());
                    }
                    out.push(value.to_string());
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The launch line for the server these flags describe.
fn launch(args: &McpArgs, matches: &ArgMatches) -> Result<Launch, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find this binary's path: {e}"))?;
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let cwd = utf8("the working directory", &cwd)?;
    let mut server = vec!["-C".to_string(), cwd.clone(), "mcp".to_string()];
    server.extend(forwarded(matches)?);
    if args.with_authority {
        let paths = crate::host::HostPaths::under(Path::new("."));
        let file = crate::host::PolicyFile::from_flag(args.host.policy.as_deref(), &paths.policy);
        let policy = crate::runtime::load_policy(&file).map_err(|e| e.to_string())?;
        server.extend(["--policy-digest".to_string(), policy.digest]);
        if args.host.instruction_ref.is_none() {
            server.extend([
                "--instruction-ref".to_string(),
                DEFAULT_INSTRUCTION_REF.to_string(),
            ]);
        }
    }
    let mut env = Vec::new();
    if args.host.files.store.store.is_none() {
        if let Ok(url) = std::env::var(STORE_ENV) {
            if !url.trim().is_empty() {
                env.push((STORE_ENV.to_string(), url));
            }
        }
    }
    Ok(Launch {
        command: utf8("this binary's path", &exe)?,
        args: server,
        cwd,
        env,
    })
}

/// The configuration text for `client` (JSON, or TOML for Codex), newline-terminated.
pub fn render(client: Client, launch: &Launch) -> String {
    let env: Map<String, Value> = launch
        .env
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let mut server = Map::new();
    if client == Client::Vscode {
        server.insert("type".into(), json!("stdio"));
    }
    server.insert("command".into(), json!(launch.command));
    server.insert("args".into(), json!(launch.args));
    if !env.is_empty() {
        server.insert("env".into(), Value::Object(env));
    }
    let document = match client {
        Client::Claude | Client::Cursor => json!({"mcpServers": {"tusk": server}}),
        Client::Vscode => json!({"servers": {"tusk": server}}),
        Client::Codex => return codex_toml(launch),
    };
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}

fn codex_toml(launch: &Launch) -> String {
    let args: Vec<String> = launch.args.iter().map(|a| toml_string(a)).collect();
    let mut out = format!(
        "[mcp_servers.tusk]\ncommand = {}\nargs = [{}]\ncwd = {}\n",
        toml_string(&launch.command),
        args.join(", "),
        toml_string(&launch.cwd)
    );
    if !launch.env.is_empty() {
        out.push_str("\n[mcp_servers.tusk.env]\n");
        for (key, value) in &launch.env {
            out.push_str(&format!("{} = {}\n", toml_string(key), toml_string(value)));
        }
    }
    out
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Where `client` reads the configuration, for the note on stderr.
fn destination(client: Client) -> &'static str {
    match client {
        Client::Claude => {
            "Claude Code: .mcp.json at the project root; Claude Desktop: \
             claude_desktop_config.json (merge the `tusk` entry into mcpServers)"
        }
        Client::Cursor => ".cursor/mcp.json in the project, or ~/.cursor/mcp.json",
        Client::Codex => "~/.codex/config.toml, or .codex/config.toml in a trusted project",
        Client::Vscode => ".vscode/mcp.json in the workspace",
    }
}

/// Runs `tusk mcp --print-config` (exit 2 when the configuration cannot be
/// made).
pub fn run(client: Client, args: &McpArgs, matches: Option<&ArgMatches>) -> Result<Exit, CliError> {
    let empty = ArgMatches::default();
    let launch =
        launch(args, matches.unwrap_or(&empty)).map_err(|e| CliError::unusable("tusk mcp", e))?;
    let written = super::write_stdout(render(client, &launch).as_bytes());
    eprintln!("tusk mcp: put this in {}", destination(client));
    if !args.with_authority && args.host.policy_digest.is_none() {
        eprintln!(
            "tusk mcp: without --with-authority, each mutating call needs \
             policyDigest and instructionRef (`tusk policy digest`)"
        );
    }
    written?;
    Ok(Exit::Accepted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_strings_escape_what_toml_requires() {
        assert_eq!(toml_string(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(toml_string("x\ny\u{7f}\u{1}"), "\"x\\ny\\u007F\\u0001\"");
        assert_eq!(toml_string("/tmp/é ü"), "\"/tmp/é ü\"");
    }
}

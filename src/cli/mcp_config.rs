//! `tusk mcp --print-config CLIENT [--with-authority | --portable | --url URL
//! [--token-env VAR]]`: the configuration an MCP client needs to start this
//! server over stdio, or to reach a shared one over HTTP.
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
//!
//! `--url URL [--token-env VAR]`: a shared server (`tusk mcp --http`): Claude
//! Code `{"type": "http", url, headers}` with `Bearer ${VAR}`; Cursor `{url,
//! headers}` with `${env:VAR}`; VS Code `{"type": "http", …}` with
//! `${env:VAR}`; Codex `url` and `bearer_token_env_var`. The token itself is
//! never written. `--portable`: `tusk` from PATH; Cursor and VS Code get
//! `-C ${workspaceFolder}`, Claude Code and Codex start a project's server in
//! the project directory; TUSK_STORE is a reference to the client's variable
//! (Codex: `env_vars`), not its value.

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

/// How the client reaches the server.
#[derive(Debug, PartialEq)]
pub enum Launch {
    /// The client starts the server over stdio.
    Stdio(Stdio),
    /// The client connects to a shared server (`--url`).
    Http(Http),
}

/// A server the client starts. `cwd` is `None` for a portable configuration
/// (the client's own project directory).
#[derive(Debug, PartialEq)]
pub struct Stdio {
    pub command: String,
    pub args: Vec<String>,
    pub cwd: Option<String>,
    /// Variables and their values, or (portable) references to the client's
    /// environment, written in the client's syntax.
    pub env: Vec<(String, EnvValue)>,
}

/// A variable's value in a configuration.
#[derive(Debug, PartialEq)]
pub enum EnvValue {
    /// Written as it is.
    Literal(String),
    /// The client's own environment variable of this name.
    FromEnv(String),
}

/// A shared server: its URL, and the variable holding the bearer token.
#[derive(Debug, PartialEq)]
pub struct Http {
    pub url: String,
    pub token_env: Option<String>,
}

/// The project directory in the clients that expand it in a server's args
/// (`--portable`); Claude Code and Codex start a project's server in it.
const WORKSPACE_FOLDER: &str = "${workspaceFolder}";

/// `value` as `client` writes a reference to its environment variable
/// `var`: `${VAR}` (Claude Code), `${env:VAR}` (Cursor, VS Code).
fn env_reference(client: Client, var: &str) -> String {
    match client {
        Client::Claude => format!("${{{var}}}"),
        Client::Cursor | Client::Vscode => format!("${{env:{var}}}"),
        // Codex names variables by name in its own keys.
        Client::Codex => var.to_string(),
    }
}

/// An environment variable name a shell and every client accept.
fn check_var_name(var: &str) -> Result<(), String> {
    let mut chars = var.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(format!(
            "--token-env {var:?} is not an environment variable name (letters, digits and _, \
             not starting with a digit; e.g. TUSK_TOKEN)"
        ))
    }
}

/// A shared server's URL: http or https, with a host.
fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    match rest {
        Some(rest)
            if !rest.is_empty() && !rest.starts_with('/') && !url.contains(char::is_whitespace) =>
        {
            // A user and password in the URL would be written into a file
            // meant for the repository (issue 55): the secret goes in an
            // environment variable the client reads.
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            if authority.contains('@') {
                let scheme = &url[..url.len() - rest.len()];
                let host = authority.rsplit_once('@').map_or("", |(_, h)| h);
                return Err(format!(
                    "--url carries a user name or password (before `@`); a configuration is \
                     meant to be committed, so it never holds a secret: give \
                     --url {scheme}{host}{} and the token with --token-env VAR (the client \
                     reads it from $VAR)",
                    &rest[authority.len()..]
                ));
            }
            Ok(())
        }
        _ => Err(format!(
            "--url {url:?} is not an http:// or https:// URL with a host (e.g. \
             http://127.0.0.1:8765/mcp, where `tusk mcp --http` serves)"
        )),
    }
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
        if matches!(
            id,
            "print_config" | "with_authority" | "url" | "token_env" | "portable"
        ) || matches.value_source(id) != Some(ValueSource::CommandLine)
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

/// How `client` reaches the server these flags describe.
fn launch(client: Client, args: &McpArgs, matches: &ArgMatches) -> Result<Launch, String> {
    let flags = forwarded(matches)?;
    if let Some(url) = &args.url {
        check_url(url)?;
        if let Some(var) = &args.token_env {
            check_var_name(var)?;
        }
        if !flags.is_empty() {
            return Err(format!(
                "{} set(s) the server, which is already running at {url}: give it to \
                 `tusk mcp --http` there, and only --url and --token-env here",
                flags
                    .iter()
                    .filter(|f| f.starts_with('-'))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        return Ok(Launch::Http(Http {
            url: url.clone(),
            token_env: args.token_env.clone(),
        }));
    }
    let (command, cwd, mut server) = if args.portable {
        let dir = match client {
            Client::Cursor | Client::Vscode => vec!["-C".to_string(), WORKSPACE_FOLDER.into()],
            Client::Claude | Client::Codex => Vec::new(),
        };
        ("tusk".to_string(), None, dir)
    } else {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find this binary's path: {e}"))?;
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the working directory: {e}"))?;
        let cwd = utf8("the working directory", &cwd)?;
        let dir = vec!["-C".to_string(), cwd.clone()];
        (utf8("this binary's path", &exe)?, Some(cwd), dir)
    };
    server.push("mcp".to_string());
    server.extend(flags);
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
                // A committed file names the variable, never its value (a
                // database URL carries a password).
                let value = if args.portable {
                    EnvValue::FromEnv(STORE_ENV.to_string())
                } else {
                    EnvValue::Literal(url)
                };
                env.push((STORE_ENV.to_string(), value));
            }
        }
    }
    Ok(Launch::Stdio(Stdio {
        command,
        args: server,
        cwd,
        env,
    }))
}

/// The configuration text for `client` (JSON, or TOML for Codex), newline-terminated.
pub fn render(client: Client, launch: &Launch) -> String {
    let server = match launch {
        Launch::Stdio(_) | Launch::Http(_) if client == Client::Codex => return codex_toml(launch),
        Launch::Stdio(stdio) => {
            let env: Map<String, Value> = stdio
                .env
                .iter()
                .map(|(k, v)| {
                    let text = match v {
                        EnvValue::Literal(value) => value.clone(),
                        EnvValue::FromEnv(var) => env_reference(client, var),
                    };
                    (k.clone(), Value::String(text))
                })
                .collect();
            let mut server = Map::new();
            if client == Client::Vscode {
                server.insert("type".into(), json!("stdio"));
            }
            server.insert("command".into(), json!(stdio.command));
            server.insert("args".into(), json!(stdio.args));
            if !env.is_empty() {
                server.insert("env".into(), Value::Object(env));
            }
            server
        }
        Launch::Http(http) => {
            let mut server = Map::new();
            // Cursor tells HTTP from stdio by `url`; the others want a type.
            if client != Client::Cursor {
                server.insert("type".into(), json!("http"));
            }
            server.insert("url".into(), json!(http.url));
            if let Some(var) = &http.token_env {
                let bearer = format!("Bearer {}", env_reference(client, var));
                server.insert("headers".into(), json!({"Authorization": bearer}));
            }
            server
        }
    };
    let document = match client {
        Client::Vscode => json!({"servers": {"tusk": server}}),
        _ => json!({"mcpServers": {"tusk": server}}),
    };
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}

fn codex_toml(launch: &Launch) -> String {
    let stdio = match launch {
        Launch::Http(http) => {
            let mut out = format!("[mcp_servers.tusk]\nurl = {}\n", toml_string(&http.url));
            if let Some(var) = &http.token_env {
                out.push_str(&format!("bearer_token_env_var = {}\n", toml_string(var)));
            }
            return out;
        }
        Launch::Stdio(stdio) => stdio,
    };
    let args: Vec<String> = stdio.args.iter().map(|a| toml_string(a)).collect();
    let mut out = format!(
        "[mcp_servers.tusk]\ncommand = {}\nargs = [{}]\n",
        toml_string(&stdio.command),
        args.join(", "),
    );
    if let Some(cwd) = &stdio.cwd {
        out.push_str(&format!("cwd = {}\n", toml_string(cwd)));
    }
    let literal: Vec<_> = stdio
        .env
        .iter()
        .filter_map(|(k, v)| match v {
            EnvValue::Literal(value) => Some((k, value)),
            EnvValue::FromEnv(_) => None,
        })
        .collect();
    let passed: Vec<String> = stdio
        .env
        .iter()
        .filter_map(|(_, v)| match v {
            EnvValue::FromEnv(var) => Some(toml_string(var)),
            EnvValue::Literal(_) => None,
        })
        .collect();
    // Codex passes the named variables of its own environment on.
    if !passed.is_empty() {
        out.push_str(&format!("env_vars = [{}]\n", passed.join(", ")));
    }
    if !literal.is_empty() {
        out.push_str("\n[mcp_servers.tusk.env]\n");
        for (key, value) in literal {
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
    let launch = launch(client, args, matches.unwrap_or(&empty))
        .map_err(|e| CliError::unusable("tusk mcp", e))?;
    let written = super::write_stdout(render(client, &launch).as_bytes());
    eprintln!("tusk mcp: put this in {}", destination(client));
    if let Launch::Http(http) = &launch {
        match &http.token_env {
            Some(var) => eprintln!(
                "tusk mcp: the client reads the token from ${var} in its own environment \
                 (set it before starting the client)"
            ),
            None => eprintln!(
                "tusk mcp: no --token-env: fine for a loopback server without --auth; a \
                 server with --auth answers 401"
            ),
        }
    } else if args.portable {
        eprintln!(
            "tusk mcp: portable: `tusk` must be on the client's PATH; the server runs in the \
             project directory the client opens"
        );
    }
    if args.url.is_none() && !args.with_authority && args.host.policy_digest.is_none() {
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

//! `tusk mcp`: serve the host over MCP (stdio). Diagnostics go to stderr;
//! stdout carries only the protocol.

use super::eval::HostArgs;
use super::{CliError, Exit};
use crate::mcp::{ServerOptions, TuskServer};
use crate::runtime::Host;
use clap::{Args, Subcommand};
use std::time::Duration;

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: Option<McpCommand>,
    /// Print the configuration CLIENT needs to start this server over stdio
    /// (JSON; TOML for codex) instead of serving: this binary with `-C DIR mcp`
    /// and the other flags given here.
    #[arg(long, value_enum, value_name = "CLIENT", conflicts_with = "http")]
    pub print_config: Option<super::mcp_config::Client>,
    /// With --print-config: put the active policy's digest and an instruction
    /// ref (--instruction-ref, default instr://mcp) in the server's args.
    #[arg(long, requires = "print_config", conflicts_with = "policy_digest")]
    pub with_authority: bool,
    /// With --print-config: the configuration for a shared server already
    /// serving at URL (`tusk mcp --http`, e.g. http://host:8765/mcp) instead
    /// of one the client starts.
    #[arg(
        long,
        value_name = "URL",
        requires = "print_config",
        conflicts_with = "with_authority"
    )]
    pub url: Option<String>,
    /// With --url: the environment variable holding the bearer token; the
    /// configuration names the variable in the client's own syntax, never
    /// the token.
    #[arg(long, value_name = "VAR", requires = "url")]
    pub token_env: Option<String>,
    /// With --print-config: a configuration to commit: `tusk` from PATH and
    /// the project directory as the client names it, not this machine's paths.
    #[arg(long, requires = "print_config", conflicts_with = "url")]
    pub portable: bool,
    /// Also expose each host action as a tool of its own (`issue_ready`,
    /// `issue_claim`, …) for clients that do not want code mode.
    #[arg(long)]
    pub direct_tools: bool,
    /// Serve premath's `mcp-serve` tools that have a tusk twin (its issue and
    /// dep reads and mutations, issue_lease_projection, issue_backend_status,
    /// init_tool) with premath's names, input schemas and result text; each
    /// call is a recorded tusk run. A mutation needs premath's instruction_id
    /// (its witness under artifacts/ciwitness) and --policy-digest.
    #[arg(long, conflicts_with = "direct_tools")]
    pub premath_tools: bool,
    /// Close sessions idle this long (seconds).
    #[arg(long, default_value_t = 1800)]
    pub session_ttl_seconds: u64,
    /// Most sessions open at once.
    #[arg(long, default_value_t = 64)]
    pub max_sessions: usize,
    /// Most runs served at once.
    #[arg(long, default_value_t = 8)]
    pub max_concurrency: usize,
    /// Make every scheme_eval run atomic unless its call says
    /// `"atomic": false`: its issue-store changes land in one commit when
    /// it ends accepted, none otherwise (docs/plans.md).
    #[arg(long)]
    pub atomic: bool,
    /// Serve streamable HTTP at ADDR (path /mcp) instead of stdio; loopback
    /// only unless --allow-remote.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Let --http bind a non-loopback address and accept any Host header
    /// (needs --auth).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Bearer tokens for --http: a JSON file `{"tokens": [{"sha256", "principal",
    /// "policyDigest"?, "instructionRef"?, "serverAuthority"?, "actions"?,
    /// "readOnly"?}]}`; a request without a listed token is 401.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub auth: Option<std::path::PathBuf>,
    /// A browser origin allowed to call --http besides loopback ones
    /// (repeatable; e.g. https://app.example.com:443).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub allow_origins: Vec<String>,
    /// Most HTTP connections open at once (more get 503).
    #[arg(long, default_value_t = 256, requires = "http")]
    pub max_connections: usize,
    /// Most HTTP transport sessions at once (an initialize past it ends the
    /// oldest never-used one, or gets 503).
    #[arg(long, default_value_t = 256, requires = "http")]
    pub max_transport_sessions: usize,
    #[command(flatten)]
    pub host: HostArgs,
}

fn unusable(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("tusk mcp", message)
}

pub fn run(args: McpArgs) -> Result<Exit, CliError> {
    crate::sandbox::prestart();
    let mut config = args
        .host
        .config()
        .map_err(|e| unusable(&e).with_class(e.class))?;
    // Flags set the server's limits: a call may only lower them.
    config.limits = args.host.limit_flags().apply(config.limits);
    if args.premath_tools {
        for action in crate::premath::mcp_actions() {
            config.registry.register(action).map_err(unusable)?;
        }
    }
    let options = ServerOptions {
        policy_digest: args.host.policy_digest.clone(),
        instruction_ref: args.host.instruction_ref.clone(),
        issue_id: args.host.issue_id.clone(),
        direct_tools: args.direct_tools,
        premath_tools: args.premath_tools,
        session_ttl: Duration::from_secs(args.session_ttl_seconds),
        max_sessions: args.max_sessions,
        max_concurrency: args.max_concurrency,
        atomic: args.atomic,
    };
    let host = Host::new(config);
    host.warm_up().map_err(unusable)?;
    let server = TuskServer::new(host, options);
    // Held here until the runtime is gone: the host's last reference must
    // not be dropped by a runtime task (a PostgreSQL client's drop blocks,
    // which panics on a runtime thread and aborts the process at exit).
    let keep = server.clone();
    crate::mcp::keep_large_allocations_mapped();
    // One client on stdio is served by one thread: its messages come one
    // after another, and runs go to their own threads anyway. Handing each
    // message between two runtime workers cost wake-ups on every request.
    // HTTP serves many clients at once and keeps two workers.
    let mut builder = match args.http {
        Some(_) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(2);
            b
        }
        None => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(r) => r,
        Err(e) => return Err(unusable(format!("cannot start the runtime: {e}"))),
    };
    let served = match args.http {
        Some(addr) => {
            let tokens = match &args.auth {
                None => None,
                Some(path) => match crate::mcp::LiveTokens::load(
                    path,
                    (&args.host.policy_digest, &args.host.instruction_ref),
                ) {
                    Ok(t) => Some(std::sync::Arc::new(t)),
                    Err(e) => return Err(unusable(e)),
                },
            };
            let mut http = crate::mcp::HttpOptions::new(addr);
            http.allow_remote = args.allow_remote;
            http.tokens = tokens;
            http.allowed_origins = args.allow_origins.clone();
            http.hygiene.max_connections = args.max_connections;
            http.max_transport_sessions = args.max_transport_sessions;
            runtime.block_on(crate::mcp::serve_http(server, http))
        }
        None => runtime.block_on(crate::mcp::serve_stdio(server)),
    };
    drop(runtime);
    drop(keep);
    served.map_err(|e| CliError::refused("tusk mcp", e))?;
    Ok(Exit::Accepted)
}

/// `tusk mcp token …`.
#[derive(Subcommand, Debug)]
pub enum McpCommand {
    /// Bearer tokens of `tusk mcp --http --auth FILE`: add, list, revoke. A
    /// running server takes a change within a second, without a restart.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
}

/// The token file the commands edit (the one `--auth FILE` names).
#[derive(Args, Debug)]
pub struct TokenFile {
    /// The token file (default .premath/tokens.json).
    #[arg(long = "auth", value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Make a token for principal NAME: printed once, only its SHA-256 is
    /// stored (the file written atomically, mode 0600).
    Add {
        /// The principal the token proves (recorded on every run it makes).
        name: String,
        /// Only read actions.
        #[arg(long)]
        read_only: bool,
        /// Only these actions (comma-separated ids).
        #[arg(long, value_delimiter = ',', value_name = "IDS")]
        actions: Option<Vec<String>>,
        /// Principals (or prefixes ending in *) it may name in actor
        /// arguments besides itself (comma-separated): an orchestrator.
        #[arg(long, value_delimiter = ',', value_name = "NAMES")]
        act_as: Vec<String>,
        /// Its calls without authority get the server's --policy-digest and
        /// --instruction-ref.
        #[arg(long)]
        server_authority: bool,
        #[command(flatten)]
        file: TokenFile,
    },
    /// The tokens' principals and grants (never a secret).
    List {
        #[command(flatten)]
        file: TokenFile,
    },
    /// Remove principal NAME's token: a running server ends its transport
    /// sessions, and its next request is 401.
    Revoke {
        /// The token's name (as `tusk mcp token list` shows it).
        name: String,
        #[command(flatten)]
        file: TokenFile,
    },
}

/// Runs `tusk mcp token …`.
pub fn run_command(command: McpCommand) -> Result<Exit, CliError> {
    let McpCommand::Token { command } = command;
    let text = match command {
        TokenCommand::Add {
            name,
            read_only,
            actions,
            act_as,
            server_authority,
            file,
        } => {
            let grant = crate::mcp::tokens::Grant {
                read_only,
                actions,
                act_as,
                server_authority,
                ..Default::default()
            };
            token_add(&name, &grant, &file)?
        }
        TokenCommand::List { file } => token_list(&file)?,
        TokenCommand::Revoke { name, file } => {
            let at = token_path(&file);
            crate::mcp::tokens::revoke(&at, &name).map_err(token_refused)?;
            if file.json {
                crate::canonical::to_pretty_sorted(&serde_json::json!({
                    "principal": name, "revoked": true, "file": at.display().to_string()
                })) + "\n"
            } else {
                format!(
                    "revoked the token of principal `{name}` in {}\n",
                    at.display()
                )
            }
        }
    };
    super::write_stdout(text.as_bytes())?;
    Ok(Exit::Accepted)
}

fn token_path(file: &TokenFile) -> std::path::PathBuf {
    file.file
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(crate::mcp::tokens::DEFAULT_TOKEN_FILE))
}

fn token_refused(e: String) -> CliError {
    CliError::refused("tusk mcp token", e)
}

/// `token add`: the new token, once.
fn token_add(
    name: &str,
    grant: &crate::mcp::tokens::Grant,
    file: &TokenFile,
) -> Result<String, CliError> {
    let at = token_path(file);
    if let Some(list) = &grant.actions {
        let known = crate::runtime::builtin_registry().ids();
        if let Some(bad) = list.iter().find(|id| !known.contains(id)) {
            return Err(CliError::unusable(
                "tusk mcp token",
                format_args!(
                    "--actions names `{bad}`, which is no action (`tusk actions` lists them)"
                ),
            ));
        }
    }
    let token = crate::mcp::tokens::add(&at, name, grant).map_err(token_refused)?;
    Ok(if file.json {
        crate::canonical::to_pretty_sorted(&serde_json::json!({
            "principal": name, "token": token, "file": at.display().to_string()
        })) + "\n"
    } else {
        format!(
            "{token}\n\ntoken for principal `{name}` added to {} (only its SHA-256 is kept: \
             store it now, it is not shown again)\n",
            at.display()
        )
    })
}

/// `token list`: principals and grants, never a secret.
fn token_list(file: &TokenFile) -> Result<String, CliError> {
    let at = token_path(file);
    let entries = crate::mcp::tokens::list(&at).map_err(token_refused)?;
    if file.json {
        return Ok(crate::canonical::to_pretty_sorted(&serde_json::json!({
            "file": at.display().to_string(), "tokens": entries
        })) + "\n");
    }
    if entries.is_empty() {
        return Ok(format!("no tokens in {}\n", at.display()));
    }
    let mut out = String::new();
    for e in &entries {
        let mut grants = Vec::new();
        if e["readOnly"] == true {
            grants.push("read-only".to_string());
        }
        if let Some(a) = e["actions"].as_array() {
            grants.push(format!("actions {}", join(a)));
        }
        if let Some(a) = e["actAs"].as_array() {
            grants.push(format!("acts as {}", join(a)));
        }
        if e["serverAuthority"] == true {
            grants.push("server authority".to_string());
        }
        out.push_str(&format!(
            "{}{}\n",
            crate::terminal::field(e["principal"].as_str().unwrap_or("?")),
            if grants.is_empty() {
                String::new()
            } else {
                format!("  ({})", grants.join("; "))
            }
        ));
    }
    Ok(out)
}

fn join(values: &[serde_json::Value]) -> String {
    values
        .iter()
        .map(|v| crate::terminal::field(v.as_str().unwrap_or("?")).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

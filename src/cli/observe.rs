//! `tusk observe --http ADDR`: the read-only web dashboard and JSON API
//! (`crate::observe`) over the issue store, the effect log and the
//! trajectory. Loopback only unless `--allow-remote`, which needs `--auth`
//! (the bearer-token file of `tusk mcp --auth`, checked by the same code).
//! Exit 0 after Ctrl-C or SIGTERM, 2 when it cannot serve.

use super::store::StoreFiles;
use super::{CliError, Exit};
use crate::issues::store::DEFAULT_ISSUES_PATH;
use crate::observe::{Observer, Stores};
use crate::pg::LogTable;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ObserveArgs {
    /// Serve the dashboard at ADDR (e.g. 127.0.0.1:8766; port 0 picks one,
    /// printed on stderr). Loopback only unless --allow-remote.
    #[arg(long, value_name = "ADDR")]
    pub http: std::net::SocketAddr,
    /// Let --http bind a non-loopback address (needs --auth).
    #[arg(long, requires = "auth")]
    pub allow_remote: bool,
    /// Bearer tokens, the file of `tusk mcp --auth` ({"tokens": [{"sha256",
    /// "principal", …}]}); a request without a listed token is 401.
    #[arg(long, value_name = "FILE")]
    pub auth: Option<PathBuf>,
    #[command(flatten)]
    pub files: StoreFiles,
}

fn unusable(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("tusk observe", message)
}

fn stores(args: &ObserveArgs) -> Result<Stores, String> {
    let defaults = crate::host::HostPaths::under(Path::new("."));
    Ok(Stores {
        issues: args.files.issues(Path::new(DEFAULT_ISSUES_PATH))?,
        trajectory: args
            .files
            .log(LogTable::Trajectory, defaults.trajectory.path())?,
        effects: args.files.log(LogTable::Effects, defaults.effects.path())?,
    })
}

pub fn run(args: ObserveArgs) -> Result<Exit, CliError> {
    let addr = args.http;
    if !addr.ip().is_loopback() && !args.allow_remote {
        return Err(unusable(format!(
            "{addr} is not a loopback address; pass --allow-remote (with --auth FILE) to serve other hosts"
        )));
    }
    let stores = stores(&args).map_err(unusable)?;
    let tokens = match &args.auth {
        None => None,
        Some(path) => Some(std::sync::Arc::new(
            crate::mcp::LiveTokens::load(path, (&None, &None)).map_err(unusable)?,
        )),
    };
    // A replay forks sandbox workers: start their template before threads.
    crate::sandbox::prestart();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return Err(unusable(format!("cannot start the runtime: {e}"))),
    };
    // Large pages are freed back to the system, as in `tusk mcp`.
    crate::mcp::keep_large_allocations_mapped();
    let observer = Observer::new(stores);
    let mut router = crate::observe::router(observer.clone());
    router = if args.allow_remote {
        router.layer(axum::middleware::from_fn(crate::observe::same_origin))
    } else {
        router.layer(axum::middleware::from_fn(crate::observe::loopback_only))
    };
    if let Some(tokens) = &tokens {
        router = router.layer(axum::middleware::from_fn_with_state(
            tokens.clone(),
            crate::mcp::auth::require_token,
        ));
    }
    let served = runtime.block_on(async move {
        // A token added or revoked is taken within a second.
        if let Some(tokens) = tokens {
            crate::mcp::tokens::watch(tokens);
        }
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!("tusk observe: serving http://{bound}/");
        crate::observe::serve(listener, router).await;
        Ok::<(), String>(())
    });
    // The last reference to the stores goes here, outside the runtime: a
    // database client owns a runtime of its own, which must not be dropped
    // inside an async context (it panics there, and the process aborts).
    drop(runtime);
    drop(observer);
    served.map_err(unusable)?;
    Ok(Exit::Accepted)
}

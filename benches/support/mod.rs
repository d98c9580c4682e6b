//! Shared by the host and replay benchmarks: trivial embedder actions and a
//! prepared host in a scratch directory.
#![allow(dead_code)]

use serde_json::{json, Map, Value};
use std::sync::Arc;
use tusk::host::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, FnAction, HostPaths,
    MutationPolicy, Registry,
};
use tusk::runtime::{register_builtins, Host, HostConfig};
use tusk::sandbox::Limits;

/// A warmed-up host under `dir` with the built-ins and two bench actions:
/// `bench.noop`, the trivial read (no arguments, a constant payload), and
/// `bench.echo`, a read with one argument so every call has args to digest.
pub fn host(dir: &std::path::Path) -> Host {
    const ECHO_ARGS: &[ArgSpec] = &[ArgSpec::required("n", ArgType::Integer)];
    let mut registry = Registry::new();
    registry
        .register(Arc::new(FnAction {
            id: "bench.noop",
            kind: ActionKind::Read,
            args: &[],
            run: noop,
        }))
        .expect("fresh id");
    registry
        .register(Arc::new(FnAction {
            id: "bench.echo",
            kind: ActionKind::Read,
            args: ECHO_ARGS,
            run: echo,
        }))
        .expect("fresh id");
    register_builtins(&mut registry).expect("built-ins");
    let host = Host::new(HostConfig {
        paths: HostPaths::under(dir),
        policy: MutationPolicy::builtin_default(),
        registry,
        limits: Limits::default(),
    });
    host.warm_up().expect("engine builds");
    host
}

fn noop(_: &ActionContext<'_>, _: &Map<String, Value>) -> Result<ActionOutcome, ActionError> {
    Ok(ActionOutcome::accepted(json!({"ok": true})))
}

fn echo(_: &ActionContext<'_>, args: &Map<String, Value>) -> Result<ActionOutcome, ActionError> {
    Ok(ActionOutcome::accepted(json!({"n": args["n"]})))
}

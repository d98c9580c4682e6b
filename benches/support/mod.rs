//! Shared by the host and replay benchmarks: trivial embedder actions and a
//! prepared host in a scratch directory.
#![allow(dead_code)]

use serde_json::{json, Map, Value};
use std::sync::Arc;
use tusk::host::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, HostAction, HostPaths,
    MutationPolicy, Registry,
};
use tusk::runtime::{register_builtins, Host, HostConfig};
use tusk::sandbox::Limits;

/// `bench.noop`: the trivial read, no arguments and a constant payload.
pub struct Noop;

impl HostAction for Noop {
    fn id(&self) -> &str {
        "bench.noop"
    }
    fn kind(&self) -> ActionKind {
        ActionKind::Read
    }
    fn args(&self) -> &[ArgSpec] {
        &[]
    }
    fn call(
        &self,
        _: &ActionContext<'_>,
        _: &Map<String, Value>,
    ) -> Result<ActionOutcome, ActionError> {
        Ok(ActionOutcome::accepted(json!({"ok": true})))
    }
}

/// `bench.echo`: a read with one argument, so every call has args to digest.
pub struct Echo;

impl HostAction for Echo {
    fn id(&self) -> &str {
        "bench.echo"
    }
    fn kind(&self) -> ActionKind {
        ActionKind::Read
    }
    fn args(&self) -> &[ArgSpec] {
        const ARGS: &[ArgSpec] = &[ArgSpec::required("n", ArgType::Integer)];
        ARGS
    }
    fn call(
        &self,
        _: &ActionContext<'_>,
        args: &Map<String, Value>,
    ) -> Result<ActionOutcome, ActionError> {
        Ok(ActionOutcome::accepted(json!({"n": args["n"]})))
    }
}

/// A warmed-up host under `dir` with the bench actions and the built-ins.
pub fn host(dir: &std::path::Path) -> Host {
    let mut registry = Registry::new();
    registry.register(Arc::new(Noop)).expect("fresh id");
    registry.register(Arc::new(Echo)).expect("fresh id");
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

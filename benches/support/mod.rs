//! Shared by the host and replay benchmarks: trivial embedder actions and a
//! prepared host in a scratch directory.
#![allow(dead_code)]

use tusk::host::{
    declare, payload_schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration,
    HostPaths, MutationPolicy, Registry,
};
use tusk::runtime::{register_builtins, Host, HostConfig};
use tusk::sandbox::Limits;

/// A warmed-up host under `dir` with the built-ins and two bench actions:
/// `bench.noop`, the trivial read (no arguments, a constant payload), and
/// `bench.echo`, a read with one argument so every call has args to digest.
pub fn host(dir: &std::path::Path) -> Host {
    let mut registry = Registry::new();
    registry
        .register(declare(
            Declaration {
                id: "bench.noop",
                kind: ActionKind::Read,
                description: "Does nothing (benchmarks).",
                payload: payload_schema::<Noop>,
                failure_classes: &[],
                example: "(bench.noop)",
            },
            noop,
        ))
        .expect("fresh id");
    registry
        .register(declare(
            Declaration {
                id: "bench.echo",
                kind: ActionKind::Read,
                description: "Returns its argument (benchmarks).",
                payload: payload_schema::<Echo>,
                failure_classes: &[],
                example: r#"(bench.echo (hash "n" 1))"#,
            },
            echo,
        ))
        .expect("fresh id");
    register_builtins(&mut registry).expect("built-ins");
    let host = Host::new(HostConfig {
        paths: HostPaths::under(dir),
        policy: MutationPolicy::allowing(&registry.mutation_ids()),
        registry,
        limits: Limits::default(),
        signer: None,
    });
    host.warm_up().expect("engine builds");
    host
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    n: i64,
}

/// `bench.noop`'s payload.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Noop {
    ok: bool,
}

/// `bench.echo`'s payload: its argument.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Echo {
    n: i64,
}

fn payload<T: serde::Serialize>(p: &T) -> serde_json::Value {
    serde_json::to_value(p).expect("a payload type serializes")
}

fn noop(_: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    Ok(ActionOutcome::accepted(payload(&Noop { ok: true })))
}

fn echo(_: &ActionContext<'_>, args: EchoArgs) -> Result<ActionOutcome, ActionError> {
    Ok(ActionOutcome::accepted(payload(&Echo { n: args.n })))
}

//! Embedding tusk: register your own host action next to the built-in ones,
//! prepare a host once, and run programs against it.
//!
//! `cargo run --example embed`

use serde_json::{json, Map, Value};
use std::sync::Arc;
use tusk::host::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, HostAction, HostPaths,
    MutationPolicy, Registry,
};
use tusk::runtime::{register_builtins, Host, HostConfig, Request};
use tusk::sandbox::Limits;

/// A read action that greets someone: `(demo.greet (hash "name" "ada"))`.
struct Greet;

impl HostAction for Greet {
    fn id(&self) -> &str {
        "demo.greet"
    }
    fn kind(&self) -> ActionKind {
        ActionKind::Read
    }
    fn args(&self) -> &[ArgSpec] {
        const ARGS: &[ArgSpec] = &[ArgSpec::required("name", ArgType::String)];
        ARGS
    }
    fn call(
        &self,
        _ctx: &ActionContext<'_>,
        args: &Map<String, Value>,
    ) -> Result<ActionOutcome, ActionError> {
        let name = args["name"].as_str().unwrap_or_default();
        Ok(ActionOutcome::accepted(
            json!({"greeting": format!("hello, {name}")}),
        ))
    }
}

/// The programs this example runs.
pub const PROGRAMS: [&str; 2] = [
    r#"(hash-ref (payload (demo.greet (hash "name" "ada"))) "greeting")"#,
    r#"(result-class (demo.greet (hash "nom" "typo")))"#,
];

/// Prepares a host with `demo.greet` next to the built-ins, its files under
/// `dir`, and runs [`PROGRAMS`]; returns each run's result object.
pub fn run_programs(dir: &std::path::Path) -> Vec<Value> {
    let mut registry = Registry::new();
    registry.register(Arc::new(Greet)).expect("a fresh id");
    register_builtins(&mut registry).expect("built-ins register once");
    let config = HostConfig {
        paths: HostPaths::under(dir),
        policy: MutationPolicy::builtin_default(),
        registry,
        limits: Limits {
            timeout_ms: 1_000,
            ..Limits::default()
        },
    };
    let host = Host::new(config);
    PROGRAMS
        .iter()
        .map(|program| {
            host.eval(&Request {
                program: program.to_string(),
                ..Default::default()
            })
            .expect("logs are writable")
            .json
        })
        .collect()
}

#[allow(dead_code)] // The suite includes this file as a module (tests/examples.rs).
fn main() {
    let dir = std::env::temp_dir().join(format!("tusk-embed-{}", std::process::id()));
    for (program, result) in PROGRAMS.iter().zip(run_programs(&dir)) {
        println!("{} -> {} {}", program, result["result"], result["value"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

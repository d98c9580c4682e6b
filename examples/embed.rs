//! Embedding tusk: register your own host action next to the built-in ones,
//! prepare a host once, and run programs against it.
//!
//! `cargo run --example embed`

use serde_json::Value;
use tusk::host::{
    declare, payload_schema, ActionContext, ActionError, ActionKind, ActionOutcome, Declaration,
    HostAction, HostPaths, MutationPolicy, Registry,
};
use tusk::runtime::{register_builtins, Host, HostConfig, Request};
use tusk::sandbox::Limits;

/// The arguments of `demo.greet`: a typed struct, from which tusk derives
/// both their validation and their JSON Schema.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct GreetArgs {
    /// Whom to greet.
    name: String,
}

/// The payload of `demo.greet`: tusk derives its JSON Schema from the type,
/// and the action makes the payload by serializing it.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Greeting {
    greeting: String,
}

/// A read action that greets someone: `(demo.greet (hash "name" "ada"))`,
/// declared once like the built-ins, so `(host-describe "demo.greet")`,
/// `describe_actions` and the MCP tool list describe it too.
fn greet() -> std::sync::Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "demo.greet",
            kind: ActionKind::Read,
            description: "Greet someone by name.",
            payload: payload_schema::<Greeting>,
            failure_classes: &[],
            example: r#"(demo.greet (hash "name" "ada"))"#,
        },
        |_ctx: &ActionContext<'_>, args: GreetArgs| -> Result<ActionOutcome, ActionError> {
            let greeting = Greeting {
                greeting: format!("hello, {}", args.name),
            };
            Ok(ActionOutcome::accepted(
                serde_json::to_value(&greeting).expect("a payload type serializes"),
            ))
        },
    )
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
    registry.register(greet()).expect("a fresh id");
    register_builtins(&mut registry).expect("built-ins register once");
    let config = HostConfig {
        paths: HostPaths::under(dir),
        policy: MutationPolicy::allowing(&registry.mutation_ids()),
        registry,
        limits: Limits {
            timeout_ms: 1_000,
            ..Limits::default()
        },
        // Unsigned: each run's rows are still chained.
        signer: None,
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

#[allow(dead_code)] // The suite includes this file as a module (tests/it/examples.rs).
fn main() {
    let dir = std::env::temp_dir().join(format!("tusk-embed-{}", std::process::id()));
    for (program, result) in PROGRAMS.iter().zip(run_programs(&dir)) {
        println!("{} -> {} {}", program, result["result"], result["value"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

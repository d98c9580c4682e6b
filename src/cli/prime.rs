//! `tusk prime`: a short Markdown guide for an agent (how to run a program,
//! the envelope helpers, five actions to start with, how authority works, and
//! every action in one line), generated from the action catalogue and the
//! MCP tool's input schema so it cannot drift from them. Suitable for AGENTS.md.

use crate::host::gate::{ACTION_NOT_ALLOWED, POLICY_DIGEST_MISMATCH, USE_EVIDENCE_MISSING};
use crate::host::{ActionKind, ActionSpec};
use clap::Args;
use serde_json::Value;

/// `tusk prime`.
#[derive(Args, Debug)]
pub struct PrimeArgs {}

/// The actions the guide shows in full: a worker's loop from finding work to
/// handing it back.
pub const FEATURED: [&str; 5] = [
    "issue.ready",
    "issue.claim_next",
    "issue.update",
    "issue.close",
    "issue.lease_release",
];

/// The prelude's envelope helpers, with what each returns.
pub const HELPERS: [(&str, &str); 6] = [
    ("(accepted? e)", "`#t` when the call was accepted"),
    ("(rejected? e)", "`#t` when it was not"),
    (
        "(result-class e)",
        "`\"accepted\"` or the first failure class",
    ),
    ("(failure-classes e)", "every failure class, a list"),
    ("(payload e)", "the action's result (a hash)"),
    (
        "(hash-ref* h \"k1\" \"k2\" …)",
        "follows keys into nested hashes; `#f` as soon as one is missing",
    ),
];

/// The example program the guide shows (a test runs it).
pub const EXAMPLE: &str = "(define e (issue.claim_next (hash \"assignee\" \"agent.a\")))
(if (accepted? e)
    (hash-ref* (payload e) \"issue\" \"id\")
    (result-class e))";

fn kind(spec: &ActionSpec) -> &'static str {
    match spec.kind {
        ActionKind::Read => "read",
        ActionKind::Mutation => "mutation",
    }
}

/// One line of prose from a schema description (they may span lines).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A field's JSON type for the table: its non-null types (`list of T` for an
/// array of T), `object` for a reference or union, else `any`.
fn type_of(schema: &Value) -> String {
    let types: Vec<String> = match &schema["type"] {
        Value::String(t) => vec![t.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .map(str::to_string)
            .collect(),
        // A reference or a union (an optional struct) is an object; `{}` is anything.
        _ if ["$ref", "anyOf", "properties"]
            .iter()
            .any(|k| schema.get(*k).is_some()) =>
        {
            vec!["object".to_string()]
        }
        _ => vec!["any".to_string()],
    };
    types
        .into_iter()
        .map(|t| match (t.as_str(), schema.get("items")) {
            ("array", Some(items)) => format!("list of {}", type_of(items)),
            _ => t,
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

fn scheme_eval_fields() -> String {
    let schema = crate::host::declare::args_schema::<crate::mcp::EvalInput>();
    let required = crate::host::declare::required(&schema);
    let mut out = String::from("| field | type | required | what |\n|---|---|---|---|\n");
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        out.push_str(&format!(
            "| `{name}` | {} | {} | {} |\n",
            type_of(field),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            one_line(field["description"].as_str().unwrap_or(""))
        ));
    }
    out
}

fn featured(spec: &ActionSpec) -> String {
    let mut out = format!(
        "### `{}` ({})\n\n{}\n\n```scheme\n{}\n```\n\n",
        spec.id,
        kind(spec),
        spec.description,
        spec.signature()
    );
    let args = spec.arg_list();
    if !args.is_empty() {
        out.push_str("Arguments:\n\n");
        for (name, ty, required) in args {
            let doc = one_line(
                spec.args["properties"][&name]["description"]
                    .as_str()
                    .unwrap_or(""),
            );
            let req = if required { "required" } else { "optional" };
            let doc = if doc.is_empty() {
                String::new()
            } else {
                format!(": {doc}")
            };
            out.push_str(&format!("- `{name}` ({ty}, {req}){doc}\n"));
        }
        out.push('\n');
    }
    out.push_str(&format!("Example: `{}`\n", spec.example));
    if !spec.failure_classes.is_empty() {
        let classes: Vec<String> = spec
            .failure_classes
            .iter()
            .map(|c| format!("`{c}`"))
            .collect();
        out.push_str(&format!("\nFailure classes: {}\n", classes.join(", ")));
    }
    out.push('\n');
    out
}

/// The guide for the actions in `specs`.
pub fn guide(specs: &[&ActionSpec]) -> String {
    let mut out = String::from(
        "# Working with tusk\n\n\
         tusk runs bounded Scheme programs whose only effects are host functions over a \
         shared issue queue and the harness artifacts (session handoff, trajectory, feature \
         ledger). Every host call returns an envelope and is recorded in the effect log and \
         the trajectory; `tusk replay` re-runs recorded runs. Generated by `tusk prime` from \
         the action catalogue.\n\n\
         ## Running a program\n\n\
         Over MCP, call the `scheme_eval` tool:\n\n",
    );
    out.push_str(&scheme_eval_fields());
    out.push_str(
        "\nFrom a shell: `tusk eval FILE` (`-` reads stdin, `--json` prints the whole result; \
         `--policy-digest` and `--instruction-ref` give authority). The result has `result` \
         (`accepted` or `rejected`), `value` (the last form's value as JSON), `output` \
         (`display` text), `effects` (one per host call) and `failureClasses`.\n\n\
         A host function is a procedure named by its action id. It takes no argument or one \
         hash and never raises: a refused call returns a rejected envelope and the program \
         goes on. `(issue.ready)`, `(issue.claim (hash \"id\" \"bd-7\" \"assignee\" \
         \"agent.a\"))`. There is no file system, network, clock or randomness.\n\n\
         ## Envelopes\n\n\
         Each call returns a hash: `resultClass` (`\"accepted\"` or the first failure class), \
         `failureClasses`, `payload` (the action's result) and `callId`. Prelude helpers:\n\n",
    );
    for (form, what) in HELPERS {
        out.push_str(&format!("- `{form}`: {what}\n"));
    }
    out.push_str(&format!(
        "\nClaim the next ready issue and return its id:\n\n```scheme\n{EXAMPLE}\n```\n\n\
         ## Five actions to start with\n\n"
    ));
    for id in FEATURED {
        if let Some(spec) = specs.iter().find(|s| s.id == id) {
            out.push_str(&featured(spec));
        }
    }
    out.push_str(&format!(
        "## Authority\n\n\
         Reads need nothing. A mutation passes the mutation gate first; the first step that \
         fails names the refusal and nothing is written:\n\n\
         1. the request carries `policyDigest` and `instructionRef`, else `{USE_EVIDENCE_MISSING}`;\n\
         2. `policyDigest` is the active policy's digest (`tusk policy digest` prints it; the \
         policy is `.premath/mutation_policy.json`, or the built-in default), else \
         `{POLICY_DIGEST_MISMATCH}`;\n\
         3. the policy allows the action, else `{ACTION_NOT_ALLOWED}`;\n\
         4. when the policy sets `requireJoinClosed`, the request's `joinEvidence` checks as \
         accepted, else `{USE_EVIDENCE_MISSING}`.\n\n\
         `instructionRef` names the instruction being carried out (any non-empty reference, \
         such as `instr://issue/bd-7`). A server started with `--policy-digest` and \
         `--instruction-ref` (as `tusk mcp --print-config CLIENT --with-authority` configures \
         it) supplies both to stdio calls that carry none; over HTTP only to tokens marked \
         `serverAuthority`. Under `--read-only` mutations are not bound at all.\n\n\
         ## All actions\n\n"
    ));
    for spec in specs {
        out.push_str(&format!(
            "- `{}` ({}): {}\n",
            spec.id,
            kind(spec),
            spec.description
        ));
    }
    out.push_str(
        "\n`tusk actions ID` (or the MCP tool `describe_actions`) gives an action's \
         arguments, payload schema and failure classes.\n",
    );
    out
}

/// Prints the guide.
pub fn run(_args: &PrimeArgs) -> Result<super::Exit, super::CliError> {
    let registry = crate::runtime::builtin_registry();
    let specs: Vec<&ActionSpec> = registry.specs().collect();
    super::write_stdout(guide(&specs).as_bytes())?;
    Ok(super::Exit::Accepted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_types_read_as_json_types() {
        use serde_json::json;
        assert_eq!(type_of(&json!({"type": "string"})), "string");
        assert_eq!(type_of(&json!({"type": ["integer", "null"]})), "integer");
        let strings = json!({"type": ["array", "null"], "items": {"type": "string"}});
        assert_eq!(type_of(&strings), "list of string");
        assert_eq!(
            type_of(&json!({"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}]})),
            "object"
        );
        assert_eq!(type_of(&json!({})), "any");
    }

    #[test]
    fn featured_actions_and_helpers_exist() {
        let registry = crate::runtime::builtin_registry();
        for id in FEATURED {
            assert!(registry.get(id).is_some(), "{id} is not a built-in action");
        }
        let names = crate::sandbox::program_names();
        for (form, _) in HELPERS {
            let name = form.trim_start_matches('(').split(' ').next().unwrap();
            assert!(
                names.iter().any(|n| n == name),
                "{name} is not in the prelude"
            );
        }
    }
}

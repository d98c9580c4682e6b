//! `tusk prime`: a short Markdown guide for an agent (how to run a program,
//! the envelope helpers, five actions to start with, how authority works, and
//! every action in one line), generated from the action catalogue and the
//! MCP tool's input schema so it cannot drift from them. Suitable for AGENTS.md.

use crate::host::gate::{ACTION_NOT_ALLOWED, POLICY_DIGEST_MISMATCH, USE_EVIDENCE_MISSING};
use crate::host::shape::Shapes;
use crate::host::{ActionKind, ActionSpec};
use crate::issues::readiness::Readiness;
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

/// One whole turn of a worker, every refusal handled (a test runs it).
pub const LOOP: &str = "(define me \"agent.a\")
(define claim (issue.claim_next (hash \"assignee\" me)))
(cond
  [(rejected? claim) (hash \"stopped\" (result-class claim))]
  [(not (hash-ref (payload claim) \"claimed\")) (hash \"stopped\" \"nothing ready\")]
  [else
   (define id (hash-ref* (payload claim) \"issue\" \"id\"))
   ;; ... the work itself ...
   (issue.update (hash \"id\" id \"notes\" (format \"worked on by ~a\" me)))
   (define done (issue.close (hash \"id\" id \"reason\" \"fixed\")))
   (if (accepted? done)
       (hash \"closed\" id)
       (begin
         (issue.lease_release (hash \"id\" id \"assignee\" me))
         (hash \"released\" id \"because\" (result-class done))))])";

/// When to ask for an atomic run, a dry run or an idempotency key (issue 59).
pub const KEEP_THEIR_WORD: &str = "\
- `\"atomic\": true` when the program makes more than one change that belong together \
(close several issues, label and comment, add an issue and its edges): its changes are \
staged, its own reads see them, and they land in one commit only if the run ends accepted. \
A raised error, a limit or a refused call lands none of them (`run.aborted`); if an issue \
the run read or wrote changed meanwhile, none lands either (`run.conflict`: read again and \
rerun). The result's `commit` says which. Harness writes (`harness.*`) cannot be staged: \
make them in a run without `atomic`.
- `\"dryRun\": true` to show a person (or yourself) what a program would change before it \
does: nothing is written, and the result's `plan` lists, per issue, each field before and \
after, the comments and edges added; its `planId` is the digest of its content.
- `\"idempotencyKey\": \"…\"` (a fresh key per intended change, e.g. the issue id and \
step) whenever a call may be retried after a timeout on your side: the retry with the same \
key and program gets the first run's result (`idempotency.replayed: true`) and runs \
nothing. Another program under a used key is refused (`request.idempotency_conflict`).";

/// The dialect, for a model that knows Racket or R7RS (what works as there,
/// and what does not).
pub const COMING_FROM_RACKET: &str = "\
- racket/base, racket/list, racket/string, racket/hash, racket/vector, racket/match, \
racket/format, R7RS-small, SRFI-1 and SRFI-13 names work as there: `define` with optional \
(`[x 0]`) and keyword (`#:key`) arguments, `case-lambda`, `values` and `let-values`, the \
whole `for` family (`for/list`, `for/fold` with several accumulators, `for/hash`, \
`for/first`, `for*/list` … with `#:when`, `#:unless`, `#:break`; `in-range`, \
`in-naturals`, `in-hash`, `in-indexed`), `match`, `match-define`, `match-let` and \
`match-lambda`, `with-handlers`, `raise`, `guard`, `error`, `dynamic-wind`, `~a` and `~r`, \
`sort` with `#:key`, `string-split`, `string-join`, `string-trim`.
- Hashes: `(hash-set h k v)` returns a new one; `make-hash` makes a mutable one \
(`hash-set!`, `hash-update!`, `hash-remove!`). Every hash walks in a fixed order; \
`(hash-ref h k default)` takes a value or a thunk.
- A key is found in any case style (`\"issue_type\"` finds `\"issueType\"`), a view's \
`\"items\"` answers to `\"issues\"` too, and a count to its name (`\"ready\"` finds \
`\"readyCount\"`); arguments may be snake_case.
- A payload leaves out a member with no value: `(hash-ref i \"assignee\" #f)` is `#f` for \
an unassigned issue. In a result, a pair that is not a list is a two-element array (an \
association list is an array of pairs); a procedure or a set has no JSON form and is an \
error naming its place.
- Definitions may open any body, a `cond` clause's and `when`'s included. Lists are \
immutable (no `set-car!` or `list-set!`); there is no clock, randomness or file; an \
error says what to write instead, and every unbound name is listed at once.";

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

fn featured(spec: &ActionSpec, shapes: &Shapes) -> String {
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
            let keys = crate::host::declare::nested_keys(&spec.args, &name);
            let doc = match (doc.is_empty(), keys.is_empty()) {
                (true, true) => String::new(),
                (false, true) => format!(": {doc}"),
                (_, false) => format!(": {doc} Keys: {}.", keys.join(", ")),
            };
            out.push_str(&format!("- `{name}` ({ty}, {req}){doc}\n"));
        }
        out.push('\n');
    }
    out.push_str(&format!("Example: `{}`\n", spec.example));
    if let Some(returns) = shapes.get(&spec.id).filter(|s| !s.is_empty()) {
        out.push_str(&format!("\nPayload: `{returns}`\n"));
    }
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
    let shapes = Shapes::of(specs.iter().copied());
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
         goes on. The run is then `rejected`; when the program read every refusal \
         (`accepted?`, `rejected?`, `result-class` or `failure-classes` on its envelope) and \
         finished, the result has `handled: true` and over MCP it is not an error. A refusal \
         the program never read is listed in `unexamined`, and the run is an error. `(issue.ready)`, `(issue.claim (hash \"id\" \"bd-7\" \"assignee\" \
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
         A whole turn of a worker: claim, work, note, close, or give the issue back:\n\n\
         ```scheme\n{LOOP}\n```\n\n\
         ## All or nothing, a look first, a safe retry\n\n{KEEP_THEIR_WORD}\n\n\
         ## Coming from Racket\n\n{COMING_FROM_RACKET}\n\n\
         ## Five actions to start with\n\n"
    ));
    for id in FEATURED {
        if let Some(spec) = specs.iter().find(|s| s.id == id) {
            out.push_str(&featured(spec, &shapes));
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
            "- `{}` ({}): {}",
            spec.id,
            kind(spec),
            spec.description
        ));
        // The five above show theirs already.
        if let Some(shape) = shapes
            .get(&spec.id)
            .filter(|s| !s.is_empty() && !FEATURED.contains(&spec.id.as_str()))
        {
            out.push_str(&format!(" → `{shape}`"));
        }
        out.push('\n');
    }
    out.push_str("\nThe shapes payloads name:\n\n");
    for (name, shape) in &shapes.named {
        out.push_str(&format!("- `{name}` = `{shape}`\n"));
    }
    out.push_str(&format!(
        "\n## Readiness\n\n{} A `Blocker`'s `dependsOnId` is the issue waited on; \
         `issue.blocked` lists each blocked issue's blockers.\n\n\
         That is the rule of a store `tusk init` made (`\"readiness\": \"beads\"` in \
         `.premath/config.json`). A store without the setting, or with `\"premath\"`, \
         follows premath's: {}\n",
        Readiness::Beads.sentence(),
        Readiness::Premath.sentence()
    ));
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

//! The action catalogue: one declaration per action, and everything derived
//! from it (validation, `(host-describe)`, `tusk actions`, `docs/actions.md`).

use crate::common::*;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tusk::host::registry::validate_args;
use tusk::host::ActionKind;
use tusk::runtime::builtin_registry;
use tusk::sandbox::{EngineMode, HostBridge, HostReply, Limits, Sandbox};

/// host-api §4's v1 catalogue, written out independently of the code.
const READS: &[&str] = &[
    "issue.list",
    "issue.show",
    "issue.ready",
    "issue.blocked",
    "issue.check",
    "dep.diagnostics",
    // issue 12: premath's MCP tool issue_lease_projection as a host action.
    "issue.lease_projection",
    // issue 12: premath's `dep project --view`.
    "dep.project",
    "harness.join_check",
    "harness.session.read",
    "harness.session.bootstrap",
    "harness.trajectory.query",
    "harness.feature.next",
    "harness.kpi",
    "harness.retry.decide",
    "harness.boot",
    // issue 22: the tracker verbs.
    "issue.comments",
    "issue.search",
    "issue.stats",
    "dep.tree",
];
const MUTATIONS: &[&str] = &[
    "issue.add",
    "issue.update",
    "issue.close",
    "harness.escalate",
    "harness.stop",
    "issue.claim",
    "issue.claim_next",
    "issue.discover",
    "issue.lease_renew",
    "issue.lease_release",
    "dep.add",
    "dep.remove",
    "dep.replace",
    "harness.session.write",
    "harness.trajectory.append",
    "harness.feature.write",
    // issue 22: the tracker verbs.
    "issue.reopen",
    "issue.label",
    "issue.comment",
    // issue 59: a dry run's plan applied, or approved.
    "plan.apply",
    "plan.approve",
];

#[test]
fn the_builtins_are_the_spec_catalogue() {
    let registry = builtin_registry();
    let mut expected: Vec<&str> = READS.iter().chain(MUTATIONS).copied().collect();
    expected.sort_unstable();
    assert_eq!(registry.ids(), expected);
    for spec in registry.specs() {
        let kind = if MUTATIONS.contains(&spec.id.as_str()) {
            ActionKind::Mutation
        } else {
            ActionKind::Read
        };
        assert_eq!(spec.kind, kind, "{}", spec.id);
    }
    let mut mutations: Vec<String> = MUTATIONS.iter().map(|s| s.to_string()).collect();
    mutations.sort();
    assert_eq!(registry.mutation_ids(), mutations);
}

/// Records the arguments of every call; answers with an accepted envelope.
#[derive(Default)]
struct Capture(Mutex<Vec<(String, Option<Value>)>>);

impl HostBridge for Capture {
    fn call(
        &self,
        action: &str,
        args: Option<Value>,
        _: Option<tusk::sandbox::convert::ConvertError>,
    ) -> HostReply {
        self.0.lock().unwrap().push((action.to_string(), args));
        HostReply {
            envelope: json!({"resultClass": "accepted"}).into(),
            text: None,
            breach: None,
        }
    }
}

#[test]
fn every_declaration_is_complete_and_its_example_validates() {
    let registry = builtin_registry();
    let sandbox = Sandbox::new(registry.ids());
    for spec in registry.specs() {
        assert!(!spec.description.is_empty(), "{}", spec.id);
        assert!(spec.description.len() < 160, "{}: one line", spec.id);
        assert_eq!(spec.args["type"], "object", "{}", spec.id);
        assert_eq!(spec.args["additionalProperties"], false, "{}", spec.id);
        assert!(spec.args["properties"].is_object(), "{}", spec.id);
        assert_eq!(spec.payload["type"], "object", "{}", spec.id);
        // No schema anywhere is a bare boolean (MCP clients refuse `true`).
        let text = spec.args.to_string() + &spec.payload.to_string();
        assert!(
            !text.contains(":true}") && !text.contains(":true,"),
            "{}: {text}",
            spec.id
        );
        // The example is a call of this action whose arguments validate.
        let capture = Arc::new(Capture::default());
        let out = sandbox.run(
            &spec.example,
            Limits::default(),
            EngineMode::Fresh,
            capture.clone(),
        );
        assert_eq!(out.error, None, "{}: {}", spec.id, spec.example);
        let calls = capture.0.lock().unwrap();
        assert_eq!(calls.len(), 1, "{}", spec.id);
        assert_eq!(calls[0].0, spec.id);
        validate_args(&spec.args, calls[0].1.as_ref())
            .unwrap_or_else(|e| panic!("{}: example does not validate: {e}", spec.id));
        assert!(spec.signature().starts_with(&format!("({}", spec.id)));
    }
}

#[test]
fn docs_actions_md_is_current() {
    let s = Test::new();
    let out = s.run(&["actions", "--markdown"]);
    assert_eq!(out.status.code(), Some(0));
    let generated = String::from_utf8(out.stdout).unwrap();
    let committed =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/actions.md"))
            .expect("docs/actions.md exists");
    assert!(
        generated == committed,
        "docs/actions.md is stale: run `tusk actions --markdown > docs/actions.md`"
    );
}

#[test]
fn programs_can_describe_the_actions_they_bind() {
    let s = Test::new();
    let (code, r) = s.eval(
        "(list (hash-ref (host-describe \"issue.claim\") \"kind\")
               (hash-ref (hash-ref (hash-ref (host-describe \"issue.claim\") \"args\") \"properties\") \"assignee\")
               (host-describe \"no.such\")
               (length (hash-keys->list (host-describe))))",
        &[],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(
        r["value"],
        json!(["mutation", {"type": "string", "x-actor": "principal",
            "description": "The worker taking or holding the lease. Names who acts: on a server with tokens, your own principal (or one your token's actAs allows)."}, false, 41])
    );
    // Read-only: withheld mutations are named, not "unbound".
    let (code, r) = s.eval(
        "(issue.claim (hash \"id\" \"bd-1\" \"assignee\" \"a\"))",
        &["--read-only"],
    );
    assert_eq!(code, 1);
    assert_eq!(classes(&r), vec!["scheme_eval.effect_denied"]);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("read-only profile"));
    // A near miss suggests the action.
    let (_, r) = s.eval("(issue.claimnext (hash \"assignee\" \"a\"))", &[]);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean the host action `issue.claim_next`?"),
        "{r:#}"
    );
}

#[test]
fn tusk_actions_lists_and_describes() {
    let s = Test::new();
    let out = s.run(&["actions"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 41);
    let out = s.run(&["actions", "issue.claim", "--json"]);
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(spec["id"], "issue.claim");
    assert_eq!(spec["args"]["required"], json!(["id", "assignee"]));
    let out = s.run(&["actions", "no.such"]);
    assert_eq!(out.status.code(), Some(2));
}

/// A store of three issues for the examples (`bd-1` … `bd-3`).
fn example_store() -> Test {
    let s = Test::new();
    for title in ["one", "two", "three"] {
        assert!(s.run(&["issue", "add", title]).status.success());
    }
    s
}

/// Runs `spec`'s example with the default policy's authority; the envelopes.
fn run_example(s: &Test, spec: &tusk::host::ActionSpec) -> Vec<Value> {
    let digest = String::from_utf8(s.run(&["policy", "digest"]).stdout).unwrap();
    let (_, r) = s.eval(
        &spec.example,
        &[
            "--policy-digest",
            digest.trim(),
            "--instruction-ref",
            "instr://schemas",
        ],
    );
    r["effects"].as_array().unwrap().clone()
}

/// Asserts an accepted payload is valid under `spec`'s payload schema.
fn assert_matches_schema(spec: &tusk::host::ActionSpec, payload: &Value) {
    let validator = jsonschema::validator_for(&spec.payload)
        .unwrap_or_else(|e| panic!("{}: payload schema: {e}", spec.id));
    let errors: Vec<String> = validator
        .iter_errors(payload)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "{}: the payload does not match its schema: {errors:?}\n{payload:#}",
        spec.id
    );
}

/// Every action's declared payload schema holds for what it really answers:
/// each example runs (twice over, so that one action's effect can enable
/// another's, as reopen needs a close) on a seeded store through the real
/// binary, and every accepted envelope's payload is checked with a full JSON
/// Schema validator.
#[test]
fn every_accepted_payload_matches_its_declared_schema() {
    let s = example_store();
    assert!(s.run(&["dep", "add", "bd-2", "bd-3"]).status.success());
    let registry = builtin_registry();
    let mut checked = std::collections::BTreeSet::new();
    for _pass in 0..2 {
        for spec in registry.specs() {
            for envelope in run_example(&s, spec) {
                if envelope["resultClass"] == "accepted" {
                    assert_matches_schema(spec, &envelope["payload"]);
                    checked.insert(spec.id.clone());
                }
            }
        }
    }
    // Examples that need state of their own get it in a fresh store.
    let sound = "Acceptance: it works.\n\n- `cargo test`";
    let claimed: &[&[&str]] = &[&["issue", "claim", "bd-1", "--assignee", "agent.a"]];
    let setups: &[(&str, &[&[&str]])] = &[
        ("dep.replace", &[&["dep", "add", "bd-2", "bd-1"]]),
        ("issue.lease_renew", claimed),
        ("issue.lease_release", claimed),
        ("harness.stop", claimed),
        (
            "issue.check",
            &[
                &["issue", "update", "bd-1", "--description", sound],
                &["issue", "update", "bd-2", "--description", sound],
                &["issue", "update", "bd-3", "--description", sound],
            ],
        ),
    ];
    for (id, steps) in setups {
        let s = example_store();
        for step in *steps {
            let out = s.run(step);
            assert!(out.status.success(), "{id} setup {step:?}: {out:?}");
        }
        let spec = registry.specs().find(|s| s.id == *id).unwrap();
        let envelopes = run_example(&s, spec);
        assert_eq!(
            envelopes[0]["resultClass"], "accepted",
            "{id}: {envelopes:#?}"
        );
        assert_matches_schema(spec, &envelopes[0]["payload"]);
        checked.insert(spec.id.clone());
    }
    // A plan's id is the digest of what a dry run planned (its clock
    // included): the example's id is a placeholder; a real one is applied,
    // then another approved by an approver the policy names (the tests' actor).
    {
        let s = example_store();
        for (action, issue) in [("plan.apply", "bd-1"), ("plan.approve", "bd-2")] {
            if action == "plan.approve" {
                let policy = json!({
                    "schema": 1,
                    "policyKind": "premath.mutation_policy.v1",
                    "allowedActions": registry.mutation_ids(),
                    "approval": {"require": [{"actions": ["issue.close"], "principals": ["agent.*"]}],
                                 "approvers": [crate::common::TEST_ACTOR]},
                });
                s.write(".premath/mutation_policy.json", &policy.to_string());
            }
            let digest = String::from_utf8(s.run(&["policy", "digest"]).stdout).unwrap();
            let auth = [
                "--policy-digest",
                digest.trim(),
                "--instruction-ref",
                "instr://schemas",
            ];
            let mut dry_flags = auth.to_vec();
            dry_flags.push("--dry-run");
            let (_, dry) = s.eval(
                &format!("(issue.close (hash \"id\" \"{issue}\"))"),
                &dry_flags,
            );
            let program = format!(
                "({action} (hash \"planId\" \"{}\"))",
                dry["plan"]["planId"].as_str().unwrap()
            );
            let (_, r) = s.eval(&program, &auth);
            let spec = registry.specs().find(|s| s.id == action).unwrap();
            assert_eq!(r["effects"][0]["resultClass"], "accepted", "{r:#}");
            assert_matches_schema(spec, &r["effects"][0]["payload"]);
            checked.insert(spec.id.clone());
        }
    }
    let unchecked: Vec<&str> = registry
        .specs()
        .map(|s| s.id.as_str())
        .filter(|id| !checked.contains(*id))
        .collect();
    // The join check's example shows a refusal (an open join); its accepted
    // form is checked against the typestate vectors. Any other action whose
    // example is never accepted fails here, so none slips by unchecked.
    assert_eq!(unchecked, ["harness.join_check"], "actions never accepted");
}

/// Issue 20: every class an action's envelope reports is one its declaration
/// lists, or one the host adds to any call (arguments that do not fit, the
/// mutation gate, an execution error). The examples run on stores where many
/// of them are refused: the seeded store twice over (a second `dep.add` is a
/// duplicate, a second close finds the issue closed), a store of one issue
/// (the examples' other ids are missing) and a store whose `bd-1` someone
/// else holds.
#[test]
fn every_emitted_class_is_declared() {
    use tusk::host::HostClass;
    let generic: Vec<&str> = [
        HostClass::ArgsInvalid,
        HostClass::ExecutionError,
        HostClass::UseEvidenceMissing,
        HostClass::PolicyDigestMismatch,
        HostClass::ActionNotAllowed,
        HostClass::CapabilityClaimMissing,
    ]
    .iter()
    .map(|c| c.as_str())
    .collect();
    let registry = builtin_registry();
    let seeded = example_store();
    assert!(seeded.run(&["dep", "add", "bd-2", "bd-3"]).status.success());
    let single = Test::new();
    assert!(single.run(&["issue", "add", "one"]).status.success());
    let held = example_store();
    let claim = ["issue", "claim", "bd-1", "--assignee", "agent.other"];
    assert!(held.run(&claim).status.success());
    let mut undeclared = Vec::new();
    let mut refusals = 0;
    for (s, passes) in [(&seeded, 2), (&single, 1), (&held, 1)] {
        for _pass in 0..passes {
            for spec in registry.specs() {
                for envelope in run_example(s, spec) {
                    for class in envelope["failureClasses"].as_array().unwrap() {
                        let class = class.as_str().unwrap();
                        refusals += 1;
                        if !spec.failure_classes.iter().any(|c| c == class)
                            && !generic.contains(&class)
                        {
                            undeclared.push(format!("{}: {class}", spec.id));
                        }
                    }
                }
            }
        }
    }
    assert!(
        undeclared.is_empty(),
        "classes emitted but not declared:\n{}",
        undeclared.join("\n")
    );
    assert!(refusals >= 10, "only {refusals} refusals exercised");
}

/// One item of a signature: a key, its type label, whether it is required.
type SigItem = (String, String, bool);

/// Reads a signature back: `(id)` or `(id (hash "k" T ["k2" T2] …))`.
fn parse_signature(sig: &str) -> (String, Vec<SigItem>) {
    let inner = sig
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .expect(sig);
    let Some((id, rest)) = inner.split_once(" (hash ") else {
        return (inner.to_string(), Vec::new());
    };
    let mut rest = rest.strip_suffix(')').expect(sig).trim();
    let mut items = Vec::new();
    while !rest.is_empty() {
        let optional = rest.starts_with('[');
        if optional {
            rest = &rest[1..];
        }
        let rest_after_name = rest.strip_prefix('"').expect(sig);
        let (name, after) = rest_after_name.split_once('"').expect(sig);
        let after = after.trim_start();
        // The type runs to the next space (enums' values hold no space), or
        // to the bracket of an optional key.
        let end = after.find([' ', ']']).unwrap_or(after.len());
        let ty = &after[..end];
        let mut next = &after[end..];
        if optional {
            next = next.strip_prefix(']').expect(sig);
        }
        items.push((name.to_string(), ty.to_string(), !optional));
        rest = next.trim_start();
    }
    (id.to_string(), items)
}

/// The label a signature must show for a property, worked out from the
/// schema here, apart from the code that renders it.
fn expected_label(root: &Value, prop: &Value) -> String {
    let mut p = prop;
    loop {
        if let Some(r) = p["$ref"].as_str() {
            p = &root["$defs"][r.trim_start_matches("#/$defs/")];
            continue;
        }
        if let Some(options) = p["anyOf"].as_array() {
            let real: Vec<&Value> = options.iter().filter(|o| o["type"] != "null").collect();
            if real.len() == 1 {
                p = real[0];
                continue;
            }
        }
        break;
    }
    if let Some(values) = p["enum"].as_array() {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("|");
    }
    let types: Vec<&str> = match &p["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => vec![],
    };
    match types.as_slice() {
        ["array"] => format!("list-of-{}", expected_label(root, &p["items"])),
        ["object"] => "hash".into(),
        [one] => (*one).to_string(),
        _ => "any".into(),
    }
}

/// Issue 46: every signature (`tusk actions`, docs/actions.md, `tusk
/// prime`, the `scheme_eval` description) is rendered from the schema and
/// reads back as it: the same keys, required or not, and each key's type,
/// enums as their values (`dep.tree`'s direction was shown as a hash).
#[test]
fn every_signature_reads_back_as_its_schema() {
    let registry = builtin_registry();
    for spec in registry.specs() {
        let sig = spec.signature();
        let (id, items) = parse_signature(&sig);
        assert_eq!(id, spec.id, "{sig}");
        let props = spec.args["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let required: Vec<&str> = spec.args["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut names: Vec<&str> = items.iter().map(|(n, _, _)| n.as_str()).collect();
        let mut want: Vec<&str> = props.keys().map(String::as_str).collect();
        names.sort();
        want.sort();
        assert_eq!(names, want, "{sig}");
        for (name, ty, req) in &items {
            assert_eq!(*req, required.contains(&name.as_str()), "{sig}: {name}");
            assert_eq!(
                *ty,
                expected_label(&spec.args, &props[name]),
                "{sig}: {name}"
            );
        }
    }
    let tree = registry.get("dep.tree").unwrap().spec().signature();
    assert!(
        tree.contains(r#"["direction" "down"|"up"|"both"]"#),
        "{tree}"
    );
}

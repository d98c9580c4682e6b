//! Invariance, input-error and property-based tests of the typestate join check.

use crate::common::Test;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::Path;
use tusk::typestate::evidence::{self, Disposition, Evidence, ResultStatus};
use tusk::typestate::{check, JoinCheck};

// ---------------------------------------------------------------- fixtures

fn call_spec() -> Value {
    json!({
        "callId": "call-7", "modelRef": "model-x", "actionMode": "json",
        "executionPattern": "fanout", "normalizerId": "nf.v1",
        "mutationPolicyDigest": "mut.pol", "governancePolicyDigest": "gov.pol",
        "toolRenderProtocolDigest": "render.pol", "reminderQueuePolicyDigest": "queue.pol",
        "stateViewPolicyDigest": "state.pol", "decompositionPolicyDigest": "decomp.pol"
    })
}

/// A closed three-call turn with one typed error result and a handoff.
fn rich_input() -> Value {
    let ids = ["tc-a", "tc-b", "tc-c"];
    json!({
        "evidence": {
            "callSpec": call_spec(),
            "toolRequests": ids.iter().map(|id| json!({"toolCallId": id, "toolName": format!("tool.{id}"), "schemaDigest": "sha256:s"})).collect::<Vec<_>>(),
            "toolResults": [
                {"toolCallId": "tc-a", "status": "ok", "payload": {"k": [1, 2]}},
                {"toolCallId": "tc-b", "status": "ok", "resultDigest": "sha256:rb"},
                {"toolCallId": "tc-c", "status": "error", "errorCode": "timeout", "retryable": true, "errorMessage": "slow"}
            ],
            "toolUse": [
                {"toolCallId": "tc-a", "disposition": "consumed"},
                {"toolCallId": "tc-b", "disposition": "observed", "resultDigest": "sha256:rb"},
                {"toolCallId": "tc-c", "disposition": "discarded"}
            ],
            "protocolState": {"stopReason": "tool_use", "continuationAllowed": true},
            "handoff": {"target": "worker.x", "requiredArtifactRefs": ["artifact://b", "artifact://a"], "returnPathRef": "ret://x"},
            "toolRender": ids.iter().map(|id| json!({"toolCallId": id, "operatorPayloadDigest": "sha256:o", "reminderRenderDigest": "sha256:r", "injectionPoint": "tool_response", "policyDigest": "render.pol"})).collect::<Vec<_>>(),
            "reminderQueue": [
                {"queueId": "q/1", "reducedDigest": "sha256:q1", "policyDigest": "queue.pol"},
                {"queueId": "q/0", "reducedDigest": "sha256:q0", "policyDigest": "queue.pol"}
            ],
            "stateViews": [
                {"viewId": "v/2", "viewDigest": "sha256:v2", "policyDigest": "state.pol", "sourceRefs": ["s://2", "s://1"]},
                {"viewId": "v/1", "viewDigest": "sha256:v1", "policyDigest": "state.pol"}
            ],
            "sessionRefs": ["session://b", "session://a"],
            "trajectoryRefs": ["traj://1"]
        },
        "handoffConstraints": {"requiredArtifactRefs": ["artifact://a"], "allowedTargets": ["worker.x"], "requireReturnPath": true},
        "decompositionConstraints": {"admissible": true, "expectedExecutionPattern": "fanout"}
    })
}

fn verdict(input: &Value) -> JoinCheck {
    check(input).unwrap_or_else(|e| panic!("unexpected input error: {e}"))
}

// ------------------------------------------------ deterministic perturbation

/// A tiny deterministic generator so perturbations are reproducible from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Fields whose value the spec lower-cases.
const LOWERED: [&str; 7] = [
    "actionMode",
    "executionPattern",
    "stopReason",
    "disposition",
    "injectionPoint",
    "status",
    "expectedExecutionPattern",
];

/// Keys whose array value is a set (rows or references), so order is not meaning.
const SET_LISTS: [&str; 12] = [
    "toolRequests",
    "toolResults",
    "toolUse",
    "toolRender",
    "reminderQueue",
    "stateViews",
    "requiredArtifactRefs",
    "sourceRefs",
    "sessionRefs",
    "trajectoryRefs",
    "allowedTargets",
    "vectors",
];

/// Permutes object keys and set-valued lists, pads strings with whitespace and
/// flips the case of lower-cased fields. `payload` is opaque and left alone.
fn perturb(value: &Value, key: Option<&str>, rng: &mut Rng) -> Value {
    match value {
        Value::Object(map) if key != Some("payload") => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            shuffle(&mut entries, rng);
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k.clone(), perturb(v, Some(k), rng));
            }
            Value::Object(out)
        }
        Value::Array(items) if key.is_some_and(|k| SET_LISTS.contains(&k)) => {
            let mut items: Vec<Value> = items.iter().map(|v| perturb(v, None, rng)).collect();
            shuffle(&mut items, rng);
            Value::Array(items)
        }
        Value::String(s) => {
            let pads = ["", " ", "\t", "  \n", "\u{3000}"];
            let s = if key.is_some_and(|k| LOWERED.contains(&k)) {
                flip_case(s, rng)
            } else {
                s.clone()
            };
            Value::String(format!(
                "{}{s}{}",
                pads[rng.below(pads.len())],
                pads[rng.below(pads.len())]
            ))
        }
        other => other.clone(),
    }
}

fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

fn flip_case(s: &str, rng: &mut Rng) -> String {
    s.chars()
        .map(|c| {
            if rng.below(2) == 0 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

// ------------------------------------------------------------ invariance

#[test]
fn perturbations_leave_every_digest_and_the_normalized_object_unchanged() {
    let input = rich_input();
    let base = verdict(&input);
    assert!(
        base.accepted,
        "fixture should be accepted: {:?}",
        base.failure_classes
    );
    for seed in 1..=64u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let perturbed = perturb(&input, None, &mut rng);
        let v = verdict(&perturbed);
        assert_eq!(
            v.output["witness"], base.output["witness"],
            "seed {seed}: witness changed"
        );
        assert_eq!(
            v.output["normalized"], base.output["normalized"],
            "seed {seed}: normalized changed"
        );
        assert_eq!(v.output, base.output, "seed {seed}");
    }
}

#[test]
fn each_digest_depends_on_its_content() {
    let base = verdict(&rich_input());
    let digest = |v: &JoinCheck, k: &str| v.output["witness"]["digests"][k].clone();
    let mut changed = rich_input();
    changed["evidence"]["toolResults"][1]["resultDigest"] = json!("sha256:other");
    let v = verdict(&changed);
    assert_ne!(
        digest(&v, "resultSetDigest"),
        digest(&base, "resultSetDigest")
    );
    assert_ne!(v.join_set_digest, base.join_set_digest);
    assert_eq!(
        digest(&v, "requestSetDigest"),
        digest(&base, "requestSetDigest")
    );

    let mut changed = rich_input();
    changed["evidence"]["toolResults"][2]["errorMessage"] = json!("slower");
    assert_ne!(
        digest(&verdict(&changed), "resultSetDigest"),
        digest(&base, "resultSetDigest")
    );

    let mut changed = rich_input();
    changed["evidence"]["toolResults"][0]["payload"] = json!({"k": [2, 1]});
    assert_ne!(
        digest(&verdict(&changed), "resultSetDigest"),
        digest(&base, "resultSetDigest")
    );

    let mut changed = rich_input();
    changed["evidence"]["handoff"]["returnPathRef"] = json!("ret://y");
    let v = verdict(&changed);
    assert_ne!(digest(&v, "handoffDigest"), digest(&base, "handoffDigest"));
    assert_ne!(v.join_set_digest, base.join_set_digest);

    let mut changed = rich_input();
    changed["evidence"]["callSpec"]["modelRef"] = json!("model-y");
    let v = verdict(&changed);
    assert_ne!(
        digest(&v, "callSpecDigest"),
        digest(&base, "callSpecDigest")
    );
    // The join set binds the turn graph, not the call spec.
    assert_eq!(v.join_set_digest, base.join_set_digest);
}

#[test]
fn case_of_non_lowered_fields_is_significant() {
    let base = verdict(&rich_input());
    let mut changed = rich_input();
    changed["evidence"]["toolRequests"][0]["toolName"] = json!("TOOL.tc-a");
    assert_ne!(
        verdict(&changed).output["witness"]["digests"]["requestSetDigest"],
        base.output["witness"]["digests"]["requestSetDigest"]
    );
}

#[test]
fn normalized_error_row_has_defaults_and_message_digest() {
    let mut input = rich_input();
    input["evidence"]["toolResults"][2] = json!({"toolCallId": "tc-c", "rawError": {"code": " E1 ", "retryable": false, "message": " boom "}});
    let v = verdict(&input);
    assert!(v.accepted, "{:?}", v.failure_classes);
    let row = &v.output["normalized"]["toolResults"][2];
    assert_eq!(row["status"], "error");
    assert_eq!(row["error"]["errorCode"], "E1");
    assert_eq!(row["error"]["retryable"], false);
    assert_eq!(
        row["error"]["errorMessageDigest"],
        tusk::canonical::sha256_text("boom")
    );
    // Top-level fields win over rawError.
    input["evidence"]["toolResults"][2]["errorCode"] = json!("E0");
    assert_eq!(
        verdict(&input).output["normalized"]["toolResults"][2]["error"]["errorCode"],
        "E0"
    );
}

// ------------------------------------------------------------ input errors

fn run_cli(input: &str, name: &str) -> (Option<i32>, String, String) {
    let path =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("typestate-invalid-{name}.json"));
    std::fs::write(&path, input).unwrap();
    let out = Test::on_files().run(&[
        "harness-join-check",
        "--input",
        path.to_str().unwrap(),
        "--json",
    ]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts exit 2, the CLI's error object on stdout (class
/// `harness_join_check_invalid`, premath prints nothing there) and one
/// `harness_join_check_invalid:` line that starts with `field`.
fn assert_invalid(input: &Value, name: &str, field: &str, reason: &str) {
    let (code, stdout, stderr) = run_cli(&input.to_string(), name);
    assert_eq!(code, Some(2), "{name}: stdout={stdout} stderr={stderr}");
    let error: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{name}: {e}: {stdout}"));
    assert_eq!(
        error["class"], "harness_join_check_invalid",
        "{name}: {stdout}"
    );
    assert!(
        error["message"].as_str().unwrap().starts_with(field),
        "{name}: {stdout}"
    );
    let prefix = format!("harness_join_check_invalid: {field}: ");
    assert!(stderr.starts_with(&prefix), "{name}: {stderr}");
    assert!(stderr.contains(reason), "{name}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
}

#[test]
fn conflicting_duplicate_tool_call_id_exits_2() {
    let mut input = rich_input();
    let rows = input["evidence"]["toolResults"].as_array_mut().unwrap();
    rows.push(json!({"toolCallId": "tc-b", "status": "ok", "resultDigest": "sha256:different"}));
    assert_invalid(
        &input,
        "dup-result",
        "evidence.toolResults",
        "conflicting duplicate toolCallId \"tc-b\"",
    );

    let mut input = rich_input();
    let rows = input["evidence"]["toolRequests"].as_array_mut().unwrap();
    rows.push(json!({"toolCallId": " tc-a", "toolName": "tool.other"}));
    assert_invalid(
        &input,
        "dup-request",
        "evidence.toolRequests",
        "conflicting duplicate toolCallId",
    );

    let mut input = rich_input();
    let rows = input["evidence"]["stateViews"].as_array_mut().unwrap();
    rows.push(json!({"viewId": "v/1", "viewDigest": "sha256:other", "policyDigest": "state.pol"}));
    assert_invalid(
        &input,
        "dup-view",
        "evidence.stateViews",
        "conflicting duplicate viewId",
    );
}

#[test]
fn blank_required_field_exits_2() {
    let mut input = rich_input();
    input["evidence"]["callSpec"]["normalizerId"] = json!(" \t ");
    assert_invalid(
        &input,
        "blank-callspec",
        "evidence.callSpec.normalizerId",
        "empty",
    );

    let mut input = rich_input();
    input["evidence"]["toolUse"][1]["toolCallId"] = json!("");
    assert_invalid(
        &input,
        "blank-use-id",
        "evidence.toolUse[1].toolCallId",
        "empty",
    );

    let mut input = rich_input();
    input["evidence"]["protocolState"]["stopReason"] = json!("   ");
    assert_invalid(
        &input,
        "blank-stop",
        "evidence.protocolState.stopReason",
        "empty",
    );

    let mut input = rich_input();
    input["evidence"]["handoff"]["target"] = json!(" ");
    assert_invalid(&input, "blank-target", "evidence.handoff.target", "empty");

    let mut input = rich_input();
    input["evidence"]["callSpec"]
        .as_object_mut()
        .unwrap()
        .remove("stateViewPolicyDigest");
    assert_invalid(
        &input,
        "missing-callspec",
        "evidence.callSpec.stateViewPolicyDigest",
        "missing",
    );
}

/// (name, mutation of the fixture, field named in the error, reason fragment)
type ShapeCase = (&'static str, fn(&mut Value), &'static str, &'static str);

#[test]
fn wrong_shape_exits_2() {
    let cases: Vec<ShapeCase> = vec![
        (
            "rows-object",
            |i| i["evidence"]["toolRequests"] = json!({"toolCallId": "tc-a"}),
            "evidence.toolRequests",
            "must be an array",
        ),
        (
            "row-string",
            |i| i["evidence"]["toolUse"][0] = json!("tc-a"),
            "evidence.toolUse[0]",
            "must be an object",
        ),
        (
            "continuation-string",
            |i| i["evidence"]["protocolState"]["continuationAllowed"] = json!("yes"),
            "evidence.protocolState.continuationAllowed",
            "must be a boolean",
        ),
        (
            "id-number",
            |i| i["evidence"]["toolResults"][0]["toolCallId"] = json!(7),
            "evidence.toolResults[0].toolCallId",
            "must be a string",
        ),
        (
            "retryable-string",
            |i| i["evidence"]["toolResults"][2]["retryable"] = json!("true"),
            "evidence.toolResults[2].retryable",
            "must be a boolean",
        ),
        (
            "ref-number",
            |i| i["evidence"]["sessionRefs"] = json!([1]),
            "evidence.sessionRefs[0]",
            "must be a string",
        ),
        (
            "status-unknown",
            |i| i["evidence"]["toolResults"][0]["status"] = json!("pending"),
            "evidence.toolResults[0].status",
            "must be one of ok, error",
        ),
        (
            "disposition-unknown",
            |i| i["evidence"]["toolUse"][0]["disposition"] = json!("ignored"),
            "evidence.toolUse[0].disposition",
            "must be one of",
        ),
        (
            "no-evidence",
            |i| {
                i.as_object_mut().unwrap().remove("evidence");
            },
            "evidence",
            "missing",
        ),
        (
            "no-protocol",
            |i| {
                i["evidence"]
                    .as_object_mut()
                    .unwrap()
                    .remove("protocolState");
            },
            "evidence.protocolState",
            "missing",
        ),
        (
            "constraint-array",
            |i| i["truncationConstraints"] = json!([]),
            "truncationConstraints",
            "must be an object",
        ),
        (
            "claimed-missing",
            |i| i["governanceProfile"] = json!({"claimId": "x"}),
            "governanceProfile.claimed",
            "missing",
        ),
        (
            "raw-error-string",
            |i| i["evidence"]["toolResults"][0]["rawError"] = json!("boom"),
            "evidence.toolResults[0].rawError",
            "must be an object",
        ),
    ];
    for (name, mutate, field, reason) in cases {
        let mut input = rich_input();
        mutate(&mut input);
        assert_invalid(&input, name, field, reason);
    }
    assert_invalid(&json!([1, 2]), "top-array", "input", "must be an object");
    let (code, stdout, stderr) = run_cli("{\"evidence\": ", "not-json");
    assert_eq!(code, Some(2));
    assert!(
        stdout.contains("\"class\": \"harness_join_check_invalid\""),
        "{stdout}"
    );
    assert!(
        stderr.starts_with("harness_join_check_invalid: input: not valid JSON"),
        "{stderr}"
    );
}

#[test]
fn unreadable_input_file_exits_2() {
    let out = Test::on_files().run(&[
        "harness-join-check",
        "--input",
        "/nonexistent/typestate.json",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("harness_join_check_invalid: input: cannot read"));
}

// ------------------------------------------------------------ properties

const IDS: [&str; 5] = ["t0", "t1", "t2", "t3", "t4"];

/// Generated evidence plus the raw id sets it was built from, so properties can
/// compare against a direct set computation.
#[derive(Debug, Clone)]
struct Generated {
    input: Value,
    requested: BTreeSet<&'static str>,
    results: BTreeSet<&'static str>,
    used: BTreeSet<&'static str>,
}

fn subset() -> impl Strategy<Value = BTreeSet<&'static str>> {
    proptest::sample::subsequence(IDS.to_vec(), 0..=IDS.len()).prop_map(|v| v.into_iter().collect())
}

fn result_row(id: &str, variant: u8, text: &str) -> Value {
    match variant % 6 {
        0 => json!({"toolCallId": id, "status": "ok", "resultDigest": format!("sha256:{text}")}),
        1 => json!({"toolCallId": id, "payload": {"text": text, "n": variant}}),
        2 => {
            json!({"toolCallId": id, "status": "error", "errorCode": text, "retryable": true, "errorMessage": text})
        }
        3 => {
            json!({"toolCallId": id, "rawError": {"code": text, "retryable": false, "message": text}})
        }
        4 => json!({"toolCallId": id, "errorCode": text}),
        _ => json!({"toolCallId": id, "status": "error"}),
    }
}

prop_compose! {
    fn generated()(
        requested in subset(), results in subset(), used in subset(), rendered in subset(),
        variants in proptest::collection::vec(0u8..6, IDS.len()),
        dispositions in proptest::collection::vec(0usize..3, IDS.len()),
        texts in proptest::collection::vec("[a-z]{1,4}( [a-z]{1,3})?", IDS.len()),
        queues in proptest::collection::btree_set("q/[a-c]", 0..3),
        views in proptest::collection::btree_set("v/[a-c]", 0..3),
        policy_ok in proptest::array::uniform3(proptest::bool::weighted(0.8)),
        stop in proptest::sample::select(vec!["tool_use", "end_turn", "pause_turn", "max_tokens", "refusal"]),
        continuation in any::<bool>(),
        handoff in proptest::option::of(("worker\\.[a-c]", proptest::collection::vec("art://[a-c]", 0..3), proptest::option::of("ret://[a-c]"))),
        refs in proptest::collection::vec("s://[a-d]", 0..4),
    ) -> Generated {
        let disp = ["consumed", "observed", "discarded"];
        let pol = |ok: bool, good: &str| if ok { good.to_string() } else { format!("{good}.stale") };
        let mut evidence = json!({
            "callSpec": call_spec(),
            "toolRequests": requested.iter().map(|id| json!({"toolCallId": id, "toolName": format!("tool.{id}")})).collect::<Vec<_>>(),
            "toolResults": results.iter().enumerate().map(|(i, id)| result_row(id, variants[i], &texts[i])).collect::<Vec<_>>(),
            "toolUse": used.iter().enumerate().map(|(i, id)| json!({"toolCallId": id, "disposition": disp[dispositions[i]]})).collect::<Vec<_>>(),
            "protocolState": {"stopReason": stop, "continuationAllowed": continuation},
            "toolRender": rendered.iter().map(|id| json!({"toolCallId": id, "operatorPayloadDigest": "sha256:o", "reminderRenderDigest": "sha256:r", "injectionPoint": "tool_response", "policyDigest": pol(policy_ok[0], "render.pol")})).collect::<Vec<_>>(),
            "reminderQueue": queues.iter().map(|q| json!({"queueId": q, "reducedDigest": format!("sha256:{q}"), "policyDigest": pol(policy_ok[1], "queue.pol")})).collect::<Vec<_>>(),
            "stateViews": views.iter().map(|v| json!({"viewId": v, "viewDigest": format!("sha256:{v}"), "policyDigest": pol(policy_ok[2], "state.pol"), "sourceRefs": refs})).collect::<Vec<_>>(),
            "sessionRefs": refs,
        });
        if let Some((target, arts, ret)) = handoff {
            evidence["handoff"] = json!({"target": target, "requiredArtifactRefs": arts, "returnPathRef": ret});
        }
        Generated { input: json!({"evidence": evidence}), requested, results, used }
    }
}

/// Writes a normalized model back out as an input object (the inverse of parsing
/// on already-normalized data).
fn to_input(ev: &Evidence) -> Value {
    let results: Vec<Value> = ev
        .tool_results
        .values()
        .map(|r| {
            let mut row = json!({"toolCallId": r.tool_call_id});
            row["status"] = json!(if r.status == ResultStatus::Ok {
                "ok"
            } else {
                "error"
            });
            if let Some(d) = &r.result_digest {
                row["resultDigest"] = json!(d);
            }
            if let Some(e) = &r.error {
                if let Some(c) = &e.code {
                    row["errorCode"] = json!(c);
                }
                if let Some(b) = e.retryable {
                    row["retryable"] = json!(b);
                }
                if let Some(m) = &e.message {
                    row["errorMessage"] = json!(m);
                }
            }
            row
        })
        .collect();
    let uses: Vec<Value> = ev
        .tool_use
        .values()
        .map(|u| {
            let d = match u.disposition {
                Disposition::Consumed => "consumed",
                Disposition::Observed => "observed",
                Disposition::Discarded => "discarded",
            };
            let mut row = json!({"toolCallId": u.tool_call_id, "disposition": d});
            if let Some(rd) = &u.result_digest {
                row["resultDigest"] = json!(rd);
            }
            row
        })
        .collect();
    let mut evidence = json!({
        "callSpec": serde_json::to_value(&ev.call_spec).unwrap(),
        "toolRequests": ev.tool_requests.values().map(|r| serde_json::to_value(r).unwrap()).collect::<Vec<_>>(),
        "toolResults": results,
        "toolUse": uses,
        "protocolState": serde_json::to_value(&ev.protocol_state).unwrap(),
        "toolRender": ev.tool_render.values().map(|r| serde_json::to_value(r).unwrap()).collect::<Vec<_>>(),
        "reminderQueue": ev.reminder_queue.values().map(|r| serde_json::to_value(r).unwrap()).collect::<Vec<_>>(),
        "stateViews": ev.state_views.values().map(|r| serde_json::to_value(r).unwrap()).collect::<Vec<_>>(),
        "sessionRefs": ev.session_refs,
        "trajectoryRefs": ev.trajectory_refs,
    });
    if let Some(h) = &ev.handoff {
        evidence["handoff"] = serde_json::to_value(h).unwrap();
    }
    json!({"evidence": evidence})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Normalizing already-normalized evidence changes nothing.
    #[test]
    fn normalization_is_idempotent(g in generated()) {
        let (once, constraints) = evidence::normalize(&g.input).unwrap();
        let (twice, constraints2) = evidence::normalize(&to_input(&once)).unwrap();
        prop_assert_eq!(&once, &twice);
        prop_assert_eq!(constraints, constraints2);
        prop_assert_eq!(verdict(&g.input).output, verdict(&to_input(&once)).output);
    }

    /// Row order, key order, padding and case of lower-cased fields do not matter.
    #[test]
    fn normalization_is_order_independent(g in generated(), seed in 1u64..u64::MAX) {
        let mut rng = Rng(seed);
        let perturbed = perturb(&g.input, None, &mut rng);
        prop_assert_eq!(evidence::normalize(&g.input).unwrap(), evidence::normalize(&perturbed).unwrap());
        prop_assert_eq!(verdict(&g.input).output, verdict(&perturbed).output);
    }

    /// joinClosed agrees with the direct set computation requested = results = used.
    #[test]
    fn join_closed_agrees_with_set_computation(g in generated()) {
        let v = verdict(&g.input);
        let direct = g.requested == g.results && g.results == g.used;
        prop_assert_eq!(v.output["normalized"]["joinState"]["joinClosed"].as_bool(), Some(direct));
        prop_assert_eq!(v.failure_classes.contains(&"tool.join_incomplete".to_string()), !direct);
        prop_assert_eq!(
            v.failure_classes.contains(&"tool.result_missing".to_string()),
            !g.requested.is_subset(&g.results)
        );
        prop_assert_eq!(
            v.failure_classes.contains(&"tool.use_without_result".to_string()),
            !g.used.is_subset(&g.results)
        );
        // The output's joinClosed is the verdict, which needs the set-level closure.
        prop_assert_eq!(v.join_closed, v.accepted);
        prop_assert!(!v.join_closed || direct);
        prop_assert_eq!(v.output["result"].as_str(), Some(if v.accepted { "accepted" } else { "rejected" }));
    }
}

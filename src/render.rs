//! Human-readable renderings of a run's result, shared by the front ends
//! (`tusk eval`, `tusk repl`, `tusk mcp`): the one-screen summary and the
//! plain words for each failure class. Front ends import this module, never
//! each other.

use serde_json::Value;

/// The readable summary: value, effects one line each, failures in words.
pub fn summary(result: &Value) -> String {
    let mut out = String::new();
    // Everything here may come from the program: one line each, escaped.
    let text = |v: &Value| crate::terminal::field(v.as_str().unwrap_or_default()).into_owned();
    out.push_str(&format!(
        "{} · {} host call(s) · {} ms · run {}\n",
        text(&result["result"]),
        result["usage"]["hostCalls"],
        result["usage"]["elapsedMs"],
        text(&result["runId"])
    ));
    out.push_str(&format!(
        "value: {}\n",
        crate::terminal::field(&serde_json::to_string(&result["value"]).unwrap_or_default())
    ));
    for effect in result["effects"].as_array().into_iter().flatten() {
        let class = text(&effect["resultClass"]);
        let mut line = format!(
            "  {} {} → {}",
            text(&effect["callId"]),
            text(&effect["action"]),
            class
        );
        if class != "accepted" {
            if let Some(d) = effect["payload"]["diagnostic"].as_str() {
                line.push_str(&format!(": {}", crate::terminal::field(d)));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    let decided = &result["decidedBy"];
    if decided["kind"] == "call" {
        out.push_str(&format!(
            "rejected by {} {} → {} (a rejected host call rejects the run, even when the program handled it)\n",
            text(&decided["callId"]),
            text(&decided["action"]),
            text(&decided["resultClass"])
        ));
    }
    let output = result["output"].as_str().unwrap_or_default();
    if !output.is_empty() {
        out.push_str("output:\n");
        for l in crate::terminal::lines(output) {
            out.push_str(&format!("  | {l}\n"));
        }
        if result["outputTruncated"] == Value::Bool(true) {
            out.push_str("  | … (output truncated)\n");
        }
    }
    if let Some(error) = result.get("error") {
        let at = match (error.get("line"), error.get("column")) {
            (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "error: {}{}: {}\n",
            text(&error["class"]),
            at,
            text(&error["message"])
        ));
    }
    let classes: Vec<String> = result["failureClasses"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| describe_class(c.as_str().unwrap_or_default()))
        .collect();
    if !classes.is_empty() {
        out.push_str("why rejected:\n");
        for c in classes {
            out.push_str(&format!("  - {c}\n"));
        }
    }
    let mut fixes: Vec<&str> = result["failureClasses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| fix_for(c.as_str().unwrap_or_default()))
        .collect();
    fixes.dedup();
    for fix in fixes {
        out.push_str(&format!("fix: {fix}\n"));
    }
    out
}

/// What to do about a refusal a new user meets first (the mutation gate's),
/// for requests from the command line and over MCP alike.
pub fn fix_for(class: &str) -> Option<&'static str> {
    match class {
        crate::host::gate::USE_EVIDENCE_MISSING => Some(
            "give the mutation authority: policyDigest (what `tusk policy digest` prints) and \
             instructionRef (a reference to the instruction carried out), as request fields or as \
             --policy-digest \"$(tusk policy digest)\" --instruction-ref REF; a policy with \
             requireJoinClosed also needs joinEvidence (--join-evidence FILE)",
        ),
        crate::host::gate::POLICY_DIGEST_MISMATCH => Some(
            "use the active policy's digest: `tusk policy digest` prints it (it changes whenever \
             the policy file does)",
        ),
        crate::host::gate::ACTION_NOT_ALLOWED => Some(
            "list the action in allowedActions of the policy file (.premath/mutation_policy.json), \
             then take its new digest with `tusk policy digest`",
        ),
        _ => None,
    }
}

/// Failure classes in plain words.
pub fn describe_class(class: &str) -> String {
    let words = match class {
        "scheme_eval.timeout" => "the program ran out of wall-clock time",
        "scheme_eval.call_budget_exceeded" => "the program made more host calls than allowed",
        "scheme_eval.memory_exceeded" => "the program used more memory than allowed",
        "scheme_eval.invalid_program" => "the program text could not be read or compiled",
        "scheme_eval.effect_denied" => {
            "the program asked for a capability the sandbox does not have"
        }
        "scheme_eval.runtime_error" => "the program raised an error it did not handle",
        "scheme_eval.internal_error" => "the evaluator itself failed, not the program",
        "scheme_eval.worker_crashed" => {
            "the program's worker process died (a stack overflow, a signal, or the system-call filter)"
        }
        "scheme_eval.interrupted" => "the run was stopped from outside (Ctrl-C) before it finished",
        "scheme_eval.host_action_unallowlisted" => {
            "the program called a host action that does not exist"
        }
        "scheme_eval.host_action_execution_error" => {
            "a host action failed inside (I/O or corrupt store)"
        }
        "host.args_invalid" => "a host call's arguments did not fit the action's schema",
        "mutation.use_evidence_missing" => {
            "a mutation lacked authority evidence (policy digest, instruction ref or join witness)"
        }
        "mutation.policy_digest_mismatch" => {
            "the request's policy digest is not the active policy's"
        }
        "mutation.action_not_allowed" => "the mutation policy does not allow that action",
        _ => "",
    };
    if words.is_empty() {
        crate::terminal::field(class).into_owned()
    } else {
        format!("{class}: {words}")
    }
}

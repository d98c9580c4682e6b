//! Human-readable renderings of a run's result, shared by the front ends
//! (`tusk eval`, `tusk repl`, `tusk mcp`): the one-screen summary and the
//! plain words for each failure class. Front ends import this module, never
//! each other.

use crate::host::HostClass;
use crate::sandbox::FailureClass;
use serde_json::Value;

/// The readable summary: value, effects one line each, failures in words.
pub fn summary(result: &Value) -> String {
    let mut out = String::new();
    // Everything here may come from the program: one line each, escaped.
    let text = |v: &Value| crate::terminal::field(v.as_str().unwrap_or_default()).into_owned();
    out.push_str(&format!(
        "{}{} · {} host call(s) · {} ms · run {}\n",
        text(&result["result"]),
        if result["handled"] == true {
            " (handled)"
        } else {
            ""
        },
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
    commit_lines(result, &mut out);
    refusals(result, &mut out);
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
        error_lines(error, &mut out);
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

/// Which call decided a rejection, and whether the program handled its
/// refusals (issue 56) or left some unread.
fn refusals(result: &Value, out: &mut String) {
    let text = |v: &Value| crate::terminal::field(v.as_str().unwrap_or_default()).into_owned();
    let decided = &result["decidedBy"];
    if decided["kind"] == "call" {
        out.push_str(&format!(
            "rejected by {} {} → {} (a rejected host call rejects the run, even when the program handled it)\n",
            text(&decided["callId"]),
            text(&decided["action"]),
            text(&decided["resultClass"])
        ));
        if result["handled"] == true {
            out.push_str(
                "handled: the program examined every refusal and finished (not an error over MCP)\n",
            );
        }
    }
    if let Some(ids) = result["unexamined"].as_array() {
        let ids: Vec<String> = ids.iter().map(text).collect();
        out.push_str(&format!(
            "not examined: {} (the program never read the refusal; test (accepted? e) on each \
             call's envelope and act on it)\n",
            ids.join(", ")
        ));
    }
}

/// The run's error: its class and place, then its message one line each,
/// each escaped and marked as the message's (`  | `, as output is), so none
/// can pass for a line of the summary.
fn error_lines(error: &Value, out: &mut String) {
    let text = |v: &Value| crate::terminal::field(v.as_str().unwrap_or_default()).into_owned();
    let at = match (error.get("line"), error.get("column")) {
        (Some(l), Some(c)) => format!(" (line {l}, column {c})"),
        _ => String::new(),
    };
    let message = error["message"].as_str().unwrap_or_default();
    let mut message_lines = crate::terminal::lines(message);
    out.push_str(&format!(
        "error: {}{}: {}\n",
        text(&error["class"]),
        at,
        message_lines.next().unwrap_or_default()
    ));
    for line in message_lines {
        out.push_str(&format!("  | {line}\n"));
    }
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
/// An atomic run's end (issue 59): what was committed, or a dry run's
/// plan, one line per field that would change.
fn commit_lines(result: &Value, out: &mut String) {
    let text = |v: &Value| crate::terminal::field(v.as_str().unwrap_or_default()).into_owned();
    let issues: Vec<String> = result["commit"]["issues"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    match result["commit"]["outcome"].as_str() {
        Some("committed") => {
            out.push_str(&format!("committed in one write: {}\n", issues.join(", ")));
        }
        Some("dryRun") => {
            let plan = &result["plan"];
            let changes = plan["changes"].as_array().cloned().unwrap_or_default();
            out.push_str(&format!(
                "dry run, nothing changed · plan {} · {} issue(s) would change\n",
                text(&plan["planId"]),
                changes.len()
            ));
            for change in &changes {
                let id = text(&change["id"]);
                if change["new"] == true {
                    out.push_str(&format!("  {id}: new\n"));
                }
                for c in change["commentsAdded"].as_array().into_iter().flatten() {
                    out.push_str(&format!(
                        "  {id}: + comment by {}: {}\n",
                        text(&c["author"]),
                        crate::terminal::field(&crate::terminal::clip(
                            c["text"].as_str().unwrap_or_default(),
                            60
                        ))
                    ));
                }
                for (sign, key) in [("+", "edgesAdded"), ("-", "edgesRemoved")] {
                    for e in change[key].as_array().into_iter().flatten() {
                        out.push_str(&format!(
                            "  {id}: {sign} edge {} {}\n",
                            text(&e["type"]),
                            text(&e["depends_on_id"])
                        ));
                    }
                }
                let fields = change["fields"].as_object().into_iter().flatten();
                // Comments and edges are the lines above; every change
                // moves `updated_at` (the plan keeps it).
                let hidden = ["comments", "dependencies", "updated_at"];
                for (field, fb) in fields.filter(|(f, _)| !hidden.contains(&f.as_str())) {
                    let shown = |v: &Value| match v {
                        Value::Null => "—".to_string(),
                        Value::String(s) => crate::terminal::clip(s, 60),
                        other => crate::terminal::clip(&other.to_string(), 60),
                    };
                    out.push_str(&format!(
                        "  {id}.{}: {} → {}\n",
                        crate::terminal::field(field),
                        crate::terminal::field(&shown(&fb["before"])),
                        crate::terminal::field(&shown(&fb["after"]))
                    ));
                }
            }
        }
        _ => {}
    }
}

pub fn describe_class(class: &str) -> String {
    // A class is one domain's or another's: the sandbox's or the host's.
    let sandbox = FailureClass::ALL.into_iter().find(|c| c.as_str() == class);
    let words = match (sandbox, HostClass::parse(class)) {
        (Some(FailureClass::Timeout), _) => "the program ran out of wall-clock time",
        (Some(FailureClass::CallBudget), _) => "the program made more host calls than allowed",
        (Some(FailureClass::Memory), _) => "the program used more memory than allowed",
        (Some(FailureClass::InvalidProgram), _) => "the program text could not be read or compiled",
        (Some(FailureClass::EffectDenied), _) => {
            "the program asked for a capability the sandbox does not have"
        }
        (Some(FailureClass::RuntimeError), _) => "the program raised an error it did not handle",
        (Some(FailureClass::Internal), _) => "the evaluator itself failed, not the program",
        (Some(FailureClass::WorkerCrashed), _) => {
            "the program's worker process died (a stack overflow, a signal, or the system-call filter)"
        }
        (Some(FailureClass::Interrupted), _) => "the run was stopped from outside (Ctrl-C) before it finished",
        (_, Some(HostClass::Unallowlisted)) => {
            "the program called a host action that does not exist"
        }
        (_, Some(HostClass::ExecutionError)) => {
            "a host action failed inside (I/O or corrupt store)"
        }
        (_, Some(HostClass::ArgsInvalid)) => "a host call's arguments did not fit the action's schema",
        (_, Some(HostClass::RunConflict)) => {
            "an issue the atomic run read or wrote changed under it: nothing was applied"
        }
        (_, Some(HostClass::RunAborted)) => {
            "the atomic run did not end accepted: none of its staged changes was applied"
        }
        (_, Some(HostClass::AtomicUnsupported)) => {
            "an atomic run called a mutation outside the issue store, which it cannot stage"
        }
        (_, Some(HostClass::UseEvidenceMissing)) => {
            "a mutation lacked authority evidence (policy digest, instruction ref or join witness)"
        }
        (_, Some(HostClass::PolicyDigestMismatch)) => {
            "the request's policy digest is not the active policy's"
        }
        (_, Some(HostClass::ActionNotAllowed)) => "the mutation policy does not allow that action",
        _ => "",
    };
    if words.is_empty() {
        crate::terminal::field(class).into_owned()
    } else {
        format!("{class}: {words}")
    }
}

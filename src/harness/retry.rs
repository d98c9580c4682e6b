//! The verify/retry policy of a worker's step (seed TUSK-HARNESS-CONTRACT §5,
//! premath's HARNESS-RETRY-ESCALATION draft): which rule a failure class
//! falls under, whether the step is retried, with which backoff, and what
//! happens once its attempts are spent.
//!
//! The policy is data: a `ci.harness.retry.policy.v1` artifact (default
//! `.premath/harness_retry_policy.json`; the reference's own file is
//! accepted as it is), or the built-in default in `retry_policy_default.json`
//! beside this file. No rule table lives anywhere else.

use crate::canonical;
use crate::harness::HarnessClass;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::path::Path;

pub const POLICY_KIND: &str = "ci.harness.retry.policy.v1";
/// Default path, under the working directory.
pub const DEFAULT_POLICY_PATH: &str = ".premath/harness_retry_policy.json";
/// The built-in policy: the reference's canonical table with tusk's own
/// failure classes placed in it.
const BUILTIN: &str = include_str!("retry_policy_default.json");

/// Why a policy or a decision request cannot be used (fail closed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{class}: {message}")]
pub struct RetryError {
    pub class: &'static str,
    pub message: String,
}

fn fail(class: &'static str, message: impl Into<String>) -> RetryError {
    RetryError {
        class,
        message: message.into(),
    }
}

/// One rule of the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub rule_id: String,
    pub failure_classes: Vec<String>,
    pub max_attempts: u64,
    pub backoff_class: String,
    pub escalation_action: String,
}

/// A loaded, validated policy.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub policy_id: String,
    pub policy_digest: String,
    pub rules: Vec<Rule>,
    pub default_rule: Rule,
}

/// `pol1_` + hex SHA-256 of the canonical JSON of the policy without its
/// `policyDigest`.
pub fn policy_digest(document: &Value) -> String {
    let mut payload = document.clone();
    if let Some(m) = payload.as_object_mut() {
        m.remove("policyDigest");
    }
    format!(
        "pol1_{}",
        canonical::sha256_hex(canonical::to_canonical_string(&payload).as_bytes())
    )
}

fn text(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn rule_of(value: &Value, default_id: Option<&str>) -> Result<Rule, RetryError> {
    let shape = |why: &str| {
        fail(
            HarnessClass::RetryPolicyInvalidShape.as_str(),
            why.to_string(),
        )
    };
    let m = value
        .as_object()
        .ok_or_else(|| shape("a rule is not an object"))?;
    let rule_id = match default_id {
        Some(id) => text(m, "ruleId").unwrap_or_else(|| id.to_string()),
        None => text(m, "ruleId").ok_or_else(|| shape("a rule has no ruleId"))?,
    };
    let max_attempts = m
        .get("maxAttempts")
        .and_then(Value::as_u64)
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            shape(&format!(
                "rule {rule_id}: maxAttempts must be an integer >= 1"
            ))
        })?;
    let backoff_class = text(m, "backoffClass")
        .ok_or_else(|| shape(&format!("rule {rule_id}: backoffClass is empty")))?;
    let escalation_action = text(m, "escalationAction")
        .ok_or_else(|| shape(&format!("rule {rule_id}: escalationAction is empty")))?;
    let failure_classes: BTreeSet<String> = match (default_id, m.get("failureClasses")) {
        (Some(_), _) => BTreeSet::new(),
        (None, Some(Value::Array(items))) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        (None, _) => {
            return Err(shape(&format!(
                "rule {rule_id}: failureClasses must be a list"
            )))
        }
    };
    if default_id.is_none() && failure_classes.is_empty() {
        return Err(shape(&format!("rule {rule_id}: failureClasses is empty")));
    }
    Ok(Rule {
        rule_id,
        failure_classes: failure_classes.into_iter().collect(),
        max_attempts,
        backoff_class,
        escalation_action,
    })
}

impl RetryPolicy {
    /// Validates a policy document: shape, disjoint rules, and its digest.
    ///
    /// # Errors
    /// `retry_policy_invalid_shape` or `retry_policy_invalid_digest`.
    pub fn from_document(document: &Value) -> Result<Self, RetryError> {
        let shape = |why: &str| {
            fail(
                HarnessClass::RetryPolicyInvalidShape.as_str(),
                why.to_string(),
            )
        };
        let m = document
            .as_object()
            .ok_or_else(|| shape("the policy is not a JSON object"))?;
        if m.get("schema") != Some(&json!(1)) {
            return Err(shape("schema must be 1"));
        }
        if m.get("policyKind").and_then(Value::as_str) != Some(POLICY_KIND) {
            return Err(shape(&format!("policyKind must be {POLICY_KIND}")));
        }
        let policy_id = text(m, "policyId").ok_or_else(|| shape("policyId is empty"))?;
        let declared = text(m, "policyDigest").ok_or_else(|| shape("policyDigest is empty"))?;
        let rules_value = m
            .get("rules")
            .and_then(Value::as_array)
            .filter(|r| !r.is_empty())
            .ok_or_else(|| shape("rules must be a non-empty list"))?;
        let rules: Vec<Rule> = rules_value
            .iter()
            .map(|r| rule_of(r, None))
            .collect::<Result<_, _>>()?;
        let mut ids = BTreeSet::new();
        let mut classes = BTreeSet::new();
        for rule in &rules {
            if rule.rule_id == "default" || !ids.insert(rule.rule_id.clone()) {
                return Err(shape(&format!(
                    "ruleId {} is duplicated or reserved",
                    rule.rule_id
                )));
            }
            for class in &rule.failure_classes {
                if !classes.insert(class.clone()) {
                    return Err(shape(&format!(
                        "failure class {class} is in two rules: failureClasses must be disjoint across rules"
                    )));
                }
            }
        }
        let default_rule = rule_of(
            m.get("defaultRule")
                .ok_or_else(|| shape("defaultRule is missing"))?,
            Some("default"),
        )?;
        let computed = policy_digest(document);
        if declared != computed {
            return Err(fail(
                HarnessClass::RetryPolicyInvalidDigest.as_str(),
                format!("policyDigest is {declared}, but the policy's digest is {computed}"),
            ));
        }
        Ok(Self {
            policy_id,
            policy_digest: computed,
            rules,
            default_rule,
        })
    }

    /// The built-in policy.
    pub fn builtin() -> Self {
        let document: Value = serde_json::from_str(BUILTIN).expect("the built-in policy is JSON");
        Self::from_document(&document).expect("the built-in policy is valid")
    }

    /// The policy at `path`, or the built-in one when the file does not exist.
    ///
    /// # Errors
    /// `retry_policy_io_error`, `retry_policy_invalid_json`, or the
    /// validation classes of [`RetryPolicy::from_document`].
    pub fn load(path: &Path) -> Result<Self, RetryError> {
        let text = match crate::files::read_to_string(path, crate::files::CONFIG_MAX) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::builtin()),
            Err(e) => {
                return Err(fail(
                    HarnessClass::RetryPolicyIoError.as_str(),
                    format!("cannot read {}: {e}", path.display()),
                ))
            }
        };
        let document: Value = serde_json::from_str(&text).map_err(|e| {
            fail(
                HarnessClass::RetryPolicyInvalidJson.as_str(),
                format!("{} is not JSON: {e}", path.display()),
            )
        })?;
        Self::from_document(&document)
    }

    /// The decision for attempt `attempt` (1-based: the one that just
    /// failed) of a step that failed with `failure_classes`: the first class
    /// (in the given order) that a rule lists decides, else the default
    /// rule; the step is retried while `attempt < maxAttempts`.
    ///
    /// # Errors
    /// `retry_policy_invalid_shape` when `attempt < 1`.
    pub fn decide(&self, failure_classes: &[String], attempt: i64) -> Result<Decision, RetryError> {
        if attempt < 1 {
            return Err(fail(
                HarnessClass::RetryPolicyInvalidShape.as_str(),
                format!("attempt must be >= 1, found {attempt}"),
            ));
        }
        let mut ordered: Vec<String> = Vec::new();
        for c in failure_classes
            .iter()
            .map(|c| c.trim())
            .filter(|c| !c.is_empty())
        {
            if !ordered.iter().any(|o| o == c) {
                ordered.push(c.to_string());
            }
        }
        let found = ordered.iter().find_map(|class| {
            self.rules
                .iter()
                .find(|r| r.failure_classes.contains(class))
                .map(|r| (r, class.clone()))
        });
        let (rule, matched) = match found {
            Some((rule, class)) => (rule, class),
            None => (
                &self.default_rule,
                ordered.first().cloned().unwrap_or_else(|| {
                    HarnessClass::PipelineMissingFailureClass
                        .as_str()
                        .to_string()
                }),
            ),
        };
        let mut sorted = ordered.clone();
        sorted.sort();
        Ok(Decision {
            attempt: attempt as u64,
            retry: (attempt as u64) < rule.max_attempts,
            max_attempts: rule.max_attempts,
            backoff_class: rule.backoff_class.clone(),
            escalation_action: rule.escalation_action.clone(),
            rule_id: rule.rule_id.clone(),
            matched_failure_class: matched,
            failure_classes: sorted,
            policy_id: self.policy_id.clone(),
            policy_digest: self.policy_digest.clone(),
        })
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub attempt: u64,
    pub retry: bool,
    pub max_attempts: u64,
    pub backoff_class: String,
    pub escalation_action: String,
    pub rule_id: String,
    pub matched_failure_class: String,
    pub failure_classes: Vec<String>,
    pub policy_id: String,
    pub policy_digest: String,
}

impl Decision {
    /// The `harness.retry.decide` payload (and `--json` output).
    pub fn doc(&self) -> DecisionDoc<'_> {
        DecisionDoc {
            schema: 1,
            kind: "premath.harness.retry.decision.v1",
            attempt: self.attempt,
            retry: self.retry,
            max_attempts: self.max_attempts,
            backoff_class: &self.backoff_class,
            escalation_action: &self.escalation_action,
            rule_id: &self.rule_id,
            matched_failure_class: &self.matched_failure_class,
            failure_classes: &self.failure_classes,
            policy_id: &self.policy_id,
            policy_digest: &self.policy_digest,
        }
    }

    /// [`Decision::doc`] as JSON.
    pub fn to_json(&self) -> Value {
        crate::host::payload_json(&self.doc())
    }
}

/// A retry decision (`premath.harness.retry.decision.v1`): the payload of
/// `harness.retry.decide`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("x-shape" = "Decision"))]
pub struct DecisionDoc<'a> {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.retry.decision.v1`.
    pub kind: &'static str,
    pub attempt: u64,
    pub retry: bool,
    pub max_attempts: u64,
    pub backoff_class: &'a str,
    /// `issue_discover`, `mark_blocked` or `stop`.
    pub escalation_action: &'a str,
    pub rule_id: &'a str,
    pub matched_failure_class: &'a str,
    /// Sorted, once each.
    pub failure_classes: &'a [String],
    pub policy_id: &'a str,
    pub policy_digest: &'a str,
}

/// An escalation carried out (`premath.harness.escalation.v1`): the payload
/// of `harness.escalate`. A `stop` has `details` and no issue members; the
/// other actions name the issue, the note, and (`issue_discover`) the issue
/// filed.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Escalation<'a> {
    /// Always 1.
    pub schema: u32,
    /// `premath.harness.escalation.v1`.
    pub kind: &'static str,
    /// The decision's escalation action.
    pub action: &'a str,
    pub decision: DecisionDoc<'a>,
    /// `stop`, `issue_discover` or `mark_blocked`.
    pub outcome: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<String>,
    /// Where the active issue was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue_context: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note_digest: Option<String>,
    /// The id of the issue `issue_discover` filed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub created_issue_id: Option<Value>,
}

/// Where an escalation finds its active issue and its files.
pub struct EscalationCtx<'a> {
    pub issues: &'a crate::issues::IssueStore,
    /// The session artifact (its `issueId` is one context source).
    pub session: &'a Path,
    /// The explicit issue (`--issue-id`, or the request's issue in a run).
    pub issue_id: Option<&'a str>,
    /// `PREMATH_ACTIVE_ISSUE_ID`, then `PREMATH_ISSUE_ID`.
    pub env_issue_ids: [Option<String>; 2],
    /// A label for the note (`scope:`), e.g. `tusk` or a run id.
    pub scope: &'a str,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// The active issue, from the first source that names one: the explicit
/// issue, `PREMATH_ACTIVE_ISSUE_ID`, `PREMATH_ISSUE_ID`, the session
/// artifact's `issueId`, the ready frontier when it holds exactly one issue.
///
/// # Errors
/// `escalation_session_invalid`, `escalation_session_read_failed`,
/// `escalation_issue_context_ambiguous` (several ready issues),
/// `escalation_issue_context_unbound` (none).
pub fn active_issue(ctx: &EscalationCtx<'_>) -> Result<(String, &'static str), RetryError> {
    let named = |v: Option<&str>| {
        v.map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if let Some(id) = named(ctx.issue_id) {
        return Ok((id, "explicit"));
    }
    for (v, source) in ctx
        .env_issue_ids
        .iter()
        .zip(["PREMATH_ACTIVE_ISSUE_ID", "PREMATH_ISSUE_ID"])
    {
        if let Some(id) = named(v.as_deref()) {
            return Ok((id, source));
        }
    }
    match super::session::read(ctx.session) {
        Ok(Some(s)) => {
            if let Some(id) = named(s.issue_id.as_deref()) {
                return Ok((id, "session"));
            }
        }
        Ok(None) => {}
        Err(super::session::SessionError::Io { path, source }) => {
            return Err(fail(
                HarnessClass::EscalationSessionReadFailed.as_str(),
                format!("{path}: {source}"),
            ))
        }
        Err(e) => {
            return Err(fail(
                HarnessClass::EscalationSessionInvalid.as_str(),
                e.to_string(),
            ))
        }
    }
    let ids: Vec<String> = with_store(ctx, HarnessClass::EscalationIssueContextUnbound, |store| {
        let ready = crate::issues::views::ready_view(store, "", &Default::default(), ctx.now);
        ready.items.iter().map(|i| i.id.to_string()).collect()
    })?;
    match ids.as_slice() {
        [one] => Ok((one.clone(), "ready-frontier")),
        [] => Err(fail(
            HarnessClass::EscalationIssueContextUnbound.as_str(),
            "no issue is named (--issue-id, PREMATH_ACTIVE_ISSUE_ID, PREMATH_ISSUE_ID, the session) and none is ready",
        )),
        many => Err(fail(
            HarnessClass::EscalationIssueContextAmbiguous.as_str(),
            format!("no issue is named and {} are ready: {}", many.len(), many.join(", ")),
        )),
    }
}

/// `f` of the issue store as it is now; a store that cannot be read or
/// parsed fails with `class`.
fn with_store<T>(
    ctx: &EscalationCtx<'_>,
    class: HarnessClass,
    f: impl FnOnce(&crate::issues::store::Store<'_>) -> T,
) -> Result<T, RetryError> {
    ctx.issues
        .read(f)
        .map_err(|e| fail(class.as_str(), e.to_string()))
}

/// The escalation note, as the reference writes it.
fn note(policy: &RetryPolicy, d: &Decision, scope: &str) -> String {
    let classes = if d.failure_classes.is_empty() {
        "(none)".to_string()
    } else {
        d.failure_classes.join(", ")
    };
    [
        "[harness-escalation]".to_string(),
        format!("scope: {scope}"),
        format!("action: {}", d.escalation_action),
        format!("policyId: {}", policy.policy_id),
        format!("policyDigest: {}", policy.policy_digest),
        format!("ruleId: {}", d.rule_id),
        format!("matchedFailureClass: {}", d.matched_failure_class),
        format!("attempt: {}/{}", d.attempt, d.max_attempts),
        format!("failureClasses: {classes}"),
    ]
    .join("\n")
}

/// `mark_blocked`'s change: status blocked, and the note added to the
/// issue's notes unless they hold it already.
fn blocked_with_note(
    ctx: &EscalationCtx<'_>,
    issue: &str,
    text: &str,
) -> Result<crate::issues::mutate::IssueChanges, RetryError> {
    let shown = with_store(ctx, HarnessClass::EscalationIssueCommandFailed, |store| {
        crate::issues::views::show_payload(store, "", issue, ctx.now).into_value()
    })?;
    if shown["issue"].is_null() {
        return Err(fail(
            HarnessClass::EscalationIssueNotFound.as_str(),
            format!("no issue {issue}"),
        ));
    }
    let base = shown["issue"]["notes"]
        .as_str()
        .unwrap_or("")
        .trim()
        .to_string();
    let notes = if base.is_empty() {
        text.to_string()
    } else if base.contains(text.trim()) {
        base
    } else {
        format!("{base}\n\n{text}")
    };
    Ok(crate::issues::mutate::IssueChanges {
        status: Some("blocked".into()),
        notes: Some(notes),
        ..Default::default()
    })
}

/// Carries out the escalation `decision` names: `stop` changes nothing (and
/// resolves no issue); `issue_discover` files a follow-up discovered from the
/// active issue; `mark_blocked` sets the active issue blocked with the note
/// added to its notes.
///
/// # Errors
/// The context classes of [`active_issue`], `escalation_issue_command_failed`
/// (the store refused), `escalation_unknown_action`.
pub fn escalate(
    policy: &RetryPolicy,
    decision: &Decision,
    ctx: &EscalationCtx<'_>,
) -> Result<Value, RetryError> {
    let mut out = Escalation {
        schema: 1,
        kind: "premath.harness.escalation.v1",
        action: &decision.escalation_action,
        decision: decision.doc(),
        outcome: &decision.escalation_action,
        details: None,
        issue_id: None,
        issue_context: None,
        note: None,
        note_digest: None,
        created_issue_id: None,
    };
    if decision.escalation_action == "stop" {
        out.details = Some("terminal stop with no mutation");
        return Ok(crate::host::payload_json(&out));
    }
    if !matches!(
        decision.escalation_action.as_str(),
        "issue_discover" | "mark_blocked"
    ) {
        return Err(fail(
            HarnessClass::EscalationUnknownAction.as_str(),
            format!(
                "escalation action {:?} is not issue_discover, mark_blocked or stop",
                decision.escalation_action
            ),
        ));
    }
    let (issue, source) = active_issue(ctx)?;
    let text = note(policy, decision, ctx.scope);
    let mctx = crate::issues::mutate::MutationCtx::new(
        ctx.issues,
        crate::issues::LockOptions::default(),
        ctx.now,
    );
    let command_failed = |e: crate::issues::StoreError| {
        fail(
            HarnessClass::EscalationIssueCommandFailed.as_str(),
            e.to_string(),
        )
    };
    let report = if decision.escalation_action == "issue_discover" {
        let new = crate::issues::mutate::NewIssue {
            title: format!(
                "[HarnessEscalation] {} retry exhausted ({})",
                ctx.scope, decision.matched_failure_class
            ),
            description: Some(text.clone()),
            ..Default::default()
        };
        crate::issues::mutate::discover(&mctx, &issue, &new).map_err(command_failed)?
    } else {
        let changes = blocked_with_note(ctx, &issue, &text)?;
        crate::issues::mutate::update(&mctx, &issue, &changes).map_err(command_failed)?
    };
    if !report.failure_classes.is_empty() {
        return Err(fail(
            HarnessClass::EscalationIssueCommandFailed.as_str(),
            format!(
                "the issue store refused: {}",
                report.failure_classes.join(", ")
            ),
        ));
    }
    let payload = report.into_value();
    out.note_digest = Some(format!(
        "note1_{}",
        canonical::sha256_hex(
            canonical::to_canonical_string(&json!({"scope": ctx.scope, "note": text})).as_bytes()
        )
    ));
    out.issue_id = Some(issue);
    out.issue_context = Some(source);
    out.note = Some(text);
    if decision.escalation_action == "issue_discover" {
        out.created_issue_id = Some(payload["issue"]["id"].clone());
    }
    Ok(crate::host::payload_json(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_rule_kind_decides_as_the_table_says() {
        let p = RetryPolicy::builtin();
        let d = p.decide(&classes(&["scheme_eval.timeout"]), 1).unwrap();
        assert_eq!(
            (d.rule_id.as_str(), d.retry, d.max_attempts),
            ("transient_retry", true, 3)
        );
        assert_eq!(d.backoff_class, "exponential_short");
        let d = p.decide(&classes(&["scheme_eval.timeout"]), 3).unwrap();
        assert!(!d.retry);
        assert_eq!(d.escalation_action, "issue_discover");
        let d = p.decide(&classes(&["lease_contention_active"]), 1).unwrap();
        assert_eq!(
            (d.rule_id.as_str(), d.retry, d.backoff_class.as_str()),
            ("operational_retry", true, "fixed_short")
        );
        let d = p.decide(&classes(&["lease_contention_active"]), 2).unwrap();
        assert!(!d.retry);
        let d = p
            .decide(&classes(&["scheme_eval.invalid_program"]), 1)
            .unwrap();
        assert_eq!(
            (d.rule_id.as_str(), d.retry, d.escalation_action.as_str()),
            ("semantic_no_retry", false, "mark_blocked")
        );
        let d = p.decide(&classes(&["something_else"]), 1).unwrap();
        assert_eq!(
            (d.rule_id.as_str(), d.retry, d.escalation_action.as_str()),
            ("default", false, "stop")
        );
        assert_eq!(d.matched_failure_class, "something_else");
        // The first class that has a rule decides, in the given order.
        let d = p
            .decide(
                &classes(&[
                    "unknown_x",
                    "mutation.action_not_allowed",
                    "scheme_eval.timeout",
                ]),
                1,
            )
            .unwrap();
        assert_eq!(d.rule_id, "semantic_no_retry");
        assert_eq!(d.matched_failure_class, "mutation.action_not_allowed");
        assert_eq!(
            p.decide(&[], 0).unwrap_err().class,
            "retry_policy_invalid_shape"
        );
    }

    #[test]
    fn digests_are_checked_and_shapes_fail_closed() {
        let mut doc: Value = serde_json::from_str(BUILTIN).unwrap();
        doc["rules"][0]["maxAttempts"] = json!(5);
        assert_eq!(
            RetryPolicy::from_document(&doc).unwrap_err().class,
            "retry_policy_invalid_digest"
        );
        doc["policyDigest"] = json!(policy_digest(&doc));
        assert_eq!(
            RetryPolicy::from_document(&doc).unwrap().rules[0].max_attempts,
            5
        );
        let mut dup = doc.clone();
        dup["rules"][1]["failureClasses"] = dup["rules"][0]["failureClasses"].clone();
        dup["policyDigest"] = json!(policy_digest(&dup));
        assert_eq!(
            RetryPolicy::from_document(&dup).unwrap_err().class,
            "retry_policy_invalid_shape"
        );
    }
}

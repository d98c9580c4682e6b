//! `harness.escalate`: Carry out the escalation of a spent step: discover a follow-up issue, mark the issue blocked, or stop.

use super::*;
use crate::harness::HarnessClass;

/// An escalation once a step's attempts are spent.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EscalateArgs {
    pub failure_classes: Vec<String>,
    pub attempt: Option<i64>,
    /// The active issue (default: the request's issue, then the host's
    /// PREMATH_ACTIVE_ISSUE_ID / PREMATH_ISSUE_ID, the session's, the only ready one).
    pub issue_id: Option<String>,
}

/// The declaration of `harness.escalate`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "harness.escalate",
        kind: ActionKind::Mutation,
        description: "Carry out the escalation of a spent step: discover a follow-up issue, mark the issue blocked, or stop.",
        payload: payload_schema::<crate::harness::retry::Escalation<'static>>,
        failure_classes: crate::failure::class_list![
            HarnessClass::RetryPolicyInvalidShape.as_str(),
            HarnessClass::RetryPolicyInvalidDigest.as_str(),
            HarnessClass::EscalationIssueContextUnbound.as_str(),
            HarnessClass::EscalationIssueContextAmbiguous.as_str(),
            HarnessClass::EscalationSessionInvalid.as_str(),
            HarnessClass::EscalationSessionReadFailed.as_str(),
            HarnessClass::EscalationIssueNotFound.as_str(),
            HarnessClass::EscalationIssueCommandFailed.as_str(),
            HarnessClass::EscalationUnknownAction.as_str(),
        ],
        example: r#"(harness.escalate (hash "failureClasses" (list "scheme_eval.invalid_program") "issueId" "bd-1"))"#,
    },
    escalate,
)
}

fn escalate(ctx: &ActionContext<'_>, args: EscalateArgs) -> Result<ActionOutcome, ActionError> {
    use crate::harness::retry::{self, RetryPolicy};
    let decided = RetryPolicy::load(&ctx.paths.retry_policy).and_then(|p| {
        p.decide(&args.failure_classes, args.attempt.unwrap_or(1))
            .map(|d| (p, d))
    });
    let (policy, decision) = match decided {
        Ok(x) => x,
        Err(e) => return Ok(retry_outcome(e)),
    };
    let env = |k: &str| std::env::var(k).ok();
    let escalation = retry::EscalationCtx {
        issues: &ctx.paths.issues,
        session: &ctx.paths.session,
        issue_id: args.issue_id.as_deref().or(ctx.issue_id),
        env_issue_ids: [env("PREMATH_ACTIVE_ISSUE_ID"), env("PREMATH_ISSUE_ID")],
        scope: "tusk.scheme_eval",
        now: ctx.now,
    };
    Ok(match retry::escalate(&policy, &decision, &escalation) {
        Ok(v) => ActionOutcome::accepted(v),
        Err(e) => retry_outcome(e),
    })
}

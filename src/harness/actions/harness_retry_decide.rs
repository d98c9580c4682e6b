//! `harness.retry.decide`: The retry policy's decision for a failed attempt: rule, retry or not, backoff, escalation.

use super::*;
use crate::harness::HarnessClass;
use crate::host::HostClass;

/// A failed attempt of a step.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryArgs {
    /// The attempt's failure classes, in order (the first a rule lists decides).
    pub failure_classes: Vec<String>,
    /// The 1-based number of the attempt that just failed (default 1).
    pub attempt: Option<i64>,
}

/// The declaration of `harness.retry.decide`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "harness.retry.decide",
        kind: ActionKind::Read,
        description: "The retry policy's decision for a failed attempt: rule, retry or not, backoff, escalation.",
        payload: payload_schema::<crate::harness::retry::DecisionDoc<'static>>,
        failure_classes: crate::failure::class_list![
            HostClass::ArgsInvalid.as_str(),
            HarnessClass::RetryPolicyInvalidShape.as_str(),
            HarnessClass::RetryPolicyInvalidDigest.as_str(),
            HarnessClass::RetryPolicyInvalidJson.as_str(),
            HarnessClass::RetryPolicyIoError.as_str(),
        ],
        example: r#"(harness.retry.decide (hash "failureClasses" (list "scheme_eval.timeout") "attempt" 1))"#,
    },
    retry_decide,
)
}

fn retry_decide(ctx: &ActionContext<'_>, args: RetryArgs) -> Result<ActionOutcome, ActionError> {
    let policy = match crate::harness::retry::RetryPolicy::load(&ctx.paths.retry_policy) {
        Ok(p) => p,
        Err(e) => return Ok(retry_outcome(e)),
    };
    Ok(
        match policy.decide(&args.failure_classes, args.attempt.unwrap_or(1)) {
            Ok(d) => ActionOutcome::accepted(d.to_json()),
            Err(e) => retry_outcome(e),
        },
    )
}

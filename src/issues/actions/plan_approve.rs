//! `plan.approve`: Approve a plan the policy holds back, and apply it (an approver only).

use super::*;
use crate::issues::plan::{self, PlanClass};

/// `plan.approve`'s arguments.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanApproveArgs {
    /// The id of the plan to approve (`plan-…`, from the refusal's `planId`).
    pub plan_id: String,
}

/// The declaration of `plan.approve`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: plan::APPROVE_ACTION,
            kind: ActionKind::Mutation,
            description: "Approve a kept plan the policy holds back, and apply it: by an approver \
                          the policy names; recorded with both principals.",
            payload: accepted_schema::<plan::Applied>,
            failure_classes: classes!(
                PlanClass::Invalid.as_str(),
                PlanClass::Stale.as_str(),
                PlanClass::NotFound.as_str(),
                PlanClass::NotApprover.as_str()
            ),
            example: r#"(plan.approve (hash "planId" "plan-0000000000000000000000000000000000000000000000000000000000000000"))"#,
        },
        |ctx, a: PlanApproveArgs| {
            outcome(report(&mutation_ctx(ctx), a, plan::Applier::of(ctx, true)))
        },
    )
}

/// The approval, as the host action and `tusk plan approve` make it.
pub fn report(
    ctx: &MutationCtx<'_>,
    a: PlanApproveArgs,
    who: plan::Applier<'_>,
) -> Result<Report, StoreError> {
    let apply = super::plan_apply::PlanApplyArgs {
        plan_id: Some(a.plan_id),
        plan: None,
    };
    super::plan_apply::report(ctx, apply, who)
}

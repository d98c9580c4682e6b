//! `plan.apply`: Apply a dry run's plan: exactly its changes, when what it read still holds.

use super::*;
use crate::issues::plan::{self, PlanClass};

/// `plan.apply`'s arguments: a kept plan's id, or the plan itself.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanApplyArgs {
    /// The id of a plan a dry run kept (`plan-…`).
    pub plan_id: Option<String>,
    /// The plan itself (`tusk.plan.v1`, as `--plan-out` wrote it).
    pub plan: Option<Value>,
}

/// The declaration of `plan.apply`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: plan::APPLY_ACTION,
            kind: ActionKind::Mutation,
            description: "Apply a dry run's plan (its planId, or the plan): exactly its changes, \
                          when what the dry run read is unchanged.",
            payload: accepted_schema::<plan::Applied>,
            failure_classes: classes!(
                PlanClass::Invalid.as_str(),
                PlanClass::Stale.as_str(),
                PlanClass::NotFound.as_str(),
                PlanClass::ApprovalRequired.as_str()
            ),
            example: r#"(plan.apply (hash "planId" "plan-0000000000000000000000000000000000000000000000000000000000000000"))"#,
        },
        |ctx, a: PlanApplyArgs| {
            outcome(report(&mutation_ctx(ctx), a, plan::Applier::of(ctx, false)))
        },
    )
}

/// The application, as the host action and `tusk plan apply` make it.
pub fn report(
    ctx: &MutationCtx<'_>,
    a: PlanApplyArgs,
    who: plan::Applier<'_>,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let action = who.action();
    let reject =
        |class: PlanClass, why: String| Ok(Report::rejected(action, &path, &[class.as_str()], why));
    let found = match (a.plan, a.plan_id) {
        (Some(plan), None) => plan,
        (None, Some(id)) => match crate::issues::plan_store::find(ctx.store, &id) {
            Ok(Some(plan)) => plan,
            Ok(None) => {
                return reject(
                    PlanClass::NotFound,
                    format!(
                        "no kept plan {id:?} for this store (plans are kept 7 days); run the dry \
                         run again, or give the plan itself"
                    ),
                )
            }
            Err(e) => {
                return Err(StoreError::Io {
                    path,
                    source: std::io::Error::other(e),
                })
            }
        },
        _ => {
            return reject(
                PlanClass::Invalid,
                "give planId or plan, one of them".to_string(),
            )
        }
    };
    plan::apply(ctx, &found, who)
}

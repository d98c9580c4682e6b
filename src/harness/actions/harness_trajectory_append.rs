//! `harness.trajectory.append`: Append one step row (step id, action, result class, refs) to the trajectory.

use super::*;

/// One trajectory step row.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppendArgs {
    pub step_id: String,
    pub action: String,
    pub result_class: String,
    /// Defaults to the request's issue id.
    pub issue_id: Option<String>,
    pub instruction_refs: Option<Vec<String>>,
    pub witness_refs: Option<Vec<String>>,
    pub lineage_refs: Option<Vec<String>>,
    pub started_at: Option<String>,
    /// Defaults to now.
    pub finished_at: Option<String>,
}

/// The declaration of `harness.trajectory.append`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.trajectory.append",
            kind: ActionKind::Mutation,
            description:
                "Append one step row (step id, action, result class, refs) to the trajectory.",
            payload: payload_schema::<trajectory::AppendOutput>,
            failure_classes: TRAJECTORY,
            example: r#"(harness.trajectory.append (hash "stepId" "s1" "action" "worker.step" "resultClass" "accepted"))"#,
        },
        trajectory_append,
    )
}

fn trajectory_append(
    ctx: &ActionContext<'_>,
    args: AppendArgs,
) -> Result<ActionOutcome, ActionError> {
    let row = StepRow {
        step_id: args.step_id,
        action: args.action,
        result_class: args.result_class,
        finished_at: args
            .finished_at
            .unwrap_or_else(|| format_timestamp(ctx.now)),
        issue_id: args.issue_id.or_else(|| ctx.issue_id.map(str::to_string)),
        instruction_refs: args.instruction_refs.unwrap_or_default(),
        witness_refs: args.witness_refs.unwrap_or_default(),
        lineage_refs: args.lineage_refs.unwrap_or_default(),
        started_at: args.started_at,
    };
    match trajectory::append_to(&ctx.paths.trajectory, &row) {
        Ok(value) => Ok(ActionOutcome::accepted(append_output(
            ctx.paths.trajectory.path(),
            value,
        ))),
        Err(e @ TrajectoryError::InvalidRow { .. }) => Ok(args_invalid(e.to_string())),
        Err(e) => Err(trajectory_err(e)),
    }
}

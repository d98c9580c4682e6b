//! `harness.trajectory.query`: Trajectory step rows: the latest, the failed, or those needing a retry.

use super::*;

/// A projection of the trajectory.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueryArgs {
    /// `latest` (default), `failed` or `retry-needed`.
    pub mode: Option<String>,
    /// At most this many rows (default 20).
    pub limit: Option<u64>,
}

/// The declaration of `harness.trajectory.query`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.trajectory.query",
            kind: ActionKind::Read,
            description: "Trajectory step rows: the latest, the failed, or those needing a retry.",
            payload: payload_schema::<trajectory::QueryOutput>,
            failure_classes: TRAJECTORY,
            example: r#"(harness.trajectory.query (hash "mode" "failed" "limit" 5))"#,
        },
        trajectory_query,
    )
}

fn trajectory_query(
    ctx: &ActionContext<'_>,
    args: QueryArgs,
) -> Result<ActionOutcome, ActionError> {
    let mode_text = args.mode.as_deref().unwrap_or("latest");
    let Some(mode) = ProjectionMode::parse(mode_text) else {
        return Ok(args_invalid(format!(
            "mode: must be latest, failed or retry-needed, found {mode_text:?}"
        )));
    };
    let limit = match args.limit {
        None => trajectory::DEFAULT_LIMIT,
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let projection =
        trajectory::query_store(&ctx.paths.trajectory, mode, limit).map_err(trajectory_err)?;
    print_warnings(&projection.warnings);
    Ok(ActionOutcome::accepted(projection.value))
}

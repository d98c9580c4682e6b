//! `issue.close`: Close an issue (its lease ends).

use super::*;

/// Close an issue, optionally saying why.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloseArgs {
    pub id: String,
    /// Why it is closed (beads' `close_reason`).
    pub reason: Option<String>,
}

/// The declaration of `issue.close`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.close",
            kind: ActionKind::Mutation,
            description: "Close an issue (its lease ends).",
            payload: mutation_schema(false),
            failure_classes: classes!("issue.not_found", "issue.already_closed"),
            example: r#"(issue.close (hash "id" "bd-1" "reason" "fixed in 4f2a"))"#,
        },
        |ctx, a: CloseArgs| {
            outcome(mutate::close(
                &mutation_ctx(ctx),
                &a.id,
                a.reason.as_deref(),
            ))
        },
    )
}

//! `issue.reopen`: Open a closed issue again (its closed_at and close_reason go).

use super::*;

/// The declaration of `issue.reopen`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.reopen",
            kind: ActionKind::Mutation,
            description: "Open a closed issue again (its closed_at and close_reason go).",
            payload: mutation_schema(false),
            failure_classes: classes!("issue.not_found", "issue.not_closed"),
            example: r#"(issue.reopen (hash "id" "bd-1"))"#,
        },
        |ctx, a: IdArgs| outcome(crate::issues::tracker::reopen(&mutation_ctx(ctx), &a.id)),
    )
}

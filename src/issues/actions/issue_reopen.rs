//! `issue.reopen`: Open a closed issue again (its closed_at and close_reason go).

use super::*;
use crate::issues::IssueClass;

/// The declaration of `issue.reopen`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.reopen",
            kind: ActionKind::Mutation,
            description: "Open a closed issue again (its closed_at and close_reason go).",
            payload: accepted_schema::<crate::issues::payload::Changed<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::NotClosed.as_str()
            ),
            example: r#"(issue.reopen (hash "id" "bd-1"))"#,
        },
        |ctx, a: IdArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The reopening, as the host action and `tusk issue reopen` make it.
pub fn report(ctx: &MutationCtx<'_>, a: IdArgs) -> Result<Report, StoreError> {
    crate::issues::tracker::reopen(ctx, &a.id)
}

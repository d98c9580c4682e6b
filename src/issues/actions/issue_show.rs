//! `issue.show`: One issue with its dependencies and lease state.

use super::*;
use crate::issues::IssueClass;

/// The declaration of `issue.show`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.show",
            kind: ActionKind::Read,
            description: "One issue with its dependencies and lease state.",
            payload: payload_schema::<views::ShowPayload<'static>>,
            failure_classes: classes!(IssueClass::NotFound.as_str()),
            example: r#"(issue.show (hash "id" "bd-1"))"#,
        },
        |ctx, a: IdArgs| {
            outcome(read_view(ctx, |s, p| {
                views::show_payload(s, p, &a.id, ctx.now)
            }))
        },
    )
}

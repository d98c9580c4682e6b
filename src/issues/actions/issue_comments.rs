//! `issue.comments`: An issue's comments, in order.

use super::*;
use crate::issues::IssueClass;

/// The declaration of `issue.comments`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.comments",
            kind: ActionKind::Read,
            description: "An issue's comments, in order.",
            payload: accepted_schema::<crate::issues::tracker::Comments<'static>>,
            failure_classes: classes!(IssueClass::NotFound.as_str()),
            example: r#"(issue.comments (hash "id" "bd-1"))"#,
        },
        |ctx, a: IdArgs| {
            outcome(read_view(ctx, |s, p| {
                crate::issues::tracker::comments_payload(s, p, &a.id)
            }))
        },
    )
}

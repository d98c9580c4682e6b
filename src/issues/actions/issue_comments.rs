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
            // One issue's line (a read by index on a database).
            let path = path_of(ctx);
            outcome(
                ctx.paths
                    .issues
                    .read_scoped(crate::issues::footprint::Footprint::Issue(&a.id), |s| {
                        crate::issues::tracker::comments_payload(s, &path, &a.id)
                    }),
            )
        },
    )
}

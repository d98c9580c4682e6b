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
            // The issue and its blockers' lines (a read by index on a database).
            let path = path_of(ctx);
            outcome(ctx.paths.issues.read_scoped(
                crate::issues::footprint::Footprint::WithTargets(&a.id),
                |s| views::show_payload(s, &path, &a.id, ctx.now),
            ))
        },
    )
}

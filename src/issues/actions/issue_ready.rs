//! `issue.ready`: Open issues with no open blocker and no live lease: the work that can start now.

use super::*;
use crate::host::HostClass;

/// The declaration of `issue.ready`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.ready",
            kind: ActionKind::Read,
            description:
                "Open issues with no open blocker and no live lease: the work that can start now.",
            payload: payload_schema::<views::ListView<'static>>,
            failure_classes: classes!(HostClass::ArgsInvalid.as_str()),
            example: r#"(issue.ready (hash "filter" (hash "labels" (list "frontend"))))"#,
        },
        |ctx, a: FilterArgs| match checked(a.filter) {
            Ok(f) => outcome(read_view(ctx, |s, p| {
                views::ready_view(s, p, &f, ctx.now).into_report()
            })),
            Err(refused) => Ok(refused),
        },
    )
}

//! `issue.blocked`: Open issues waiting on an open blocker, with their blockers.

use super::*;
use crate::host::HostClass;

/// The declaration of `issue.blocked`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.blocked",
            kind: ActionKind::Read,
            description: "Open issues waiting on an open blocker, with their blockers.",
            payload: payload_schema::<views::ListView<'static>>,
            failure_classes: classes!(HostClass::ArgsInvalid.as_str()),
            example: "(issue.blocked)",
        },
        |ctx, a: FilterArgs| match checked(a.filter) {
            // On a database, the blocked lines and their targets' (a read by index).
            Ok(f) => match ctx.paths.issues.blocked_text(&f) {
                Ok(Some((text, only))) => outcome(read_view_of(ctx, Ok(Some(text)), |s, p| {
                    views::blocked_view_known(s, p, &f, ctx.now, &only).into_report()
                })),
                Ok(None) => outcome(read_view(ctx, |s, p| {
                    views::blocked_view(s, p, &f, ctx.now).into_report()
                })),
                Err(e) => outcome(Err(e)),
            },
            Err(refused) => Ok(refused),
        },
    )
}

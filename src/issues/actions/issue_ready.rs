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
            // On a database, just the ready lines (a read by index).
            Ok(f) => match ctx.paths.issues.ready_text(&f) {
                Ok(Some(text)) => {
                    let path = path_of(ctx);
                    outcome(
                        ctx.paths
                            .issues
                            .parse(&text)
                            .map(|s| views::ready_view_known(&s, &path, &f, ctx.now).into_report()),
                    )
                }
                Ok(None) => outcome(read_view(ctx, |s, p| {
                    views::ready_view(s, p, &f, ctx.now).into_report()
                })),
                Err(e) => outcome(Err(e)),
            },
            Err(refused) => Ok(refused),
        },
    )
}

//! `harness.session.read`: The persisted session handoff (summary, next step, issue, refs).

use super::*;

/// The declaration of `harness.session.read`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.session.read",
            kind: ActionKind::Read,
            description: "The persisted session handoff (summary, next step, issue, refs).",
            payload: session_schema(),
            failure_classes: &[
                "harness.session_missing",
                "harness.session_corrupt",
                "harness.io_error",
            ],
            example: "(harness.session.read)",
        },
        session_read,
    )
}

fn session_read(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    match session::read(&ctx.paths.session).map_err(session_err)? {
        Some(s) => Ok(ActionOutcome::accepted(s.to_json())),
        None => Ok(ActionOutcome::rejected(
            vec!["harness.session_missing".into()],
            format!("no session at {}", ctx.paths.session.display()),
        )),
    }
}

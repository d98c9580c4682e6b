//! `harness.session.read`: The persisted session handoff (summary, next step, issue, refs).

use super::*;
use crate::harness::HarnessClass;

/// The declaration of `harness.session.read`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.session.read",
            kind: ActionKind::Read,
            description: "The persisted session handoff (summary, next step, issue, refs).",
            payload: payload_schema::<session::SessionDoc<'static>>,
            failure_classes: crate::failure::class_list![
                HarnessClass::SessionMissing.as_str(),
                HarnessClass::SessionCorrupt.as_str(),
                HarnessClass::IoError.as_str(),
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
            vec![HarnessClass::SessionMissing.as_str().into()],
            format!("no session at {}", ctx.paths.session.display()),
        )),
    }
}

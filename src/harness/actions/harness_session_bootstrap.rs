//! `harness.session.bootstrap`: How to start this session: fresh, or resume from the persisted handoff and feature ledger.

use super::*;
use crate::harness::HarnessClass;

/// The declaration of `harness.session.bootstrap`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "harness.session.bootstrap",
        kind: ActionKind::Read,
        description: "How to start this session: fresh, or resume from the persisted handoff and feature ledger.",
        payload: payload_schema::<session::Bootstrap>,
        failure_classes: crate::failure::class_list![HarnessClass::SessionCorrupt.as_str(), HarnessClass::FeatureLedgerCorrupt.as_str(), HarnessClass::FeatureLedgerRejected.as_str(), HarnessClass::IoError.as_str()],
        example: "(harness.session.bootstrap)",
    },
    session_bootstrap,
)
}

fn session_bootstrap(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    session::bootstrap(&ctx.paths.session, &ctx.paths.feature_ledger)
        .map(|b| ActionOutcome::accepted(b.to_json()))
        .map_err(session_err)
}

//! `harness.session.bootstrap`: How to start this session: fresh, or resume from the persisted handoff and feature ledger.

use super::*;
use crate::harness::HarnessClass;

/// The declaration of `harness.session.bootstrap`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
    Declaration {
        id: "harness.session.bootstrap",
        kind: ActionKind::Read,
        description: "How to start this session: fresh, or resume from the persisted handoff and feature ledger.",
        // The reference's bootstrap: every member present, `null`
        // where the session or the ledger has none.
        payload: || object(
            &[
                ("action", string()),
                ("bootstrapKind", string()),
                ("mode", string()),
                ("sessionRef", string()),
                ("sessionId", nullable(string())),
                ("resumeIssueId", nullable(string())),
                ("issueId", nullable(string())),
                ("state", nullable(string())),
                ("summary", nullable(string())),
                ("nextStep", nullable(string())),
                ("instructionRefs", strings()),
                ("witnessRefs", strings()),
                ("lineageRefs", strings()),
                ("issuesPath", nullable(string())),
                ("issuesSnapshotRef", nullable(string())),
                ("featureLedgerRef", string()),
                ("nextFeatureId", nullable(string())),
                ("featureClosureComplete", nullable(boolean())),
                ("featureCount", nullable(integer())),
                ("startedAt", nullable(string())),
                ("updatedAt", nullable(string())),
                ("stoppedAt", nullable(string())),
            ],
            &["action", "bootstrapKind", "mode", "sessionRef", "featureLedgerRef"],
        ),
        failure_classes: crate::failure::class_list![HarnessClass::SessionCorrupt.as_str(), HarnessClass::FeatureLedgerCorrupt.as_str(), HarnessClass::FeatureLedgerRejected.as_str(), HarnessClass::IoError.as_str()],
        example: "(harness.session.bootstrap)",
    },
    session_bootstrap,
)
}

fn session_bootstrap(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    session::bootstrap(&ctx.paths.session, &ctx.paths.feature_ledger)
        .map(ActionOutcome::accepted)
        .map_err(session_err)
}

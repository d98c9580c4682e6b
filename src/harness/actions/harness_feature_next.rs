//! `harness.feature.next`: The next unfinished feature of the feature ledger (as `harness-feature next --json`).

use super::*;
use crate::harness::HarnessClass;

/// The declaration of `harness.feature.next`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "harness.feature.next",
        kind: ActionKind::Read,
        description: "The next unfinished feature of the feature ledger (as `harness-feature next --json`).",
        payload: payload_schema::<feature::NextOutput>,
        failure_classes: crate::failure::class_list![HarnessClass::FeatureLedgerRejected.as_str(), HarnessClass::FeatureLedgerCorrupt.as_str(), HarnessClass::IoError.as_str()],
        example: "(harness.feature.next)",
    },
    feature_next,
)
}

fn feature_next(ctx: &ActionContext<'_>, _: NoArgs) -> Result<ActionOutcome, ActionError> {
    let path = &ctx.paths.feature_ledger;
    match feature::project_next(path) {
        Ok(p) => Ok(ActionOutcome::accepted(feature::next_json(
            path,
            p.as_ref(),
        ))),
        Err(e @ FeatureError::Rejected { .. }) => Ok(ActionOutcome::rejected(
            vec![e.class().into()],
            format!(
                "failed to compute next feature from {}: {e}",
                path.display()
            ),
        )),
        Err(e) => Err(feature_err(e)),
    }
}

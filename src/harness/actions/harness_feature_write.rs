//! `harness.feature.write`: Create or update a feature ledger row (as `harness-feature write --json`).

use super::*;
use crate::harness::HarnessClass;
use crate::host::HostClass;

/// A feature ledger row to create or update (the flags of `harness-feature write`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FeatureWriteArgs {
    pub feature_id: String,
    /// `pending`, `in_progress`, `blocked` or `completed`.
    pub status: String,
    /// Issue linked to the feature ("" clears it; absent keeps it).
    pub issue_id: Option<String>,
    /// Compact summary ("" clears it; absent keeps it).
    pub summary: Option<String>,
    /// Session reference stored on the ledger ("" clears it; absent keeps it).
    pub session_ref: Option<String>,
    /// Replace the stored ones when any is non-blank.
    pub instruction_refs: Option<Vec<String>>,
    /// Replace the stored ones when any is non-blank.
    pub verification_refs: Option<Vec<String>>,
}

/// The declaration of `harness.feature.write`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.feature.write",
            kind: ActionKind::Mutation,
            description:
                "Create or update a feature ledger row (as `harness-feature write --json`).",
            payload: payload_schema::<feature::WriteOutput<'static>>,
            failure_classes: crate::failure::class_list![
                HostClass::ArgsInvalid.as_str(),
                HarnessClass::FeatureLedgerCorrupt.as_str(),
                HarnessClass::IoError.as_str(),
            ],
            example: r#"(harness.feature.write (hash "featureId" "f1" "status" "in_progress"))"#,
        },
        feature_write,
    )
}

fn feature_write(
    ctx: &ActionContext<'_>,
    args: FeatureWriteArgs,
) -> Result<ActionOutcome, ActionError> {
    if !feature::STATUSES.contains(&args.status.as_str()) {
        return Ok(args_invalid(format!(
            "status: must be pending, in_progress, blocked or completed, found {:?}",
            args.status
        )));
    }
    let req = FeatureWrite {
        feature_id: args.feature_id,
        status: args.status,
        issue_id: args.issue_id,
        summary: args.summary,
        session_ref: args.session_ref,
        instruction_refs: args.instruction_refs.unwrap_or_default(),
        verification_refs: args.verification_refs.unwrap_or_default(),
    };
    let path = &ctx.paths.feature_ledger;
    match feature::write(path, &req, ctx.now) {
        Ok((id, ledger)) => Ok(ActionOutcome::accepted(feature::write_json(
            path, &id, &ledger,
        ))),
        Err(e @ FeatureError::InvalidInput(_)) => Ok(args_invalid(e.to_string())),
        Err(e) => Err(feature_err(e)),
    }
}

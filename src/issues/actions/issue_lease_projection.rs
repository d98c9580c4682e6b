//! `issue.lease_projection`: Stale and contended leases (ids, counts) and every leased issue's lease state (premath's issue_lease_projection).

use super::*;

/// The projection covers the whole configured store, or what `filter` passes.
// One declaration for the host action (a `filter` object) and `tusk issue
// lease-projection` (the filter's flags, flattened).
#[derive(Debug, Deserialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaseProjectionArgs {
    /// Only issues this filter passes (labels all/any/none, types, priority range, …).
    #[command(flatten)]
    pub filter: Option<IssueFilter>,
}

/// The declaration of `issue.lease_projection`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.lease_projection",
        kind: ActionKind::Read,
        description: "Stale and contended leases (ids, counts) and every leased issue's lease state (premath's issue_lease_projection).",
        payload: payload_schema::<crate::issues::projection::LeaseProjectionPayload<'static>>,
        failure_classes: classes!(),
        example: "(issue.lease_projection)",
    },
    |ctx, a: LeaseProjectionArgs| {
        let filter = match checked(a.filter) {
            Ok(f) => f,
            Err(refused) => return Ok(refused),
        };
        let backend = crate::issues::projection::backend_name(&ctx.paths.issues);
        // On a database, just the lines that may hold a lease (a read by index).
        let text = ctx.paths.issues.leased_text();
        outcome(read_view_of(ctx, text, |s, p| {
            crate::issues::projection::lease_projection_payload(s, p, backend, &filter, ctx.now)
        }))
    },
)
}

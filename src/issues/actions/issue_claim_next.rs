//! `issue.claim_next`: Claim the first ready issue (priority, then id) that the optional filter passes, with a lease; claimed false when none is ready.

use super::*;
use crate::host::HostClass;
use crate::issues::IssueClass;

/// Claim the first ready issue (priority, then id) with a lease.
// One declaration for the host action (camelCase keys) and `tusk issue
// claim-next` (kebab-case flags, the filter's flattened).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimNextArgs {
    /// The worker taking or holding the lease.
    #[arg(long)]
    #[schemars(extend("x-actor" = "principal"))]
    pub assignee: String,
    /// Lease length, 30–86400 s (default 3600).
    #[arg(long)]
    pub lease_ttl_seconds: Option<i64>,
    /// Lease id to use or to match (default for a new lease: lease1_<issue>_<assignee>).
    #[arg(long)]
    pub lease_id: Option<String>,
    /// Claim only an issue this filter passes: a worker's routing.
    #[command(flatten)]
    pub filter: Option<IssueFilter>,
}

/// The declaration of `issue.claim_next`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.claim_next",
        kind: ActionKind::Mutation,
        description: "Claim the first ready issue (priority, then id) that the optional filter passes, with a lease; claimed false when none is ready.",
        payload: accepted_schema::<lease::ClaimedNext<'static>>,
        failure_classes: classes!(
            IssueClass::LeaseInvalidAssignee.as_str(), IssueClass::LeaseInvalidTtl.as_str(), IssueClass::LeaseBindingAmbiguous.as_str(),
            HostClass::ArgsInvalid.as_str(),
        ),
        example: r#"(issue.claim_next (hash "assignee" "agent.a"))"#,
    },
    |ctx, mut a: ClaimNextArgs| {
        let filter = match checked(a.filter.take()) {
            Ok(f) => f,
            Err(refused) => return Ok(refused),
        };
        outcome(report(&mutation_ctx(ctx), a, &filter))
    },
)
}

/// The claim, as the host action and `tusk issue claim-next` make it, once
/// [`ClaimNextArgs::filter`] is checked into `filter`.
pub fn report(
    ctx: &MutationCtx<'_>,
    a: ClaimNextArgs,
    filter: &IssueFilter,
) -> Result<Report, StoreError> {
    let req = lease_request(a.assignee, a.lease_id, a.lease_ttl_seconds, None);
    lease::claim_next(ctx, &req, filter)
}

//! `issue.lease_release`: Give back a lease: the issue returns to open, unassigned.

use super::*;
use crate::issues::IssueClass;

/// Give a lease back (the issue returns to open).
///
/// One declaration for the host action (camelCase keys) and the command line
/// (kebab-case flags).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseArgs {
    /// The leased issue.
    pub id: String,
    /// The worker holding the lease.
    #[arg(long)]
    #[schemars(extend("x-actor" = "principal"))]
    pub assignee: String,
    /// The lease id to match (default: whichever lease the worker holds).
    #[arg(long)]
    pub lease_id: Option<String>,
}

/// The declaration of `issue.lease_release`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.lease_release",
            kind: ActionKind::Mutation,
            description: "Give back a lease: the issue returns to open, unassigned.",
            payload: accepted_schema::<lease::Released<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::LeaseNotFound.as_str(),
                IssueClass::LeaseMissing.as_str(),
                IssueClass::LeaseStale.as_str(),
                IssueClass::LeaseOwnerMismatch.as_str(),
                IssueClass::LeaseIdMismatch.as_str(),
                IssueClass::LeaseInvalidAssignee.as_str(),
            ),
            example: r#"(issue.lease_release (hash "id" "bd-1" "assignee" "agent.a"))"#,
        },
        |ctx, a: ReleaseArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The release, as the host action and `tusk issue lease-release` make it.
pub fn report(ctx: &MutationCtx<'_>, a: ReleaseArgs) -> Result<Report, StoreError> {
    let req = lease_request(a.assignee, a.lease_id, None, None);
    lease::release(ctx, &a.id, &req)
}

//! `issue.lease_renew`: Extend the lease a worker holds on an issue.

use super::*;
use crate::issues::IssueClass;

/// Extend a held lease.
///
/// One declaration for the host action (camelCase keys) and the command line
/// (kebab-case flags).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenewArgs {
    /// The leased issue.
    pub id: String,
    /// The worker holding the lease.
    #[arg(long)]
    #[schemars(extend("x-actor" = "principal"))]
    pub assignee: String,
    /// The id of the lease being renewed (a program may leave it out: then
    /// the lease `assignee` holds; the command line names it, as premath's).
    #[arg(long, required = true)]
    pub lease_id: Option<String>,
    /// Lease length, 30–86400 s (default 3600).
    #[arg(long)]
    pub lease_ttl_seconds: Option<i64>,
    /// Explicit lease expiry (RFC 3339, in the future); excludes the lease length.
    #[arg(long)]
    pub lease_expires_at: Option<String>,
}

/// The declaration of `issue.lease_renew`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.lease_renew",
            kind: ActionKind::Mutation,
            description: "Extend the lease a worker holds on an issue.",
            payload: accepted_schema::<lease::Renewed<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::LeaseNotFound.as_str(),
                IssueClass::LeaseMissing.as_str(),
                IssueClass::LeaseStale.as_str(),
                IssueClass::LeaseOwnerMismatch.as_str(),
                IssueClass::LeaseIdMismatch.as_str(),
                IssueClass::LeaseInvalidAssignee.as_str(),
                IssueClass::LeaseInvalidTtl.as_str(),
                IssueClass::LeaseInvalidExpiresAt.as_str(),
                IssueClass::LeaseBindingAmbiguous.as_str(),
            ),
            example: r#"(issue.lease_renew (hash "id" "bd-1" "assignee" "agent.a" "leaseId" "lease1_bd-1_agent.a"))"#,
        },
        |ctx, a: RenewArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The renewal, as the host action and `tusk issue lease-renew` make it.
pub fn report(ctx: &MutationCtx<'_>, a: RenewArgs) -> Result<Report, StoreError> {
    let req = lease_request(
        a.assignee,
        a.lease_id,
        a.lease_ttl_seconds,
        a.lease_expires_at,
    );
    lease::renew(ctx, &a.id, &req)
}

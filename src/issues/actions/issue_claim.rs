//! `issue.claim`: Claim an issue for a worker with a lease (in_progress, assignee set).

use super::*;
use crate::issues::IssueClass;

/// Claim one issue with a lease.
///
/// One declaration for the host action (camelCase keys) and `tusk issue claim`
/// (kebab-case flags).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimArgs {
    /// The issue to claim.
    pub id: String,
    /// The worker taking or holding the lease.
    #[arg(long)]
    #[schemars(extend("x-actor" = "principal"))]
    pub assignee: String,
    /// Lease length, 30–86400 s (default 3600).
    #[arg(long)]
    pub lease_ttl_seconds: Option<i64>,
    /// Explicit lease expiry (RFC 3339, in the future); excludes the lease length.
    #[arg(long)]
    pub lease_expires_at: Option<String>,
    /// Lease id to use or to match (default for a new lease: `lease1_<issue>_<assignee>`).
    #[arg(long)]
    pub lease_id: Option<String>,
    /// Refuse (`issue.not_ready`) an issue that waits on an open blocker; by
    /// default the claim is taken with a warning, as premath does.
    #[arg(long)]
    #[serde(default)]
    pub respect_blockers: bool,
}

/// The declaration of `issue.claim`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.claim",
            kind: ActionKind::Mutation,
            description: "Claim an issue for a worker with a lease (in_progress, assignee set).",
            payload: accepted_schema::<lease::Claimed<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::LeaseNotFound.as_str(),
                IssueClass::NotReady.as_str(),
                IssueClass::LeaseIssueClosed.as_str(),
                IssueClass::LeaseContentionActive.as_str(),
                IssueClass::LeaseIdMismatch.as_str(),
                IssueClass::LeaseInvalidAssignee.as_str(),
                IssueClass::LeaseInvalidTtl.as_str(),
                IssueClass::LeaseInvalidExpiresAt.as_str(),
                IssueClass::LeaseBindingAmbiguous.as_str(),
            ),
            example: r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a" "leaseTtlSeconds" 1800))"#,
        },
        |ctx, a: ClaimArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The claim, as the host action and `tusk issue claim` make it.
pub fn report(ctx: &MutationCtx<'_>, a: ClaimArgs) -> Result<Report, StoreError> {
    let req = lease_request(
        a.assignee,
        a.lease_id,
        a.lease_ttl_seconds,
        a.lease_expires_at,
    );
    let blockers = if a.respect_blockers {
        lease::Blockers::Respect
    } else {
        lease::Blockers::Warn
    };
    lease::claim(ctx, &a.id, &req, blockers)
}

//! `issue.claim_next`: Claim the first ready issue (priority, then id) that the optional filter passes, with a lease; claimed false when none is ready.

use super::*;
use crate::host::HostClass;
use crate::issues::IssueClass;

/// Claim the first ready issue (priority, then id) with a lease.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimNextArgs {
    pub assignee: String,
    pub lease_ttl_seconds: Option<i64>,
    pub lease_id: Option<String>,
    /// Claim only an issue this filter passes: a worker's routing.
    pub filter: Option<IssueFilter>,
}

/// The declaration of `issue.claim_next`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
    Declaration {
        id: "issue.claim_next",
        kind: ActionKind::Mutation,
        description: "Claim the first ready issue (priority, then id) that the optional filter passes, with a lease; claimed false when none is ready.",
        payload: || object(
            &[
                ("action", string()),
                ("issuesPath", string()),
                ("claimed", boolean()),
                ("issue", nullable(lease_summary_schema())),
                ("staleLeaseCleared", boolean()),
            ],
            &["action"],
        ),
        failure_classes: classes!(
            IssueClass::LeaseInvalidAssignee.as_str(), IssueClass::LeaseInvalidTtl.as_str(), IssueClass::LeaseBindingAmbiguous.as_str(),
            HostClass::ArgsInvalid.as_str(),
        ),
        example: r#"(issue.claim_next (hash "assignee" "agent.a"))"#,
    },
    |ctx, a: ClaimNextArgs| {
        let filter = match checked(a.filter) {
            Ok(f) => f,
            Err(refused) => return Ok(refused),
        };
        let req = lease_request(a.assignee, a.lease_id, a.lease_ttl_seconds, None);
        outcome(lease::claim_next(&mutation_ctx(ctx), &req, &filter))
    },
)
}

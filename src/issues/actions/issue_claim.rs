//! `issue.claim`: Claim an issue for a worker with a lease (in_progress, assignee set).

use super::*;

/// Claim one issue with a lease.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimArgs {
    pub id: String,
    /// The worker claiming it.
    pub assignee: String,
    /// Lease length (default 3600).
    pub lease_ttl_seconds: Option<i64>,
    /// An explicit expiry instead of a length (RFC 3339).
    pub lease_expires_at: Option<String>,
    /// An explicit lease id (default `lease1_<id>_<assignee>`).
    pub lease_id: Option<String>,
}

/// The declaration of `issue.claim`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
        Declaration {
            id: "issue.claim",
            kind: ActionKind::Mutation,
            description: "Claim an issue for a worker with a lease (in_progress, assignee set).",
            payload: object(
                &[
                    ("action", string()),
                    ("issuesPath", string()),
                    ("issue", lease_summary_schema()),
                    ("staleLeaseCleared", boolean()),
                ],
                &["action"],
            ),
            failure_classes: classes!(
                "lease_not_found",
                "lease_issue_closed",
                "lease_contention_active",
                "lease_id_mismatch",
                "lease_invalid_assignee",
                "lease_invalid_ttl",
                "lease_invalid_expires_at",
                "lease_binding_ambiguous",
            ),
            example: r#"(issue.claim (hash "id" "bd-1" "assignee" "agent.a" "leaseTtlSeconds" 1800))"#,
        },
        |ctx, a: ClaimArgs| {
            let req = lease_request(
                a.assignee,
                a.lease_id,
                a.lease_ttl_seconds,
                a.lease_expires_at,
            );
            outcome(lease::claim(&mutation_ctx(ctx), &a.id, &req))
        },
    )
}

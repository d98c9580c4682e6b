//! `issue.lease_renew`: Extend the lease a worker holds on an issue.

use super::*;

/// Extend a held lease.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenewArgs {
    pub id: String,
    pub assignee: String,
    pub lease_id: String,
    pub lease_ttl_seconds: Option<i64>,
    pub lease_expires_at: Option<String>,
}

/// The declaration of `issue.lease_renew`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.lease_renew",
            kind: ActionKind::Mutation,
            description: "Extend the lease a worker holds on an issue.",
            payload: mutation_schema(true),
            failure_classes: classes!(
                "lease_not_found",
                "lease_missing",
                "lease_stale",
                "lease_owner_mismatch",
                "lease_id_mismatch",
                "lease_invalid_assignee",
                "lease_invalid_ttl",
                "lease_invalid_expires_at",
                "lease_binding_ambiguous",
            ),
            example: r#"(issue.lease_renew (hash "id" "bd-1" "assignee" "agent.a" "leaseId" "lease1_bd-1_agent.a"))"#,
        },
        |ctx, a: RenewArgs| {
            let req = lease_request(
                a.assignee,
                Some(a.lease_id),
                a.lease_ttl_seconds,
                a.lease_expires_at,
            );
            outcome(lease::renew(&mutation_ctx(ctx), &a.id, &req))
        },
    )
}

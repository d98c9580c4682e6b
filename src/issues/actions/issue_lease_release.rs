//! `issue.lease_release`: Give back a lease: the issue returns to open, unassigned.

use super::*;

/// Give a lease back (the issue returns to open).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseArgs {
    pub id: String,
    pub assignee: String,
    pub lease_id: Option<String>,
}

/// The declaration of `issue.lease_release`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.lease_release",
            kind: ActionKind::Mutation,
            description: "Give back a lease: the issue returns to open, unassigned.",
            payload: mutation_schema(true),
            failure_classes: classes!(
                "lease_not_found",
                "lease_missing",
                "lease_stale",
                "lease_owner_mismatch",
                "lease_id_mismatch",
                "lease_invalid_assignee",
            ),
            example: r#"(issue.lease_release (hash "id" "bd-1" "assignee" "agent.a"))"#,
        },
        |ctx, a: ReleaseArgs| {
            let req = lease_request(a.assignee, a.lease_id, None, None);
            outcome(lease::release(&mutation_ctx(ctx), &a.id, &req))
        },
    )
}

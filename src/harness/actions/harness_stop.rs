//! `harness.stop`: Stop a step: release, renew or keep the lease, persist the stopped session, append the stop row with handoff and lineage refs.

use super::*;

/// Stop a worker's step with a handoff.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopArgs {
    pub issue_id: String,
    pub worker_id: String,
    pub summary: String,
    pub next_step: String,
    /// `release`, `renew` or `keep`.
    pub lease: String,
    /// The renewed lease's length (renew only).
    pub lease_ttl_seconds: Option<i64>,
}

/// The declaration of `harness.stop`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
    Declaration {
        id: "harness.stop",
        kind: ActionKind::Mutation,
        description: "Stop a step: release, renew or keep the lease, persist the stopped session, append the stop row with handoff and lineage refs.",
        payload: object(
            &[
                ("issueId", string()),
                ("lease", any()),
                ("leaseRef", string()),
                ("lineageRefs", strings()),
                ("stepId", string()),
                ("session", any()),
            ],
            &["issueId", "leaseRef"],
        ),
        failure_classes: &[
            "host.args_invalid", "issue.not_found", "lease_not_found", "lease_missing",
            "lease_stale", "lease_owner_mismatch", "lease_id_mismatch",
            "harness.session_corrupt", "harness.io_error",
        ],
        example: r#"(harness.stop (hash "issueId" "bd-1" "workerId" "agent.a" "summary" "parser done" "nextStep" "lexer" "lease" "release"))"#,
    },
    |ctx, a: StopArgs| {
        crate::harness::hooks::stop(ctx, &a.issue_id, &a.worker_id, &a.summary, &a.next_step, &a.lease, a.lease_ttl_seconds)
    },
)
}

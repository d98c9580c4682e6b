//! `harness.stop`: Stop a step: release, renew or keep the lease, persist the stopped session, append the stop row with handoff and lineage refs.

use super::*;
use crate::harness::HarnessClass;
use crate::host::HostClass;
use crate::issues::IssueClass;

/// Stop a worker's step with a handoff.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopArgs {
    pub issue_id: String,
    #[schemars(extend("x-actor" = "principal"))]
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
    declare(
    Declaration {
        id: "harness.stop",
        kind: ActionKind::Mutation,
        description: "Stop a step: release, renew or keep the lease, persist the stopped session, append the stop row with handoff and lineage refs.",
        payload: payload_schema::<crate::harness::hooks::Stopped<'static>>,
        failure_classes: crate::failure::class_list![
            HostClass::ArgsInvalid.as_str(), IssueClass::NotFound.as_str(), IssueClass::LeaseNotFound.as_str(), IssueClass::LeaseMissing.as_str(),
            IssueClass::LeaseStale.as_str(), IssueClass::LeaseOwnerMismatch.as_str(), IssueClass::LeaseIdMismatch.as_str(),
            HarnessClass::SessionCorrupt.as_str(), HarnessClass::IoError.as_str(),
        ],
        example: r#"(harness.stop (hash "issueId" "bd-1" "workerId" "agent.a" "summary" "parser done" "nextStep" "lexer" "lease" "release"))"#,
    },
    |ctx, a: StopArgs| {
        crate::harness::hooks::stop(ctx, &a.issue_id, &a.worker_id, &a.summary, &a.next_step, &a.lease, a.lease_ttl_seconds)
    },
)
}

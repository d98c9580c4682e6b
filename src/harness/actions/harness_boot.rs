//! `harness.boot`: Boot a step: memory roots, dependency diagnostics, session bootstrap, leases that concern this worker, the next target.

use super::*;
use crate::harness::HarnessClass;
use crate::issues::IssueClass;

/// Boot a worker's step.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootArgs {
    /// Leases assigned to this worker are reported.
    #[schemars(extend("x-actor" = "principal"))]
    pub worker_id: Option<String>,
    /// This issue's lease is reported.
    pub issue_id: Option<String>,
}

/// The declaration of `harness.boot`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "harness.boot",
        kind: ActionKind::Read,
        description: "Boot a step: memory roots, dependency diagnostics, session bootstrap, leases that concern this worker, the next target.",
        payload: payload_schema::<crate::harness::hooks::Booted<'static>>,
        failure_classes: crate::failure::class_list![IssueClass::MemoryStoreCorrupt.as_str(), IssueClass::MemoryIoError.as_str(), HarnessClass::SessionCorrupt.as_str(), HarnessClass::FeatureLedgerCorrupt.as_str(), HarnessClass::FeatureLedgerRejected.as_str(), HarnessClass::IoError.as_str()],
        example: r#"(harness.boot (hash "workerId" "agent.a"))"#,
    },
    |ctx, a: BootArgs| crate::harness::hooks::boot(ctx, a.worker_id.as_deref(), a.issue_id.as_deref()),
)
}

//! `harness.boot`: Boot a step: memory roots, dependency diagnostics, session bootstrap, leases that concern this worker, the next target.

use super::*;

/// Boot a worker's step.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootArgs {
    /// Leases assigned to this worker are reported.
    pub worker_id: Option<String>,
    /// This issue's lease is reported.
    pub issue_id: Option<String>,
}

/// The declaration of `harness.boot`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
    Declaration {
        id: "harness.boot",
        kind: ActionKind::Read,
        description: "Boot a step: memory roots, dependency diagnostics, session bootstrap, leases that concern this worker, the next target.",
        payload: object(
            &[
                ("roots", any()),
                ("diagnostics", any()),
                ("session", any()),
                ("leases", array(any())),
                ("next", any()),
            ],
            &["roots", "session", "leases"],
        ),
        failure_classes: &["memory.store_corrupt", "memory.io_error", "harness.session_corrupt", "harness.feature_ledger_corrupt", "harness.feature_ledger_rejected", "harness.io_error"],
        example: r#"(harness.boot (hash "workerId" "agent.a"))"#,
    },
    |ctx, a: BootArgs| crate::harness::hooks::boot(ctx, a.worker_id.as_deref(), a.issue_id.as_deref()),
)
}

//! `dep.diagnostics`: Dependency cycles (premath's integrity, every edge type), blocking cycles and dangling edges, over active or all issues.

use super::*;
use crate::issues::IssueClass;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiagnosticsArgs {
    /// `active` (open or in_progress issues, the default) or `full` (`all` is accepted too).
    pub graph_scope: Option<String>,
}

/// The declaration of `dep.diagnostics`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "dep.diagnostics",
        kind: ActionKind::Read,
        description: "Dependency cycles (premath's integrity, every edge type), blocking cycles and dangling edges, over active or all issues.",
        payload: payload_schema::<views::DiagnosticsPayload<'static>>,
        failure_classes: classes!(IssueClass::DepInvalidScope.as_str()),
        example: r#"(dep.diagnostics (hash "graphScope" "full"))"#,
    },
    |ctx, a: DiagnosticsArgs| {
        let scope_text = a.graph_scope.unwrap_or_else(|| "active".into());
        let Some(scope) = Scope::parse(&scope_text) else {
            let diag = format!("graph scope {scope_text:?} is not `active` or `full`");
            return outcome(Ok(Report::rejected(
                "dep.diagnostics",
                &path_of(ctx),
                &[IssueClass::DepInvalidScope.as_str()],
                diag,
            )));
        };
        outcome(read_view(ctx, |s, p| views::diagnostics_payload(s, p, scope)))
    },
)
}

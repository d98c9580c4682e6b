//! `issue.check`: Check the store's content rules (ids, titles, statuses, dependencies); warnings and errors.

use super::*;

/// Options of the store check.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckArgs {
    /// Notes longer than this many characters draw a warning (default 2000).
    pub note_warn_threshold: Option<usize>,
}

/// The declaration of `issue.check`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.check",
        kind: ActionKind::Read,
        description: "Check the store's content rules (ids, titles, statuses, dependencies); warnings and errors.",
        payload: report_schema,
        // The graph's errors are the envelope's classes (`views::check_payload`).
        failure_classes: classes!(
            IssueClass::GraphDuplicateId.as_str(),
            IssueClass::GraphSelfLoop.as_str(),
            IssueClass::GraphDanglingDependency.as_str(),
            IssueClass::GraphCycle.as_str(),
            IssueClass::GraphEpicMismatch.as_str(),
            IssueClass::GraphAcceptanceMissing.as_str(),
            IssueClass::GraphVerificationCommandMissing.as_str(),
        ),
        example: "(issue.check)",
    },
    |ctx, a: CheckArgs| {
        let threshold = a.note_warn_threshold.unwrap_or(views::NOTES_WARN_CHARS);
        outcome(read_view(ctx, |s, p| views::check_payload(s, p, ctx.now, threshold)))
    },
)
}

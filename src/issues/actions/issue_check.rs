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
        payload: report_schema(),
        failure_classes: classes!(),
        example: "(issue.check)",
    },
    |ctx, a: CheckArgs| {
        let threshold = a.note_warn_threshold.unwrap_or(views::NOTES_WARN_CHARS);
        outcome(read_view(ctx, |s, p| views::check_payload(s, p, ctx.now, threshold)))
    },
)
}

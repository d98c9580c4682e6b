//! `issue.list`: List issues, filtered by status, assignee, type, label or priority; ordered by priority, then id.

use super::*;
use crate::host::HostClass;

/// Filters of `issue.list` (all optional, combined with and).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArgs {
    /// open, in_progress, blocked, deferred or closed.
    pub status: Option<String>,
    pub assignee: Option<String>,
    /// task, bug, feature, epic or chore.
    pub issue_type: Option<String>,
    /// Issues carrying this label.
    pub label: Option<String>,
    /// 0 (highest) to 4.
    pub priority: Option<i64>,
    /// The routing filter (labels all/any/none, types, priority range, …).
    pub filter: Option<IssueFilter>,
}

/// The declaration of `issue.list`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.list",
        kind: ActionKind::Read,
        description: "List issues, filtered by status, assignee, type, label or priority; ordered by priority, then id.",
        payload: listing_schema,
        failure_classes: classes!(HostClass::ArgsInvalid.as_str()),
        example: r#"(issue.list (hash "status" "open"))"#,
    },
    |ctx, a: ListArgs| {
        let routing = match checked(a.filter) {
            Ok(f) => f,
            Err(refused) => return Ok(refused),
        };
        let filter = ListFilter {
            status: a.status,
            assignee: a.assignee,
            issue_type: a.issue_type,
            label: a.label,
            priority: a.priority,
            filter: routing,
        };
        outcome(read_view(ctx, |s, p| views::list_payload(s, p, &filter, ctx.now)))
    },
)
}

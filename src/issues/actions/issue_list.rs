//! `issue.list`: List issues, filtered by status, assignee, type, label or priority; ordered by priority, then id.

use super::*;
use crate::host::HostClass;

/// Filters of `issue.list` (all optional, combined with and).
// One declaration for the host action (camelCase keys) and `tusk issue list`
// (kebab-case flags). Every flag has a help line (premath's `--status`,
// `--assignee` and `--priority` had none; issue 60), and `--issue-type`
// keeps premath's help; `label` has no flag (the command's `--label` is the
// routing filter's, repeatable).
#[derive(Debug, Deserialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArgs {
    #[schemars(description = "open, in_progress, blocked, deferred or closed.")]
    #[arg(
        long,
        help = "Only issues with this status (open, in_progress, blocked, deferred, closed, or one the store's config.json declares)"
    )]
    pub status: Option<String>,
    #[arg(long, help = "Only issues assigned to this name")]
    pub assignee: Option<String>,
    /// task, bug, feature, epic or chore.
    #[arg(
        long,
        help = "Only issues of this type (`--type` repeats: any of them)"
    )]
    pub issue_type: Option<String>,
    /// Issues carrying this label.
    #[arg(skip)]
    pub label: Option<String>,
    #[schemars(description = "0 (highest) to 4.")]
    #[arg(long, help = "Only issues of this priority, 0 (highest) to 4")]
    pub priority: Option<i64>,
    /// The routing filter (labels all/any/none, types, priority range, …).
    #[command(flatten)]
    pub filter: Option<IssueFilter>,
}

impl ListArgs {
    /// The view's filter, `routing` being [`ListArgs::filter`] checked.
    pub fn list_filter(self, routing: IssueFilter) -> ListFilter {
        ListFilter {
            status: self.status,
            assignee: self.assignee,
            issue_type: self.issue_type,
            label: self.label,
            priority: self.priority,
            filter: routing,
        }
    }
}

/// The declaration of `issue.list`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.list",
        kind: ActionKind::Read,
        description: "List issues, filtered by status, assignee, type, label or priority; ordered by priority, then id.",
        payload: payload_schema::<views::ListView<'static>>,
        failure_classes: classes!(
            HostClass::ArgsInvalid.as_str(),
            crate::issues::IssueClass::InvalidStatus.as_str()
        ),
        example: r#"(issue.list (hash "status" "open"))"#,
    },
    |ctx, mut a: ListArgs| {
        let routing = match checked(a.filter.take()) {
            Ok(f) => f,
            Err(refused) => return Ok(refused),
        };
        // A status no issue can have lists nothing: refused, with the ones there are.
        if let Some(Err((class, diagnostic))) = a
            .status
            .as_deref()
            .map(|s| crate::issues::mutate::check_status(&ctx.paths.issues, s))
        {
            return outcome(Ok(Report::rejected("issue.list", &path_of(ctx), &[class], diagnostic)));
        }
        let filter = a.list_filter(routing);
        // On a database, just the lines that may be listed (a read by index).
        let text = ctx.paths.issues.list_text(&filter);
        outcome(read_view_of(ctx, text, |s, p| {
            views::list_view(s, p, &filter, ctx.now).into_report()
        }))
    },
)
}

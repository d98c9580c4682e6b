//! `dep.project`: Every dependency edge with its role in a view (execution, gtd, groupoid) and premath's integrity over all issues.

use super::*;
use crate::issues::IssueClass;

/// The view of `dep.project`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectArgs {
    /// `execution` (the default), `gtd` or `groupoid`.
    pub view: Option<String>,
}

/// The declaration of `dep.project`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "dep.project",
        kind: ActionKind::Read,
        description: "Every dependency edge with its role in a view (execution, gtd, groupoid) and premath's integrity over all issues.",
        payload: payload_schema::<views::ProjectPayload<'static>>,
        failure_classes: classes!(IssueClass::DepInvalidView.as_str()),
        example: r#"(dep.project (hash "view" "gtd"))"#,
    },
    |ctx, a: ProjectArgs| {
        let view_text = a.view.unwrap_or_else(|| "execution".into());
        let Some(view) = views::DepView::parse(&view_text) else {
            let diag = format!("view {view_text:?} is not `execution`, `gtd` or `groupoid`");
            return outcome(Ok(Report::rejected(
                "dep.project",
                &path_of(ctx),
                &[IssueClass::DepInvalidView.as_str()],
                diag,
            )));
        };
        outcome(read_view(ctx, |s, p| views::project_payload(s, p, view)))
    },
)
}

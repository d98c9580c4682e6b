//! `issue.label`: Add and remove labels (added at the end, once each); the issue's labels after.

use super::*;
use crate::issues::IssueClass;

/// Labels to add and to remove.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelArgs {
    pub id: String,
    #[serde(default)]
    pub add: Vec<String>,
    #[serde(default)]
    pub remove: Vec<String>,
}

/// The declaration of `issue.label`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
        Declaration {
            id: "issue.label",
            kind: ActionKind::Mutation,
            description:
                "Add and remove labels (added at the end, once each); the issue's labels after.",
            payload: || {
                object(
                    &[
                        ("action", string()),
                        ("issuesPath", string()),
                        ("id", string()),
                        ("labels", strings()),
                        ("changed", boolean()),
                        ("issue", issue_schema()),
                    ],
                    &["action"],
                )
            },
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::InvalidLabel.as_str()
            ),
            example: r#"(issue.label (hash "id" "bd-1" "add" (list "review") "remove" (list "triage")))"#,
        },
        |ctx, a: LabelArgs| {
            outcome(crate::issues::tracker::label(
                &mutation_ctx(ctx),
                &a.id,
                &a.add,
                &a.remove,
            ))
        },
    )
}

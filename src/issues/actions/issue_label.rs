//! `issue.label`: Add and remove labels (added at the end, once each); the issue's labels after.

use super::*;
use crate::issues::IssueClass;

/// Labels to add and to remove.
// Not a command's flags: the command line says `issue label add ID LABEL…`
// or `issue label remove ID LABEL…` (premath's subcommands, the labels
// positional), a shape these keys cannot have; the commands build this.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema)]
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
    declare(
        Declaration {
            id: "issue.label",
            kind: ActionKind::Mutation,
            description:
                "Add and remove labels (added at the end, once each); the issue's labels after.",
            payload: accepted_schema::<crate::issues::tracker::Labelled<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::InvalidLabel.as_str()
            ),
            example: r#"(issue.label (hash "id" "bd-1" "add" (list "review") "remove" (list "triage")))"#,
        },
        |ctx, a: LabelArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The change, as the host action and `tusk issue label add|remove` make it.
pub fn report(ctx: &MutationCtx<'_>, a: LabelArgs) -> Result<Report, StoreError> {
    crate::issues::tracker::label(ctx, &a.id, &a.add, &a.remove)
}

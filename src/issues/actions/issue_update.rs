//! `issue.update`: Change fields of an issue (status, priority, assignee, notes, …).

use super::*;
use crate::issues::IssueClass;

crate::issues::fields::issue_fields! {
    /// The fields to change; at least one.
    #[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct UpdateArgs {
        /// The issue to change.
        pub id: String,
        /// A new title.
        #[arg(long)]
        pub title: Option<String>,
    }
}

impl UpdateArgs {
    /// The issue and what changes.
    pub fn split(self) -> (String, IssueChanges) {
        let changes = crate::issues::fields::issue_fields!(move self into IssueChanges {
            title: self.title,
        });
        (self.id, changes)
    }
}

/// The declaration of `issue.update`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.update",
            kind: ActionKind::Mutation,
            description: "Change fields of an issue (status, priority, assignee, notes, …).",
            payload: accepted_schema::<mutate::Updated<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::UpdateEmpty.as_str(),
                IssueClass::InvalidTitle.as_str(),
                IssueClass::InvalidStatus.as_str(),
                IssueClass::InvalidPriority.as_str(),
                IssueClass::InvalidType.as_str(),
                IssueClass::InvalidLabel.as_str(),
            ),
            example: r#"(issue.update (hash "id" "bd-1" "notes" "parser done"))"#,
        },
        |ctx, a: UpdateArgs| {
            let (id, changes) = a.split();
            outcome(mutate::update(&mutation_ctx(ctx), &id, &changes))
        },
    )
}

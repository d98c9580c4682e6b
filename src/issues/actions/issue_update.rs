//! `issue.update`: Change fields of an issue (status, priority, assignee, notes, …).

use super::*;

crate::issues::fields::issue_fields! {
    /// The fields to change; at least one.
    #[derive(Debug, Deserialize, JsonSchema, clap::Args)]
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
            payload: basic_mutation_schema(),
            failure_classes: classes!(
                "issue.not_found",
                "issue.update_empty",
                "issue.invalid_title",
                "issue.invalid_status",
                "issue.invalid_priority",
                "issue.invalid_type",
                "issue.invalid_label",
            ),
            example: r#"(issue.update (hash "id" "bd-1" "notes" "parser done"))"#,
        },
        |ctx, a: UpdateArgs| {
            let (id, changes) = a.split();
            outcome(mutate::update(&mutation_ctx(ctx), &id, &changes))
        },
    )
}

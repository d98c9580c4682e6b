//! `issue.discover`: Create an issue found while working on another, linked discovered-from.

use super::*;
use crate::issues::IssueClass;

crate::issues::fields::issue_fields! {
    /// A new issue discovered while working on `parentId` (linked
    /// `discovered-from`).
    #[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct DiscoverArgs {
        /// The issue being worked on when this one was found (also
        /// accepted as `discoveredFrom`).
        #[serde(alias = "discoveredFrom")]
        #[schemars(extend("x-aliases" = ["discoveredFrom"]))]
        pub parent_id: String,
        /// The title.
        pub title: String,
        /// An explicit id; by default the highest `bd-N` plus one.
        #[arg(long)]
        pub id: Option<String>,
    }
}

impl DiscoverArgs {
    /// The parent and the new issue (the same fields as `issue.add`'s).
    pub fn split(self) -> (String, NewIssue) {
        let issue = crate::issues::fields::issue_fields!(move self into NewIssue {
            title: self.title,
            id: self.id,
        });
        (self.parent_id, issue)
    }
}

/// The declaration of `issue.discover`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.discover",
            kind: ActionKind::Mutation,
            description: "Create an issue found while working on another, linked discovered-from.",
            payload: accepted_schema::<mutate::Created<'static>>,
            failure_classes: classes!(
                IssueClass::ParentNotFound.as_str(),
                IssueClass::InvalidTitle.as_str(),
                IssueClass::InvalidId.as_str(),
                IssueClass::DuplicateId.as_str(),
                IssueClass::InvalidStatus.as_str(),
                IssueClass::InvalidPriority.as_str(),
                IssueClass::InvalidType.as_str(),
                IssueClass::InvalidLabel.as_str(),
            ),
            example: r#"(issue.discover (hash "parentId" "bd-1" "title" "Lexer drops comments"))"#,
        },
        |ctx, a: DiscoverArgs| {
            let (parent, new) = a.split();
            outcome(mutate::discover(&mutation_ctx(ctx), &parent, &new))
        },
    )
}

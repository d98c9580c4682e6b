//! `issue.comment`: Append a comment (beads' shape: id, issue_id, author, text, created_at); comments are never rewritten.

use super::*;
use crate::issues::IssueClass;

/// One comment on an issue.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommentArgs {
    pub id: String,
    pub text: String,
    /// Who says it (a worker's name).
    pub author: String,
}

/// The declaration of `issue.comment`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
    Declaration {
        id: "issue.comment",
        kind: ActionKind::Mutation,
        description: "Append a comment (beads' shape: id, issue_id, author, text, created_at); comments are never rewritten.",
        payload: || object(
            &[
                ("action", string()),
                ("issuesPath", string()),
                ("id", string()),
                ("comment", any()),
                ("issue", issue_schema()),
            ],
            &["action"],
        ),
        failure_classes: classes!(IssueClass::NotFound.as_str(), IssueClass::InvalidComment.as_str()),
        example: r#"(issue.comment (hash "id" "bd-1" "author" "agent.a" "text" "the parser needs a lexer first"))"#,
    },
    |ctx, a: CommentArgs| {
        outcome(crate::issues::tracker::comment(&mutation_ctx(ctx), &a.id, &a.author, &a.text))
    },
)
}

//! `issue.comment`: Append a comment (beads' shape: id, issue_id, author, text, created_at); comments are never rewritten.

use super::*;
use crate::issues::IssueClass;

/// One comment on an issue.
// One declaration for the host action (camelCase keys) and `tusk issue
// comment add ID TEXT` (kebab-case flags). The author is required in JSON;
// on the command line it defaults to `$USER` (else `unknown`), premath's
// default, which its help names instead of showing the value.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommentArgs {
    #[arg(help = "The issue")]
    pub id: String,
    #[arg(help = "The comment's text")]
    pub text: String,
    /// Who says it (a worker's name).
    #[arg(
        long,
        default_value_t = default_author(),
        hide_default_value = true,
        help = "Who says it (default: $USER)"
    )]
    #[schemars(extend("x-actor" = "principal"))]
    pub author: String,
}

/// The command line's author when `--author` is not given: `$USER`, else `unknown`.
fn default_author() -> String {
    std::env::var("USER").unwrap_or_else(|_| "unknown".into())
}

/// The declaration of `issue.comment`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.comment",
        kind: ActionKind::Mutation,
        description: "Append a comment (beads' shape: id, issue_id, author, text, created_at); comments are never rewritten.",
        payload: accepted_schema::<crate::issues::tracker::Commented<'static>>,
        failure_classes: classes!(IssueClass::NotFound.as_str(), IssueClass::InvalidComment.as_str()),
        example: r#"(issue.comment (hash "id" "bd-1" "author" "agent.a" "text" "the parser needs a lexer first"))"#,
    },
    |ctx, a: CommentArgs| outcome(report(&mutation_ctx(ctx), a)),
)
}

/// The comment, as the host action and `tusk issue comment add` make it.
pub fn report(ctx: &MutationCtx<'_>, a: CommentArgs) -> Result<Report, StoreError> {
    crate::issues::tracker::comment(ctx, &a.id, &a.author, &a.text)
}

//! `issue.search`: Issues whose title, description, acceptance criteria, notes or comments contain the query, best match first (title 3, description 2, notes and comments 1).

use super::*;
use crate::issues::IssueClass;

/// A text search.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchArgs {
    /// Looked for in titles, descriptions, acceptance criteria, notes and comments (case-insensitive).
    pub query: String,
    /// At most this many items (default 20).
    pub limit: Option<usize>,
}

/// The declaration of `issue.search`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
    Declaration {
        id: "issue.search",
        kind: ActionKind::Read,
        description: "Issues whose title, description, acceptance criteria, notes or comments contain the query, best match first (title 3, description 2, notes and comments 1).",
        payload: || object(
            &[
                ("action", string()),
                ("issuesPath", string()),
                ("query", string()),
                ("count", integer()),
                ("totalCount", integer()),
                ("items", array(object(
                    &[("id", string()), ("title", string()), ("status", string()),
                      ("priority", integer()), ("score", integer()), ("matched", strings())],
                    &["id", "score", "matched"],
                ))),
            ],
            &["action"],
        ),
        failure_classes: classes!(IssueClass::InvalidQuery.as_str()),
        example: r#"(issue.search (hash "query" "parser" "limit" 5))"#,
    },
    |ctx, a: SearchArgs| {
        let limit = a.limit.unwrap_or(20);
        outcome(read_view(ctx, |s, p| crate::issues::find::search_payload(s, p, &a.query, limit)))
    },
)
}

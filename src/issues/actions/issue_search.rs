//! `issue.search`: Issues whose title, description, acceptance criteria, notes or comments contain the query, best match first (title 3, description 2, notes and comments 1).

use super::*;
use crate::issues::IssueClass;

/// A text search.
// One declaration for the host action (camelCase keys) and `tusk issue
// search TEXT` (kebab-case flags). As premath's, the query is the positional
// TEXT (its id `text` too, which completions name); its help line is the
// command line's own (every flag has help), the schema keeps its
// description; `--limit` shows its default, spelled
// out: DEFAULT_LIMIT (a test in src/cli/issue.rs holds the two equal).
#[derive(Debug, Deserialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchArgs {
    #[schemars(
        description = "Looked for in titles, descriptions, acceptance criteria, notes and comments (case-insensitive)."
    )]
    #[arg(
        id = "text",
        value_name = "TEXT",
        help = "The text to look for (case-insensitive)"
    )]
    pub query: String,
    /// At most this many items (default 20).
    #[arg(long, default_value = "20", help = "At most this many items")]
    pub limit: Option<usize>,
}

/// At most this many items when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;

/// The search, as the host action and `tusk issue search` make it.
pub fn view(store: &Store<'_>, path: &str, a: &SearchArgs) -> Report {
    let limit = a.limit.unwrap_or(DEFAULT_LIMIT);
    crate::issues::find::search_payload(store, path, &a.query, limit)
}

/// The declaration of `issue.search`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.search",
        kind: ActionKind::Read,
        description: "Issues whose title, description, acceptance criteria, notes or comments contain the query, best match first (title 3, description 2, notes and comments 1).",
        payload: accepted_schema::<crate::issues::find::Found<'static>>,
        failure_classes: classes!(IssueClass::InvalidQuery.as_str()),
        example: r#"(issue.search (hash "query" "parser" "limit" 5))"#,
    },
    // On a database, just the lines that may hold the query (a read by index).
    |ctx, a: SearchArgs| {
        let text = ctx.paths.issues.search_text(&a.query);
        outcome(read_view_of(ctx, text, |s, p| view(s, p, &a)))
    },
)
}

//! `dep.tree`: The dependency tree from an issue: what it depends on (down), what depends on it (up) or both; cycles marked, depth-limited.

use super::*;
use crate::issues::IssueClass;

/// A dependency tree.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TreeArgs {
    pub id: String,
    /// down (what it depends on, the default), up (what depends on it) or both.
    pub direction: Option<crate::issues::find::Direction>,
    /// How deep to walk (default 10, at most 50).
    pub max_depth: Option<usize>,
}

/// The declaration of `dep.tree`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "dep.tree",
        kind: ActionKind::Read,
        description: "The dependency tree from an issue: what it depends on (down), what depends on it (up) or both; cycles marked, depth-limited.",
        payload: accepted_schema::<crate::issues::find::Tree<'static>>,
        failure_classes: classes!(IssueClass::NotFound.as_str(), crate::host::HostClass::ArgsInvalid.as_str()),
        example: r#"(dep.tree (hash "id" "bd-1" "direction" "both"))"#,
    },
    |ctx, a: TreeArgs| {
        let direction = a.direction.unwrap_or(crate::issues::find::Direction::Down);
        let depth = a.max_depth.unwrap_or(10);
        // On a database, just the lines the walk reaches (a read by index).
        let text = ctx.paths.issues.tree_text(&a.id, direction, depth);
        outcome(read_view_of(ctx, text, |s, p| {
            crate::issues::find::tree_payload(s, p, &a.id, direction, depth)
        }))
    },
)
}

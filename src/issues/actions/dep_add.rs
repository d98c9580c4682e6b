//! `dep.add`: Add a dependency edge; the graph stays acyclic.

use super::*;

/// A new dependency edge: `issueId` depends on `dependsOnId`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepAddArgs {
    pub issue_id: String,
    pub depends_on_id: String,
    /// blocks (default), related, parent-child or discovered-from.
    #[serde(rename = "type")]
    pub dep_type: Option<String>,
    /// Who made the edge, stored as its `created_by` (default: none).
    pub created_by: Option<String>,
}

/// The declaration of `dep.add`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "dep.add",
            kind: ActionKind::Mutation,
            description: "Add a dependency edge; the graph stays acyclic.",
            payload: edge_schema(),
            failure_classes: classes!(
                "dep.issue_not_found",
                "dep.target_not_found",
                "dep.self_loop",
                "dep.duplicate",
                "dep.cycle",
                "dep.invalid_type",
            ),
            example: r#"(dep.add (hash "issueId" "bd-2" "dependsOnId" "bd-1"))"#,
        },
        |ctx, a: DepAddArgs| {
            let dep_type = a.dep_type.unwrap_or_else(|| "blocks".into());
            outcome(mutate::dep_add(
                &mutation_ctx(ctx),
                &edge(a.issue_id, a.depends_on_id),
                &dep_type,
                a.created_by.as_deref().unwrap_or_default(),
            ))
        },
    )
}

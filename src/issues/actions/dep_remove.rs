//! `dep.remove`: Remove a dependency edge (of the given type, or any).

use super::*;

/// One dependency edge: `issueId` depends on `dependsOnId`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepArgs {
    pub issue_id: String,
    pub depends_on_id: String,
    /// blocks (default), related, parent-child or discovered-from.
    #[serde(rename = "type")]
    pub dep_type: Option<String>,
}

/// The declaration of `dep.remove`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "dep.remove",
            kind: ActionKind::Mutation,
            description: "Remove a dependency edge (of the given type, or any).",
            payload: edge_schema(),
            failure_classes: classes!("dep.issue_not_found", "dep.not_found", "dep.invalid_type"),
            example: r#"(dep.remove (hash "issueId" "bd-2" "dependsOnId" "bd-1"))"#,
        },
        |ctx, a: DepArgs| {
            outcome(mutate::dep_remove(
                &mutation_ctx(ctx),
                &edge(a.issue_id, a.depends_on_id),
                a.dep_type.as_deref(),
            ))
        },
    )
}

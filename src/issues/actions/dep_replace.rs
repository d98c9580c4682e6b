//! `dep.replace`: Change the type of an existing dependency edge.

use super::*;
use crate::issues::IssueClass;

/// Change an edge's type.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepReplaceArgs {
    pub issue_id: String,
    pub depends_on_id: String,
    /// The edge's current type (default: the pair's first edge, whatever its type).
    pub from_type: Option<String>,
    /// The new type.
    #[serde(rename = "type")]
    pub dep_type: String,
    /// Replaces the edge's `created_by` when not blank.
    pub created_by: Option<String>,
}

/// The declaration of `dep.replace`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "dep.replace",
            kind: ActionKind::Mutation,
            description: "Change the type of an existing dependency edge.",
            payload: edge_schema,
            failure_classes: classes!(
                IssueClass::DepIssueNotFound.as_str(),
                IssueClass::DepNotFound.as_str(),
                IssueClass::DepInvalidType.as_str(),
                IssueClass::DepCycle.as_str(),
            ),
            example: r#"(dep.replace (hash "issueId" "bd-2" "dependsOnId" "bd-1" "type" "related"))"#,
        },
        |ctx, a: DepReplaceArgs| {
            let change = mutate::DepReplacement {
                from_type: a.from_type.as_deref(),
                to_type: &a.dep_type,
                created_by: a.created_by.as_deref().unwrap_or_default(),
            };
            outcome(mutate::dep_replace(
                &mutation_ctx(ctx),
                &edge(a.issue_id, a.depends_on_id),
                &change,
            ))
        },
    )
}

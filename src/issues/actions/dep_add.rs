//! `dep.add`: Add a dependency edge; the graph stays acyclic.

use super::*;
use crate::issues::IssueClass;

/// A new dependency edge: `issueId` depends on `dependsOnId`.
///
/// One declaration for the host action (camelCase keys) and the command line
/// (kebab-case flags).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepAddArgs {
    /// The issue that depends on the other.
    #[serde(alias = "id")]
    #[schemars(extend("x-aliases" = ["id"]))]
    pub issue_id: String,
    /// The issue it depends on.
    #[serde(alias = "dependsOn")]
    #[schemars(extend("x-aliases" = ["dependsOn"]))]
    pub depends_on_id: String,
    /// blocks (default), related, parent-child or discovered-from.
    #[serde(rename = "type")]
    #[arg(long = "type")]
    pub dep_type: Option<String>,
    /// Who made the edge, stored as its `created_by` (default: none).
    #[arg(long)]
    #[schemars(extend("x-actor" = "principal"))]
    pub created_by: Option<String>,
}

/// The declaration of `dep.add`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "dep.add",
            kind: ActionKind::Mutation,
            description: "Add a dependency edge; the graph stays acyclic.",
            payload: accepted_schema::<mutate::EdgeAdded<'static>>,
            failure_classes: classes!(
                IssueClass::DepIssueNotFound.as_str(),
                IssueClass::DepTargetNotFound.as_str(),
                IssueClass::DepSelfLoop.as_str(),
                IssueClass::DepDuplicate.as_str(),
                IssueClass::DepCycle.as_str(),
                IssueClass::DepInvalidType.as_str(),
            ),
            example: r#"(dep.add (hash "issueId" "bd-2" "dependsOnId" "bd-1"))"#,
        },
        |ctx, a: DepAddArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The new edge, as the host action and `tusk dep add` make it.
pub fn report(ctx: &MutationCtx<'_>, a: DepAddArgs) -> Result<Report, StoreError> {
    let dep_type = a.dep_type.unwrap_or_else(|| "blocks".into());
    let created_by = a.created_by.unwrap_or_default();
    mutate::dep_add(
        ctx,
        &edge(a.issue_id, a.depends_on_id),
        &dep_type,
        &created_by,
    )
}

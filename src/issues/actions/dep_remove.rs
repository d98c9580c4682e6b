//! `dep.remove`: Remove a dependency edge (of the given type, or any).

use super::*;
use crate::issues::IssueClass;

/// One dependency edge: `issueId` depends on `dependsOnId`.
///
/// One declaration for the host action (camelCase keys) and the command line
/// (kebab-case flags).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepArgs {
    /// The issue that depends on the other.
    #[serde(alias = "id")]
    #[schemars(extend("x-aliases" = ["id"]))]
    pub issue_id: String,
    /// The issue it depends on.
    #[serde(alias = "dependsOn")]
    #[schemars(extend("x-aliases" = ["dependsOn"]))]
    pub depends_on_id: String,
    /// Only the edge of this type (default: every edge of the pair).
    #[serde(rename = "type")]
    #[arg(long = "type")]
    pub dep_type: Option<String>,
}

/// The declaration of `dep.remove`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "dep.remove",
            kind: ActionKind::Mutation,
            description: "Remove a dependency edge (of the given type, or any).",
            payload: accepted_schema::<mutate::EdgeRemoved<'static>>,
            failure_classes: classes!(
                IssueClass::DepIssueNotFound.as_str(),
                IssueClass::DepNotFound.as_str(),
                IssueClass::DepInvalidType.as_str()
            ),
            example: r#"(dep.remove (hash "issueId" "bd-2" "dependsOnId" "bd-1"))"#,
        },
        |ctx, a: DepArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The removal, as the host action and `tusk dep remove` make it.
pub fn report(ctx: &MutationCtx<'_>, a: DepArgs) -> Result<Report, StoreError> {
    mutate::dep_remove(
        ctx,
        &edge(a.issue_id, a.depends_on_id),
        a.dep_type.as_deref(),
    )
}

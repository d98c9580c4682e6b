//! `dep.replace`: Change the type of an existing dependency edge.

use super::*;
use crate::issues::IssueClass;

/// Change an edge's type.
// One declaration for the host action (camelCase keys) and `tusk dep
// replace` (kebab-case flags). The command line keeps premath's spelling and
// defaults: `--to-type` (`--type` accepted too) for the JSON key `type`,
// `--from-type` defaulting to `blocks` where the JSON's absent `fromType`
// means any type, and `--created-by` defaulting to blank; hence their `help`
// besides the doc comments.
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DepReplaceArgs {
    #[serde(alias = "id")]
    #[schemars(extend("x-aliases" = ["id"]))]
    #[arg(help = "The issue whose edge changes")]
    pub issue_id: String,
    #[serde(alias = "dependsOn")]
    #[schemars(extend("x-aliases" = ["dependsOn"]))]
    #[arg(help = "The issue the edge points at")]
    pub depends_on_id: String,
    /// The edge's current type (default: the pair's first edge, whatever its type).
    #[arg(long, default_value = "blocks", help = "The edge's current type")]
    pub from_type: Option<String>,
    /// The new type.
    #[serde(rename = "type")]
    #[arg(
        long = "to-type",
        alias = "type",
        value_name = "TO_TYPE",
        help = "The new type (`--type` is accepted too)"
    )]
    pub dep_type: String,
    /// Replaces the edge's `created_by` when not blank.
    #[arg(
        long,
        default_value = "",
        help = "Replaces the edge's created_by when not blank"
    )]
    #[schemars(extend("x-actor" = "principal"))]
    pub created_by: Option<String>,
}

/// The declaration of `dep.replace`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "dep.replace",
            kind: ActionKind::Mutation,
            description: "Change the type of an existing dependency edge.",
            payload: accepted_schema::<mutate::EdgeReplaced<'static>>,
            failure_classes: classes!(
                IssueClass::DepIssueNotFound.as_str(),
                IssueClass::DepNotFound.as_str(),
                IssueClass::DepInvalidType.as_str(),
                IssueClass::DepCycle.as_str(),
            ),
            example: r#"(dep.replace (hash "issueId" "bd-2" "dependsOnId" "bd-1" "type" "related"))"#,
        },
        |ctx, a: DepReplaceArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The change, as the host action and `tusk dep replace` make it.
pub fn report(ctx: &MutationCtx<'_>, a: DepReplaceArgs) -> Result<Report, StoreError> {
    let change = mutate::DepReplacement {
        from_type: a.from_type.as_deref(),
        to_type: &a.dep_type,
        created_by: a.created_by.as_deref().unwrap_or_default(),
    };
    mutate::dep_replace(ctx, &edge(a.issue_id, a.depends_on_id), &change)
}

//! `issue.update`: Change fields of an issue (status, priority, assignee, notes, …).

use super::*;

/// The fields to change; at least one.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateArgs {
    pub id: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub design: Option<String>,
    pub acceptance_criteria: Option<String>,
    pub notes: Option<String>,
    pub status: Option<String>,
    pub priority: Option<i64>,
    pub issue_type: Option<String>,
    pub assignee: Option<String>,
    /// The issue's owner (not the lease holder).
    pub owner: Option<String>,
    pub labels: Option<Vec<String>>,
}

/// The declaration of `issue.update`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.update",
            kind: ActionKind::Mutation,
            description: "Change fields of an issue (status, priority, assignee, notes, …).",
            payload: basic_mutation_schema(),
            failure_classes: classes!(
                "issue.not_found",
                "issue.update_empty",
                "issue.invalid_title",
                "issue.invalid_status",
                "issue.invalid_priority",
                "issue.invalid_type",
                "issue.invalid_label",
            ),
            example: r#"(issue.update (hash "id" "bd-1" "notes" "parser done"))"#,
        },
        |ctx, a: UpdateArgs| {
            let changes = IssueChanges {
                title: a.title,
                description: a.description,
                design: a.design,
                acceptance_criteria: a.acceptance_criteria,
                notes: a.notes,
                status: a.status,
                priority: a.priority,
                issue_type: a.issue_type,
                assignee: a.assignee,
                owner: a.owner,
                labels: a.labels,
            };
            outcome(mutate::update(&mutation_ctx(ctx), &a.id, &changes))
        },
    )
}

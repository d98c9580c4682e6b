//! `issue.discover`: Create an issue found while working on another, linked discovered-from.

use super::*;

// The fields of `NewIssue` written out again: serde cannot flatten a struct
// into one that denies unknown fields.
/// A new issue discovered while working on `parentId` (linked
/// `discovered-from`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoverArgs {
    pub parent_id: String,
    pub title: String,
    pub id: Option<String>,
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

impl DiscoverArgs {
    /// The parent and the new issue (the same fields as `issue.add`'s).
    fn split(self) -> (String, NewIssue) {
        let issue = NewIssue {
            title: self.title,
            id: self.id,
            description: self.description,
            design: self.design,
            acceptance_criteria: self.acceptance_criteria,
            notes: self.notes,
            status: self.status,
            priority: self.priority,
            issue_type: self.issue_type,
            assignee: self.assignee,
            owner: self.owner,
            labels: self.labels,
        };
        (self.parent_id, issue)
    }
}

/// The declaration of `issue.discover`.
pub fn action() -> Arc<dyn HostAction> {
    use schema::*;
    declare(
        Declaration {
            id: "issue.discover",
            kind: ActionKind::Mutation,
            description: "Create an issue found while working on another, linked discovered-from.",
            payload: object(
                &[
                    ("action", string()),
                    ("issuesPath", string()),
                    ("issue", basic_schema()),
                    (
                        "dependency",
                        object(
                            &[
                                ("dependsOnId", string()),
                                ("issueId", string()),
                                ("type", string()),
                            ],
                            &["dependsOnId", "issueId", "type"],
                        ),
                    ),
                ],
                &["action"],
            ),
            failure_classes: classes!(
                "issue.parent_not_found",
                "issue.invalid_title",
                "issue.invalid_id",
                "issue.duplicate_id",
                "issue.invalid_status",
                "issue.invalid_priority",
                "issue.invalid_type",
                "issue.invalid_label",
            ),
            example: r#"(issue.discover (hash "parentId" "bd-1" "title" "Lexer drops comments"))"#,
        },
        |ctx, a: DiscoverArgs| {
            let (parent, new) = a.split();
            outcome(mutate::discover(&mutation_ctx(ctx), &parent, &new))
        },
    )
}

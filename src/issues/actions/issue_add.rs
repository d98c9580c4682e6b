//! `issue.add`: Create an issue.

use super::*;

/// The declaration of `issue.add`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.add",
            kind: ActionKind::Mutation,
            description: "Create an issue.",
            payload: basic_mutation_schema(),
            failure_classes: classes!(
                "issue.invalid_title",
                "issue.invalid_id",
                "issue.duplicate_id",
                "issue.invalid_status",
                "issue.invalid_priority",
                "issue.invalid_type",
                "issue.invalid_label",
            ),
            example: r#"(issue.add (hash "title" "Write the parser" "priority" 1))"#,
        },
        |ctx, a: NewIssue| outcome(mutate::add(&mutation_ctx(ctx), &a)),
    )
}

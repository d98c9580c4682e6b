//! `issue.add`: Create an issue.

use super::*;
use crate::issues::IssueClass;

/// The declaration of `issue.add`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.add",
            kind: ActionKind::Mutation,
            description: "Create an issue.",
            payload: accepted_schema::<mutate::Created<'static>>,
            failure_classes: classes!(
                IssueClass::InvalidTitle.as_str(),
                IssueClass::InvalidId.as_str(),
                IssueClass::DuplicateId.as_str(),
                IssueClass::InvalidStatus.as_str(),
                IssueClass::InvalidPriority.as_str(),
                IssueClass::InvalidType.as_str(),
                IssueClass::InvalidLabel.as_str(),
            ),
            example: r#"(issue.add (hash "title" "Write the parser" "priority" 1))"#,
        },
        |ctx, a: NewIssue| outcome(mutate::add(&mutation_ctx(ctx), &a)),
    )
}

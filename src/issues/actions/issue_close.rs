//! `issue.close`: Close an issue (its lease ends).

use super::*;
use crate::issues::IssueClass;

/// Close an issue, optionally saying why.
///
/// One declaration for the host action (camelCase keys) and the command line
/// (kebab-case flags).
#[derive(Debug, Deserialize, serde::Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloseArgs {
    /// The issue to close.
    pub id: String,
    /// Why it is closed (stored as beads' `close_reason`).
    #[arg(long)]
    pub reason: Option<String>,
}

/// The declaration of `issue.close`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "issue.close",
            kind: ActionKind::Mutation,
            description: "Close an issue (its lease ends).",
            payload: accepted_schema::<crate::issues::payload::Changed<'static>>,
            failure_classes: classes!(
                IssueClass::NotFound.as_str(),
                IssueClass::AlreadyClosed.as_str()
            ),
            example: r#"(issue.close (hash "id" "bd-1" "reason" "fixed in 4f2a"))"#,
        },
        |ctx, a: CloseArgs| outcome(report(&mutation_ctx(ctx), a)),
    )
}

/// The close, as the host action and `tusk issue close` make it.
pub fn report(ctx: &MutationCtx<'_>, a: CloseArgs) -> Result<Report, StoreError> {
    mutate::close(ctx, &a.id, a.reason.as_deref())
}

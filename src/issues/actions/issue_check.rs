//! `issue.check`: Check the store's content rules (ids, titles, statuses, dependencies); warnings and errors.

use super::*;
use chrono::{DateTime, Utc};

/// Options of the store check.
// One declaration for the host action (camelCase keys) and `tusk issue
// check` (kebab-case flags). The flag shows its default, spelled out:
// views::NOTES_WARN_CHARS (a test in src/cli/issue.rs holds the two equal).
#[derive(Debug, Deserialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckArgs {
    /// Notes longer than this many characters draw a warning (default 2000).
    #[arg(
        long,
        default_value = "2000",
        help = "Notes longer than this many characters draw a warning"
    )]
    pub note_warn_threshold: Option<usize>,
}

/// The check, as the host action and `tusk issue check` make it, with the
/// verification commands the store's project accepts.
pub fn view(
    store: &Store<'_>,
    path: &str,
    now: DateTime<Utc>,
    a: &CheckArgs,
    commands: &crate::issues::content::Commands,
) -> Report {
    let threshold = a.note_warn_threshold.unwrap_or(views::NOTES_WARN_CHARS);
    views::check_payload(store, path, now, threshold, commands)
}

/// The verification commands of `store`'s project (its config.json).
///
/// # Errors
/// An unusable `config.json`: nothing is checked.
pub fn commands_of(
    store: &crate::issues::IssueStore,
) -> Result<std::borrow::Cow<'static, crate::issues::content::Commands>, StoreError> {
    crate::issues::content::Commands::of_store(store).map_err(|reason| StoreError::Config {
        path: crate::issues::model::config_path(store)
            .display()
            .to_string(),
        reason,
    })
}

/// The declaration of `issue.check`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.check",
        kind: ActionKind::Read,
        description: "Check the store's content rules (ids, titles, statuses, dependencies); warnings and errors.",
        payload: payload_schema::<Verdict<views::CheckPayload<'static>>>,
        // The graph's errors are the envelope's classes (`views::check_payload`).
        failure_classes: classes!(
            IssueClass::GraphDuplicateId.as_str(),
            IssueClass::GraphSelfLoop.as_str(),
            IssueClass::GraphDanglingDependency.as_str(),
            IssueClass::GraphCycle.as_str(),
            IssueClass::GraphEpicMismatch.as_str(),
            IssueClass::GraphAcceptanceMissing.as_str(),
            IssueClass::GraphVerificationCommandMissing.as_str(),
        ),
        example: "(issue.check)",
    },
    |ctx, a: CheckArgs| {
        let commands = commands_of(&ctx.paths.issues)?;
        outcome(read_view(ctx, |s, p| view(s, p, ctx.now, &a, &commands)))
    },
)
}

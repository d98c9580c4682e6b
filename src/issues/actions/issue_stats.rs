//! `issue.stats`: Counts by status, type, priority, assignee and label; ready, blocked and in-progress counts; stale and contended leases; the oldest ready issue.

use super::*;

/// No arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The declaration of `issue.stats`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
    Declaration {
        id: "issue.stats",
        kind: ActionKind::Read,
        description: "Counts by status, type, priority, assignee and label; ready, blocked and in-progress counts; stale and contended leases; the oldest ready issue.",
        payload: accepted_schema::<crate::issues::find::Stats<'static>>,
        failure_classes: classes!(),
        example: "(issue.stats)",
    },
    // On a database, counted by its columns (a read by index).
    |ctx, _: NoArgs| match ctx.paths.issues.stats_counts() {
        Ok(Some((counts, leased))) => outcome(read_view_of(ctx, Ok(Some(leased)), |s, p| {
            crate::issues::find::stats_payload_known(s, p, ctx.now, counts)
        })),
        Ok(None) => outcome(read_view(ctx, |s, p| crate::issues::find::stats_payload(s, p, ctx.now))),
        Err(e) => outcome(Err(e)),
    },
)
}

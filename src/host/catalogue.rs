//! The v1 action catalogue of host-api §4: which ids exist and whether they
//! read or mutate. The default mutation policy allows exactly the mutations.

use super::action::ActionKind;

/// Read actions: no authority needed.
pub const READ_ACTIONS: &[&str] = &[
    "issue.list",
    "issue.show",
    "issue.ready",
    "issue.blocked",
    "issue.check",
    "dep.diagnostics",
    "harness.join_check",
    "harness.session.read",
    "harness.session.bootstrap",
    "harness.trajectory.query",
    "harness.feature.next",
    "harness.kpi",
];

/// Mutation actions: admitted only through the mutation gate (host-api §5).
pub const MUTATION_ACTIONS: &[&str] = &[
    "issue.add",
    "issue.update",
    "issue.close",
    "issue.claim",
    "issue.claim_next",
    "issue.discover",
    "issue.lease_renew",
    "issue.lease_release",
    "dep.add",
    "dep.remove",
    "dep.replace",
    "harness.session.write",
    "harness.trajectory.append",
    "harness.feature.write",
];

/// The catalogue kind of an id, if it is a v1 catalogue action.
pub fn kind_of(id: &str) -> Option<ActionKind> {
    if READ_ACTIONS.contains(&id) {
        Some(ActionKind::Read)
    } else if MUTATION_ACTIONS.contains(&id) {
        Some(ActionKind::Mutation)
    } else {
        None
    }
}

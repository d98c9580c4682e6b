//! What a mutation or a read of one issue reads, its footprint (issue 58):
//! on PostgreSQL, the rows it loads (and, for a mutation, locks) instead of
//! the whole store; the file store reads the whole file either way. Each
//! mutation names its footprint next to its checks (`mutate.rs`,
//! `tracker.rs`, `lease.rs`), and so do `issue.show` and `issue.comments`,
//! so a reader sees at once that a check reads only what the footprint
//! loads; the parity test (`tests/it/pg_parity.rs`) runs random mutations on
//! both stores, with an `issue.show` after each, and compares them.

/// The lines a mutation's checks (or a one-issue view) read.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Footprint<'a> {
    /// Every line (an add: its id is chosen from all of them).
    Whole,
    /// One issue's line, row-locked: a change that reads nothing else.
    Issue(&'a str),
    /// One issue's line, row-locked, and the lines of every issue its
    /// edges point at (a claim reports its open blockers).
    WithTargets(&'a str),
    /// An edge's issue, row-locked, and its target; with `cycle`, every
    /// issue the target reaches by blocking edges too (the cycle check),
    /// read under the graph lock, which serializes the changes that add
    /// blocking edges.
    Edge {
        issue: &'a str,
        depends_on: &'a str,
        cycle: bool,
    },
}

impl Footprint<'_> {
    /// The issue whose line the mutation may change (none for the whole store).
    pub fn own(&self) -> Option<&str> {
        match self {
            Footprint::Whole => None,
            Footprint::Issue(id) | Footprint::WithTargets(id) => Some(id),
            Footprint::Edge { issue, .. } => Some(issue),
        }
    }
}

//! Which edges keep an issue from being ready (issue 62): the store's
//! readiness rule, `readiness` in its `config.json` beside `ids`.
//!
//! - `beads` (what `tusk init` writes for a store it creates): only
//!   `blocks`, `conditional-blocks` and `waits-for` block directly, on a
//!   target that is not closed (or missing); `parent-child` is organization
//!   (the child names its parent), so a child of an open epic is ready, but a
//!   child whose parent is blocked is blocked too, transitively, as beads'
//!   `bd ready` has it.
//! - `premath` (a store without the setting: every store tusk made before,
//!   and premath's recorded vectors): every blocking type, `parent-child`
//!   included, blocks directly; nothing propagates.
//!
//! Every view and mutation that depends on readiness (ready, blocked with
//! each issue's reasons, claim-next, `--respect-blockers`, `issue check`,
//! the dashboard, stats) asks [`super::views`], which asks the rule the
//! store was read with ([`super::store::Store::readiness`]).

use serde_json::Value;

/// The `config.json` member.
pub const SETTING: &str = "readiness";

/// A store's readiness rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Readiness {
    /// premath's rule: every blocking type blocks directly.
    #[default]
    Premath,
    /// beads' rule: `parent-child` does not block, a blocked parent does.
    Beads,
}

impl Readiness {
    pub fn as_str(self) -> &'static str {
        match self {
            Readiness::Premath => "premath",
            Readiness::Beads => "beads",
        }
    }

    /// Whether an edge of `dep_type` blocks its issue directly (on a target
    /// that is not closed).
    pub fn blocks_directly(self, dep_type: &str) -> bool {
        match self {
            Readiness::Premath => super::model::BLOCKING_DEP_TYPES.contains(&dep_type),
            Readiness::Beads => matches!(dep_type, "blocks" | "conditional-blocks" | "waits-for"),
        }
    }

    /// Whether a blocked parent blocks its children (`parent-child` edges).
    pub fn propagates(self) -> bool {
        self == Readiness::Beads
    }

    /// The rule in one sentence, for `tusk prime`, the tool description and
    /// `tusk doctor`.
    pub fn sentence(self) -> &'static str {
        match self {
            Readiness::Beads => {
                "An issue is ready when it is open and no `blocks`, `conditional-blocks` or \
                 `waits-for` edge points at an issue that is not closed; `parent-child` only \
                 organizes (the child names its parent: `(dep.add (hash \"issueId\" CHILD \
                 \"dependsOnId\" EPIC \"type\" \"parent-child\"))`), so children of an open epic \
                 are ready, but a child whose parent is blocked is blocked too."
            }
            Readiness::Premath => {
                "An issue is ready when it is open and every `blocks`, `parent-child`, \
                 `conditional-blocks` and `waits-for` edge points at a closed issue: a child \
                 (which names its parent with `parent-child`) waits until its epic is closed."
            }
        }
    }
}

/// The rule a `config.json` (its parsed value) names; `shown` names the
/// file in the error.
///
/// # Errors
/// A value other than `"beads"` or `"premath"`.
pub fn of_config(config: Option<&Value>, shown: &str) -> Result<Readiness, String> {
    match config.and_then(|c| c.get(SETTING)) {
        None => Ok(Readiness::Premath),
        Some(Value::String(s)) if s == "beads" => Ok(Readiness::Beads),
        Some(Value::String(s)) if s == "premath" => Ok(Readiness::Premath),
        Some(other) => Err(format!(
            "{shown}: \"{SETTING}\" is {other}; write \"beads\" (parent-child does not block; a \
             blocked parent does) or \"premath\" (parent-child blocks until the parent is closed)"
        )),
    }
}

/// The rule of `store` (its `config.json`).
///
/// # Errors
/// An unreadable or invalid `config.json`.
pub fn of_store(store: &super::IssueStore) -> Result<Readiness, String> {
    let path = super::model::config_path(store);
    let config = super::model::read_config(&path)?;
    of_config(config.as_ref(), &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_and_edges() {
        assert_eq!(of_config(None, "c").unwrap(), Readiness::Premath);
        let beads = json!({"readiness": "beads"});
        assert_eq!(of_config(Some(&beads), "c").unwrap(), Readiness::Beads);
        assert!(of_config(Some(&json!({"readiness": "bd"})), "c")
            .unwrap_err()
            .contains("write \"beads\""));
        assert!(Readiness::Premath.blocks_directly("parent-child"));
        assert!(!Readiness::Beads.blocks_directly("parent-child"));
        assert!(Readiness::Beads.blocks_directly("waits-for"));
        assert!(!Readiness::Beads.blocks_directly("related"));
    }
}

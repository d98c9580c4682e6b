//! Approval rules of the mutation policy (issue 59, docs/plans.md): given
//! actions by given principals go through a plan a person approved.
//!
//! ```json
//! "approval": {
//!   "require": [{"actions": ["issue.close", "dep.remove"], "principals": ["agent.*"]}],
//!   "approvers": ["alice", "ops.*"]
//! }
//! ```
//!
//! A principal pattern is a name, or a prefix ending in `*`. A call of a
//! required action by a matching principal writes nothing: it answers
//! `plan.approval_required` with the plan of its change, kept by id; an
//! approver's `plan.approve` applies it, recorded with both names. The
//! member is part of the policy document, so its digest covers it.

use serde_json::Value;

/// One `require` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Rule {
    actions: Vec<String>,
    principals: Vec<String>,
}

/// The policy's `approval` member (none: nothing needs approval).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Approval {
    rules: Vec<Rule>,
    approvers: Vec<String>,
}

/// Whether `pattern` (a name, or a prefix ending in `*`) names `principal`.
fn names(pattern: &str, principal: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => principal.starts_with(prefix),
        None => pattern == principal,
    }
}

fn strings(v: &Value, what: &str) -> Result<Vec<String>, String> {
    let list = v
        .as_array()
        .ok_or_else(|| format!("`approval`: {what} must be a list of strings"))?;
    let out: Vec<String> = list
        .iter()
        .map(|s| {
            s.as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .ok_or_else(|| format!("`approval`: {what} must hold non-empty strings"))
        })
        .collect::<Result<_, _>>()?;
    if out.is_empty() {
        return Err(format!("`approval`: {what} is empty; name at least one"));
    }
    Ok(out)
}

impl Approval {
    /// The `approval` member.
    ///
    /// # Errors
    /// Any member it does not know, or one of the wrong shape.
    pub fn from_json(v: &Value) -> Result<Self, String> {
        let map = v
            .as_object()
            .ok_or("`approval` must be an object with `require` and `approvers`")?;
        if let Some(key) = map
            .keys()
            .find(|k| !["require", "approvers"].contains(&k.as_str()))
        {
            return Err(format!(
                "`approval`: unknown member `{key}` (it takes `require` and `approvers`)"
            ));
        }
        let require = map
            .get("require")
            .and_then(Value::as_array)
            .ok_or("`approval.require` must be a list of {\"actions\", \"principals\"} rules")?;
        let rules = require
            .iter()
            .map(|r| {
                let m = r.as_object().ok_or("`approval.require` holds objects")?;
                if let Some(key) = m.keys().find(|k| !["actions", "principals"].contains(&k.as_str())) {
                    return Err(format!(
                        "`approval.require`: unknown member `{key}` (a rule takes `actions` and `principals`)"
                    ));
                }
                Ok(Rule {
                    actions: strings(m.get("actions").unwrap_or(&Value::Null), "a rule's `actions`")?,
                    principals: strings(
                        m.get("principals").unwrap_or(&Value::Null),
                        "a rule's `principals`",
                    )?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let approvers = strings(map.get("approvers").unwrap_or(&Value::Null), "`approvers`")?;
        Ok(Approval { rules, approvers })
    }

    /// Whether `action` by `principal` goes through an approved plan.
    pub fn requires(&self, principal: Option<&str>, action: &str) -> bool {
        let principal = principal.unwrap_or_default();
        self.rules.iter().any(|r| {
            r.actions.iter().any(|a| a == action)
                && r.principals.iter().any(|p| names(p, principal))
        })
    }

    /// Whether `principal` may approve plans.
    pub fn may_approve(&self, principal: &str) -> bool {
        self.approvers.iter().any(|p| names(p, principal))
    }

    /// The action ids the rules name (checked against the registry).
    pub fn actions(&self) -> impl Iterator<Item = &str> {
        self.rules
            .iter()
            .flat_map(|r| r.actions.iter().map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_match_names_and_prefixes() {
        let a = Approval::from_json(&json!({
            "require": [{"actions": ["issue.close"], "principals": ["agent.*", "bot"]}],
            "approvers": ["alice"]
        }))
        .unwrap();
        assert!(a.requires(Some("agent.a"), "issue.close"));
        assert!(a.requires(Some("bot"), "issue.close"));
        assert!(!a.requires(Some("bot2"), "issue.close"));
        assert!(!a.requires(Some("agent.a"), "issue.update"));
        assert!(!a.requires(None, "issue.close"));
        assert!(a.may_approve("alice") && !a.may_approve("agent.a"));
        for bad in [
            json!({"require": [], "approvers": []}),
            json!({"require": [{"actions": ["x"], "principals": []}], "approvers": ["a"]}),
            json!({"require": [{"actions": ["x"], "principals": ["p"], "who": 1}], "approvers": ["a"]}),
            json!({"require": [], "approvers": ["a"], "extra": true}),
        ] {
            assert!(Approval::from_json(&bad).is_err(), "{bad}");
        }
    }
}

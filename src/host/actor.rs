//! Who acts (issue 57, point 1): a principal acts as itself.
//!
//! Some arguments name who does what the call does: the `assignee` of a
//! claim, a claim-next, a lease renewal or release, a comment's `author`, an
//! edge's `createdBy`, the `workerId` of `harness.boot` and `harness.stop`.
//! Their schema marks them (`x-actor`), so the rule lives in each action's
//! one declaration. Over an authenticated transport (`tusk mcp --http
//! --auth`) such an argument must name the caller's own principal, or one
//! its token lets it act as (`actAs`: names, or prefixes ending in `*`, for
//! an orchestrator that hands out work); anything else is refused
//! `authority.act_as_denied`, naming both. Assigning an issue with
//! `issue.update` is planning, not acting: not an actor argument.
//!
//! Unauthenticated callers (stdio, the command line, an HTTP server
//! without `--auth`) are not checked: their principal is a claim, recorded
//! but not proven.

use serde_json::Value;

/// The schema member that marks an actor argument (its value says what the
/// argument must name: `"principal"`).
pub const ACTOR_MARK: &str = "x-actor";

/// What an actor argument's description adds (the catalogue, the tool
/// schemas): its rule, where a model reads the argument.
pub const ACTOR_NOTE: &str = "Names who acts: on a server with tokens, your own principal (or one your token's actAs allows).";

/// A caller whose actor arguments are checked: its principal and whom else
/// it may act as.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActAs {
    pub principal: String,
    /// Names, or prefixes ending in `*`.
    pub grants: Vec<String>,
}

impl ActAs {
    /// Whether this caller may act as `name`.
    pub fn allows(&self, name: &str) -> bool {
        name == self.principal
            || self.grants.iter().any(|g| match g.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => g == name,
            })
    }

    /// The first actor argument of `args` (canonical keys, under `schema`)
    /// that names someone this caller may not act as: the refusal's text.
    pub fn refusal(&self, action: &str, schema: &Value, args: &Value) -> Option<String> {
        for name in actor_args(schema) {
            let Some(named) = args.get(&name).and_then(Value::as_str) else {
                continue;
            };
            if self.allows(named) {
                continue;
            }
            let granted = if self.grants.is_empty() {
                "its token grants no actAs".to_string()
            } else {
                format!("its token's actAs is {}", self.grants.join(", "))
            };
            return Some(format!(
                "{action}: `{name}` names {named:?}, but this call is made by principal {:?}, \
                 which acts as itself ({granted}); write \"{name}\" {:?}, or have the token \
                 file give this principal \"actAs\": [{named:?}]",
                self.principal, self.principal
            ));
        }
        None
    }
}

/// The arguments of an action's schema that name who acts.
pub fn actor_args(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, p)| p[ACTOR_MARK].is_string())
        .map(|(k, _)| k.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_prefixes() {
        let a = ActAs {
            principal: "agent.alice".into(),
            grants: vec!["agent.bob".into(), "worker.*".into()],
        };
        assert!(a.allows("agent.alice"));
        assert!(a.allows("agent.bob"));
        assert!(a.allows("worker.7"));
        assert!(!a.allows("agent.carol"));
        let schema = json!({"properties": {"assignee": {"type": "string", "x-actor": "principal"}, "id": {}}});
        assert_eq!(actor_args(&schema), ["assignee"]);
        assert!(a
            .refusal("issue.claim", &schema, &json!({"assignee": "worker.1"}))
            .is_none());
        let why = a
            .refusal("issue.claim", &schema, &json!({"assignee": "agent.carol"}))
            .unwrap();
        assert!(
            why.contains("agent.carol") && why.contains("agent.alice"),
            "{why}"
        );
    }
}

//! A payload's shape in one line, generated from its schema (issue 56,
//! point 3): `{count, items: [{id, title, …}]}`. The tool description and
//! `tusk prime` show one for every action, so a program reads the keys an
//! action gives (`dependsOnId`, `ruleId`) instead of guessing them; the whole
//! schema stays in `describe_actions` and `(host-describe "id")`.
//!
//! An object a schema marks `x-shape: NAME` (the stored issue, `Issue`) is
//! shown by its name inside payloads and spelled out once in [`Shapes::named`].

use super::ActionSpec;
use serde_json::Value;
use std::collections::BTreeMap;

/// The schema keyword naming a shape shown once.
pub const NAME_MARK: &str = "x-shape";

/// Members every payload shares (its header), left out of each shape.
const COMMON: [&str; 6] = [
    "action",
    "issuesPath",
    "result",
    "failureClasses",
    "schema",
    "kind",
];

/// Every action's payload shape, and the named shapes they use.
#[derive(Debug, Default)]
pub struct Shapes {
    /// `(action id, shape)`, in the order given; empty when a payload
    /// declares no members.
    pub actions: Vec<(String, String)>,
    /// Each named shape, spelled out.
    pub named: BTreeMap<String, String>,
}

impl Shapes {
    pub fn of<'a>(specs: impl IntoIterator<Item = &'a ActionSpec>) -> Self {
        let mut out = Shapes::default();
        let mut keys = BTreeMap::new();
        for spec in specs {
            let shape = Walk {
                root: &spec.payload,
                named: &mut out.named,
                keys: &mut keys,
            }
            .shape(&spec.payload, 2);
            out.actions.push((spec.id.clone(), shape));
        }
        out
    }

    /// The shape of action `id`.
    pub fn get(&self, id: &str) -> Option<&str> {
        self.actions
            .iter()
            .find(|(a, _)| a == id)
            .map(|(_, s)| s.as_str())
    }
}

struct Walk<'r> {
    root: &'r Value,
    named: &'r mut BTreeMap<String, String>,
    /// Each named shape's member names.
    keys: &'r mut BTreeMap<String, Vec<String>>,
}

/// An object schema's members (alternatives merged), in order.
fn members(root: &Value, schema: &Value) -> Vec<(String, Value)> {
    let mut keys: Vec<(String, Value)> = Vec::new();
    let mut add = |props: &Value| {
        for (k, v) in props.as_object().into_iter().flatten() {
            if !COMMON.contains(&k.as_str()) && !keys.iter().any(|(have, _)| have == k) {
                keys.push((k.clone(), v.clone()));
            }
        }
    };
    add(&schema["properties"]);
    for branch in schema["anyOf"].as_array().into_iter().flatten() {
        add(&super::registry::resolved(root, branch)["properties"]);
    }
    keys
}

impl Walk<'_> {
    /// `schema`'s shape `depth` objects deep: an object's members
    /// (alternatives merged), a list as `[item]` (a list costs no level).
    fn shape(&mut self, schema: &Value, depth: usize) -> String {
        let schema = super::registry::resolved(self.root, schema);
        let mut keys = members(self.root, schema);
        if let Some(name) = schema[NAME_MARK].as_str() {
            let own = self.spell(name, schema);
            // A type that flattens a named one into more members (a claim's
            // issue: a Brief and its lease) is the name and the rest.
            keys.retain(|(k, _)| !own.contains(k));
            if keys.is_empty() {
                return name.to_string();
            }
            let rest = self.parts(&keys, depth);
            return format!("{{...{name}, {rest}}}");
        }
        if keys.is_empty() {
            let items = &schema["items"];
            let item = if items.is_object() {
                self.shape(items, depth)
            } else {
                String::new()
            };
            return if item.is_empty() || item == "[]" {
                String::new()
            } else {
                format!("[{item}]")
            };
        }
        format!("{{{}}}", self.parts(&keys, depth))
    }

    /// Spells the shape named `name` (on its first sighting, from `schema`)
    /// and gives its member names.
    fn spell(&mut self, name: &str, schema: &Value) -> Vec<String> {
        let own: Vec<String> = match self.named.get(name) {
            Some(_) => self.keys.get(name).cloned().unwrap_or_default(),
            None => {
                // Reserve the name first: a named shape may contain itself.
                self.named.insert(name.to_string(), String::new());
                let keys = members(self.root, schema);
                let spelled = format!("{{{}}}", self.parts(&keys, 1));
                self.named.insert(name.to_string(), spelled);
                let own: Vec<String> = keys.into_iter().map(|(k, _)| k).collect();
                self.keys.insert(name.to_string(), own.clone());
                own
            }
        };
        own
    }

    /// `k1, k2: {…}, …`: members with their shapes `depth` objects deep.
    fn parts(&mut self, keys: &[(String, Value)], depth: usize) -> String {
        let parts: Vec<String> = keys
            .iter()
            .map(|(k, v)| {
                let inner = if depth > 0 {
                    self.shape(v, depth - 1)
                } else {
                    String::new()
                };
                if inner.is_empty() || inner == "[]" {
                    k.clone()
                } else {
                    format!("{k}: {inner}")
                }
            })
            .collect();
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys the blind corpus's writers could not see are in the shapes.
    #[test]
    fn shapes_name_the_keys_programs_read() {
        let registry = crate::runtime::builtin_registry();
        let shapes = Shapes::of(registry.specs());
        assert_eq!(shapes.actions.len(), registry.specs().count());
        let has = |id: &str, text: &str| {
            let shape = shapes.get(id).unwrap_or_else(|| panic!("{id}"));
            assert!(shape.contains(text), "{id}: {shape}");
        };
        has("issue.blocked", "items: [Item]");
        has("issue.show", "blockers: [Blocker]");
        assert!(
            shapes.named["Item"].contains("blockers: [Blocker]"),
            "{:?}",
            shapes.named
        );
        assert!(
            shapes.named["Blocker"].contains("dependsOnId"),
            "{:?}",
            shapes.named
        );
        has("harness.retry.decide", "Decision");
        for key in ["ruleId", "backoffClass"] {
            assert!(shapes.named["Decision"].contains(key), "{:?}", shapes.named);
        }
        // A claim's issue is a Brief and its lease.
        has("issue.claim", "issue: {...Brief, lease: Lease}");
        has("issue.show", "issue: Issue");
        let issue = &shapes.named["Issue"];
        for key in [
            "id",
            "title",
            "acceptance_criteria",
            "dependencies",
            "lease",
        ] {
            assert!(issue.contains(key), "{issue}");
        }
        for (id, shape) in &shapes.actions {
            assert!(!shape.is_empty(), "{id} has no payload shape");
            println!("{id} -> {shape}");
        }
        for (name, shape) in &shapes.named {
            println!("{name} = {shape}");
        }
    }
}

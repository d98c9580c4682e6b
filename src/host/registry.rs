//! The host registry: action ids → actions, argument schemas, and the
//! profile's denials (host-api §4). Like a wasmtime `Linker`: embedders
//! register their own actions next to the built-in ones.

use super::action::{ActionKind, ArgSpec, ArgType, HostAction};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A program passed arguments that do not fit the action's schema.
pub const CLASS_ARGS_INVALID: &str = "host.args_invalid";
/// An id that is neither registered nor denied.
pub const CLASS_UNALLOWLISTED: &str = "scheme_eval.host_action_unallowlisted";
/// An action failed inside (I/O error, corrupt store); the program goes on.
pub const CLASS_EXECUTION_ERROR: &str = "scheme_eval.host_action_execution_error";

/// Prefixes the profile denies outright (`scheme_eval.effect_denied`).
pub const DENIED_PREFIXES: &[&str] = &["shell.", "exec.", "network.", "http.", "fs."];
/// Ids the profile denies outright besides the prefixes.
pub const DENIED_IDS: &[&str] = &["instruction.run"];

/// Why an action cannot be registered.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    #[error("action `{0}` is registered twice")]
    Duplicate(String),
    #[error("action `{0}` is denied by the steel.sandbox.v1 profile and cannot be registered")]
    Denied(String),
    #[error(
        "action `{action}` declares argument `{arg}`, which would let a program choose a file"
    )]
    PathArgument { action: String, arg: String },
    #[error("action id `{0}` is not a valid identifier (letters, digits, `.`, `_`, `-`)")]
    BadId(String),
}

/// How an id resolves for a call.
pub enum Resolution {
    Action(Arc<dyn HostAction>),
    /// Denied by the profile (or by the read-only profile, with the reason).
    Denied(String),
    Unallowlisted,
}

/// The set of host actions one engine exposes.
#[derive(Clone, Default)]
pub struct Registry {
    actions: BTreeMap<String, Arc<dyn HostAction>>,
    read_only: bool,
}

/// Whether the profile denies `id` outright.
pub fn is_denied_id(id: &str) -> bool {
    DENIED_IDS.contains(&id) || DENIED_PREFIXES.iter().any(|p| id.starts_with(p))
}

/// Argument names that would let a program pick a file.
/// Words are split at camelCase humps, `_`, `-` and `.` (`issuesPath`,
/// `log_file`), so `governanceProfile` is not mistaken for a file.
fn is_path_like(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' || c.is_ascii_uppercase() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            if c.is_ascii_uppercase() {
                current.push(c.to_ascii_lowercase());
            }
        } else {
            current.push(c.to_ascii_lowercase());
        }
    }
    words.push(current);
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "path" | "paths" | "file" | "filename" | "dir" | "directory" | "folder"
        )
    })
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an action. Denied ids, duplicate ids and path-choosing argument
    /// names are refused here, so no engine can ever expose them.
    pub fn register(&mut self, action: Arc<dyn HostAction>) -> Result<&mut Self, RegistryError> {
        let id = action.id().to_string();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return Err(RegistryError::BadId(id));
        }
        if is_denied_id(&id) {
            return Err(RegistryError::Denied(id));
        }
        if let Some(arg) = action.args().iter().find(|a| is_path_like(a.name)) {
            return Err(RegistryError::PathArgument {
                action: id,
                arg: arg.name.to_string(),
            });
        }
        if self.actions.contains_key(&id) {
            return Err(RegistryError::Duplicate(id));
        }
        self.actions.insert(id, action);
        Ok(self)
    }

    /// The same registry without mutation actions: the process-seam profile,
    /// in which no write path exists at all.
    pub fn read_only(&self) -> Registry {
        Registry {
            actions: self
                .actions
                .iter()
                .filter(|(_, a)| a.kind() == ActionKind::Read)
                .map(|(id, a)| (id.clone(), a.clone()))
                .collect(),
            read_only: true,
        }
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Registered ids in sorted order.
    pub fn ids(&self) -> Vec<String> {
        self.actions.keys().cloned().collect()
    }

    pub fn get(&self, id: &str) -> Option<&Arc<dyn HostAction>> {
        self.actions.get(id)
    }

    /// Resolves an id for a call (host-api §4's order: profile denial first).
    pub fn resolve(
        &self,
        id: &str,
        full_catalogue: &dyn Fn(&str) -> Option<ActionKind>,
    ) -> Resolution {
        if is_denied_id(id) {
            return Resolution::Denied(format!(
                "action `{id}` is denied by the steel.sandbox.v1 profile: shell, exec, network, http and fs \
                 actions and instruction.run are never available to programs"
            ));
        }
        match self.actions.get(id) {
            Some(action) => Resolution::Action(action.clone()),
            None if self.read_only && full_catalogue(id) == Some(ActionKind::Mutation) => Resolution::Denied(format!(
                "action `{id}` mutates, and this engine runs the read-only profile: no write path exists"
            )),
            None => Resolution::Unallowlisted,
        }
    }
}

/// Validates `args` against `schema`: unknown keys, wrong types and missing
/// required keys are refused with a diagnostic naming the key.
pub fn validate_args(
    schema: &[ArgSpec],
    args: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    let map = match args {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err("arguments must be one hash".to_string()),
    };
    for key in map.keys() {
        if !schema.iter().any(|s| s.name == key) {
            let known: Vec<&str> = schema.iter().map(|s| s.name).collect();
            return Err(if is_path_like(key) {
                format!("`{key}` is not accepted: programs never choose files; paths come from the host's configuration")
            } else if known.is_empty() {
                format!("unknown key `{key}`: this action takes no arguments")
            } else {
                format!("unknown key `{key}`; accepted keys: {}", known.join(", "))
            });
        }
    }
    for spec in schema {
        match map.get(spec.name) {
            None | Some(Value::Null) if spec.required => {
                return Err(format!(
                    "missing required key `{}` ({})",
                    spec.name,
                    type_name(spec.ty)
                ))
            }
            None | Some(Value::Null) => {}
            Some(value) if !type_matches(spec.ty, value) => {
                return Err(format!(
                    "key `{}` must be {}, got {}",
                    spec.name,
                    type_name(spec.ty),
                    json_type_name(value)
                ))
            }
            Some(_) => {}
        }
    }
    // Absent optionals and explicit nulls mean the same; drop the nulls.
    Ok(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
}

fn type_matches(ty: ArgType, value: &Value) -> bool {
    match ty {
        ArgType::String => value.is_string(),
        ArgType::Integer => value.is_i64() || value.is_u64(),
        ArgType::Bool => value.is_boolean(),
        ArgType::StringList => value
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)),
        ArgType::Object => value.is_object(),
        ArgType::Any => true,
    }
}

fn type_name(ty: ArgType) -> &'static str {
    match ty {
        ArgType::String => "a string",
        ArgType::Integer => "an integer",
        ArgType::Bool => "a boolean",
        ArgType::StringList => "a list of strings",
        ArgType::Object => "a hash",
        ArgType::Any => "any value",
    }
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a real number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a hash",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SCHEMA: &[ArgSpec] = &[
        ArgSpec::required("id", ArgType::String),
        ArgSpec::optional("labels", ArgType::StringList),
        ArgSpec::optional("priority", ArgType::Integer),
    ];

    #[test]
    fn schema_names_the_key() {
        assert!(validate_args(SCHEMA, Some(&json!({"id": "a", "labels": ["x"]}))).is_ok());
        let e = validate_args(SCHEMA, Some(&json!({"id": "a", "color": 1}))).unwrap_err();
        assert!(e.contains("`color`"), "{e}");
        let e = validate_args(SCHEMA, Some(&json!({"id": 3}))).unwrap_err();
        assert!(e.contains("`id`") && e.contains("string"), "{e}");
        let e = validate_args(SCHEMA, None).unwrap_err();
        assert!(e.contains("missing required key `id`"), "{e}");
        let e =
            validate_args(SCHEMA, Some(&json!({"id": "a", "issuesPath": "/tmp/x"}))).unwrap_err();
        assert!(e.contains("never choose files"), "{e}");
        let e = validate_args(SCHEMA, Some(&json!({"id": "a", "priority": 1.5}))).unwrap_err();
        assert!(e.contains("`priority`"), "{e}");
    }
}

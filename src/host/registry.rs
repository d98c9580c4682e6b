//! The host registry: action ids → actions, argument schemas, and the
//! profile's denials (host-api §4). Like a wasmtime `Linker`: embedders
//! register their own actions next to the built-in ones.

use super::action::{ActionKind, HostAction};
use super::declare::ActionSpec;
use crate::host::HostClass;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A program passed arguments that do not fit the action's schema.
pub const CLASS_ARGS_INVALID: &str = HostClass::ArgsInvalid.as_str();
/// An id that is neither registered nor denied.
pub const CLASS_UNALLOWLISTED: &str = HostClass::Unallowlisted.as_str();
/// An action failed inside (I/O error, corrupt store); the program goes on.
pub const CLASS_EXECUTION_ERROR: &str = HostClass::ExecutionError.as_str();

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
    /// Shared: every run takes a copy of its host's registry.
    actions: Arc<BTreeMap<String, Arc<dyn HostAction>>>,
    /// Mutations the read-only profile left out: calling one says why.
    withheld: BTreeSet<String>,
    read_only: bool,
    /// Actions a run's `actions` list left out: calling one says why.
    narrowed: BTreeSet<String>,
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
        if let Some((arg, _, _)) = super::declare::arg_list(action.args_schema())
            .into_iter()
            .find(|(name, _, _)| is_path_like(name))
        {
            return Err(RegistryError::PathArgument { action: id, arg });
        }
        if self.actions.contains_key(&id) {
            return Err(RegistryError::Duplicate(id));
        }
        Arc::make_mut(&mut self.actions).insert(id, action);
        Ok(self)
    }

    /// The same registry without mutation actions: the process-seam profile,
    /// in which no write path exists at all.
    pub fn read_only(&self) -> Registry {
        let (reads, mutations): (Vec<_>, Vec<_>) = self
            .actions
            .iter()
            .partition(|(_, a)| a.kind() == ActionKind::Read);
        Registry {
            actions: Arc::new(
                reads
                    .into_iter()
                    .map(|(id, a)| (id.clone(), a.clone()))
                    .collect(),
            ),
            withheld: mutations
                .into_iter()
                .map(|(id, _)| id.clone())
                .chain(self.withheld.iter().cloned())
                .collect(),
            read_only: true,
            narrowed: self.narrowed.clone(),
        }
    }

    /// The same registry with only the actions in `allowed` (a run's
    /// `actions` list, or a principal's allowlist): the others are not bound
    /// and a call to one is `scheme_eval.effect_denied`, saying why.
    ///
    /// # Errors
    /// An id in `allowed` that is neither registered nor withheld here.
    pub fn narrowed(&self, allowed: &[String]) -> Result<Registry, Vec<String>> {
        let unknown: Vec<String> = allowed
            .iter()
            .filter(|id| !self.actions.contains_key(*id) && !self.withheld.contains(*id))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let (kept, dropped): (Vec<_>, Vec<_>) = self
            .actions
            .iter()
            .partition(|(id, _)| allowed.contains(id));
        Ok(Registry {
            actions: Arc::new(
                kept.into_iter()
                    .map(|(id, a)| (id.clone(), a.clone()))
                    .collect(),
            ),
            withheld: self.withheld.clone(),
            read_only: self.read_only,
            narrowed: dropped
                .into_iter()
                .map(|(id, _)| id.clone())
                .chain(self.narrowed.iter().cloned())
                .collect(),
        })
    }

    /// Actions left out by a narrowing ([`Registry::narrowed`]).
    pub fn narrowed_out(&self) -> Vec<String> {
        self.narrowed.iter().cloned().collect()
    }

    /// Mutation ids the read-only profile left out.
    pub fn withheld(&self) -> Vec<String> {
        self.withheld.iter().cloned().collect()
    }

    /// Every registered action's declaration, in id order.
    pub fn specs(&self) -> impl Iterator<Item = &ActionSpec> {
        self.actions.values().map(|a| a.spec())
    }

    /// Ids of the registered mutations: what the default policy allows.
    pub fn mutation_ids(&self) -> Vec<String> {
        self.actions
            .iter()
            .filter(|(_, a)| a.kind() == ActionKind::Mutation)
            .map(|(id, _)| id.clone())
            .collect()
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
    pub fn resolve(&self, id: &str) -> Resolution {
        if is_denied_id(id) {
            return Resolution::Denied(format!(
                "action `{id}` is denied by the steel.sandbox.v1 profile: shell, exec, network, http and fs \
                 actions and instruction.run are never available to programs"
            ));
        }
        match self.actions.get(id) {
            Some(action) => Resolution::Action(action.clone()),
            None if self.withheld.contains(id) => Resolution::Denied(format!(
                "action `{id}` mutates, and this engine runs the read-only profile: no write path exists"
            )),
            None if self.narrowed.contains(id) => Resolution::Denied(format!(
                "action `{id}` is not in this run's actions list: only the listed actions are bound"
            )),
            None => Resolution::Unallowlisted,
        }
    }
}

/// Validates `args` against an action's argument schema (the subset of JSON
/// Schema the declarations derive: an object of typed properties, some
/// required, no others). Every missing, unknown and mistyped key is named in
/// one diagnostic. Returns the object without explicit nulls (an absent
/// optional and a null mean the same).
pub fn validate_args(schema: &Value, args: Option<&Value>) -> Result<Value, String> {
    let mut map = match args {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err("arguments must be one hash".to_string()),
    };
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    normalize_keys(&mut map, properties);
    let required = super::declare::required(schema);
    let mut problems: Vec<String> = Vec::new();
    let missing: Vec<String> = required
        .iter()
        .filter(|k| map.get(**k).is_none_or(Value::is_null))
        .map(|k| format!("`{k}` ({})", type_words(&properties[*k])))
        .collect();
    if !missing.is_empty() {
        problems.push(format!("missing required key(s) {}", missing.join(", ")));
    }
    let (paths, unknown): (Vec<&String>, Vec<&String>) = map
        .keys()
        .filter(|k| !properties.contains_key(*k))
        .partition(|k| is_path_like(k));
    if !paths.is_empty() {
        let names: Vec<String> = paths.iter().map(|k| format!("`{k}`")).collect();
        problems.push(format!(
            "{} not accepted: programs never choose files; paths come from the host's configuration",
            names.join(", ")
        ));
    }
    // A schema that admits other members (`additionalProperties: true`)
    // takes unknown keys as they are; path-like ones are refused all the same.
    let open = schema["additionalProperties"] == Value::Bool(true);
    if !unknown.is_empty() && !open {
        let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
        problems.push(if properties.is_empty() {
            format!(
                "unknown key(s) {}: this action takes no arguments",
                names.join(", ")
            )
        } else {
            let known: Vec<&str> = properties.keys().map(String::as_str).collect();
            let meant: Vec<String> = unknown
                .iter()
                .filter_map(|k| nearest(k, &known).map(|m| format!("`{m}` for `{k}`")))
                .collect();
            format!(
                "unknown key(s) {}{}; accepted keys: {}",
                names.join(", "),
                if meant.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", meant.join(", "))
                },
                known.join(", ")
            )
        });
    }
    for (key, value) in &map {
        if let Some(prop) = properties.get(key).map(|p| resolved(schema, p)) {
            if let Some(allowed) = prop["enum"].as_array().filter(|_| !value.is_null()) {
                if !allowed.contains(value) {
                    let names: Vec<String> = allowed.iter().map(Value::to_string).collect();
                    problems.push(format!(
                        "key `{key}` must be one of {}, got {}: write \"{key}\" {}",
                        names.join("|"),
                        match value {
                            Value::String(s) => format!("{s:?}"),
                            other => json_type_name(other).to_string(),
                        },
                        names.first().map_or("", String::as_str)
                    ));
                    continue;
                }
            }
            if !value.is_null() && !fits(prop, value) {
                problems.push(format!(
                    "key `{key}` must be {}, got {}: write \"{key}\" {}",
                    type_words(prop),
                    json_type_name(value),
                    example_of(prop)
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    Ok(Value::Object(
        map.into_iter().filter(|(_, v)| !v.is_null()).collect(),
    ))
}

/// A nested argument's error with its path (`filter.label: unknown field
/// …`), and the key that was probably meant when it names an unknown one.
pub fn path_error(path: &str, message: &str) -> String {
    let at = if path.is_empty() || path == "." {
        String::new()
    } else {
        format!("{path}: ")
    };
    let meant = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .and_then(|(unknown, rest)| {
            let known: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
            nearest(unknown, &known)
        })
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    format!("{at}{message}{meant}")
}

/// The known name closest to `name`: the same words in another case style,
/// or a few edits away.
fn nearest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    use crate::spelling::{edit_distance, squash};
    known
        .iter()
        .map(|k| {
            let (n, known) = (squash(name, "_-."), squash(k, "_-."));
            let d = if known == n {
                0
            } else if n.ends_with(&known) || n.starts_with(&known) {
                // `close_reason` for `reason`, `issue_id` for `id`.
                1
            } else {
                edit_distance(&n, &known)
            };
            (d, *k)
        })
        .filter(|(d, k)| *d <= (k.len() / 3).clamp(1, 3))
        .min()
        .map(|(_, k)| k)
}

/// A value of a property's type, as a program writes it: the example an
/// argument error gives.
fn example_of(schema: &Value) -> String {
    let types: Vec<&str> = types_of(schema)
        .into_iter()
        .filter(|t| *t != "null")
        .collect();
    match types.as_slice() {
        ["string"] => match schema["enum"].as_array().and_then(|e| e.first()) {
            Some(Value::String(first)) => format!("{first:?}"),
            _ => "\"text\"".into(),
        },
        ["integer"] | ["number"] => "2".into(),
        ["boolean"] => "#t".into(),
        ["object"] => "(hash \"key\" value)".into(),
        ["array"] => format!(
            "(list {} {})",
            example_of(&schema["items"]),
            example_of(&schema["items"])
        ),
        _ => "a value".into(),
    }
}

/// A property's own schema: its `$ref` followed into the root's `$defs`,
/// and an optional one's `anyOf [X, null]` taken as X.
pub fn resolved<'s>(root: &'s Value, prop: &'s Value) -> &'s Value {
    let mut at = prop;
    for _ in 0..4 {
        if let Some(r) = at["$ref"].as_str() {
            match r
                .strip_prefix("#/$defs/")
                .and_then(|name| root["$defs"].get(name))
            {
                Some(def) => at = def,
                None => return at,
            }
            continue;
        }
        if let Some(options) = at["anyOf"].as_array() {
            let not_null: Vec<&Value> = options.iter().filter(|o| o["type"] != "null").collect();
            if let [one] = not_null.as_slice() {
                at = one;
                continue;
            }
        }
        return at;
    }
    at
}

/// The property a key stands for: itself when it is one, else the one
/// property it spells in another case style (`lease_ttl_seconds`,
/// premath's snake_case; `Acceptance-Criteria`), else the property it is
/// another name of (`x-aliases` in its schema: `id` for `issueId`).
pub fn canonical_name<'p>(properties: &'p Map<String, Value>, key: &str) -> Option<&'p str> {
    use crate::spelling::squash;
    if let Some((name, _)) = properties.get_key_value(key) {
        return Some(name);
    }
    let wanted = squash(key, "_-");
    let mut same = properties.keys().filter(|p| squash(p, "_-") == wanted);
    if let (Some(name), None) = (same.next(), same.next()) {
        return Some(name);
    }
    properties.iter().find_map(|(name, prop)| {
        prop["x-aliases"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|a| a.as_str() == Some(key))
            .then_some(name.as_str())
    })
}

/// `args` with each key renamed to the property it stands for
/// ([`canonical_name`]), where that property is not given under its own
/// name: what the action receives, and what the logs record (so a policy's
/// redaction rule, which names the property, meets every spelling of it).
pub fn canonical_args(schema: &Value, args: Option<Value>) -> Option<Value> {
    match args {
        Some(Value::Object(mut map)) => {
            let empty = Map::new();
            normalize_keys(&mut map, schema["properties"].as_object().unwrap_or(&empty));
            Some(Value::Object(map))
        }
        other => other,
    }
}

/// Renames each key that stands for a property ([`canonical_name`]) to the
/// property's name, only when the property itself is not given.
fn normalize_keys(map: &mut Map<String, Value>, properties: &Map<String, Value>) {
    // Most calls name only known keys: then there is nothing to do (this
    // runs on every host call).
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !properties.contains_key(*k))
        .cloned()
        .collect();
    for key in unknown {
        let Some(name) = canonical_name(properties, &key) else {
            continue;
        };
        if !map.contains_key(name) {
            if let Some(v) = map.remove(&key) {
                map.insert(name.to_string(), v);
            }
        }
    }
}

/// The JSON types a property schema allows (`type` as a name or a list).
fn types_of(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn fits(schema: &Value, value: &Value) -> bool {
    let types = types_of(schema);
    if types.is_empty() {
        return true;
    }
    types.iter().any(|t| match *t {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        "array" => value
            .as_array()
            .is_some_and(|items| items.iter().all(|i| fits(&schema["items"], i))),
        _ => false,
    })
}

fn type_words(schema: &Value) -> String {
    let types: Vec<&str> = types_of(schema)
        .into_iter()
        .filter(|t| *t != "null")
        .collect();
    match types.as_slice() {
        ["string"] => "a string".into(),
        ["integer"] => "an integer".into(),
        ["number"] => "a number".into(),
        ["boolean"] => "a boolean".into(),
        ["object"] => "a hash".into(),
        ["array"] => format!("a list of {}", plural(&type_words(&schema["items"]))),
        _ => "any value".into(),
    }
}

fn plural(words: &str) -> String {
    match words.split_once(' ') {
        Some((_, noun)) if noun != "value" => format!("{noun}s"),
        _ => "values".into(),
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

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        id: String,
        labels: Option<Vec<String>>,
        priority: Option<i64>,
    }

    #[test]
    fn one_diagnostic_names_every_key() {
        let schema = crate::host::declare::args_schema::<Sample>();
        assert!(validate_args(&schema, Some(&json!({"id": "a", "labels": ["x"]}))).is_ok());
        let e = validate_args(&schema, Some(&json!({"id": "a", "color": 1}))).unwrap_err();
        assert!(e.contains("`color`"), "{e}");
        let e = validate_args(&schema, Some(&json!({"id": 3}))).unwrap_err();
        assert!(e.contains("`id`") && e.contains("string"), "{e}");
        let e = validate_args(&schema, None).unwrap_err();
        assert!(e.contains("missing required key(s) `id`"), "{e}");
        let e =
            validate_args(&schema, Some(&json!({"id": "a", "issuesPath": "/tmp/x"}))).unwrap_err();
        assert!(e.contains("never choose files"), "{e}");
        let e = validate_args(&schema, Some(&json!({"id": "a", "priority": 1.5}))).unwrap_err();
        assert!(e.contains("`priority`"), "{e}");
        // All at once: missing, unknown and mistyped.
        let e = validate_args(
            &schema,
            Some(&json!({"colour": 1, "size": 2, "labels": [1]})),
        )
        .unwrap_err();
        for part in [
            "`id`",
            "`colour`",
            "`size`",
            "`labels`",
            "a list of strings",
        ] {
            assert!(e.contains(part), "{part}: {e}");
        }
    }
}

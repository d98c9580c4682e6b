//! One declaration per host action.
//!
//! An action is declared once: its id, whether it reads or mutates, a typed
//! argument struct (serde + schemars: the struct validates the arguments and
//! yields their JSON Schema, draft 2020-12), the payload's schema, the failure
//! classes it can report, a one-line description and an example call. The
//! registry, argument validation, the default mutation policy, `(host-actions)`,
//! `(host-describe "id")`, `tusk actions`, `docs/actions.md` and the MCP tools
//! all derive from these declarations; adding an action touches its
//! declaration and its domain function, nothing else.

use super::action::{ActionContext, ActionError, ActionKind, ActionOutcome};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::marker::PhantomData;
use std::sync::Arc;

/// Everything known about an action besides its code.
#[derive(Clone, Debug)]
pub struct ActionSpec {
    pub id: String,
    pub kind: ActionKind,
    /// One line: what the action does.
    pub description: String,
    /// JSON Schema of the argument object.
    pub args: Value,
    /// JSON Schema of the accepted payload.
    pub payload: Value,
    /// The failure classes the action itself can report (besides the host's
    /// own: argument errors, the mutation gate, execution errors).
    pub failure_classes: Vec<String>,
    /// A call in Scheme form.
    pub example: String,
}

impl ActionSpec {
    /// The spec as JSON (`describe_actions`, `(host-describe)`, `tusk actions --json`).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "kind": match self.kind { ActionKind::Read => "read", ActionKind::Mutation => "mutation" },
            "description": self.description,
            "args": self.args,
            "payload": self.payload,
            "failureClasses": self.failure_classes,
            "example": self.example,
        })
    }

    /// The argument names with their JSON types and whether each is required.
    pub fn arg_list(&self) -> Vec<(String, String, bool)> {
        arg_list(&self.args)
    }

    /// `(issue.claim (hash "id" string "assignee" string ["leaseId" string]))`:
    /// the call's shape in one line, optional keys in brackets.
    pub fn signature(&self) -> String {
        let args = self.arg_list();
        if args.is_empty() {
            return format!("({})", self.id);
        }
        let mut parts: Vec<(bool, String)> = args
            .into_iter()
            .map(|(name, ty, required)| {
                let pair = format!("\"{name}\" {ty}");
                (required, if required { pair } else { format!("[{pair}]") })
            })
            .collect();
        // Required keys first, each group in schema order.
        parts.sort_by_key(|(required, _)| !required);
        let inner: Vec<String> = parts.into_iter().map(|(_, p)| p).collect();
        format!("({} (hash {}))", self.id, inner.join(" "))
    }
}

/// The argument names of an argument schema, each with its type label and
/// whether it is required.
pub fn arg_list(args: &Value) -> Vec<(String, String, bool)> {
    let required = required(args);
    args["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, schema)| {
            (
                name.clone(),
                type_label(args, schema),
                required.contains(&name.as_str()),
            )
        })
        .collect()
}

/// The keys of a hash-typed argument (the filter's `labels`, `labelsAny`,
/// …), for the docs that list an action's arguments; empty for others.
pub fn nested_keys(args: &Value, name: &str) -> Vec<String> {
    let prop = super::registry::resolved(args, &args["properties"][name]);
    prop["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The names an object schema's `required` lists.
pub fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// A short type name for a property schema of the argument schema `root`
/// (`string`, `integer`, `list-of-string`, `hash`, `any`, and an enum's
/// values: `"down"|"up"|"both"`); what `signature` shows and
/// tests/it/catalogue.rs parses back.
pub fn type_label(root: &Value, schema: &Value) -> String {
    let schema = super::registry::resolved(root, schema);
    if let Some(values) = schema["enum"].as_array() {
        let names: Vec<String> = values.iter().map(Value::to_string).collect();
        return names.join("|");
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    };
    match types.as_slice() {
        ["array"] => format!("list-of-{}", type_label(root, &schema["items"])),
        ["object"] => "hash".to_string(),
        [one] => (*one).to_string(),
        _ => "any".to_string(),
    }
}

/// The declaration of one action, minus its argument type and its code.
pub struct Declaration {
    pub id: &'static str,
    pub kind: ActionKind,
    pub description: &'static str,
    /// The accepted payload's JSON Schema, built when the declaration is
    /// first read (a describe, a call): a run pays only for the actions it
    /// uses, and a cold start for none.
    pub payload: fn() -> Value,
    pub failure_classes: &'static [&'static str],
    pub example: &'static str,
}

/// The arguments' JSON Schema, derived from their type. `true` schemas (a
/// field of any JSON value) are written `{}`: some MCP clients refuse a
/// schema that is a bare boolean.
pub fn args_schema<A: JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(A).to_value();
    if let Value::Object(map) = &mut schema {
        map.remove("title");
        if !map.contains_key("properties") {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
    }
    no_boolean_schemas(&mut schema);
    // An actor argument says its rule where a model reads the argument.
    if let Some(props) = schema["properties"].as_object_mut() {
        for prop in props
            .values_mut()
            .filter(|p| p.get(super::actor::ACTOR_MARK).is_some())
        {
            let text = prop["description"].as_str().unwrap_or_default().to_string();
            prop["description"] = Value::String(
                format!("{text} {}", super::actor::ACTOR_NOTE)
                    .trim()
                    .to_string(),
            );
        }
    }
    schema
}

/// A payload as JSON: what a payload type serializes to (the same type its
/// declaration's [`payload_schema`] is derived from). Payload types are plain
/// data, so serializing one cannot fail.
pub fn payload_json<T: Serialize>(payload: &T) -> Value {
    serde_json::to_value(payload).expect("a payload type serializes")
}

/// The accepted payload's JSON Schema, derived from the type the payload
/// serializes from (schemars' serialize contract: a field is required unless
/// it can be left out). Subschemas are inlined (no `$ref`, no `$defs`), so
/// each schema stands alone; an untagged enum of objects (a payload of two
/// shapes) is still `type: object`; `true` schemas are written `{}`; the
/// type's own doc comment is left out.
pub fn payload_schema<T: JsonSchema>() -> Value {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(map) = &mut schema {
        // The action's own description says what the payload is.
        map.remove("title");
        map.remove("description");
        if !map.contains_key("type") {
            map.insert("type".into(), json!("object"));
        }
    }
    no_boolean_schemas(&mut schema);
    schema
}

fn no_boolean_schemas(schema: &mut Value) {
    if let Value::Object(map) = schema {
        // `true` is the default; written out it is one more bare boolean.
        if map.get("additionalProperties") == Some(&Value::Bool(true)) {
            map.remove("additionalProperties");
        }
        for (key, value) in map.iter_mut() {
            match key.as_str() {
                "properties" | "$defs" => {
                    if let Value::Object(props) = value {
                        for sub in props.values_mut() {
                            if let Value::Bool(b) = sub {
                                *sub = if *b { json!({}) } else { json!({"not": {}}) };
                            }
                            no_boolean_schemas(sub);
                        }
                    }
                }
                "items" | "additionalProperties" => {
                    if let Value::Bool(true) = value {
                        *value = json!({});
                    }
                    no_boolean_schemas(value);
                }
                "anyOf" | "oneOf" | "allOf" => {
                    for sub in value.as_array_mut().into_iter().flatten() {
                        if let Value::Bool(true) = sub {
                            *sub = json!({});
                        }
                        no_boolean_schemas(sub);
                    }
                }
                _ => {}
            }
        }
    }
}

/// An action declared with typed arguments `A` and its code `F`.
struct Declared<A, F> {
    declaration: Declaration,
    /// The argument schema, derived at declaration: registration checks its
    /// names.
    args: Value,
    spec: std::sync::OnceLock<ActionSpec>,
    run: F,
    types: PhantomData<fn() -> A>,
}

/// Absent is absent (issue 56): a member whose value is the empty string
/// (an unassigned issue's `assignee`, an edge's unset `createdBy`) is left
/// out of the payload a program gets, so `(hash-ref i "assignee" #f)` is
/// `#f` for it, not `""` (which is true). Lists are kept as they are.
pub fn without_empty_strings(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| v.as_str() != Some(""));
            map.values_mut().for_each(without_empty_strings);
        }
        Value::Array(items) => items.iter_mut().for_each(without_empty_strings),
        _ => {}
    }
}

/// A payload schema under [`without_empty_strings`]: no string member is
/// required, since an empty one is left out.
fn optional_strings(mut schema: Value) -> Value {
    fn walk(schema: &mut Value) {
        let Some(map) = schema.as_object_mut() else {
            return;
        };
        let strings: Vec<String> = map
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .filter(|(_, p)| match &p["type"] {
                        Value::String(t) => t == "string",
                        Value::Array(ts) => ts.iter().any(|t| t == "string"),
                        _ => false,
                    })
                    .map(|(k, _)| k.clone())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(|r| !r.as_str().is_some_and(|r| strings.iter().any(|s| s == r)));
        }
        for v in map.values_mut() {
            match v {
                Value::Object(_) => walk(v),
                Value::Array(items) => items.iter_mut().for_each(walk),
                _ => {}
            }
        }
    }
    walk(&mut schema);
    schema
}

/// Builds an action from its declaration and its domain function, which
/// receives the arguments already validated and typed.
pub fn declare<A, F>(declaration: Declaration, run: F) -> Arc<dyn super::HostAction>
where
    A: DeserializeOwned + JsonSchema + 'static,
    F: Fn(&ActionContext<'_>, A) -> Result<ActionOutcome, ActionError> + Send + Sync + 'static,
{
    Arc::new(Declared {
        declaration,
        args: args_schema::<A>(),
        spec: std::sync::OnceLock::new(),
        run,
        types: PhantomData,
    })
}

impl<A, F> super::HostAction for Declared<A, F>
where
    A: DeserializeOwned + JsonSchema + 'static,
    F: Fn(&ActionContext<'_>, A) -> Result<ActionOutcome, ActionError> + Send + Sync + 'static,
{
    fn spec(&self) -> &ActionSpec {
        self.spec.get_or_init(|| {
            let d = &self.declaration;
            ActionSpec {
                id: d.id.to_string(),
                kind: d.kind,
                description: d.description.to_string(),
                args: self.args.clone(),
                payload: optional_strings((d.payload)()),
                failure_classes: d.failure_classes.iter().map(|c| c.to_string()).collect(),
                example: d.example.to_string(),
            }
        })
    }

    fn id(&self) -> &str {
        self.declaration.id
    }

    fn kind(&self) -> ActionKind {
        self.declaration.kind
    }

    fn args_schema(&self) -> &Value {
        &self.args
    }

    fn call(&self, ctx: &ActionContext<'_>, args: Value) -> Result<ActionOutcome, ActionError> {
        match serde_path_to_error::deserialize::<_, A>(args) {
            Ok(args) => (self.run)(ctx, args).map(|mut outcome| {
                without_empty_strings(&mut outcome.payload);
                outcome
            }),
            // The schema check passed, but the type is stricter (an integer
            // out of range, a nested hash's key): still the program's
            // arguments, named by their path.
            Err(e) => Ok(ActionOutcome::rejected(
                vec![super::registry::CLASS_ARGS_INVALID.to_string()],
                super::registry::path_error(&e.path().to_string(), &e.inner().to_string()),
            )),
        }
    }
}

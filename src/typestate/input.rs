//! A typed reader over the raw input JSON that names the offending field in every
//! error, so the CLI's `harness_join_check_invalid: <field and reason>` line is
//! precise without each caller formatting paths itself.

use super::TypestateInputError;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

type Result<T> = std::result::Result<T, TypestateInputError>;

/// One JSON object of the input together with its path (`evidence.toolResults[2]`).
pub(super) struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    /// Wraps `value`, which must be an object, as the object found at `path`.
    pub(super) fn new(value: &'a Value, path: impl Into<String>) -> Result<Self> {
        let path = path.into();
        match value {
            Value::Object(map) => Ok(Self { map, path }),
            other => Err(TypestateInputError::new(
                path,
                format!("must be an object, got {}", kind_of(other)),
            )),
        }
    }

    pub(super) fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The value under `key`; JSON `null` counts as absent, as an optional field
    /// written out as `null` means "not given".
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn req_obj(&self, key: &str) -> Result<Obj<'a>> {
        match self.get(key) {
            Some(v) => Obj::new(v, self.field(key)),
            None => Err(missing(self.field(key))),
        }
    }

    pub(super) fn opt_obj(&self, key: &str) -> Result<Option<Obj<'a>>> {
        self.get(key)
            .map(|v| Obj::new(v, self.field(key)))
            .transpose()
    }

    /// A required string: trimmed, and an error when empty after trimming.
    pub(super) fn req_str(&self, key: &str) -> Result<String> {
        match self.opt_str(key)? {
            Some(s) => Ok(s),
            None if self.get(key).is_some() => Err(TypestateInputError::new(
                self.field(key),
                "must not be empty or blank",
            )),
            None => Err(missing(self.field(key))),
        }
    }

    /// An optional string: trimmed; empty after trimming becomes absent.
    pub(super) fn opt_str(&self, key: &str) -> Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => {
                let t = s.trim();
                Ok((!t.is_empty()).then(|| t.to_string()))
            }
            Some(other) => Err(TypestateInputError::new(
                self.field(key),
                format!("must be a string, got {}", kind_of(other)),
            )),
        }
    }

    /// A required string that the spec compares case-insensitively.
    pub(super) fn req_lower(&self, key: &str) -> Result<String> {
        self.req_str(key).map(|s| s.to_lowercase())
    }

    pub(super) fn opt_lower(&self, key: &str) -> Result<Option<String>> {
        Ok(self.opt_str(key)?.map(|s| s.to_lowercase()))
    }

    pub(super) fn req_bool(&self, key: &str) -> Result<bool> {
        self.opt_bool(key)?.ok_or_else(|| missing(self.field(key)))
    }

    pub(super) fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(TypestateInputError::new(
                self.field(key),
                format!("must be a boolean, got {}", kind_of(other)),
            )),
        }
    }

    /// Any JSON value under `key` (an opaque tool payload).
    pub(super) fn opt_any(&self, key: &str) -> Option<&'a Value> {
        self.get(key)
    }

    /// A list of row objects; a missing list is empty.
    pub(super) fn rows(&self, key: &str) -> Result<Vec<Obj<'a>>> {
        let items = self.array(key)?;
        let field = self.field(key);
        items
            .iter()
            .enumerate()
            .map(|(i, item)| Obj::new(item, format!("{field}[{i}]")))
            .collect()
    }

    /// A reference list: each entry trimmed, blanks dropped, de-duplicated and
    /// sorted (a `BTreeSet` is exactly that order).
    pub(super) fn ref_set(&self, key: &str) -> Result<BTreeSet<String>> {
        let items = self.array(key)?;
        let field = self.field(key);
        let mut out = BTreeSet::new();
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => {
                    let t = s.trim();
                    if !t.is_empty() {
                        out.insert(t.to_string());
                    }
                }
                other => {
                    return Err(TypestateInputError::new(
                        format!("{field}[{i}]"),
                        format!("must be a string, got {}", kind_of(other)),
                    ))
                }
            }
        }
        Ok(out)
    }

    fn array(&self, key: &str) -> Result<&'a [Value]> {
        match self.get(key) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(TypestateInputError::new(
                self.field(key),
                format!("must be an array, got {}", kind_of(other)),
            )),
        }
    }
}

fn missing(field: String) -> TypestateInputError {
    TypestateInputError::new(field, "required field is missing")
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

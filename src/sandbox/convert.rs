//! Scheme values ⇄ JSON (host-api §3).
//!
//! Scheme → JSON: integers and finite reals → numbers, strings → strings,
//! booleans, symbols → strings, lists and vectors → arrays, hash maps with string
//! or symbol keys → objects, void and the empty list → null. As a *result value*
//! anything else becomes a marker string (`"#<procedure>"`, …); as *host-call
//! arguments* it is an error (`host.args_invalid`). Conversion is iterative-depth
//! bounded and cycle-safe, because a program can build a vector that contains
//! itself.
//!
//! JSON → Scheme (envelopes handed to programs): null → void, arrays → lists,
//! objects → immutable hash maps with string keys.

use serde_json::{Map, Number, Value};
use std::collections::HashSet;
use steel::gc::Gc;
use steel::gc::ShareableMut;
use steel::rvals::SteelVal;

/// Values nested deeper than this are not converted.
pub const MAX_DEPTH: usize = 256;

/// Why a Scheme value could not become host-call arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// Dotted path of the offending member (`labels[2]`), empty at the top.
    pub path: String,
    pub reason: String,
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "`{}`: {}", self.path, self.reason)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Result value: unrepresentable parts become marker strings.
    Lenient,
    /// Host-call arguments: unrepresentable parts are errors.
    Strict,
}

/// Converts a program's final value; never fails.
pub fn value_to_json(value: &SteelVal) -> Value {
    let mut seen = HashSet::new();
    to_json(value, Mode::Lenient, 0, &mut seen, &mut String::new()).unwrap_or(Value::Null)
}

/// Converts host-call arguments; unrepresentable members are errors.
pub fn args_to_json(value: &SteelVal) -> Result<Value, ConvertError> {
    let mut seen = HashSet::new();
    to_json(value, Mode::Strict, 0, &mut seen, &mut String::new())
}

fn marker(mode: Mode, path: &str, text: &str, reason: &str) -> Result<Value, ConvertError> {
    match mode {
        Mode::Lenient => Ok(Value::String(text.to_string())),
        Mode::Strict => Err(ConvertError {
            path: path.to_string(),
            reason: reason.to_string(),
        }),
    }
}

fn float(mode: Mode, path: &str, f: f64) -> Result<Value, ConvertError> {
    match Number::from_f64(f) {
        Some(n) => Ok(Value::Number(n)),
        None => {
            let text = if f.is_nan() {
                "+nan.0"
            } else if f > 0.0 {
                "+inf.0"
            } else {
                "-inf.0"
            };
            marker(mode, path, text, "a non-finite number has no JSON form")
        }
    }
}

fn to_json(
    value: &SteelVal,
    mode: Mode,
    depth: usize,
    seen: &mut HashSet<usize>,
    path: &mut String,
) -> Result<Value, ConvertError> {
    if depth > MAX_DEPTH {
        return marker(mode, path, "#<too-deep>", "value nests too deeply");
    }
    Ok(match value {
        SteelVal::Void => Value::Null,
        SteelVal::BoolV(b) => Value::Bool(*b),
        SteelVal::IntV(i) => Value::Number((*i as i64).into()),
        SteelVal::NumV(f) => return float(mode, path, *f),
        SteelVal::Rational(r) => return float(mode, path, *r.numer() as f64 / *r.denom() as f64),
        SteelVal::BigNum(b) => {
            let text = b.to_string();
            match text
                .parse::<i64>()
                .map(Number::from)
                .or_else(|_| text.parse::<u64>().map(Number::from))
            {
                Ok(n) => Value::Number(n),
                Err(_) => return marker(mode, path, &text, "integer too large for JSON"),
            }
        }
        SteelVal::CharV(c) => Value::String(c.to_string()),
        SteelVal::StringV(s) => Value::String(s.as_str().to_string()),
        SteelVal::SymbolV(s) => Value::String(s.as_str().to_string()),
        SteelVal::ListV(list) => {
            if list.is_empty() {
                Value::Null
            } else {
                seq(list.iter(), mode, depth, seen, path)?
            }
        }
        SteelVal::VectorV(v) => seq(v.iter(), mode, depth, seen, path)?,
        SteelVal::MutableVector(v) => {
            let id = v.as_ptr_usize();
            if !seen.insert(id) {
                return marker(mode, path, "#<cycle>", "value contains itself");
            }
            let items: Vec<SteelVal> = v.borrow(|items| items.clone());
            let out = seq(items.iter(), mode, depth, seen, path);
            seen.remove(&id);
            out?
        }
        SteelVal::HashMapV(map) => {
            let mut entries: Vec<(String, &SteelVal)> = Vec::with_capacity(map.len());
            for (k, v) in map.iter() {
                let key = match k {
                    SteelVal::StringV(s) | SteelVal::SymbolV(s) => s.as_str().to_string(),
                    _ => {
                        return marker(
                            mode,
                            path,
                            "#<hash>",
                            "hash keys must be strings or symbols",
                        )
                    }
                };
                entries.push((key, v));
            }
            // Hash iteration order is arbitrary; sort so results are deterministic.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = Map::with_capacity(entries.len());
            for (key, v) in entries {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key);
                let converted = to_json(v, mode, depth + 1, seen, path);
                path.truncate(len);
                out.insert(key, converted?);
            }
            Value::Object(out)
        }
        // Not constructible from the allowlist; the depth bound still ends any cycle.
        SteelVal::Boxed(b) => {
            let inner = b.read().clone();
            to_json(&inner, mode, depth + 1, seen, path)?
        }
        SteelVal::HeapAllocated(h) => {
            let id = h.as_ptr_usize();
            let inner = h.get();
            boxed(id, &inner, mode, depth, seen, path)?
        }
        SteelVal::Closure(_)
        | SteelVal::FuncV(_)
        | SteelVal::BoxedFunction(_)
        | SteelVal::BuiltIn(_)
        | SteelVal::MutFunc(_)
        | SteelVal::ContinuationFunction(_) => {
            return marker(
                mode,
                path,
                "#<procedure>",
                "a procedure cannot be a host-call argument",
            )
        }
        SteelVal::Pair(_) => {
            return marker(mode, path, "#<pair>", "an improper list has no JSON form")
        }
        SteelVal::HashSetV(_) => {
            return marker(mode, path, "#<set>", "a set has no JSON form; use a list")
        }
        _ => {
            return marker(
                mode,
                path,
                "#<value>",
                "this kind of value has no JSON form",
            )
        }
    })
}

fn boxed(
    id: usize,
    inner: &SteelVal,
    mode: Mode,
    depth: usize,
    seen: &mut HashSet<usize>,
    path: &mut String,
) -> Result<Value, ConvertError> {
    if !seen.insert(id) {
        return marker(mode, path, "#<cycle>", "value contains itself");
    }
    let out = to_json(inner, mode, depth + 1, seen, path);
    seen.remove(&id);
    out
}

fn seq<'a>(
    items: impl Iterator<Item = &'a SteelVal>,
    mode: Mode,
    depth: usize,
    seen: &mut HashSet<usize>,
    path: &mut String,
) -> Result<Value, ConvertError> {
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        let converted = to_json(item, mode, depth + 1, seen, path);
        path.truncate(len);
        out.push(converted?);
    }
    Ok(Value::Array(out))
}

/// Converts JSON (an envelope, say) into an immutable Scheme value.
pub fn json_to_value(value: &Value) -> SteelVal {
    match value {
        Value::Null => SteelVal::Void,
        Value::Bool(b) => SteelVal::BoolV(*b),
        Value::Number(n) => match n.as_i64().and_then(|i| isize::try_from(i).ok()) {
            Some(i) => SteelVal::IntV(i),
            None => SteelVal::NumV(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => SteelVal::StringV(s.as_str().into()),
        Value::Array(items) => SteelVal::ListV(items.iter().map(json_to_value).collect()),
        Value::Object(map) => {
            let out: steel::HashMap<SteelVal, SteelVal> = map
                .iter()
                .map(|(k, v)| (SteelVal::StringV(k.as_str().into()), json_to_value(v)))
                .collect();
            SteelVal::HashMapV(Gc::new(out).into())
        }
    }
}

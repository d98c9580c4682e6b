//! Scheme values ⇄ JSON (host-api §3).
//!
//! Scheme → JSON: integers and finite reals → numbers, strings → strings,
//! booleans, symbols → strings, lists and vectors → arrays, a pair that is
//! not a list (`(cons "a" 1)`) → a two-element array (so an association
//! list is an array of pairs; issue 62), hash maps with string or symbol
//! keys → objects, void alone (or as a hash member) → null, an integer
//! past 64 bits → its exact decimal text. Anything else — a procedure, a
//! set, a port, a void inside a list, a number that is not finite — has no
//! JSON form: as a *result value* or as *host-call arguments*
//! it is an error naming its place and what to write instead (the result's
//! `scheme_eval.runtime_error`, a call's `host.args_invalid`), never a
//! made-up string. Only the renderings for people and records
//! ([`value_to_json`]) show markers (`"#<procedure>"`). Conversion is
//! iterative-depth bounded and cycle-safe, because a program can build a
//! vector that contains itself.
//!
//! JSON → Scheme (envelopes handed to programs): null → void, arrays → lists,
//! objects → immutable hash maps with string keys.

use super::memory;
use super::FailureClass;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};
use std::collections::HashSet;
use steel::gc::Gc;
use steel::gc::ShareableMut;
use steel::rvals::SteelVal;

/// Values nested deeper than this are not converted: one limit for host-call
/// arguments, recorded rows and result values, well inside what the effect-log
/// reader accepts (serde_json reads 128 levels), so the writer never records
/// what the reader would refuse.
pub const MAX_DEPTH: usize = 64;
/// The marker for a value cut at [`MAX_DEPTH`].
pub const TOO_DEEP: &str = "#<too-deep>";

/// Why a Scheme value could not become host-call arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A rendering for people and records: unrepresentable parts become
    /// marker strings.
    Lenient,
    /// A result value: unrepresentable parts are errors naming their place;
    /// an integer past 64 bits is its exact decimal text.
    Result,
    /// Host-call arguments: unrepresentable parts are errors.
    Strict,
}

/// Why a conversion stopped.
enum Stop {
    /// An unrepresentable member (strict mode).
    Invalid(ConvertError),
    /// The JSON form outgrew its byte budget, or the heap its limit.
    TooLarge,
    /// Two keys of one hash become the same JSON key.
    Collision(ConvertError),
}

struct Walk {
    mode: Mode,
    seen: HashSet<usize>,
    path: String,
    /// Bytes of JSON still allowed.
    budget: usize,
}

impl Walk {
    fn new(mode: Mode, budget: usize) -> Self {
        Self {
            mode,
            seen: HashSet::new(),
            path: String::new(),
            budget,
        }
    }

    /// Charges `bytes` of JSON output; stops when the budget or the heap runs out.
    fn charge(&mut self, bytes: usize) -> Result<(), Stop> {
        if bytes > self.budget || memory::soft_hit() {
            return Err(Stop::TooLarge);
        }
        self.budget -= bytes;
        Ok(())
    }

    fn marker(&mut self, text: &str, reason: &str) -> Result<Value, Stop> {
        match self.mode {
            Mode::Lenient => {
                self.charge(text.len() + 2)?;
                Ok(Value::String(text.to_string()))
            }
            Mode::Strict | Mode::Result => Err(Stop::Invalid(ConvertError {
                path: self.path.clone(),
                reason: reason.to_string(),
            })),
        }
    }
}

/// JSON bytes of `s` as a string literal (escapes included), counted only
/// up to `cap` (a 30 MB string need not be scanned to know it is too big).
fn json_string_len(s: &str, cap: usize) -> usize {
    let mut len = 2;
    for b in s.bytes() {
        len += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        };
        if len > cap {
            break;
        }
    }
    len
}

/// Converts a program's final value; unrepresentable parts become markers.
/// Fails when its JSON form would exceed `max_bytes` (or the heap its limit),
/// or when two keys of a hash collide.
pub fn value_to_json_capped(
    value: &SteelVal,
    max_bytes: usize,
) -> Result<Value, (FailureClass, String)> {
    value_to_json_in(value, max_bytes, Mode::Result)
}

fn value_to_json_in(
    value: &SteelVal,
    max_bytes: usize,
    mode: Mode,
) -> Result<Value, (FailureClass, String)> {
    let mut walk = Walk::new(mode, max_bytes);
    match to_json(value, 0, &mut walk) {
        Ok(v) => Ok(v),
        Err(Stop::TooLarge) => Err((
            FailureClass::Memory,
            format!("the final value's JSON form is larger than the run's {max_bytes}-byte memory limit"),
        )),
        Err(Stop::Collision(e)) => Err((
            FailureClass::RuntimeError,
            format!("the final value has no JSON form: {e}"),
        )),
        Err(Stop::Invalid(e)) => Err((
            FailureClass::RuntimeError,
            if e.path.is_empty() {
                format!("the final value has no JSON form: {}", e.reason)
            } else {
                format!("the final value has no JSON form at `{}`: {}", e.path, e.reason)
            },
        )),
    }
}

/// Converts a value for display or records, never failing (markers for
/// anything unrepresentable, including colliding keys).
pub fn value_to_json(value: &SteelVal) -> Value {
    value_to_json_in(value, usize::MAX, Mode::Lenient)
        .unwrap_or_else(|(_, why)| Value::String(format!("#<{why}>")))
}

/// Converts host-call arguments of at most `max_bytes` as JSON; unrepresentable
/// members are errors. On error, also returns what the record keeps instead:
/// the marked-up rendering, or for oversized arguments a marker string.
pub fn args_to_json(value: &SteelVal, max_bytes: u64) -> Result<Value, (Value, ConvertError)> {
    let budget = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    match to_json(value, 0, &mut Walk::new(Mode::Strict, budget)) {
        Ok(v) => Ok(v),
        Err(Stop::TooLarge) => {
            let (marker, error) = oversized_args(max_bytes);
            Err((marker.expect("a marker"), error.expect("an error")))
        }
        Err(Stop::Invalid(e)) | Err(Stop::Collision(e)) => {
            // The record keeps a rendering with markers, itself bounded.
            let shown = match to_json(value, 0, &mut Walk::new(Mode::Lenient, budget)) {
                Ok(v) => v,
                Err(_) => oversized_args(max_bytes).0.expect("a marker"),
            };
            Err((shown, e))
        }
    }
}

/// What the record keeps for arguments over the per-call cap, and the error.
pub(crate) fn oversized_args(max_bytes: u64) -> (Option<Value>, Option<ConvertError>) {
    (
        Some(Value::String(format!("#<arguments over {max_bytes} bytes>"))),
        Some(ConvertError {
            path: String::new(),
            reason: format!(
                "the arguments are larger than the {max_bytes}-byte per-call limit (maxCallArgsBytes) as JSON"
            ),
        }),
    )
}

/// Nesting depth of a JSON value (a scalar is 0), without recursion.
pub fn depth(value: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => {}
        }
    }
    max
}

fn float(walk: &mut Walk, f: f64) -> Result<Value, Stop> {
    match Number::from_f64(f) {
        Some(n) => {
            walk.charge(24)?;
            Ok(Value::Number(n))
        }
        None => {
            let text = if f.is_nan() {
                "+nan.0"
            } else if f > 0.0 {
                "+inf.0"
            } else {
                "-inf.0"
            };
            walk.marker(
                text,
                "a number that is not finite (a division by zero?) has no JSON form: give #f or a \
                 string in its place",
            )
        }
    }
}

fn string(walk: &mut Walk, s: &str) -> Result<Value, Stop> {
    walk.charge(json_string_len(s, walk.budget))?;
    Ok(Value::String(s.to_string()))
}

/// An integer past 64 bits: its exact digits in a result, refused where a
/// host call needs a number (JSON numbers stop at 64 bits).
fn big(walk: &mut Walk, text: &str) -> Result<Value, Stop> {
    match text
        .parse::<i64>()
        .map(Number::from)
        .or_else(|_| text.parse::<u64>().map(Number::from))
    {
        Ok(n) => {
            walk.charge(20)?;
            Ok(Value::Number(n))
        }
        Err(_) if walk.mode != Mode::Strict => string(walk, text),
        Err(_) => walk.marker(
            text,
            "an integer this large has no exact JSON form: give it as a string, \
             (number->string n)",
        ),
    }
}

/// A value with no JSON form: a marker naming what to give instead.
fn no_json_form(value: &SteelVal, walk: &mut Walk) -> Result<Value, Stop> {
    match value {
        SteelVal::Closure(_)
        | SteelVal::FuncV(_)
        | SteelVal::BoxedFunction(_)
        | SteelVal::BuiltIn(_)
        | SteelVal::MutFunc(_)
        | SteelVal::ContinuationFunction(_) => walk.marker(
            "#<procedure>",
            "a procedure has no JSON form: call it and give its result (`(f x)`, not `f`), \
             or give its name as a string",
        ),
        SteelVal::HashSetV(_) => walk.marker(
            "#<set>",
            "a set has no JSON form: give a list of its members, (hashset->list s)",
        ),
        _ => walk.marker(
            "#<value>",
            "this kind of value (a port, a struct, a record) has no JSON form: give the \
             strings, numbers, lists and hashes it stands for",
        ),
    }
}

fn to_json(value: &SteelVal, depth: usize, walk: &mut Walk) -> Result<Value, Stop> {
    if depth > MAX_DEPTH {
        return walk.marker(
            TOO_DEEP,
            &format!("the value nests more than {MAX_DEPTH} levels deep; return a flatter one"),
        );
    }
    Ok(match value {
        // Inside a list, a void is a slip (`when` with a false test, a
        // `for-each`): it has no JSON form there.
        SteelVal::Void if walk.path.ends_with(']') => {
            return walk.marker(
                "#<void>",
                "a void (what `when` with a false test, `for-each`, `display` or `set!` give) is \
                 not a list element: leave it out (filter, filter-map, or for/list with #:when), \
                 or give #f or \"\" in its place",
            )
        }
        SteelVal::Void => {
            walk.charge(4)?;
            Value::Null
        }
        SteelVal::BoolV(b) => {
            walk.charge(5)?;
            Value::Bool(*b)
        }
        SteelVal::IntV(i) => {
            walk.charge(20)?;
            Value::Number((*i as i64).into())
        }
        SteelVal::NumV(f) => return float(walk, *f),
        SteelVal::Rational(r) => return float(walk, *r.numer() as f64 / *r.denom() as f64),
        SteelVal::BigNum(b) => return big(walk, &b.to_string()),
        SteelVal::CharV(c) => return string(walk, &c.to_string()),
        SteelVal::StringV(s) => return string(walk, s.as_str()),
        SteelVal::SymbolV(s) => return string(walk, s.as_str()),
        // The empty list is `[]`, like any list (void alone is `null`):
        // an agent must tell "no items" from "no value".
        SteelVal::ListV(list) => seq(list.iter(), depth, walk)?,
        SteelVal::VectorV(v) => seq(v.iter(), depth, walk)?,
        SteelVal::MutableVector(v) => {
            let id = v.as_ptr_usize();
            if !walk.seen.insert(id) {
                return walk.marker("#<cycle>", "value contains itself");
            }
            let items: Vec<SteelVal> = v.borrow(|items| items.clone());
            let out = seq(items.iter(), depth, walk);
            walk.seen.remove(&id);
            out?
        }
        SteelVal::HashMapV(map) => return object(map, depth, walk),
        // Not constructible from the allowlist; the depth bound still ends any cycle.
        SteelVal::Boxed(b) => {
            let inner = b.read().clone();
            to_json(&inner, depth + 1, walk)?
        }
        SteelVal::HeapAllocated(h) => {
            let id = h.as_ptr_usize();
            if !walk.seen.insert(id) {
                return walk.marker("#<cycle>", "value contains itself");
            }
            let inner = h.get();
            let out = to_json(&inner, depth + 1, walk);
            walk.seen.remove(&id);
            out?
        }
        // A pair that is not a list: its two parts (an association list's
        // entries, `(cons "a" 1)` → ["a", 1]).
        SteelVal::Pair(p) => {
            let parts = [p.car(), p.cdr()];
            seq(parts.iter(), depth, walk)?
        }
        other => return no_json_form(other, walk),
    })
}

/// A hash as a JSON object: string or symbol keys only, in sorted order
/// (hash iteration order differs between processes), with no two keys alike.
fn object(
    map: &steel::HashMap<SteelVal, SteelVal>,
    depth: usize,
    walk: &mut Walk,
) -> Result<Value, Stop> {
    let mut entries: Vec<(String, &SteelVal)> = Vec::with_capacity(map.len());
    for (k, v) in map.iter() {
        let key = match k {
            SteelVal::StringV(s) | SteelVal::SymbolV(s) => s.as_str().to_string(),
            _ => return walk.marker("#<hash>", "hash keys must be strings or symbols"),
        };
        entries.push((key, v));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(pair) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Stop::Collision(ConvertError {
            path: walk.path.clone(),
            reason: format!(
                "the string key \"{0}\" and the symbol key '{0} would be the same JSON key",
                pair[0].0
            ),
        }));
    }
    walk.charge(2)?;
    let mut out = Map::with_capacity(entries.len());
    for (key, v) in entries {
        walk.charge(json_string_len(&key, walk.budget) + 2)?;
        let len = walk.path.len();
        if !walk.path.is_empty() {
            walk.path.push('.');
        }
        walk.path.push_str(&key);
        let converted = to_json(v, depth + 1, walk);
        walk.path.truncate(len);
        out.insert(key, converted?);
    }
    Ok(Value::Object(out))
}

fn seq<'a>(
    items: impl Iterator<Item = &'a SteelVal>,
    depth: usize,
    walk: &mut Walk,
) -> Result<Value, Stop> {
    walk.charge(2)?;
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        walk.charge(1)?;
        let len = walk.path.len();
        walk.path.push_str(&format!("[{i}]"));
        let converted = to_json(item, depth + 1, walk);
        walk.path.truncate(len);
        out.push(converted?);
    }
    Ok(Value::Array(out))
}

/// A Scheme value read straight from JSON text, as [`json_to_value`] would
/// convert it (the worker's envelopes: no JSON tree in between).
pub(crate) struct SteelJson(pub SteelVal);

impl std::fmt::Debug for SteelJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SteelJson(..)")
    }
}

impl<'de> Deserialize<'de> for SteelJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SteelVisitor).map(SteelJson)
    }
}

struct SteelVisitor;

impl<'de> serde::de::Visitor<'de> for SteelVisitor {
    type Value = SteelVal;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<SteelVal, E> {
        Ok(SteelVal::Void)
    }

    fn visit_none<E>(self) -> Result<SteelVal, E> {
        Ok(SteelVal::Void)
    }

    fn visit_bool<E>(self, b: bool) -> Result<SteelVal, E> {
        Ok(SteelVal::BoolV(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<SteelVal, E> {
        Ok(match isize::try_from(i) {
            Ok(i) => SteelVal::IntV(i),
            Err(_) => SteelVal::NumV(i as f64),
        })
    }

    fn visit_u64<E>(self, u: u64) -> Result<SteelVal, E> {
        Ok(
            match i64::try_from(u).ok().and_then(|i| isize::try_from(i).ok()) {
                Some(i) => SteelVal::IntV(i),
                None => SteelVal::NumV(u as f64),
            },
        )
    }

    fn visit_f64<E>(self, f: f64) -> Result<SteelVal, E> {
        Ok(SteelVal::NumV(f))
    }

    fn visit_str<E>(self, s: &str) -> Result<SteelVal, E> {
        Ok(SteelVal::StringV(s.into()))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<SteelVal, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(SteelJson(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(SteelVal::ListV(items.into_iter().collect()))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<SteelVal, A::Error> {
        let mut out = empty_map();
        while let Some((k, SteelJson(v))) = map.next_entry::<String, SteelJson>()? {
            out.insert(SteelVal::StringV(k.into()), v);
        }
        Ok(SteelVal::HashMapV(Gc::new(out).into()))
    }
}

thread_local! {
    /// One hasher for the maps made from JSON: `HashMap::new` would seed and
    /// allocate a fresh one for each of an envelope's maps, a fifth of the
    /// time it takes to convert one, and the vendored im-rc never uses it
    /// (keys hash with fixed keys: vendor/im-rc/TUSK_PATCHES.md, §1).
    static HASHER: std::rc::Rc<std::hash::RandomState> = std::rc::Rc::default();
}

/// An empty Scheme map with the shared hasher.
fn empty_map() -> steel::HashMap<SteelVal, SteelVal> {
    steel::HashMap::with_hasher(HASHER.with(std::rc::Rc::clone))
}

/// Converts JSON (an envelope, say) into an immutable Scheme value.
/// How [`scheme_source`] writes a JSON array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayForm {
    /// `(list …)`
    List,
    /// `(vector …)`
    Vector,
}

/// A Scheme string literal that reads back as `text`: quotes, backslashes
/// and control characters escaped (`\xN;` for the rest of C0 and DEL).
pub fn scheme_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:x};", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON value written as Scheme source that evaluates to a value
/// converting back to it: objects as `(hash …)`, arrays as `arrays` says,
/// null as `(void)`. What the front ends use to turn JSON arguments into a
/// program (MCP direct tools, premath's `scheme-eval` programs).
pub fn scheme_source(value: &Value, arrays: ArrayForm) -> String {
    match value {
        Value::Null => "(void)".into(),
        Value::Bool(b) => if *b { "#t" } else { "#f" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scheme_string(s),
        Value::Array(items) => {
            let head = match arrays {
                ArrayForm::List => "list",
                ArrayForm::Vector => "vector",
            };
            let inner: Vec<String> = items.iter().map(|v| scheme_source(v, arrays)).collect();
            format!("({head} {})", inner.join(" "))
        }
        Value::Object(map) if map.is_empty() => "(hash)".into(),
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{} {}", scheme_string(k), scheme_source(v, arrays)))
                .collect();
            format!("(hash {})", inner.join(" "))
        }
    }
}

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
            let mut out = empty_map();
            for (k, v) in map {
                out.insert(SteelVal::StringV(k.as_str().into()), json_to_value(v));
            }
            SteelVal::HashMapV(Gc::new(out).into())
        }
    }
}

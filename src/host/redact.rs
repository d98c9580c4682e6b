//! Redaction at record time (issue 21, item 6): the policy names, per
//! action, argument and payload paths whose values never reach the logs.
//!
//! ```json
//! "redact": {"issue.update": {"args": ["notes"]},
//!            "issue.show": {"payload": ["issue.notes"]}}
//! ```
//!
//! A path is dotted member names; `*` stands for every member of an object
//! or every element of a list. The recorded value is the marker
//! `"#<redacted sha256:HEX>"`, HEX the SHA-256 of the value's canonical JSON.
//! Arguments are redacted before their digest is taken, so the envelope, the
//! effect row and the trajectory agree, and replay (which applies the rules
//! the header recorded) compares digests of the same redacted form. A marker
//! is never redacted again: a program replayed against a redacted payload
//! passes the marker on and reaches the same digest.
//!
//! A rule names a property by its canonical name; it meets the value under
//! every spelling a program can write (issue 55): a member matches a path
//! segment when both are the same letters and digits in any case with any
//! separators (`acceptance_criteria`, `AcceptanceCriteria`,
//! `acceptance-criteria` for `acceptanceCriteria`), at every depth, and a
//! top-level argument also when the action's schema makes it another name
//! of the property (`x-aliases`: `id` for `issueId`). The runtime renames
//! arguments to their canonical names before recording them
//! (`registry::canonical_args`), so the log names the property the rule
//! names; the loose match covers what that renaming leaves (two spellings
//! of one key in one call, nested members, payloads). Over-matching only
//! ever hides more.
//!
//! What it does not hide: the program text (recorded whole), and a value
//! the program copies into an argument or payload path no rule names. A
//! low-entropy secret (a PIN) can be found from its digest by trying every
//! candidate.

use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The redaction rules of a policy (empty: nothing redacted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redaction {
    rules: BTreeMap<String, Rule>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Rule {
    args: Vec<Vec<String>>,
    payload: Vec<Vec<String>>,
}

const PREFIX: &str = "#<redacted sha256:";

/// The marker a redacted value is recorded as.
pub fn marker(value: &Value) -> Value {
    // `sha256:` + hex of the canonical JSON: the PREFIX's digest form.
    Value::String(format!(
        "#<redacted {}>",
        crate::canonical::sha256_digest(value)
    ))
}

/// Whether `value` is already a marker (redaction is idempotent).
pub fn is_marker(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| s.starts_with(PREFIX) && s.ends_with('>'))
}

impl Redaction {
    /// Parses the policy's `redact` member (strictly: a typo must not leave a
    /// secret in the log).
    pub fn from_json(value: &Value) -> Result<Self, String> {
        let map = value
            .as_object()
            .ok_or("`redact` must be an object of action ids")?;
        let mut rules = BTreeMap::new();
        for (action, rule) in map {
            let rule_map = rule
                .as_object()
                .ok_or(format!("`redact.{action}` must be an object"))?;
            let mut parsed = Rule::default();
            for (part, paths) in rule_map {
                let slot = match part.as_str() {
                    "args" => &mut parsed.args,
                    "payload" => &mut parsed.payload,
                    other => {
                        return Err(format!(
                            "`redact.{action}` has an unknown member `{other}` (args, payload)"
                        ))
                    }
                };
                let list = paths
                    .as_array()
                    .ok_or(format!("`redact.{action}.{part}` must be a list of paths"))?;
                for path in list {
                    let text = path
                        .as_str()
                        .ok_or(format!("`redact.{action}.{part}` must hold strings"))?;
                    let segments: Vec<String> = text.split('.').map(str::to_string).collect();
                    if segments.iter().any(String::is_empty) {
                        return Err(format!(
                            "`redact.{action}.{part}`: {text:?} is not a dotted path"
                        ));
                    }
                    slot.push(segments);
                }
            }
            rules.insert(action.clone(), parsed);
        }
        Ok(Self { rules })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The action ids the rules name.
    pub fn actions(&self) -> impl Iterator<Item = &str> {
        self.rules.keys().map(String::as_str)
    }

    /// The rules as the policy states them (what the effect-log header records).
    pub fn to_json(&self) -> Value {
        let join = |paths: &[Vec<String>]| paths.iter().map(|p| p.join(".")).collect::<Vec<_>>();
        Value::Object(
            self.rules
                .iter()
                .map(|(action, rule)| {
                    let mut out = serde_json::Map::new();
                    if !rule.args.is_empty() {
                        out.insert("args".into(), json!(join(&rule.args)));
                    }
                    if !rule.payload.is_empty() {
                        out.insert("payload".into(), json!(join(&rule.payload)));
                    }
                    (action.clone(), Value::Object(out))
                })
                .collect(),
        )
    }

    /// The arguments as recorded: `None` when no rule touches them.
    /// `schema` is the action's argument schema, when known: its aliases
    /// make a top-level key match the property it names.
    pub fn args(
        &self,
        action: &str,
        args: Option<&Value>,
        schema: Option<&Value>,
    ) -> Option<Option<Value>> {
        let rule = self.rules.get(action).filter(|r| !r.args.is_empty())?;
        let properties = schema.and_then(|s| s["properties"].as_object());
        Some(args.map(|a| apply(a, &rule.args, properties)))
    }

    /// The payload as recorded: `None` when no rule touches it.
    pub fn payload(&self, action: &str, payload: &Value) -> Option<Value> {
        let rule = self.rules.get(action).filter(|r| !r.payload.is_empty())?;
        Some(apply(payload, &rule.payload, None))
    }
}

fn apply(
    value: &Value,
    paths: &[Vec<String>],
    properties: Option<&serde_json::Map<String, Value>>,
) -> Value {
    let mut out = value.clone();
    for path in paths {
        redact_at(&mut out, path, properties);
    }
    out
}

/// A name's letters and digits, lowercased: every spelling of one name.
fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether member `key` is what path segment `segment` names; at the top
/// level of arguments, `properties` adds the schema's other names.
fn names(key: &str, segment: &str, properties: Option<&serde_json::Map<String, Value>>) -> bool {
    loose(key) == loose(segment)
        || properties
            .and_then(|p| crate::host::registry::canonical_name(p, key))
            .is_some_and(|canonical| loose(canonical) == loose(segment))
}

fn redact_at(
    value: &mut Value,
    path: &[String],
    properties: Option<&serde_json::Map<String, Value>>,
) {
    let Some((head, rest)) = path.split_first() else {
        if !is_marker(value) {
            *value = marker(value);
        }
        return;
    };
    match (value, head.as_str()) {
        (Value::Object(map), "*") => map.values_mut().for_each(|v| redact_at(v, rest, None)),
        (Value::Array(items), "*") => items.iter_mut().for_each(|v| redact_at(v, rest, None)),
        (Value::Object(map), key) => {
            for (k, v) in map.iter_mut() {
                if names(k, key, properties) {
                    redact_at(v, rest, None);
                }
            }
        }
        (Value::Array(items), index) => {
            if let Some(v) = index.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                redact_at(v, rest, None);
            }
        }
        _ => {}
    }
}

/// The shortest hidden value [`scrub`] looks for.
pub const MIN_SCRUBBED_CHARS: usize = 4;

/// What `redacted` hides of `original` (arguments before and after
/// [`Redaction::args`]): each hidden value's text (a string's own text,
/// another value's canonical JSON) and its marker, longest first.
pub fn hidden(original: &Value, redacted: &Value) -> Vec<(String, String)> {
    fn walk(o: &Value, r: &Value, out: &mut Vec<(String, String)>) {
        match (o, r) {
            (_, Value::String(m)) if is_marker(r) && !is_marker(o) => {
                let text = match o {
                    Value::String(s) => s.clone(),
                    other => crate::canonical::to_canonical_string(other),
                };
                // A shorter value would match inside unrelated text (a
                // priority `1` in every timestamp); it is no secret either.
                if text.chars().count() >= MIN_SCRUBBED_CHARS {
                    out.push((text, m.clone()));
                }
            }
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in a {
                    if let Some(w) = b.get(k) {
                        walk(v, w, out);
                    }
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                a.iter().zip(b).for_each(|(v, w)| walk(v, w, out));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(original, redacted, &mut out);
    out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

/// Replaces, inside every string of `value` (keys included), each hidden
/// value's text by its marker: an action that repeats an argument in its
/// payload or diagnostic ("issue S3CRET does not exist") must not put a
/// redacted value into the log through it. Whether anything changed.
pub fn scrub(value: &mut Value, hidden: &[(String, String)]) -> bool {
    fn in_text(s: &str, hidden: &[(String, String)]) -> Option<String> {
        let mut out: Option<String> = None;
        for (text, marker) in hidden {
            let current = out.as_deref().unwrap_or(s);
            if current.contains(text.as_str()) {
                out = Some(current.replace(text.as_str(), marker));
            }
        }
        out
    }
    match value {
        Value::String(s) if !(s.starts_with(PREFIX) && s.ends_with('>')) => {
            match in_text(s, hidden) {
                Some(new) => {
                    *s = new;
                    true
                }
                None => false,
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |c, v| scrub(v, hidden) | c),
        Value::Object(map) => {
            let renamed: Vec<(String, String)> = map
                .keys()
                .filter_map(|k| in_text(k, hidden).map(|n| (k.clone(), n)))
                .collect();
            let mut changed = !renamed.is_empty();
            for (old, new) in renamed {
                if let Some(v) = map.remove(&old) {
                    map.insert(new, v);
                }
            }
            for v in map.values_mut() {
                changed |= scrub(v, hidden);
            }
            changed
        }
        _ => false,
    }
}

/// Whether a live value is what a recorded one, scrubbed, stands for: equal,
/// except that a recorded string holding markers matches a live string
/// with anything in the markers' places (live replay compares a payload the
/// log holds scrubbed with the one the action gives now).
pub fn matches_scrubbed(recorded: &Value, live: &Value) -> bool {
    match (recorded, live) {
        (Value::String(r), Value::String(l)) if r.contains(PREFIX) => {
            let pieces: Vec<&str> = split_markers(r);
            let (first, rest) = pieces
                .split_first()
                .expect("split gives one piece at least");
            let Some(mut at) = l.strip_prefix(first) else {
                return false;
            };
            let Some((last, middle)) = rest.split_last() else {
                return at.is_empty();
            };
            for piece in middle {
                match at.find(piece) {
                    Some(i) => at = &at[i + piece.len()..],
                    None => return false,
                }
            }
            at.ends_with(last)
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| matches_scrubbed(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(k, v)| match b.get(k) {
                    Some(w) => matches_scrubbed(v, w),
                    None => false,
                })
        }
        _ => recorded == live,
    }
}

/// The text around the markers in `s`.
fn split_markers(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(PREFIX) {
        out.push(&rest[..i]);
        match rest[i..].find('>') {
            Some(end) => rest = &rest[i + end + 1..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_wildcards_and_idempotence() {
        let r = Redaction::from_json(&json!({
            "issue.update": {"args": ["notes", "fields.*.secret"]},
            "issue.list": {"payload": ["issues.*.notes"]}
        }))
        .unwrap();
        let args =
            json!({"id": "bd-1", "notes": "s3cret", "fields": {"a": {"secret": 1}, "b": {}}});
        let once = r.args("issue.update", Some(&args), None).unwrap().unwrap();
        assert_eq!(once["id"], "bd-1");
        assert!(is_marker(&once["notes"]));
        assert!(is_marker(&once["fields"]["a"]["secret"]));
        assert_eq!(once["fields"]["b"], json!({}));
        assert!(!once.to_string().contains("s3cret"));
        let twice = r.args("issue.update", Some(&once), None).unwrap().unwrap();
        assert_eq!(once, twice);
        assert_eq!(r.args("issue.show", Some(&args), None), None);
        let payload = json!({"issues": [{"id": "a", "notes": "x"}, {"id": "b"}]});
        let p = r.payload("issue.list", &payload).unwrap();
        assert!(is_marker(&p["issues"][0]["notes"]));
        assert_eq!(p["issues"][1], json!({"id": "b"}));
        assert_eq!(Redaction::from_json(&r.to_json()).unwrap(), r);
        let hidden = hidden(&args, &once);
        assert_eq!(
            hidden.len(),
            1,
            "{hidden:?} (the `1` is too short to look for)"
        );
        let mut said = json!({"diagnostic": "issue s3cret not found", "n": 1});
        assert!(scrub(&mut said, &hidden));
        assert!(!said.to_string().contains("s3cret"), "{said}");
        let live = json!({"diagnostic": "issue s3cret not found", "n": 1});
        assert!(matches_scrubbed(&said, &live));
        assert!(!matches_scrubbed(
            &said,
            &json!({"diagnostic": "issue x gone", "n": 1})
        ));
        for bad in [
            json!([]),
            json!({"a.b": []}),
            json!({"a.b": {"argz": []}}),
            json!({"a.b": {"args": "notes"}}),
            json!({"a.b": {"args": ["notes..x"]}}),
        ] {
            assert!(Redaction::from_json(&bad).is_err(), "{bad}");
        }
    }
}

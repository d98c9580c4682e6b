//! `tusk replay diff RUN_A RUN_B` (issue 21, item 7): where two recorded
//! runs part ways. Calls are compared in order, each by action, argument
//! digest, result class and payload digest (path-valued members masked, as
//! a live replay does); then the run's value, output, failure classes and
//! result. The first difference is reported, with the first JSON path at
//! which the two payloads (or arguments) differ when that is where it lies.

use super::log::RecordedRun;
use serde_json::{json, Value};

/// The JSON object kind of `tusk replay diff --json`.
pub const DIFF_KIND: &str = "tusk.replay.diff.v0";

/// The first place two runs differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The call concerned (`None` for run-level fields).
    pub seq: Option<usize>,
    /// The action of run A's call (or B's when A has none there).
    pub action: Option<String>,
    pub field: String,
    pub a: Value,
    pub b: Value,
    /// Within payloads or arguments: the first member path that differs,
    /// with both values there (absent members as `null`).
    pub at: Option<(String, Value, Value)>,
}

/// The first difference between `a` and `b`, or `None` when they agree on
/// every compared field.
pub fn first_difference(a: &RecordedRun, b: &RecordedRun) -> Option<Difference> {
    let calls = a.calls.len().max(b.calls.len());
    for i in 0..calls {
        let seq = Some(i + 1);
        let (Some(ca), Some(cb)) = (a.calls.get(i), b.calls.get(i)) else {
            let one = a.calls.get(i).or(b.calls.get(i));
            return Some(Difference {
                seq,
                action: one.map(|c| c.action.clone()),
                field: "callCount".into(),
                a: json!(a.calls.len()),
                b: json!(b.calls.len()),
                at: None,
            });
        };
        let differ = |field: &str, x: Value, y: Value, within: Option<(&Value, &Value)>| {
            (x != y).then(|| Difference {
                seq,
                action: Some(ca.action.clone()),
                field: field.into(),
                a: x,
                b: y,
                at: within.and_then(|(p, q)| first_path(p, q, String::new())),
            })
        };
        let null = Value::Null;
        let found = differ("action", json!(ca.action), json!(cb.action), None)
            .or_else(|| {
                differ(
                    "argsDigest",
                    json!(ca.args_digest),
                    json!(cb.args_digest),
                    Some((
                        ca.args.as_ref().unwrap_or(&null),
                        cb.args.as_ref().unwrap_or(&null),
                    )),
                )
            })
            .or_else(|| {
                differ(
                    "resultClass",
                    ca.envelope.value()["resultClass"].clone(),
                    cb.envelope.value()["resultClass"].clone(),
                    None,
                )
            })
            .or_else(|| {
                let (pa, pb) = (
                    &ca.envelope.value()["payload"],
                    &cb.envelope.value()["payload"],
                );
                differ(
                    "payloadDigest",
                    json!(super::live::payload_digest(pa)),
                    json!(super::live::payload_digest(pb)),
                    Some((pa, pb)),
                )
            });
        if found.is_some() {
            return found;
        }
    }
    let (fa, fb) = (
        a.footer.clone().unwrap_or(Value::Null),
        b.footer.clone().unwrap_or(Value::Null),
    );
    ["valueDigest", "outputDigest", "failureClasses", "result"]
        .into_iter()
        .find(|field| fa[field] != fb[field])
        .map(|field| Difference {
            seq: None,
            action: None,
            field: field.into(),
            a: fa[field].clone(),
            b: fb[field].clone(),
            at: None,
        })
}

/// The first member path (in `a`'s order, then `b`'s extra members) where
/// two JSON values differ.
pub(crate) fn first_path(a: &Value, b: &Value, path: String) -> Option<(String, Value, Value)> {
    if a == b {
        return None;
    }
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x
            .iter()
            .map(|(k, v)| (k, v, y.get(k).unwrap_or(&Value::Null)))
            .chain(
                y.iter()
                    .filter(|(k, _)| !x.contains_key(*k))
                    .map(|(k, v)| (k, &Value::Null, v)),
            )
            .find_map(|(k, p, q)| first_path(p, q, join(k))),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_path(p, q, join(&i.to_string()))),
        _ => Some((
            if path.is_empty() { "$".into() } else { path },
            a.clone(),
            b.clone(),
        )),
    }
}

/// The `tusk.replay.diff.v0` object.
pub fn to_json(a: &RecordedRun, b: &RecordedRun, difference: Option<&Difference>) -> Value {
    let mut out = json!({
        "kind": DIFF_KIND,
        "runA": a.run_id,
        "runB": b.run_id,
        "sameProgram": a.program == b.program,
        "callCounts": [a.calls.len(), b.calls.len()],
        "identical": difference.is_none(),
    });
    if let Some(d) = difference {
        let mut first = json!({"seq": d.seq, "field": d.field, "a": d.a, "b": d.b});
        if let Some(action) = &d.action {
            first["action"] = json!(action);
        }
        if let Some((path, x, y)) = &d.at {
            first["at"] = json!({"path": path, "a": x, "b": y});
        }
        out["firstDifference"] = first;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::first_path;
    use serde_json::json;

    #[test]
    fn the_first_differing_path_is_named() {
        let a = json!({"count": 2, "items": [{"id": "a"}, {"id": "b"}]});
        let b = json!({"count": 2, "items": [{"id": "a"}, {"id": "c"}]});
        assert_eq!(
            first_path(&a, &b, String::new()),
            Some(("items.1.id".into(), json!("b"), json!("c")))
        );
        let c = json!({"count": 2, "items": [{"id": "a"}], "extra": 1});
        assert_eq!(
            first_path(&a, &c, String::new()).unwrap().0,
            "items".to_string()
        );
        assert_eq!(first_path(&a, &a, String::new()), None);
    }
}

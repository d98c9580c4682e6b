//! Canonical JSON and digests: the one place every digest in tusk is computed.
//!
//! Canonical form (shared by every spec): object keys sorted by byte order, no
//! whitespace, strings and numbers exactly as `serde_json` writes them, arrays in
//! order. Each digest family is a prefix over the lower-case hex SHA-256 of that form:
//!
//! | prefix    | used for                                   |
//! |-----------|--------------------------------------------|
//! | `sha256:` | typestate digests, program and value digests |
//! | `he1_`    | host-effect `argsDigest`                    |
//! | `pol1_`   | mutation policy digest                      |
//! | `iss1_`   | issue-store snapshot ref (over its own line format) |

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// Writes `value` in canonical form.
pub fn to_canonical_string(value: &Value) -> String {
    let mut out = String::with_capacity(128);
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
    }
}

fn write_json_string(s: &str, out: &mut String) {
    // serde_json's escaping is the reference's escaping; reuse it rather than
    // re-derive it. Written in place: a copy per string was a tenth of a
    // digest's cost.
    // SAFETY: serde_json writes a `str` as complete, valid UTF-8, and writing
    // to a Vec cannot fail part-way.
    let bytes = unsafe { out.as_mut_vec() };
    serde_json::to_writer(bytes, s).expect("a str always serializes");
}

/// Returns a copy of `value` whose objects iterate in sorted key order, so pretty
/// output matches the canonical order (serde_json keeps insertion order in this crate).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            let mut out = Map::with_capacity(map.len());
            for key in keys {
                out.insert(key.clone(), sorted(&map[key]));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// Pretty JSON with sorted keys, as the reference prints `--json` output.
pub fn to_pretty_sorted(value: &Value) -> String {
    // Serializes through a sorting view rather than a sorted copy: views of big
    // stores print megabytes, and the copy doubled their cost.
    serde_json::to_string_pretty(&SortedView(value)).expect("a Value always serializes")
}

/// Serializes a `Value` with object keys in sorted order, without copying it.
struct SortedView<'a>(&'a Value);

impl serde::Serialize for SortedView<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&SortedView(item))?;
                }
                seq.end()
            }
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                let mut out = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    out.serialize_entry(key, &SortedView(value))?;
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Lower-case hex of raw bytes.
pub fn hex(bytes: &[u8]) -> String {
    // A table, not `write!`: two digests per host call went through the
    // formatter a byte at a time (5% of a call's time on the host).
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)]);
        out.push(DIGITS[usize::from(byte & 0xf)]);
    }
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Lower-case hex SHA-256 of raw bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `sha256:<hex>` over the canonical form of `value`.
pub fn sha256_digest(value: &Value) -> String {
    format!(
        "sha256:{}",
        sha256_hex(to_canonical_string(value).as_bytes())
    )
}

/// `sha256:<hex>` over raw text (program text, for instance).
pub fn sha256_text(text: &str) -> String {
    format!("sha256:{}", sha256_hex(text.as_bytes()))
}

/// Host-effect args digest: `he1_<hex>`; absent args digest as `{}`.
pub fn args_digest(args: Option<&Value>) -> String {
    let empty = Value::Object(Map::new());
    format!(
        "he1_{}",
        sha256_hex(to_canonical_string(args.unwrap_or(&empty)).as_bytes())
    )
}

/// Mutation policy digest: `pol1_<hex>`.
pub fn policy_digest(policy: &Value) -> String {
    format!(
        "pol1_{}",
        sha256_hex(to_canonical_string(policy).as_bytes())
    )
}

/// `value` as the JSON encoding before `jsonEncoding` 2 wrote it: every
/// empty array `null` (the empty list was `null` then; an empty vector was
/// `[]`, so a digest of an old log matches one of the two forms).
pub fn legacy_empty_lists(value: &Value) -> Value {
    match value {
        Value::Array(items) if items.is_empty() => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(legacy_empty_lists).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), legacy_empty_lists(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_sorted_compact() {
        let v = json!({"b": 1, "a": [true, null, "x\"y"], "A": {"z": 1.5, "y": -2}});
        assert_eq!(
            to_canonical_string(&v),
            r#"{"A":{"y":-2,"z":1.5},"a":[true,null,"x\"y"],"b":1}"#
        );
    }

    #[test]
    fn empty_list_digest_matches_reference_vectors() {
        // The shared vectors digest an empty result set as this value.
        assert_eq!(
            sha256_digest(&json!([])),
            "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
        );
    }

    #[test]
    fn pretty_sorted_matches_sorted_copy() {
        let v = json!({"b": [{"z": 1, "a": {"y": null, "x": "s"}}], "a": 2});
        assert_eq!(
            to_pretty_sorted(&v),
            serde_json::to_string_pretty(&sorted(&v)).unwrap()
        );
        assert!(
            to_pretty_sorted(&v).find("\"a\": 2").unwrap()
                < to_pretty_sorted(&v).find("\"b\"").unwrap()
        );
    }

    #[test]
    fn no_args_digest_is_digest_of_empty_object() {
        assert_eq!(args_digest(None), args_digest(Some(&json!({}))));
        assert!(args_digest(None).starts_with("he1_"));
    }
}

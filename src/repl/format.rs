//! Compact text of REPL results: captured output, one line per host call
//! (action, result class, a short payload summary), the value, and errors
//! with a caret under the offending column.

use serde_json::Value;

/// Values longer than this (as JSON) are cut in the compact text; `:json`
/// shows them whole.
pub const VALUE_LIMIT: usize = 2000;
/// Longest payload summary on an effect line.
const SUMMARY_LIMIT: usize = 96;

/// The compact text of one result of `tusk repl` (and of `:load`).
/// `program` is the form that ran: error positions point into it.
pub fn result_text(result: &Value, program: &str) -> String {
    let mut out = String::new();
    // Output, ids, diagnostics and values come from the program or the
    // store: control characters are escaped before they reach the terminal.
    let output = result["output"].as_str().unwrap_or_default();
    for line in crate::terminal::lines(output) {
        out.push_str(&line);
        out.push('\n');
    }
    if result["outputTruncated"] == Value::Bool(true) {
        out.push_str("… (output truncated at the output limit)\n");
    }
    for effect in result["effects"].as_array().into_iter().flatten() {
        out.push_str("  ");
        out.push_str(&effect_line(effect));
        out.push('\n');
    }
    let error_class = match result.get("error") {
        Some(error) => {
            let class = error["class"].as_str().unwrap_or_default();
            out.push_str(&format!(
                "error: {}: {}\n",
                crate::terminal::field(class),
                crate::terminal::field(error["message"].as_str().unwrap_or_default())
            ));
            let at = (error["line"].as_u64(), error["column"].as_u64());
            if let (Some(line), Some(column)) = at {
                if let Some(marked) = caret(program, line as usize, column as usize) {
                    out.push_str(&marked);
                }
            }
            Some(class)
        }
        None => {
            let value = &result["value"];
            if let Some(name) = value.is_null().then(|| defined_name(program)).flatten() {
                out.push_str(&format!("; defined {}\n", crate::terminal::field(name)));
            } else if is_envelope(value) {
                out.push_str(&format!("=> envelope {}\n", effect_line(value)));
            } else {
                out.push_str(&format!(
                    "=> {}\n",
                    crate::terminal::field(&value_text(value))
                ));
            }
            None
        }
    };
    for class in result["failureClasses"].as_array().into_iter().flatten() {
        let class = class.as_str().unwrap_or_default();
        if Some(class) != error_class {
            out.push_str(&format!(
                "rejected: {}\n",
                crate::render::describe_class(class)
            ));
        }
    }
    out
}

/// The name a form defines, when it is one definition (`(define x …)`,
/// `(define (f …) …)`): the REPL says so rather than print its null value.
fn defined_name(program: &str) -> Option<&str> {
    let rest = program.trim().strip_prefix("(define")?;
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let rest = rest.strip_prefix('(').unwrap_or(rest);
    let end = rest.find(|c: char| c.is_whitespace() || c == '(' || c == ')')?;
    (end > 0).then(|| &rest[..end])
}

/// A host-call envelope (`premath.host_effect.v0`), as a program returns it.
fn is_envelope(value: &Value) -> bool {
    value["schema"] == "premath.host_effect.v0"
}

/// `call-1 issue.list → accepted · count=2, items: 2`, or the diagnostic of
/// a call that was not accepted.
pub fn effect_line(effect: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let class = text(&effect["resultClass"]);
    let mut line = format!(
        "{} {} → {}",
        text(&effect["callId"]),
        text(&effect["action"]),
        class
    );
    if class == "accepted" {
        let summary = payload_summary(&effect["payload"]);
        if !summary.is_empty() {
            line.push_str(" · ");
            line.push_str(&summary);
        }
    } else if let Some(d) = effect["payload"]["diagnostic"].as_str() {
        line.push_str(": ");
        line.push_str(&cut(d, SUMMARY_LIMIT));
    }
    crate::terminal::field(&line).into_owned()
}

/// A few words on a payload: list sizes and ids of nested objects first,
/// then numbers, booleans and short strings. The action id (already on the
/// line) and long strings are left out.
pub fn payload_summary(payload: &Value) -> String {
    let map = match payload {
        Value::Null => return String::new(),
        Value::Array(items) => return format!("{} item(s)", items.len()),
        Value::Object(map) => map,
        scalar => return cut(&scalar.to_string(), SUMMARY_LIMIT),
    };
    let mut ranked: Vec<(u8, String)> = map
        .iter()
        .filter(|(key, _)| key.as_str() != "action")
        .filter_map(|(key, value)| match value {
            Value::Array(items) => Some((0, format!("{key}: {}", items.len()))),
            Value::Object(inner) => Some(match inner.get("id").and_then(Value::as_str) {
                Some(id) => (0, format!("{key}: {id}")),
                None => (3, format!("{key}: {{…}}")),
            }),
            Value::Number(_) | Value::Bool(_) => Some((1, format!("{key}={value}"))),
            Value::String(s) if s.chars().count() <= 32 => Some((2, format!("{key}={s}"))),
            _ => None,
        })
        .collect();
    // Stable: members of one rank keep the payload's order.
    ranked.sort_by_key(|(rank, _)| *rank);
    let mut summary = String::new();
    for (_, part) in ranked {
        let sep = if summary.is_empty() { "" } else { ", " };
        if summary.len() + sep.len() + part.len() > SUMMARY_LIMIT {
            summary.push_str(if summary.is_empty() { "…" } else { ", …" });
            break;
        }
        summary.push_str(sep);
        summary.push_str(&part);
    }
    summary
}

/// The value as compact JSON, cut at [`VALUE_LIMIT`].
pub fn value_text(value: &Value) -> String {
    let json = serde_json::to_string(value).unwrap_or_default();
    if json.len() <= VALUE_LIMIT {
        return json;
    }
    let head = cut_at(&json, VALUE_LIMIT);
    format!(
        "{head}… ({} more bytes; :json shows all)",
        json.len() - head.len()
    )
}

/// The offending line of `program` with a `^` under the 1-based `column`
/// (in characters), both indented by two spaces.
pub fn caret(program: &str, line: usize, column: usize) -> Option<String> {
    let text = program.lines().nth(line.checked_sub(1)?)?;
    // Tabs stay tabs so the caret lines up however the terminal expands them.
    let pad: String = text
        .chars()
        .take(column.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    Some(format!("  {text}\n  {pad}^\n"))
}

fn cut(text: &str, limit: usize) -> String {
    let head = cut_at(text, limit);
    if head.len() < text.len() {
        format!("{head}…")
    } else {
        head.to_string()
    }
}

fn cut_at(text: &str, limit: usize) -> &str {
    let mut end = limit.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepted_result_prints_output_effects_and_value() {
        let result = json!({
            "result": "accepted", "failureClasses": [], "value": 3, "output": "hi",
            "outputTruncated": false,
            "effects": [{"callId": "call-1", "action": "issue.list", "resultClass": "accepted",
                         "payload": {"count": 2, "items": [{}, {}]}}]
        });
        assert_eq!(
            result_text(&result, "(+ 1 2)"),
            "hi\n  call-1 issue.list → accepted · items: 2, count=2\n=> 3\n"
        );
    }

    #[test]
    fn errors_get_a_caret_and_rejections_plain_words() {
        let result = json!({
            "result": "rejected", "failureClasses": ["scheme_eval.invalid_program"],
            "value": null, "output": "", "effects": [],
            "error": {"class": "scheme_eval.invalid_program", "message": "unbound identifier `nope`",
                      "line": 2, "column": 4}
        });
        assert_eq!(
            result_text(&result, "(list\n\t  nope)"),
            "error: scheme_eval.invalid_program: unbound identifier `nope`\n  \t  nope)\n  \t  ^\n"
        );
        let result = json!({
            "result": "rejected", "failureClasses": ["mutation.use_evidence_missing"],
            "value": "done", "output": "",
            "effects": [{"callId": "call-1", "action": "issue.add",
                         "resultClass": "mutation.use_evidence_missing",
                         "payload": {"diagnostic": "no policy digest"}}]
        });
        let text = result_text(&result, "(issue.add)");
        assert!(
            text.contains("call-1 issue.add → mutation.use_evidence_missing: no policy digest\n"),
            "{text}"
        );
        assert!(text.contains("=> \"done\"\n"), "{text}");
        assert!(
            text.contains("rejected: mutation.use_evidence_missing: a mutation lacked"),
            "{text}"
        );
    }

    #[test]
    fn an_envelope_value_prints_like_an_effect() {
        let envelope = json!({"schema": "premath.host_effect.v0", "callId": "call-1",
                              "action": "issue.ready", "resultClass": "accepted",
                              "payload": {"count": 0, "items": []}});
        let result = json!({"result": "accepted", "failureClasses": [], "value": envelope,
                            "output": "", "effects": [envelope]});
        assert_eq!(
            result_text(&result, "(issue.ready)"),
            "  call-1 issue.ready → accepted · items: 0, count=0\n=> envelope call-1 issue.ready → accepted · items: 0, count=0\n"
        );
    }

    #[test]
    fn summaries_stay_short() {
        assert_eq!(
            payload_summary(&json!({"action": "issue.show", "ok": true, "issue": {"id": "bd-1"}})),
            "issue: bd-1, ok=true"
        );
        assert_eq!(payload_summary(&json!([1, 2, 3])), "3 item(s)");
        let long = json!({"a": "x".repeat(30), "b": "y".repeat(30), "c": "z".repeat(30), "d": "w".repeat(30)});
        let s = payload_summary(&long);
        assert!(
            s.chars().count() <= SUMMARY_LIMIT + 4 && s.ends_with('…'),
            "{s}"
        );
        let big = json!("v".repeat(VALUE_LIMIT * 2));
        assert!(value_text(&big).ends_with("more bytes; :json shows all)"));
        assert_eq!(caret("(a)", 3, 1), None);
    }
}

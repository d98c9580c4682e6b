//! Issue lines and views, spelled out independently of tusk's code.

use serde_json::Value;

/// A minimal issue line.
pub fn issue(id: &str) -> Value {
    serde_json::json!({"id": id, "title": format!("Issue {id}"), "status": "open", "priority": 2, "issue_type": "task"})
}

/// What premath's content rules ask of an active issue (`issue check`).
pub const SOUND_DESCRIPTION: &str = "Acceptance: it works.\n\n- `cargo test`";

/// `issue` that passes the content rules of `issue check`.
pub fn sound(id: &str) -> Value {
    sound_with(id, serde_json::json!({}))
}

/// `sound` with extra fields merged in.
pub fn sound_with(id: &str, extra: Value) -> Value {
    let mut v = issue_with(id, serde_json::json!({"description": SOUND_DESCRIPTION}));
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// `issue` with extra fields merged in.
pub fn issue_with(id: &str, extra: Value) -> Value {
    let mut v = issue(id);
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// A `blocks` edge from `id` to `on`.
pub fn blocks(id: &str, on: &str) -> Value {
    serde_json::json!({"issue_id": id, "depends_on_id": on, "type": "blocks"})
}

/// Ids of a view's items, in order.
pub fn ids(view: &Value) -> Vec<String> {
    view["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

/// A lease object that expired long ago, or that lasts until far in the future.
pub fn lease(owner: &str, lease_id: &str, active: bool) -> Value {
    let expires = if active {
        "2999-01-01T00:00:00Z"
    } else {
        "2020-01-01T01:00:00Z"
    };
    serde_json::json!({"lease_id": lease_id, "owner": owner, "acquired_at": "2020-01-01T00:00:00Z", "expires_at": expires})
}

/// premath's projection (A) of a stored line, spelled out independently of
/// tusk's code: `{assignee, id, issueType, owner, priority, status, title}`
/// with the line format's defaults.
pub fn basic(stored: &Value) -> Value {
    let text = |k: &str, d: &str| stored[k].as_str().unwrap_or(d).to_string();
    serde_json::json!({
        "assignee": text("assignee", ""),
        "id": text("id", ""),
        "issueType": text("issue_type", "task"),
        "owner": text("owner", ""),
        "priority": stored.get("priority").cloned().unwrap_or(serde_json::json!(2)),
        "status": text("status", "open"),
        "title": text("title", ""),
    })
}

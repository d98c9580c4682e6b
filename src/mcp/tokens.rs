//! Tokens as commands, taken live (issue 57, point 4).
//!
//! `tusk mcp token add NAME` makes a token for principal NAME, prints it
//! once and stores only its SHA-256 in the token file (written atomically,
//! mode 0600); `token list` shows the entries (never a secret); `token
//! revoke NAME` removes one. A server started with `--auth FILE` watches the
//! file ([`LiveTokens`]): within a second of a change it admits by the new
//! entries, ends the transport sessions of every principal whose token was
//! revoked or changed, and a revoked token's next request is 401. A file
//! that stops being valid admits no one until it is valid again (fail
//! closed) and says why on stderr.

use super::auth::{Principal, Tokens};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// The token file `token` commands edit when none is named.
pub const DEFAULT_TOKEN_FILE: &str = ".premath/tokens.json";

/// How often a server looks at its token file.
pub const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

/// What a new token may do.
#[derive(Clone, Debug, Default)]
pub struct Grant {
    pub read_only: bool,
    pub actions: Option<Vec<String>>,
    pub act_as: Vec<String>,
    pub server_authority: bool,
    pub policy_digest: Option<String>,
    pub instruction_ref: Option<String>,
}

/// The file's entries as JSON objects (`{"tokens": []}` when it does not
/// exist), for editing: members tusk does not write are kept.
fn entries(path: &Path) -> Result<Vec<Map<String, Value>>, String> {
    let text = match crate::files::read_to_string(path, crate::files::CONFIG_MAX) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(format!(
                "cannot read the token file {}: {e}",
                path.display()
            ))
        }
    };
    let file: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the token file {} is not JSON: {e}", path.display()))?;
    file.get("tokens")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the token file {} has no \"tokens\" list", path.display()))?
        .iter()
        .enumerate()
        .map(|(i, e)| {
            e.as_object()
                .cloned()
                .ok_or_else(|| format!("{} tokens[{i}] is not an object", path.display()))
        })
        .collect()
}

fn write(path: &Path, entries: Vec<Map<String, Value>>) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let entries: Vec<Value> = entries.into_iter().map(Value::Object).collect();
    let text = serde_json::to_string_pretty(&json!({ "tokens": entries }))
        .expect("a JSON value always encodes")
        + "\n";
    crate::files::write_atomically_with_mode(path, text.as_bytes(), 0o600)
        .map_err(|e| format!("cannot write the token file {}: {e}", path.display()))
}

fn principal_of(entry: &Map<String, Value>) -> Option<&str> {
    entry.get("principal").and_then(Value::as_str)
}

/// Adds a token for principal `name`: the new token (shown once; the file
/// keeps its SHA-256).
///
/// # Errors
/// An invalid name, a principal that already has a token, an unreadable or
/// unwritable file; nothing is written.
pub fn add(path: &Path, name: &str, grant: &Grant) -> Result<String, String> {
    super::auth::check_principal_name(name)?;
    for pattern in &grant.act_as {
        super::auth::check_act_as(pattern)?;
    }
    let mut all = entries(path)?;
    if all.iter().any(|e| principal_of(e) == Some(name)) {
        return Err(format!(
            "principal `{name}` already has a token in {}; `tusk mcp token revoke {name}` first \
             (one token per principal)",
            path.display()
        ));
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).expect("the operating system's random generator");
    let token = format!("tusk_{}", crate::canonical::hex(&secret));
    let mut entry = Map::new();
    entry.insert(
        "sha256".into(),
        crate::canonical::sha256_hex(token.as_bytes()).into(),
    );
    entry.insert("principal".into(), name.into());
    if grant.read_only {
        entry.insert("readOnly".into(), true.into());
    }
    if let Some(actions) = &grant.actions {
        entry.insert("actions".into(), json!(actions));
    }
    if !grant.act_as.is_empty() {
        entry.insert("actAs".into(), json!(grant.act_as));
    }
    if grant.server_authority {
        entry.insert("serverAuthority".into(), true.into());
    }
    if let Some(d) = &grant.policy_digest {
        entry.insert("policyDigest".into(), d.clone().into());
    }
    if let Some(r) = &grant.instruction_ref {
        entry.insert("instructionRef".into(), r.clone().into());
    }
    all.push(entry);
    write(path, all)?;
    Ok(token)
}

/// The file's entries without their digests, in file order.
///
/// # Errors
/// An unreadable file.
pub fn list(path: &Path) -> Result<Vec<Value>, String> {
    Ok(entries(path)?
        .into_iter()
        .map(|mut e| {
            e.remove("sha256");
            Value::Object(e)
        })
        .collect())
}

/// Removes principal `name`'s token.
///
/// # Errors
/// No such principal, or an unreadable or unwritable file.
pub fn revoke(path: &Path, name: &str) -> Result<(), String> {
    let mut all = entries(path)?;
    let before = all.len();
    all.retain(|e| principal_of(e) != Some(name));
    if all.len() == before {
        return Err(format!(
            "no token of principal `{name}` in {} (`tusk mcp token list` shows them)",
            path.display()
        ));
    }
    write(path, all)
}

/// What identifies one version of the file (a change to any is a reload).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        ino: m.ino(),
        len: m.len(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        ctime_ns: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
    })
}

/// A server's tokens, reloaded when the file changes.
#[derive(Debug)]
pub struct LiveTokens {
    path: PathBuf,
    server: (Option<String>, Option<String>),
    current: RwLock<Result<Arc<Tokens>, String>>,
    seen: Mutex<Option<Stamp>>,
}

impl LiveTokens {
    /// Loads the file; `server` is the server's default authority (for
    /// entries with `serverAuthority`).
    ///
    /// # Errors
    /// The file as it is now is unusable ([`Tokens::load`]).
    pub fn load(path: &Path, server: (&Option<String>, &Option<String>)) -> Result<Self, String> {
        let seen = stamp(path);
        let tokens = Tokens::load(path, server)?;
        Ok(Self {
            path: path.to_path_buf(),
            server: (server.0.clone(), server.1.clone()),
            current: RwLock::new(Ok(Arc::new(tokens))),
            seen: Mutex::new(seen),
        })
    }

    /// The principal of a bearer token under the file as last read (none
    /// while the file is unusable).
    pub fn principal(&self, token: &str) -> Option<Arc<Principal>> {
        match &*self.current.read().unwrap_or_else(|e| e.into_inner()) {
            Ok(tokens) => tokens.principal(token),
            Err(_) => None,
        }
    }

    /// Reloads the file if it changed: the principals whose token is gone
    /// or now grants something else (their transport sessions end).
    pub fn refresh(&self) -> Vec<String> {
        let now = stamp(&self.path);
        {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            if *seen == now {
                return Vec::new();
            }
            *seen = now;
        }
        let loaded = Tokens::load(&self.path, (&self.server.0, &self.server.1)).map(Arc::new);
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        let before = match &*current {
            Ok(t) => t.principals(),
            Err(_) => Vec::new(),
        };
        let after = match &loaded {
            Ok(t) => t.principals(),
            Err(e) => {
                eprintln!(
                    "tusk mcp: the token file is unusable, so no token is admitted until it is \
                     fixed: {e}"
                );
                Vec::new()
            }
        };
        *current = loaded;
        // Same token, same grants: nothing ends. A token rotated or
        // changed in any way ends its principal's sessions.
        let mut ended: Vec<String> = before
            .iter()
            .filter(|p| !after.iter().any(|q| q == *p))
            .map(|(_, p)| p.name.clone())
            .collect();
        ended.sort();
        ended.dedup();
        ended
    }
}

/// Takes changes to the token file as they come (a server without
/// transport sessions to end: the dashboard).
pub fn watch(tokens: Arc<LiveTokens>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(WATCH_EVERY);
        loop {
            tick.tick().await;
            let t = tokens.clone();
            let _ = tokio::task::spawn_blocking(move || t.refresh()).await;
        }
    });
}

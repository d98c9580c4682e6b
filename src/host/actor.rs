//! Who acts (issue 57, point 1): a principal acts as itself.
//!
//! Some arguments name who does what the call does: the `assignee` of a
//! claim, a claim-next, a lease renewal or release, a comment's `author`, an
//! edge's `createdBy`, the `workerId` of `harness.boot` and `harness.stop`.
//! Their schema marks them (`x-actor`), so the rule lives in each action's
//! one declaration. Over an authenticated transport (`tusk mcp --http
//! --auth`) such an argument must name the caller's own principal, or one
//! its token lets it act as (`actAs`: names, or prefixes ending in `*`, for
//! an orchestrator that hands out work); anything else is refused
//! `authority.act_as_denied`, naming both. Assigning an issue with
//! `issue.update` is planning, not acting: not an actor argument.
//!
//! Unauthenticated callers (stdio, the command line, an HTTP server
//! without `--auth`) are not checked: their principal is a claim, recorded
//! but not proven.

use serde_json::Value;

/// The schema member that marks an actor argument (its value says what the
/// argument must name: `"principal"`).
pub const ACTOR_MARK: &str = "x-actor";

/// What an actor argument's description adds (the catalogue, the tool
/// schemas): its rule, where a model reads the argument.
pub const ACTOR_NOTE: &str = "Names who acts: on a server with tokens, your own principal (or one your token's actAs allows).";

/// A caller whose actor arguments are checked: its principal and whom else
/// it may act as.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActAs {
    pub principal: String,
    /// Names, or prefixes ending in `*`.
    pub grants: Vec<String>,
}

impl ActAs {
    /// Whether this caller may act as `name`.
    pub fn allows(&self, name: &str) -> bool {
        name == self.principal
            || self.grants.iter().any(|g| match g.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => g == name,
            })
    }

    /// The first actor argument of `args` (canonical keys, under `schema`)
    /// that names someone this caller may not act as: the refusal's text.
    pub fn refusal(&self, action: &str, schema: &Value, args: &Value) -> Option<String> {
        for name in actor_args(schema) {
            let Some(named) = args.get(&name).and_then(Value::as_str) else {
                continue;
            };
            if self.allows(named) {
                continue;
            }
            let granted = if self.grants.is_empty() {
                "its token grants no actAs".to_string()
            } else {
                format!("its token's actAs is {}", self.grants.join(", "))
            };
            return Some(format!(
                "{action}: `{name}` names {named:?}, but this call is made by principal {:?}, \
                 which acts as itself ({granted}); write \"{name}\" {:?}, or have the token \
                 file give this principal \"actAs\": [{named:?}]",
                self.principal, self.principal
            ));
        }
        None
    }
}

/// The arguments of an action's schema that name who acts.
pub fn actor_args(schema: &Value) -> Vec<String> {
    schema["properties"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, p)| p[ACTOR_MARK].is_string())
        .map(|(k, _)| k.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_prefixes() {
        let a = ActAs {
            principal: "agent.alice".into(),
            grants: vec!["agent.bob".into(), "worker.*".into()],
        };
        assert!(a.allows("agent.alice"));
        assert!(a.allows("agent.bob"));
        assert!(a.allows("worker.7"));
        assert!(!a.allows("agent.carol"));
        let schema = json!({"properties": {"assignee": {"type": "string", "x-actor": "principal"}, "id": {}}});
        assert_eq!(actor_args(&schema), ["assignee"]);
        assert!(a
            .refusal("issue.claim", &schema, &json!({"assignee": "worker.1"}))
            .is_none());
        let why = a
            .refusal("issue.claim", &schema, &json!({"assignee": "agent.carol"}))
            .unwrap();
        assert!(
            why.contains("agent.carol") && why.contains("agent.alice"),
            "{why}"
        );
    }
}

/// Where the local actor's name came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActorSource {
    /// `--actor` (tusk sets `TUSK_ACTOR` from it before a command runs).
    Flag,
    /// The `TUSK_ACTOR` variable.
    Environment,
    /// `git config user.email` in a work tree.
    Git,
    /// The OS user (`$USER`, else the account's name).
    OsUser,
}

impl ActorSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ActorSource::Flag => "--actor",
            ActorSource::Environment => "TUSK_ACTOR",
            ActorSource::Git => "git user.email",
            ActorSource::OsUser => "the OS user",
        }
    }
}

/// Who acts on the command line and over stdio (issue 57, point 1): the
/// `--actor` flag, else `TUSK_ACTOR`, else the git user's email in a work
/// tree, else the OS user, as beads does. Recorded, not proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalActor {
    pub name: String,
    pub source: ActorSource,
}

/// Set when `--actor` was given (the command line's own `TUSK_ACTOR`).
pub static ACTOR_FLAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The rule an actor's name keeps: 1-256 bytes of printable ASCII without
/// spaces (it is recorded in every row, and two actors must never print
/// alike).
pub fn check_actor_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 256 {
        return Err(format!(
            "an actor is 1-256 bytes (this one is {})",
            name.len()
        ));
    }
    if let Some(c) = name.chars().find(|c| !c.is_ascii_graphic()) {
        return Err(format!(
            "{:?} contains {c:?} (U+{:04X}): an actor is printable ASCII without spaces, such \
             as `alice@example.com` or `agent.a`",
            name.chars().take(80).collect::<String>(),
            c as u32
        ));
    }
    Ok(())
}

/// The local actor, resolved once per process.
///
/// # Errors
/// The name given (flag, variable) or found (git) breaks [`check_actor_name`]:
/// the message names its source and the fix (`--actor NAME`).
pub fn local_actor() -> Result<LocalActor, String> {
    static RESOLVED: std::sync::OnceLock<Result<LocalActor, String>> = std::sync::OnceLock::new();
    RESOLVED.get_or_init(resolve_local_actor).clone()
}

fn resolve_local_actor() -> Result<LocalActor, String> {
    let given = ACTOR_FLAG
        .get()
        .map(|n| (n.clone(), ActorSource::Flag))
        .or_else(|| {
            std::env::var("TUSK_ACTOR")
                .ok()
                .filter(|n| !n.is_empty())
                .map(|n| (n, ActorSource::Environment))
        })
        .or_else(|| git_email().map(|n| (n, ActorSource::Git)))
        .unwrap_or_else(|| (os_user(), ActorSource::OsUser));
    let (name, source) = given;
    check_actor_name(&name).map_err(|why| {
        format!(
            "the actor from {} is unusable: {why}; name one with --actor NAME or TUSK_ACTOR",
            source.as_str()
        )
    })?;
    Ok(LocalActor { name, source })
}

/// `git config user.email`, when the working directory is in a work tree
/// and git answers within its usual time (no git: none).
fn git_email() -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors().find(|d| d.join(".git").exists())?;
    let out = std::process::Command::new("git")
        .args(["config", "--get", "user.email"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let email = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !email.is_empty()).then_some(email)
}

/// `$USER`, else the account's name, else `unknown`.
fn os_user() -> String {
    if let Some(user) = std::env::var("USER").ok().filter(|u| !u.is_empty()) {
        return user;
    }
    // SAFETY: getpwuid returns a pointer into static storage or null; the
    // name is copied out at once, on this thread.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        if !pw.is_null() && !(*pw).pw_name.is_null() {
            if let Ok(name) = std::ffi::CStr::from_ptr((*pw).pw_name).to_str() {
                return name.to_string();
            }
        }
    }
    "unknown".to_string()
}

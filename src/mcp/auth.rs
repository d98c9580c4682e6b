//! Who makes a call: principals, the bearer-token file of `tusk mcp --auth`,
//! and the HTTP layer that admits a request only with a valid token.
//!
//! Rules (docs/sandbox.md, "The server"):
//! - over stdio there is one principal, `local`, which gets the server's
//!   default authority (`--policy-digest`, `--instruction-ref`);
//! - over HTTP without `--auth` (loopback only) every caller is `anonymous`
//!   and never gets the server's default authority: a mutation needs the
//!   caller's own evidence in the call;
//! - over HTTP with `--auth` a request without a valid bearer token is 401
//!   and nothing runs; a token names its principal and may carry its own
//!   default authority, an action allowlist, or read-only.
//!
//! Tokens are stored as their SHA-256, so the file grants nothing if read.

use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The principal of stdio calls.
pub const LOCAL: &str = "local";
/// The principal of HTTP calls on a server without `--auth`.
pub const ANONYMOUS: &str = "anonymous";

/// Who makes a call, and what that caller may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub name: String,
    /// Default authority for calls that carry none.
    pub policy_digest: Option<String>,
    pub instruction_ref: Option<String>,
    /// The actions this principal may bind (`None`: all the server offers).
    pub actions: Option<Vec<String>>,
    /// Only read actions.
    pub read_only: bool,
    /// Whom else it may act as (`host::actor`): `Some` for a principal a
    /// token proved (its actor arguments are checked), `None` for the
    /// stdio client and an unauthenticated caller (not checked).
    pub act_as: Option<Vec<String>>,
}

impl Principal {
    /// What a run of this principal's checks of who acts.
    pub fn acting(&self) -> Option<crate::host::actor::ActAs> {
        self.act_as
            .as_ref()
            .map(|grants| crate::host::actor::ActAs {
                principal: self.name.clone(),
                grants: grants.clone(),
            })
    }

    /// What this principal's token limits, for refusals in its terms
    /// (`None` when it limits nothing).
    pub fn terms(&self) -> Option<crate::runtime::PrincipalTerms> {
        (self.read_only || self.actions.is_some()).then(|| crate::runtime::PrincipalTerms {
            principal: self.name.clone(),
            read_only: self.read_only,
            actions: self.actions.clone(),
        })
    }

    /// The stdio client, with the server's default authority.
    pub fn local(policy_digest: Option<String>, instruction_ref: Option<String>) -> Self {
        Self {
            name: LOCAL.to_string(),
            policy_digest,
            instruction_ref,
            actions: None,
            read_only: false,
            act_as: None,
        }
    }

    /// An unauthenticated HTTP caller: no default authority.
    pub fn anonymous() -> Self {
        Self {
            name: ANONYMOUS.to_string(),
            policy_digest: None,
            instruction_ref: None,
            actions: None,
            read_only: false,
            act_as: None,
        }
    }
}

/// One entry of the token file.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TokenEntry {
    /// Lowercase hex SHA-256 of the token's bytes.
    sha256: String,
    principal: String,
    #[serde(default)]
    policy_digest: Option<String>,
    #[serde(default)]
    instruction_ref: Option<String>,
    /// The server's `--policy-digest`/`--instruction-ref` apply to this
    /// principal's calls that carry no authority (its own fields win).
    #[serde(default)]
    server_authority: bool,
    #[serde(default)]
    actions: Option<Vec<String>>,
    #[serde(default)]
    read_only: bool,
    /// Principals (or prefixes ending in `*`) this one may name in actor
    /// arguments besides itself: an orchestrator that hands out work.
    #[serde(default)]
    act_as: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenFile {
    tokens: Vec<TokenEntry>,
}

/// The principals of a token file, by token digest.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    by_digest: HashMap<String, Arc<Principal>>,
}

/// Longest principal name (it is recorded in every row of its runs).
const MAX_PRINCIPAL_BYTES: usize = 256;

impl Tokens {
    /// Loads a token file; `server` is the server's default authority, for
    /// entries with `serverAuthority: true`.
    ///
    /// # Errors
    /// The file cannot be read, is not the documented JSON, or an entry is
    /// invalid (bad digest, empty or reused principal name, duplicate token).
    pub fn load(path: &Path, server: (&Option<String>, &Option<String>)) -> Result<Tokens, String> {
        let text = read_private(path)?;
        let file: TokenFile = serde_json::from_str(&text).map_err(|e| {
            format!(
                "the token file {} is not {{\"tokens\": [{{\"sha256\", \"principal\", …}}]}}: {e}",
                path.display()
            )
        })?;
        let mut by_digest = HashMap::new();
        let mut names = std::collections::HashSet::new();
        for (i, entry) in file.tokens.into_iter().enumerate() {
            let at = format!("{} tokens[{i}]", path.display());
            let digest = entry.sha256.to_ascii_lowercase();
            if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!(
                    "{at}: sha256 must be 64 hex digits (`printf %s TOKEN | sha256sum`)"
                ));
            }
            let name = entry.principal;
            check_principal_name(&name).map_err(|why| format!("{at}: {why}"))?;
            if !names.insert(name.clone()) {
                // Sessions, runs and rows are owned by the name: two tokens
                // under one name would act in each other's sessions.
                return Err(format!(
                    "{at}: principal `{name}` is already named by another token; give each \
                     principal one name of its own (list one token per principal, or name them apart)"
                ));
            }
            let (policy_digest, instruction_ref) = if entry.server_authority {
                (
                    entry.policy_digest.or_else(|| server.0.clone()),
                    entry.instruction_ref.or_else(|| server.1.clone()),
                )
            } else {
                (entry.policy_digest, entry.instruction_ref)
            };
            for grant in &entry.act_as {
                check_act_as(grant).map_err(|why| format!("{at}: {why}"))?;
            }
            let principal = Principal {
                name,
                policy_digest,
                instruction_ref,
                actions: entry.actions,
                read_only: entry.read_only,
                act_as: Some(entry.act_as),
            };
            if by_digest.insert(digest, Arc::new(principal)).is_some() {
                return Err(format!("{at}: the same token is listed twice"));
            }
        }
        if by_digest.is_empty() {
            return Err(format!("the token file {} lists no token", path.display()));
        }
        Ok(Tokens { by_digest })
    }

    /// Every principal with its token's digest, sorted by digest.
    pub fn principals(&self) -> Vec<(String, Arc<Principal>)> {
        let mut all: Vec<(String, Arc<Principal>)> = self
            .by_digest
            .iter()
            .map(|(d, p)| (d.clone(), p.clone()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// The principal of a bearer token, if it is one of the file's.
    pub fn principal(&self, token: &str) -> Option<Arc<Principal>> {
        let digest = crate::canonical::sha256_hex(token.as_bytes());
        self.by_digest.get(&digest).cloned()
    }
}

/// A principal name's rules: 1-256 bytes of printable ASCII other than
/// space, not a reserved name. Names are recorded in every row and shown on
/// the dashboard, so two principals must never print alike: control,
/// invisible, bidi and look-alike (non-ASCII) characters are refused.
pub(crate) fn check_principal_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_PRINCIPAL_BYTES {
        return Err(format!(
            "principal must be 1-{MAX_PRINCIPAL_BYTES} bytes (it is {})",
            name.len()
        ));
    }
    if let Some(c) = name.chars().find(|c| !c.is_ascii_graphic()) {
        return Err(format!(
            "principal {:?} contains {:?} (U+{:04X}): a name is printable ASCII without spaces \
             (letters, digits and punctuation such as `agent.a` or `ci-bot@team`), so that two \
             principals never print alike",
            name.chars().take(80).collect::<String>(),
            c,
            c as u32
        ));
    }
    if name == LOCAL || name == ANONYMOUS {
        return Err(format!(
            "principal `{name}` is reserved (`{LOCAL}` is the stdio client, `{ANONYMOUS}` an \
             unauthenticated caller); choose another name"
        ));
    }
    Ok(())
}

/// An `actAs` entry: a principal name, or a prefix ending in `*`.
pub(crate) fn check_act_as(grant: &str) -> Result<(), String> {
    let bare = grant.strip_suffix('*').unwrap_or(grant);
    if bare.is_empty() && grant != "*" || bare.contains('*') {
        return Err(format!(
            "actAs entry {grant:?} is not a principal name or a prefix ending in `*`"
        ));
    }
    Ok(())
}

/// The token file's text; refused when others may write it (anyone who can
/// add a line to it can grant themselves a principal).
fn read_private(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::MetadataExt;
    let text = crate::files::read_to_string(path, crate::files::CONFIG_MAX)
        .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
    if meta.mode() & 0o002 != 0 {
        return Err(format!(
            "the token file {} is writable by every user (mode {:o}): anyone could add a token; \
             `chmod o-w {}` (0600 is best)",
            path.display(),
            meta.mode() & 0o7777,
            path.display()
        ));
    }
    Ok(text)
}

/// The bearer token of an `Authorization` header value.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The axum middleware of a server with `--auth`: a request without a valid
/// bearer token is answered 401 with `WWW-Authenticate` and goes no further;
/// a valid one carries its [`Principal`] in the request's extensions.
pub async fn require_token(
    axum::extract::State(tokens): axum::extract::State<Arc<super::tokens::LiveTokens>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let given = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer)
        .map(str::to_string);
    match given.as_deref().and_then(|t| tokens.principal(t)) {
        Some(principal) => {
            request.extensions_mut().insert(principal);
            next.run(request).await
        }
        None => {
            let challenge = if given.is_some() {
                "Bearer realm=\"tusk\", error=\"invalid_token\""
            } else {
                "Bearer realm=\"tusk\""
            };
            axum::response::Response::builder()
                .status(http::StatusCode::UNAUTHORIZED)
                .header(http::header::WWW_AUTHENTICATE, challenge)
                .header(http::header::CONTENT_TYPE, "application/json")
                .body(axum::body::Body::from(
                    r#"{"error":"unauthorized","message":"this server needs Authorization: Bearer TOKEN (tusk mcp --auth)"}"#,
                ))
                .unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parses_the_scheme_case_insensitively() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer("Bearer"), None);
    }

    #[test]
    fn token_file_rules() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens.json");
        let digest = crate::canonical::sha256_hex(b"secret-a");
        let write = |text: String| std::fs::write(&path, text).unwrap();
        write(format!(
            r#"{{"tokens":[{{"sha256":"{digest}","principal":"agent.a","serverAuthority":true,"readOnly":true}}]}}"#
        ));
        let server = (Some("pol1_x".to_string()), Some("instr://s".to_string()));
        let tokens = Tokens::load(&path, (&server.0, &server.1)).unwrap();
        let p = tokens.principal("secret-a").unwrap();
        assert_eq!(p.name, "agent.a");
        assert_eq!(p.policy_digest.as_deref(), Some("pol1_x"));
        assert!(p.read_only);
        assert!(tokens.principal("secret-b").is_none());
        for bad in [
            r#"{"tokens":[{"sha256":"abc","principal":"a"}]}"#.to_string(),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"local"}}]}}"#),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"a b"}}]}}"#),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"a","typo":1}}]}}"#),
            format!(
                r#"{{"tokens":[{{"sha256":"{digest}","principal":"a"}},{{"sha256":"{digest}","principal":"b"}}]}}"#
            ),
            r#"{"tokens":[]}"#.to_string(),
            // One name, two tokens: sessions are owned by the name.
            format!(
                r#"{{"tokens":[{{"sha256":"{digest}","principal":"a"}},{{"sha256":"{}","principal":"a","readOnly":true}}]}}"#,
                crate::canonical::sha256_hex(b"other")
            ),
            // Names that print like another: zero-width space, bidi override
            // and isolate, a Cyrillic a.
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"agent\u200b.a"}}]}}"#),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"agent.\u202ea"}}]}}"#),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"\u2066agent.a"}}]}}"#),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"\u0430gent"}}]}}"#),
            format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":""}}]}}"#),
        ] {
            write(bad.clone());
            assert!(Tokens::load(&path, (&None, &None)).is_err(), "{bad}");
        }
        // Writable by others: refused, with the fix.
        use std::os::unix::fs::PermissionsExt;
        write(format!(
            r#"{{"tokens":[{{"sha256":"{digest}","principal":"agent.a"}}]}}"#
        ));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let e = Tokens::load(&path, (&None, &None)).unwrap_err();
        assert!(e.contains("chmod o-w"), "{e}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(Tokens::load(&path, (&None, &None)).is_ok());
    }
}

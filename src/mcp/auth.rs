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
}

impl Principal {
    /// The stdio client, with the server's default authority.
    pub fn local(policy_digest: Option<String>, instruction_ref: Option<String>) -> Self {
        Self {
            name: LOCAL.to_string(),
            policy_digest,
            instruction_ref,
            actions: None,
            read_only: false,
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
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        let file: TokenFile = serde_json::from_str(&text).map_err(|e| {
            format!(
                "the token file {} is not {{\"tokens\": [{{\"sha256\", \"principal\", …}}]}}: {e}",
                path.display()
            )
        })?;
        let mut by_digest = HashMap::new();
        for (i, entry) in file.tokens.into_iter().enumerate() {
            let at = format!("{} tokens[{i}]", path.display());
            let digest = entry.sha256.to_ascii_lowercase();
            if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!(
                    "{at}: sha256 must be 64 hex digits (`printf %s TOKEN | sha256sum`)"
                ));
            }
            let name = entry.principal;
            if name.is_empty()
                || name.len() > MAX_PRINCIPAL_BYTES
                || name.chars().any(|c| c.is_control() || c.is_whitespace())
                || name == LOCAL
                || name == ANONYMOUS
            {
                return Err(format!(
                    "{at}: principal must be 1-{MAX_PRINCIPAL_BYTES} bytes without spaces or control \
                     characters, and not `{LOCAL}` or `{ANONYMOUS}`"
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
            let principal = Principal {
                name,
                policy_digest,
                instruction_ref,
                actions: entry.actions,
                read_only: entry.read_only,
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

    /// The principal of a bearer token, if it is one of the file's.
    pub fn principal(&self, token: &str) -> Option<Arc<Principal>> {
        let digest = crate::canonical::sha256_hex(token.as_bytes());
        self.by_digest.get(&digest).cloned()
    }
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
    axum::extract::State(tokens): axum::extract::State<Arc<Tokens>>,
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
        ] {
            write(bad.clone());
            assert!(Tokens::load(&path, (&None, &None)).is_err(), "{bad}");
        }
    }
}

//! A run request: what a caller hands the host, its field bounds, and
//! why a request cannot be served (nothing ran or was recorded).

use super::*;

/// A run request (CLI flags or a JSON request object).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Request {
    pub program: String,
    #[serde(default)]
    pub issue_id: Option<String>,
    #[serde(default)]
    pub policy_digest: Option<String>,
    #[serde(default)]
    pub instruction_ref: Option<String>,
    /// A harness-join-check input object.
    #[serde(default)]
    pub join_evidence: Option<Value>,
    #[serde(default)]
    pub limits: Option<LimitsOverride>,
    /// Bind only these host actions (intersected with what the host offers):
    /// a caller can approve a program by the list of actions it may call.
    /// The effect-log header's `hostActions` records the bound set.
    #[serde(default)]
    pub actions: Option<Vec<String>>,
    /// Stage the run's issue-store changes and apply them in one commit
    /// when it ends accepted, none otherwise (issue 59).
    #[serde(default)]
    pub atomic: bool,
    /// An atomic run that never commits: its result carries the plan of
    /// what it would change (`tusk.plan.v1`).
    #[serde(default)]
    pub dry_run: bool,
    /// A retry of this request with this key (same principal, same
    /// program) gets the first run's result and runs nothing
    /// ([`super::idempotency`]).
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// Who asks (set by the front end, never by the request's author): an
    /// MCP client's principal. Recorded in the header and trajectory rows.
    #[serde(skip)]
    pub principal: Option<String>,
    /// The program file was not UTF-8: the byte offset of its first invalid
    /// byte (`program` then holds a lossy decoding, for the record). Such a
    /// request runs nothing and is rejected as an invalid program.
    #[serde(skip)]
    pub invalid_utf8_at: Option<usize>,
    /// premath's capability claims (set by `tusk scheme-eval`, never by a
    /// JSON request): mutations then also need them (`gate::check_claims`).
    #[serde(skip)]
    pub capability_claims: Option<Vec<String>>,
    /// What the principal's token limits (set by the server, never by a
    /// JSON request): refusals then name the token, not the run.
    #[serde(skip)]
    pub terms: Option<PrincipalTerms>,
    /// The command line of an operator's command recorded as a one-call
    /// run (set by the command line and by the replay of such a run, never
    /// by a JSON request): its mutation is the operator's, not a program's,
    /// and passes without the gate's evidence, as the command always did.
    #[serde(skip)]
    pub command: Option<String>,
}

/// The largest size, in bytes, of each request field that every run records
/// (in its header and in each of its rows): over it, the request is refused
/// as `request.field_too_large` before anything is written. The program's
/// own limit is the run's `maxProgramBytes`.
pub const FIELD_LIMITS: [(&str, usize); 7] = [
    ("issueId", 256),
    ("instructionRef", 2048),
    ("policyDigest", 256),
    ("sessionId", 256),
    ("principal", 256),
    ("joinEvidence", 256 * 1024),
    ("idempotencyKey", 256),
];

/// Most entries of a request's `actions` list.
pub const MAX_ACTIONS_LISTED: usize = 512;

/// The limit of `field` in [`FIELD_LIMITS`].
pub fn field_limit(field: &str) -> usize {
    FIELD_LIMITS
        .iter()
        .find(|(f, _)| *f == field)
        .map_or(usize::MAX, |(_, max)| *max)
}

impl Request {
    /// Refuses a field over its limit ([`FIELD_LIMITS`]); `session_id` is
    /// the session the run is recorded under.
    pub fn check_bounds(&self, session_id: Option<&str>) -> Result<(), RequestError> {
        let join_bytes = self
            .join_evidence
            .as_ref()
            .map(|v| serde_json::to_string(v).map_or(usize::MAX, |t| t.len()));
        let fields = [
            ("issueId", self.issue_id.as_ref().map(String::len)),
            (
                "instructionRef",
                self.instruction_ref.as_ref().map(String::len),
            ),
            ("policyDigest", self.policy_digest.as_ref().map(String::len)),
            ("sessionId", session_id.map(str::len)),
            ("principal", self.principal.as_ref().map(String::len)),
            ("joinEvidence", join_bytes),
            (
                "idempotencyKey",
                self.idempotency_key.as_ref().map(String::len),
            ),
        ];
        for (field, bytes) in fields {
            let max = field_limit(field);
            if let Some(bytes) = bytes.filter(|b| *b > max) {
                return Err(RequestError::FieldTooLarge { field, bytes, max });
            }
        }
        if let Some(actions) = &self.actions {
            check_actions_bound(actions)?;
        }
        Ok(())
    }
}

/// Refuses an `actions` list over its bounds ([`MAX_ACTIONS_LISTED`] ids,
/// 64 KiB), on the list as sent: before ids are deduplicated or looked up.
pub fn check_actions_bound(actions: &[String]) -> Result<(), RequestError> {
    let bytes: usize = actions.iter().map(String::len).sum();
    if actions.len() > MAX_ACTIONS_LISTED || bytes > 64 * 1024 {
        return Err(RequestError::ActionsTooLarge {
            ids: actions.len(),
            bytes,
        });
    }
    Ok(())
}

/// A list of ids as an error may echo it: at most 1 KiB, then how many
/// more (a refusal never repeats a caller's whole input back).
pub fn echoed_ids(ids: &[impl AsRef<str>]) -> String {
    const MOST: usize = 1024;
    let mut out = String::new();
    for (i, id) in ids.iter().enumerate() {
        let id = id.as_ref();
        let sep = if i == 0 { "" } else { ", " };
        if out.len() + sep.len() + id.len() > MOST {
            out.push_str(&format!("{sep}… and {} more", ids.len() - i));
            break;
        }
        out.push_str(sep);
        out.push_str(id);
    }
    out
}

impl Request {
    /// A request for a program given as bytes (a file, stdin).
    pub fn from_program_bytes(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(program) => Request {
                program,
                ..Default::default()
            },
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                Request {
                    program: String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    invalid_utf8_at: Some(at),
                    ..Default::default()
                }
            }
        }
    }
}

/// A request that cannot be served (exit 2): nothing ran, nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("join evidence is not a valid harness-join-check input: {0}")]
    JoinEvidence(String),
    #[error("{field} is {bytes} bytes, over its {max}-byte limit; nothing was run or recorded")]
    FieldTooLarge {
        field: &'static str,
        bytes: usize,
        max: usize,
    },
    #[error(
        "actions lists {ids} ids ({bytes} bytes), over its limit of {MAX_ACTIONS_LISTED} ids and \
         64 KiB; nothing was run or recorded (list only the actions the program calls)"
    )]
    ActionsTooLarge { ids: usize, bytes: usize },
    #[error("the actions list names {} that this host does not offer: {}", if .0.len() == 1 { "an action" } else { "actions" }, echoed_ids(.0))]
    UnknownActions(Vec<String>),
    #[error("this session was opened with another actions list; a session's actions are fixed when it opens")]
    SessionActions,
    #[error("{0}")]
    Actor(String),
    #[error(transparent)]
    EffectLog(#[from] EffectLogError),
    #[error(transparent)]
    Idempotency(#[from] super::idempotency::KeyError),
}

impl RequestError {
    /// The class `tusk eval --json` reports: the shared store's own when it is
    /// the store that cannot be used.
    pub fn class(&self) -> &'static str {
        match self {
            RequestError::EffectLog(EffectLogError::Store(e)) => e.class(),
            RequestError::FieldTooLarge { .. } | RequestError::ActionsTooLarge { .. } => {
                HostClass::RequestFieldTooLarge.as_str()
            }
            RequestError::UnknownActions(_) | RequestError::SessionActions => {
                HostClass::RequestUnknownAction.as_str()
            }
            RequestError::Idempotency(e) => e.class(),
            _ => HostClass::RequestUnusable.as_str(),
        }
    }
}

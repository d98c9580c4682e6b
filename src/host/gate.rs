//! The mutation gate (host-api §5): fail closed. A mutation call is admitted
//! only when all four steps hold, checked in this order; the first that fails
//! names the rejection and nothing is written.
//!
//! 1. the request carries a non-empty `policyDigest` and `instructionRef`,
//!    else `mutation.use_evidence_missing`;
//! 2. `policyDigest` equals the active policy's digest, else
//!    `mutation.policy_digest_mismatch`;
//! 3. the policy allows the action, else `mutation.action_not_allowed`;
//! 4. when the policy sets `requireJoinClosed`, the request's join evidence
//!    checks as accepted (JoinClosed and MutationReady), else
//!    `mutation.use_evidence_missing` naming the missing join witness; the
//!    evidence's `joinSetDigest` joins the witness refs as `join://<digest>`.
//!
//! Evidence comes only from the request, never from the program text.

use crate::canonical;
use crate::host::HostClass;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub const POLICY_KIND: &str = "premath.mutation_policy.v1";
pub const USE_EVIDENCE_MISSING: &str = HostClass::UseEvidenceMissing.as_str();
pub const POLICY_DIGEST_MISMATCH: &str = HostClass::PolicyDigestMismatch.as_str();
pub const ACTION_NOT_ALLOWED: &str = HostClass::ActionNotAllowed.as_str();
/// premath's capability-claim refusal (`scheme-eval`'s claims, checked only
/// when a request carries claims).
pub const CAPABILITY_CLAIM_MISSING: &str = HostClass::CapabilityClaimMissing.as_str();
/// The claim every mutation of a claims-carrying request needs.
pub const CHANGE_MORPHISMS: &str = "capabilities.change_morphisms";
/// The claim that stands for every action's own claim.
pub const CHANGE_MORPHISMS_ALL: &str = "capabilities.change_morphisms.all";

/// premath's per-action claim (`capabilities.change_morphisms.<...>`), the
/// union of its evaluator's (lease mutations) and its MCP server's (issue and
/// dependency mutations); `None` for an action premath maps to no claim.
pub fn required_claim(action: &str) -> Option<&'static str> {
    match action {
        "issue.claim" | "issue.claim_next" => Some("capabilities.change_morphisms.issue_claim"),
        "issue.lease_renew" => Some("capabilities.change_morphisms.issue_lease_renew"),
        "issue.lease_release" => Some("capabilities.change_morphisms.issue_lease_release"),
        "issue.add" => Some("capabilities.change_morphisms.issue_add"),
        "issue.discover" => Some("capabilities.change_morphisms.issue_discover"),
        "issue.update" => Some("capabilities.change_morphisms.issue_update"),
        "dep.add" => Some("capabilities.change_morphisms.dep_add"),
        "dep.remove" => Some("capabilities.change_morphisms.dep_remove"),
        "dep.replace" => Some("capabilities.change_morphisms.dep_replace"),
        _ => None,
    }
}

/// premath's claim rule: the base claim, then the action's own claim or the
/// `.all` claim. Diagnostics are premath's.
pub fn check_claims(action: &str, claims: &[String]) -> Result<(), GateRejection> {
    let refuse = |diagnostic: String| GateRejection {
        class: CAPABILITY_CLAIM_MISSING,
        diagnostic,
    };
    if !claims.iter().any(|c| c == CHANGE_MORPHISMS) {
        return Err(refuse(format!(
            "mutation action `{action}` requires capability claim `{CHANGE_MORPHISMS}`"
        )));
    }
    let Some(required) = required_claim(action) else {
        return Err(refuse(format!(
            "mutation action `{action}` has no capability mapping"
        )));
    };
    if !claims
        .iter()
        .any(|c| c == required || c == CHANGE_MORPHISMS_ALL)
    {
        return Err(refuse(format!(
            "mutation action `{action}` requires capability claim `{required}` or `{CHANGE_MORPHISMS_ALL}`"
        )));
    }
    Ok(())
}

/// A policy file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A policy file named on the command line (`--policy`) that does not
    /// exist: never the built-in default, which allows every mutation.
    #[error(
        "the mutation policy {path} does not exist: a policy named with --policy must exist \
         (check the path; omit --policy to use .premath/mutation_policy.json, or the built-in \
         default when that file is absent)"
    )]
    NotFound { path: PathBuf },
    #[error("cannot read mutation policy {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("mutation policy {path} is not valid: {reason}")]
    Invalid { path: PathBuf, reason: String },
}

impl PolicyError {
    /// The failure class a command reports it under.
    pub fn class(&self) -> &'static str {
        match self {
            PolicyError::NotFound { .. } => HostClass::ConfigNotFound.as_str(),
            PolicyError::Io { .. } | PolicyError::Invalid { .. } => {
                HostClass::PolicyUnusable.as_str()
            }
        }
    }
}

/// Where a policy comes from: a file the caller named (which must exist), or
/// the default location (absent there: the built-in default). A typo in a
/// named path must not loosen the policy to allow-all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyFile {
    /// `--policy PATH`.
    Named(PathBuf),
    /// `.premath/mutation_policy.json` under the project.
    Default(PathBuf),
}

impl PolicyFile {
    /// The named path if there is one, else `default`.
    pub fn from_flag(named: Option<&Path>, default: &Path) -> Self {
        match named {
            Some(path) => PolicyFile::Named(path.to_path_buf()),
            None => PolicyFile::Default(default.to_path_buf()),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        match self {
            PolicyFile::Named(p) | PolicyFile::Default(p) => p,
        }
    }
}

/// The active mutation policy and its digest.
#[derive(Clone, Debug)]
pub struct MutationPolicy {
    pub document: Value,
    pub allowed_actions: BTreeSet<String>,
    pub require_join_closed: bool,
    /// What the logs record in place of named argument and payload values.
    pub redaction: super::redact::Redaction,
    /// Which actions by which principals go through an approved plan.
    pub approval: super::approval::Approval,
    /// `pol1_` + hex SHA-256 of the document's canonical JSON.
    pub digest: String,
    /// Where it came from; `None` for the built-in default.
    pub source: Option<PathBuf>,
}

impl MutationPolicy {
    /// The default policy of a registry: its mutations (`mutations`, from
    /// their declarations) allowed, no join closure required.
    pub fn allowing(mutations: &[String]) -> Self {
        let mut allowed: Vec<&String> = mutations
            .iter()
            .filter(|m| !GOVERNED_BY_PLAN.contains(&m.as_str()))
            .collect();
        allowed.sort();
        allowed.dedup();
        let document = json!({
            "schema": 1,
            "policyKind": POLICY_KIND,
            "allowedActions": allowed,
            "requireJoinClosed": false,
        });
        Self::from_document(document, None).expect("a default policy is valid")
    }

    /// Loads `file`; a [`PolicyFile::Default`] that does not exist gives the
    /// default allowing `mutations`, a [`PolicyFile::Named`] one an error.
    pub fn load(file: &PolicyFile, mutations: &[String]) -> Result<Self, PolicyError> {
        let path = file.path();
        let text = match crate::files::read_to_string(path, crate::files::CONFIG_MAX) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return match file {
                    PolicyFile::Default(_) => Ok(Self::allowing(mutations)),
                    PolicyFile::Named(_) => Err(PolicyError::NotFound {
                        path: path.to_path_buf(),
                    }),
                };
            }
            Err(source) => {
                return Err(PolicyError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let document: Value = serde_json::from_str(&text).map_err(|e| PolicyError::Invalid {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        Self::from_document(document, Some(path.to_path_buf()))
    }

    /// Validates a policy document (strictly: unknown members are refused, so
    /// a typo cannot silently loosen the policy).
    pub fn from_document(document: Value, source: Option<PathBuf>) -> Result<Self, PolicyError> {
        let invalid = |reason: String| PolicyError::Invalid {
            path: source
                .clone()
                .unwrap_or_else(|| PathBuf::from("<built-in>")),
            reason,
        };
        let map = document
            .as_object()
            .ok_or_else(|| invalid("expected a JSON object".into()))?;
        for key in map.keys() {
            if ![
                "schema",
                "policyKind",
                "allowedActions",
                "requireJoinClosed",
                "redact",
                "approval",
            ]
            .contains(&key.as_str())
            {
                return Err(invalid(format!("unknown member `{key}`")));
            }
        }
        if map.get("schema") != Some(&json!(1)) {
            return Err(invalid("`schema` must be 1".into()));
        }
        if map.get("policyKind").and_then(Value::as_str) != Some(POLICY_KIND) {
            return Err(invalid(format!("`policyKind` must be \"{POLICY_KIND}\"")));
        }
        let allowed = map
            .get("allowedActions")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("`allowedActions` must be a list of action ids".into()))?;
        let mut allowed_actions = BTreeSet::new();
        for item in allowed {
            let id = item
                .as_str()
                .ok_or_else(|| invalid("`allowedActions` must hold strings".into()))?;
            allowed_actions.insert(id.to_string());
        }
        let require_join_closed = match map.get("requireJoinClosed") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(invalid("`requireJoinClosed` must be a boolean".into())),
        };
        let redaction = match map.get("redact") {
            None => super::redact::Redaction::default(),
            Some(v) => super::redact::Redaction::from_json(v).map_err(invalid)?,
        };
        let approval = match map.get("approval") {
            None => super::approval::Approval::default(),
            Some(v) => super::approval::Approval::from_json(v).map_err(invalid)?,
        };
        let digest = canonical::policy_digest(&document);
        Ok(Self {
            document,
            allowed_actions,
            require_join_closed,
            redaction,
            approval,
            digest,
            source,
        })
    }

    /// Refuses redaction rules naming an action `ids` does not hold: a
    /// misspelt id would leave the secret it was meant to hide in the log.
    pub fn check_actions(&self, ids: &[String]) -> Result<(), PolicyError> {
        let unknown = |mut names: Box<dyn Iterator<Item = &str> + '_>| {
            names
                .find(|a| !ids.iter().any(|id| id == a))
                .map(str::to_string)
        };
        let found = unknown(Box::new(self.redaction.actions()))
            .map(|a| ("redact", a))
            .or_else(|| unknown(Box::new(self.approval.actions())).map(|a| ("approval", a)));
        match found {
            None => Ok(()),
            Some((member, unknown)) => Err(PolicyError::Invalid {
                path: self
                    .source
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("<built-in>")),
                reason: format!("`{member}` names `{unknown}`, which is not a registered action"),
            }),
        }
    }
}

/// The verdict of the typestate check on the request's join evidence. Its JSON
/// form (`accepted`, `joinSetDigest`, `failureClasses`) is what the effect-log
/// header records and `tusk repl`'s `:policy` shows.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JoinEvidence {
    pub accepted: bool,
    pub join_set_digest: String,
    pub failure_classes: Vec<String>,
}

impl JoinEvidence {
    /// Runs the typestate check (the one join rule, [`crate::typestate::check`])
    /// on a harness-join-check input; `Err` when the input is malformed.
    pub fn check(input: &serde_json::Value) -> Result<Self, String> {
        let check = crate::typestate::check(input).map_err(|e| e.to_string())?;
        Ok(JoinEvidence {
            accepted: check.accepted,
            join_set_digest: check.join_set_digest,
            failure_classes: check.failure_classes,
        })
    }
}

/// The authority evidence a request carries.
#[derive(Clone, Debug, Default)]
pub struct Authority {
    pub policy_digest: Option<String>,
    pub instruction_ref: Option<String>,
    pub join: Option<JoinEvidence>,
    /// premath's capability claims (`tusk scheme-eval`): when present, every
    /// mutation also needs its claims ([`check_claims`]) after the evidence.
    pub capability_claims: Option<Vec<String>>,
}

/// A refused mutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateRejection {
    pub class: &'static str,
    pub diagnostic: String,
}

/// The actions that apply a plan (issue 59): the gate asks them for
/// evidence and the policy's digest, and each applies only the actions its
/// plan makes that `allowedActions` allows; so the default policy (and its
/// digest, premath's) lists neither.
pub const GOVERNED_BY_PLAN: [&str; 2] = [PLAN_APPLY, PLAN_APPROVE];
/// The action that applies a plan (`issues::plan`).
pub const PLAN_APPLY: &str = "plan.apply";
/// The action that approves a plan, and so applies it.
pub const PLAN_APPROVE: &str = "plan.approve";

/// Runs the four steps for `action`; on admission returns the extra witness refs.
pub fn admit(
    policy: &MutationPolicy,
    authority: &Authority,
    action: &str,
) -> Result<Vec<String>, GateRejection> {
    let present = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
    if !present(&authority.policy_digest) || !present(&authority.instruction_ref) {
        let missing: Vec<&str> = [
            ("policyDigest", &authority.policy_digest),
            ("instructionRef", &authority.instruction_ref),
        ]
        .into_iter()
        .filter(|(_, v)| !present(v))
        .map(|(name, _)| name)
        .collect();
        return Err(GateRejection {
            class: USE_EVIDENCE_MISSING,
            diagnostic: format!(
                "mutation `{action}` needs authority evidence in the request; missing: {} \
                 (request fields policyDigest and instructionRef, or the flags --policy-digest \
                 \"$(tusk policy digest)\" --instruction-ref REF)",
                missing.join(", ")
            ),
        });
    }
    if let Some(claims) = &authority.capability_claims {
        check_claims(action, claims)?;
    }
    let given = authority
        .policy_digest
        .as_deref()
        .unwrap_or_default()
        .trim();
    if given != policy.digest {
        return Err(GateRejection {
            class: POLICY_DIGEST_MISMATCH,
            diagnostic: format!(
                "request policyDigest {given} does not match the active policy {} \
                 (`tusk policy digest` prints it)",
                policy.digest
            ),
        });
    }
    if !policy.allowed_actions.contains(action) && !GOVERNED_BY_PLAN.contains(&action) {
        return Err(GateRejection {
            class: ACTION_NOT_ALLOWED,
            diagnostic: format!("the active mutation policy does not allow `{action}`"),
        });
    }
    let mut refs = Vec::new();
    if policy.require_join_closed {
        match &authority.join {
            None => {
                return Err(GateRejection {
                    class: USE_EVIDENCE_MISSING,
                    diagnostic: format!(
                        "mutation `{action}` needs a join witness: the policy requires join closure and the request \
                         carries no join evidence (joinEvidence / --join-evidence)"
                    ),
                })
            }
            Some(join) if !join.accepted => {
                return Err(GateRejection {
                    class: USE_EVIDENCE_MISSING,
                    diagnostic: format!(
                        "mutation `{action}` needs an accepted join witness: the request's join evidence \
                         (join://{}) was rejected: {}",
                        join.join_set_digest,
                        join.failure_classes.join(", ")
                    ),
                })
            }
            Some(join) => refs.push(format!("join://{}", join.join_set_digest)),
        }
    }
    Ok(refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authority(policy: &MutationPolicy) -> Authority {
        Authority {
            policy_digest: Some(policy.digest.clone()),
            instruction_ref: Some("instr://test".into()),
            join: None,
            capability_claims: None,
        }
    }

    #[test]
    fn claims_follow_premaths_rule() {
        let policy = MutationPolicy::allowing(&crate::runtime::builtin_registry().mutation_ids());
        let with = |claims: &[&str]| Authority {
            capability_claims: Some(claims.iter().map(|c| c.to_string()).collect()),
            ..authority(&policy)
        };
        let refused =
            |claims: &[&str], action: &str| admit(&policy, &with(claims), action).unwrap_err();
        assert_eq!(refused(&[], "issue.claim").class, CAPABILITY_CLAIM_MISSING);
        assert!(refused(&[CHANGE_MORPHISMS], "issue.claim")
            .diagnostic
            .contains("capabilities.change_morphisms.issue_claim"));
        assert!(
            refused(&[CHANGE_MORPHISMS, CHANGE_MORPHISMS_ALL], "issue.close")
                .diagnostic
                .contains("no capability mapping")
        );
        assert!(admit(
            &policy,
            &with(&[
                CHANGE_MORPHISMS,
                "capabilities.change_morphisms.issue_claim"
            ]),
            "issue.claim_next"
        )
        .is_ok());
        assert!(admit(
            &policy,
            &with(&[CHANGE_MORPHISMS, CHANGE_MORPHISMS_ALL]),
            "issue.lease_renew"
        )
        .is_ok());
        // Evidence is checked first, as premath does.
        let bare = Authority {
            capability_claims: Some(Vec::new()),
            ..Authority::default()
        };
        assert_eq!(
            admit(&policy, &bare, "issue.claim").unwrap_err().class,
            USE_EVIDENCE_MISSING
        );
    }

    #[test]
    fn steps_in_order() {
        let policy = MutationPolicy::allowing(&crate::runtime::builtin_registry().mutation_ids());
        assert!(admit(&policy, &authority(&policy), "issue.claim").is_ok());
        let missing = Authority::default();
        assert_eq!(
            admit(&policy, &missing, "issue.claim").unwrap_err().class,
            USE_EVIDENCE_MISSING
        );
        let wrong = Authority {
            policy_digest: Some("pol1_00".into()),
            ..authority(&policy)
        };
        assert_eq!(
            admit(&policy, &wrong, "issue.claim").unwrap_err().class,
            POLICY_DIGEST_MISMATCH
        );
        assert_eq!(
            admit(&policy, &authority(&policy), "issue.frobnicate")
                .unwrap_err()
                .class,
            ACTION_NOT_ALLOWED
        );
    }

    #[test]
    fn join_closure_when_required() {
        let mut doc =
            MutationPolicy::allowing(&crate::runtime::builtin_registry().mutation_ids()).document;
        doc["requireJoinClosed"] = json!(true);
        let policy = MutationPolicy::from_document(doc, None).unwrap();
        let mut auth = authority(&policy);
        let e = admit(&policy, &auth, "issue.claim").unwrap_err();
        assert_eq!(e.class, USE_EVIDENCE_MISSING);
        assert!(e.diagnostic.contains("join witness"));
        auth.join = Some(JoinEvidence {
            accepted: true,
            join_set_digest: "sha256:ab".into(),
            failure_classes: vec![],
        });
        assert_eq!(
            admit(&policy, &auth, "issue.claim").unwrap(),
            vec!["join://sha256:ab".to_string()]
        );
    }

    #[test]
    fn policy_typos_are_refused() {
        let mut doc =
            MutationPolicy::allowing(&crate::runtime::builtin_registry().mutation_ids()).document;
        doc["requireJoinClose"] = json!(true);
        assert!(MutationPolicy::from_document(doc, None).is_err());
    }
}

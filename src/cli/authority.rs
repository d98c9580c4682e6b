//! Authority stated once (issue 57, point 6): `TUSK_POLICY_DIGEST` and
//! `TUSK_INSTRUCTION_REF`, and `policyDigest` and `instructionRef` in
//! `.premath/config.json`, give `tusk eval`, `repl` and `scheme-eval` the
//! authority a request carries none of. Flags win over a request's own
//! fields, those over the environment, the environment over the file. Each
//! fails closed as the flag does: the gate still refuses a digest that is not
//! the active policy's. `tusk doctor` says where the authority in force comes
//! from.
//!
//! The run is also given its actor here (issue 57, point 1): the local
//! actor ([`crate::host::actor::local_actor`]) for a request from the
//! command line.

use crate::runtime::Request;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where a piece of authority came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `TUSK_POLICY_DIGEST` or `TUSK_INSTRUCTION_REF`.
    Environment(&'static str),
    /// A member of `.premath/config.json`.
    ConfigFile(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Environment(var) => write!(f, "the environment ({var})"),
            Source::ConfigFile(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The defaults in force: each value with where it came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Defaults {
    pub policy_digest: Option<(String, Source)>,
    pub instruction_ref: Option<(String, Source)>,
}

const VARS: [(&str, &str); 2] = [
    ("TUSK_POLICY_DIGEST", "policyDigest"),
    ("TUSK_INSTRUCTION_REF", "instructionRef"),
];

/// The defaults from the environment and `config` (the store's
/// `config.json`).
///
/// # Errors
/// `config.json` is unreadable, not JSON, or holds a member that is not a
/// non-empty string; a variable is set but empty.
pub fn defaults(config: &Path) -> Result<Defaults, String> {
    let file = crate::issues::model::read_config(config)?;
    let mut found = [None, None];
    for (slot, (var, member)) in found.iter_mut().zip(VARS) {
        if let Some(value) = std::env::var_os(var) {
            let value = value
                .into_string()
                .map_err(|_| format!("{var} is not UTF-8"))?;
            if value.is_empty() {
                return Err(format!(
                    "{var} is set but empty: unset it, or give the {member} to use"
                ));
            }
            *slot = Some((value, Source::Environment(var)));
            continue;
        }
        match file.as_ref().and_then(|c| c.get(member)) {
            None => {}
            Some(Value::String(s)) if !s.is_empty() => {
                *slot = Some((s.clone(), Source::ConfigFile(config.to_path_buf())));
            }
            Some(other) => {
                return Err(format!(
                    "{}: \"{member}\" is {other}; write a non-empty string (the {} to use by \
                     default), or remove it",
                    config.display(),
                    if member == "policyDigest" {
                        "digest `tusk policy digest` prints"
                    } else {
                        "instruction reference"
                    }
                ))
            }
        }
    }
    let [policy_digest, instruction_ref] = found;
    Ok(Defaults {
        policy_digest,
        instruction_ref,
    })
}

/// Fills what `request` lacks from the defaults, and names its actor.
///
/// # Errors
/// As [`defaults`]; an unusable local actor.
pub fn complete(request: &mut Request, config: &Path) -> Result<(), String> {
    let d = defaults(config)?;
    if request.policy_digest.is_none() {
        request.policy_digest = d.policy_digest.map(|(v, _)| v);
    }
    if request.instruction_ref.is_none() {
        request.instruction_ref = d.instruction_ref.map(|(v, _)| v);
    }
    if request.principal.is_none() {
        request.principal = Some(crate::host::actor::local_actor()?.name);
    }
    Ok(())
}

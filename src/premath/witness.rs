//! premath's instruction witnesses (`artifacts/ciwitness/<id>.json`): the
//! admission rules its MCP mutations pass before tusk's gate.

use super::*;

pub(super) const POLICY_DIGEST_CI_V1: &str =
    "pol1_4ba916ce38da5c5607eb7f41d963294b34b644deb1fa6d55e133b072ca001b39";
pub(super) const POLICY_DIGEST_TEST_V1: &str =
    "pol1_1ab3e7f398a472c2cf0f3fbd7ead7ece7bd74e836cbde924f1e33f02895d18ab";
/// premath's refusal of a mutation tool call without `instruction_id`.
pub const INSTRUCTION_REQUIRED: &str =
    "mutation policy `instruction-linked` requires `instruction_id` on mutation tools";

/// An instruction witness premath admits a mutation on.
pub struct InstructionLink {
    /// premath's `instruction` member (`instructionId`, `witnessPath`, …).
    pub json: Value,
    pub claims: Vec<String>,
}

/// The directory premath's server takes as its repository root, named as
/// premath names it (`<cwd>/.`).
pub fn server_root() -> std::io::Result<std::path::PathBuf> {
    Ok(std::env::current_dir()?.join("."))
}

/// premath's instruction-linked admission of mutation `action`: the witness
/// `<root>/artifacts/ciwitness/<id>.json` must exist, carry the id, be
/// accepted, be scoped by one of premath's policy digests, claim
/// `capabilities.change_morphisms` and the action's own claim (or `.all`),
/// have no failure class, and, when `join`, a closed join gate. Checked in
/// premath's order with its messages.
///
/// # Errors
/// premath's message for the first check that fails; an id that is not a
/// plain file name (tusk reads no other file).
pub fn instruction_link(
    root: &std::path::Path,
    id: &str,
    action: &str,
    join: bool,
) -> Result<InstructionLink, String> {
    let (shown, payload) = read_witness(root, id)?;
    let witness = Witness::of(&payload, id, shown);
    witness.check_identity()?;
    witness.check_scope(action)?;
    witness.check_failures(action, join)?;
    Ok(InstructionLink {
        json: witness.to_json(),
        claims: witness.claims,
    })
}

/// The witness file `<root>/artifacts/ciwitness/<id>.json` as shown in
/// messages, and its JSON.
fn read_witness(root: &std::path::Path, id: &str) -> Result<(String, Value), String> {
    if id.contains(['/', '\\', '\0']) || id == "." || id == ".." {
        return Err(format!(
            "instruction_id `{id}`: an instruction id names a witness in artifacts/ciwitness, not a path"
        ));
    }
    let path = root
        .join("artifacts")
        .join("ciwitness")
        .join(format!("{id}.json"));
    let shown = path.display().to_string();
    if !path.exists() {
        return Err(format!("instruction witness not found: {shown}"));
    }
    let bytes = crate::files::read_capped(&path, crate::files::CONFIG_MAX)
        .map_err(|e| format!("failed to read {shown}: {e}"))?;
    let payload: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("failed to parse instruction witness {shown}: {e}"))?;
    Ok((shown, payload))
}

/// The string members of the array `payload[key]`.
fn strings(payload: &Value, key: &str) -> Vec<String> {
    payload[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The first non-blank class, trimmed.
fn first_class(classes: &[String]) -> Option<String> {
    classes
        .iter()
        .map(|c| c.trim())
        .find(|c| !c.is_empty())
        .map(str::to_string)
}

/// What the admission reads of instruction `id`'s witness (shown as `shown`).
struct Witness<'p> {
    id: &'p str,
    shown: String,
    payload: &'p Value,
    claims: Vec<String>,
    failures: Vec<String>,
    join_failures: Vec<String>,
    join_closed: Option<bool>,
    join_ref: Option<&'p str>,
    join_present: bool,
    policy: Option<&'p str>,
}

impl<'p> Witness<'p> {
    fn of(payload: &'p Value, id: &'p str, shown: String) -> Self {
        Self {
            id,
            shown,
            payload,
            claims: strings(payload, "capabilityClaims"),
            failures: strings(payload, "failureClasses"),
            join_failures: strings(payload, "joinFailureClasses"),
            join_closed: payload["joinClosed"].as_bool(),
            join_ref: payload["joinWitnessRef"].as_str(),
            join_present: ["joinClosed", "joinFailureClasses", "joinWitnessRef"]
                .iter()
                .any(|k| payload.get(*k).is_some()),
            policy: payload["policyDigest"].as_str(),
        }
    }

    /// premath's `instruction` member.
    fn to_json(&self) -> Value {
        json!({
            "instructionId": self.id,
            "witnessPath": self.shown,
            "instructionDigest": self.payload["instructionDigest"].as_str(),
            "policyDigest": self.policy,
            "capabilityClaims": self.claims,
            "requiredChecks": strings(self.payload, "requiredChecks"),
            "executedChecks": strings(self.payload, "executedChecks"),
            "failureClasses": self.failures,
            "joinGatePresent": self.join_present,
            "joinClosed": self.join_closed,
            "joinFailureClasses": self.join_failures,
            "joinWitnessRef": self.join_ref,
        })
    }

    /// The witness carries the id and was accepted.
    fn check_identity(&self) -> Result<(), String> {
        let (id, shown) = (self.id, &self.shown);
        let Some(in_witness) = self.payload["instructionId"].as_str() else {
            return Err(format!(
                "instruction witness missing `instructionId`: {shown}"
            ));
        };
        if in_witness != id {
            return Err(format!(
                "instruction witness id mismatch (expected `{id}`, got `{in_witness}`)"
            ));
        }
        let verdict = self.payload["verdictClass"].as_str();
        if verdict != Some("accepted") {
            return Err(format!(
                "instruction witness is not accepted for `{id}` (verdictClass={})",
                verdict.unwrap_or("missing")
            ));
        }
        Ok(())
    }

    /// Scoped by one of premath's policy digests, and claiming
    /// `capabilities.change_morphisms` and the action's own claim (or `.all`).
    fn check_scope(&self, action: &str) -> Result<(), String> {
        use crate::host::gate::{required_claim, CHANGE_MORPHISMS, CHANGE_MORPHISMS_ALL};
        let id = self.id;
        let Some(policy) = self.policy else {
            return Err(format!(
                "instruction witness `{id}` missing `policyDigest` required for mutation policy scope"
            ));
        };
        if policy != POLICY_DIGEST_CI_V1 && policy != POLICY_DIGEST_TEST_V1 {
            return Err(format!(
                "instruction policyDigest `{policy}` is not scoped for mutation action `{action}`"
            ));
        }
        let claims = &self.claims;
        if !claims.iter().any(|c| c == CHANGE_MORPHISMS) {
            return Err(format!(
                "instruction `{id}` missing required capability claim `{CHANGE_MORPHISMS}` for mutation action `{action}`"
            ));
        }
        let own = required_claim(action).unwrap_or(CHANGE_MORPHISMS_ALL);
        if !claims.iter().any(|c| c == own || c == CHANGE_MORPHISMS_ALL) {
            return Err(format!(
                "instruction `{id}` missing required action capability claim `{own}` for mutation action `{action}`"
            ));
        }
        Ok(())
    }

    /// No failure class and, when `join`, a closed join gate.
    fn check_failures(&self, action: &str, join: bool) -> Result<(), String> {
        let (id, shown) = (self.id, &self.shown);
        if let Some(class) = first_class(&self.failures) {
            return Err(format!(
                "[failureClass={class}] instruction witness rejected mutation action `{action}` (instructionWitness={shown})"
            ));
        }
        if !join {
            return Ok(());
        }
        let join_ref = self.join_ref.unwrap_or("missing");
        if !self.join_present {
            return Err(format!(
                "[failureClass={FAILURE_USE_EVIDENCE_MISSING}] instruction witness `{id}` missing join-gate evidence for mutation action `{action}` (instructionWitness={shown})"
            ));
        }
        if let Some(class) = first_class(&self.join_failures) {
            return Err(format!(
                "[failureClass={class}] instruction join gate rejected mutation action `{action}` (instructionWitness={shown}, joinWitnessRef={join_ref})"
            ));
        }
        if self.join_closed != Some(true) {
            let class = crate::typestate::JoinClass::ToolJoinIncomplete.as_str();
            return Err(format!(
                "[failureClass={class}] instruction join gate is not closed for mutation action `{action}` (instructionWitness={shown}, joinWitnessRef={join_ref})"
            ));
        }
        Ok(())
    }
}

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
    let bytes = std::fs::read(&path).map_err(|e| format!("failed to read {shown}: {e}"))?;
    let payload: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("failed to parse instruction witness {shown}: {e}"))?;
    let Some(in_witness) = payload["instructionId"].as_str() else {
        return Err(format!(
            "instruction witness missing `instructionId`: {shown}"
        ));
    };
    if in_witness != id {
        return Err(format!(
            "instruction witness id mismatch (expected `{id}`, got `{in_witness}`)"
        ));
    }
    let verdict = payload["verdictClass"].as_str();
    if verdict != Some("accepted") {
        return Err(format!(
            "instruction witness is not accepted for `{id}` (verdictClass={})",
            verdict.unwrap_or("missing")
        ));
    }
    let strings = |key: &str| -> Vec<String> {
        payload[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let claims = strings("capabilityClaims");
    let failures = strings("failureClasses");
    let join_failures = strings("joinFailureClasses");
    let join_closed = payload["joinClosed"].as_bool();
    let join_ref = payload["joinWitnessRef"].as_str();
    let join_present = ["joinClosed", "joinFailureClasses", "joinWitnessRef"]
        .iter()
        .any(|k| payload.get(*k).is_some());
    let policy = payload["policyDigest"].as_str();
    let json = json!({
        "instructionId": id,
        "witnessPath": shown,
        "instructionDigest": payload["instructionDigest"].as_str(),
        "policyDigest": policy,
        "capabilityClaims": claims,
        "requiredChecks": strings("requiredChecks"),
        "executedChecks": strings("executedChecks"),
        "failureClasses": failures,
        "joinGatePresent": join_present,
        "joinClosed": join_closed,
        "joinFailureClasses": join_failures,
        "joinWitnessRef": join_ref,
    });
    let Some(policy) = policy else {
        return Err(format!(
            "instruction witness `{id}` missing `policyDigest` required for mutation policy scope"
        ));
    };
    if policy != POLICY_DIGEST_CI_V1 && policy != POLICY_DIGEST_TEST_V1 {
        return Err(format!(
            "instruction policyDigest `{policy}` is not scoped for mutation action `{action}`"
        ));
    }
    use crate::host::gate::{required_claim, CHANGE_MORPHISMS, CHANGE_MORPHISMS_ALL};
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
    let first = |classes: &[String]| {
        classes
            .iter()
            .map(|c| c.trim())
            .find(|c| !c.is_empty())
            .map(str::to_string)
    };
    if let Some(class) = first(&failures) {
        return Err(format!(
            "[failureClass={class}] instruction witness rejected mutation action `{action}` (instructionWitness={shown})"
        ));
    }
    if join {
        let join_ref = join_ref.unwrap_or("missing");
        if !join_present {
            return Err(format!(
                "[failureClass={FAILURE_USE_EVIDENCE_MISSING}] instruction witness `{id}` missing join-gate evidence for mutation action `{action}` (instructionWitness={shown})"
            ));
        }
        if let Some(class) = first(&join_failures) {
            return Err(format!(
                "[failureClass={class}] instruction join gate rejected mutation action `{action}` (instructionWitness={shown}, joinWitnessRef={join_ref})"
            ));
        }
        if join_closed != Some(true) {
            return Err(format!(
                "[failureClass=tool.join_incomplete] instruction join gate is not closed for mutation action `{action}` (instructionWitness={shown}, joinWitnessRef={join_ref})"
            ));
        }
    }
    Ok(InstructionLink { json, claims })
}

//! The typestate join check (spec `typestate.md`, seed HARNESS-TYPESTATE).
//!
//! One turn's tool-calling evidence goes through a fixed pipeline:
//! [`evidence`] (parse = normalize) → [`state`] (join and context sets) →
//! [`classes`] (the failure-class table) → [`output`] (digests and the `--json`
//! object). [`check`] runs all of it; the CLI (`tusk harness-join-check`), the
//! `harness.join_check` host action and the mutation gate's join-evidence step
//! all go through it, so they cannot disagree.
//!
//! Where the spec and the reference vectors are silent, this checker chooses:
//! - JSON `null` for an optional field means absent; unknown keys are ignored.
//! - Blank entries of reference lists are dropped (like blank optional strings).
//! - `disposition` outside consumed/observed/discarded and `status` outside
//!   ok/error are input errors; `actionMode` is lower-cased but not restricted.
//! - Exact-duplicate detection compares rows after normalization, error envelopes
//!   as given (an explicit `"unknown_error"` differs from an absent code).
//! - `rawError` must be an object; its recognised fields must have the documented
//!   types. Top-level `errorCode`/`retryable`/`errorMessage` win over `rawError`.
//! - `payload` is digested as given (canonical JSON, not trimmed); an explicit
//!   `resultDigest` wins. `errorMessageDigest` is `sha256:` over the trimmed
//!   message text itself (the vectors pin `""` to SHA-256 of empty input).
//! - `truncationConstraints.valid` absent counts as not valid (fail closed).
//! - Empty lists are omitted from rows (`sourceRefs`, `requiredArtifactRefs`) as
//!   they are from the output objects; `sessionRefs`/`trajectoryRefs` appear in
//!   `normalized` and `mutationInput` when non-empty; `missingRenderCallIds`
//!   appears in `joinInput`/`mutationInput` when non-empty, like the join gaps.

pub mod action;
pub mod classes;
pub mod conformance;
pub mod evidence;
mod input;
pub mod output;
pub mod state;

pub use classes::{JoinClass, FAILURE_CLASSES};

use serde_json::Value;

/// An input that cannot be normalized. Displays as `<field>: <reason>`; the CLI
/// prefixes `harness_join_check_invalid: `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct TypestateInputError {
    /// Dotted path of the offending field (`evidence.toolResults[1].status`).
    pub field: String,
    pub reason: String,
}

impl TypestateInputError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        let field = field.into();
        Self {
            field: if field.is_empty() {
                "input".into()
            } else {
                field
            },
            reason: reason.into(),
        }
    }
}

/// The verdict of one join check.
#[derive(Clone, Debug)]
pub struct JoinCheck {
    /// No failure class fired: JoinClosed and MutationReady hold.
    pub accepted: bool,
    /// Sorted, de-duplicated failure classes.
    pub failure_classes: Vec<String>,
    /// The output's `joinClosed`, which the spec defines as "accepted" (not the
    /// set-level closure in `normalized.joinState.joinClosed`).
    pub join_closed: bool,
    /// `sha256:…` binding the request/result/use sets and derived state; the
    /// mutation gate cites it as `join://<joinSetDigest>`.
    pub join_set_digest: String,
    /// The complete `--json` output object.
    pub output: Value,
}

/// Normalizes `input` (the whole `{evidence, …Constraints}` object) and checks it.
pub fn check(input: &Value) -> Result<JoinCheck, TypestateInputError> {
    let (ev, constraints) = evidence::normalize(input)?;
    let join = state::JoinState::derive(&ev);
    let ctx = state::ContextState::derive(&ev, &join);
    let failure_classes: Vec<String> = classes::evaluate(&ev, &constraints, &join, &ctx)
        .into_iter()
        .map(str::to_string)
        .collect();
    let digests = output::Digests::compute(&ev, &join, &ctx);
    let out = output::build(&ev, &join, &ctx, &digests, &failure_classes);
    let accepted = failure_classes.is_empty();
    Ok(JoinCheck {
        accepted,
        failure_classes,
        join_closed: accepted,
        join_set_digest: digests.join_set,
        output: out,
    })
}

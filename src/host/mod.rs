//! Host functions: the action contract, the registry, envelopes and the
//! fail-closed mutation gate.

pub mod action;
pub mod declare;
pub mod envelope;
pub mod gate;
pub mod redact;
pub mod registry;

pub use action::{ActionContext, ActionError, ActionKind, ActionOutcome, HostAction, HostPaths};
pub use declare::{declare, schema, ActionSpec, Declaration};
pub use gate::{Authority, JoinEvidence, MutationPolicy};
pub use registry::{Registry, RegistryError};

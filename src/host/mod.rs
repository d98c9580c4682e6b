//! Host functions: the action contract, the registry, envelopes and the
//! fail-closed mutation gate.

pub mod action;
pub mod catalogue;
pub mod envelope;
pub mod gate;
pub mod registry;

pub use action::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, FnAction, HostAction,
    HostPaths,
};
pub use gate::{Authority, JoinEvidence, MutationPolicy};
pub use registry::{Registry, RegistryError};

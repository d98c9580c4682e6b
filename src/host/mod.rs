//! Host functions: the action contract, the registry, envelopes and the mutation gate.

pub mod action;

pub use action::{
    ActionContext, ActionError, ActionKind, ActionOutcome, ArgSpec, ArgType, HostAction, HostPaths,
};

//! Per-run resource limits (host-api §2). Every limit is configurable; the
//! defaults are the spec's.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Limits applied to one run. Serialized as the effect-log header's `limits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    /// Wall-clock budget (`scheme_eval.timeout`).
    pub timeout_ms: u64,
    /// Host calls allowed (`scheme_eval.call_budget_exceeded` beyond).
    pub max_calls: u32,
    /// Heap the program may add on top of the prepared engine (`scheme_eval.memory_exceeded`).
    pub max_memory_mb: u64,
    /// Captured `display` output kept; the rest is dropped with `outputTruncated: true`.
    pub max_output_bytes: u64,
    /// Program text size (`scheme_eval.invalid_program` beyond).
    pub max_program_bytes: u64,
    /// Nesting depth of the program text, checked before Steel's recursive reader sees it.
    pub max_nesting_depth: u32,
    /// Size of one host call's arguments as JSON (`host.args_invalid` beyond).
    /// Absent from effect logs written before it existed: the default.
    #[serde(default = "default_call_args_bytes")]
    pub max_call_args_bytes: u64,
    /// Size of the final value as JSON (`scheme_eval.value_too_large`
    /// beyond, decided in the worker). Absent from older logs: the default.
    #[serde(default = "default_value_bytes")]
    pub max_value_bytes: u64,
}

/// 8 MiB: the default cap on a run's final value as JSON.
pub const DEFAULT_VALUE_BYTES: u64 = 8 * 1024 * 1024;

fn default_value_bytes() -> u64 {
    DEFAULT_VALUE_BYTES
}

/// 1 MiB: the default per-call argument cap.
pub const DEFAULT_CALL_ARGS_BYTES: u64 = 1024 * 1024;

fn default_call_args_bytes() -> u64 {
    DEFAULT_CALL_ARGS_BYTES
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout_ms: 5_000,
            max_calls: 64,
            max_memory_mb: 256,
            max_output_bytes: 64 * 1024,
            max_program_bytes: 1024 * 1024,
            max_nesting_depth: 512,
            max_call_args_bytes: DEFAULT_CALL_ARGS_BYTES,
            max_value_bytes: DEFAULT_VALUE_BYTES,
        }
    }
}

impl Limits {
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    pub fn max_memory_bytes(&self) -> usize {
        usize::try_from(self.max_memory_mb.saturating_mul(1024 * 1024)).unwrap_or(usize::MAX)
    }
}

/// A partial override of [`Limits`], as carried by a JSON request's `limits`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LimitsOverride {
    pub timeout_ms: Option<u64>,
    pub max_calls: Option<u32>,
    pub max_memory_mb: Option<u64>,
    pub max_output_bytes: Option<u64>,
    pub max_program_bytes: Option<u64>,
    pub max_nesting_depth: Option<u32>,
    pub max_call_args_bytes: Option<u64>,
    pub max_value_bytes: Option<u64>,
}

impl LimitsOverride {
    /// Fields set in `self` win; the rest come from `fallback`.
    pub fn or(self, fallback: LimitsOverride) -> LimitsOverride {
        LimitsOverride {
            timeout_ms: self.timeout_ms.or(fallback.timeout_ms),
            max_calls: self.max_calls.or(fallback.max_calls),
            max_memory_mb: self.max_memory_mb.or(fallback.max_memory_mb),
            max_output_bytes: self.max_output_bytes.or(fallback.max_output_bytes),
            max_program_bytes: self.max_program_bytes.or(fallback.max_program_bytes),
            max_nesting_depth: self.max_nesting_depth.or(fallback.max_nesting_depth),
            max_call_args_bytes: self.max_call_args_bytes.or(fallback.max_call_args_bytes),
            max_value_bytes: self.max_value_bytes.or(fallback.max_value_bytes),
        }
    }

    /// Applies the set fields on top of `base`.
    pub fn apply(&self, base: Limits) -> Limits {
        Limits {
            timeout_ms: self.timeout_ms.unwrap_or(base.timeout_ms),
            max_calls: self.max_calls.unwrap_or(base.max_calls),
            max_memory_mb: self.max_memory_mb.unwrap_or(base.max_memory_mb),
            max_output_bytes: self.max_output_bytes.unwrap_or(base.max_output_bytes),
            max_program_bytes: self.max_program_bytes.unwrap_or(base.max_program_bytes),
            max_nesting_depth: self.max_nesting_depth.unwrap_or(base.max_nesting_depth),
            max_call_args_bytes: self.max_call_args_bytes.unwrap_or(base.max_call_args_bytes),
            max_value_bytes: self.max_value_bytes.unwrap_or(base.max_value_bytes),
        }
    }
}

impl From<Limits> for LimitsOverride {
    /// Every limit set: a request that runs under exactly `limits`.
    fn from(limits: Limits) -> Self {
        Self {
            timeout_ms: Some(limits.timeout_ms),
            max_calls: Some(limits.max_calls),
            max_memory_mb: Some(limits.max_memory_mb),
            max_output_bytes: Some(limits.max_output_bytes),
            max_program_bytes: Some(limits.max_program_bytes),
            max_nesting_depth: Some(limits.max_nesting_depth),
            max_call_args_bytes: Some(limits.max_call_args_bytes),
            max_value_bytes: Some(limits.max_value_bytes),
        }
    }
}

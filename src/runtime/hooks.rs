//! What a caller may fix for one run instead of letting the host compute
//! it: the clock, step names, progress listeners, a wrapped bridge.

use super::*;

/// The times one call is given instead of the wall clock's.
#[derive(Clone, Debug, Default)]
pub struct CallTimes {
    /// The `now` its action sees.
    pub acted_at: Option<chrono::DateTime<Utc>>,
    /// Its trajectory row's `finishedAt` (as text: the recorded one).
    pub finished_at: Option<String>,
}

/// The clock of a run's calls, by seq; what it leaves `None` is the wall clock.
pub type Clock = Arc<dyn Fn(usize) -> CallTimes + Send + Sync>;

/// What a caller may fix for one run instead of letting the host compute it.
#[derive(Clone, Default)]
pub struct RunHooks {
    /// The join verdict, instead of checking the request's join evidence.
    pub join: Option<JoinEvidence>,
    /// The clock each call's action is given.
    pub clock: Option<Clock>,
    /// Stops the run from outside (an MCP client's cancel or disconnect).
    pub cancel: Option<crate::sandbox::CancelToken>,
    /// Told of each host call once its rows are written (MCP progress).
    pub on_call: Option<OnCall>,
    /// The caller's W3C trace context (an MCP request's `_meta.traceparent`
    /// and `tracestate`): the run's span is its child, and the header
    /// records the trace. Without it, the thread's current context (the
    /// CLI's `TRACEPARENT`) is the parent.
    pub traceparent: Option<(String, Option<String>)>,
    /// premath's trajectory rows (`tusk scheme-eval`): each call's step id,
    /// refs and start time come from here, and the run writes no step row of
    /// its own.
    pub steps: Option<StepNames>,
    /// Stands between the program and the host side: given the run's host
    /// side, returns the bridge the program's calls go to (`tusk repl
    /// --run` answers a debugged run's earlier calls from its record and
    /// passes the later ones on).
    pub wrap: Option<WrapBridge>,
    /// Members added to the run's header (`tusk repl --run`: `debugOf`).
    pub header_extra: serde_json::Map<String, Value>,
    /// Calls the program made before this host side sees one (answered by
    /// a [`RunHooks::wrap`] bridge): the first call it sees is this + 1.
    pub calls_before: usize,
    /// An authenticated caller: its actor arguments must name it, or one
    /// its token lets it act as (`host::actor`). `None`: not checked.
    pub act_as: Option<crate::host::actor::ActAs>,
    /// A call a command already made: the run makes no other, and its host
    /// side records this outcome instead of calling the action.
    pub preset: Option<Preset>,
}

/// See [`RunHooks::wrap`].
pub type WrapBridge = Arc<
    dyn Fn(Arc<dyn crate::sandbox::HostBridge>) -> Arc<dyn crate::sandbox::HostBridge>
        + Send
        + Sync,
>;

/// What a call's trajectory row carries under [`RunHooks::steps`].
#[derive(Clone, Debug, Default)]
pub struct CallStep {
    pub step_id: String,
    /// Added to the call's witness refs (its envelope's too).
    pub witness_refs: Vec<String>,
    pub lineage_refs: Vec<String>,
    /// The row's instruction refs, whatever the action's kind.
    pub instruction_refs: Vec<String>,
    /// The call's own issue and authority, where it names any (premath's
    /// programs: a call's values over the run's).
    pub scope: Option<CallScope>,
}

/// What one call of a premath program sets for itself, already resolved by
/// premath's precedence (the call's value, else the run's; claims merged).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallScope {
    pub issue_id: Option<String>,
    pub policy_digest: Option<String>,
    pub instruction_ref: Option<String>,
    pub capability_claims: Vec<String>,
}

/// A call's [`CallStep`] from its seq, action id and args digest.
pub type StepNames = Arc<dyn Fn(usize, &str, &str) -> CallStep + Send + Sync>;

/// How [`Host::run`] runs a request.
pub struct RunOptions<'s> {
    /// The sandbox to run in (a session's); the host's own when `None`.
    pub sandbox: Option<&'s Sandbox>,
    pub mode: EngineMode,
    /// The session the run is recorded under (header, footer, lineage).
    pub session_id: Option<&'s str>,
    pub hooks: RunHooks,
}

impl Default for RunOptions<'_> {
    fn default() -> Self {
        Self {
            sandbox: None,
            mode: EngineMode::Fresh,
            session_id: None,
            hooks: RunHooks::default(),
        }
    }
}

/// What [`RunHooks::on_call`] hears of one host call.
#[derive(Clone, Debug)]
pub struct CallProgress {
    pub seq: usize,
    pub action: String,
    pub result_class: String,
}

/// A progress listener; called on the run's thread, so it must not block.
pub type OnCall = Arc<dyn Fn(CallProgress) + Send + Sync>;

//! A command-line mutation as a one-call run (issues 57 and 61): the
//! call is made inside the run, after its header.

use super::*;

/// The call an operator's command makes (`tusk issue close bd-1`),
/// recorded as a one-call run (issue 57, point 2): the command keeps its own
/// output, and the logs get the run a program making that call would leave.
/// The call is made inside the run, after its header (issue 61): the change
/// is journaled like a program's, and a command whose run cannot be written
/// changes nothing.
#[derive(Clone)]
pub struct Preset {
    pub action: String,
    /// The action's arguments, as a program would pass them.
    pub args: Value,
    /// Makes the call: its outcome, and the clock it was given.
    pub make: PresetCall,
}

/// [`Preset::make`]: taken once, by the run's first call.
pub type PresetCall = Arc<
    Mutex<
        Option<
            Box<
                dyn FnOnce() -> (
                        Result<crate::host::ActionOutcome, crate::host::ActionError>,
                        chrono::DateTime<Utc>,
                    ) + Send,
            >,
        >,
    >,
>;

impl std::fmt::Debug for Preset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preset")
            .field("action", &self.action)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// The program a command's one-call run records: replayed, it makes the
/// same call and gives the same value (the call's result class).
pub fn command_program(action: &str, args: &Value) -> String {
    format!(
        "(result-class ({action} {}))",
        crate::sandbox::convert::scheme_source(args, crate::sandbox::convert::ArrayForm::List)
    )
}

impl Host {
    /// Records an operator's command as a one-call run: `command` is its
    /// command line, `preset` the call it made. The run's principal is the
    /// local actor.
    ///
    /// # Errors
    /// The logs cannot be opened or written, or the actor is unusable.
    pub fn record_command(&self, command: &str, preset: Preset) -> Result<RunResult, RequestError> {
        let actor = crate::host::actor::local_actor().map_err(RequestError::Actor)?;
        // The program a replay runs: the call as the logs record it (its
        // redacted values, which redaction leaves as they are).
        let recorded = recorded_args(
            &self.config.registry,
            &self.config.policy.redaction,
            &preset.action,
            Some(preset.args.clone()),
        )
        .unwrap_or(Value::Null);
        let request = Request {
            program: command_program(&preset.action, &recorded),
            command: Some(command.to_string()),
            principal: Some(actor.name),
            ..Default::default()
        };
        let options = RunOptions {
            hooks: RunHooks {
                preset: Some(preset),
                ..Default::default()
            },
            ..Default::default()
        };
        self.run(&request, options)
    }
}

/// The output of a one-call run that made its call directly (no program ran):
/// the value its recorded program gives, the call's result class.
pub(super) fn direct_call(
    bridge: &dyn crate::sandbox::HostBridge,
    action: &str,
    args: Value,
) -> RunOutput {
    let started = std::time::Instant::now();
    let reply = bridge.call(action, Some(args), None);
    let class = match &reply.text {
        Some(text) => serde_json::from_str::<Value>(text.get())
            .map(|e| e["resultClass"].clone())
            .unwrap_or(Value::Null),
        None => reply.envelope["resultClass"].clone(),
    };
    let mut output = RunOutput::failed(
        EvalError::new(FailureClass::Internal, String::new()),
        started,
    );
    output.error = None;
    output.value = class;
    // The recorded program reads the call's verdict (`result-class`).
    output.examined = vec!["call-1".to_string()];
    output
}

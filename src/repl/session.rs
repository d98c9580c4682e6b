//! One REPL session: one host, one session id, one persistent engine. Every
//! form is one run in the session engine, tagged with the session id, so the
//! effect log holds the whole session in order.

use crate::host::ActionKind;
use crate::runtime::{Host, Request, RequestError};
use crate::sandbox::{EngineMode, Limits};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Effects kept in memory for `:effects`, at most; fewer when their JSON
/// passes the session's memory limit (the oldest go first).
const EFFECTS_KEPT: usize = 1000;

/// A session that cannot start (exit 2 in `tusk repl`).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("join evidence is not a valid harness-join-check input: {0}")]
    JoinEvidence(String),
    #[error("the sandbox could not be prepared: {0}")]
    Sandbox(String),
}

/// A REPL command line (`:name args`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    /// The last N effects of the session.
    Effects(usize),
    Limits,
    Policy,
    /// Run every top-level form of a file, one run each.
    Load(PathBuf),
    Reset,
    /// Toggle printing full result JSON.
    Json,
    Quit,
    /// Debug a recorded run (`:open RUN`).
    Open(String),
    /// To the opened run's next host call.
    Step,
    /// To the opened run's end or next breakpoint.
    Continue,
    /// List (empty), add (`ACTION`) or remove (`-ACTION`) breakpoints.
    Break(String),
    /// The opened run again from its start, with the typed definitions.
    Rerun,
    /// Answer the opened run's calls from here on against a snapshot copy.
    Live(PathBuf),
    /// A recorded call's arguments and envelope (the current call alone).
    Show(Option<usize>),
    /// Replace the opened run's final expression for its next runs.
    Final(String),
    /// Write the opened run's program, as patched, to a file.
    Save(PathBuf),
    /// How the next forms' issue changes land: `None` shows it.
    Atomic(Option<Atomicity>),
}

/// How a form's issue changes land (issue 59, docs/plans.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomicity {
    /// Call by call.
    Off,
    /// All or nothing, in one commit.
    On,
    /// Never: the form's result shows the plan.
    DryRun,
}

/// Why a command line was not understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("unknown command `{0}`; :help lists the commands")]
    Unknown(String),
    #[error("{0}")]
    Usage(&'static str),
}

impl Command {
    /// Parses a line that starts with `:`.
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let line = line.trim();
        let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let no_args = |command: Command, usage: &'static str| {
            if rest.is_empty() {
                Ok(command)
            } else {
                Err(CommandError::Usage(usage))
            }
        };
        match name {
            ":help" | ":h" | ":?" => no_args(Command::Help, "usage: :help"),
            ":effects" => {
                if rest.is_empty() {
                    Ok(Command::Effects(10))
                } else {
                    rest.parse()
                        .map(Command::Effects)
                        .map_err(|_| CommandError::Usage("usage: :effects [N], N a whole number"))
                }
            }
            ":limits" => no_args(Command::Limits, "usage: :limits"),
            ":policy" => no_args(Command::Policy, "usage: :policy"),
            ":load" => {
                if rest.is_empty() {
                    Err(CommandError::Usage("usage: :load FILE"))
                } else {
                    Ok(Command::Load(PathBuf::from(rest)))
                }
            }
            ":reset" => no_args(Command::Reset, "usage: :reset"),
            ":json" => no_args(Command::Json, "usage: :json"),
            ":quit" | ":q" | ":exit" => no_args(Command::Quit, "usage: :quit"),
            ":open" if !rest.is_empty() && !rest.contains(char::is_whitespace) => {
                Ok(Command::Open(rest.to_string()))
            }
            ":open" => Err(CommandError::Usage(
                "usage: :open RUN (a run id; `tusk replay --verify` lists the runs)",
            )),
            ":step" | ":s" => no_args(Command::Step, "usage: :step"),
            ":continue" | ":c" => no_args(Command::Continue, "usage: :continue"),
            ":break" | ":b" if !rest.contains(char::is_whitespace) => {
                Ok(Command::Break(rest.to_string()))
            }
            ":break" | ":b" => Err(CommandError::Usage(
                "usage: :break [ACTION | -ACTION] (one action id)",
            )),
            ":rerun" => no_args(Command::Rerun, "usage: :rerun"),
            ":live" if !rest.is_empty() => Ok(Command::Live(PathBuf::from(rest))),
            ":live" => Err(CommandError::Usage(
                "usage: :live DIR (a store snapshot laid out like .premath/)",
            )),
            ":show" if rest.is_empty() => Ok(Command::Show(None)),
            ":show" => rest.parse().map(|n| Command::Show(Some(n))).map_err(|_| {
                CommandError::Usage("usage: :show [N] (a call's number; alone, the current call)")
            }),
            ":final" if !rest.is_empty() => Ok(Command::Final(rest.to_string())),
            ":final" => Err(CommandError::Usage(
                "usage: :final EXPR (the opened run's new final expression)",
            )),
            ":atomic" => match rest {
                "" => Ok(Command::Atomic(None)),
                "on" => Ok(Command::Atomic(Some(Atomicity::On))),
                "off" => Ok(Command::Atomic(Some(Atomicity::Off))),
                "dry-run" => Ok(Command::Atomic(Some(Atomicity::DryRun))),
                _ => Err(CommandError::Usage("usage: :atomic [on | off | dry-run]")),
            },
            ":save" if !rest.is_empty() => Ok(Command::Save(PathBuf::from(rest))),
            ":save" => Err(CommandError::Usage(
                "usage: :save FILE (the opened run's program as patched; under the load root)",
            )),
            other => Err(CommandError::Unknown(other.to_string())),
        }
    }
}

/// What a command prints: words for people, an object for `--json`.
pub struct Report {
    pub text: String,
    pub json: Value,
}

/// One host call of the session, for `:effects`.
pub struct RecordedEffect {
    /// 1-based number of the run in this session.
    pub run: u64,
    pub run_id: String,
    pub envelope: Value,
    /// Its JSON size, counted against the session's memory limit.
    pub bytes: usize,
}

/// The outcome of one form.
pub struct FormResult {
    /// The `premath.scheme_eval.result.v0` object (with `sessionId`).
    pub json: Value,
    pub accepted: bool,
    /// The run's worker was abandoned: the session's definitions are gone.
    pub session_lost: bool,
    /// 1-based number of the run in this session.
    pub run: u64,
}

/// A REPL session over one [`Host`].
pub struct Session {
    host: Host,
    template: Request,
    id: String,
    reset_next: bool,
    runs: u64,
    effects: VecDeque<RecordedEffect>,
    /// JSON bytes of the kept effects.
    effects_bytes: usize,
    join: Option<crate::host::JoinEvidence>,
    /// The recorded run this session debugs (`tusk repl --run`): each form's
    /// header names it as `debugOf`.
    debug_of: Option<Value>,
}

/// `session-<UTC start>-<12 hex>`: sortable, unique per process.
pub fn new_session_id(now: DateTime<Utc>) -> String {
    crate::runtime::stamped_id("session", now, "repl")
}

impl Session {
    /// Prepares the engine and checks the request's join evidence once, so a
    /// session that could never run fails here rather than on every form.
    /// `template` carries the authority and limits every form runs under.
    pub fn new(host: Host, template: Request, id: String) -> Result<Self, SetupError> {
        let join = template
            .join_evidence
            .as_ref()
            .map(crate::host::JoinEvidence::check)
            .transpose()
            .map_err(SetupError::JoinEvidence)?;
        host.warm_up().map_err(SetupError::Sandbox)?;
        Ok(Self {
            host,
            template,
            id,
            reset_next: false,
            runs: 0,
            effects: VecDeque::new(),
            effects_bytes: 0,
            join,
            debug_of: None,
        })
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn host(&self) -> &Host {
        &self.host
    }

    /// Names the recorded run (and where it stands) in the header of every
    /// later form: `debugOf` (`tusk repl --run`).
    pub fn set_debug_of(&mut self, debug_of: Option<Value>) {
        self.debug_of = debug_of;
    }

    /// `:atomic`: how the next forms' issue changes land (`None` shows it).
    pub fn atomic(&mut self, set: Option<Atomicity>) -> Report {
        if let Some(mode) = set {
            self.template.atomic = mode == Atomicity::On;
            self.template.dry_run = mode == Atomicity::DryRun;
        }
        let mode = match (self.template.atomic, self.template.dry_run) {
            (_, true) => "dry-run",
            (true, false) => "on",
            (false, false) => "off",
        };
        let text = match mode {
            "on" => "atomic on: each form's issue changes land in one commit, or none of them\n",
            "dry-run" => "atomic dry-run: no form changes the store; each shows its plan\n",
            _ => "atomic off: each form's changes land call by call\n",
        };
        Report {
            text: text.to_string(),
            json: json!({"command": "atomic", "atomic": mode}),
        }
    }

    /// Runs one form in the session engine.
    pub fn run(&mut self, program: &str) -> Result<FormResult, RequestError> {
        let mut request = self.template.clone();
        request.program = program.to_string();
        let mode = if self.reset_next {
            EngineMode::ResetSession
        } else {
            EngineMode::Session
        };
        let mut hooks = crate::runtime::RunHooks::default();
        if let Some(debug_of) = &self.debug_of {
            hooks
                .header_extra
                .insert("debugOf".into(), debug_of.clone());
        }
        let result = self.host.run(
            &request,
            crate::runtime::RunOptions {
                mode,
                session_id: Some(&self.id),
                hooks,
                ..Default::default()
            },
        )?;
        self.runs += 1;
        // A lost worker takes the session engine with it; the next run starts
        // from a fresh one and says so in its header, as after `:reset`.
        self.reset_next = result.worker_abandoned;
        let run_id = result.json["runId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let budget = self
            .template
            .limits
            .unwrap_or_default()
            .apply(self.host.config().limits)
            .max_memory_bytes();
        for envelope in result.json["effects"].as_array().into_iter().flatten() {
            let bytes = serde_json::to_vec(envelope).map_or(0, |v| v.len());
            self.effects_bytes += bytes;
            self.effects.push_back(RecordedEffect {
                run: self.runs,
                run_id: run_id.clone(),
                envelope: envelope.clone(),
                bytes,
            });
            while self.effects.len() > EFFECTS_KEPT || self.effects_bytes > budget {
                match self.effects.pop_front() {
                    Some(old) => self.effects_bytes -= old.bytes,
                    None => break,
                }
            }
        }
        Ok(FormResult {
            json: result.json,
            accepted: result.accepted,
            session_lost: result.worker_abandoned,
            run: self.runs,
        })
    }

    /// The engine was rebuilt from outside (the debugger staged a recorded
    /// run in it): the next form runs in it as it is, not in a fresh one.
    pub fn engine_rebuilt(&mut self) {
        self.reset_next = false;
    }

    /// Drops every definition: the next form runs in a fresh engine.
    pub fn reset(&mut self) -> Report {
        self.reset_next = true;
        Report {
            text: "session reset: definitions dropped; the next form starts from a fresh engine\n"
                .into(),
            json: json!({"command": "reset", "sessionId": self.id}),
        }
    }

    /// The limits every form runs under.
    pub fn limits(&self) -> Limits {
        self.template
            .limits
            .unwrap_or_default()
            .apply(self.host.config().limits)
    }

    /// `:limits`.
    pub fn limits_report(&self) -> Report {
        let l = self.limits();
        let text = format!(
            "timeout        {} ms\nhost calls     {}\nmemory         {} MiB\noutput         {} bytes\nprogram size   {} bytes\nnesting depth  {}\n",
            l.timeout_ms,
            l.max_calls,
            l.max_memory_mb,
            l.max_output_bytes,
            l.max_program_bytes,
            l.max_nesting_depth
        );
        Report {
            text,
            json: json!({"command": "limits", "limits": l}),
        }
    }

    /// `:effects N`: the session's last N host calls, oldest first.
    pub fn effects_report(&self, n: usize) -> Report {
        let recent: Vec<&RecordedEffect> = self
            .effects
            .iter()
            .skip(self.effects.len().saturating_sub(n))
            .collect();
        let text = if self.effects.is_empty() {
            "no host calls in this session yet\n".to_string()
        } else {
            recent
                .iter()
                .map(|e| {
                    format!(
                        "run {:<3} {}\n",
                        e.run,
                        super::format::effect_line(&e.envelope)
                    )
                })
                .collect()
        };
        let json = json!({
            "command": "effects",
            "effects": recent.iter().map(|e| json!({"run": e.run, "runId": e.run_id, "envelope": e.envelope})).collect::<Vec<_>>(),
        });
        Report { text, json }
    }

    /// `:policy`: the active policy, the authority evidence this session
    /// carries, and what that means for mutations.
    pub fn policy_report(&self) -> Report {
        let config = self.host.config();
        let policy = &config.policy;
        let given = self
            .template
            .policy_digest
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let instruction = self
            .template
            .instruction_ref
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let mutations: Vec<String> = config
            .registry
            .ids()
            .into_iter()
            .filter(|id| {
                config
                    .registry
                    .get(id)
                    .is_some_and(|a| a.kind() == ActionKind::Mutation)
            })
            .collect();
        let verdict = if config.registry.is_read_only() || mutations.is_empty() {
            "no mutation can run: read-only profile, mutation actions are not registered"
                .to_string()
        } else if given.is_none() || instruction.is_none() {
            "mutations will be rejected (mutation.use_evidence_missing): start with --policy-digest and --instruction-ref".to_string()
        } else if given != Some(policy.digest.as_str()) {
            "mutations will be rejected (mutation.policy_digest_mismatch): --policy-digest is not the active policy's".to_string()
        } else if policy.require_join_closed && !self.join.as_ref().is_some_and(|j| j.accepted) {
            "mutations will be rejected (mutation.use_evidence_missing): the policy requires an accepted --join-evidence".to_string()
        } else {
            "mutations the policy allows will be admitted".to_string()
        };
        let source = policy
            .source
            .as_ref()
            .map_or("built-in default".to_string(), |p| p.display().to_string());
        let join_text = match &self.join {
            None => "none".to_string(),
            Some(j) if j.accepted => format!("accepted (join://{})", j.join_set_digest),
            Some(j) => format!("rejected: {}", j.failure_classes.join(", ")),
        };
        let digest_text = match given {
            None => "none".to_string(),
            Some(d) if d == policy.digest => "given, matches the active policy".to_string(),
            Some(d) => format!("given ({d}), does NOT match the active policy"),
        };
        let allowed: Vec<&str> = policy.allowed_actions.iter().map(String::as_str).collect();
        let text = format!(
            "policy          {} ({source})\nallows          {}\njoin closure    {}\npolicy digest   {digest_text}\ninstruction     {}\njoin evidence   {join_text}\nmutations       {}\nverdict         {verdict}\n",
            policy.digest,
            if allowed.is_empty() { "nothing".to_string() } else { allowed.join(", ") },
            if policy.require_join_closed { "required" } else { "not required" },
            instruction.unwrap_or("none"),
            if mutations.is_empty() {
                "none registered (read-only)".to_string()
            } else {
                format!("{} registered", mutations.len())
            },
        );
        let json = json!({
            "command": "policy",
            "policyDigest": policy.digest,
            "source": policy.source.as_ref().map(|p| p.display().to_string()),
            "allowedActions": allowed,
            "requireJoinClosed": policy.require_join_closed,
            "evidence": {
                "policyDigest": given,
                "policyDigestMatches": given.map(|d| d == policy.digest),
                "instructionRef": instruction,
                "joinEvidence": self.join,
            },
            "readOnly": config.registry.is_read_only(),
            "mutationsRegistered": mutations,
            "verdict": verdict,
        });
        Report { text, json }
    }
}

/// `:help`.
pub fn help_report() -> Report {
    let commands = [
        (":help", "this list"),
        (
            ":effects [N]",
            "the session's last N host calls (default 10)",
        ),
        (":limits", "the limits every form runs under"),
        (
            ":policy",
            "the mutation policy and the authority evidence this session carries",
        ),
        (
            ":load FILE",
            "run each top-level form of FILE, one run each",
        ),
        (
            ":reset",
            "drop every definition (the next form starts from a fresh engine)",
        ),
        (":json", "toggle printing each result as full JSON"),
        (
            ":atomic [on|off|dry-run]",
            "each next form's issue changes: all in one commit or none (on), call by call (off), or never, showing the plan (dry-run); alone, which is set",
        ),
        (":quit", "leave (Ctrl-D on an empty line too)"),
        (
            ":open RUN",
            "debug a recorded run: its calls are answered from the record",
        ),
        (
            ":step",
            "run the opened run to its next host call and show it",
        ),
        (
            ":continue",
            "run the opened run to its end or its next breakpoint",
        ),
        (
            ":break [-]ACT",
            "stop before every call of ACT (-ACT removes; alone: list)",
        ),
        (
            ":rerun",
            "the opened run again from its start, with your definitions",
        ),
        (
            ":live DIR",
            "answer its calls from here on against a copy of snapshot DIR",
        ),
        (
            ":show [N]",
            "call N's arguments and recorded envelope (alone: the current call)",
        ),
        (
            ":final EXPR",
            "replace the opened run's final expression for its next runs",
        ),
        (
            ":save FILE",
            "write the opened run's program, with your changes, to FILE",
        ),
    ];
    let mut text = String::from(
        "Each top-level form is one run, under the session's limits and authority;\n\
         definitions persist across forms. Host functions are procedures named by\n\
         action id, e.g. (issue.list); (host-actions) lists them. Tab completes names,\n\
         Ctrl-C stops a running form.\n\n",
    );
    for (name, what) in commands {
        text.push_str(&format!("  {name:<14} {what}\n"));
    }
    let json = json!({
        "command": "help",
        "commands": commands.iter().map(|(n, w)| json!({"command": n, "description": w})).collect::<Vec<_>>(),
    });
    Report { text, json }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        assert_eq!(Command::parse(":help"), Ok(Command::Help));
        assert_eq!(Command::parse(" :effects "), Ok(Command::Effects(10)));
        assert_eq!(Command::parse(":effects 3"), Ok(Command::Effects(3)));
        assert!(matches!(
            Command::parse(":effects x"),
            Err(CommandError::Usage(_))
        ));
        assert_eq!(
            Command::parse(":load  examples/a b.scm "),
            Ok(Command::Load(PathBuf::from("examples/a b.scm")))
        );
        assert!(matches!(
            Command::parse(":load"),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            Command::parse(":quit now"),
            Err(CommandError::Usage(_))
        ));
        assert_eq!(
            Command::parse(":frob"),
            Err(CommandError::Unknown(":frob".into()))
        );
        assert_eq!(
            Command::parse(":open run-1"),
            Ok(Command::Open("run-1".into()))
        );
        assert!(matches!(
            Command::parse(":open"),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            Command::parse(":open a b"),
            Err(CommandError::Usage(_))
        ));
        assert_eq!(Command::parse(":step"), Ok(Command::Step));
        assert_eq!(Command::parse(":c"), Ok(Command::Continue));
        assert_eq!(Command::parse(":break"), Ok(Command::Break(String::new())));
        assert_eq!(
            Command::parse(":break -issue.show"),
            Ok(Command::Break("-issue.show".into()))
        );
        assert_eq!(Command::parse(":rerun"), Ok(Command::Rerun));
        assert_eq!(
            Command::parse(":live snap"),
            Ok(Command::Live(PathBuf::from("snap")))
        );
        assert!(matches!(
            Command::parse(":live"),
            Err(CommandError::Usage(_))
        ));
    }

    #[test]
    fn forms_share_one_engine_until_reset() {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::runtime::HostConfig::under(dir.path()).unwrap();
        let template = Request {
            limits: Some(crate::sandbox::LimitsOverride {
                max_calls: Some(3),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut session = Session::new(Host::new(config), template, "session-test".into()).unwrap();
        assert_eq!(session.limits().max_calls, 3);
        assert!(session.run("(define n 41)").unwrap().accepted);
        let r = session.run("(issue.ready) (+ n 1)").unwrap();
        assert_eq!((r.json["value"].clone(), r.run), (json!(42), 2));
        assert_eq!(r.json["sessionId"], "session-test");
        let effects = session.effects_report(10);
        assert_eq!(effects.json["effects"][0]["run"], 2);
        assert!(effects
            .text
            .starts_with("run 2   call-1 issue.ready → accepted"));
        session.reset();
        let r = session.run("n").unwrap();
        assert!(!r.accepted);
        assert_eq!(r.json["error"]["class"], "scheme_eval.invalid_program");
        let policy = session.policy_report();
        assert_eq!(policy.json["evidence"]["policyDigest"], Value::Null);
        assert!(policy.text.contains("mutation.use_evidence_missing"));
    }

    #[test]
    fn session_ids_are_sortable_and_distinct() {
        let now = Utc::now();
        let id = new_session_id(now);
        assert!(
            id.starts_with(&format!("session-{}", now.format("%Y%m%dT%H%M%S"))),
            "{id}"
        );
        assert_eq!(id.rsplit('-').next().map(str::len), Some(12));
        assert_ne!(id, new_session_id(now + chrono::Duration::nanoseconds(1)));
    }
}

//! Debugging a recorded run in the REPL (`tusk repl --run RUN`, `:open RUN`):
//! the commands and what they print. The engine that runs the program again
//! to a call, with the record's answers, is [`crate::replay::debug`] (replay
//! restages debugging sessions with it too).

use super::Report;
use crate::replay::debug::{prefix_text, Goal, Outcome};
pub use crate::replay::debug::{DebugError, Debugger, OpenError, Position};
use crate::replay::log::RecordedCall;
use crate::replay::{self, live::LiveReplayer};
use crate::sandbox::Sandbox;
use serde_json::{json, Value};
use std::path::Path;

impl Debugger {
    /// The banner of an opened run.
    pub fn opened(&self, sandbox: &Sandbox) -> Report {
        let staged = self.stage(sandbox);
        let calls = self.target.calls.len();
        let mut text = format!(
            "debugging run {} ({calls} host call(s) recorded{})\n",
            self.target.run_id,
            match &self.target.footer {
                Some(f) => format!(", {}", f["result"].as_str().unwrap_or("no result")),
                None => ", no run_end row".into(),
            }
        );
        if let Some(sid) = &self.target.session_id {
            text.push_str(&format!(
                "form {} of session {}: its {} earlier form(s) were replayed first\n",
                self.prefix.len() + 1,
                crate::runtime::public_session_ref(sid),
                self.prefix.len()
            ));
        }
        if let Some((run, d)) = staged {
            text.push_str(&prefix_text(&run, &d));
        }
        text.push_str(
            "the program has not started: :step runs to its next host call, :continue to its end \
             or a :break; forms typed now run in its environment\n",
        );
        Report {
            text: terminal_lines(&text),
            json: json!({"command": "open", "debugOf": self.header(false), "calls": calls}),
        }
    }

    /// `:step`: to the next host call.
    pub fn step(&mut self, sandbox: &Sandbox) -> Result<Report, DebugError> {
        let next = match self.position {
            Position::Start => 1,
            Position::Before(k) => k + 1,
            Position::Ended => return Err(DebugError::Ended),
        };
        self.go(sandbox, Goal::Call(next))
    }

    /// `:show [N]`: call N's arguments and the envelope the record holds
    /// for it (N: the call the program stands before, when not given).
    pub fn show(&self, n: Option<usize>) -> Result<Report, DebugError> {
        let total = self.target.calls.len();
        let seq = match (n, self.position) {
            (Some(n), _) => n,
            (None, Position::Before(k)) => k,
            (None, _) => return Err(DebugError::Show(total)),
        };
        let call = seq
            .checked_sub(1)
            .and_then(|i| self.target.calls.get(i))
            .ok_or(DebugError::Show(total))?;
        let live = self.live.as_ref().is_some_and(|(_, from)| seq >= *from);
        let text = format!(
            "call {seq} of {total}: {}\n  args {}\n  recorded envelope{}:\n{}\n",
            call.action,
            compact(call.args.as_ref()),
            if live {
                " (this call runs live; this is what the record says)"
            } else {
                " (what the program is given)"
            },
            indent(&crate::canonical::to_pretty_sorted(call.envelope.value()))
        );
        Ok(Report {
            text: terminal_lines(&text),
            json: json!({"command": "show", "seq": seq, "action": call.action,
                "args": call.args, "recorded": call.envelope.value()}),
        })
    }

    /// `:final EXPR`: the program's final expression, for its next runs.
    pub fn replace_final(&mut self, form: &str) -> Result<Report, DebugError> {
        self.set_final(form).map_err(DebugError::Final)?;
        let text = format!(
            "the program's final expression is now {}; :rerun runs it, :save FILE keeps the program\n",
            crate::terminal::clip(form.trim(), 160)
        );
        Ok(Report {
            text: terminal_lines(&text),
            json: json!({"command": "final", "form": form.trim()}),
        })
    }

    /// The program as its next run runs it (the typed definitions and the
    /// final expression in place): what `:save` writes.
    pub fn patched_program(&self) -> String {
        self.program()
    }

    /// `:continue`: to the end, or the next call that is a breakpoint.
    pub fn resume(&mut self, sandbox: &Sandbox) -> Result<Report, DebugError> {
        let after = match self.position {
            Position::Start => 0,
            Position::Before(k) => k,
            Position::Ended => return Err(DebugError::Ended),
        };
        self.go(sandbox, Goal::Break(after))
    }

    /// `:rerun`: the program again from its start (with the typed
    /// definitions), to its end or its first breakpoint.
    pub fn rerun(&mut self, sandbox: &Sandbox) -> Result<Report, DebugError> {
        self.go(sandbox, Goal::Break(0))
    }

    /// `:break`, `:break ACTION`, `:break -ACTION`.
    pub fn breakpoint(&mut self, arg: &str) -> Report {
        if let Some(action) = arg.strip_prefix('-') {
            self.breaks.remove(action.trim());
        } else if !arg.is_empty() {
            self.breaks.insert(arg.to_string());
        }
        let text = if self.breaks.is_empty() {
            "no breakpoints; :break ACTION stops before every call of ACTION\n".to_string()
        } else {
            let list: Vec<&str> = self.breaks.iter().map(String::as_str).collect();
            format!("breakpoints: {}\n", list.join(", "))
        };
        Report {
            text: terminal_lines(&text),
            json: json!({"command": "break", "breakpoints": self.breaks}),
        }
    }

    /// `:live DIR`: from the current call on, the real actions against a
    /// copy of the snapshot at DIR.
    pub fn go_live(&mut self, dir: &Path) -> Result<Report, DebugError> {
        // Checked (and copied once) now, so a bad directory is said here.
        LiveReplayer::new(dir).map_err(|e| DebugError::Live(e.to_string()))?;
        // Recorded whole, so that a replay elsewhere finds the same directory.
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let dir = dir.as_path();
        let from = match self.position {
            Position::Start => 1,
            Position::Before(k) => k,
            Position::Ended => return Err(DebugError::Ended),
        };
        self.live = Some((dir.to_path_buf(), from));
        let text = format!(
            "live from call {from}: calls from here on run the real actions against a fresh copy \
             of {} (made again for every run); the real store is never touched\n",
            dir.display()
        );
        Ok(Report {
            text: terminal_lines(&text),
            json: json!({"command": "live", "snapshot": dir.display().to_string(), "fromCall": from}),
        })
    }

    /// Runs the program again to `goal` and says where it stopped.
    fn go(&mut self, sandbox: &Sandbox, goal: Goal) -> Result<Report, DebugError> {
        let outcome = self.execute(sandbox, goal)?;
        // Parted from the record: stopped before that call all the same
        // (`:live` may take it from there).
        self.position = match &outcome {
            Outcome::Stopped { seq, .. } | Outcome::Parted { seq, .. } => Position::Before(*seq),
            _ => Position::Ended,
        };
        Ok(self.describe(outcome))
    }

    /// What a run of the program came to, for the person.
    fn describe(&self, outcome: Outcome) -> Report {
        let total = self.target.calls.len();
        let recorded = |seq: usize| self.target.calls.get(seq - 1);
        match outcome {
            Outcome::Stopped { seq, action, args } => {
                // One line (issue 60): `:show` prints the whole envelope.
                let live = self.live.as_ref().is_some_and(|(_, from)| seq >= *from);
                let verdict = match recorded(seq) {
                    Some(call) => format!(
                        "recorded {}{}",
                        call.envelope.value()["resultClass"].as_str().unwrap_or("?"),
                        if live { ", runs live" } else { "" }
                    ),
                    None => "not in the record".into(),
                };
                let text = format!(
                    "stopped before call {seq} of {total}: {action} {} → {verdict} · :show {seq} for its envelope\n",
                    crate::terminal::clip(&compact(args.as_ref()), 160)
                );
                Report {
                    text: terminal_lines(&text),
                    json: json!({"command": "stop", "seq": seq, "action": action, "args": args,
                        "recorded": recorded(seq).map(|c| c.envelope.value().clone()), "live": live}),
                }
            }
            Outcome::Parted {
                seq,
                action,
                args,
                field,
            } => parted(recorded(seq), seq, &action, args, field),
            Outcome::Ended { result, calls } => self.ended(result, calls),
            Outcome::Prefix(run, d) => Report {
                text: terminal_lines(&prefix_text(&run, &d)),
                json: json!({"command": "prefix", "runId": run, "field": d.field,
                    "seq": d.seq, "expected": d.expected, "got": d.got}),
            },
        }
    }

    /// The program ran to its end: its result, and whether it made the
    /// recorded number of calls.
    fn ended(&self, result: Value, calls: usize) -> Report {
        let total = self.target.calls.len();
        let mut text = format!("the run ended after {calls} host call(s)\n");
        text.push_str(&super::format::result_text(&result, &self.program()));
        if calls < total && self.live.is_none() {
            text.push_str(&format!(
                "it parts from the record: the recording made {total} call(s) (callCount: {total} vs {calls})\n"
            ));
        }
        let mut out = json!({"command": "end", "calls": calls, "recordedCalls": total,
            "value": result["value"], "output": result["output"]});
        if let Some(e) = result.get("error") {
            out["error"] = e.clone();
        }
        Report {
            text: terminal_lines(&text),
            json: out,
        }
    }
}

/// Where the program parted from its record, as `tusk replay diff` says it.
fn parted(
    recorded: Option<&RecordedCall>,
    seq: usize,
    action: &str,
    args: Option<Value>,
    field: &str,
) -> Report {
    let null = Value::Null;
    let mut text = format!("the run parts from the record at call {seq} ({action})\n");
    let (expected, got) = match (field, recorded) {
        ("action", Some(c)) => (json!(c.action), json!(action)),
        ("argsDigest", Some(c)) => (
            json!(c.args_digest),
            json!(crate::canonical::args_digest(args.as_ref())),
        ),
        (_, _) => (json!("no call"), json!(action)),
    };
    text.push_str(&format!(
        "first difference at call {seq}: {field}: {expected} vs {got}\n"
    ));
    if let Some(c) = recorded {
        let at = replay::diff::first_path(
            c.args.as_ref().unwrap_or(&null),
            args.as_ref().unwrap_or(&null),
            String::new(),
        );
        if let (Some((path, x, y)), "argsDigest") = (&at, field) {
            text.push_str(&format!("  at {path}: {x} vs {y}\n"));
        }
        text.push_str(&format!(
            "  recorded {} {}\n",
            c.action,
            compact(c.args.as_ref())
        ));
    }
    text.push_str(&format!("  now      {action} {}\n", compact(args.as_ref())));
    text.push_str(
        "the program was stopped before this call; :live DIR runs it from here against a \
         snapshot copy, :rerun runs it again from the start\n",
    );
    Report {
        text: terminal_lines(&text),
        json: json!({"command": "parted", "seq": seq, "action": action, "field": field,
            "expected": expected, "got": got, "args": args,
            "recordedArgs": recorded.map(|c| c.args.clone())}),
    }
}

fn compact(args: Option<&Value>) -> String {
    args.map_or("(none)".to_string(), |a| {
        crate::canonical::to_canonical_string(a)
    })
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Recorded text and program text reach a terminal: control characters escaped.
fn terminal_lines(text: &str) -> String {
    text.lines()
        .map(|l| format!("{}\n", crate::terminal::field(l)))
        .collect()
}

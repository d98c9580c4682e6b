//! `tusk repl`: the host of `tusk eval`, interactive (host-api §8).
//!
//! On a terminal: rustyline with history, completion and multi-line input;
//! Ctrl-C stops the running form, Ctrl-D on an empty line leaves (exit 0).
//! Without a terminal on stdin: forms are read from stdin and each result is
//! printed as it comes; exit 0 when every form was accepted, 1 when any was
//! rejected (or a command failed), 130 when stopped by SIGINT. Either way, 2
//! when the session cannot start (bad flags, policy or join evidence).

use super::eval::HostArgs;
use super::{CliError, Exit};
use crate::repl::complete::Vocabulary;
use crate::repl::debug::{DebugError, Debugger, OpenError};
use crate::repl::{format, help_report, history_path, new_session_id, Command, Report, Session};
use crate::runtime::{Host, Request};
use crate::sandbox::forms::{self, Form};
use crate::sandbox::InterruptHandle;
use clap::Args;
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Args, Debug)]
pub struct ReplArgs {
    /// Print each result as full JSON (`:json` toggles); without a terminal,
    /// one JSON object per line.
    #[arg(long)]
    pub json: bool,
    /// `:load` reads only files under DIR (default: the working directory).
    /// Scripted sessions (stdin not a terminal) may `:load` only when this
    /// flag is given.
    #[arg(long, value_name = "DIR")]
    pub load_root: Option<PathBuf>,
    /// Debug the recorded run RUN of the effect log (--effects, default
    /// .premath/host_effects.jsonl): its host calls are answered from the
    /// record; :step, :continue, :break, :rerun, :live (docs/repl.md).
    #[arg(long, value_name = "RUN")]
    pub run: Option<String>,
    #[command(flatten)]
    pub host: HostArgs,
}

/// Largest file `:load` reads.
const MAX_LOAD_BYTES: u64 = 16 * 1024 * 1024;

fn setup_failed(message: impl std::fmt::Display) -> CliError {
    CliError::unusable("tusk repl", message)
}

/// Runs `tusk repl` (exit codes: see the module doc).
pub fn run(args: ReplArgs) -> Result<Exit, CliError> {
    let mut template = Request::default();
    args.host.apply_to(&mut template).map_err(setup_failed)?;
    let config = args
        .host
        .config()
        .map_err(|e| setup_failed(&e).with_class(e.class))?;
    super::authority::complete(
        &mut template,
        &crate::issues::model::config_path(&config.paths.issues),
    )
    .map_err(setup_failed)?;
    let effects_path = config.paths.effects.clone();
    let effects_log = effects_path.clone();
    let repl_interactive = std::io::stdin().is_terminal();
    let host = Host::new(config);
    let signals = Arc::new(Signals {
        handle: host.interrupt_handle(),
        interrupted: AtomicBool::new(false),
        busy: Mutex::new(()),
        interactive: repl_interactive,
    });
    // Before the engine warms up, so that an early SIGINT already ends a
    // scripted session cleanly.
    let handler_signals = signals.clone();
    if let Err(e) = ctrlc::set_handler(move || handler_signals.on_sigint()) {
        eprintln!("tusk repl: Ctrl-C will not stop running forms: {e}");
    }
    let session =
        Session::new(host, template, new_session_id(chrono::Utc::now())).map_err(setup_failed)?;
    // A script piped in (often model-written) must not read the operator's
    // files unless the operator said which ones.
    let load_root = match (&args.load_root, repl_interactive) {
        (Some(root), _) => match root.canonicalize() {
            Ok(r) => Some(r),
            Err(e) => return Err(setup_failed(format!("--load-root {}: {e}", root.display()))),
        },
        (None, true) => std::env::current_dir().and_then(|d| d.canonicalize()).ok(),
        (None, false) => None,
    };
    let mut repl = Repl {
        session,
        json: args.json,
        signals,
        failed: false,
        vocabulary: None,
        load_root,
        effects: effects_log,
        debugger: None,
        restage_pending: false,
    };
    if let Some(run) = &args.run {
        // A run that cannot be opened ends the session before it starts.
        let opened = repl.open(run).map_err(setup_failed)?;
        if !repl.report(opened) {
            return Ok(Exit::Accepted);
        }
    }
    if repl.signals.interactive {
        repl.interactive(effects_path.path())
    } else {
        Ok(repl.script())
    }
}

/// What SIGINT reaches: the running form, and whether one ran.
struct Signals {
    handle: InterruptHandle,
    /// Set by SIGINT; the forms still queued behind the running one are skipped.
    interrupted: AtomicBool,
    /// Held while a form runs: an idle scripted session may exit at once.
    busy: Mutex<()>,
    interactive: bool,
}

impl Signals {
    fn on_sigint(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
        if self.handle.interrupt() || self.interactive {
            return;
        }
        // A scripted session waiting on stdin has nothing to finish: leave now,
        // unless a form is between its log header and its run (then the main
        // loop stops after it).
        if let Ok(_idle) = self.busy.try_lock() {
            std::process::exit(Exit::Interrupted.code());
        }
    }
}

enum Flow {
    Continue,
    Quit,
}

struct Repl {
    session: Session,
    json: bool,
    signals: Arc<Signals>,
    /// A form was rejected or a command failed (exit 1 when scripted).
    failed: bool,
    /// Names for completion, learned as definitions succeed (terminal only).
    vocabulary: Option<Vocabulary>,
    /// The directory `:load` may read under (canonical); `None`: `:load` is off.
    load_root: Option<PathBuf>,
    /// The effect log runs are recorded to, and opened from (`:open`).
    effects: crate::logs::LogStore,
    /// The recorded run being debugged (`--run`, `:open`).
    debugger: Option<Debugger>,
    /// The debugger rebuilt the engine since the last form: the next form's
    /// header says so (`debugOf.restaged`).
    restage_pending: bool,
}

impl Repl {
    /// Writes to stdout; false when nobody reads it any more.
    fn emit(&self, text: &str) -> bool {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .is_ok()
    }

    fn json_text(&self, value: &serde_json::Value) -> String {
        if self.signals.interactive {
            format!("{}\n", crate::canonical::to_pretty_sorted(value))
        } else {
            format!("{}\n", serde_json::to_string(value).unwrap_or_default())
        }
    }

    fn report(&self, report: Report) -> bool {
        let text = if self.json {
            self.json_text(&report.json)
        } else {
            report.text
        };
        self.emit(&text)
    }

    fn complain(&mut self, message: impl std::fmt::Display) {
        eprintln!("tusk repl: {message}");
        self.failed = true;
    }

    /// Runs forms one after another; a Ctrl-C skips the rest.
    /// `origin` is the file and text of a `:load`, for a header per form.
    fn run_forms(&mut self, forms: &[Form], origin: Option<(&Path, &str)>) -> Flow {
        self.signals.interrupted.store(false, Ordering::SeqCst);
        let mut skipped = 0;
        for form in forms {
            if self.signals.interrupted.load(Ordering::SeqCst) {
                skipped += 1;
                continue;
            }
            if let (Some((path, text)), false) = (origin, self.json) {
                let (line, _) = crate::sandbox::lexical::line_column(text, form.start);
                if !self.emit(&format!("; {}:{line}\n", path.display())) {
                    return Flow::Quit;
                }
            }
            if let Flow::Quit = self.run_form(&form.text) {
                return Flow::Quit;
            }
        }
        if self.signals.interrupted.load(Ordering::SeqCst) {
            if skipped > 0 {
                eprintln!("tusk repl: interrupted; {skipped} more form(s) not run");
            }
            if !self.signals.interactive {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    fn run_form(&mut self, program: &str) -> Flow {
        let outcome = {
            let _busy = self.signals.busy.lock().unwrap_or_else(|e| e.into_inner());
            self.session.run(program)
        };
        let result = match outcome {
            Ok(r) => r,
            Err(e) => {
                self.complain(format!("the form could not run: {e}"));
                return Flow::Continue;
            }
        };
        if !result.accepted {
            self.failed = true;
        } else if let Some(v) = self.vocabulary.as_mut() {
            v.learn(program);
        }
        if let Some(d) = self.debugger.as_mut() {
            if result.accepted {
                d.typed(program);
            }
            self.restage_pending = false;
            self.session.set_debug_of(Some(d.header(false)));
        }
        let mut text = if self.json {
            self.json_text(&result.json)
        } else {
            format::result_text(&result.json, program)
        };
        if self.signals.interactive && self.signals.interrupted.load(Ordering::SeqCst) {
            // The terminal echoed `^C` without a line break.
            text.insert(0, '\n');
        }
        if !self.emit(&text) {
            return Flow::Quit;
        }
        if result.session_lost {
            // Said on stderr so that JSON output stays one object per line.
            eprintln!(
                "tusk repl: the form's worker process was lost ({}); the session was reset \
                 to a pristine engine (earlier definitions are gone)",
                result.json["failureClasses"]
                    .as_array()
                    .and_then(|c| c.first())
                    .and_then(serde_json::Value::as_str)
                    .map(crate::terminal::field)
                    .unwrap_or_default()
            );
            if self.vocabulary.is_some() {
                self.vocabulary = Some(self.base_vocabulary());
            }
        }
        Flow::Continue
    }

    fn base_vocabulary(&self) -> Vocabulary {
        let ids = self.session.host().config().registry.ids();
        Vocabulary::new(&ids, &crate::sandbox::program_names())
    }

    fn command(&mut self, line: &str) -> Flow {
        let command = match Command::parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.complain(e);
                return Flow::Continue;
            }
        };
        let shown = match command {
            Command::Quit => return Flow::Quit,
            Command::Help => self.report(help_report()),
            Command::Effects(n) => self.report(self.session.effects_report(n)),
            Command::Limits => self.report(self.session.limits_report()),
            Command::Policy => self.report(self.session.policy_report()),
            Command::Reset => {
                let report = self.session.reset();
                if self.vocabulary.is_some() {
                    self.vocabulary = Some(self.base_vocabulary());
                }
                self.report(report)
            }
            Command::Json => {
                self.json = !self.json;
                let state = if self.json { "on" } else { "off" };
                self.report(Report {
                    text: format!("json output {state}\n"),
                    json: serde_json::json!({"command": "json", "json": self.json}),
                })
            }
            Command::Atomic(set) => {
                let report = self.session.atomic(set);
                self.report(report)
            }
            Command::Load(path) => return self.load(&path),
            Command::Open(run) => match self.open(&run) {
                Ok(report) => self.report(report),
                Err(e) => {
                    self.complain(format!(":open: {e}"));
                    true
                }
            },
            Command::Step
            | Command::Continue
            | Command::Break(_)
            | Command::Rerun
            | Command::Live(_)
            | Command::Show(_)
            | Command::Final(_)
            | Command::Save(_) => match self.debug(command) {
                Ok(report) => self.report(report),
                Err(e) => {
                    self.complain(e);
                    true
                }
            },
        };
        if shown {
            Flow::Continue
        } else {
            Flow::Quit
        }
    }

    /// `:open RUN` (and `--run`): reads the log again (it grows as the
    /// session runs) and opens the run; its program has not started.
    fn open(&mut self, run: &str) -> Result<Report, OpenError> {
        let path = self.effects.path().display().to_string();
        let only = crate::replay::log::Only::Run(run);
        let log =
            crate::replay::log::read_only(&self.effects, only).map_err(|e| OpenError::Log {
                log: path.clone(),
                why: e.to_string(),
            })?;
        let debugger = Debugger::open(&path, log.runs, run, self.session.limits())?;
        let _busy = self.signals.busy.lock().unwrap_or_else(|e| e.into_inner());
        let report = debugger.opened(self.session.host().sandbox());
        self.session.set_debug_of(Some(debugger.header(true)));
        self.session.engine_rebuilt();
        self.restage_pending = true;
        self.debugger = Some(debugger);
        if self.vocabulary.is_some() {
            self.vocabulary = Some(self.base_vocabulary());
        }
        Ok(report)
    }

    /// The commands that move the opened run.
    fn debug(&mut self, command: Command) -> Result<Report, DebugError> {
        if self.debugger.is_none() {
            return Err(DebugError::NotOpen);
        }
        let command = match command {
            Command::Live(dir) => Command::Live(self.snapshot_dir(&dir).map_err(DebugError::Live)?),
            Command::Save(file) => Command::Save(self.savable(&file).map_err(DebugError::Save)?),
            other => other,
        };
        let debugger = self.debugger.as_mut().ok_or(DebugError::NotOpen)?;
        let sandbox = self.session.host().sandbox();
        let _busy = self.signals.busy.lock().unwrap_or_else(|e| e.into_inner());
        // These run the program again; `:break` and `:live` do not.
        let restaged = matches!(command, Command::Step | Command::Continue | Command::Rerun);
        let report = match command {
            Command::Step => debugger.step(sandbox),
            Command::Continue => debugger.resume(sandbox),
            Command::Rerun => debugger.rerun(sandbox),
            Command::Break(action) => Ok(debugger.breakpoint(&action)),
            Command::Live(dir) => debugger.go_live(&dir),
            Command::Show(n) => debugger.show(n),
            Command::Final(form) => debugger.replace_final(&form),
            Command::Save(file) => save(&file, &debugger.patched_program()),
            _ => unreachable!("only the debugging commands come here"),
        }?;
        // Until the next form, the header says whether the engine was rebuilt.
        if restaged {
            self.session.engine_rebuilt();
        }
        let restaged = restaged || self.restage_pending;
        self.restage_pending = restaged;
        self.session.set_debug_of(Some(debugger.header(restaged)));
        Ok(report)
    }

    /// `:load FILE`: one run per top-level form, in the session engine, so the
    /// effect log replays the file exactly as it ran.
    fn load(&mut self, path: &Path) -> Flow {
        let text = match self.loadable(path) {
            Ok(t) => t,
            Err(e) => {
                self.complain(format!(":load: {e}"));
                return Flow::Continue;
            }
        };
        let forms = all_forms(&text);
        self.run_forms(&forms, Some((path, &text)))
    }

    /// The snapshot `:live` may read: a directory under the load root, as
    /// for `:load` (a scripted session reads none without `--load-root`).
    fn snapshot_dir(&self, dir: &Path) -> Result<PathBuf, String> {
        self.under_load_root(dir).map_err(|e| match e {
            Unreadable::Off => "reading a snapshot is off in a scripted session; start tusk repl with --load-root DIR to allow snapshots under DIR".to_string(),
            Unreadable::Unresolved(e) => format!("snapshot {}: {e}", dir.display()),
            Unreadable::Outside(root) => format!(
                "snapshot {} is outside the load root {}; start tusk repl with --load-root to allow another directory",
                dir.display(),
                root.display()
            ),
        })
    }

    /// Where `:save` may write: a file (new, or one to replace) in a
    /// directory under the load root, never through a link.
    fn savable(&self, file: &Path) -> Result<PathBuf, String> {
        let name = file
            .file_name()
            .ok_or_else(|| format!("{}: name a file, not a directory", file.display()))?;
        let parent = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = self.under_load_root(parent).map_err(|e| match e {
            Unreadable::Off => "writing files is off in a scripted session; start tusk repl with --load-root DIR to allow files under DIR".to_string(),
            Unreadable::Unresolved(e) => format!("{}: {e}", parent.display()),
            Unreadable::Outside(root) => format!(
                "{} is outside the load root {}; save under it",
                file.display(),
                root.display()
            ),
        })?;
        let path = dir.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.is_file() => Err(format!(
                "{} is not a regular file; name another",
                file.display()
            )),
            _ => Ok(path),
        }
    }

    /// `path` with its links resolved, when it lies under the load root: the
    /// one rule for what `:load` and `:live` may read and `:save` may write.
    fn under_load_root(&self, path: &Path) -> Result<PathBuf, Unreadable> {
        let root = self.load_root.as_ref().ok_or(Unreadable::Off)?;
        let real = path.canonicalize().map_err(Unreadable::Unresolved)?;
        if !real.starts_with(root) {
            return Err(Unreadable::Outside(root.clone()));
        }
        Ok(real)
    }

    /// The text of a file `:load` may read: under the load root (after
    /// resolving links), a regular file of sane size, UTF-8.
    fn loadable(&self, path: &Path) -> Result<String, String> {
        let real = self.under_load_root(path).map_err(|e| match e {
            Unreadable::Off => "loading files is off in a scripted session; start tusk repl with --load-root DIR to allow files under DIR".to_string(),
            Unreadable::Unresolved(e) => format!("cannot read {}: {e}", path.display()),
            Unreadable::Outside(root) => format!(
                "{} is outside the load root {}; start tusk repl with --load-root to allow another directory",
                path.display(),
                root.display()
            ),
        })?;
        let meta =
            std::fs::metadata(&real).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", path.display()));
        }
        if meta.len() > MAX_LOAD_BYTES {
            return Err(format!(
                "{} is {} bytes, over the {MAX_LOAD_BYTES}-byte :load limit",
                path.display(),
                meta.len()
            ));
        }
        crate::cli::eval::read_source(&real)
    }

    fn script(&mut self) -> Exit {
        let stdin = std::io::stdin();
        let mut pending = String::new();
        let mut quit = false;
        for line in stdin.lock().lines() {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    self.complain(format!("cannot read stdin: {e}"));
                    quit = true;
                    break;
                }
            };
            if pending.is_empty() && line.trim_start().starts_with(':') {
                if let Flow::Quit = self.command(line.trim()) {
                    quit = true;
                    break;
                }
                continue;
            }
            pending.push_str(&line);
            pending.push('\n');
            let split = forms::split(&pending);
            pending = match &split.pending {
                Some(p) => pending[p.start..].to_string(),
                None => String::new(),
            };
            if let Flow::Quit = self.run_forms(&split.forms, None) {
                quit = true;
                break;
            }
        }
        // An unbalanced last form still runs, so that the evaluator reports it
        // (as an invalid program) instead of it vanishing.
        if !quit && !pending.trim().is_empty() {
            let form = Form {
                text: pending.trim_end().to_string(),
                start: 0,
            };
            self.run_forms(&[form], None);
        }
        if self.signals.interrupted.load(Ordering::SeqCst) {
            Exit::Interrupted
        } else {
            Exit::accepted_if(!self.failed)
        }
    }

    fn interactive(&mut self, effects_path: &Path) -> Result<Exit, CliError> {
        let config = Config::builder()
            .auto_add_history(false)
            .history_ignore_space(true)
            .completion_type(CompletionType::List)
            .build();
        let mut editor: Editor<ReplHelper, FileHistory> = match Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => return Err(setup_failed(format!("cannot set up the terminal: {e}"))),
        };
        editor.set_helper(Some(ReplHelper {
            vocabulary: self.base_vocabulary(),
        }));
        let history = History::open(&mut editor);
        let sid = self.session.id().to_string();
        let effects = effects_path.display();
        let mut banner = format!(
            "tusk repl · session {sid}\n\
             runs go to {effects}\n\
             replay with: tusk replay --effects {effects} --session {sid}\n\
             :help lists commands · Tab completes · Ctrl-C stops a form · Ctrl-D leaves\n"
        );
        if let Some(warning) = &history.warning {
            banner.push_str(&format!("note: {warning}\n"));
        }
        self.emit(&banner);
        let mut history = history;
        let mut pending = String::new();
        loop {
            let prompt = if pending.is_empty() {
                "tusk> "
            } else {
                "  ... "
            };
            let line = match editor.readline(prompt) {
                Ok(line) => line,
                Err(ReadlineError::Interrupted) => {
                    pending.clear();
                    continue;
                }
                Err(ReadlineError::Eof) => break,
                Err(e) => {
                    return Err(CliError::refused(
                        "tusk repl",
                        format_args!("cannot read the terminal: {e}"),
                    ))
                }
            };
            if pending.is_empty() && line.trim_start().starts_with(':') {
                history.add(&mut editor, line.trim());
                match self.command(line.trim()) {
                    Flow::Quit => break,
                    Flow::Continue => continue,
                }
            }
            // The validator keeps rustyline reading until the form is balanced;
            // this also covers terminals where it cannot (then lines add up here).
            pending.push_str(&line);
            pending.push('\n');
            let split = forms::split(&pending);
            if split.is_incomplete() {
                continue;
            }
            let entry = std::mem::take(&mut pending);
            if split.forms.is_empty() {
                continue;
            }
            history.add(&mut editor, entry.trim_end());
            self.vocabulary = editor
                .helper_mut()
                .map(|h| std::mem::take(&mut h.vocabulary));
            let flow = self.run_forms(&split.forms, None);
            if let (Some(helper), Some(v)) = (editor.helper_mut(), self.vocabulary.take()) {
                helper.vocabulary = v;
            }
            if let Flow::Quit = flow {
                break;
            }
        }
        Ok(Exit::Accepted)
    }
}

/// Every form of a text, the unbalanced rest included as a last form.
/// Why a path is not one `:load` or `:live` may read.
enum Unreadable {
    /// No load root: a scripted session without `--load-root`.
    Off,
    Unresolved(std::io::Error),
    /// Outside this load root.
    Outside(PathBuf),
}

fn all_forms(text: &str) -> Vec<Form> {
    let split = forms::split(text);
    let mut all = split.forms;
    if let Some(p) = split.pending {
        all.push(Form {
            text: text[p.start..].trim_end().to_string(),
            start: p.start,
        });
    }
    all
}

/// The history file: loaded at start, appended after every entry.
struct History {
    path: Option<PathBuf>,
    warning: Option<String>,
}

impl History {
    fn open(editor: &mut Editor<ReplHelper, FileHistory>) -> History {
        let Some(path) = history_path(std::env::var_os("XDG_STATE_HOME"), std::env::var_os("HOME"))
        else {
            return History {
                path: None,
                warning: Some("no XDG_STATE_HOME or HOME: history is not kept".into()),
            };
        };
        if let Some(dir) = path.parent() {
            if let Err(e) = std::fs::create_dir_all(dir) {
                return History {
                    path: None,
                    warning: Some(format!(
                        "history is not kept: cannot create {}: {e}",
                        dir.display()
                    )),
                };
            }
        }
        let warning = match editor.load_history(&path) {
            Ok(()) => None,
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => Some(format!("cannot read history {}: {e}", path.display())),
        };
        History {
            path: Some(path),
            warning,
        }
    }

    fn add(&mut self, editor: &mut Editor<ReplHelper, FileHistory>, entry: &str) {
        if let Err(e) = editor.add_history_entry(entry) {
            eprintln!("tusk repl: history: {e}");
        }
        if let Some(path) = &self.path {
            if let Err(e) = editor.append_history(path) {
                // Said once: a read-only state directory should not drown the session.
                eprintln!(
                    "tusk repl: history is not kept: cannot write {}: {e}",
                    path.display()
                );
                self.path = None;
            }
        }
    }
}

/// rustyline's view of the REPL: completion and the balanced-form check.
struct ReplHelper {
    vocabulary: Vocabulary,
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(self.vocabulary.complete(line, pos))
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        if input.trim_start().starts_with(':') || !forms::split(input).is_incomplete() {
            Ok(ValidationResult::Valid(None))
        } else {
            Ok(ValidationResult::Incomplete)
        }
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Helper for ReplHelper {}

/// `:save FILE`: the patched program, written whole (a temp file renamed
/// into place) or not at all.
fn save(path: &Path, program: &str) -> Result<Report, DebugError> {
    crate::files::write_atomically(path, program.as_bytes())
        .map_err(|e| DebugError::Save(format!("{}: {e}", path.display())))?;
    let forms = crate::sandbox::forms::split(program).forms.len();
    Ok(Report {
        text: format!(
            "saved the program ({forms} form(s), {} bytes) to {}; `tusk eval {}` runs it\n",
            program.len(),
            crate::terminal::field(&path.display().to_string()),
            crate::terminal::field(&path.display().to_string())
        ),
        json: serde_json::json!({"command": "save", "path": path.display().to_string(),
            "bytes": program.len(), "forms": forms}),
    })
}

//! The worker process's side: confine, bind, then run programs sent by the
//! host, answering each with one `Done` message.
//!
//! Everything here runs in a fork of the template, single-threaded, or in a
//! one-run template that became the worker (its other thread only waits,
//! with every signal blocked, under the same system-call filter). Host
//! calls block on the channel until the host replies; output is buffered
//! (capped) and sent with the next message, so a worker killed at the
//! deadline loses only what it printed since its last host call.

use super::confine;
use super::convert;
use super::lexical;
use super::memory;
use super::proto::{self, FromWorker, ToWorker, WireError};
use super::{cap_text, FailureClass, Limits, MAX_MESSAGE_BYTES};
use serde_json::Value;
use std::cell::RefCell;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use steel::rvals::SteelVal;
use steel::steel_vm::engine::Engine;

/// The channel's descriptor in every worker.
pub(crate) const CHANNEL_FD: RawFd = 3;
/// Exit code of a worker whose host went away or spoke out of turn.
const EXIT_PROTOCOL: i32 = 90;

/// Set by the host's stop signal (deadline, interrupt) and by a reply that
/// says stop.
static STOP: AtomicBool = AtomicBool::new(false);

/// Called from the `SIGUSR1` handler: stop at the VM's next instruction.
pub(crate) fn stop_requested() {
    STOP.store(true, Ordering::Relaxed);
    memory::interrupt_vm();
}

thread_local! {
    /// Output displayed since the last message, and the run's total so far.
    static OUTPUT: RefCell<Output> = RefCell::new(Output::default());
    /// The message of the last panic (set by the hook instead of printing).
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The current run's limits.
    static LIMITS: RefCell<Limits> = RefCell::new(Limits::default());
    /// The last host call's reply, freed at the next call or after the run
    /// (see [`HELD_REPLY_BYTES`]).
    static HELD_REPLY: RefCell<Option<SteelVal>> = const { RefCell::new(None) };
    /// The bound action ids, the withheld ones and those a narrowing left
    /// out (for diagnostics).
    static BOUND: RefCell<(Vec<String>, Vec<String>, Vec<String>)> =
        const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
    /// Why a narrowed action is left out, in the caller's terms.
    static REASONS: RefCell<Vec<(String, FailureClass, String)>> = const { RefCell::new(Vec::new()) };
    /// The running program's Steel source id and text: what a host call's
    /// spans are resolved against ([`program_site`]).
    static PROGRAM: RefCell<Option<(steel::parser::parser::SourceId, String)>> =
        const { RefCell::new(None) };
}

/// Records which of the engine's sources is `program`, just compiled: the
/// newest source holding its text (compiling gave it the newest id).
fn note_program_source(engine: &Engine, program: &str) {
    use steel::parser::parser::SourceId;
    let next = SourceId::fresh().0;
    let id = (next.saturating_sub(64)..next)
        .rev()
        .map(SourceId)
        .find(|id| {
            engine
                .get_source(id)
                .is_some_and(|src| src.as_ref() == program)
        });
    PROGRAM.with(|p| *p.borrow_mut() = id.map(|id| (id, program.to_string())));
}

/// The 1-based line and column of the first of `spans` (innermost first)
/// that lies in the running program's text: where the program made the
/// call that is running now, even inside a library procedure it called.
pub(crate) fn program_site(
    spans: impl Iterator<Item = steel::parser::span::Span>,
) -> Option<(usize, usize)> {
    PROGRAM.with(|p| {
        let p = p.borrow();
        let (id, text) = p.as_ref()?;
        spans
            .filter(|s| s.source_id == Some(*id))
            .map(|s| s.start as usize)
            .find(|&start| start < text.len() && text.is_char_boundary(start))
            .map(|start| lexical::line_column(text, start))
    })
}

#[derive(Default)]
struct Output {
    pending: String,
    total: usize,
    cap: usize,
    truncated: bool,
}

/// Captures `display` output, dropping what exceeds the run's cap.
pub(crate) fn write_output(text: &str) {
    OUTPUT.with(|o| {
        let mut o = o.borrow_mut();
        let room = o.cap.saturating_sub(o.total);
        let mut take = text.len().min(room);
        while !text.is_char_boundary(take) {
            take -= 1;
        }
        if take < text.len() {
            o.truncated = true;
        }
        o.pending.push_str(&text[..take]);
        o.total += take;
    });
}

fn take_output() -> String {
    OUTPUT.with(|o| std::mem::take(&mut o.borrow_mut().pending))
}

/// The run's limits, for natives (argument size cap).
pub(crate) fn limits() -> Limits {
    LIMITS.with(|l| *l.borrow())
}

/// Panics become the run's error text instead of printing anything.
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a primitive failed".to_string());
        PANIC.with(|p| *p.borrow_mut() = Some(text));
    }));
}

fn send(message: &FromWorker) {
    if proto::write_all_blocking(CHANNEL_FD, &proto::encode(message)).is_err() {
        // SAFETY: leaving at once; the host is gone.
        unsafe { libc::_exit(EXIT_PROTOCOL) }
    }
}

fn exit(code: i32) -> ! {
    // SAFETY: leaving without running destructors of the template's state.
    unsafe { libc::_exit(code) }
}

/// A worker's whole life, from just after `fork` in the template (`parent`
/// is the template), or in a one-run template that became the worker
/// (`parent` is the host, and `was_template` is set). Never returns.
pub(crate) fn worker_main(
    engine: &mut Engine,
    channel: RawFd,
    parent: i32,
    was_template: bool,
) -> ! {
    // SAFETY: plain system calls on our own process and descriptors.
    unsafe {
        // Die with the template (and so with the host), or with the host.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != parent {
            exit(EXIT_PROTOCOL);
        }
        if channel != CHANNEL_FD {
            libc::dup2(channel, CHANNEL_FD);
            libc::close(channel);
        }
        for fd in 0..3 {
            libc::close(fd);
        }
        super::template::close_from(CHANNEL_FD + 1);
    }
    if was_template {
        // The peak resident size counts from here, as a fork's does from
        // its fork: not the engine's build.
        let _ = std::fs::write("/proc/self/clear_refs", "5");
    }
    let (action_ids, limits, session, warm) = match proto::read_blocking(CHANNEL_FD) {
        Ok(ToWorker::Setup {
            action_ids,
            withheld,
            narrowed,
            reasons,
            limits,
            session,
            warm,
        }) => {
            BOUND.with(|b| *b.borrow_mut() = (action_ids.clone(), withheld, narrowed));
            REASONS.with(|r| *r.borrow_mut() = reasons);
            (action_ids, limits, session, warm)
        }
        _ => exit(EXIT_PROTOCOL),
    };
    if let Err(e) = confine::apply(&limits, session) {
        send(&FromWorker::Fatal {
            reason: format!("confine: {e}"),
        });
        exit(confine::EXIT_CONFINE);
    }
    super::primitives::bind_actions(engine, &action_ids);
    if warm {
        super::prelude::warm_up(engine);
    }
    memory::set_controller(engine.get_thread_state_controller());
    memory::arm(limits.max_memory_bytes());
    send(&FromWorker::Ready);
    loop {
        match proto::read_blocking(CHANNEL_FD) {
            Ok(ToWorker::Run { program, limits }) => {
                let done = run(engine, &program, limits);
                let poisoned = matches!(done, FromWorker::Done { poisoned: true, .. });
                send(&done);
                release_held_reply();
                if poisoned {
                    exit(0);
                }
            }
            Ok(_) => exit(EXIT_PROTOCOL),
            Err(_) => exit(0),
        }
    }
}

/// One host call from a native: send it, wait for the reply (the envelope,
/// already a Scheme value).
pub(crate) fn host_call(
    action: &str,
    args: Option<Value>,
    args_error: Option<convert::ConvertError>,
    at: Option<(usize, usize)>,
) -> steel::rvals::SteelVal {
    send(&FromWorker::Call {
        action: action.to_string(),
        args,
        args_error,
        output: take_output(),
        at,
    });
    // The host is now answering: the last reply is freed meanwhile, rather
    // than when the program let go of it.
    release_held_reply();
    match proto::read_blocking_sized(CHANNEL_FD) {
        Ok((ToWorker::Reply { envelope, stop }, size)) => {
            if stop {
                stop_requested();
            }
            let envelope = envelope.0;
            if size <= HELD_REPLY_BYTES {
                HELD_REPLY.with(|held| *held.borrow_mut() = Some(envelope.clone()));
            }
            envelope
        }
        _ => exit(EXIT_PROTOCOL),
    }
}

/// The largest reply (its frame's bytes) the worker keeps a reference to
/// until the next host call or the run's end. A 750-byte envelope took ~7
/// us to free, a seventh of a host call; freeing it while the host works
/// takes that off every call. The bound keeps what a program's heap may
/// hold beyond its own values small against any memory limit
/// (docs/sandbox.md, "What each limit bounds": worker memory).
const HELD_REPLY_BYTES: usize = 16 * 1024;

/// Drops the reply kept by the last host call: the last reference when the
/// program has let go of it.
fn release_held_reply() {
    let held = HELD_REPLY.with(|held| held.borrow_mut().take());
    drop(held);
}

/// The bound actions' declarations, asked of the host (the first
/// `(host-describe)` of this worker's life; the caller keeps the answer).
pub(crate) fn catalogue() -> String {
    send(&FromWorker::Describe);
    match proto::read_blocking(CHANNEL_FD) {
        Ok(ToWorker::Catalogue(text)) => text,
        _ => exit(EXIT_PROTOCOL),
    }
}

fn wire_error(class: FailureClass, message: String, at: Option<(usize, usize)>) -> WireError {
    WireError {
        class,
        message: cap_text(&message, MAX_MESSAGE_BYTES),
        line: at.map(|(l, _)| l),
        column: at.map(|(_, c)| c),
    }
}

fn run(engine: &mut Engine, program: &str, limits: Limits) -> FromWorker {
    LIMITS.with(|l| *l.borrow_mut() = limits);
    OUTPUT.with(|o| {
        *o.borrow_mut() = Output {
            cap: limits.max_output_bytes.min(usize::MAX as u64) as usize,
            ..Output::default()
        }
    });
    STOP.store(false, Ordering::Relaxed);
    super::primitives::reset_handlers();
    super::examined::reset();
    PROGRAM.with(|p| *p.borrow_mut() = None);
    memory::set_limit(limits.max_memory_bytes());
    engine.get_thread_state_controller().resume();

    let mut poisoned = false;
    let (value, error) = match check_text(program, &limits) {
        Err(e) => (Value::Null, Some(e)),
        Ok(()) => {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // Compile and run separately so that every compile-time failure
                // (syntax, unbound names, macro limits) is an invalid program.
                match super::prelude::compile_program(engine, program) {
                    Ok(compiled) => {
                        note_program_source(engine, program);
                        engine.run_raw_program(compiled).map_err(|e| (false, e))
                    }
                    Err(e) => Err((true, e)),
                }
            }));
            match result {
                Ok(Ok(values)) => match values.last() {
                    None => (Value::Null, None),
                    Some(last) => final_value(last, &limits),
                },
                Ok(Err((compile_time, e))) => (
                    Value::Null,
                    Some(match classify(engine, program, &e, compile_time) {
                        first
                            if first.class == FailureClass::InvalidProgram
                                && matches!(e.kind(), steel::rerrs::ErrorKind::FreeIdentifier) =>
                        {
                            every_unbound(engine, program, first, &e)
                        }
                        other => other,
                    }),
                ),
                Err(_) => {
                    // A fault inside a primitive, caused by its arguments: the
                    // program's error, but the engine may be half-updated.
                    poisoned = true;
                    let text = PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
                    (
                        Value::Null,
                        Some(wire_error(
                            FailureClass::RuntimeError,
                            format!("a primitive failed on the arguments it was given: {text}"),
                            None,
                        )),
                    )
                }
            }
        }
    };
    let truncated = OUTPUT.with(|o| o.borrow().truncated);
    FromWorker::Done {
        value,
        error,
        output: take_output(),
        output_truncated: truncated,
        examined: super::examined::take(),
        memory: memory::soft_hit(),
        poisoned,
    }
}

/// The text checks that need Steel's lexer, done here rather than in the host.
fn check_text(program: &str, limits: &Limits) -> Result<(), WireError> {
    match lexical::check(program, limits.max_nesting_depth) {
        Ok(0) => Err(wire_error(
            FailureClass::InvalidProgram,
            "the program is empty: it has no form to evaluate".to_string(),
            None,
        )),
        Ok(_) => Ok(()),
        Err(e) => {
            let (class, message, offset) = match e {
                lexical::LexicalError::Invalid { message, offset } => {
                    (FailureClass::InvalidProgram, message, offset)
                }
                lexical::LexicalError::Denied { message, offset } => {
                    (FailureClass::EffectDenied, message, offset)
                }
            };
            Err(wire_error(
                class,
                message,
                Some(lexical::line_column(program, offset)),
            ))
        }
    }
}

/// The program's last value as JSON, built under the memory limit.
fn final_value(value: &SteelVal, limits: &Limits) -> (Value, Option<WireError>) {
    let cap = usize::try_from(limits.max_value_bytes).unwrap_or(usize::MAX);
    if cap < limits.max_memory_bytes() {
        return match convert::value_to_json_capped(value, cap) {
            Ok(json) => (json, None),
            Err((FailureClass::Memory, _)) => (
                Value::Null,
                Some(wire_error(
                    FailureClass::ValueTooLarge,
                    format!(
                        "the final value's JSON form is larger than the run's {cap}-byte value limit (maxValueBytes)"
                    ),
                    None,
                )),
            ),
            Err((class, reason)) => (Value::Null, Some(wire_error(class, reason, None))),
        };
    }
    match convert::value_to_json_capped(value, limits.max_memory_bytes()) {
        Ok(json) => (json, None),
        Err((class, reason)) => (Value::Null, Some(wire_error(class, reason, None))),
    }
}

/// The most unbound names one error lists.
const MAX_UNBOUND: usize = 12;

/// Every unbound name of the program at once (issue 56), in the order they
/// appear, each with its advice: the compiler stops at the first, so each
/// name found is replaced, in a copy of the text, by a bound one of the same
/// width (`+` and spaces: every offset stays), and the copy compiled again,
/// until it compiles or fails otherwise.
fn every_unbound(
    engine: &mut Engine,
    program: &str,
    first: WireError,
    error: &steel::SteelErr,
) -> WireError {
    let name_of = |e: &steel::SteelErr| {
        let message = e.to_string();
        message.rsplit(": ").next().unwrap_or("").trim().to_string()
    };
    use steel::compiler::code_gen::{function_id_counter, set_function_id_counter};
    let unbound = |e: &steel::SteelErr| matches!(e.kind(), steel::rerrs::ErrorKind::FreeIdentifier);
    let mut found = vec![(name_of(error), first)];
    let mut text = program.to_string();
    // Probing leaves the engine as it was: its globals (a session's), and
    // the lambda numbers the next program starts from (determinism).
    let checkpoint = engine.environment_offset();
    let ids = function_id_counter();
    while found.len() < MAX_UNBOUND {
        text = blank_identifier(&text, &found.last().expect("one at least").0);
        // A name is unbound when the compiled program is linked, before
        // anything runs: linking is as far as a probe goes.
        let again = match super::prelude::compile_program(engine, &text) {
            Err(e) if unbound(&e) => e,
            Ok(compiled) => match engine.raw_program_to_executable(compiled) {
                Err(e) if unbound(&e) => e,
                _ => break,
            },
            Err(_) => break,
        };
        let name = name_of(&again);
        if found.iter().any(|(n, _)| *n == name) {
            break;
        }
        let wire = classify(engine, &text, &again, true);
        if wire.class != FailureClass::InvalidProgram {
            break;
        }
        found.push((name, wire));
    }
    let _ = engine.rollback_to_checkpoint(checkpoint);
    set_function_id_counter(ids);
    if found.len() == 1 {
        return found.pop().expect("one").1;
    }
    found.sort_by_key(|(_, w)| (w.line.unwrap_or(usize::MAX), w.column.unwrap_or(usize::MAX)));
    let mut message = format!(
        "{} unbound identifiers, in the order they appear (each with what to write instead):",
        found.len()
    );
    for (_, w) in &found {
        let at = match (w.line, w.column) {
            (Some(l), Some(c)) => format!("line {l}, column {c}: "),
            _ => String::new(),
        };
        message.push_str(&format!("\n- {at}{}", w.message));
    }
    let (line, column) = (found[0].1.line, found[0].1.column);
    WireError {
        class: FailureClass::InvalidProgram,
        message: cap_text(&message, MAX_MESSAGE_BYTES),
        line,
        column,
    }
}

/// `text` with every identifier token spelled `name` replaced by `+` padded
/// with spaces to the same width.
fn blank_identifier(text: &str, name: &str) -> String {
    use steel::parser::lexer::TokenStream;
    use steel::parser::tokens::TokenType;
    let mut out = text.to_string();
    for token in TokenStream::new(text, true, None).flatten() {
        if let TokenType::Identifier(id) = &token.ty {
            if id.resolve() == name {
                let (start, end) = (token.span.start as usize, token.span.end as usize);
                if end <= out.len()
                    && end > start
                    && out.is_char_boundary(start)
                    && out.is_char_boundary(end)
                {
                    let width = text[start..end].chars().count();
                    let blank = format!("+{}", " ".repeat(width.saturating_sub(1)));
                    if blank.len() == end - start {
                        out.replace_range(start..end, &blank);
                    }
                }
            }
        }
    }
    out
}

/// Maps a Steel error to the run's error class, with a position when it points
/// into the program text.
fn classify(engine: &Engine, program: &str, e: &steel::SteelErr, compile_time: bool) -> WireError {
    use steel::rerrs::ErrorKind;
    let message = e.to_string();
    let message = message
        .strip_prefix("Error: ")
        .unwrap_or(&message)
        .to_string();
    let in_program = |span: &steel::parser::span::Span| {
        span.source_id
            .and_then(|id| engine.get_source(&id))
            .is_some_and(|src| src.as_ref() == program)
    };
    // Where the program was when it failed: the error's own span, or, for an
    // error raised inside the prelude or a primitive it called (`hash-ref`
    // is the prelude's), the innermost frame of the program's own code.
    let offset = e
        .span()
        .filter(|span| in_program(span))
        .or_else(|| {
            e.stack_trace().as_ref().and_then(|trace| {
                trace
                    .trace()
                    .iter()
                    .rev()
                    .find_map(|frame| frame.span().filter(|span| in_program(span)))
            })
        })
        .map(|span| span.start as usize);
    let at = offset.map(|o| lexical::line_column(program, o));
    let message = name_the_callee(message, program, offset);
    let (class, message) = match e.kind() {
        ErrorKind::FreeIdentifier => {
            let name = message.rsplit(": ").next().unwrap_or("").trim().to_string();
            let (bound, withheld, narrowed) = BOUND.with(|b| b.borrow().clone());
            let reason = REASONS.with(|r| {
                r.borrow()
                    .iter()
                    .find(|(id, _, _)| *id == name)
                    .map(|(_, class, message)| (*class, message.clone()))
            });
            match super::denied::capability_of(&name) {
                Some(cap) => (
                    FailureClass::EffectDenied,
                    super::denied::denial_message(&name, cap),
                ),
                None if reason.is_some() => reason.expect("checked"),
                None if withheld.contains(&name) => (
                    FailureClass::EffectDenied,
                    format!(
                        "`{name}` is a mutation, and this run uses the read-only profile: no \
                         mutation is bound (reads are; (host-actions) lists them)"
                    ),
                ),
                None if narrowed.contains(&name) => (
                    FailureClass::EffectDenied,
                    format!(
                        "`{name}` is not in this run's actions list: only the listed actions are \
                         bound ((host-actions) lists them)"
                    ),
                ),
                None => (FailureClass::InvalidProgram, unbound(&name, &bound)),
            }
        }
        _ if compile_time => (FailureClass::InvalidProgram, message),
        _ if message.contains("found: #false") || message.contains("found #false") => (
            FailureClass::RuntimeError,
            format!(
                "{message} (a #f where a value was wanted is most often (hash-ref* …) that found \
                 no key, or a rejected call: check (accepted? e) before reading (payload e))"
            ),
        ),
        _ => (FailureClass::RuntimeError, message),
    };
    wire_error(class, message, at)
}

/// Steel's arity error for a closure says "function expected N arguments,
/// found M"; the call's text names the function, so the message does too.
fn name_the_callee(message: String, program: &str, offset: Option<usize>) -> String {
    let Some((head, rest)) = message.split_once("function expected ") else {
        return message;
    };
    let name: String = offset
        .and_then(|o| program.get(o..))
        .map(|call| call.strip_prefix('(').unwrap_or(call))
        .map(|call| {
            call.chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, '(' | ')' | '[' | ']'))
                .collect()
        })
        .unwrap_or_default();
    if name.is_empty() {
        return message;
    }
    format!(
        "{head}`{name}` expected {rest}: call it with as many arguments as its definition names"
    )
}

/// An unbound identifier's error: what to write instead, from the table of
/// other Schemes' names, the action ids, or this dialect's names.
fn unbound(name: &str, actions: &[String]) -> String {
    if let Some((_, advice)) = super::dialect::OTHER_SCHEMES
        .iter()
        .find(|(other, _)| *other == name)
    {
        return format!(
            "unbound identifier `{name}`: this dialect has no `{name}`; instead: {advice}"
        );
    }
    if let Some(id) = closest_action(name, actions) {
        return format!(
            "unbound identifier `{name}`; did you mean the host action `{id}`? ((host-actions) \
             lists them; `tusk actions ID` or (host-describe \"ID\") gives one's arguments)"
        );
    }
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(super::primitives::program_names);
    if let Some(known) = closest(name, names) {
        return format!("unbound identifier `{name}`; did you mean `{known}`?");
    }
    if name.contains('.') {
        return format!(
            "unbound identifier `{name}`: no host action has that id; (host-actions) lists the \
             bound ones"
        );
    }
    format!(
        "unbound identifier `{name}`: not a procedure of this dialect nor a name the program \
         defined before this use (define it first, or check the spelling)"
    )
}

/// The action a name most likely meant: a close spelling, an action whose
/// id ends with the name (`session.write`), or the usual verb for one
/// (`issue.get` → `issue.show`).
pub(crate) fn closest_action<'a>(name: &str, actions: &'a [String]) -> Option<&'a str> {
    if let Some(id) = closest(name, actions) {
        return Some(id);
    }
    if let Some(id) = actions.iter().find(|id| id.ends_with(&format!(".{name}"))) {
        return Some(id);
    }
    let (domain, verb) = name.rsplit_once('.')?;
    let usual = match verb {
        "get" | "fetch" | "view" | "read" | "info" | "details" | "describe" | "find" => "show",
        "create" | "new" | "insert" => "add",
        "done" | "finish" | "complete" | "resolve" => "close",
        "query" | "find_all" | "lookup" => "search",
        "all" | "ls" => "list",
        "take" | "grab" | "acquire" | "lease" => "claim",
        "next" | "take_next" | "claim_ready" => "claim_next",
        "note" | "add_comment" => "comment",
        "tag" | "labels" => "label",
        "release" | "unclaim" | "drop" => "lease_release",
        _ => return None,
    };
    let wanted = format!("{domain}.{usual}");
    actions.iter().find(|id| **id == wanted).map(String::as_str)
}

/// The action id closest to a misspelled name, if one is close enough to be
/// what was meant (a few edits, or the same words with other separators).
fn closest<'a>(name: &str, ids: &'a [String]) -> Option<&'a str> {
    use crate::spelling::{edit_distance, squash};
    let name_squashed = squash(name, "._-");
    ids.iter()
        .map(|id| {
            let d = if squash(id, "._-") == name_squashed {
                0
            } else {
                edit_distance(name, id)
            };
            (d, id.as_str())
        })
        .filter(|(d, id)| *d <= (id.len() / 4).clamp(1, 3))
        .min()
        .map(|(_, id)| id)
}

#[cfg(test)]
mod suggest_tests {
    #[test]
    fn close_names_are_suggested() {
        let ids: Vec<String> = ["issue.claim_next", "issue.claim", "issue.ready"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            super::closest("issue.claimnext", &ids),
            Some("issue.claim_next")
        );
        assert_eq!(super::closest("issue-ready", &ids), Some("issue.ready"));
        assert_eq!(super::closest("issue.redy", &ids), Some("issue.ready"));
        assert_eq!(super::closest("frobnicate", &ids), None);
    }
}

#[cfg(test)]
mod unbound_tests {
    #[test]
    fn blanks_keep_width() {
        assert_eq!(
            super::blank_identifier("(list (foo 1) (bar 2))", "foo"),
            "(list (+   1) (bar 2))"
        );
    }
}

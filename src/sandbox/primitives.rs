//! The `steel.sandbox.v1` bindings: the allowlist of Steel's pure primitives,
//! tusk's own natives (captured output, allocation checks, host calls), and the
//! bundled prelude. Nothing else is bound in a sandbox engine.

use super::convert;
use super::memory;
use super::numeric;
use super::order;
use super::printer;
use super::worker;
use std::sync::Arc;
use steel::rerrs::ErrorKind;
use steel::rvals::{Result as SteelResult, SteelVal};
use steel::steel_vm::engine::Engine;
use steel::SteelErr;

pub use super::prelude::PRELUDE;

/// Steel primitives bound under their own names: pure functions over numbers,
/// booleans, characters, strings, symbols, lists, vectors and hash maps, plus
/// control (`apply`, `call/cc`, exception handlers). Anything not listed here is
/// unbound in the sandbox.
pub const ALLOWLIST: &[&str] = &[
    // numbers
    "+",
    "-",
    "*",
    "/",
    "=",
    "<",
    ">",
    "<=",
    ">=",
    "abs",
    "quotient",
    "remainder",
    "modulo",
    "floor",
    "ceiling",
    "round",
    "truncate",
    "sqrt",
    "exact-integer-sqrt",
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "number?",
    "integer?",
    "real?",
    "rational?",
    "exact?",
    "inexact?",
    "exact->inexact",
    "inexact->exact",
    "exact",
    "inexact",
    "zero?",
    "positive?",
    "negative?",
    "even?",
    "odd?",
    "nan?",
    "infinite?",
    "finite?",
    "square",
    "number->string",
    "string->number",
    "exact-integer?",
    "int?",
    "float?",
    "numerator",
    "denominator",
    "floor/",
    "floor-quotient",
    "floor-remainder",
    "truncate/",
    "truncate-quotient",
    "truncate-remainder",
    "euclidean/",
    "euclidean-quotient",
    "euclidean-remainder",
    "bitwise-and",
    "bitwise-ior",
    "bitwise-xor",
    "bitwise-not",
    // equality and predicates
    "equal?",
    "eq?",
    "eqv?",
    "not",
    "boolean?",
    "bool?",
    "symbol?",
    "string?",
    "procedure?",
    "function?",
    "void?",
    "hash?",
    "char?",
    "list?",
    "pair?",
    "vector?",
    "empty?",
    // lists
    "car",
    "cdr",
    "cons",
    "list",
    "null?",
    "length",
    "append",
    "reverse",
    "list-ref",
    "list-tail",
    "first",
    "second",
    "third",
    "rest",
    "last",
    "member",
    "memq",
    "list->vector",
    "list->string",
    "try-list-ref",
    "apply",
    // strings and characters
    "string-length",
    "substring",
    "string-ref",
    "string=?",
    "string<?",
    "string>?",
    "string<=?",
    "string>=?",
    "string-ci=?",
    "string-ci<?",
    "string-ci>?",
    "string-upcase",
    "string-downcase",
    "string->list",
    "string->symbol",
    "symbol->string",
    "string-contains?",
    "starts-with?",
    "ends-with?",
    "split-whitespace",
    "split-many",
    "split-once",
    "trim",
    "trim-start",
    "trim-end",
    "trim-start-matches",
    "trim-end-matches",
    "string",
    "char->integer",
    "integer->char",
    "char-upcase",
    "char-downcase",
    "char-whitespace?",
    "char-digit?",
    "char->number",
    "char=?",
    "char<?",
    "char>?",
    "char<=?",
    "char>=?",
    "int->string",
    "string->int",
    "symbol=?",
    "concat-symbols",
    // vectors
    "vector",
    "vector-ref",
    "vector-length",
    "vector-set!",
    "vector-fill!",
    "mutable-vector",
    "immutable-vector",
    "vector-push!",
    "vector-append!",
    // hash maps and sets
    "hash",
    "hash-get",
    "hash-try-get",
    "hash-insert",
    "hash-remove",
    "hash-contains?",
    "hash-keys->list",
    "hash-values->list",
    "hash->list",
    "hash-length",
    "hash-empty?",
    "hash-union",
    "hash-clear",
    "hashset",
    "hashset-insert",
    "hashset-contains?",
    "hashset->list",
    "hashset-length",
    "list->hashset",
    "set?",
    // control and errors
    "call/cc",
    "call-with-current-continuation",
    "call-with-exception-handler",
    "error-object?",
    "error-object-message",
    "box",
    "unbox",
    "set-box!",
];

/// tusk's own natives that programs call by name (the `tusk-` helpers are the
/// prelude's business and not listed).
const PUBLIC_NATIVES: &[&str] = &[
    "void",
    "format",
    "printf",
    "string-prefix?",
    "string-suffix?",
    "string-append",
    "hash-keys",
    "hash-values",
    "hash-ref*",
    "host-describe",
    "display",
    "displayln",
    "write",
    "newline",
    "->string",
    "host-call",
    "host-actions",
    "error-object-irritants",
];

/// Every global name a program can use besides host action ids: allowlisted
/// primitives, public natives, and the prelude's procedures and macros. Sorted.
pub fn program_names() -> Vec<String> {
    let base = steel::steel_vm::primitives::prelude();
    let mut names: Vec<String> = ALLOWLIST
        .iter()
        .filter(|name| base.try_get(name.to_string()).is_some())
        .chain(PUBLIC_NATIVES)
        .map(|name| name.to_string())
        .collect();
    names.extend(
        super::prelude::definitions()
            .into_iter()
            .filter(|name| !name.starts_with("tusk-"))
            .map(str::to_string),
    );
    names.sort();
    names.dedup();
    names
}

/// Primitives the prelude wraps with an allocation check; bound as `tusk-raw-<name>`.
const GUARDED: &[&str] = &[
    // Several values, which Steel gives as a list (the prelude's give them
    // as `values`).
    "floor/",
    "truncate/",
    "euclidean/",
    "exact-integer-sqrt",
    "make-vector",
    "make-string",
    "string-replace",
    "expt",
    "arithmetic-shift",
    "range",
];

/// What Steel's expansion of optional and keyword arguments calls
/// (`(define (f a [b 2]) …)`, `(lambda (#:key [k #f]) …)`): pure argument
/// list walks and the arity error, bound under the `#%prim.` names the
/// expansion writes. Nothing else of `#%prim` is bound.
const EXPANSION: &[&str] = &[
    "plist-validate-args",
    "plist-get-positional-arg-list",
    "plist-get-positional-arg",
    "plist-try-get-positional-arg",
    "plist-get-kwarg",
    "plist-try-get",
    "current-function-span",
    "error-with-span",
    "#%const-list",
];

pub(super) fn err(message: impl Into<String>) -> SteelErr {
    SteelErr::new(ErrorKind::Generic, message.into())
}

pub(super) fn native(
    engine: &mut Engine,
    name: &str,
    f: impl Fn(&[SteelVal]) -> SteelResult<SteelVal> + Send + Sync + 'static,
) {
    engine.register_value(name, SteelVal::anonymous_boxed_function(Arc::new(f)));
}

/// Ends the run for memory at the next VM instruction and returns the error
/// that unwinds the current primitive.
pub(super) fn memory_breach(message: &str) -> SteelErr {
    memory::note_breach();
    memory::interrupt_vm();
    err(message)
}

fn as_usize(v: &SteelVal) -> Option<usize> {
    match v {
        SteelVal::IntV(i) => Some((*i).max(0) as usize),
        SteelVal::BigNum(b) => Some(if b.sign() == num_bigint::Sign::Minus {
            0
        } else {
            usize::MAX
        }),
        _ => None,
    }
}

fn text_len(v: &SteelVal) -> usize {
    match v {
        SteelVal::StringV(s) => s.len(),
        _ => 0,
    }
}

/// Builds the prepared engine: allowlist, natives, then the prelude. Called
/// once, in the template; every worker is a fork of it. Host actions are
/// bound later, in each worker ([`bind_actions`]).
pub fn build_engine() -> Result<Engine, SteelErr> {
    order::install();
    steel::compiler::compiler::set_parsed_hook(super::matching::rewrite);
    let mut engine = Engine::new_raw_no_kernel();
    let modules = builtin_modules();
    for name in ALLOWLIST {
        if let Some(value) = builtin(&modules, name) {
            engine.register_value(name, value);
        }
    }
    for name in GUARDED {
        if let Some(value) = builtin(&modules, name) {
            engine.register_value(&format!("tusk-raw-{name}"), value);
        }
    }
    for name in EXPANSION {
        if let Some(value) = builtin(&modules, name) {
            engine.register_value(&format!("#%prim.{name}"), value);
        }
    }
    // R7RS's handler stack (`with-exception-handler`, `raise-continuable`):
    // per run, emptied when one starts (a run cut short leaves none behind).
    native(&mut engine, "tusk-handlers", |_| {
        Ok(HANDLERS.with(|h| SteelVal::ListV(h.borrow().iter().cloned().collect())))
    });
    native(&mut engine, "tusk-set-handlers!", |args| match args {
        [SteelVal::ListV(l)] => {
            HANDLERS.with(|h| *h.borrow_mut() = l.iter().cloned().collect());
            Ok(SteelVal::Void)
        }
        _ => Err(err("tusk-set-handlers! takes a list")),
    });
    // `call/cc`'s expansion calls `(#%prim.void)`.
    native(&mut engine, "#%prim.void", |_| Ok(SteelVal::Void));
    register_natives(&mut engine);
    super::prelude::prepare(&mut engine)?;
    Ok(engine)
}

/// The modules Steel's `primitives::prelude()` merges, in its order. The
/// allowlist is looked up in them directly: merging every entry of every
/// module into one map first was half of the 1.3 ms `prelude()` took in
/// each template.
fn builtin_modules() -> Vec<steel::steel_vm::builtin::BuiltInModule> {
    use steel::steel_vm::primitives::*;
    vec![
        MAP_MODULE.with(|m| m.clone()),
        SET_MODULE.with(|m| m.clone()),
        LIST_MODULE.with(|m| m.clone()),
        STRING_MODULE.with(|m| m.clone()),
        VECTOR_MODULE.with(|m| m.clone()),
        STREAM_MODULE.with(|m| m.clone()),
        IDENTITY_MODULE.with(|m| m.clone()),
        NUMBER_MODULE.with(|m| m.clone()),
        EQUALITY_MODULE.with(|m| m.clone()),
        ORD_MODULE.with(|m| m.clone()),
        TRANSDUCER_MODULE.with(|m| m.clone()),
        SYMBOL_MODULE.with(|m| m.clone()),
        IO_MODULE.with(|m| m.clone()),
        FS_MODULE.with(|m| m.clone()),
        PORT_MODULE.with(|m| m.clone()),
        META_MODULE.with(|m| m.clone()),
        JSON_MODULE.with(|m| m.clone()),
        CONSTANTS_MODULE.with(|m| m.clone()),
        SYNTAX_MODULE.with(|m| m.clone()),
        PROCESS_MODULE.with(|m| m.clone()),
        RESULT_MODULE.with(|m| m.clone()),
        OPTION_MODULE.with(|m| m.clone()),
        TYPE_ID_MODULE.with(|m| m.clone()),
        TIME_MODULE.with(|m| m.clone()),
        THREADING_MODULE.with(|m| m.clone()),
        BYTEVECTOR_MODULE.with(|m| m.clone()),
    ]
}

/// `name` as `prelude()` would bind it: a later module's entry replaces an
/// earlier one's when it merges them, so the last module that has it.
fn builtin(modules: &[steel::steel_vm::builtin::BuiltInModule], name: &str) -> Option<SteelVal> {
    modules.iter().rev().find_map(|m| m.try_get_ref(name))
}

/// Binds one procedure per host action id, `(host-actions)` listing them, and
/// `(host-describe ["id"])` answering from their declarations.
pub(crate) fn bind_actions(engine: &mut Engine, action_ids: &[String]) {
    let parsed: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    native(engine, "host-describe", move |args| {
        let all =
            parsed.get_or_init(|| serde_json::from_str(&worker::catalogue()).unwrap_or_default());
        match args {
            [] => Ok(convert::json_to_value(all)),
            [SteelVal::StringV(id)] | [SteelVal::SymbolV(id)] => Ok(match all.get(id.as_str()) {
                Some(spec) => convert::json_to_value(spec),
                None => SteelVal::BoolV(false),
            }),
            _ => Err(err("host-describe takes no argument or one action id")),
        }
    });
    ACTIONS.with(|a| *a.borrow_mut() = action_ids.to_vec());
    for (n, id) in action_ids.iter().enumerate() {
        match ACTION_BUILTINS.get(n) {
            Some(builtin) => {
                engine.register_value(id, SteelVal::BuiltIn(*builtin));
            }
            None => {
                let action = id.clone();
                native(engine, id, move |args| host_call(&action, args, None));
            }
        }
    }
    let ids: Vec<String> = action_ids.to_vec();
    native(engine, "host-actions", move |_| {
        Ok(SteelVal::ListV(
            ids.iter()
                .map(|id| SteelVal::StringV(id.clone().into()))
                .collect(),
        ))
    });
}

thread_local! {
    /// The bound action ids, in binding order: `ACTION_BUILTINS[n]` calls
    /// the `n`th.
    static ACTIONS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where the program made the call now running: the call instruction's
/// span, then each frame's call site outwards, to the first in the
/// program's own text (a call made inside a prelude procedure is placed at
/// the program's call of that procedure).
fn call_site(ctx: &steel::steel_vm::VmCore) -> Option<(usize, usize)> {
    let trace = ctx.snapshot_stack_trace();
    let frames = trace.trace();
    // The snapshot's last entry is where the innermost frame stands now,
    // one past the call: the call's own span replaces it.
    let outer = frames[..frames.len().saturating_sub(1)]
        .iter()
        .rev()
        .filter_map(|f| *f.span());
    worker::program_site(std::iter::once(ctx.previous_span()).chain(outer))
}

/// An action bound as a builtin, so that it sees the VM and can say where
/// it was called (a closure cannot: Steel hands natives only their
/// arguments). Builtins are plain function pointers, so each bound action
/// is its own instantiation, `N` its place in [`ACTIONS`].
fn action_builtin<const N: usize>(
    ctx: &mut steel::steel_vm::VmCore,
    args: &[SteelVal],
) -> Option<SteelResult<SteelVal>> {
    let at = call_site(ctx);
    let action = ACTIONS.with(|a| a.borrow().get(N).cloned());
    Some(match action {
        Some(action) => host_call(&action, args, at),
        None => Err(err("this host action is not bound in this worker")),
    })
}

/// `(host-call "id" args)`: the action by name.
fn generic_host_call(
    ctx: &mut steel::steel_vm::VmCore,
    args: &[SteelVal],
) -> Option<SteelResult<SteelVal>> {
    Some(match args.split_first() {
        Some((SteelVal::StringV(id), rest)) | Some((SteelVal::SymbolV(id), rest)) => {
            host_call(id.as_str(), rest, call_site(ctx))
        }
        _ => Err(err(
            "host-call needs an action id string, then optionally one hash of arguments",
        )),
    })
}

macro_rules! action_builtins {
    ($($n:literal)*) => {
        [$(action_builtin::<$n> as steel::steel_vm::BuiltInSignature),*]
    };
}

/// One builtin per action place. More actions than these are bound as
/// closures and their calls carry no site.
static ACTION_BUILTINS: [steel::steel_vm::BuiltInSignature; 128] = action_builtins!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
    96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120
    121 122 123 124 125 126 127
);

/// Action ids longer than this are cut before they cross to the host (no
/// action has such an id, so the call is refused as unallowlisted).
const MAX_ACTION_ID: usize = 128;

fn host_call(action: &str, args: &[SteelVal], at: Option<(usize, usize)>) -> SteelResult<SteelVal> {
    let max_bytes = worker::limits().max_call_args_bytes;
    let (json_args, args_error) = match args {
        [] | [SteelVal::Void] => (None, None),
        [one @ SteelVal::HashMapV(_)] => match convert::args_to_json(one, max_bytes) {
            Ok(v) => (Some(v), None),
            Err((shown, e)) => (Some(shown), Some(e)),
        },
        [one] => {
            let shown = convert::args_to_json(one, max_bytes).unwrap_or_else(|(shown, _)| shown);
            (
                Some(shown),
                Some(convert::ConvertError {
                    path: String::new(),
                    reason: format!(
                        "host functions take no argument or one hash of named arguments: write \
                         ({action} (hash \"key\" value …)); (host-describe \"{action}\") lists \
                         its keys"
                    ),
                }),
            )
        }
        many => (
            Some(serde_json::Value::String(format!(
                "#<{} arguments>",
                many.len()
            ))),
            Some(convert::ConvertError {
                path: String::new(),
                reason: format!(
                    "host functions take at most one argument, got {}: put them in one hash of \
                     named arguments, ({action} (hash \"key\" value …)); (host-describe \
                     \"{action}\") lists its keys",
                    many.len()
                ),
            }),
        ),
    };
    let action = if action.len() > MAX_ACTION_ID {
        super::cap_text(action, MAX_ACTION_ID)
    } else {
        action.to_string()
    };
    Ok(worker::host_call(&action, json_args, args_error, at))
}

fn emit(text: &str) {
    worker::write_output(text);
}

fn arity(name: &str, args: &[SteelVal], n: usize) -> SteelResult<()> {
    if args.len() == n {
        Ok(())
    } else {
        Err(SteelErr::new(
            ErrorKind::ArityMismatch,
            format!("{name} expects {n} argument(s), got {}", args.len()),
        ))
    }
}

fn map_of<'a>(
    name: &str,
    args: &'a [SteelVal],
) -> SteelResult<&'a steel::HashMap<SteelVal, SteelVal>> {
    arity(name, args, 1)?;
    match &args[0] {
        SteelVal::HashMapV(m) => Ok(m),
        other => Err(SteelErr::new(
            ErrorKind::TypeMismatch,
            format!(
                "{name} expects a hash, found {}",
                printer::render(other, true, 200)
            ),
        )),
    }
}

thread_local! {
    /// The handlers `with-exception-handler` installed, innermost first.
    static HANDLERS: std::cell::RefCell<Vec<SteelVal>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Empties the run's handler stack (a worker does, before each run).
pub(crate) fn reset_handlers() {
    HANDLERS.with(|h| h.borrow_mut().clear());
}

thread_local! {
    /// The last errors `error` raised: their whole text, their message and
    /// irritants (R7RS reads them apart; the error object keeps only text).
    static RAISED: std::cell::RefCell<std::collections::VecDeque<(String, String, Vec<SteelVal>)>> =
        Default::default();
}

fn remember_error(text: &str, args: &[SteelVal]) {
    let Some((SteelVal::StringV(message), irritants)) = args.split_first() else {
        return;
    };
    RAISED.with(|r| {
        let mut r = r.borrow_mut();
        if r.len() == 16 {
            r.pop_front();
        }
        r.push_back((text.to_string(), message.to_string(), irritants.to_vec()));
    });
}

fn recalled_error(text: &str) -> Option<(String, Vec<SteelVal>)> {
    RAISED.with(|r| {
        r.borrow()
            .iter()
            .rev()
            .find(|(t, _, _)| t == text)
            .map(|(_, m, i)| (m.clone(), i.clone()))
    })
}

/// An error's message as Racket and R7RS make it: `(error 'who "fmt ~a" v)`
/// is `who: ` and the formatted text; `(error "msg" v …)` is the message and
/// each irritant written (`msg "x" 2`); any other value is written alone.
fn error_text(args: &[SteelVal]) -> String {
    let limit = super::MAX_MESSAGE_BYTES;
    if let [SteelVal::SymbolV(who), SteelVal::StringV(_), ..] = args {
        if let Ok(text) = super::dialect::format("error", &args[1..]) {
            return format!("{}: {text}", who.as_str());
        }
    }
    let mut message = match args.first() {
        Some(SteelVal::StringV(s)) => s.to_string(),
        Some(SteelVal::SymbolV(s)) => s.to_string(),
        Some(other) => printer::render(other, true, limit),
        None => String::new(),
    };
    for arg in args.iter().skip(1) {
        message.push(' ');
        message.push_str(&printer::render(arg, true, limit));
        if message.len() > limit {
            break;
        }
    }
    message
}

/// Unit tests only: a deliberately widened allowlist, to show the second
/// wall (the system-call filter) on its own. `(test-syscall "open")` and
/// friends attempt the named capability from inside the worker.
#[cfg(test)]
fn register_test_wideners(engine: &mut Engine) {
    native(engine, "test-syscall", |args| {
        let what = match args.first() {
            Some(SteelVal::StringV(s)) => s.as_str().to_string(),
            _ => return Err(err("test-syscall needs a name")),
        };
        let outcome = match what.as_str() {
            "open" => std::fs::read("/etc/hostname").map(|b| b.len().to_string()),
            "create" => std::fs::write("/tmp/tusk-seccomp-escape", b"x").map(|_| "written".into()),
            "socket" => std::net::TcpStream::connect("127.0.0.1:9").map(|_| "connected".into()),
            "exec" => std::process::Command::new("/bin/true")
                .status()
                .map(|s| s.to_string()),
            // SAFETY: the test's point is that this never returns a child.
            "fork" => Ok(unsafe { libc::fork() }.to_string()),
            _ => return Err(err("unknown test-syscall")),
        };
        outcome
            .map(|text| SteelVal::StringV(text.into()))
            .map_err(|e| err(e.to_string()))
    });
}

/// The walkers of hashes and sets, in canonical order (see [`order`]), and
/// the primitives whose Steel versions print whole values into messages or
/// give inexact answers.
fn register_ordered(engine: &mut Engine) {
    use super::hashes::unboxing;
    native(
        engine,
        "hash-keys->list",
        unboxing(|args| {
            let entries = order::entries(map_of("hash-keys->list", args)?);
            Ok(SteelVal::ListV(
                entries.into_iter().map(|(k, _)| k.clone()).collect(),
            ))
        }),
    );
    native(
        engine,
        "hash-values->list",
        unboxing(|args| {
            let entries = order::entries(map_of("hash-values->list", args)?);
            Ok(SteelVal::ListV(
                entries.into_iter().map(|(_, v)| v.clone()).collect(),
            ))
        }),
    );
    // Pairs are built by Steel's own `cons` (its pair type is not public),
    // which Steel binds as a primitive over mutable arguments.
    match steel::steel_vm::primitives::prelude().try_get("cons".to_string()) {
        Some(SteelVal::MutFunc(cons)) => native(
            engine,
            "hash->list",
            unboxing(move |args| {
                let entries = order::entries(map_of("hash->list", args)?);
                let pairs = entries
                    .into_iter()
                    .map(|(k, v)| cons(&mut [k.clone(), v.clone()]))
                    .collect::<SteelResult<_>>()?;
                Ok(SteelVal::ListV(pairs))
            }),
        ),
        // Steel's own `hash->list` walks in hash order: better unbound.
        _ => panic!("Steel's `cons` is no longer a primitive over mutable arguments"),
    }
    native(engine, "hashset->list", |args| {
        arity("hashset->list", args, 1)?;
        match &args[0] {
            SteelVal::HashSetV(set) => {
                let members = order::members(set);
                Ok(SteelVal::ListV(members.into_iter().cloned().collect()))
            }
            other => Err(SteelErr::new(
                ErrorKind::TypeMismatch,
                format!(
                    "hashset->list expects a set, found {}",
                    printer::render(other, true, 200)
                ),
            )),
        }
    });
    // A miss names the key, not the whole map (a 20,000-entry map made a 2 MiB
    // message, and Steel's `hash-get` prints the map in hash order). The
    // prelude's `hash-ref` is dialect.rs's, with the keys and a default.
    native(
        engine,
        "hash-get",
        unboxing(|args| {
            let name = "hash-get";
            arity(name, args, 2)?;
            let map = map_of(name, &args[..1])?;
            match map.get(&args[1]) {
                Some(v) => Ok(v.clone()),
                None => Err(err(format!(
                    "{name}: key not found: {} (the hash has {} keys)",
                    printer::render(&args[1], true, 256),
                    map.len()
                ))),
            }
        }),
    );
    // Steel's `error` renders its irritants with its own printer, which
    // recurses without a cycle check; this one is cycle-safe and ordered.
    for name in ["error", "error!"] {
        native(engine, name, |args| {
            if args.is_empty() {
                return Err(SteelErr::new(
                    ErrorKind::ArityMismatch,
                    "error takes at least one argument".to_string(),
                ));
            }
            let text = super::cap_text(&error_text(args), super::MAX_MESSAGE_BYTES);
            remember_error(&text, args);
            Err(err(text))
        });
    }
    let base = steel::steel_vm::primitives::prelude();
    if let Some(SteelVal::FuncV(message_of)) = base.try_get("error-object-message".to_string()) {
        // R7RS: the message without the irritants (`error` remembers
        // which is which); an error a primitive raised is all message.
        native(
            engine,
            "error-object-message",
            move |args| match message_of(args)? {
                SteelVal::StringV(s) => {
                    let text = super::cap_text(s.as_str(), super::MAX_MESSAGE_BYTES);
                    let own = recalled_error(&text).map(|(message, _)| message);
                    Ok(SteelVal::StringV(own.unwrap_or(text).into()))
                }
                other => Ok(other),
            },
        );
        native(engine, "tusk-error-text", move |args| {
            match message_of(args)? {
                SteelVal::StringV(s) => Ok(SteelVal::StringV(
                    super::cap_text(s.as_str(), super::MAX_MESSAGE_BYTES).into(),
                )),
                other => Ok(other),
            }
        });
        native(
            engine,
            "error-object-irritants",
            move |args| match message_of(args)? {
                SteelVal::StringV(s) => {
                    let text = super::cap_text(s.as_str(), super::MAX_MESSAGE_BYTES);
                    let irritants = recalled_error(&text).map(|(_, i)| i).unwrap_or_default();
                    Ok(SteelVal::ListV(irritants.into_iter().collect()))
                }
                _ => Ok(SteelVal::ListV(Default::default())),
            },
        );
    }
    // Racket's `=` takes any number of numbers (Steel's takes two).
    native(engine, "=", |args| {
        if args.len() < 2 {
            return Err(SteelErr::new(
                ErrorKind::ArityMismatch,
                format!("= takes two numbers or more, got {}", args.len()),
            ));
        }
        for pair in args.windows(2) {
            if steel::rvals::number_equality(&pair[0], &pair[1])? == SteelVal::BoolV(false) {
                return Ok(SteelVal::BoolV(false));
            }
        }
        Ok(SteelVal::BoolV(true))
    });
    native(engine, "abs", numeric::abs);
    native(engine, "exact", numeric::exact);
    native(engine, "inexact->exact", numeric::exact);
    native(
        engine,
        "tusk-raw-arithmetic-shift",
        numeric::arithmetic_shift,
    );
    native(engine, "bitwise-and", numeric::bitwise_and);
    native(engine, "bitwise-ior", numeric::bitwise_ior);
    native(engine, "bitwise-xor", numeric::bitwise_xor);
    native(engine, "bitwise-not", numeric::bitwise_not);
}

fn register_natives(engine: &mut Engine) {
    register_ordered(engine);
    super::dialect::register(engine, emit);
    #[cfg(test)]
    register_test_wideners(engine);
    // Steel binds `void` to the void *value*; Scheme programs call `(void)`.
    native(engine, "void", |_| Ok(SteelVal::Void));
    // Every argument is printed (`(displayln "claimed " id)`): there are no
    // ports for a second argument to name, and dropping it silently hid
    // the value a program meant to show.
    for (name, write, newline) in [
        ("display", false, false),
        ("displayln", false, true),
        ("write", true, false),
    ] {
        native(engine, name, move |args| {
            let mut text = String::new();
            for v in args {
                text.push_str(&printer::render(v, write, 1 << 20));
            }
            if newline {
                text.push('\n');
            }
            emit(&text);
            Ok(SteelVal::Void)
        });
    }
    native(engine, "newline", |_| {
        emit("\n");
        Ok(SteelVal::Void)
    });
    native(engine, "->string", |args| {
        let mut text = String::new();
        for v in args {
            text.push_str(&printer::render(v, false, 1 << 20));
        }
        Ok(SteelVal::StringV(text.into()))
    });
    engine.register_value("host-call", SteelVal::BuiltIn(generic_host_call));
    native(engine, "tusk-reserve!", |args| {
        let bytes = args.first().and_then(as_usize).unwrap_or(0);
        super::dialect::reserve(bytes).map(|()| SteelVal::Void)
    });
    native(engine, "tusk-int", |args| match args.first() {
        Some(v @ (SteelVal::IntV(_) | SteelVal::BigNum(_))) => Ok(v.clone()),
        _ => Err(err("expected an exact integer size")),
    });
    native(engine, "tusk-replace-bound", |args| {
        let (s, from, to) = match args {
            [s, from, to] => (text_len(s), text_len(from), text_len(to)),
            _ => (0, 0, 0),
        };
        let occurrences = s.checked_div(from).unwrap_or(s + 1);
        let bound = s.saturating_add(occurrences.saturating_mul(to));
        Ok(SteelVal::IntV(bound.min(isize::MAX as usize) as isize))
    });
    native(engine, "tusk-expt-bound", |args| {
        let bytes = match args {
            [base, SteelVal::IntV(power)] if *power > 0 => {
                let bits: u64 = match base {
                    SteelVal::IntV(b) => 64 - (b.unsigned_abs() as u64).leading_zeros() as u64,
                    SteelVal::BigNum(b) => b.bits(),
                    _ => 0,
                };
                // 0, 1 and -1 stay small whatever the power.
                let bits = if bits <= 1 { 0 } else { bits };
                bits.saturating_mul(*power as u64) / 8
            }
            [base, SteelVal::BigNum(_)] => match base {
                SteelVal::IntV(b) if b.unsigned_abs() <= 1 => 0,
                SteelVal::IntV(_) | SteelVal::BigNum(_) => u64::MAX,
                _ => 0,
            },
            _ => 0,
        };
        Ok(SteelVal::IntV(bytes.min(isize::MAX as u64) as isize))
    });
    native(engine, "tusk-range-count", |args| {
        let nums: Vec<i128> = args
            .first()
            .and_then(|v| {
                if let SteelVal::ListV(l) = v {
                    Some(l.iter().cloned().collect::<Vec<_>>())
                } else {
                    None
                }
            })
            .unwrap_or_default()
            .iter()
            .filter_map(|v| {
                if let SteelVal::IntV(i) = v {
                    Some(*i as i128)
                } else {
                    None
                }
            })
            .collect();
        let count = match nums.as_slice() {
            [end] => *end,
            [start, end, ..] => end - start,
            _ => 0,
        };
        Ok(SteelVal::IntV(count.clamp(0, isize::MAX as i128) as isize))
    });
    native(engine, "tusk-vector->list", |args| match args.first() {
        Some(SteelVal::VectorV(v)) => Ok(SteelVal::ListV(v.iter().cloned().collect())),
        Some(SteelVal::MutableVector(v)) => Ok(SteelVal::ListV(
            v.borrow(|items| items.iter().cloned().collect()),
        )),
        _ => Err(err("vector->list expects a vector")),
    });
}

#[cfg(test)]
mod builtin_tests {
    use super::{builtin, builtin_modules, ALLOWLIST, GUARDED};

    #[test]
    fn the_allowlist_binds_what_steels_prelude_binds() {
        let merged = steel::steel_vm::primitives::prelude();
        let modules = builtin_modules();
        for name in ALLOWLIST.iter().chain(GUARDED.iter()) {
            assert_eq!(
                builtin(&modules, name),
                merged.try_get(name.to_string()),
                "{name}"
            );
        }
    }
}

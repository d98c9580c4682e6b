//! The `steel.sandbox.v1` bindings: the allowlist of Steel's pure primitives,
//! tusk's own natives (captured output, allocation checks, host calls), and the
//! bundled prelude. Nothing else is bound in a sandbox engine.

use super::convert;
use super::memory;
use super::printer;
use super::worker::{RunShared, HOOKS};
use super::{Breach, HostBridge};
use std::sync::Arc;
use steel::rerrs::ErrorKind;
use steel::rvals::{Result as SteelResult, SteelVal};
use steel::steel_vm::engine::Engine;
use steel::SteelErr;

/// The prelude, compiled into every prepared engine.
pub const PRELUDE: &str = include_str!("../../scheme/prelude.scm");

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
    "string-join",
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
    "hash-ref",
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
    "display",
    "displayln",
    "write",
    "newline",
    "->string",
    "host-call",
    "host-actions",
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
    names.extend(prelude_definitions(PRELUDE));
    names.sort();
    names.dedup();
    names
}

/// Names the prelude defines at top level (`(define (name`, `(define name`,
/// `(define-syntax name`), without its internal `tusk-` helpers.
fn prelude_definitions(prelude: &str) -> Vec<String> {
    prelude
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("(define-syntax ")
                .or_else(|| line.strip_prefix("(define "))?;
            let rest = rest.trim_start_matches('(');
            let name: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, '(' | ')'))
                .collect();
            (!name.is_empty() && !name.starts_with("tusk-")).then_some(name)
        })
        .collect()
}

/// Primitives the prelude wraps with an allocation check; bound as `tusk-raw-<name>`.
const GUARDED: &[&str] = &[
    "make-vector",
    "make-string",
    "string-append",
    "string-replace",
    "expt",
    "arithmetic-shift",
    "range",
];

fn err(message: impl Into<String>) -> SteelErr {
    SteelErr::new(ErrorKind::Generic, message.into())
}

fn native(
    engine: &mut Engine,
    name: &str,
    f: impl Fn(&[SteelVal]) -> SteelResult<SteelVal> + Send + Sync + 'static,
) {
    engine.register_value(name, SteelVal::anonymous_boxed_function(Arc::new(f)));
}

fn with_shared<R>(f: impl FnOnce(&Arc<RunShared>, &Arc<dyn HostBridge>) -> R) -> Option<R> {
    HOOKS.with(|hooks| hooks.borrow().as_ref().map(|h| f(&h.shared, &h.bridge)))
}

/// Ends the run with `breach` at the next VM instruction and returns the error
/// that unwinds the current primitive.
fn breach(breach: Breach, message: &str) -> SteelErr {
    with_shared(|shared, _| shared.breach(breach));
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

/// Builds the prepared engine: allowlist, natives, one binding per host action
/// id, then the prelude. Called once per worker; runs clone it.
pub fn build_engine(action_ids: &[String]) -> Result<Engine, SteelErr> {
    let mut engine = Engine::new_raw_no_kernel();
    let base = steel::steel_vm::primitives::prelude();
    for name in ALLOWLIST {
        if let Some(value) = base.try_get(name.to_string()) {
            engine.register_value(name, value);
        }
    }
    for name in GUARDED {
        if let Some(value) = base.try_get(name.to_string()) {
            engine.register_value(&format!("tusk-raw-{name}"), value);
        }
    }
    register_natives(&mut engine);
    for id in action_ids {
        let action = id.clone();
        native(&mut engine, id, move |args| host_call(&action, args));
    }
    let ids: Vec<String> = action_ids.to_vec();
    native(&mut engine, "host-actions", move |_| {
        Ok(SteelVal::ListV(
            ids.iter()
                .map(|id| SteelVal::StringV(id.clone().into()))
                .collect(),
        ))
    });
    engine.run(PRELUDE)?;
    Ok(engine)
}

fn host_call(action: &str, args: &[SteelVal]) -> SteelResult<SteelVal> {
    let (json_args, args_error) = match args {
        [] | [SteelVal::Void] => (None, None),
        [one @ SteelVal::HashMapV(_)] => match convert::args_to_json(one) {
            Ok(v) => (Some(v), None),
            Err(e) => (Some(convert::value_to_json(one)), Some(e)),
        },
        [one] => (
            Some(convert::value_to_json(one)),
            Some(convert::ConvertError {
                path: String::new(),
                reason: "host functions take no argument or one hash".into(),
            }),
        ),
        many => (
            Some(serde_json::Value::Array(
                many.iter().map(convert::value_to_json).collect(),
            )),
            Some(convert::ConvertError {
                path: String::new(),
                reason: format!(
                    "host functions take at most one argument, got {}",
                    many.len()
                ),
            }),
        ),
    };
    // Host calls do I/O under shared locks: they must never be frozen by the
    // allocator's runaway guard half-way.
    let reply = memory::unguarded(|| {
        with_shared(|shared, bridge| (shared.clone(), bridge.call(action, json_args, args_error)))
    });
    match reply {
        Some((shared, reply)) => {
            if let Some(b) = reply.breach {
                shared.breach(b);
            }
            Ok(convert::json_to_value(&reply.envelope))
        }
        None => Err(err(
            "host functions are only available while a program runs",
        )),
    }
}

fn emit(text: &str) {
    memory::unguarded(|| with_shared(|shared, _| shared.write_output(text)));
}

fn register_natives(engine: &mut Engine) {
    // Steel binds `void` to the void *value*; Scheme programs call `(void)`.
    native(engine, "void", |_| Ok(SteelVal::Void));
    native(engine, "display", |args| {
        let text = args
            .first()
            .map(|v| printer::render(v, false, 1 << 20))
            .unwrap_or_default();
        emit(&text);
        Ok(SteelVal::Void)
    });
    native(engine, "displayln", |args| {
        let mut text = args
            .first()
            .map(|v| printer::render(v, false, 1 << 20))
            .unwrap_or_default();
        text.push('\n');
        emit(&text);
        Ok(SteelVal::Void)
    });
    native(engine, "write", |args| {
        let text = args
            .first()
            .map(|v| printer::render(v, true, 1 << 20))
            .unwrap_or_default();
        emit(&text);
        Ok(SteelVal::Void)
    });
    native(engine, "newline", |_| {
        emit("\n");
        Ok(SteelVal::Void)
    });
    native(engine, "->string", |args| {
        let text = args
            .first()
            .map(|v| printer::render(v, false, 1 << 20))
            .unwrap_or_default();
        Ok(SteelVal::StringV(text.into()))
    });
    native(engine, "host-call", |args| match args.split_first() {
        Some((SteelVal::StringV(id), rest)) | Some((SteelVal::SymbolV(id), rest)) => {
            host_call(id.as_str(), rest)
        }
        _ => Err(err(
            "host-call needs an action id string, then optionally one hash of arguments",
        )),
    });
    native(engine, "tusk-reserve!", |args| {
        let bytes = args.first().and_then(as_usize).unwrap_or(0);
        if memory::would_exceed(bytes) {
            Err(breach(
                Breach::Memory,
                "memory limit exceeded: the allocation would exceed the run's memory budget",
            ))
        } else {
            Ok(SteelVal::Void)
        }
    });
    native(engine, "tusk-int", |args| match args.first() {
        Some(v @ (SteelVal::IntV(_) | SteelVal::BigNum(_))) => Ok(v.clone()),
        _ => Err(err("expected an exact integer size")),
    });
    native(engine, "tusk-total-length", |args| {
        let total = match args.first() {
            Some(SteelVal::ListV(parts)) => parts
                .iter()
                .map(text_len)
                .fold(0usize, usize::saturating_add),
            _ => 0,
        };
        Ok(SteelVal::IntV(total.min(isize::MAX as usize) as isize))
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

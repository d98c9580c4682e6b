//! The names models reach for first (issue 46): Racket's, R7RS's and
//! SRFI-13's spellings of what a program here does, bound as natives where
//! they need no callback into Scheme (`format`, `printf`, `string-split`,
//! `hash-keys`, …) and in `scheme/prelude.scm` where they take procedures
//! (`hash-ref` with a failure thunk, `for/list`, `append-map`, …).
//!
//! Rules every one keeps: pure and deterministic (walkers of hashes go in
//! the canonical order, [`super::order`]); an allocation larger than its
//! arguments is asked of the memory budget first; no argument is silently
//! ignored (a wrong count is an arity error naming what the procedure
//! takes); and an error says what to write instead.
//!
//! [`OTHER_SCHEMES`] maps names this dialect does not bind to what to write
//! instead; an unbound identifier's error quotes it.

use super::memory;
use super::order;
use super::primitives::{err, memory_breach, native};
use super::printer;
use steel::rerrs::ErrorKind;
use steel::rvals::{Result as SteelResult, SteelVal};
use steel::steel_vm::engine::Engine;
use steel::SteelErr;

fn arity_error(name: &str, takes: &str, got: usize) -> SteelErr {
    SteelErr::new(
        ErrorKind::ArityMismatch,
        format!("{name} takes {takes}, got {got} argument(s)"),
    )
}

fn type_error(name: &str, wanted: &str, got: &SteelVal, fix: &str) -> SteelErr {
    SteelErr::new(
        ErrorKind::TypeMismatch,
        format!(
            "{name} expects {wanted}, found {}{fix}",
            printer::render(got, true, 200)
        ),
    )
}

fn string_of<'a>(name: &str, v: &'a SteelVal, which: &str) -> SteelResult<&'a str> {
    match v {
        SteelVal::StringV(s) => Ok(s.as_str()),
        other => Err(type_error(
            name,
            &format!("a string as its {which}"),
            other,
            " (->string or number->string turn a value into a string)",
        )),
    }
}

pub(super) fn reserve(bytes: usize) -> SteelResult<()> {
    if memory::would_exceed(bytes) {
        return Err(memory_breach(
            "memory limit exceeded: the allocation would exceed the run's memory budget",
        ));
    }
    Ok(())
}

/// Racket's `format`: `~a` (display), `~s` and `~v` (write), `~n` and `~%`
/// (newline), `~~` (a tilde). Every directive takes one argument, and every
/// argument must be used.
pub(crate) fn format(name: &str, args: &[SteelVal]) -> SteelResult<String> {
    let Some((template, rest)) = args.split_first() else {
        return Err(arity_error(
            name,
            "a template string and one argument per ~a",
            0,
        ));
    };
    let template = string_of(name, template, "first argument (the template)")?;
    let budget = super::MAX_MESSAGE_BYTES.max(1 << 20);
    let mut out = String::new();
    let mut used = 0;
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a' | 'A' | 's' | 'S' | 'v' | 'V' | 'e' | 'E') if used >= rest.len() => {
                return Err(err(format!(
                    "{name}: the template {} has more ~a directives than the {} argument(s) given",
                    printer::render(&args[0], true, 200),
                    rest.len()
                )))
            }
            Some(d @ ('a' | 'A' | 's' | 'S' | 'v' | 'V' | 'e' | 'E')) => {
                let write = !matches!(d, 'a' | 'A');
                let text = printer::render(&rest[used], write, budget);
                reserve(text.len())?;
                out.push_str(&text);
                used += 1;
            }
            Some('n' | '%') => out.push('\n'),
            Some('~') => out.push('~'),
            other => {
                return Err(err(format!(
                    "{name}: unknown directive ~{} in the template; use ~a (display), ~s (write), \
                     ~n (newline) or ~~ (a tilde)",
                    other.map(String::from).unwrap_or_default()
                )))
            }
        }
    }
    if used < rest.len() {
        return Err(err(format!(
            "{name}: {} argument(s) but the template has {used} ~a directive(s); add a ~a for each \
             value, or drop the extra values",
            rest.len()
        )));
    }
    Ok(out)
}

/// Splits on whitespace, or on `sep`, dropping empty pieces at the ends
/// (Racket's `string-split` with `#:trim? #t`).
fn string_split(args: &[SteelVal]) -> SteelResult<SteelVal> {
    // (tusk-string-split s [sep [trim? [repeat?]]]): the prelude's
    // `string-split` passes Racket's #:trim? and #:repeat? here; a separator
    // of #f is whitespace.
    let name = "string-split";
    let (s, rest) = match args.split_first() {
        Some((s, rest)) if rest.len() <= 3 => (string_of(name, s, "first argument")?, rest),
        _ => {
            return Err(arity_error(
                name,
                "a string and optionally a separator string",
                args.len(),
            ))
        }
    };
    let sep = match rest.first() {
        None | Some(SteelVal::BoolV(false)) => None,
        Some(sep) => Some(string_of(name, sep, "separator")?),
    };
    let flag = |i: usize, default: bool| match rest.get(i) {
        None => default,
        Some(v) => !matches!(v, SteelVal::BoolV(false)),
    };
    let (trim, repeat) = (flag(1, true), flag(2, false));
    reserve(s.len().saturating_mul(2))?;
    let pieces: Vec<&str> = match sep {
        None if trim => s.split_whitespace().collect(),
        None => s.split(char::is_whitespace).collect(),
        Some("") => {
            return Err(err(
                "string-split: the separator is empty; give a non-empty one, or use \
                 string->list for characters",
            ))
        }
        Some(sep) => {
            let mut pieces: Vec<&str> = s.split(sep).collect();
            if repeat {
                // Separators in a row count as one (the ends stay for #:trim?).
                let n = pieces.len();
                pieces = pieces
                    .into_iter()
                    .enumerate()
                    .filter(|(i, p)| !p.is_empty() || *i == 0 || *i + 1 == n)
                    .map(|(_, p)| p)
                    .collect();
            }
            if trim {
                while pieces.first().is_some_and(|p| p.is_empty()) {
                    pieces.remove(0);
                }
                while pieces.last().is_some_and(|p| p.is_empty()) {
                    pieces.pop();
                }
            }
            pieces
        }
    };
    Ok(SteelVal::ListV(
        pieces
            .into_iter()
            .map(|p| SteelVal::StringV(p.into()))
            .collect(),
    ))
}

/// Racket's `string-join`: the strings with `sep` (default a space) between.
fn string_join(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let (items, sep) = match args {
        [items] => (items, " "),
        [items, sep] => (items, string_of("string-join", sep, "separator")?),
        _ => {
            return Err(arity_error(
                "string-join",
                "a list of strings and optionally a separator, (string-join names \", \")",
                args.len(),
            ))
        }
    };
    let SteelVal::ListV(items) = items else {
        return Err(type_error("string-join", "a list of strings", items, ""));
    };
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let SteelVal::StringV(s) = item else {
            return Err(type_error(
                "string-join",
                &format!("a list of strings, and item {i}"),
                item,
                " is not one: (map ->string items) makes strings of any values",
            ));
        };
        if i > 0 {
            out.push_str(sep);
        }
        reserve(s.len() + sep.len())?;
        out.push_str(s.as_str());
    }
    Ok(SteelVal::StringV(out.into()))
}

/// `(name s affix)`, Racket's order: does `s` start (or end) with `affix`?
fn affix(name: &'static str, starts: bool) -> impl Fn(&[SteelVal]) -> SteelResult<SteelVal> {
    move |args| match args {
        [s, a] => {
            let s = string_of(name, s, "first argument (the string)")?;
            let a = string_of(name, a, "second argument (the affix)")?;
            Ok(SteelVal::BoolV(if starts {
                s.starts_with(a)
            } else {
                s.ends_with(a)
            }))
        }
        _ => Err(arity_error(
            name,
            "a string and the affix to look for, (string-prefix? s \"ab\")",
            args.len(),
        )),
    }
}

fn hash_of<'a>(name: &str, v: &'a SteelVal) -> SteelResult<&'a steel::HashMap<SteelVal, SteelVal>> {
    match v {
        SteelVal::HashMapV(m) => Ok(m),
        other => Err(type_error(name, "a hash", other, not_a_hash_hint(other))),
    }
}

/// What a program most likely did to get `v` where a hash was wanted.
fn not_a_hash_hint(v: &SteelVal) -> &'static str {
    match v {
        SteelVal::BoolV(false) => {
            " (hash-ref* gives #f when a key is missing, and a rejected call's payload has no \
             result keys: check (accepted? e) first)"
        }
        SteelVal::ListV(_) => " (a list of hashes: take one with car or map over them)",
        _ => "",
    }
}

/// Keys of a hash as an error may list them: sorted, at most 256 bytes
/// (a message stays short however large the hash).
fn key_list(map: &steel::HashMap<SteelVal, SteelVal>) -> String {
    let mut out = String::new();
    let entries = order::entries(map);
    for (i, (k, _)) in entries.iter().enumerate() {
        let shown = printer::render(k, true, 200);
        if out.len() + shown.len() > 256 {
            out.push_str(&format!(", … {} more", entries.len() - i));
            break;
        }
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&shown);
    }
    out
}

fn text(map: &steel::HashMap<SteelVal, SteelVal>, key: &str) -> Option<String> {
    match map.get(&SteelVal::StringV(key.into())) {
        Some(SteelVal::StringV(s)) => Some(s.as_str().to_string()),
        Some(SteelVal::ListV(items)) => Some(
            items
                .iter()
                .map(|v| printer::render(v, false, 200))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    }
}

/// The words that say what the hash a key is missing from is: an envelope,
/// a rejected call's payload, or a plain hash; and what to write.
fn miss_context(map: &steel::HashMap<SteelVal, SteelVal>, key: &SteelVal) -> String {
    if let (Some(class), true) = (
        text(map, "resultClass"),
        map.contains_key(&SteelVal::StringV("payload".into())),
    ) {
        return format!(
            "; this hash is a host call's envelope (resultClass {class:?}): the action's result is \
             under \"payload\", (payload e), and (hash-ref* e \"payload\" {}) follows both",
            printer::render(key, true, 200)
        );
    }
    if text(map, "result").as_deref() == Some("rejected") {
        let classes = text(map, "failureClasses").unwrap_or_default();
        let why = text(map, "diagnostic").unwrap_or_default();
        return format!(
            "; this hash is the payload of a REJECTED call ({classes}: {}), which carries no \
             result: test (accepted? e) before reading (payload e)",
            super::cap_text(&why, 300)
        );
    }
    String::new()
}

/// Names a program gives the list a view holds; tusk's views call it `items`.
const LIST_NAMES: [&str; 7] = [
    "issues", "results", "list", "rows", "data", "entries", "records",
];

/// The value of `key` in `map`, also when the program wrote the key in
/// another case style (`issue_type` finds `issueType`: stores are beads'
/// snake_case, payloads camelCase) or named a view's list as models do
/// (`issues` finds `items`). Only an exact key or one unambiguous match
/// counts; docs/actions.md and `tusk prime` state the rule.
pub(crate) fn lookup<'m>(
    map: &'m steel::HashMap<SteelVal, SteelVal>,
    key: &SteelVal,
) -> Option<&'m SteelVal> {
    super::examined::note(map, key);
    if let Some(v) = map.get(key) {
        return Some(v);
    }
    let SteelVal::StringV(key) = key else {
        return None;
    };
    use crate::spelling::squash;
    let wanted = squash(key.as_str(), "_-");
    let mut found = map.iter().filter(|(k, _)| match k {
        SteelVal::StringV(k) => squash(k.as_str(), "_-") == wanted,
        _ => false,
    });
    if let (Some((_, v)), None) = (found.next(), found.next()) {
        return Some(v);
    }
    if LIST_NAMES.contains(&key.as_str()) {
        return map.get(&SteelVal::StringV("items".into()));
    }
    // `ready` finds `readyCount`: a count named by what it counts.
    match map.get(&SteelVal::StringV(format!("{}Count", key.as_str()).into())) {
        Some(n @ SteelVal::IntV(_)) => Some(n),
        _ => None,
    }
}

/// `(tusk-hash-find h k)`: `(list v)` when `k` is found ([`lookup`]), `'()`
/// when not: the prelude's `hash-ref` with a default.
fn hash_find(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let [h, key] = args else {
        return Err(arity_error(
            "hash-ref",
            "a hash, a key and a default",
            args.len(),
        ));
    };
    let map = hash_of("hash-ref", h)?;
    Ok(SteelVal::ListV(
        lookup(map, key).cloned().into_iter().collect(),
    ))
}

/// `(hash-ref* h k1 k2 …)`: follows the keys ([`lookup`]); `#f` as soon as
/// one is missing or a value on the way is not a hash.
fn hash_ref_star(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let Some((mut at, keys)) = args.split_first() else {
        return Err(arity_error("hash-ref*", "a hash and the keys to follow", 0));
    };
    for key in keys {
        let SteelVal::HashMapV(map) = at else {
            return Ok(SteelVal::BoolV(false));
        };
        match lookup(map, key) {
            Some(v) => at = v,
            None => return Ok(SteelVal::BoolV(false)),
        }
    }
    Ok(at.clone())
}

/// `hash-ref` (two arguments): the value, or an error that lists the hash's
/// keys, says what the hash is, and names the default form.
fn hash_ref(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let [h, key] = args else {
        return Err(arity_error(
            "hash-ref",
            "a hash, a key and optionally a default: (hash-ref h \"k\") or (hash-ref h \"k\" #f)",
            args.len(),
        ));
    };
    let map = hash_of("hash-ref", h)?;
    if let Some(v) = lookup(map, key) {
        return Ok(v.clone());
    }
    if let SteelVal::SymbolV(name) = key {
        if map.contains_key(&SteelVal::StringV(name.clone())) {
            return Err(err(format!(
                "hash-ref: key not found: the symbol '{0}; this hash's keys are strings: write \
                 (hash-ref h \"{0}\")",
                name.as_str()
            )));
        }
    }
    Err(err(format!(
        "hash-ref: key not found: {} (the hash has {} key(s): {}){}; for a key that may \
         be missing write (hash-ref h {} default) or (hash-ref* h {})",
        printer::render(key, true, 256),
        map.len(),
        key_list(map),
        miss_context(map, key),
        printer::render(key, true, 64),
        printer::render(key, true, 64),
    )))
}

/// A hash's keys (or values) in the canonical order.
fn walk(name: &'static str, keys: bool) -> impl Fn(&[SteelVal]) -> SteelResult<SteelVal> {
    move |args| {
        let [h] = args else {
            return Err(arity_error(name, "one hash", args.len()));
        };
        let entries = order::entries(hash_of(name, h)?);
        Ok(SteelVal::ListV(
            entries
                .into_iter()
                .map(|(k, v)| if keys { k.clone() } else { v.clone() })
                .collect(),
        ))
    }
}

/// `string-append` of strings only, asked of the memory budget first; a
/// value that is not a string is named, with the way to make it one.
fn string_append(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let mut total = 0usize;
    for (i, a) in args.iter().enumerate() {
        match a {
            SteelVal::StringV(s) => total = total.saturating_add(s.len()),
            other => {
                return Err(SteelErr::new(
                    ErrorKind::TypeMismatch,
                    format!(
                        "string-append takes strings, and argument {} is {}, not a string: write \
                         (number->string n) or (->string v) for it, or build the whole text with \
                         (format \"~a items\" n)",
                        i + 1,
                        printer::render(other, true, 200)
                    ),
                ))
            }
        }
    }
    reserve(total)?;
    let mut out = String::with_capacity(total);
    for a in args {
        if let SteelVal::StringV(s) = a {
            out.push_str(s.as_str());
        }
    }
    Ok(SteelVal::StringV(out.into()))
}

/// `(tusk-decimal n digits)`: `n` with exactly `digits` digits after the
/// point (`real->decimal-string`, `~r`).
fn decimal(args: &[SteelVal]) -> SteelResult<SteelVal> {
    let [n, digits] = args else {
        return Err(arity_error(
            "real->decimal-string",
            "a number and a digit count",
            args.len(),
        ));
    };
    let value = match n {
        SteelVal::IntV(i) => *i as f64,
        SteelVal::NumV(f) => *f,
        SteelVal::Rational(r) => *r.numer() as f64 / *r.denom() as f64,
        SteelVal::BigNum(b) => b.to_string().parse::<f64>().unwrap_or(f64::NAN),
        other => return Err(type_error("real->decimal-string", "a number", other, "")),
    };
    let digits = match digits {
        SteelVal::IntV(d) if (0..=20).contains(d) => *d as usize,
        other => {
            return Err(type_error(
                "real->decimal-string",
                "a digit count from 0 to 20",
                other,
                "",
            ))
        }
    };
    Ok(SteelVal::StringV(format!("{value:.digits$}").into()))
}

/// Binds the natives of this dialect. `emit` writes captured output.
pub(crate) fn register(engine: &mut Engine, emit: fn(&str)) {
    native(engine, "format", |args| {
        Ok(SteelVal::StringV(format("format", args)?.into()))
    });
    native(engine, "printf", move |args| {
        emit(&format("printf", args)?);
        Ok(SteelVal::Void)
    });
    native(engine, "tusk-string-split", string_split);
    native(engine, "tusk-string-join", string_join);
    native(engine, "string-append", string_append);
    native(engine, "string-prefix?", affix("string-prefix?", true));
    native(engine, "string-suffix?", affix("string-suffix?", false));
    use super::hashes::unboxing;
    native(engine, "tusk-hash-ref", unboxing(hash_ref));
    native(engine, "tusk-hash-find", unboxing(hash_find));
    native(engine, "hash-ref*", unboxing(hash_ref_star));
    native(engine, "hash-keys", unboxing(walk("hash-keys", true)));
    native(engine, "hash-values", unboxing(walk("hash-values", false)));
    super::hashes::register(engine);
    native(engine, "tusk-decimal", decimal);
}

/// Names other Schemes (Racket, R7RS, SRFI-1/13/69, Guile) and Clojure bind
/// that this dialect does not, with what to write instead. An unbound
/// identifier's error quotes the advice.
pub const OTHER_SCHEMES: &[(&str, &str)] = &[
    (
        "make-hash-table",
        "hashes are immutable values: start from (hash) and add with (hash-set h k v)",
    ),
    ("hash-table-ref", "(hash-ref h k) or (hash-ref h k default)"),
    ("hash-table-ref/default", "(hash-ref h k default)"),
    (
        "hash-table-set!",
        "(hash-set h k v) returns the new hash; (set! h (hash-set h k v))",
    ),
    ("hash-table-keys", "(hash-keys h)"),
    ("hash-table-values", "(hash-values h)"),
    ("hash-table->alist", "(hash->list h)"),
    (
        "assoc-ref",
        "(hash-ref h k) on a hash; on an association list (cdr (assoc k alist))",
    ),
    ("string-search-forward", "(string-contains? s \"part\")"),
    ("string-empty?", "(equal? s \"\")"),
    ("string-search-all", "(string-contains? s \"part\")"),
    ("sprintf", "(format \"~a items\" n)"),
    (
        "print",
        "(displayln v); display, write and printf print too",
    ),
    ("println", "(displayln v)"),
    ("puts", "(displayln v)"),
    (
        "str",
        "(string-append \"a\" \"b\"), or (format \"~a~a\" x y) for any values",
    ),
    ("get", "(hash-ref h k) or (hash-ref h k default)"),
    ("get-in", "(hash-ref* h \"k1\" \"k2\")"),
    ("inc", "(add1 n)"),
    ("dec", "(sub1 n)"),
    ("nil", "'() for the empty list, #f for false"),
    ("null", "'() (the empty list); null? tests for it"),
    ("true", "#t"),
    ("false", "#f"),
    ("thunk", "(lambda () body ...)"),
    (
        "list-set!",
        "lists are immutable: (list-set lst i v) gives a new list with item i replaced",
    ),
    ("sort!", "(sort lst less?) returns the sorted list"),
    (
        "list-sort",
        "(sort lst less?): the list first, then the comparison",
    ),
    ("string-join-list", "(string-join lst \", \")"),
    (
        "current-time",
        "there is no clock in a program; a host call's envelope says when it acted",
    ),
    (
        "current-seconds",
        "there is no clock in a program; a host call's envelope says when it acted",
    ),
    (
        "random",
        "there is no randomness in a program: its result must replay",
    ),
];

#[cfg(test)]
mod tests {
    /// The table advises only on names the dialect leaves unbound: a bound
    /// name never reaches it.
    #[test]
    fn the_other_schemes_table_names_only_unbound_names() {
        let bound = super::super::program_names();
        for (name, _) in super::OTHER_SCHEMES {
            assert!(!bound.iter().any(|b| b == name), "{name} is bound");
        }
    }
}

//! `display`/`write` text for Scheme values.
//!
//! Steel's own `Display` recurses without a cycle check (a box that contains
//! itself overflows the native stack), so the sandbox prints values itself:
//! cycle-safe, depth-bounded, and output-size bounded.

use super::order;
use std::collections::HashSet;
use std::fmt::Write as _;
use steel::gc::ShareableMut;
use steel::rvals::SteelVal;

const MAX_DEPTH: usize = 256;

/// The message of an error object (a raised error a handler was given),
/// without Steel's kind prefix.
pub fn error_message(value: &SteelVal) -> Option<String> {
    let SteelVal::Custom(custom) = value else {
        return None;
    };
    let custom = custom.read();
    let error = steel::rvals::as_underlying_type::<steel::SteelErr>(custom.as_ref())?;
    let text = error.to_string();
    let text = text.strip_prefix("Error: ").unwrap_or(&text);
    // Steel writes the error's kind first (`TypeMismatch: …`).
    let text = match text.split_once(": ") {
        Some((kind, rest))
            if !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            rest
        }
        _ => text,
    };
    Some(text.trim().to_string())
}

/// Renders `value` as `display` (strings raw) or `write` (strings quoted) would,
/// stopping once `budget` bytes are produced.
pub fn render(value: &SteelVal, write_mode: bool, budget: usize) -> String {
    let mut out = String::new();
    let mut seen = HashSet::new();
    go(value, write_mode, 0, &mut seen, &mut out, budget);
    out
}

/// Writes `items` separated by spaces and a closing paren; false once the
/// budget is spent (the caller stops there).
fn seq<'a>(
    items: impl Iterator<Item = &'a SteelVal>,
    write_mode: bool,
    depth: usize,
    seen: &mut HashSet<usize>,
    out: &mut String,
    budget: usize,
) -> bool {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        go(item, write_mode, depth + 1, seen, out, budget);
        if out.len() >= budget {
            return false;
        }
    }
    out.push(')');
    true
}

fn go(
    v: &SteelVal,
    write_mode: bool,
    depth: usize,
    seen: &mut HashSet<usize>,
    out: &mut String,
    budget: usize,
) {
    if out.len() >= budget {
        return;
    }
    if depth > MAX_DEPTH {
        out.push_str("...");
        return;
    }
    match v {
        SteelVal::ListV(l) => {
            out.push('(');
            if !seq(l.iter(), write_mode, depth, seen, out, budget) {
                return;
            }
        }
        SteelVal::VectorV(items) => {
            out.push_str("#(");
            if !seq(items.iter(), write_mode, depth, seen, out, budget) {
                return;
            }
        }
        SteelVal::MutableVector(h) => {
            let id = h.as_ptr_usize();
            if !seen.insert(id) {
                out.push_str("#<cycle>");
                return;
            }
            let items: Vec<SteelVal> = h.borrow(|items| items.clone());
            out.push_str("#(");
            if !seq(items.iter(), write_mode, depth, seen, out, budget) {
                return;
            }
            seen.remove(&id);
        }
        SteelVal::HashMapV(map) => {
            out.push_str("#hash(");
            let entries = order::entries(map);
            if !hash_entries(entries, write_mode, depth, seen, out, budget) {
                return;
            }
        }
        SteelVal::HeapAllocated(h) => {
            let id = h.as_ptr_usize();
            if !seen.insert(id) {
                out.push_str("#<cycle>");
                return;
            }
            let inner = h.get();
            // A mutable hash (`make-hash`) is a box holding a hash: it
            // prints as the hash it holds, as Racket prints one.
            if matches!(inner, SteelVal::HashMapV(_)) {
                go(&inner, write_mode, depth, seen, out, budget);
            } else {
                out.push_str("#<box ");
                go(&inner, write_mode, depth + 1, seen, out, budget);
                out.push('>');
            }
            seen.remove(&id);
        }
        // A pair that is not a list, as Scheme writes it.
        SteelVal::Pair(p) => {
            out.push('(');
            go(&p.car(), write_mode, depth + 1, seen, out, budget);
            out.push_str(" . ");
            go(&p.cdr(), write_mode, depth + 1, seen, out, budget);
            out.push(')');
        }
        // Not constructible from the allowlist; the depth bound still ends any cycle.
        SteelVal::Boxed(b) => {
            let inner = b.read().clone();
            out.push_str("#<box ");
            go(&inner, write_mode, depth + 1, seen, out, budget);
            out.push('>');
        }
        _ => scalar(v, write_mode, out),
    }
    if out.len() > budget {
        let mut cut = budget;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
}

/// Writes map entries (keys always in `write` form) and the closing paren;
/// false once the budget is spent (the caller stops there).
fn hash_entries(
    entries: Vec<(&SteelVal, &SteelVal)>,
    write_mode: bool,
    depth: usize,
    seen: &mut HashSet<usize>,
    out: &mut String,
    budget: usize,
) -> bool {
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push('(');
        go(k, true, depth + 1, seen, out, budget);
        out.push_str(" . ");
        go(v, write_mode, depth + 1, seen, out, budget);
        out.push(')');
        if out.len() >= budget {
            return false;
        }
    }
    out.push(')');
    true
}

/// Writes a value that holds no other values.
fn scalar(v: &SteelVal, write_mode: bool, out: &mut String) {
    match v {
        SteelVal::Void => out.push_str("#<void>"),
        SteelVal::BoolV(b) => out.push_str(if *b { "#t" } else { "#f" }),
        SteelVal::IntV(i) => {
            let _ = write!(out, "{i}");
        }
        SteelVal::NumV(f) => {
            if f.is_nan() {
                out.push_str("+nan.0")
            } else if f.is_infinite() {
                out.push_str(if *f > 0.0 { "+inf.0" } else { "-inf.0" })
            } else if f.fract() == 0.0 && f.abs() < 1e16 {
                let _ = write!(out, "{f:.1}");
            } else {
                let _ = write!(out, "{f}");
            }
        }
        SteelVal::Rational(r) => {
            let _ = write!(out, "{}/{}", r.numer(), r.denom());
        }
        SteelVal::BigNum(b) => {
            let _ = write!(out, "{}", b.as_ref());
        }
        SteelVal::CharV(c) => {
            if write_mode {
                let _ = write!(out, "#\\{c}");
            } else {
                out.push(*c);
            }
        }
        SteelVal::StringV(s) => {
            if write_mode {
                out.push_str(&serde_json::to_string(s.as_str()).unwrap_or_default());
            } else {
                out.push_str(s.as_str());
            }
        }
        SteelVal::SymbolV(s) => out.push_str(s.as_str()),
        SteelVal::Closure(_)
        | SteelVal::FuncV(_)
        | SteelVal::BoxedFunction(_)
        | SteelVal::BuiltIn(_)
        | SteelVal::MutFunc(_)
        | SteelVal::ContinuationFunction(_) => out.push_str("#<procedure>"),
        SteelVal::HashSetV(_) => out.push_str("#<set>"),
        // An error object (what `with-handler` and `with-handlers` give a
        // handler): its message, and `write` says what it is.
        other => match error_message(other) {
            Some(message) if write_mode => {
                let _ = write!(
                    out,
                    "#<error {}>",
                    serde_json::to_string(&message).unwrap_or_default()
                );
            }
            Some(message) => out.push_str(&message),
            None => out.push_str("#<value>"),
        },
    }
}

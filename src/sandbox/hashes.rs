//! Mutable hashes (issue 56): what Racket's `make-hash` gives, for programs
//! that build a table with `hash-set!` and `hash-update!`.
//!
//! Steel has only immutable hashes, so a mutable hash is a box holding one
//! (`(box (hash))`): `hash-set!` and friends (in `scheme/prelude.scm`) put a
//! new hash in the box. Everything that reads a hash — `hash-ref`,
//! `hash-keys`, `hash->list`, `hash-count`, `hash?`, the `for` forms, the
//! printer ([`super::printer`]) and the JSON conversion
//! ([`super::convert`]) — takes the box's hash, so a mutable hash is read,
//! walked (in the canonical order, [`super::order`]), printed and returned
//! exactly as an immutable one with the same entries.

use super::primitives::{err, native};
use std::borrow::Cow;
use steel::rvals::{Result as SteelResult, SteelVal};
use steel::steel_vm::engine::Engine;

/// The hash a mutable hash holds, when `v` is one.
pub(super) fn held(v: &SteelVal) -> Option<SteelVal> {
    match v {
        SteelVal::HeapAllocated(h) => {
            let inner = h.get();
            matches!(inner, SteelVal::HashMapV(_)).then_some(inner)
        }
        _ => None,
    }
}

/// `args` with each mutable hash replaced by the hash it holds.
pub(super) fn unboxed(args: &[SteelVal]) -> Cow<'_, [SteelVal]> {
    if !args.iter().any(|a| matches!(a, SteelVal::HeapAllocated(_))) {
        return Cow::Borrowed(args);
    }
    Cow::Owned(
        args.iter()
            .map(|a| held(a).unwrap_or_else(|| a.clone()))
            .collect(),
    )
}

/// `f` over arguments whose mutable hashes are read as their hashes.
pub(super) fn unboxing(
    f: impl Fn(&[SteelVal]) -> SteelResult<SteelVal> + Send + Sync + 'static,
) -> impl Fn(&[SteelVal]) -> SteelResult<SteelVal> + Send + Sync + 'static {
    move |args| f(&unboxed(args))
}

fn one_hash<'a>(
    name: &str,
    args: &'a [SteelVal],
    count: usize,
) -> SteelResult<&'a steel::HashMap<SteelVal, SteelVal>> {
    if args.len() != count {
        return Err(err(format!(
            "{name} takes {} argument(s), got {}",
            count,
            args.len()
        )));
    }
    match &args[0] {
        SteelVal::HashMapV(m) => Ok(m),
        other => Err(err(format!(
            "{name} expects a hash, found {}",
            super::printer::render(other, true, 200)
        ))),
    }
}

/// Binds the readers Steel defines over its own hashes again, over both kinds.
pub(super) fn register(engine: &mut Engine) {
    native(engine, "tusk-mutable-hash?", |args| {
        Ok(SteelVal::BoolV(args.first().and_then(held).is_some()))
    });
    native(engine, "hash?", |args| {
        Ok(SteelVal::BoolV(matches!(
            unboxed(args).first(),
            Some(SteelVal::HashMapV(_))
        )))
    });
    native(
        engine,
        "hash-contains?",
        unboxing(|args| {
            let map = one_hash("hash-contains?", args, 2)?;
            Ok(SteelVal::BoolV(map.contains_key(&args[1])))
        }),
    );
    native(
        engine,
        "hash-length",
        unboxing(|args| {
            let map = one_hash("hash-length", args, 1)?;
            Ok(SteelVal::IntV(map.len() as isize))
        }),
    );
    native(
        engine,
        "hash-empty?",
        unboxing(|args| {
            let map = one_hash("hash-empty?", args, 1)?;
            Ok(SteelVal::BoolV(map.is_empty()))
        }),
    );
    native(
        engine,
        "hash-try-get",
        unboxing(|args| {
            let map = one_hash("hash-try-get", args, 2)?;
            Ok(map.get(&args[1]).cloned().unwrap_or(SteelVal::BoolV(false)))
        }),
    );
}

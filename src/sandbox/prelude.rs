//! The prelude's forms (`scheme/prelude.scm`), compiled all at once in a
//! server's template, or only the forms a program can reach when the
//! process runs one program (`tusk eval`).
//!
//! Compiling the whole prelude is most of a cold run's engine build (about
//! 6 ms of it), and a one-call program such as `(issue.ready)` reaches none
//! of it. So a template started for one run compiles nothing of the
//! prelude, and its worker compiles, just before the program, the forms the
//! program names and, transitively, the forms those name (any token of a
//! form that is a prelude name counts, so the set is never too small for the
//! text it was taken from). Should the program still fail to compile, the
//! rest of the prelude is compiled and the program compiled again, so what a
//! program sees never depends on the choice.
//!
//! **Determinism.** A closure hashes by the number its lambda got when it
//! was compiled, which a program can observe (the order of closure keys in a
//! hash). Each form is therefore compiled from its own base
//! ([`FORM_IDS`] + index × [`FORM_STRIDE`]) and every program from
//! [`PROGRAM_IDS`], with the counter put back after each form: a program's
//! lambdas, and the prelude's, get the same numbers however much of the
//! prelude its process compiled (vendor/steel-core/TUSK_PATCHES.md §4).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use steel::compiler::code_gen::{function_id_counter, set_function_id_counter};
use steel::parser::lexer::TokenStream;
use steel::parser::tokens::TokenType;
use steel::steel_vm::engine::Engine;
use steel::SteelErr;

/// The prelude every program sees (Scheme source).
pub const PRELUDE: &str = include_str!("../../scheme/prelude.scm");

/// Lambda numbers of prelude form `i` start at `FORM_IDS + i * FORM_STRIDE`.
/// Steel carries a lambda's number in a 24-bit instruction payload, so every
/// range stays well below 2^24 (the programs' has 14 million numbers).
const FORM_IDS: usize = 1 << 20;
/// Room for one form's lambdas (a unit test checks every form fits).
const FORM_STRIDE: usize = 1 << 10;
/// Lambda numbers of a worker's first program start here; later programs of
/// a session go on from where the last one stopped.
const PROGRAM_IDS: usize = 1 << 21;

/// One top-level form of the prelude.
struct Form {
    text: &'static str,
    /// The name it defines.
    name: &'static str,
    /// Indices of the forms whose names this form's tokens mention.
    uses: Vec<usize>,
}

struct Forms {
    forms: Vec<Form>,
    /// Defined name → the forms defining it.
    by_name: HashMap<&'static str, Vec<usize>>,
}

fn forms() -> &'static Forms {
    static FORMS: OnceLock<Forms> = OnceLock::new();
    FORMS.get_or_init(|| {
        let named: Vec<(&'static str, &'static str)> = split(PRELUDE)
            .into_iter()
            .map(|text| {
                (
                    text,
                    defined_name(text).expect("every prelude form defines a name"),
                )
            })
            .collect();
        let mut by_name: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for (i, (_, name)) in named.iter().enumerate() {
            by_name.entry(name).or_default().push(i);
        }
        let forms = named
            .into_iter()
            .map(|(text, name)| {
                let mut uses: Vec<usize> = names(text)
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|n| by_name.get(n.as_str()))
                    .flatten()
                    .copied()
                    .collect();
                uses.sort_unstable();
                uses.dedup();
                Form { text, name, uses }
            })
            .collect();
        Forms { forms, by_name }
    })
}

/// Set before the template starts in a process that runs one program: the
/// template then compiles no prelude form, and the worker those its program
/// reaches.
static ON_DEMAND: AtomicBool = AtomicBool::new(false);

/// Compile prelude forms when a program needs them (see [`ON_DEMAND`]).
pub(crate) fn set_on_demand() {
    ON_DEMAND.store(true, Ordering::Relaxed);
}

/// Whether the template leaves the prelude to its workers.
pub(crate) fn on_demand() -> bool {
    ON_DEMAND.load(Ordering::Relaxed)
}

thread_local! {
    /// Which forms this engine has compiled. Set in the template and
    /// inherited by each worker's fork along with the engine.
    static COMPILED: RefCell<Vec<bool>> = const { RefCell::new(Vec::new()) };
}

/// Splits `text` into its top-level forms, on Steel's own tokens.
fn split(text: &'static str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for token in TokenStream::new(text, true, None) {
        let token = token.expect("the prelude lexes");
        match token.ty {
            TokenType::OpenParen(..) => {
                if depth == 0 {
                    start = token.span.start as usize;
                }
                depth += 1;
            }
            TokenType::CloseParen(_) => {
                depth -= 1;
                if depth == 0 {
                    out.push(&text[start..token.span.end as usize]);
                }
            }
            _ => {}
        }
    }
    out
}

/// The name a `(define (name …) …)`, `(define name …)` or
/// `(define-syntax name …)` form defines.
fn defined_name(form: &'static str) -> Option<&'static str> {
    let mut tokens = TokenStream::new(form, true, None).filter_map(Result::ok);
    tokens.next()?;
    match tokens.next()?.ty {
        TokenType::Define | TokenType::DefineSyntax => {}
        _ => return None,
    }
    let mut next = tokens.next()?;
    if matches!(next.ty, TokenType::OpenParen(..)) {
        next = tokens.next()?;
    }
    next.ty.identifier()?;
    Some(&form[next.span.start as usize..next.span.end as usize])
}

/// The identifiers `text` mentions, with the reader's prefixes as the names
/// they stand for (`` ` `` is `quasiquote`). `None` when Steel cannot lex it:
/// the caller then takes every form.
fn names(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for token in TokenStream::new(text, true, None) {
        match token.ok()?.ty {
            TokenType::Identifier(name) => out.push(name.resolve().to_string()),
            TokenType::QuasiQuote | TokenType::QuasiQuoteSyntax => out.push("quasiquote".into()),
            TokenType::Unquote | TokenType::UnquoteSyntax => out.push("unquote".into()),
            TokenType::UnquoteSplice | TokenType::UnquoteSpliceSyntax => {
                out.push("unquote-splicing".into())
            }
            _ => {}
        }
    }
    Some(out)
}

/// The forms `program` can reach, in prelude order.
fn reached(program: &str) -> Vec<usize> {
    let forms = forms();
    let Some(mut names) = names(program) else {
        return (0..forms.forms.len()).collect();
    };
    // racket/match's forms are rewritten before expansion into calls the
    // program's text does not name.
    if names
        .iter()
        .any(|n| super::matching::FORMS.contains(&n.as_str()))
    {
        names.extend(super::matching::USES.iter().map(|s| s.to_string()));
    }
    let mut seen = vec![false; forms.forms.len()];
    let mut stack: Vec<usize> = names
        .iter()
        .filter_map(|n| forms.by_name.get(n.as_str()))
        .flatten()
        .copied()
        .collect();
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut seen[i], true) {
            stack.extend(forms.forms[i].uses.iter().copied());
        }
    }
    (0..seen.len()).filter(|&i| seen[i]).collect()
}

/// Compiles the forms in `indices` this engine has not compiled yet, each
/// from its own lambda base, leaving the counter where it was.
fn compile(engine: &mut Engine, indices: impl IntoIterator<Item = usize>) -> Result<(), SteelErr> {
    let forms = &forms().forms;
    COMPILED.with(|c| {
        let mut compiled = c.borrow_mut();
        compiled.resize(forms.len(), false);
        let saved = function_id_counter();
        for i in indices {
            if compiled[i] {
                continue;
            }
            set_function_id_counter(FORM_IDS + i * FORM_STRIDE);
            let result = engine.run(forms[i].text);
            debug_assert!(
                function_id_counter() < FORM_IDS + (i + 1) * FORM_STRIDE,
                "prelude form {i} outgrew its lambda range"
            );
            set_function_id_counter(saved);
            result?;
            compiled[i] = true;
        }
        Ok(())
    })
}

/// Readies a template's engine: the whole prelude for a template that
/// serves many runs; for one run, only what every worker would otherwise
/// redo after its fork (reading the prelude's forms, and Steel's first
/// compilation, which builds its table of constant primitives: ~1.3 ms).
pub(crate) fn prepare(engine: &mut Engine) -> Result<(), SteelErr> {
    if !on_demand() {
        return compile_all(engine);
    }
    forms();
    numbers_given_back(|| engine.emit_raw_program_no_path("(+ 1 2)".to_string())).map(drop)
}

/// Runs `f` (a compilation that keeps nothing) and puts Steel's lambda
/// counter back where it was, so the programs after it are numbered as if
/// it had not happened.
fn numbers_given_back<T>(f: impl FnOnce() -> T) -> T {
    let saved = function_id_counter();
    let out = f();
    set_function_id_counter(saved);
    out
}

/// Readies a spare worker of a template that compiled the whole prelude,
/// before it reports ready, when runs are paced (`supervisor::Purpose`):
/// one small program compiled and run, so the pages Steel's compiler and VM
/// write are copied from the template now rather than on the first
/// program's clock (about 0.2 ms of a warm run in this VM). It defines
/// nothing, and its lambda numbers are given back, as [`prepare`]'s warm-up
/// is in a one-run template: a program sees the same engine either way.
pub(crate) fn warm_up(engine: &mut Engine) {
    if on_demand() {
        return;
    }
    numbers_given_back(|| {
        let program = "(hash-ref (hash \"a\" (list 1 \"b\")) \"a\")";
        if let Ok(compiled) = engine.emit_raw_program_no_path(program.to_string()) {
            let _ = engine.run_raw_program(compiled);
        }
    });
}

/// Compiles the whole prelude.
fn compile_all(engine: &mut Engine) -> Result<(), SteelErr> {
    compile(engine, 0..forms().forms.len())
}

/// Whether every form is compiled.
fn complete() -> bool {
    let total = forms().forms.len();
    COMPILED.with(|c| {
        let compiled = c.borrow();
        compiled.len() == total && compiled.iter().all(|&done| done)
    })
}

/// Compiles `program` (a worker's run): first the prelude forms it reaches
/// that are not compiled yet; on a compile error with part of the prelude
/// still missing, the rest of it, and the program again. Its lambdas are
/// numbered from [`PROGRAM_IDS`] (or on, in a session) on every attempt.
pub(crate) fn compile_program(
    engine: &mut Engine,
    program: &str,
) -> Result<steel::compiler::program::RawProgramWithSymbols, SteelErr> {
    if !complete() {
        super::memory::outside_budget(|| compile(engine, reached(program)))?;
    }
    let start = function_id_counter().max(PROGRAM_IDS);
    set_function_id_counter(start);
    match engine.emit_raw_program_no_path(program.to_string()) {
        Err(_) if !complete() => {
            super::memory::outside_budget(|| compile_all(engine))?;
            set_function_id_counter(start);
            engine.emit_raw_program_no_path(program.to_string())
        }
        result => result,
    }
}

/// The names the prelude defines at top level, in prelude order.
pub(crate) fn definitions() -> Vec<&'static str> {
    forms().forms.iter().map(|f| f.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_are_the_whole_prelude() {
        let forms = &forms().forms;
        assert!(forms.len() > 50, "{} forms", forms.len());
        // Between the forms there is only blank space and comments.
        let mut rest = PRELUDE;
        for form in forms {
            let at = rest.find(form.text).expect("in order");
            for line in rest[..at].lines() {
                let line = line.trim();
                assert!(line.is_empty() || line.starts_with(';'), "{line:?}");
            }
            rest = &rest[at + form.text.len()..];
        }
        assert!(rest.trim().is_empty());
        // Every form defines one name.
        for form in forms {
            assert_eq!(defined_name(form.text), Some(form.name), "{}", form.text);
        }
    }

    #[test]
    fn a_program_reaches_what_it_names_and_what_that_names() {
        let names = |program: &str| -> Vec<&str> {
            reached(program)
                .into_iter()
                .map(|i| forms().forms[i].name)
                .collect()
        };
        assert!(names("(issue.ready)").is_empty());
        assert!(names("\"map filter\" ; sort\n(+ 1 2)").is_empty());
        let sort = names("(sort (list 3 1 2) <)");
        for needed in ["sort", "tusk-sort-merge", "tusk-sort-split"] {
            assert!(sort.contains(&needed), "{sort:?}");
        }
        let quasi = names("`(1 ,(+ 1 1))");
        assert!(quasi.contains(&"quasiquote"), "{quasi:?}");
        // `cond` expands to `or`, `let*` and `if`; `or` must come along.
        let cond = names("(cond [(= 1 2) 1] [else 2])");
        assert!(cond.contains(&"or"), "{cond:?}");
        // Text Steel cannot lex reaches everything.
        assert_eq!(reached("(display \"open").len(), forms().forms.len());
    }
}

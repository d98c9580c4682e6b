//! racket/match's forms (issue 56, point 1): `match`, `match*`,
//! `match-define`, `match-let`, `match-let*`, `match-lambda` and
//! `match-lambda*`, rewritten on the parsed program before macro expansion
//! (vendored Steel's parsed-forms hook, TUSK_PATCHES §9) into plain Scheme
//! over the prelude's runtime matcher, `tusk-match` (scheme/prelude.scm,
//! "match").
//!
//! Steel's macros cannot tell a pattern variable from a literal, so the
//! pattern is compiled here: its variables become `let` bindings around the
//! clause's body, its expressions (a `?` predicate, an `app` procedure, a
//! hash key that is not a literal) are evaluated in the program's scope and
//! handed over in a list, and the rest is quoted data the matcher walks.
//! The program's own nodes (bodies, expressions, names) keep their places, so
//! an error inside a clause names its line; the scaffolding takes the match
//! form's place. A program that defines a name of the family itself keeps
//! its definition.
//!
//! Patterns: `_`, a name, a literal (string, number, boolean, character,
//! keyword), `'datum`, `(list p ...)` (one `...` or `___` per list, after
//! any element), `(list-rest p ... tail)` (or `list*`), `(cons a d)`,
//! `(vector p ...)`, `(hash-table (key p) ...)` and `(hash key p ...)`
//! (open: other keys may be present; a key is found in any case style),
//! `(? pred p ...)`, `(app f p ...)`, `(and p ...)`, `(or p ...)`,
//! `(not p)`, and quasi-patterns (`` `(add ,a ,b) ``). Clauses may carry
//! `#:when guard`. A name used twice must match equal values.

use steel::parser::ast::{ExprKind, List};
use steel::parser::span::Span;
use steel::parser::tokens::TokenType;
use steel::rerrs::{ErrorKind, SteelErr};

type Result<T> = std::result::Result<T, SteelErr>;

/// The forms this module rewrites.
pub const FORMS: [&str; 7] = [
    "match",
    "match*",
    "match-define",
    "match-let",
    "match-let*",
    "match-lambda",
    "match-lambda*",
];

/// The prelude names the rewritten forms call: a program that names a form
/// reaches them (src/sandbox/prelude.rs compiles only what a program
/// reaches).
pub const USES: [&str; 5] = [
    "tusk-match",
    "tusk-match-get",
    "tusk-match-fail",
    "define-values",
    "values",
];

/// What the patterns may be, for errors.
const PATTERNS: &str = "_, a name, a literal, 'datum, (list p ...), (list-rest p ... tail), \
                        (cons a d), (vector p ...), (hash-table (\"key\" p) ...), (? pred p ...), \
                        (app f p), (and p ...), (or p ...), (not p), `(sym ,p ...)";

/// The hook vendored Steel runs on every program's parsed forms.
///
/// # Errors
/// A malformed match form or pattern, with its place and the fix.
#[allow(clippy::ptr_arg)] // the hook's type is Steel's
pub fn rewrite(forms: &mut Vec<ExprKind>) -> steel::rvals::Result<()> {
    let mut defined = Vec::new();
    for form in forms.iter() {
        defined_names(form, &mut defined);
    }
    let active: Vec<&str> = FORMS
        .iter()
        .copied()
        .filter(|f| !defined.iter().any(|d| d == f))
        .collect();
    if active.is_empty() || !forms.iter().any(|f| mentions(f, &active)) {
        return Ok(());
    }
    for form in forms.iter_mut() {
        walk(form, &active)?;
    }
    Ok(())
}

/// The identifier an atom is (special tokens by their text).
fn name(expr: &ExprKind) -> Option<String> {
    let ExprKind::Atom(atom) = expr else {
        return None;
    };
    Some(match &atom.syn.ty {
        TokenType::Identifier(s) => s.resolve().to_string(),
        TokenType::Ellipses => "...".to_string(),
        TokenType::Quote => "quote".to_string(),
        TokenType::Define => "define".to_string(),
        TokenType::Lambda => "lambda".to_string(),
        _ => return None,
    })
}

fn head(list: &List) -> Option<String> {
    list.args.first().and_then(name)
}

/// Names the program defines itself (`(define match …)`, `(define (match …) …)`).
fn defined_names(expr: &ExprKind, out: &mut Vec<String>) {
    let ExprKind::List(list) = expr else {
        return;
    };
    if head(list).as_deref() == Some("define") {
        match list.args.get(1) {
            Some(ExprKind::List(sig)) => out.extend(sig.args.first().and_then(name)),
            Some(other) => out.extend(name(other)),
            None => {}
        }
    }
    for arg in &list.args {
        defined_names(arg, out);
    }
}

fn mentions(expr: &ExprKind, active: &[&str]) -> bool {
    match expr {
        ExprKind::List(list) => {
            head(list).is_some_and(|h| active.contains(&h.as_str()))
                || list.args.iter().any(|a| mentions(a, active))
        }
        _ => false,
    }
}

fn walk(expr: &mut ExprKind, active: &[&str]) -> Result<()> {
    let ExprKind::List(list) = expr else {
        return Ok(());
    };
    let h = head(list);
    if matches!(h.as_deref(), Some("quote" | "quasiquote")) {
        return Ok(());
    }
    for arg in list.args.iter_mut() {
        walk(arg, active)?;
    }
    if let Some(form) = h.filter(|h| active.contains(&h.as_str())) {
        let ExprKind::List(list) = std::mem::take(expr) else {
            unreachable!("matched as a list above")
        };
        *expr = expand(&form, list)?;
    }
    Ok(())
}

/// Where `expr` is: a list the reader built from a shorthand (`'x`, `,x`)
/// has no place of its own, so its first part's.
fn place(expr: &ExprKind) -> Span {
    match expr {
        ExprKind::List(l) if l.location.start == 0 && l.location.end == 0 => {
            l.args.first().map(place).unwrap_or(l.location)
        }
        other => other.span(),
    }
}

fn bad(span: Span, message: String) -> SteelErr {
    SteelErr::new(ErrorKind::BadSyntax, message).with_span(span)
}

fn expand(form: &str, list: List) -> Result<ExprKind> {
    let span = list.location;
    let mut args: Vec<ExprKind> = list.args.into_iter().skip(1).collect();
    match form {
        "match" => {
            if args.is_empty() {
                return Err(bad(
                    span,
                    "match: write (match value [pattern body ...] ...)".to_string(),
                ));
            }
            let subject = args.remove(0);
            match_form(span, subject, args)
        }
        "match*" => {
            let (subjects, clauses) = split_first_list(span, form, args)?;
            let n = subjects.len();
            let subject = call(span, "list", subjects);
            let clauses = clauses
                .into_iter()
                .map(|c| star_clause(span, c, n))
                .collect::<Result<Vec<_>>>()?;
            match_form(span, subject, clauses)
        }
        "match-lambda" | "match-lambda*" => {
            let arg = ExprKind::ident_with_span("tusk-match-arg", span);
            let body = match_form(span, arg.clone(), args)?;
            let params = if form == "match-lambda" {
                list_of(span, vec![arg])
            } else {
                arg
            };
            Ok(list_of(
                span,
                vec![special(span, TokenType::Lambda), params, body],
            ))
        }
        "match-let" | "match-let*" => {
            let (bindings, body) = split_first_list(span, form, args)?;
            let mut pairs = Vec::new();
            for b in bindings {
                match b {
                    ExprKind::List(l) if l.args.len() == 2 => {
                        let mut it = l.args.into_iter();
                        pairs.push((it.next().unwrap(), it.next().unwrap()));
                    }
                    other => {
                        return Err(bad(
                            place(&other),
                            format!("{form}: each binding is [pattern expression]"),
                        ))
                    }
                }
            }
            let body = let_body(span, body);
            if form == "match-let" {
                let (pats, exprs): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
                let clause = list_of(span, vec![call(span, "list", pats), body]);
                match_form(span, call(span, "list", exprs), vec![clause])
            } else {
                pairs.into_iter().rev().try_fold(body, |inner, (p, e)| {
                    match_form(span, e, vec![list_of(span, vec![p, inner])])
                })
            }
        }
        "match-define" => {
            if args.len() != 2 {
                return Err(bad(
                    span,
                    "match-define: write (match-define pattern expression)".to_string(),
                ));
            }
            let expr = args.pop().unwrap();
            let pattern = args.pop().unwrap();
            match_define(span, pattern, expr)
        }
        _ => unreachable!("FORMS lists the forms expand knows"),
    }
}

/// `(first-list rest ...)` of match*, match-let: the list's items and the rest.
fn split_first_list(
    span: Span,
    form: &str,
    mut args: Vec<ExprKind>,
) -> Result<(Vec<ExprKind>, Vec<ExprKind>)> {
    match args.first() {
        Some(ExprKind::List(_)) => {}
        _ => {
            return Err(bad(
                span,
                format!(
                    "{form}: write ({form} ({}) …)",
                    if form == "match*" {
                        "expr ..."
                    } else {
                        "[pattern expr] ..."
                    }
                ),
            ))
        }
    }
    let ExprKind::List(first) = args.remove(0) else {
        unreachable!()
    };
    Ok((first.args.into_iter().collect(), args))
}

/// A match* clause `[(p1 p2) body ...]` as a match clause on a list.
fn star_clause(span: Span, clause: ExprKind, n: usize) -> Result<ExprKind> {
    let ExprKind::List(l) = clause else {
        return Err(bad(
            place(&clause),
            "match*: each clause is [(pattern ...) body ...]".to_string(),
        ));
    };
    let mut items: Vec<ExprKind> = l.args.into_iter().collect();
    let pats = match items.first() {
        Some(ExprKind::List(p)) if p.args.len() == n => {
            let ExprKind::List(p) = items.remove(0) else {
                unreachable!()
            };
            p.args.into_iter().collect::<Vec<_>>()
        }
        _ => {
            return Err(bad(
                l.location,
                format!("match*: each clause starts with a list of {n} pattern(s), one per value"),
            ))
        }
    };
    items.insert(0, call(span, "list", pats));
    Ok(list_of(span, items))
}

/// A compiled pattern: the datum the matcher walks, its variables (in
/// order, once each), and the expressions it evaluates.
#[derive(Default)]
struct Compiled {
    vars: Vec<ExprKind>,
    procs: Vec<ExprKind>,
}

impl Compiled {
    fn var(&mut self, atom: &ExprKind) {
        if !self
            .vars
            .iter()
            .any(|v| name(v).as_deref() == name(atom).as_deref())
        {
            self.vars.push(atom.clone());
        }
    }

    fn proc(&mut self, expr: ExprKind, span: Span) -> ExprKind {
        self.procs.push(expr);
        ExprKind::integer_literal(self.procs.len() as isize - 1, span)
    }

    fn pattern(&mut self, p: ExprKind) -> Result<ExprKind> {
        let span = place(&p);
        match p {
            ExprKind::Atom(ref atom) => match &atom.syn.ty {
                TokenType::Identifier(s) if s.resolve() == "_" => {
                    Ok(ExprKind::ident_with_span("tusk-wild", span))
                }
                TokenType::Identifier(_) => {
                    self.var(&p);
                    Ok(p)
                }
                TokenType::Number(_)
                | TokenType::StringLiteral(_)
                | TokenType::BooleanLiteral(_)
                | TokenType::CharacterLiteral(_)
                | TokenType::Keyword(_) => Ok(p),
                _ => Err(bad(
                    span,
                    format!(
                        "match: `{}` is not a pattern; patterns: {PATTERNS}",
                        name(&p).unwrap_or_default()
                    ),
                )),
            },
            ExprKind::Quote(q) => Ok(literal(span, q.expr)),
            ExprKind::List(list) => self.compound(list),
            other => Err(bad(
                place(&other),
                format!("match: this is not a pattern; patterns: {PATTERNS}"),
            )),
        }
    }

    fn compound(&mut self, list: List) -> Result<ExprKind> {
        let span = place(&ExprKind::List(list.clone()));
        let h = head(&list);
        let mut args: Vec<ExprKind> = list.args.into_iter().collect();
        if args.is_empty() {
            return Err(bad(
                span,
                "match: () is not a pattern; the empty list is '() or (list)".to_string(),
            ));
        }
        args.remove(0);
        let h = h.unwrap_or_default();
        let out_head = |s: &str| ExprKind::ident_with_span(s, span);
        let mut out = Vec::new();
        match h.as_str() {
            "quote" if args.len() == 1 => return Ok(literal(span, args.pop().unwrap())),
            "quasiquote" if args.len() == 1 => return self.quasi(args.pop().unwrap()),
            "list" | "vector" => {
                out.push(out_head(&h));
                self.sequence(&h, args, &mut out)?;
            }
            "list-rest" | "list*" | "cons" => {
                if args.is_empty() || (h == "cons" && args.len() != 2) {
                    return Err(bad(
                        span,
                        format!(
                            "match: write (cons first rest) or (list-rest a b ... tail); found ({h} …) with {} part(s)",
                            args.len()
                        ),
                    ));
                }
                out.push(out_head("list-rest"));
                for a in args {
                    out.push(self.pattern(a)?);
                }
            }
            "and" | "or" | "not" => {
                if h == "not" && args.len() != 1 {
                    return Err(bad(span, "match: write (not pattern)".to_string()));
                }
                out.push(out_head(&h));
                for a in args {
                    out.push(self.pattern(a)?);
                }
            }
            "?" | "app" => {
                if args.is_empty() {
                    return Err(bad(
                        span,
                        format!("match: write ({h} procedure pattern ...)"),
                    ));
                }
                out.push(out_head(&h));
                let f = args.remove(0);
                let fspan = place(&f);
                out.push(self.proc(f, fspan));
                for a in args {
                    out.push(self.pattern(a)?);
                }
            }
            "hash-table" => {
                out.push(out_head("hash-table"));
                self.table_entries(args, span, &mut out)?;
            }
            "hash" => {
                out.push(out_head("hash-table"));
                self.flat_entries(args, span, &mut out)?;
            }
            _ => {
                let shown = if h.is_empty() {
                    "a list".to_string()
                } else {
                    format!("({h} …)")
                };
                return Err(bad(
                    span,
                    format!(
                        "match: {shown} is not a pattern (a list pattern is (list a b …), a pair \
                         (cons a d)); patterns: {PATTERNS}"
                    ),
                ));
            }
        }
        Ok(list_of(span, out))
    }

    /// `(hash-table (key p) ...)`'s entries, each `(key p)` compiled.
    fn table_entries(
        &mut self,
        args: Vec<ExprKind>,
        span: Span,
        out: &mut Vec<ExprKind>,
    ) -> Result<()> {
        for entry in args {
            if matches!(name(&entry).as_deref(), Some("..." | "___")) {
                continue;
            }
            match entry {
                ExprKind::List(kp) if kp.args.len() == 2 => {
                    let mut it = kp.args.into_iter();
                    let k = self.key(it.next().unwrap());
                    let p = self.pattern(it.next().unwrap())?;
                    out.push(list_of(span, vec![k, p]));
                }
                other => {
                    return Err(bad(
                        place(&other),
                        "match: a hash-table entry is (key pattern), e.g. (hash-table (\"id\" id))"
                            .to_string(),
                    ))
                }
            }
        }
        Ok(())
    }

    /// `(hash key p ...)`'s pairs, each compiled as a `(key p)` entry.
    fn flat_entries(
        &mut self,
        args: Vec<ExprKind>,
        span: Span,
        out: &mut Vec<ExprKind>,
    ) -> Result<()> {
        if !args.len().is_multiple_of(2) {
            return Err(bad(
                span,
                "match: write (hash key pattern ...), a pattern after each key".to_string(),
            ));
        }
        let mut it = args.into_iter();
        while let (Some(k), Some(p)) = (it.next(), it.next()) {
            let k = self.key(k);
            let p = self.pattern(p)?;
            out.push(list_of(span, vec![k, p]));
        }
        Ok(())
    }

    /// A list or vector pattern's items, with at most one `...` (after a
    /// pattern), as `tusk-ellipsis`.
    fn sequence(&mut self, h: &str, args: Vec<ExprKind>, out: &mut Vec<ExprKind>) -> Result<()> {
        let mut seen_ellipsis = false;
        for (i, a) in args.into_iter().enumerate() {
            if matches!(name(&a).as_deref(), Some("..." | "___")) {
                if i == 0 || seen_ellipsis {
                    return Err(bad(
                        place(&a),
                        format!("match: ({h} …) takes one `...`, after the pattern it repeats"),
                    ));
                }
                seen_ellipsis = true;
                out.push(ExprKind::ident_with_span("tusk-ellipsis", place(&a)));
            } else {
                out.push(self.pattern(a)?);
            }
        }
        Ok(())
    }

    /// A quasi-pattern's datum: `,p` is a pattern, a list a `(list …)` of
    /// quasi-patterns (`...` repeats), anything else itself.
    fn quasi(&mut self, d: ExprKind) -> Result<ExprKind> {
        let span = place(&d);
        match d {
            ExprKind::List(l) => match head(&l).as_deref() {
                Some("unquote" | "#%unquote") if l.args.len() == 2 => {
                    self.pattern(l.args.into_iter().nth(1).unwrap())
                }
                Some("unquote-splicing" | "#%unquote-splicing") => Err(bad(
                    span,
                    "match: ,@ is not a pattern; write (list a b ...) with `...`".to_string(),
                )),
                _ => {
                    let mut out = vec![ExprKind::ident_with_span("list", span)];
                    for item in l.args {
                        if matches!(name(&item).as_deref(), Some("..." | "___")) {
                            out.push(ExprKind::ident_with_span("tusk-ellipsis", span));
                        } else {
                            out.push(self.quasi(item)?);
                        }
                    }
                    Ok(list_of(span, out))
                }
            },
            ExprKind::Quote(q) => Ok(literal(
                span,
                list_of(span, vec![special(span, TokenType::Quote), q.expr]),
            )),
            other => Ok(literal(span, other)),
        }
    }

    /// A hash key: a literal or a quoted datum as data, anything else an
    /// expression evaluated in the program's scope.
    fn key(&mut self, k: ExprKind) -> ExprKind {
        let span = place(&k);
        match &k {
            ExprKind::Atom(a)
                if matches!(
                    a.syn.ty,
                    TokenType::StringLiteral(_)
                        | TokenType::Number(_)
                        | TokenType::BooleanLiteral(_)
                        | TokenType::CharacterLiteral(_)
                        | TokenType::Keyword(_)
                ) =>
            {
                k
            }
            ExprKind::Quote(_) => {
                let ExprKind::Quote(q) = k else {
                    unreachable!()
                };
                literal(span, q.expr)
            }
            ExprKind::List(l) if head(l).as_deref() == Some("quote") && l.args.len() == 2 => {
                let ExprKind::List(l) = k else { unreachable!() };
                literal(span, l.args.into_iter().nth(1).unwrap())
            }
            _ => {
                let index = self.proc(k, span);
                list_of(
                    span,
                    vec![ExprKind::ident_with_span("tusk-key", span), index],
                )
            }
        }
    }
}

/// `(tusk-lit datum)`: a quoted datum inside the pattern.
fn literal(span: Span, datum: ExprKind) -> ExprKind {
    list_of(
        span,
        vec![ExprKind::ident_with_span("tusk-lit", span), datum],
    )
}

fn list_of(span: Span, items: Vec<ExprKind>) -> ExprKind {
    let mut list = List::new(items.into());
    list.location = span;
    ExprKind::List(list)
}

fn call(span: Span, f: &str, args: Vec<ExprKind>) -> ExprKind {
    let mut items = vec![ExprKind::ident_with_span(f, span)];
    items.extend(args);
    list_of(span, items)
}

fn special(span: Span, ty: TokenType<steel::parser::interner::InternedString>) -> ExprKind {
    ExprKind::Atom(steel::parser::ast::Atom::new(
        steel::parser::parser::SyntaxObject::new(ty, span),
    ))
}

fn quote(span: Span, datum: ExprKind) -> ExprKind {
    list_of(span, vec![special(span, TokenType::Quote), datum])
}

/// `(let () body ...)`.
fn let_body(span: Span, body: Vec<ExprKind>) -> ExprKind {
    let mut items = vec![special(span, TokenType::Let), list_of(span, vec![])];
    items.extend(body);
    list_of(span, items)
}

/// `(let ([x (tusk-match-get tusk-match-b 'x)] ...) body ...)`.
fn bind_vars(span: Span, vars: &[ExprKind], body: Vec<ExprKind>) -> ExprKind {
    let bindings = vars
        .iter()
        .map(|v| {
            let get = call(
                span,
                "tusk-match-get",
                vec![
                    ExprKind::ident_with_span("tusk-match-b", span),
                    quote(span, v.clone()),
                ],
            );
            list_of(span, vec![v.clone(), get])
        })
        .collect();
    let mut items = vec![special(span, TokenType::Let), list_of(span, bindings)];
    items.extend(body);
    list_of(span, items)
}

/// `(tusk-match 'datum tusk-match-v (list proc ...))`.
fn attempt(span: Span, datum: ExprKind, procs: Vec<ExprKind>) -> ExprKind {
    call(
        span,
        "tusk-match",
        vec![
            quote(span, datum),
            ExprKind::ident_with_span("tusk-match-v", span),
            call(span, "list", procs),
        ],
    )
}

/// `(let ([name value]) body)`.
fn let1(span: Span, name: &str, value: ExprKind, body: ExprKind) -> ExprKind {
    let binding = list_of(span, vec![ExprKind::ident_with_span(name, span), value]);
    list_of(
        span,
        vec![
            special(span, TokenType::Let),
            list_of(span, vec![binding]),
            body,
        ],
    )
}

fn match_form(span: Span, subject: ExprKind, clauses: Vec<ExprKind>) -> Result<ExprKind> {
    let mut next = call(
        span,
        "tusk-match-fail",
        vec![ExprKind::ident_with_span("tusk-match-v", span)],
    );
    for clause in clauses.into_iter().rev() {
        next = match_clause(span, clause, next)?;
    }
    Ok(let1(span, "tusk-match-v", subject, next))
}

fn is_when(expr: &ExprKind) -> bool {
    matches!(expr, ExprKind::Atom(a) if matches!(&a.syn.ty, TokenType::Keyword(k) if k.resolve() == "#:when"))
}

fn match_clause(span: Span, clause: ExprKind, next: ExprKind) -> Result<ExprKind> {
    let cspan = place(&clause);
    let ExprKind::List(l) = clause else {
        return Err(bad(
            cspan,
            "match: each clause is [pattern body ...]".to_string(),
        ));
    };
    let mut items: Vec<ExprKind> = l.args.into_iter().collect();
    if items.is_empty() {
        return Err(bad(
            cspan,
            "match: an empty clause; write [pattern body ...]".to_string(),
        ));
    }
    let pattern = items.remove(0);
    let guard = if items.first().is_some_and(is_when) {
        items.remove(0);
        if items.is_empty() {
            return Err(bad(
                cspan,
                "match: #:when needs a guard expression".to_string(),
            ));
        }
        Some(items.remove(0))
    } else {
        None
    };
    if items.is_empty() {
        return Err(bad(
            cspan,
            "match: a clause needs a body after its pattern: [pattern body ...]".to_string(),
        ));
    }
    let mut compiled = Compiled::default();
    let datum = compiled.pattern(pattern)?;
    let vars = compiled.vars.clone();
    let test = match guard {
        None => ExprKind::ident_with_span("tusk-match-b", span),
        Some(g) => list_of(
            span,
            vec![
                special(span, TokenType::If),
                ExprKind::ident_with_span("tusk-match-b", span),
                bind_vars(span, &vars, vec![g]),
                ExprKind::bool_lit(false),
            ],
        ),
    };
    let chosen = list_of(
        span,
        vec![
            special(span, TokenType::If),
            test,
            bind_vars(span, &vars, items),
            next,
        ],
    );
    Ok(let1(
        span,
        "tusk-match-b",
        attempt(span, datum, compiled.procs),
        chosen,
    ))
}

/// `(define-values (x ...) (let ([tusk-match-v e]) (let ([tusk-match-b …])
/// (if tusk-match-b (values x ...) (tusk-match-fail tusk-match-v)))))`.
fn match_define(span: Span, pattern: ExprKind, expr: ExprKind) -> Result<ExprKind> {
    let mut compiled = Compiled::default();
    let datum = compiled.pattern(pattern)?;
    let vars = compiled.vars.clone();
    let values = bind_vars(span, &vars, vec![call(span, "values", vars.clone())]);
    let chosen = list_of(
        span,
        vec![
            special(span, TokenType::If),
            ExprKind::ident_with_span("tusk-match-b", span),
            values,
            call(
                span,
                "tusk-match-fail",
                vec![ExprKind::ident_with_span("tusk-match-v", span)],
            ),
        ],
    );
    let body = let1(
        span,
        "tusk-match-v",
        expr,
        let1(
            span,
            "tusk-match-b",
            attempt(span, datum, compiled.procs),
            chosen,
        ),
    );
    Ok(list_of(
        span,
        vec![
            ExprKind::ident_with_span("define-values", span),
            list_of(span, vars),
            body,
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<ExprKind> {
        steel::parser::parser::Parser::new(text, None)
            .without_lowering()
            .collect::<std::result::Result<Vec<_>, _>>()
            .unwrap()
    }

    fn expanded(text: &str) -> String {
        let mut forms = parse(text);
        rewrite(&mut forms).unwrap();
        forms
            .iter()
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_match_becomes_lets_over_the_matcher() {
        let out = expanded("(match v [(list a b) (+ a b)] [_ 0])");
        assert!(out.contains("tusk-match"), "{out}");
        assert!(!out.contains("(match "), "{out}");
    }

    #[test]
    fn a_program_that_defines_match_keeps_it() {
        let out = expanded("(define (match a b) (+ a b)) (match 1 2)");
        assert!(out.contains("(match 1 2)"), "{out}");
    }

    #[test]
    fn bad_patterns_say_what_patterns_are() {
        let mut forms = parse("(match v [(foo a) 1])");
        let e = rewrite(&mut forms).unwrap_err().to_string();
        assert!(
            e.contains("(foo …) is not a pattern") && e.contains("(list a b …)"),
            "{e}"
        );
    }
}

//! Splitting REPL input into top-level forms.
//!
//! The split runs on Steel's own token stream (as the lexical checks do), so
//! strings, `;` and `#| |#` comments, character literals such as `#\(`,
//! here-strings and `|escaped identifiers|` are read exactly as the evaluator
//! will read them: a form the REPL thinks is balanced is one the reader sees
//! as balanced.

use crate::sandbox::lexical::line_column;
use steel::parser::lexer::TokenStream;
use steel::parser::parser::ParseError;
use steel::parser::tokens::TokenType;

/// One complete top-level form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    /// Exactly the form's text: what runs and what the effect log records.
    pub text: String,
    /// Byte offset of the form in the input.
    pub start: usize,
}

/// What keeps the input from being complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Open {
    /// A list opened at this 1-based line and column is not closed.
    List { line: usize, column: usize },
    /// A string literal is not closed.
    String,
    /// A `#|` block comment is not closed.
    Comment,
    /// A `|escaped identifier` is not closed.
    Identifier,
    /// A quote or `#;` prefix still waits for its datum.
    Prefix,
}

/// The unfinished rest of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    /// Byte offset where the unfinished form starts.
    pub start: usize,
    pub open: Open,
}

/// The input cut into complete forms, plus whatever is still open at its end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub forms: Vec<Form>,
    pub pending: Option<Pending>,
}

impl Split {
    /// True when more input is needed to finish the last form.
    pub fn is_incomplete(&self) -> bool {
        self.pending.is_some()
    }
}

enum Prefix {
    /// `'`, `` ` ``, `,`, `,@` and their syntax forms: part of the next datum.
    Quote,
    /// `#;`: the next datum is a comment.
    Skip,
}

/// Cuts `text` into top-level forms. Comments and whitespace between forms
/// are dropped; a datum commented out with `#;` is dropped with its prefix.
/// A stray `)` is a form of its own, and text the lexer cannot read (other
/// than an unclosed string, comment or identifier) makes the rest of the input
/// one form: either way the evaluator reports the error with its position
/// instead of the REPL dropping text.
pub fn split(text: &str) -> Split {
    let mut splitter = Splitter {
        text,
        forms: Vec::new(),
        depth: 0,
        open_at: 0,
        prefixes: Vec::new(),
    };
    let mut consumed = 0usize;
    for token in TokenStream::new(text, true, None) {
        let token = match token {
            Ok(token) => token,
            Err(error) => {
                let at = error.span.start as usize;
                return splitter.unreadable(at, ParseError::from(error));
            }
        };
        let (start, end) = (token.span.start as usize, token.span.end as usize);
        // The lexer splits `+name` into two tokens over one span: count it once.
        if start < consumed {
            continue;
        }
        consumed = end;
        splitter.token(&token.ty, start, end);
    }
    splitter.finish()
}

/// The state of one [`split`]: the forms so far, the depth of the open
/// list and where it opened, and the prefixes waiting for their datum.
struct Splitter<'t> {
    text: &'t str,
    forms: Vec<Form>,
    depth: usize,
    open_at: usize,
    prefixes: Vec<(Prefix, usize)>,
}

impl Splitter<'_> {
    /// One token spanning `start..end`.
    fn token<S>(&mut self, ty: &TokenType<S>, start: usize, end: usize) {
        match ty {
            TokenType::OpenParen(..) => {
                if self.depth == 0 {
                    self.open_at = start;
                }
                self.depth += 1;
            }
            TokenType::CloseParen(_) if self.depth > 0 => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.complete(self.open_at, end);
                }
            }
            _ if self.depth > 0 => {}
            ty if crate::sandbox::lexical::is_prefix(ty) => {
                self.prefixes.push((Prefix::Quote, start))
            }
            TokenType::DatumComment => self.prefixes.push((Prefix::Skip, start)),
            // Atoms, and a stray `)` (left for the reader to reject).
            _ => self.complete(start, end),
        }
    }

    /// A datum ending at `end` completed at depth 0: fold it into the pending
    /// prefixes, emitting it when nothing is left to wrap it.
    fn complete(&mut self, start: usize, end: usize) {
        let mut start = start;
        loop {
            match self.prefixes.pop() {
                Some((Prefix::Quote, at)) => start = at,
                Some((Prefix::Skip, _)) => return,
                None => {
                    self.forms.push(Form {
                        text: self.text[start..end].to_string(),
                        start,
                    });
                    return;
                }
            }
        }
    }

    /// The lexer cannot read on from `at`: an unclosed string, comment or
    /// identifier is pending; anything else makes the rest one form.
    fn unreadable(mut self, at: usize, error: ParseError) -> Split {
        let text = self.text;
        let start = self
            .prefixes
            .first()
            .map(|(_, p)| *p)
            .or((self.depth > 0).then_some(self.open_at))
            .unwrap_or(at)
            .min(at);
        // Steel's reader turns exactly the unclosed string, comment and
        // identifier errors into "unexpected EOF": more input may finish them.
        let open = match error {
            ParseError::UnexpectedEOF(..) => Some(match &text[at..] {
                t if t.starts_with("#|") => Open::Comment,
                t if t.starts_with('|') => Open::Identifier,
                _ => Open::String,
            }),
            _ => None,
        };
        let pending = match open {
            Some(open) => Some(Pending { start, open }),
            None => {
                self.forms.push(Form {
                    text: text[start..].to_string(),
                    start,
                });
                None
            }
        };
        Split {
            forms: self.forms,
            pending,
        }
    }

    /// The end of the input: an open list or a lone prefix is pending.
    fn finish(self) -> Split {
        let pending = if self.depth > 0 {
            let (line, column) = line_column(self.text, self.open_at);
            Some(Pending {
                start: self
                    .prefixes
                    .first()
                    .map_or(self.open_at, |(_, p)| (*p).min(self.open_at)),
                open: Open::List { line, column },
            })
        } else {
            self.prefixes.first().map(|(_, p)| Pending {
                start: *p,
                open: Open::Prefix,
            })
        };
        Split {
            forms: self.forms,
            pending,
        }
    }
}

impl std::fmt::Display for Open {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Open::List { line, column } => {
                write!(
                    f,
                    "the list opened at line {line}, column {column} is not closed"
                )
            }
            Open::String => write!(f, "a string is not closed"),
            Open::Comment => write!(f, "a #| block comment is not closed"),
            Open::Identifier => write!(f, "a |quoted identifier| is not closed"),
            Open::Prefix => write!(f, "a quote or #; prefix has no datum after it"),
        }
    }
}

pub fn is_delimiter(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '(' | ')' | '[' | ']' | '{' | '}' | '\'' | '`' | ',' | '"' | ';'
        )
}

pub(crate) fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The name bound by a top-level `(define name …)`, `(define (name …) …)` or
/// `(define-syntax name …)`.
pub fn defined_name(form: &str) -> Option<String> {
    let rest = form.trim_start().strip_prefix(['(', '['])?.trim_start();
    let rest = rest
        .strip_prefix("define-syntax")
        .or_else(|| rest.strip_prefix("define"))?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    let rest = rest.strip_prefix(['(', '[']).unwrap_or(rest).trim_start();
    let name: String = rest.chars().take_while(|c| !is_delimiter(*c)).collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &str) -> Vec<String> {
        let split = split(input);
        assert_eq!(split.pending, None, "{input:?} should be complete");
        split.forms.into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn one_form_per_top_level_datum() {
        assert_eq!(texts("(+ 1 2)"), ["(+ 1 2)"]);
        assert_eq!(
            texts("(define x 1) (+ x 1)\n'sym 42 \"s\" #t [1 2]"),
            [
                "(define x 1)",
                "(+ x 1)",
                "'sym",
                "42",
                "\"s\"",
                "#t",
                "[1 2]"
            ]
        );
        assert_eq!(texts("`(a ,(b) ,@c)"), ["`(a ,(b) ,@c)"]);
        assert_eq!(texts("#(1 2) x"), ["#(1 2)", "x"]);
        assert_eq!(texts(""), Vec::<String>::new());
        assert_eq!(texts("  ; only a comment\n"), Vec::<String>::new());
    }

    #[test]
    fn offsets_point_into_the_input() {
        let input = "  (a)\n (b c)";
        let split = split(input);
        for form in &split.forms {
            assert_eq!(&input[form.start..form.start + form.text.len()], form.text);
        }
        assert_eq!(split.forms[1].start, 7);
    }

    #[test]
    fn strings_comments_and_chars_do_not_count_as_parens() {
        assert_eq!(texts("(display \"(\")"), ["(display \"(\")"]);
        assert_eq!(texts("(display \"\\\")\")"), ["(display \"\\\")\")"]);
        assert_eq!(texts("; comment (\n(+ 1 2) ; trailing )"), ["(+ 1 2)"]);
        assert_eq!(texts("#| block ( #| nested |# |# (a)"), ["(a)"]);
        assert_eq!(texts("(list #\\( #\\) #\\;)"), ["(list #\\( #\\) #\\;)"]);
        assert_eq!(texts("(quote |a ( b|)"), ["(quote |a ( b|)"]);
    }

    #[test]
    fn datum_comments_drop_their_datum() {
        assert_eq!(texts("#;(a) (b)"), ["(b)"]);
        assert_eq!(texts("#; 'x y"), ["y"]);
        assert_eq!(texts("' #;x y"), ["' #;x y"]);
        assert_eq!(texts("(a #;(b) c)"), ["(a #;(b) c)"]);
    }

    #[test]
    fn unfinished_input_is_pending() {
        let s = split("(define (f x)\n  (+ x");
        assert!(s.forms.is_empty());
        assert_eq!(
            s.pending,
            Some(Pending {
                start: 0,
                open: Open::List { line: 1, column: 1 }
            })
        );
        let s = split("(a) (display \"abc");
        assert_eq!(s.forms.len(), 1);
        assert_eq!(
            s.pending,
            Some(Pending {
                start: 4,
                open: Open::String
            })
        );
        assert_eq!(split("#| abc").pending.map(|p| p.open), Some(Open::Comment));
        assert_eq!(split("'").pending.map(|p| p.open), Some(Open::Prefix));
        assert_eq!(split("'(a").pending.map(|p| p.start), Some(0));
        assert_eq!(
            split("|abc").pending.map(|p| p.open),
            Some(Open::Identifier)
        );
        assert!(split("(a (b) c").is_incomplete());
        assert!(!split("(a (b) c)").is_incomplete());
    }

    #[test]
    fn stray_close_and_unreadable_text_still_run() {
        assert_eq!(texts(")"), [")"]);
        assert_eq!(texts("(a))"), ["(a)", ")"]);
        // An unreadable token: the rest of the input goes to the evaluator,
        // which reports the error with its position.
        let s = split("(a) (b #\\bogus) (c)");
        assert_eq!(s.pending, None);
        assert_eq!(
            s.forms.last().map(|f| f.text.as_str()),
            Some("(b #\\bogus) (c)")
        );
    }
}

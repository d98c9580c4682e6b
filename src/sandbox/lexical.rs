//! Checks on the program text before Steel's reader sees it.
//!
//! Steel's parser and expander recurse on nesting, so a 300,000-deep
//! parenthesis nest would overflow the native stack; its compiler also resolves
//! `require` from disk before name resolution. Both are refused here, on Steel's
//! own (non-recursive) token stream so that the tokens are exactly the ones the
//! reader would see.

use super::denied::{self, Capability};
use steel::parser::lexer::TokenStream;
use steel::parser::tokens::TokenType;

/// Why the text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexicalError {
    /// Structural problem: too deep, unreadable token.
    Invalid { message: String, offset: usize },
    /// A compile-time capability form (`require`, `load`, ...).
    Denied { message: String, offset: usize },
}

/// Scans `text`: no byte-order mark, nesting depth at most `max_depth`, no
/// compile-time capability forms, no evaluator-internal names. Returns the
/// number of tokens (0: the program is empty or only comments).
pub fn check(text: &str, max_depth: u32) -> Result<usize, LexicalError> {
    if text.starts_with('\u{feff}') {
        return Err(LexicalError::Invalid {
            message:
                "the program starts with a byte-order mark (U+FEFF); save it as UTF-8 without one"
                    .to_string(),
            offset: 0,
        });
    }
    let max_depth = max_depth as usize;
    let mut tokens = 0usize;
    let mut depth: usize = 0;
    // Quote-like prefixes nest too: '''''x is parsed recursively.
    let mut prefix_run: usize = 0;
    for token in TokenStream::new(text, true, None) {
        let token = match token {
            Ok(token) => token,
            // Lexical errors are reported by Steel's reader with its own message.
            Err(_) => return Ok(tokens.max(1)),
        };
        tokens += 1;
        let offset = token.span.start as usize;
        match &token.ty {
            TokenType::OpenParen(..) => {
                depth += 1 + prefix_run;
                prefix_run = 0;
                if depth > max_depth {
                    return Err(LexicalError::Invalid {
                        message: format!("program nests deeper than {max_depth} levels"),
                        offset,
                    });
                }
                // Keep the prefixes' contribution until the list closes.
                continue;
            }
            TokenType::CloseParen(_) => {
                depth = depth.saturating_sub(1);
            }
            ty if is_prefix(ty) || matches!(ty, TokenType::DatumComment) => {
                prefix_run += 1;
                if depth + prefix_run > max_depth {
                    return Err(LexicalError::Invalid {
                        message: format!("program nests deeper than {max_depth} levels"),
                        offset,
                    });
                }
                continue;
            }
            TokenType::Require => {
                return Err(LexicalError::Denied {
                    message: denied::denial_message("require", Capability::ModuleLoading),
                    offset,
                })
            }
            TokenType::Identifier(name) => {
                let name = name.resolve();
                if denied::COMPILE_TIME_FORMS.contains(&name) || denied::is_internal(name) {
                    let cap = denied::capability_of(name).unwrap_or(Capability::Reflection);
                    return Err(LexicalError::Denied {
                        message: denied::denial_message(name, cap),
                        offset,
                    });
                }
            }
            _ => {}
        }
        prefix_run = 0;
    }
    Ok(tokens)
}

/// 1-based line and column (in characters) of a byte offset in `text`.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The reader prefixes that wrap the next datum (`'`, `` ` ``, `,`, `,@` and
/// their syntax forms): they nest it one level deeper.
pub fn is_prefix<S>(ty: &TokenType<S>) -> bool {
    matches!(
        ty,
        TokenType::QuoteTick
            | TokenType::QuasiQuote
            | TokenType::Unquote
            | TokenType::UnquoteSplice
            | TokenType::QuoteSyntax
            | TokenType::QuasiQuoteSyntax
            | TokenType::UnquoteSyntax
            | TokenType::UnquoteSpliceSyntax
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nest_refused_without_recursion() {
        let text = "(".repeat(300_000);
        assert!(matches!(
            check(&text, 512),
            Err(LexicalError::Invalid { .. })
        ));
        let quotes = format!("{}x", "'".repeat(300_000));
        assert!(matches!(
            check(&quotes, 512),
            Err(LexicalError::Invalid { .. })
        ));
    }

    #[test]
    fn require_and_load_refused_anywhere() {
        for text in [
            "(require \"/etc/passwd\")",
            "(define-syntax r (syntax-rules () ((_ x) (load x))))",
            "(%module-get% 1)",
        ] {
            assert!(
                matches!(check(text, 512), Err(LexicalError::Denied { .. })),
                "{text}"
            );
        }
        assert!(check("(define (f x) (list \"load\" 'x))", 512).is_ok());
        assert!(matches!(
            check("(tusk-raw-make-vector 10 0)", 512),
            Err(LexicalError::Denied { .. })
        ));
    }

    #[test]
    fn empty_and_bom() {
        assert_eq!(check("  ; only a comment\n", 512), Ok(0));
        assert!(matches!(
            check("\u{feff}(+ 1 2)", 512),
            Err(LexicalError::Invalid { offset: 0, .. })
        ));
    }

    #[test]
    fn line_column_counts_chars() {
        assert_eq!(line_column("ab\ncé(x", 6), (2, 3));
    }
}

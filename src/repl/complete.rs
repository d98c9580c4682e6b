//! Tab completion: action ids, prelude and allowlisted names, special forms,
//! names the session defined, and the REPL's `:commands`.

use crate::sandbox::forms::{defined_name, floor_boundary, is_delimiter};
use std::collections::BTreeSet;

/// Syntax the evaluator knows besides the prelude's macros.
pub const SPECIAL_FORMS: &[&str] = &[
    "begin",
    "define",
    "define-syntax",
    "else",
    "if",
    "lambda",
    "let",
    "quasiquote",
    "quote",
    "set!",
    "syntax-rules",
    "unquote",
    "unquote-splicing",
];

/// The REPL's commands, as typed.
pub const COMMANDS: &[&str] = &[
    ":atomic",
    ":break",
    ":continue",
    ":effects",
    ":final",
    ":help",
    ":json",
    ":limits",
    ":live",
    ":load",
    ":open",
    ":policy",
    ":quit",
    ":rerun",
    ":reset",
    ":save",
    ":show",
    ":step",
];

/// Everything a program can name at the prompt.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    actions: BTreeSet<String>,
    names: BTreeSet<String>,
}

impl Vocabulary {
    /// Action ids plus every name a program can see (see [`crate::sandbox::program_names`]).
    pub fn new(action_ids: &[String], program_names: &[String]) -> Self {
        let actions: BTreeSet<String> = action_ids.iter().cloned().collect();
        let mut names: BTreeSet<String> = program_names.iter().cloned().collect();
        names.extend(SPECIAL_FORMS.iter().map(|s| s.to_string()));
        names.extend(actions.iter().cloned());
        Self { actions, names }
    }

    /// Remembers the name a `(define …)` or `(define-syntax …)` form binds.
    pub fn learn(&mut self, form: &str) {
        if let Some(name) = defined_name(form) {
            self.names.insert(name);
        }
    }

    /// Completions for the word that ends at byte `pos` of `line`: the word's
    /// start and the sorted candidates. Inside a string only action ids are
    /// offered (`(host-call "iss⇥`); at the start of the line, `:commands`.
    pub fn complete(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let pos = floor_boundary(line, pos.min(line.len()));
        let before = &line[..pos];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| is_delimiter(*c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[start..];
        if word.is_empty() {
            return (start, Vec::new());
        }
        let pool: Box<dyn Iterator<Item = &str>> =
            if word.starts_with(':') && before[..start].trim().is_empty() {
                Box::new(COMMANDS.iter().copied())
            } else if before[..start].ends_with('"') {
                Box::new(self.actions.iter().map(String::as_str))
            } else {
                Box::new(self.names.iter().map(String::as_str))
            };
        let candidates = pool
            .filter(|name| name.starts_with(word))
            .map(str::to_string)
            .collect();
        (start, candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> Vocabulary {
        Vocabulary::new(
            &[
                "issue.list".into(),
                "issue.ready".into(),
                "harness.kpi".into(),
            ],
            &["map".into(), "max".into(), "hash-ref".into()],
        )
    }

    #[test]
    fn completes_names_and_actions_in_code() {
        let v = vocabulary();
        assert_eq!(
            v.complete("(iss", 4),
            (1, vec!["issue.list".into(), "issue.ready".into()])
        );
        assert_eq!(
            v.complete("(map (ma", 8),
            (6, vec!["map".into(), "max".into()])
        );
        assert_eq!(v.complete("(le", 3).1, vec!["let".to_string()]);
        assert_eq!(v.complete("(", 1), (1, vec![]));
        assert_eq!(v.complete("'iss", 4).0, 1);
    }

    #[test]
    fn strings_offer_only_actions_and_line_start_offers_commands() {
        let v = vocabulary();
        assert_eq!(
            v.complete("(host-call \"issue.r", 19),
            (12, vec!["issue.ready".into()])
        );
        assert_eq!(v.complete("(host-call \"ma", 14).1, Vec::<String>::new());
        assert_eq!(
            v.complete("  :l", 4),
            (2, vec![":limits".into(), ":live".into(), ":load".into()])
        );
        assert_eq!(v.complete("(list :l", 8).1, Vec::<String>::new());
    }

    #[test]
    fn learns_definitions() {
        let mut v = vocabulary();
        v.learn("(define (my-helper x) x)");
        v.learn("(define my-value 1)");
        v.learn("(define-syntax my-macro (syntax-rules () ((_ x) x)))");
        v.learn("(defined-elsewhere 1)");
        assert_eq!(
            v.complete("(my-", 4).1,
            vec![
                "my-helper".to_string(),
                "my-macro".into(),
                "my-value".into()
            ]
        );
        assert_eq!(defined_name("(define)"), None);
        assert_eq!(defined_name("(definex y 1)"), None);
    }
}

//! The command line's one error type. A command returns `Result<Exit,
//! CliError>`: [`Exit`] when it did its work, whatever the verdict (accepted
//! or rejected: a verdict is printed on stdout as the command's result), and a
//! [`CliError`] when it could not: a usage error, a refusal printed on stderr,
//! a request that could not be served. [`crate::cli::run`] prints the error in
//! one place ([`crate::cli::report`]) and exits with [`CliError::code`]
//! (README, "Exit codes"). [`CliClass`] holds the command line's own
//! failure classes.

use serde_json::Value;
use std::fmt::Display;

crate::failure::class_enum! {
    /// The command line's own failure classes (usage errors and commands that
    /// have no host twin).
    pub enum CliClass {
        UnknownSubcommand = "cli.unknown_subcommand",
        UnknownFlag = "cli.unknown_flag",
        MissingArgument = "cli.missing_argument",
        InvalidValue = "cli.invalid_value",
        Usage = "cli.usage",
        KeygenWriteFailed = "keygen.write_failed",
        IssueStoreNotFound = "issue_store.not_found",
        UnknownAction = "cli.unknown_action",
        /// `--run`, `--session` or `--trace` names nothing in the log.
        NothingSelected = "replay.not_found",
        /// A refusal (exit 1) the command names no finer class for.
        Refused = "cli.refused",
        /// Unusable input or environment (exit 2) the command names no finer
        /// class for.
        Unusable = "cli.unusable",
    }
}

/// The CLI's one error object under `--json`: `result`, `class`,
/// `failureClasses` and `message` (README, "Exit codes"); commands add their
/// own members to it.
pub(crate) fn error_object(class: &str, message: &str) -> Value {
    serde_json::json!({
        "result": "rejected",
        "class": class,
        "failureClasses": [class],
        "message": message,
    })
}

/// How a command that did its work ends: the verdict's exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the command did what was asked; a read found what it read.
    Accepted,
    /// 1: a verdict against: a refused mutation, a rejected run, a finding,
    /// a divergence.
    Rejected,
    /// 130: a scripted REPL session stopped by SIGINT.
    Interrupted,
}

impl Exit {
    /// [`Exit::Accepted`] when `accepted`, else [`Exit::Rejected`].
    pub fn accepted_if(accepted: bool) -> Self {
        if accepted {
            Exit::Accepted
        } else {
            Exit::Rejected
        }
    }

    /// The process exit code.
    pub fn code(self) -> i32 {
        match self {
            Exit::Accepted => 0,
            Exit::Rejected => 1,
            Exit::Interrupted => 130,
        }
    }
}

/// What a command could not do, with what it prints: its text on stderr and,
/// where the command was asked for JSON, one JSON object on stdout.
#[derive(Debug)]
#[non_exhaustive]
pub enum CliError {
    /// A command line clap refused, or a request for help or the version:
    /// clap prints it (help and version on stdout, exit 0; an error on
    /// stderr, exit 2). Under `--json` a refused line is [`CliError::Unusable`]
    /// with the `cli.*` class instead.
    Usage(clap::Error),
    /// Exit 1: refused by a rule the command keeps (premath's failures, a
    /// store file that does not exist, a session that does not exist).
    Refused(Box<Failure>),
    /// Exit 2: nothing was done: a bad flag or argument, unusable input, the
    /// store, policy or OS unusable.
    Unusable(Box<Failure>),
}

/// The printed form of a [`CliError::Refused`] or [`CliError::Unusable`]
/// (boxed there: an error travels up through every command's `Result`).
#[derive(Debug)]
pub struct Failure {
    /// The message alone (what a JSON error's `message` says).
    pub(super) message: String,
    /// The failure class, where the command names one.
    pub(super) class: Option<&'static str>,
    /// What goes to stderr, exactly (usually `CONTEXT: MESSAGE\n`).
    pub(super) text: String,
    /// The JSON object printed on stdout (only when the command was asked
    /// for JSON).
    pub(super) json: Option<Value>,
    /// Whether the JSON object is printed before the stderr text (each
    /// command keeps the order it always had).
    pub(super) json_first: bool,
}

impl Failure {
    fn new(context: impl Display, message: impl Display) -> Self {
        let message = message.to_string();
        Failure {
            text: format!("{context}: {message}\n"),
            message,
            class: None,
            json: None,
            json_first: false,
        }
    }
}

impl CliError {
    /// Exit 1, `CONTEXT: MESSAGE` on stderr.
    pub fn refused(context: impl Display, message: impl Display) -> Self {
        CliError::Refused(Box::new(Failure::new(context, message)))
    }

    /// Exit 2, `CONTEXT: MESSAGE` on stderr.
    pub fn unusable(context: impl Display, message: impl Display) -> Self {
        CliError::Unusable(Box::new(Failure::new(context, message)))
    }

    /// A usage error under `--json`: clap's rendered text on stderr as it is,
    /// `message` its first line; exit 2.
    pub(super) fn usage_text(rendered: String, message: String) -> Self {
        CliError::Unusable(Box::new(Failure {
            message,
            class: None,
            text: rendered,
            json: None,
            json_first: false,
        }))
    }

    fn failure_mut(&mut self) -> Option<&mut Failure> {
        match self {
            CliError::Refused(f) | CliError::Unusable(f) => Some(f),
            CliError::Usage(_) => None,
        }
    }

    fn failure(&self) -> Option<&Failure> {
        match self {
            CliError::Refused(f) | CliError::Unusable(f) => Some(f),
            CliError::Usage(_) => None,
        }
    }

    /// Names the failure class.
    #[must_use]
    pub fn with_class(mut self, class: &'static str) -> Self {
        if let Some(f) = self.failure_mut() {
            f.class = Some(class);
        }
        self
    }

    /// Adds a `hint: HINT` line to the stderr text.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Display) -> Self {
        if let Some(f) = self.failure_mut() {
            f.text.push_str(&format!("hint: {hint}\n"));
        }
        self
    }

    /// The JSON object printed on stdout after the stderr text.
    #[must_use]
    pub fn with_json(self, object: Value) -> Self {
        self.json_at(object, false)
    }

    /// The JSON object printed on stdout before the stderr text.
    #[must_use]
    pub fn with_json_first(self, object: Value) -> Self {
        self.json_at(object, true)
    }

    fn json_at(mut self, object: Value, first: bool) -> Self {
        if let Some(f) = self.failure_mut() {
            f.json = Some(object);
            f.json_first = first;
        }
        self
    }

    /// The process exit code.
    pub fn code(&self) -> i32 {
        match self {
            CliError::Usage(e) => e.exit_code(),
            CliError::Refused(_) => 1,
            CliError::Unusable(_) => 2,
        }
    }

    /// The failure class, where there is one.
    pub fn class(&self) -> Option<&'static str> {
        self.failure().and_then(|f| f.class)
    }

    /// The message (clap's rendered text for a usage error).
    pub fn message(&self) -> String {
        match self {
            CliError::Usage(e) => e.render().to_string(),
            CliError::Refused(f) | CliError::Unusable(f) => f.message.clone(),
        }
    }
}

impl From<clap::Error> for CliError {
    fn from(e: clap::Error) -> Self {
        CliError::Usage(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_text_and_json_order() {
        let e = CliError::unusable("tusk eval", "no program");
        assert_eq!(e.code(), 2);
        assert_eq!(e.message(), "no program");
        assert_eq!(e.class(), None);
        let e = CliError::refused(format_args!("tusk: {}", "issue.list"), "gone")
            .with_hint("run `tusk init`")
            .with_class(CliClass::IssueStoreNotFound.as_str())
            .with_json(serde_json::json!({"result": "rejected"}));
        assert_eq!(e.code(), 1);
        assert_eq!(e.class(), Some(CliClass::IssueStoreNotFound.as_str()));
        let CliError::Refused(f) = &e else {
            panic!("{e:?}")
        };
        assert_eq!(f.text, "tusk: issue.list: gone\nhint: run `tusk init`\n");
        assert!(!f.json_first);
        let e = CliError::unusable("x", "y").with_json_first(serde_json::json!({}));
        let CliError::Unusable(f) = &e else {
            panic!("{e:?}")
        };
        assert!(f.json_first && f.json.is_some());
        assert_eq!(Exit::accepted_if(true).code(), 0);
        assert_eq!(Exit::accepted_if(false).code(), 1);
        assert_eq!(Exit::Interrupted.code(), 130);
    }
}

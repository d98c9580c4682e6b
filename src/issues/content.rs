//! premath's rules on issue content (`issue check`): an `[EPIC]` title needs
//! type `epic`; an active, non-ephemeral issue needs an Acceptance section in
//! its description and a verification command in its description or notes.
//! The patterns are premath's, byte for byte, so both programs judge one store
//! the same way. One deliberate difference: beads' `acceptance_criteria`
//! member (what `tusk issue add --acceptance-criteria` writes) counts as the
//! Acceptance section when it is not blank, and is searched for verification
//! commands too; premath reads the description only.

use crate::issues::IssueClass;
use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

/// `[EPIC]` title on an issue whose type is not `epic`.
pub const EPIC_MISMATCH: &str = IssueClass::GraphEpicMismatch.as_str();
/// Active issue without an `Acceptance:` section.
pub const ACCEPTANCE_MISSING: &str = IssueClass::GraphAcceptanceMissing.as_str();
/// Active issue without a verification command.
pub const VERIFICATION_COMMAND_MISSING: &str = IssueClass::GraphVerificationCommandMissing.as_str();

const COMMANDS: &str = "mise run|python3|cargo(?: run)?|premath|sh|nix develop -c|uv run|pytest";

fn acceptance_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?im)^\s*acceptance(?:\s+criteria)?\s*:").expect("valid"))
}

/// The commands a verification command may start with (issue 60):
/// premath's list, or the ones a project names in its store's
/// `config.json` (`"verification.commands": "make, npm test, true"`).
#[derive(Clone)]
pub struct Commands {
    line: Regex,
    inline: Regex,
    /// The project's list, when it named one (what a finding says to use).
    configured: Option<Vec<String>>,
}

impl Commands {
    fn from_alternation(alternation: &str, configured: Option<Vec<String>>) -> Commands {
        Commands {
            line: Regex::new(&format!(
                r"(?im)^\s*(?:[-*]\s*)?(?:`)?(?:{alternation})\b[^`\n]*(?:`)?\s*$"
            ))
            .expect("an alternation of escaped words"),
            inline: Regex::new(&format!(r"(?i)`(?:{alternation})\b[^`]*`"))
                .expect("an alternation of escaped words"),
            configured,
        }
    }

    /// premath's list, byte for byte: both programs judge one store alike.
    pub fn premath() -> &'static Commands {
        static COMMANDS_RE: OnceLock<Commands> = OnceLock::new();
        COMMANDS_RE.get_or_init(|| Commands::from_alternation(COMMANDS, None))
    }

    /// A project's list (each entry matched literally, its spaces as any
    /// run of blanks).
    pub fn of(list: Vec<String>) -> Commands {
        let alternation = list
            .iter()
            .map(|c| {
                c.split_whitespace()
                    .map(regex::escape)
                    .collect::<Vec<_>>()
                    .join(r"\s+")
            })
            .collect::<Vec<_>>()
            .join("|");
        Commands::from_alternation(&alternation, Some(list))
    }

    /// The store's list (its `config.json`), else premath's.
    ///
    /// # Errors
    ///
    /// An unreadable `config.json`, or a `verification.commands` that is not
    /// a list of commands.
    pub fn of_store(
        store: &super::IssueStore,
    ) -> Result<std::borrow::Cow<'static, Commands>, String> {
        Ok(match super::model::verification_commands(store)? {
            Some(list) => std::borrow::Cow::Owned(Commands::of(list)),
            None => std::borrow::Cow::Borrowed(Commands::premath()),
        })
    }

    fn missing_message(&self) -> String {
        let premath = "active issue must include at least one verification command";
        match &self.configured {
            None => premath.into(),
            Some(list) => format!(
                "{premath}: a line or `code` starting with one of {} (the store's config.json \"verification.commands\")",
                list.join(", ")
            ),
        }
    }
}

/// One content finding: its class and premath's message.
#[derive(Debug, PartialEq, Eq)]
pub struct Finding {
    pub class: &'static str,
    pub message: String,
}

fn text<'v>(issue: &'v Value, key: &str) -> &'v str {
    issue.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The findings for one issue (its full JSON object), in premath's order:
/// epic, acceptance, verification.
pub fn findings(issue: &Value) -> Vec<Finding> {
    findings_with(issue, Commands::premath())
}

/// [`findings`] with the verification commands `commands` accepts.
pub fn findings_with(issue: &Value, commands: &Commands) -> Vec<Finding> {
    let mut out = Vec::new();
    let raw_type = issue
        .get("issue_type")
        .and_then(Value::as_str)
        .unwrap_or("task");
    let issue_type = super::serial::premath_issue_type(raw_type);
    if text(issue, "title").starts_with("[EPIC]") && issue_type != Some("epic") {
        out.push(Finding {
            class: EPIC_MISMATCH,
            message: format!(
                "title starts with [EPIC] but issue_type={}",
                issue_type.unwrap_or("<invalid>")
            ),
        });
    }
    let status = issue
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("open");
    let status = status.trim().to_ascii_lowercase();
    let ephemeral = issue
        .get("ephemeral")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if (status == "open" || status == "in_progress") && !ephemeral {
        let description = text(issue, "description").trim();
        let notes = text(issue, "notes").trim();
        let criteria = text(issue, "acceptance_criteria").trim();
        if !acceptance_re().is_match(description) && criteria.is_empty() {
            out.push(Finding {
                class: ACCEPTANCE_MISSING,
                message: "active issue must include an Acceptance section".into(),
            });
        }
        let combined = [description, notes, criteria]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        if !commands.line.is_match(&combined) && !commands.inline.is_match(&combined) {
            out.push(Finding {
                class: VERIFICATION_COMMAND_MISSING,
                message: commands.missing_message(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn classes(v: Value) -> Vec<&'static str> {
        findings(&v).into_iter().map(|f| f.class).collect()
    }

    #[test]
    fn an_active_issue_needs_acceptance_and_a_command() {
        assert_eq!(
            classes(json!({"id": "a", "title": "t"})),
            [ACCEPTANCE_MISSING, VERIFICATION_COMMAND_MISSING]
        );
        let ok = json!({"id": "a", "title": "t",
            "description": "Do it.\n\nAcceptance criteria:\n- works\n\n- `cargo test`"});
        assert!(classes(ok).is_empty());
        // The command may sit in the notes, on a line of its own.
        let notes = json!({"id": "a", "title": "t", "description": "acceptance: ok",
            "notes": "  pytest -q tests/  "});
        assert!(classes(notes).is_empty());
        // A word that merely starts like a command is not one (`\b`).
        let near = json!({"id": "a", "title": "t", "description": "Acceptance: x\nshell out"});
        assert_eq!(classes(near), [VERIFICATION_COMMAND_MISSING]);
    }

    #[test]
    fn the_acceptance_criteria_member_counts() {
        let criteria = json!({"id": "a", "title": "t",
            "acceptance_criteria": "the parser parses\n`cargo test parser`"});
        assert!(classes(criteria).is_empty());
        let blank = json!({"id": "a", "title": "t", "acceptance_criteria": "  ",
            "description": "`cargo test`"});
        assert_eq!(classes(blank), [ACCEPTANCE_MISSING]);
        let no_command = json!({"id": "a", "title": "t", "acceptance_criteria": "it works"});
        assert_eq!(classes(no_command), [VERIFICATION_COMMAND_MISSING]);
    }

    #[test]
    fn closed_and_ephemeral_issues_are_exempt_but_not_from_the_epic_rule() {
        assert!(classes(json!({"id": "a", "title": "t", "status": "closed"})).is_empty());
        assert!(classes(json!({"id": "a", "title": "t", "ephemeral": true})).is_empty());
        let epic =
            json!({"id": "a", "title": "[EPIC] big", "status": "closed", "issue_type": "bug"});
        let f = findings(&epic);
        assert_eq!(f[0].class, EPIC_MISMATCH);
        assert_eq!(
            f[0].message,
            "title starts with [EPIC] but issue_type=<invalid>"
        );
        assert!(classes(
            json!({"id": "a", "title": "[EPIC] x", "status": "closed", "issue_type": " Epic "})
        )
        .is_empty());
    }
}

//! One filter for routing work (issue 22): which issues a view or a claim
//! considers. The same value is the `filter` argument of the host actions
//! `issue.list`, `issue.ready`, `issue.blocked` and `issue.claim_next`, and
//! the filter flags of the matching commands (`--label`, `--label-any`, …).
//!
//! Every member is optional and they combine with *and*; an empty filter
//! matches every issue. Labels: `labels` all of them, `labelsAny` at least
//! one, `excludeLabels` none. A reviewer agent claims with
//! `{"labels": ["review"]}`, a frontend agent with `{"labelsAny": ["ui",
//! "css"], "excludeLabels": ["blocked-on-design"]}`: disjoint filters never
//! claim the same issue.

use super::model::Issue;
use super::store::Store;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A list of strings, or one string taken as a list of one (models write
/// `(hash "labels" "backend")` as often as a list).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(s)) => Ok(vec![s]),
        Ok(OneOrMany::Many(v)) => Ok(v),
        Err(_) => Err(serde::de::Error::custom(
            "expected a list of strings, e.g. [\"backend\"] ((list \"backend\") in a program), or one string",
        )),
    }
}

/// Which issues to consider (all members optional, combined with and).
// One declaration for the host actions' `filter` (camelCase keys) and the
// filter flags of `issue list|ready|blocked|claim-next|lease-projection`
// (kebab-case flags, flattened). The flags keep premath's own help text,
// which speaks of one flag (`--label`, repeatable) where the JSON
// description speaks of the list, hence `help` besides the doc comments.
// `assignee` has no flag: the commands' own `--assignee` is the claimer or,
// for `list`, its own exact filter.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, clap::Args)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IssueFilter {
    /// Issues carrying every one of these labels.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    #[arg(
        long = "label",
        value_name = "LABEL",
        help = "Only issues carrying this label (repeat: all of them)"
    )]
    pub labels: Vec<String>,
    /// Issues carrying at least one of these labels.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    #[arg(
        long = "label-any",
        value_name = "LABEL",
        help = "Only issues carrying at least one of these labels (repeatable)"
    )]
    pub labels_any: Vec<String>,
    /// Issues carrying none of these labels.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    #[arg(
        long = "exclude-label",
        value_name = "LABEL",
        help = "Skip issues carrying this label (repeatable)"
    )]
    pub exclude_labels: Vec<String>,
    /// Issues of one of these types (task, bug, feature, epic, chore, …).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    #[arg(
        long = "type",
        value_name = "TYPE",
        help = "Only issues of this type (repeat: any of them)"
    )]
    pub types: Vec<String>,
    /// Priority at least this number (0 is the highest priority).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "N",
        help = "Only issues with priority at least N (0 is the highest)"
    )]
    pub priority_min: Option<i64>,
    /// Priority at most this number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(long, value_name = "N", help = "Only issues with priority at most N")]
    pub priority_max: Option<i64>,
    /// Issues assigned to this assignee.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(skip)]
    pub assignee: Option<String>,
    /// Issues with no assignee.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[arg(long, help = "Only issues with no assignee")]
    pub unassigned: bool,
    /// Issues whose id starts with this text (`web-`, `bd-12`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "PREFIX",
        help = "Only issues whose id starts with PREFIX"
    )]
    pub id_prefix: Option<String>,
    /// Issues whose title contains this text (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "TEXT",
        help = "Only issues whose title contains TEXT (case-insensitive)"
    )]
    pub title_contains: Option<String>,
    /// Children of this issue (a `parent-child` edge to it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "ID",
        help = "Only children of ID (a parent-child edge to it)"
    )]
    pub parent: Option<String>,
    /// Issues whose description contains this text (case-insensitive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "TEXT",
        help = "Only issues whose description contains TEXT (case-insensitive)"
    )]
    pub description_contains: Option<String>,
    /// Issues created at or after this instant (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "T",
        help = "Only issues created at or after T (RFC 3339)"
    )]
    pub created_after: Option<String>,
    /// Issues created before this instant (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "T",
        help = "Only issues created before T (RFC 3339)"
    )]
    pub created_before: Option<String>,
    /// Issues updated at or after this instant (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "T",
        help = "Only issues updated at or after T (RFC 3339)"
    )]
    pub updated_after: Option<String>,
    /// Issues updated before this instant (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[arg(
        long,
        value_name = "T",
        help = "Only issues updated before T (RFC 3339)"
    )]
    pub updated_before: Option<String>,
}

fn instant(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

impl IssueFilter {
    /// Whether nothing is filtered.
    pub fn is_empty(&self) -> bool {
        self == &IssueFilter::default()
    }

    /// Refuses a filter that can match nothing by construction or is
    /// malformed (an empty label, a reversed priority range, assigned and
    /// unassigned at once): a typo must not silently starve a worker.
    pub fn check(&self) -> Result<(), String> {
        for (name, list) in [
            ("labels", &self.labels),
            ("labelsAny", &self.labels_any),
            ("excludeLabels", &self.exclude_labels),
            ("types", &self.types),
        ] {
            if list.iter().any(|l| l.trim().is_empty()) {
                return Err(format!("filter.{name}: an empty entry"));
            }
        }
        if let (Some(lo), Some(hi)) = (self.priority_min, self.priority_max) {
            if lo > hi {
                return Err(format!(
                    "filter: priorityMin {lo} is above priorityMax {hi}"
                ));
            }
        }
        if self.unassigned && self.assignee.is_some() {
            return Err("filter: assignee and unassigned exclude each other".into());
        }
        for (name, value) in [
            ("createdAfter", &self.created_after),
            ("createdBefore", &self.created_before),
            ("updatedAfter", &self.updated_after),
            ("updatedBefore", &self.updated_before),
        ] {
            if let Some(v) = value {
                if instant(v).is_none() {
                    return Err(format!("filter.{name}: {v:?} is not an RFC 3339 instant"));
                }
            }
        }
        Ok(())
    }

    /// An optional filter (none: every issue), checked: the step the host
    /// actions and the commands share before they read.
    pub fn checked(filter: Option<IssueFilter>) -> Result<IssueFilter, String> {
        let filter = filter.unwrap_or_default();
        filter.check().map(|()| filter)
    }

    /// Whether a member needs the stored line (the parsed model does not
    /// hold descriptions or timestamps).
    fn reads_line(&self) -> bool {
        self.description_contains.is_some()
            || self.created_after.is_some()
            || self.created_before.is_some()
            || self.updated_after.is_some()
            || self.updated_before.is_some()
    }

    /// The members that read the stored line: an issue without the field
    /// (or with an unreadable timestamp) does not pass a filter on it.
    fn line_matches(&self, line: &Value) -> bool {
        let at = |key: &str| line[key].as_str().and_then(instant);
        let window = |key: &str, after: &Option<String>, before: &Option<String>| {
            if after.is_none() && before.is_none() {
                return true;
            }
            let Some(t) = at(key) else { return false };
            after.as_deref().and_then(instant).is_none_or(|a| t >= a)
                && before.as_deref().and_then(instant).is_none_or(|b| t < b)
        };
        self.description_contains.as_deref().is_none_or(|d| {
            line["description"]
                .as_str()
                .is_some_and(|text| text.to_lowercase().contains(&d.to_lowercase()))
        }) && window("created_at", &self.created_after, &self.created_before)
            && window("updated_at", &self.updated_after, &self.updated_before)
    }

    /// Whether `issue` of `store` passes (reads its stored line only when a
    /// member needs it).
    pub fn passes(&self, store: &Store<'_>, issue: &Issue<'_>) -> bool {
        self.matches(issue)
            && (!self.reads_line()
                || serde_json::from_str::<Value>(store.raw(issue))
                    .is_ok_and(|line| self.line_matches(&line)))
    }

    /// Whether `issue` passes the members its parsed form answers (see
    /// [`IssueFilter::passes`] for all of them).
    fn matches(&self, issue: &Issue<'_>) -> bool {
        let has = |label: &String| issue.labels.iter().any(|l| l.as_str() == label);
        self.labels.iter().all(has)
            && (self.labels_any.is_empty() || self.labels_any.iter().any(has))
            && !self.exclude_labels.iter().any(has)
            && (self.types.is_empty() || self.types.iter().any(|t| t == issue.issue_type.as_str()))
            && self.priority_min.is_none_or(|p| issue.priority >= p)
            && self.priority_max.is_none_or(|p| issue.priority <= p)
            && self
                .assignee
                .as_deref()
                .is_none_or(|a| issue.assignee.as_ref().is_some_and(|x| x.as_str() == a))
            && (!self.unassigned
                || issue
                    .assignee
                    .as_ref()
                    .is_none_or(|x| x.as_str().is_empty()))
            && self
                .id_prefix
                .as_deref()
                .is_none_or(|p| issue.id.as_str().starts_with(p))
            && self.title_contains.as_deref().is_none_or(|t| {
                issue
                    .title
                    .as_str()
                    .to_lowercase()
                    .contains(&t.to_lowercase())
            })
            && self.parent.as_deref().is_none_or(|p| {
                issue
                    .deps
                    .iter()
                    .any(|d| d.dep_type == "parent-child" && d.depends_on.as_str() == p)
            })
    }
}

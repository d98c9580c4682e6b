//! Which runs a listing keeps (issue 60): the runs page's filters
//! (`/runs?result=…&principal=…&issue=…&session=…&since=…`) and the flags
//! of `tusk runs`, one declaration. Every criterion given must hold: a
//! run's result (its footer's), its principal and session (its header's),
//! its start (`since`: an RFC 3339 instant, or a span back from now such as
//! `30m`, `2h`, `7d`), and an issue it touched (named as the run's issue,
//! or in any call's arguments, as the issue page finds them).

use super::runs::{find_runs, Found, RunFilter};
use super::{text, PageError, Params};
use crate::logs::LogStore;
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

/// Whether run header `h` names issue `id` as the run's issue.
pub(crate) fn names_issue(h: &Value, id: &str) -> bool {
    h["authority"]["issueId"].as_str() == Some(id)
}

/// Whether call row `row` names issue `id` in any of its arguments: with
/// [`names_issue`], what "a run that touched an issue" means, for the issue
/// page and the runs list alike.
pub(crate) fn touches(row: &Value, id: &str) -> bool {
    row["args"]
        .as_object()
        .is_some_and(|args| args.values().any(|v| v.as_str() == Some(id)))
}

/// The filter parameters, in the order links carry them.
pub const PARAMS: [&str; 5] = ["result", "principal", "issue", "session", "since"];

/// A listing's filters; empty keeps every run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunQuery {
    /// `accepted` or `rejected`: how the run ended (a run still going has
    /// neither).
    pub result: Option<String>,
    pub principal: Option<String>,
    pub issue: Option<String>,
    pub session: Option<String>,
    /// Runs that started at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// `since` as given (a link keeps the words, not the instant).
    pub since_text: Option<String>,
}

impl RunQuery {
    /// The filters of a page's query parameters.
    ///
    /// # Errors
    /// A value that is not one the parameter takes, saying which it takes.
    pub fn from_params(params: &Params, now: DateTime<Utc>) -> Result<Self, PageError> {
        let owned = |name: &str| text(params, name).map(str::to_string);
        Self::new(
            owned("result"),
            owned("principal"),
            owned("issue"),
            owned("session"),
            owned("since"),
            now,
        )
        .map_err(PageError::BadRequest)
    }

    /// The filters, checked.
    ///
    /// # Errors
    /// A `result` other than `accepted` or `rejected`, or a `since` that is
    /// neither an RFC 3339 instant nor a span: the message says what to
    /// write instead.
    pub fn new(
        result: Option<String>,
        principal: Option<String>,
        issue: Option<String>,
        session: Option<String>,
        since: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Self, String> {
        if let Some(r) = result.as_deref() {
            if !matches!(r, "accepted" | "rejected") {
                return Err(format!("result: {r:?} is not accepted or rejected"));
            }
        }
        let since_at = since.as_deref().map(|s| parse_since(s, now)).transpose()?;
        Ok(RunQuery {
            result,
            principal,
            issue,
            session,
            since: since_at,
            since_text: since,
        })
    }

    /// Whether it keeps every run.
    pub fn is_empty(&self) -> bool {
        self.result.is_none()
            && self.principal.is_none()
            && self.issue.is_none()
            && self.session.is_none()
            && self.since.is_none()
    }

    /// The parameters that give this query back, for links.
    pub fn params(&self) -> Vec<(&'static str, &str)> {
        let values = [
            self.result.as_deref(),
            self.principal.as_deref(),
            self.issue.as_deref(),
            self.session.as_deref(),
            self.since_text.as_deref(),
        ];
        PARAMS
            .into_iter()
            .zip(values)
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect()
    }

    /// The filters given, as a JSON object (what a listing says it kept).
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.params()
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect(),
        )
    }

    /// Whether a run's header passes the criteria a header answers.
    fn header_passes(&self, h: &Value) -> bool {
        let is = |key: &str, want: &Option<String>| {
            want.as_deref().is_none_or(|w| h[key].as_str() == Some(w))
        };
        is("principal", &self.principal)
            && is("sessionId", &self.session)
            && self.since.is_none_or(|since| {
                h["startedAt"]
                    .as_str()
                    .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                    .is_some_and(|at| at >= since)
            })
    }

    /// Reads `log` backwards from `before` for at most `limit` runs this
    /// query keeps (see [`find_runs`] for the bound on rows read).
    ///
    /// # Errors
    /// The log could not be read.
    pub(crate) fn find(
        &self,
        log: &LogStore,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Found, PageError> {
        if self.is_empty() {
            return find_runs(log, before, limit, None);
        }
        let all = |h: &Value| self.header_passes(h);
        let issue = self.issue.as_deref();
        // Without an issue, every run the header criteria keep.
        let names = |h: &Value| issue.is_none_or(|id| names_issue(h, id));
        let touched = |row: &Value| issue.is_some_and(|id| touches(row, id));
        let ended = |footer: Option<&Value>| {
            self.result
                .as_deref()
                .is_none_or(|r| footer.is_some_and(|f| f["result"].as_str() == Some(r)))
        };
        let filter = RunFilter {
            all: &all,
            header: &names,
            call: &touched,
            footer: &ended,
        };
        find_runs(log, before, limit, Some(&filter))
    }
}

/// `since`: an RFC 3339 instant, or a span back from `now` (`90s`, `30m`,
/// `2h`, `7d`, `2w`).
///
/// # Errors
/// Neither, saying what to write.
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let t = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(t) {
        return Ok(at.with_timezone(&Utc));
    }
    let bad = || {
        format!(
            "since: {text:?} is neither an RFC 3339 instant (2026-11-29T10:00:00Z) \
             nor a span back from now (90s, 30m, 2h, 7d, 2w)"
        )
    };
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?);
    let n: i64 = digits.parse().map_err(|_| bad())?;
    let span = match unit {
        "s" => Duration::try_seconds(n),
        "m" => Duration::try_minutes(n),
        "h" => Duration::try_hours(n),
        "d" => Duration::try_days(n),
        "w" => Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(bad)?;
    now.checked_sub_signed(span).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_an_instant_or_a_span_and_refuses_the_rest() {
        let now = DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            parse_since("2026-11-29T10:00:00+01:00", now)
                .unwrap()
                .to_rfc3339(),
            "2026-11-29T09:00:00+00:00"
        );
        assert_eq!(
            parse_since("2h", now).unwrap().to_rfc3339(),
            "2026-11-29T10:00:00+00:00"
        );
        assert_eq!(
            parse_since("7d", now).unwrap().to_rfc3339(),
            "2026-11-22T12:00:00+00:00"
        );
        for bad in [
            "",
            "yesterday",
            "2",
            "h",
            "3y",
            "-2h",
            "99999999999999999999d",
        ] {
            let e = parse_since(bad, now).unwrap_err();
            assert!(e.contains("RFC 3339"), "{bad}: {e}");
        }
    }
}

//! The effect log's rows as types (issue 20): the run [`Header`], a
//! [`CallRow`] per host call and the run's [`Footer`], written by the runtime
//! and read back by `replay::log`.
//!
//! **Bytes.** serde_json keeps members in insertion order (`preserve_order`),
//! so a row is written with its members in the order its type declares them,
//! then those of `extra`. The chain digests rows as written
//! ([`crate::chain`]): reordering a type's fields changes every digest after
//! it, and logs already written would no longer match what the writer does.
//!
//! **Reading.** The log is input: a row may hold anything under any name.
//! Each member is a [`Member`] (absent, typed, or the JSON it holds when it
//! does not have its type, with why), or JSON of any shape, so reading a row
//! that has its `kind` and `runId` never fails, and the reader reports each
//! malformed member as its own problem. A member a type does not name is kept
//! in its `extra`.

use crate::host::JoinEvidence;
use crate::sandbox::Limits;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One member of a row read back: absent, of its type, or not (the JSON the
/// row holds there and why it is not of the type). The writer only writes
/// [`Member::Typed`] members and leaves the others [`Member::Absent`].
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Member<T> {
    #[default]
    Absent,
    Typed(T),
    Malformed {
        value: Value,
        error: String,
    },
}

impl<T> From<Option<T>> for Member<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Member::Absent, Member::Typed)
    }
}

impl<T> Member<T> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Member::Absent)
    }

    /// The value, when the member has its type.
    pub fn typed(&self) -> Option<&T> {
        match self {
            Member::Typed(t) => Some(t),
            _ => None,
        }
    }

    pub fn into_typed(self) -> Option<T> {
        match self {
            Member::Typed(t) => Some(t),
            _ => None,
        }
    }
}

impl<T: Serialize> Member<T> {
    /// The JSON the row holds for this member (`None` when it is absent).
    pub fn recorded(&self) -> Option<Value> {
        match self {
            Member::Absent => None,
            Member::Typed(t) => serde_json::to_value(t).ok(),
            Member::Malformed { value, .. } => Some(value.clone()),
        }
    }
}

impl<T: Serialize> Serialize for Member<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Member::Typed(t) => t.serialize(s),
            Member::Malformed { value, .. } => value.serialize(s),
            // Skipped by every field that holds one (`skip_serializing_if`).
            Member::Absent => s.serialize_none(),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Member<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        // `from_value`, as the reader always did: its message is the problem's.
        Ok(match serde_json::from_value::<T>(value.clone()) {
            Ok(t) => Member::Typed(t),
            Err(e) => Member::Malformed {
                value,
                error: e.to_string(),
            },
        })
    }
}

/// A run's first row (`premath.scheme_eval.run.v0`): the request as the run
/// saw it, written before anything runs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub kind: String,
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub program_digest: Member<String>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub program: Member<String>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub limits: Member<Limits>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub profile: Member<String>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub started_at: Member<String>,
    /// What the program could bind by name and list with (host-actions):
    /// replay binds the same.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub host_actions: Member<Vec<String>>,
    /// How values became JSON (the empty list is `[]`): replay of an older
    /// log accounts for its rule.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub json_encoding: Member<u64>,
    /// The evidence the request carried, as the gate saw it.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub authority: Member<RecordedAuthority>,
    /// The program file was not UTF-8: the offset of its first invalid byte.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub invalid_utf8_at: Member<usize>,
    /// What the rows record in place of named values (host::redact): replay
    /// applies the same rules to the replayed arguments.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub redact: Member<Value>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub principal: Member<String>,
    /// An operator's command recorded as a one-call run (issue 57): its
    /// command line. Its mutation was the operator's, made without the
    /// gate's evidence, as the command always was.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub command: Member<String>,
    /// What the principal's token limited (read-only, its actions list):
    /// replay names what they left out as the recording did.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub principal_terms: Member<RecordedTerms>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub session_id: Member<String>,
    /// The session's definitions were dropped before this run.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub session_reset: Member<bool>,
    /// An atomic run (issue 59): `commit` or `dryRun`. Its last call row is
    /// the host's `run.commit`.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub atomic: Member<String>,
    /// The trace the run belongs to: found from a trace, a run; from a run,
    /// its trace.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub trace: Member<Trace>,
    /// The chain's first link: the header's own `programDigest`
    /// ([`crate::chain`]). Older logs have none (unchained).
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub prev_row_digest: Member<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The header's `trace`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub trace_id: Member<String>,
    /// The run's own span, when it is exported.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub span_id: Member<String>,
    /// The caller's span.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub parent_span_id: Member<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The header's `authority`: what the request carried, including the join
/// The header's `principalTerms`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedTerms {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
}

/// verdict (the gate's input), so a live replay can present the same evidence.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedAuthority {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_evidence: Option<JoinEvidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_claims: Option<Vec<String>>,
}

/// One host call's row (`premath.host_effect.row.v0`). The writer lends it
/// the call's arguments and envelope, so recording a call does not copy them;
/// a row read back owns them. The writer lends the envelope as
/// [`crate::sandbox::EnvelopeJson`]: the JSON text the program is sent, the
/// same bytes as the value.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRow<'a, E = Cow<'a, Value>> {
    pub kind: String,
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub seq: Member<usize>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub action: Member<String>,
    /// `null` for a call without arguments (absent reads as `null` too).
    #[serde(default)]
    pub args: Option<Cow<'a, Value>>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub args_digest: Member<String>,
    /// The envelope the program got, its payload redacted (absent reads as
    /// `null`).
    #[serde(default)]
    pub envelope: E,
    /// The digest of the run's previous row ([`crate::chain`]).
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub prev_row_digest: Member<String>,
    /// The clock the action was given (to the nanosecond), so a live replay
    /// can give it the same one; absent when the action did not run.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub acted_at: Member<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallRow<'static> {
    /// A call row as [`read`] reads it, its arguments and envelope moved out
    /// of `row` rather than rebuilt: a long log holds many large envelopes.
    pub fn read(mut row: Value) -> Self {
        let mut take = |key: &str| row.as_object_mut().and_then(|m| m.shift_remove(key));
        let args = take("args").filter(|a| !a.is_null());
        let envelope = take("envelope").unwrap_or(Value::Null);
        CallRow {
            args: args.map(Cow::Owned),
            envelope: Cow::Owned(envelope),
            ..read(row)
        }
    }
}

/// A run's last row (`premath.scheme_eval.run_end.v0`): its verdict, and the
/// seal of its chain.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Footer {
    pub kind: String,
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub result: Member<String>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub failure_classes: Member<Vec<String>>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub value_digest: Member<String>,
    /// Replay compares what the program printed, too.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub output_digest: Member<String>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub output_truncated: Member<bool>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub finished_at: Member<String>,
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub session_id: Member<String>,
    /// The digest of the run's previous row ([`crate::chain`]).
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub prev_row_digest: Member<String>,
    /// [`crate::chain::Signer::sign`]'s signature over the chain head.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub signature: Member<Value>,
    /// [`crate::chain::footer_head`]: the digest of the footer without this
    /// member and `signature`.
    #[serde(default, skip_serializing_if = "Member::is_absent")]
    pub chain_head: Member<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Reads a row as `T`: every member of a record type is a [`Member`] or any
/// JSON, so only a row without a text `kind` or `runId` (which the reader
/// groups by, and skips without them) could fail; that gives the empty record.
pub fn read<'de, T, D>(row: D) -> T
where
    T: Deserialize<'de> + Default,
    D: Deserializer<'de>,
{
    T::deserialize(row).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::{EffectLog, ROW_KIND, RUN_END_KIND, RUN_KIND};
    use std::path::Path;

    /// Rows written before the rows had types, by `tusk eval` (a narrowed
    /// run, a signed run under redaction rules, a traced run, a program that
    /// is not UTF-8), `tusk repl` (a session reset) and `tusk mcp` (a
    /// principal's session run that fails).
    const RECORDED: &str = include_str!("recorded_rows.jsonl");

    fn kind(line: &str) -> String {
        let row: Value = serde_json::from_str(line).unwrap();
        row["kind"].as_str().unwrap().to_string()
    }

    /// `line` read as its kind's record, from the text and through a
    /// `Value` (as replay reads it), and written back.
    fn round_trip(line: &str) -> String {
        fn both<T: Serialize + DeserializeOwned + Default>(line: &str) -> String {
            let from_text: T = serde_json::from_str(line).unwrap();
            let from_value: T = read(serde_json::from_str::<Value>(line).unwrap());
            if kind(line) == ROW_KIND {
                let moved = CallRow::read(serde_json::from_str(line).unwrap());
                assert_eq!(serde_json::to_string(&moved).unwrap(), line);
            }
            let text = serde_json::to_string(&from_text).unwrap();
            assert_eq!(serde_json::to_string(&from_value).unwrap(), text);
            text
        }
        match kind(line).as_str() {
            RUN_KIND => both::<Header>(line),
            ROW_KIND => both::<CallRow>(line),
            RUN_END_KIND => both::<Footer>(line),
            other => panic!("not an effect-log row: {other}"),
        }
    }

    #[test]
    fn recorded_rows_read_and_write_back_to_the_same_bytes() {
        let mut kinds = Vec::new();
        for line in RECORDED.lines() {
            assert_eq!(round_trip(line), line);
            kinds.push(kind(line));
        }
        for k in [RUN_KIND, ROW_KIND, RUN_END_KIND] {
            assert!(kinds.iter().any(|seen| seen == k), "no {k} row");
        }
    }

    #[test]
    fn recorded_members_have_their_types() {
        let mut headers = Vec::new();
        for line in RECORDED.lines().filter(|l| kind(l) == RUN_KIND) {
            let h: Header = serde_json::from_str(line).unwrap();
            assert!(h.extra.is_empty(), "{:?}", h.extra);
            for typed in [
                h.program_digest.typed().is_some(),
                h.program.typed().is_some(),
                h.limits.typed().is_some(),
                h.host_actions.typed().is_some(),
                h.json_encoding == Member::Typed(crate::effects::JSON_ENCODING),
                h.authority.typed().is_some(),
                h.prev_row_digest == h.program_digest,
            ] {
                assert!(typed, "{line}");
            }
            headers.push(h);
        }
        let has = |f: fn(&Header) -> bool| headers.iter().any(f);
        assert!(has(|h| h.trace.typed().is_some_and(|t| t
            .span_id
            .typed()
            .is_some()
            && t.parent_span_id.typed().is_some())));
        assert!(has(|h| h.session_reset == Member::Typed(true)));
        assert!(has(
            |h| h.principal.typed().is_some() && h.session_id.typed().is_some()
        ));
        assert!(has(|h| h.invalid_utf8_at.typed().is_some()));
        assert!(has(|h| h.redact.typed().is_some()));
        for line in RECORDED.lines().filter(|l| kind(l) == ROW_KIND) {
            let row: CallRow = serde_json::from_str(line).unwrap();
            assert!(row.seq.typed().is_some() && row.args_digest.typed().is_some());
            assert!(row.envelope.is_object() && row.extra.is_empty());
        }
        for line in RECORDED.lines().filter(|l| kind(l) == RUN_END_KIND) {
            let footer: Footer = serde_json::from_str(line).unwrap();
            assert!(footer.value_digest.typed().is_some() && footer.extra.is_empty());
            // The head the writer computes over the typed footer is the recorded one.
            let body = serde_json::to_value(&footer).unwrap();
            assert_eq!(
                Some(&crate::chain::footer_head(&body)),
                footer.chain_head.typed()
            );
        }
    }

    #[test]
    fn an_unknown_member_is_kept_in_place() {
        let member = r#""futureMember":{"n":[1,2.5,-3,1e+300],"s":"é\n","z":null}"#;
        for line in RECORDED.lines() {
            let extended = format!("{},{member}}}", &line[..line.len() - 1]);
            assert_eq!(round_trip(&extended), extended);
        }
        let line = RECORDED.lines().find(|l| kind(l) == ROW_KIND).unwrap();
        let extended = format!("{},{member}}}", &line[..line.len() - 1]);
        let row: CallRow = serde_json::from_str(&extended).unwrap();
        assert_eq!(row.extra["futureMember"]["n"][1], 2.5);
        assert!(row.extra["futureMember"]["n"][0].is_u64());
    }

    #[test]
    fn a_malformed_member_is_kept_as_written_with_why() {
        let line = RECORDED.lines().find(|l| kind(l) == RUN_KIND).unwrap();
        let mut row: Value = serde_json::from_str(line).unwrap();
        row["limits"] = Value::from("fast");
        row["jsonEncoding"] = Value::from(2.0);
        row["program"] = Value::Null;
        let text = serde_json::to_string(&row).unwrap();
        assert!(text.contains(r#""jsonEncoding":2.0"#));
        assert_eq!(round_trip(&text), text);
        let h: Header = read(row);
        let expected = serde_json::from_value::<Limits>(Value::from("fast")).unwrap_err();
        assert_eq!(
            h.limits,
            Member::Malformed {
                value: Value::from("fast"),
                error: expected.to_string()
            }
        );
        assert!(matches!(h.json_encoding, Member::Malformed { .. }));
        assert_eq!(h.program.recorded(), Some(Value::Null));
        assert!(Header::default().program.recorded().is_none());
    }

    #[test]
    fn the_log_writes_a_recorded_run_again_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut log = EffectLog::open(&path).unwrap();
        // The first, unsigned, run: its header, call rows and footer.
        let lines: Vec<&str> = RECORDED.lines().take(3).collect();
        let mut header: Header = serde_json::from_str(lines[0]).unwrap();
        header.prev_row_digest = Member::Absent;
        log.append_header(&mut header).unwrap();
        let call: CallRow = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(
            call.prev_row_digest.typed().map(String::as_str),
            log.last_row_digest()
        );
        log.append(&call).unwrap();
        let mut footer: Footer = serde_json::from_str(lines[2]).unwrap();
        assert_eq!(kind(lines[2]), RUN_END_KIND);
        footer.prev_row_digest = Member::Absent;
        footer.chain_head = Member::Absent;
        log.append_footer(&mut footer, None).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(written, lines.join("\n") + "\n");
        // And replay reads every recorded run without a problem.
        let contents =
            crate::effects::parse_log(Path::new("recorded_rows.jsonl"), RECORDED.as_bytes())
                .unwrap();
        let read = crate::replay::log::group(contents);
        assert!(read.stray.is_empty() && read.warnings.is_empty());
        assert_eq!(read.runs.len(), 6);
        for run in &read.runs {
            assert_eq!(run.problem, None, "{}", run.run_id);
            assert!(run.chained && run.footer.is_some());
        }
    }
}

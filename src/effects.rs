//! The effect log (host-api §6): `.premath/host_effects.jsonl`.
//!
//! Each run appends a header row, one row per host call and a footer row.
//! Every row is one whole line written with a single `write` on an
//! `O_APPEND` file and flushed, so concurrent runs never interleave within a
//! line. A host killed mid-write leaves a torn line: readers skip any line
//! that is not a JSON object with a warning naming it (the runs around it
//! stay readable; a run missing its own rows is reported incomplete by the
//! replayer), and the next append starts a fresh line.
//!
//! The rows' types, shared by the writer and the reader, are in [`record`].

pub mod record;

use serde::Serialize;
use serde_json::Value;
use std::fs::File;
use std::path::{Path, PathBuf};

pub const RUN_KIND: &str = "premath.scheme_eval.run.v0";
pub const ROW_KIND: &str = "premath.host_effect.row.v0";
pub const RUN_END_KIND: &str = "premath.scheme_eval.run_end.v0";
/// The header's `jsonEncoding` since the empty list became `[]` (it was
/// `null` before); a header without it was written under the old rule.
pub const JSON_ENCODING: u64 = 2;

/// An effect log that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum EffectLogError {
    #[error("cannot write effect log {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read effect log {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("effect log {path}, line {line}: {reason}")]
    Corrupt {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// The shared store could not be used.
    #[error(transparent)]
    Store(#[from] crate::pg::PgError),
}

/// Appends rows to one effect log.
pub struct EffectLog {
    path: PathBuf,
    sink: Sink,
    /// The file ended in a torn line (a writer killed mid-write): the first
    /// append starts on a new line, so the fragment stays alone on its line
    /// and the new row is whole.
    torn_tail: bool,
    /// The digest of the last row this log appended (the run's chain so far).
    last_row: Option<String>,
    /// The line being written, kept between appends.
    line: crate::logs::LineBuffer,
}

enum Sink {
    File(File),
    /// One row per line in the shared store's `tusk_effects`, appended as
    /// it comes; fenced by the run's writer when it has one
    /// ([`crate::pg::writers`]).
    Db(std::sync::Arc<crate::pg::PgStore>, Option<String>),
}

impl EffectLog {
    /// Opens (creating file and parent directories) for appending.
    pub fn open(path: &Path) -> Result<Self, EffectLogError> {
        let wrap = |source| EffectLogError::Write {
            path: path.to_path_buf(),
            source,
        };
        let file = crate::logs::open_append(path).map_err(wrap)?;
        let torn_tail = crate::logs::ends_torn(&file).map_err(wrap)?;
        Ok(Self {
            path: path.to_path_buf(),
            sink: Sink::File(file),
            torn_tail,
            last_row: None,
            line: Default::default(),
        })
    }

    /// Opens the effect log wherever it lives.
    ///
    /// # Errors
    ///
    /// The file cannot be created or opened.
    pub fn open_store(log: &crate::logs::LogStore) -> Result<Self, EffectLogError> {
        match log {
            crate::logs::LogStore::File(path) => Self::open(path),
            crate::logs::LogStore::Postgres { pg, .. } => Ok(Self {
                path: log.path().to_path_buf(),
                sink: Sink::Db(pg.clone(), None),
                torn_tail: false,
                last_row: None,
                line: Default::default(),
            }),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The digest of the last row appended: what the next row of the run
    /// names as its `prevRowDigest` ([`crate::chain`]).
    pub fn last_row_digest(&self) -> Option<&str> {
        self.last_row.as_deref()
    }

    /// Appends every later row of this log on a database only while
    /// `writer`'s registration stands ([`crate::pg::writers`]): a run's
    /// rows never follow the footer another process closed it with.
    pub fn fence(&mut self, writer: Option<&str>) {
        if let Sink::Db(_, fenced) = &mut self.sink {
            *fenced = writer.map(str::to_string);
        }
    }

    /// Forgets the rows appended since the chain stood at `last`: the
    /// transaction that held them rolled back (issue 61), so the next row
    /// chains to `last`.
    pub fn rewind(&mut self, last: Option<String>) {
        self.last_row = last;
    }

    /// Appends a run's header, the first link of its chain: `prevRowDigest`
    /// is the header's own `programDigest` ([`crate::chain`]).
    pub fn append_header(&mut self, header: &mut record::Header) -> Result<(), EffectLogError> {
        header.prev_row_digest = header.program_digest.clone();
        self.append(header)
    }

    /// Appends a run's footer, sealing the chain: `prevRowDigest`, the
    /// `chainHead` over the footer, and a signature when `signer` is given.
    pub fn append_footer(
        &mut self,
        footer: &mut record::Footer,
        signer: Option<&crate::chain::Signer>,
    ) -> Result<(), EffectLogError> {
        if let Some(prev) = &self.last_row {
            footer.prev_row_digest = record::Member::Typed(prev.clone());
        }
        let body = serde_json::to_value(&*footer).map_err(|e| self.write_error(e))?;
        let head = crate::chain::footer_head(&body);
        if let Some(signer) = signer {
            footer.signature = record::Member::Typed(signer.sign(&head));
        }
        footer.chain_head = record::Member::Typed(head);
        // The head is computed without `chainHead` and `signature`, wherever
        // they sit: the reader removes both before recomputing.
        self.append(footer)
    }

    fn write_error(&self, e: serde_json::Error) -> EffectLogError {
        EffectLogError::Write {
            path: self.path.clone(),
            source: std::io::Error::other(e),
        }
    }

    /// Makes sure `more` bytes can be appended (the file-size limit, the
    /// file system's space) before a mutation whose row they are.
    pub fn reserve(&self, more: u64) -> Result<(), EffectLogError> {
        match &self.sink {
            Sink::File(file) => {
                crate::logs::reserve(file, more).map_err(|source| EffectLogError::Write {
                    path: self.path.clone(),
                    source,
                })
            }
            Sink::Db(..) => Ok(()),
        }
    }

    /// Appends one row as one line in one write.
    pub fn append<T: Serialize + ?Sized>(&mut self, row: &T) -> Result<(), EffectLogError> {
        let mut line = self.line.take();
        let written = self.write_line(&mut line, row);
        self.line.put_back(line);
        written
    }

    /// [`Self::append`] into `line` (empty): the row's text, its digest, then
    /// the write.
    fn write_line<T: Serialize + ?Sized>(
        &mut self,
        line: &mut Vec<u8>,
        row: &T,
    ) -> Result<(), EffectLogError> {
        // The torn fragment's line is ended first; the digest is the row's
        // own text.
        let torn = self.torn_tail && matches!(self.sink, Sink::File(_));
        if torn {
            line.push(b'\n');
        }
        serde_json::to_writer(&mut *line, row).map_err(|e| self.write_error(e))?;
        self.last_row = Some(crate::chain::row_digest(&line[usize::from(torn)..]));
        match &mut self.sink {
            Sink::File(file) => {
                line.push(b'\n');
                let written = crate::logs::write_whole(file, line);
                if written.is_ok() {
                    self.torn_tail = false;
                }
                written.map_err(|source| EffectLogError::Write {
                    path: self.path.clone(),
                    source,
                })
            }
            Sink::Db(pg, writer) => {
                let text = std::str::from_utf8(line).expect("serde_json writes UTF-8");
                let table = crate::pg::LogTable::Effects;
                match writer {
                    Some(w) => crate::pg::append_fenced(pg, table, &[text], w)?,
                    None => crate::pg::append_lines(pg, table, &[text])?,
                }
                Ok(())
            }
        }
    }
}

/// One row as read: where it is, the digest of its line, and its value
/// (a [`Value`], or a [`SplitRow`] for replay).
pub struct LogRow<R = Value> {
    pub line: usize,
    /// [`crate::chain::row_digest`] of the line as written.
    pub digest: String,
    pub row: R,
}

/// Rows of a log, with warnings for skipped lines.
pub struct LogContents<R = Value> {
    /// In file order.
    pub rows: Vec<LogRow<R>>,
    pub warnings: Vec<String>,
}

/// What a log line is parsed into.
pub trait ParsedRow: Sized + Send {
    /// The row, or `None` for JSON that is not an object.
    fn parse(text: &str) -> serde_json::Result<Option<Self>>;
}

impl ParsedRow for Value {
    fn parse(text: &str) -> serde_json::Result<Option<Self>> {
        serde_json::from_str::<Value>(text).map(|v| v.is_object().then_some(v))
    }
}

/// A row whose `envelope` member is kept as the JSON text it was written
/// as, out of `row`: replay hands a recorded envelope to the program as that
/// text and reads few of its members, and the envelope is most of a log, so
/// it is never made a [`Value`] unless asked for. With `envelope` `None`, the
/// envelope (if any) is still in `row`.
#[derive(Debug)]
pub struct SplitRow {
    pub row: Value,
    pub envelope: Option<Box<serde_json::value::RawValue>>,
    /// Where the envelope stood among the row's members.
    pub envelope_at: usize,
}

impl SplitRow {
    /// The whole row, its envelope a value again in its place (a footer's
    /// chain head is over its members in the order they were written).
    pub fn into_row(self) -> Value {
        let mut row = self.row;
        if let (Some(text), Some(members)) = (self.envelope, row.as_object_mut()) {
            let value = serde_json::from_str(text.get()).unwrap_or(Value::Null);
            members.shift_insert(self.envelope_at, "envelope".into(), value);
        }
        row
    }
}

impl From<Value> for SplitRow {
    fn from(row: Value) -> Self {
        SplitRow {
            row,
            envelope: None,
            envelope_at: 0,
        }
    }
}

impl ParsedRow for SplitRow {
    fn parse(text: &str) -> serde_json::Result<Option<Self>> {
        use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Split;
        impl<'de> Visitor<'de> for Split {
            type Value = Option<SplitRow>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut row = serde_json::Map::new();
                let mut envelope = None;
                let mut envelope_at = 0;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "envelope" {
                        // A repeated member keeps its first place and its
                        // last value, as in a Value.
                        if envelope.is_none() {
                            envelope_at = row.len();
                        }
                        envelope = Some(map.next_value()?);
                    } else {
                        row.insert(key, map.next_value()?);
                    }
                }
                Ok(Some(SplitRow {
                    row: Value::Object(row),
                    envelope,
                    envelope_at,
                }))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(None)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let row = (&mut de).deserialize_any(Split)?;
        de.end()?;
        Ok(row)
    }
}

/// Reads every row of an effect log.
pub fn read_log(path: &Path) -> Result<LogContents, EffectLogError> {
    read_log_as(path)
}

fn read_log_as<R: ParsedRow>(path: &Path) -> Result<LogContents<R>, EffectLogError> {
    let bytes = crate::files::read(path).map_err(|source| EffectLogError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(parse_log_as(path, &bytes))
}

/// Reads every row of an effect log wherever it lives (an absent file is the
/// same error as [`read_log`]'s).
pub fn read_log_store(log: &crate::logs::LogStore) -> Result<LogContents, EffectLogError> {
    read_log_store_as(log)
}

/// [`read_log_store`], each row parsed as `R`.
pub fn read_log_store_as<R: ParsedRow>(
    log: &crate::logs::LogStore,
) -> Result<LogContents<R>, EffectLogError> {
    match log {
        crate::logs::LogStore::File(path) => read_log_as(path),
        crate::logs::LogStore::Postgres { .. } => {
            let bytes = match log.read() {
                Ok(bytes) => bytes.unwrap_or_default(),
                Err(crate::logs::LogReadError::Store(e)) => return Err(e.into()),
                Err(crate::logs::LogReadError::Io(source)) => {
                    return Err(EffectLogError::Read {
                        path: log.path().to_path_buf(),
                        source,
                    })
                }
            };
            Ok(parse_log_as(log.path(), &bytes))
        }
    }
}

/// Parses effect-log bytes (see [`read_log`]). A large log is parsed in
/// pieces on several threads ([`crate::jsonl`]: each row stands alone, its
/// JSON and its digest); rows and warnings come back in file order either way.
pub fn parse_log(path: &Path, bytes: &[u8]) -> Result<LogContents, EffectLogError> {
    Ok(parse_log_as(path, bytes))
}

fn parse_log_as<R: ParsedRow>(path: &Path, bytes: &[u8]) -> LogContents<R> {
    parse_log_on(path, bytes, crate::jsonl::threads_for(bytes.len()))
}

/// [`parse_log`] on up to `threads` threads, each row parsed as `R`.
fn parse_log_on<R: ParsedRow>(path: &Path, bytes: &[u8], threads: usize) -> LogContents<R> {
    let ranges = crate::jsonl::split_at_lines(bytes, threads);
    // Each piece's first line number: the lines of the pieces before it.
    let mut pieces = Vec::with_capacity(ranges.len());
    let mut line = 1;
    for (start, end) in ranges {
        let piece = &bytes[start..end];
        pieces.push((piece, line));
        line += memchr::memchr_iter(b'\n', piece).count();
    }
    let parsed: Vec<LogContents<R>> = if pieces.len() == 1 {
        vec![parse_lines(path, bytes, 1)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = pieces
                .iter()
                .map(|&(piece, first_line)| {
                    scope.spawn(move || parse_lines(path, piece, first_line))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a parse thread does not panic"))
                .collect()
        })
    };
    let mut contents = LogContents {
        rows: Vec::with_capacity(parsed.iter().map(|p| p.rows.len()).sum()),
        warnings: Vec::new(),
    };
    for piece in parsed {
        contents.rows.extend(piece.rows);
        contents.warnings.extend(piece.warnings);
    }
    contents
}

/// Parses whole lines; `bytes` is the end of the log when it does not end
/// in a newline, and its first line is line `first_line`.
fn parse_lines<R: ParsedRow>(path: &Path, bytes: &[u8], first_line: usize) -> LogContents<R> {
    let mut contents = LogContents {
        rows: Vec::new(),
        warnings: Vec::new(),
    };
    let ends_with_newline = bytes.last() == Some(&b'\n');
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    let count = lines.len();
    for (i, raw) in lines.into_iter().enumerate() {
        let is_last = i + 1 == count || (i + 2 == count && ends_with_newline);
        let torn = is_last && !ends_with_newline;
        parse_line(path, raw, first_line + i, torn, &mut contents);
    }
    contents
}

/// One line of a log into `contents`: a row, or a warning naming it.
fn parse_line<R: ParsedRow>(
    path: &Path,
    raw: &[u8],
    line_no: usize,
    torn: bool,
    contents: &mut LogContents<R>,
) {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let parsed = std::str::from_utf8(raw)
        .map_err(|e| e.to_string())
        .and_then(|text| R::parse(text).map_err(|e| e.to_string()));
    match parsed {
        Ok(Some(row)) => contents.rows.push(LogRow {
            line: line_no,
            digest: crate::chain::row_digest(raw),
            row,
        }),
        // A fragment a killed writer left (the next append starts a new
        // line after it) or any other bad line: skipped with a warning
        // naming it. The runs around it still replay; a run that lost a
        // row to it is reported incomplete by the reader of the rows.
        Ok(None) => contents.warnings.push(format!(
            "warning: {}: skipping line {line_no}: not a JSON object",
            path.display()
        )),
        Err(reason) => {
            let what = if torn { "torn last line" } else { "line" };
            contents.warnings.push(format!(
                "warning: {}: skipping {what} {line_no} ({reason})",
                path.display()
            ));
        }
    }
}

/// The rows of the log file at `path` whose line `keep` accepts, read
/// line by line: what opening one run of a large log costs is that run's
/// rows, never the whole log in memory (issue 55). `keep` sees every
/// non-blank line, in order.
pub fn read_log_lines_as<R: ParsedRow>(
    path: &Path,
    keep: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<LogContents<R>, EffectLogError> {
    use std::io::BufRead;
    let read_error = |source| EffectLogError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::files::open_read(path).map_err(read_error)?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut contents = LogContents {
        rows: Vec::new(),
        warnings: Vec::new(),
    };
    let mut buf = Vec::new();
    let mut line_no = 0;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(read_error)?;
        if n == 0 {
            return Ok(contents);
        }
        line_no += 1;
        let torn = buf.last() != Some(&b'\n');
        let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
        if raw.iter().all(u8::is_ascii_whitespace) || !keep(raw) {
            continue;
        }
        parse_line(path, raw, line_no, torn, &mut contents);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_parsed_in_pieces_is_the_log_parsed_whole() {
        let p = Path::new("log.jsonl");
        let mut text = String::new();
        for i in 0..200 {
            match i % 37 {
                5 => text.push_str("{oops\n"),
                11 => text.push('\n'),
                _ => text.push_str(&format!(
                    "{{\"n\":{i},\"pad\":\"{}\"}}\n",
                    "x".repeat(i % 13)
                )),
            }
        }
        text.push_str("{\"torn\":");
        let whole = parse_log_on::<Value>(p, text.as_bytes(), 1);
        for n in [2, 3, 7, 64, 500] {
            // Threads, joined in file order: what a log over 4 MB gets.
            let c = parse_log_on(p, text.as_bytes(), n);
            let rows: Vec<_> = c
                .rows
                .into_iter()
                .map(|r| (r.line, r.digest, r.row))
                .collect();
            let warnings = c.warnings;
            let expected: Vec<_> = whole
                .rows
                .iter()
                .map(|r| (r.line, r.digest.clone(), r.row.clone()))
                .collect();
            assert_eq!(rows, expected, "{n} pieces");
            assert_eq!(warnings, whole.warnings, "{n} pieces");
        }
        assert!(
            whole
                .warnings
                .last()
                .unwrap()
                .contains("torn last line 201"),
            "{:?}",
            whole.warnings
        );
    }

    #[test]
    fn a_split_row_is_the_row_with_its_envelope_as_written() {
        let p = Path::new("log.jsonl");
        let envelope =
            r#"{"action":"issue.ready","payload":{"items":[1,{"a":"\u00e9"}],"n":1.5e3}}"#;
        let text = format!(
            "{{\"kind\":\"k\",\"envelope\":{envelope},\"seq\":1}}\n\
             {{\"kind\":\"k\",\"envelope\":1,\"a\":2,\"envelope\":{{\"last\":true}}}}\n\
             {{\"kind\":\"none\"}}\n\
             [1,{{\"envelope\":2}}]\n\
             \"text\"\n\
             {{\"kind\":\"k\",\"envelope\":{{\"open\":}}\n\
             {{\"kind\":\"k\"}} trailing\n"
        );
        let values = parse_log_on::<Value>(p, text.as_bytes(), 1);
        let split = parse_log_on::<SplitRow>(p, text.as_bytes(), 1);
        // The same lines skipped, with the same warnings.
        assert_eq!(split.warnings, values.warnings);
        assert_eq!(values.warnings.len(), 4, "{:?}", values.warnings);
        assert_eq!(split.rows.len(), values.rows.len());
        // The text is the bytes written, not a re-serialization.
        assert_eq!(split.rows[0].row.envelope.as_ref().unwrap().get(), envelope);
        assert_eq!(
            split.rows[1].row.envelope.as_ref().unwrap().get(),
            r#"{"last":true}"#
        );
        assert!(split.rows[2].row.envelope.is_none());
        for (s, v) in split.rows.into_iter().zip(&values.rows) {
            assert_eq!((s.line, &s.digest), (v.line, &v.digest));
            let mut rest = v.row.clone();
            rest.as_object_mut().unwrap().shift_remove("envelope");
            assert_eq!(s.row.row, rest);
            // Whole again, member for member and in order.
            assert_eq!(
                serde_json::to_string(&s.row.into_row()).unwrap(),
                serde_json::to_string(&v.row).unwrap()
            );
        }
    }

    #[test]
    fn bad_lines_are_skipped_with_a_warning_naming_them() {
        let p = Path::new("log.jsonl");
        let ok = parse_log(p, b"{\"a\":1}\n{\"b\":2}\n{\"c\":").unwrap();
        assert_eq!(ok.rows.len(), 2);
        assert_eq!(ok.warnings.len(), 1);
        assert!(
            ok.warnings[0].contains("torn last line 3"),
            "{:?}",
            ok.warnings
        );
        let mid = parse_log(p, b"{\"a\":1}\n{oops\n{\"b\":2}\n5\n").unwrap();
        assert_eq!(mid.rows.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 3]);
        assert!(mid.warnings[0].contains("line 2"), "{:?}", mid.warnings);
        assert!(mid.warnings[1].contains("line 4"), "{:?}", mid.warnings);
    }

    #[test]
    fn a_huge_row_does_not_stay_allocated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut log = EffectLog::open(&path).unwrap();
        log.append(&serde_json::json!({"a": "x".repeat(1 << 20)}))
            .unwrap();
        assert!(log.line.capacity() <= crate::logs::KEPT_LINE_BYTES);
        log.append(&serde_json::json!({"b": 2})).unwrap();
        assert!(log.line.capacity() > 0, "a small row's buffer is kept");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("\"}\n{\"b\":2}\n"));
    }

    #[test]
    fn an_append_after_a_torn_tail_starts_a_new_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"{\"a\":1}\n{\"kind\":\"premath.host_eff").unwrap();
        let mut log = EffectLog::open(&path).unwrap();
        log.append(&serde_json::json!({"b": 2})).unwrap();
        // The chain links the row's own text, not the newline ending the fragment.
        assert_eq!(
            log.last_row_digest(),
            Some(crate::chain::row_digest(b"{\"b\":2}").as_str())
        );
        log.append(&serde_json::json!({"c": 3})).unwrap();
        assert_eq!(
            log.last_row_digest(),
            Some(crate::chain::row_digest(b"{\"c\":3}").as_str())
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "{\"a\":1}\n{\"kind\":\"premath.host_eff\n{\"b\":2}\n{\"c\":3}\n"
        );
        let parsed = parse_log(&path, text.as_bytes()).unwrap();
        assert_eq!(parsed.rows.len(), 3);
    }
}

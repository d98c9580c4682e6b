//! Reading a log page by page without reading the whole log: backwards from
//! its end (or from a cursor) in chunks, or forwards from a known row. A
//! row's position is its byte offset in the file, or its `seq` in the
//! database table; either is the cursor a page hands to the next.

use crate::logs::LogStore;
use crate::pg::{LogTable, PgError, PgStore};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes read per step when walking a file backwards.
const CHUNK: u64 = 256 * 1024;
/// Rows fetched per query when walking a database table.
const BATCH: i64 = 1000;

/// One line of a log (newline excluded) and where it starts.
#[derive(Debug)]
pub struct Line {
    pub pos: u64,
    pub bytes: Vec<u8>,
}

/// A log that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TailError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] PgError),
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TailError + '_ {
    move |source| TailError::Io {
        path: path.to_path_buf(),
        source,
    }
}

enum Back {
    Empty,
    File {
        path: PathBuf,
        file: File,
        /// Bytes `[0, next_end)` are not read yet.
        next_end: u64,
        /// The start of a line whose beginning lies before `next_end`.
        carry: Vec<u8>,
        /// The first chunk ends in a line still being written: drop it.
        drop_tail: bool,
    },
    Db {
        pg: Arc<PgStore>,
        table: LogTable,
        before: Option<i64>,
        done: bool,
    },
}

/// Lines of a log from newest to oldest, starting before a cursor.
pub struct Backward {
    source: Back,
    pending: VecDeque<Line>,
}

fn table_of(log: &LogStore) -> Option<(Arc<PgStore>, LogTable)> {
    match log {
        LogStore::Postgres { pg, table, .. } => Some((pg.clone(), *table)),
        LogStore::File(_) => None,
    }
}

impl Backward {
    /// Lines starting before `before` (a position from an earlier page), or
    /// from the end. A file's unterminated last line (a row being written, or
    /// torn) is not a row yet and is skipped.
    ///
    /// # Errors
    ///
    /// The file cannot be opened.
    pub fn open(log: &LogStore, before: Option<u64>) -> Result<Self, TailError> {
        let source = match (log, table_of(log)) {
            (_, Some((pg, table))) => Back::Db {
                pg,
                table,
                before: before.map(|b| b.min(i64::MAX as u64) as i64),
                done: false,
            },
            (LogStore::File(path), None) => match crate::files::open_read(path) {
                Ok(file) => {
                    let len = file.metadata().map_err(io(path))?.len();
                    let end = before.map_or(len, |b| b.min(len));
                    let mut last = [0u8; 1];
                    let drop_tail = before.is_none()
                        && end > 0
                        && file.read_exact_at(&mut last, end - 1).is_ok()
                        && last[0] != b'\n';
                    Back::File {
                        path: path.clone(),
                        file,
                        next_end: end,
                        carry: Vec::new(),
                        drop_tail,
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Back::Empty,
                Err(e) => return Err(io(path)(e)),
            },
            (LogStore::Postgres { .. }, None) => Back::Empty,
        };
        Ok(Self {
            source,
            pending: VecDeque::new(),
        })
    }

    /// The next older line, `None` at the log's start.
    ///
    /// # Errors
    ///
    /// A read or database error.
    pub fn next_line(&mut self) -> Result<Option<Line>, TailError> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Ok(Some(line));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Reads the next chunk into `pending`; false when nothing is left.
    fn fill(&mut self) -> Result<bool, TailError> {
        match &mut self.source {
            Back::Empty => Ok(false),
            Back::Db {
                pg,
                table,
                before,
                done,
            } => {
                if *done {
                    return Ok(false);
                }
                let rows = crate::pg::read_before(pg, *table, *before, BATCH)?;
                if (rows.len() as i64) < BATCH {
                    *done = true;
                }
                if let Some((seq, _)) = rows.last() {
                    *before = Some(*seq);
                }
                self.pending
                    .extend(rows.into_iter().map(|(seq, line)| Line {
                        pos: seq.max(0) as u64,
                        bytes: line.into_bytes(),
                    }));
                Ok(!self.pending.is_empty() || !*done)
            }
            Back::File {
                path,
                file,
                next_end,
                carry,
                drop_tail,
            } => {
                if *next_end == 0 {
                    if carry.is_empty() {
                        return Ok(false);
                    }
                    let bytes = std::mem::take(carry);
                    if !bytes.iter().all(u8::is_ascii_whitespace) {
                        self.pending.push_back(Line { pos: 0, bytes });
                    }
                    return Ok(true);
                }
                let start = next_end.saturating_sub(CHUNK);
                let mut data = vec![0u8; (*next_end - start) as usize];
                file.read_exact_at(&mut data, start).map_err(io(path))?;
                data.extend_from_slice(carry);
                carry.clear();
                *next_end = start;
                // Segments between newlines, newest first; the head segment
                // continues before `start` unless the file starts there.
                let mut end = data.len();
                if *drop_tail {
                    match memchr::memrchr(b'\n', &data) {
                        // The unterminated tail ends here: rows start before it.
                        Some(nl) => {
                            *drop_tail = false;
                            end = nl;
                        }
                        // All of this chunk is the tail; so may be more before it.
                        None => return Ok(start > 0),
                    }
                }
                while let Some(nl) = memchr::memrchr(b'\n', &data[..end]) {
                    let segment = &data[nl + 1..end];
                    if !segment.iter().all(u8::is_ascii_whitespace) {
                        self.pending.push_back(Line {
                            pos: start + nl as u64 + 1,
                            bytes: segment.to_vec(),
                        });
                    }
                    end = nl;
                }
                carry.extend_from_slice(&data[..end]);
                Ok(true)
            }
        }
    }
}

/// Lines of a log from a position onwards, oldest first.
pub enum Forward {
    Empty,
    File {
        path: PathBuf,
        reader: BufReader<File>,
        pos: u64,
    },
    Db {
        pg: Arc<PgStore>,
        table: LogTable,
        from: i64,
        pending: VecDeque<Line>,
        done: bool,
    },
}

impl Forward {
    /// Lines starting at `from` (a position a page handed out).
    ///
    /// # Errors
    ///
    /// The file cannot be opened.
    pub fn open(log: &LogStore, from: u64) -> Result<Self, TailError> {
        Ok(match (log, table_of(log)) {
            (_, Some((pg, table))) => Forward::Db {
                pg,
                table,
                from: from.min(i64::MAX as u64) as i64,
                pending: VecDeque::new(),
                done: false,
            },
            (LogStore::File(path), None) => match crate::files::open_read(path) {
                Ok(mut file) => {
                    file.seek(SeekFrom::Start(from)).map_err(io(path))?;
                    Forward::File {
                        path: path.clone(),
                        reader: BufReader::with_capacity(CHUNK as usize, file),
                        pos: from,
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Forward::Empty,
                Err(e) => return Err(io(path)(e)),
            },
            (LogStore::Postgres { .. }, None) => Forward::Empty,
        })
    }

    /// The next newer line, `None` at the log's end (an unterminated last
    /// line is not returned: it may still be being written).
    ///
    /// # Errors
    ///
    /// A read or database error.
    pub fn next_line(&mut self) -> Result<Option<Line>, TailError> {
        match self {
            Forward::Empty => Ok(None),
            Forward::File { path, reader, pos } => loop {
                let mut bytes = Vec::new();
                let n = reader.read_until(b'\n', &mut bytes).map_err(io(path))?;
                if n == 0 || bytes.last() != Some(&b'\n') {
                    return Ok(None);
                }
                let at = *pos;
                *pos += n as u64;
                bytes.pop();
                if !bytes.iter().all(u8::is_ascii_whitespace) {
                    return Ok(Some(Line { pos: at, bytes }));
                }
            },
            Forward::Db {
                pg,
                table,
                from,
                pending,
                done,
            } => loop {
                if let Some(line) = pending.pop_front() {
                    return Ok(Some(line));
                }
                if *done {
                    return Ok(None);
                }
                let rows = crate::pg::read_from(pg, *table, *from, BATCH)?;
                if (rows.len() as i64) < BATCH {
                    *done = true;
                }
                if let Some((seq, _)) = rows.last() {
                    *from = seq + 1;
                }
                pending.extend(rows.into_iter().map(|(seq, line)| Line {
                    pos: seq.max(0) as u64,
                    bytes: line.into_bytes(),
                }));
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_back(text: &str, before: Option<u64>) -> Vec<(u64, String)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, text).unwrap();
        let mut back = Backward::open(&LogStore::File(path), before).unwrap();
        let mut out = Vec::new();
        while let Some(l) = back.next_line().unwrap() {
            out.push((l.pos, String::from_utf8(l.bytes).unwrap()));
        }
        out
    }

    #[test]
    fn backwards_newest_first_with_positions() {
        let text = "a\nbb\n\nccc\n";
        assert_eq!(
            lines_back(text, None),
            [(6, "ccc".into()), (2, "bb".into()), (0, "a".into())]
        );
        assert_eq!(
            lines_back(text, Some(6)),
            [(2, "bb".into()), (0, "a".into())]
        );
        // A line still being written is not a row yet.
        assert_eq!(
            lines_back("a\nbb\n{\"tor", None),
            [(2, "bb".into()), (0, "a".into())]
        );
    }

    #[test]
    fn backwards_across_chunks() {
        let long = "x".repeat(CHUNK as usize + 10);
        let text = format!("first\n{long}\nlast\n");
        let got = lines_back(&text, None);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].1, "last");
        assert_eq!(got[1].1, long);
        assert_eq!(got[2], (0, "first".into()));
        // An unterminated tail longer than a chunk is dropped whole.
        let torn = format!("first\n{long}");
        assert_eq!(lines_back(&torn, None), [(0, "first".into())]);
    }

    #[test]
    fn forward_from_a_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, "a\nbb\nccc\nunterminated").unwrap();
        let mut fwd = Forward::open(&LogStore::File(path), 2).unwrap();
        assert_eq!(fwd.next_line().unwrap().unwrap().pos, 2);
        assert_eq!(fwd.next_line().unwrap().unwrap().bytes, b"ccc");
        assert!(fwd.next_line().unwrap().is_none());
    }
}

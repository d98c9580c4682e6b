//! Where an append-only JSONL log (the trajectory, the effect log) lives: its
//! file, or its table in a shared PostgreSQL store. Readers see the same JSONL
//! bytes either way, so every reader is the file reader.

pub mod writers;

use crate::pg::{LogTable, PgError, PgStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LogReadError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Store(#[from] PgError),
}

/// One log's location.
#[derive(Clone, Debug)]
pub enum LogStore {
    File(PathBuf),
    Postgres {
        pg: Arc<PgStore>,
        table: LogTable,
        /// `<url>#trajectory`: what reports and messages name.
        shown: PathBuf,
    },
}

impl LogStore {
    /// The log `table` of the database `pg`.
    pub fn postgres(pg: Arc<PgStore>, table: LogTable) -> Self {
        let fragment = match table {
            LogTable::Trajectory => "trajectory",
            LogTable::Effects => "effects",
        };
        let shown = PathBuf::from(format!("{}#{fragment}", pg.shown()));
        LogStore::Postgres { pg, table, shown }
    }

    /// The file, or the database URL (no password) with the table as fragment.
    pub fn path(&self) -> &Path {
        match self {
            LogStore::File(path) => path,
            LogStore::Postgres { shown, .. } => shown,
        }
    }

    /// The log's bytes as its file would hold them; `None` for an absent file.
    ///
    /// # Errors
    ///
    /// The file's read error, or a database error.
    pub fn read(&self) -> Result<Option<Vec<u8>>, LogReadError> {
        match self {
            LogStore::File(path) => match crate::files::read(path) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e.into()),
            },
            LogStore::Postgres { pg, table, .. } => Ok(Some(crate::pg::read_lines(pg, *table)?)),
        }
    }

    /// Runs a file reader on the log: the file itself, or (for a database) its
    /// rows spooled to a private temporary file, so that large logs are still
    /// read in parallel chunks by the same code.
    ///
    /// # Errors
    ///
    /// `f`'s error, or the spooling's (through `wrap`).
    pub fn with_file<T, E>(
        &self,
        wrap: impl FnOnce(LogReadError) -> E,
        f: impl FnOnce(&Path) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            LogStore::File(path) => f(path),
            LogStore::Postgres { .. } => {
                let spooled = (|| -> Result<_, LogReadError> {
                    let bytes = self.read()?.unwrap_or_default();
                    let mut tmp = tempfile::NamedTempFile::new()?;
                    std::io::Write::write_all(&mut tmp, &bytes)?;
                    Ok(tmp)
                })();
                match spooled {
                    Ok(tmp) => f(tmp.path()),
                    Err(e) => Err(wrap(e)),
                }
            }
        }
    }
}

/// The largest line buffer a log writer keeps for its next row: a run's
/// rows reuse one buffer, but one huge row should not stay allocated for the
/// rest of the run.
pub(crate) const KEPT_LINE_BYTES: usize = 64 * 1024;

/// What a line buffer starts with: a call row with a small envelope fits
/// without growing.
const LINE_CAPACITY: usize = 2048;

/// A log writer's line buffer, kept between rows: a run writes two rows per
/// host call, and a fresh `Vec` for each grew by reallocation from 128 bytes.
#[derive(Debug, Default)]
pub(crate) struct LineBuffer(Vec<u8>);

impl LineBuffer {
    /// The buffer, empty, for the next row.
    pub(crate) fn take(&mut self) -> Vec<u8> {
        let mut line = std::mem::take(&mut self.0);
        line.clear();
        line.reserve(LINE_CAPACITY);
        line
    }

    /// Keeps `line` for the next row, unless it is over [`KEPT_LINE_BYTES`].
    pub(crate) fn put_back(&mut self, line: Vec<u8>) {
        if line.capacity() <= KEPT_LINE_BYTES {
            self.0 = line;
        }
    }

    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.0.capacity()
    }
}

/// Opens a log file for reading and appending, creating it, and its
/// directory only when the first open finds none: the warm path opens logs
/// in a directory that exists, and pays one `openat` for it, not a `mkdir`
/// and a `statx` besides (tests/it/syscalls.rs counts them).
pub(crate) fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    let open = || {
        crate::files::open(
            std::fs::OpenOptions::new()
                .read(true)
                .append(true)
                .create(true),
            path,
        )
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match path.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(dir) => std::fs::create_dir_all(dir)?,
                None => return Err(e),
            }
            open()
        }
        other => other,
    }
}

/// Makes sure `more` bytes can be appended to `file` before a mutation is
/// made whose rows they are (docs/sandbox.md, "Files"): the file-size limit
/// allows them, and the file system has allocated them (`fallocate` with
/// `FALLOC_FL_KEEP_SIZE`: the blocks are the file's, its size unchanged). A
/// file system without `fallocate` reserves nothing; a row that then cannot
/// be written is undone by [`write_whole`] and refused after the fact.
pub(crate) fn reserve(file: &std::fs::File, more: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = file.metadata()?.len();
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } == 0
        && limit.rlim_cur != libc::RLIM_INFINITY
        && len.saturating_add(more) > limit.rlim_cur
    {
        return Err(std::io::Error::from_raw_os_error(libc::EFBIG));
    }
    let (Ok(at), Ok(n)) = (libc::off_t::try_from(len), libc::off_t::try_from(more)) else {
        return Err(std::io::Error::from_raw_os_error(libc::EFBIG));
    };
    // SAFETY: fallocate on a descriptor this process owns.
    if unsafe { libc::fallocate(file.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, at, n) } == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EOPNOTSUPP | libc::ENOSYS | libc::ENODEV | libc::ESPIPE) => Ok(()),
        _ => Err(e),
    }
}

/// Appends `line` whole or not at all: a write that fails part-way (a full
/// disk, a file-size limit) has its written part cut off again, so no torn
/// row is left (when nothing was appended after it meanwhile).
pub(crate) fn write_whole(file: &mut std::fs::File, line: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut written = 0;
    while written < line.len() {
        match file.write(&line[written..]) {
            Ok(0) => {
                undo_tail(file, &line[..written]);
                return Err(std::io::Error::from(std::io::ErrorKind::WriteZero));
            }
            Ok(n) => written += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                undo_tail(file, &line[..written]);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Cuts `part` off the end of `file` if that is where it is.
fn undo_tail(file: &std::fs::File, part: &[u8]) {
    use std::os::unix::fs::FileExt;
    if part.is_empty() {
        return;
    }
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return;
    };
    let Some(start) = len.checked_sub(part.len() as u64) else {
        return;
    };
    let mut tail = vec![0u8; part.len()];
    if file.read_exact_at(&mut tail, start).is_ok() && tail == part {
        let _ = file.set_len(start);
    }
}

/// Whether a non-empty file's last byte is not a newline.
pub(crate) fn ends_torn(file: &std::fs::File) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    Ok(last[0] != b'\n')
}

//! Opening tusk's own files (stores, logs, lock files, session, ledger):
//! never through a final symbolic link (docs/sandbox.md, "Files").
//!
//! A repository can carry a symlink: `.premath/host_effects.jsonl` pointing
//! at a shell's rc file would have every run append to it, and a planted
//! lock file would make tusk create a file wherever it points. So:
//!
//! - every open of such a file passes `O_NOFOLLOW`; a symlink is refused
//!   with its path ([`symlink_refused`]);
//! - a file replaced by rename is checked with `lstat` first ([`refuse_symlink`]):
//!   a rename would replace the link itself, silently turning it into a
//!   file of tusk's.
//!
//! Only the final component is checked: the directories on the way are the
//! operator's to choose.
//!
//! And every file is a regular file read under a size cap (issue 55): a
//! link to `/dev/zero` or a FIFO in place of the policy, a token file or a
//! lock file must not read forever or block. Opens pass `O_NONBLOCK` (a
//! FIFO opens at once instead of waiting for a writer) and anything that is
//! not a regular file is refused with what it is; reads stop one byte past
//! their cap ([`read_capped`]). Paths named on the command line get the same
//! treatment as tusk's own.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The error for a file that is a symbolic link.
pub fn symlink_refused(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link; tusk does not read or write its files through symlinks \
             (replace the link with the file itself)",
            path.display()
        ),
    )
}

/// The cap on a configuration file: a policy, a token file, `config.json`,
/// a retry policy, a key, a session file, a witness.
pub const CONFIG_MAX: u64 = 1 << 20;
/// The cap on an input a command is handed: a program, a request, a
/// join-check input, a vector, an events file.
pub const INPUT_MAX: u64 = 64 << 20;
/// The cap on a store, a ledger or a log read whole.
pub const DATA_MAX: u64 = 4 << 30;

/// `options` opened at `path` without following a final symlink, without
/// blocking (a FIFO), and only when it is a regular file.
pub fn open(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| explained(path, e))?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(not_regular(path, &kind));
    }
    Ok(file)
}

/// The error for a path that is not a regular file.
fn not_regular(path: &Path, kind: &std::fs::FileType) -> io::Error {
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {what}; tusk reads and writes only regular files (name the file itself)",
            path.display()
        ),
    )
}

/// `path` opened for reading, not through a final symlink, a regular file.
pub fn open_read(path: &Path) -> io::Result<File> {
    open(OpenOptions::new().read(true), path)
}

/// The bytes at `path` (a regular file, not through a final symlink), at
/// most `cap` of them: a longer file is an error naming the cap.
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_read(path)?;
    let too_big = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is larger than tusk reads for this file ({})",
                path.display(),
                human_bytes(cap)
            ),
        )
    };
    let len = file.metadata()?.len();
    if len > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    io::Read::read_to_end(&mut io::Read::take(file, cap + 1), &mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Standard input, at most `cap` bytes.
pub fn read_stdin(cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(io::stdin().lock(), cap + 1), &mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "standard input is larger than tusk reads for it ({})",
                human_bytes(cap)
            ),
        ));
    }
    Ok(bytes)
}

/// A size in the unit that reads best.
pub fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// The bytes of a store, ledger or log at `path` ([`read_capped`] at
/// [`DATA_MAX`]).
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_capped(path, DATA_MAX)
}

/// The UTF-8 text at `path`, at most `cap` bytes ([`read_capped`]).
pub fn read_to_string(path: &Path, cap: u64) -> io::Result<String> {
    String::from_utf8(read_capped(path, cap)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })
}

/// Refuses a path that is a symbolic link (before a rename replaces it).
pub fn refuse_symlink(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(symlink_refused(path)),
        _ => Ok(()),
    }
}

/// The prefix of a temp file that replaces a file by rename (the harness's
/// files): recovery removes one a dead writer left (`issues::journal`).
pub const REPLACE_TEMP_PREFIX: &str = ".tusk-tmp-";

/// Replaces (or creates) `path` with `bytes` through a temp file in its
/// directory: written, given the file's mode (0644 for a new one), synced,
/// renamed over it. A reader never sees half a file; a symlink is refused.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_as(path, bytes, None)
}

/// [`write_atomically`], the file created with `mode` (a private file, such
/// as a token file, is never readable by others, not even for a moment).
pub fn write_atomically_with_mode(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    write_atomically_as(path, bytes, Some(mode))
}

fn write_atomically_as(path: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    refuse_symlink(path)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".tusk-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    // The temporary file is created 0600; it takes its final mode before
    // its contents are visible under `path`.
    tmp.write_all(bytes)?;
    let permissions = match (mode, std::fs::metadata(path)) {
        (Some(mode), _) => std::fs::Permissions::from_mode(mode),
        (None, Ok(meta)) => meta.permissions(),
        (None, Err(_)) => std::fs::Permissions::from_mode(0o644),
    };
    std::fs::set_permissions(tmp.path(), permissions)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `O_NOFOLLOW` on a symlink is `ELOOP`: said plainly.
fn explained(path: &Path, e: io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(libc::ELOOP) => symlink_refused(path),
        // A FIFO opened for writing without blocking, no reader at its end.
        Some(libc::ENXIO) => match std::fs::symlink_metadata(path) {
            Ok(meta) => not_regular(path, &meta.file_type()),
            Err(_) => e,
        },
        _ => e,
    }
}

/// Whether `named` is the file `known`: the same path, or both resolve to
/// one existing file.
pub(crate) fn same_file(named: &Path, known: &Path) -> bool {
    named == known
        || named.exists() && std::fs::canonicalize(named).ok() == std::fs::canonicalize(known).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_refused_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "secret").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = read(&link).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        let e = open(OpenOptions::new().append(true).create(true), &link).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        assert!(refuse_symlink(&link).is_err());
        assert_eq!(read(&target).unwrap(), b"secret");
        assert!(refuse_symlink(&target).is_ok());
        assert!(refuse_symlink(&dir.path().join("absent")).is_ok());
        assert_eq!(std::fs::read(&target).unwrap(), b"secret");
    }

    #[test]
    fn fifos_devices_and_big_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = read_capped(&fifo, CONFIG_MAX).unwrap_err();
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        let e = open(OpenOptions::new().write(true).create(true), &fifo).unwrap_err();
        assert!(e.to_string().contains("is a FIFO"), "{e}");
        let e = read_capped(Path::new("/dev/zero"), CONFIG_MAX).unwrap_err();
        assert!(e.to_string().contains("is a device"), "{e}");
        let e = read_capped(dir.path(), CONFIG_MAX).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 2000]).unwrap();
        let e = read_capped(&big, 1024).unwrap_err();
        assert!(
            e.to_string()
                .contains("larger than tusk reads for this file (1 KiB)"),
            "{e}"
        );
        assert_eq!(read_capped(&big, 2000).unwrap().len(), 2000);
    }
}

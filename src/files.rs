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

/// `options` opened at `path` without following a final symlink.
pub fn open(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    options
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| explained(path, e))
}

/// `path` opened for reading, not through a final symlink.
pub fn open_read(path: &Path) -> io::Result<File> {
    open(OpenOptions::new().read(true), path)
}

/// The bytes at `path`, not read through a final symlink.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_read(path)?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// The text at `path`, not read through a final symlink.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Refuses a path that is a symbolic link (before a rename replaces it).
pub fn refuse_symlink(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(symlink_refused(path)),
        _ => Ok(()),
    }
}

/// Replaces (or creates) `path` with `bytes` through a temp file in its
/// directory: written, given the file's mode (0644 for a new one), synced,
/// renamed over it. A reader never sees half a file; a symlink is refused.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
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
    tmp.write_all(bytes)?;
    let permissions = match std::fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => std::fs::Permissions::from_mode(0o644),
    };
    std::fs::set_permissions(tmp.path(), permissions)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `O_NOFOLLOW` on a symlink is `ELOOP`: said plainly.
fn explained(path: &Path, e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        symlink_refused(path)
    } else {
        e
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
}

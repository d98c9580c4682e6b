//! The issue store inside a git repository (issue 48; docs/issue-memory.md,
//! "Wiring"): `.gitattributes` routes the store and the feature ledger to
//! tusk's merge driver and the two append-only logs to git's `union`
//! driver, and the repository's config names the driver. What is one
//! clone's alone — the session handoff, lock files, journals — is ignored
//! (issue 60: two clones' agents never conflict on `.premath/`). `tusk init` writes both; `tusk doctor` checks
//! them. Git is run as the `git` program; without it, or outside a work
//! tree, there is nothing to wire.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The attribute value that routes a store to tusk's driver.
pub const DRIVER: &str = "tusk";
/// git's built-in line-union driver, for the append-only logs.
pub const UNION: &str = "union";
/// `merge.tusk.name`.
pub const DRIVER_NAME: &str = "tusk issue store (three-way, by id)";

/// The logs beside the store: append-only, so a union of rows merges them.
pub const LOG_FILES: [&str; 2] = ["host_effects.jsonl", "harness_trajectory.jsonl"];

/// Files beside the store that tusk's driver merges too (by feature id).
pub const DRIVER_FILES: [&str; 1] = ["harness_feature_ledger.json"];

/// Files beside the store that are one clone's alone, ignored by git: the
/// session handoff (the next run on this clone reads it; two clones' would
/// conflict on every merge), every lock file, and the idempotency keys and
/// kept plans of this clone's runs (issue 59: made and applied here).
pub const CLONE_FILES: [&str; 4] = [
    "/harness_session.json",
    "/*.lock",
    "/idempotency/",
    "/plans/",
];

fn git(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
}

fn git_text(dir: &Path, args: &[&str]) -> Option<String> {
    let out = git(dir, args)?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// The top of the work tree `dir` is in; `None` outside one (or without git).
pub fn work_tree(dir: &Path) -> Option<PathBuf> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let top = git_text(dir, &["rev-parse", "--show-toplevel"])?;
    (!top.is_empty()).then(|| PathBuf::from(top))
}

/// `path` relative to the work tree `top`, with `/` separators (what
/// `.gitattributes` and `git check-attr` take); `None` when it is outside.
pub fn relative(top: &Path, path: &Path) -> Option<String> {
    let top = top.canonicalize().ok()?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new(".")).canonicalize().ok()?;
    let rel = dir.strip_prefix(&top).ok()?.join(path.file_name()?);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// The command git runs (`merge.tusk.driver`): this program by its bare
/// name when `tusk` on `PATH` is this very program (issue 60: the driver
/// then survives the binary's being moved or upgraded, as long as `tusk`
/// stays on `PATH`), else by its path.
pub fn driver_command() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let on_path = exe.as_deref().is_some_and(|exe| {
        on_path("tusk")
            .and_then(|p| p.canonicalize().ok())
            .as_deref()
            == Some(exe)
    });
    let exe = if on_path {
        "tusk".to_string()
    } else {
        exe.map_or_else(|| "tusk".to_string(), |p| p.display().to_string())
    };
    // git expands `%` sequences in the driver's command line: a `%` of the
    // path is written `%%`.
    format!(
        "{} merge-driver %O %A %B %P",
        shell_quote(&exe).replace('%', "%%")
    )
}

/// `diff.tusk.textconv`: the store as text a person reads, one member per
/// line (`tusk issue textconv`), named as the merge driver names tusk.
pub fn textconv_command() -> String {
    let merge = driver_command();
    let program = merge
        .strip_suffix(" merge-driver %O %A %B %P")
        .unwrap_or("tusk")
        .replace("%%", "%");
    format!("{program} issue textconv")
}

/// The store's text at revision `rev` (`git show REV:PATH`; a revision
/// without the file holds an empty store).
///
/// # Errors
/// An unknown revision, or git failing: git's words.
pub fn show(top: &Path, rev: &str, rel: &str) -> Result<String, String> {
    let out = git(top, &["show", &format!("{rev}:{rel}")])
        .ok_or_else(|| "git could not be run".to_string())?;
    if out.status.success() {
        return String::from_utf8(out.stdout).map_err(|_| format!("{rev}:{rel} is not UTF-8 text"));
    }
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let known = git(
        top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .is_some_and(|o| o.status.success());
    if known {
        // The revision is there; the store was not yet.
        Ok(String::new())
    } else {
        Err(format!("{rev}: not a revision of this repository ({err})"))
    }
}

/// The file `name` resolves to on `PATH` (the first executable file), as
/// git's shell would find it.
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `path` as a `.gitattributes` pattern that matches exactly that path:
/// glob characters escaped with a backslash, and the whole pattern quoted
/// C-style (which git reads since 2.13) when it holds a space, a quote, a
/// backslash, a byte outside printable ASCII, or starts with `#` or `!`.
pub fn attribute_pattern(path: &str) -> String {
    let mut globbed = String::with_capacity(path.len());
    for c in path.chars() {
        if "*?[]\\".contains(c) {
            globbed.push('\\');
        }
        globbed.push(c);
    }
    let plain = path
        .bytes()
        .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        && !path.starts_with(['#', '!']);
    if plain {
        return globbed;
    }
    let mut quoted = String::from("\"");
    for b in globbed.bytes() {
        match b {
            b'"' => quoted.push_str("\\\""),
            b'\\' => quoted.push_str("\\\\"),
            b' ' => quoted.push(' '),
            b if b.is_ascii_graphic() => quoted.push(char::from(b)),
            b => quoted.push_str(&format!("\\{b:03o}")),
        }
    }
    quoted.push('"');
    quoted
}

fn shell_quote(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The `.gitattributes` lines for a store at `store_rel` (and its logs).
pub fn attribute_lines(store_rel: &str) -> Vec<String> {
    let dir = store_rel.rsplit_once('/').map_or("", |(d, _)| d);
    let beside = |file: &str| match dir {
        "" => attribute_pattern(file),
        dir => attribute_pattern(&format!("{dir}/{file}")),
    };
    let mut lines = vec![
        format!("{} merge={DRIVER}", attribute_pattern(store_rel)),
        format!("{} diff={DRIVER}", attribute_pattern(store_rel)),
    ];
    lines.extend(DRIVER_FILES.map(|f| format!("{} merge={DRIVER}", beside(f))));
    lines.extend(LOG_FILES.map(|f| format!("{} merge={UNION}", beside(f))));
    lines
}

/// What [`wire`] found and changed.
#[derive(Debug)]
pub struct Wired {
    pub top: PathBuf,
    pub attributes: PathBuf,
    pub attributes_added: Vec<String>,
    pub driver: String,
    pub driver_set: bool,
    /// The `.gitignore` beside the store, and whether the store's lock file
    /// (`<store>.lock`, left in place between mutations) or its journal
    /// directory (`<store>.pending/`) was added to it.
    pub ignore: PathBuf,
    pub ignore_added: bool,
}

/// Adds to the file `path` those of `lines` it does not hold yet (written
/// atomically, once); the lines added.
fn ensure_lines(path: &Path, lines: &[String]) -> Result<Vec<String>, String> {
    let text = match crate::files::read_to_string(path, crate::files::CONFIG_MAX) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let present: Vec<&str> = text.lines().map(str::trim).collect();
    let added: Vec<String> = lines
        .iter()
        .filter(|l| !present.contains(&l.as_str()))
        .cloned()
        .collect();
    if added.is_empty() {
        return Ok(added);
    }
    let mut new = text.clone();
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    for line in &added {
        new.push_str(line);
        new.push('\n');
    }
    crate::files::write_atomically(path, new.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(added)
}

/// Adds the store's lines to `<top>/.gitattributes` (those missing, written
/// atomically) and sets `merge.tusk.name` / `merge.tusk.driver` in the
/// repository's config when they differ. `Ok(None)` outside a work tree.
///
/// # Errors
/// A `.gitattributes` that cannot be read or written, or `git config` failing.
pub fn wire(store: &Path) -> Result<Option<Wired>, String> {
    let Some(top) = work_tree(store.parent().unwrap_or(Path::new("."))) else {
        return Ok(None);
    };
    let Some(rel) = relative(&top, store) else {
        return Ok(None);
    };
    let attributes = top.join(".gitattributes");
    let added = ensure_lines(&attributes, &attribute_lines(&rel))?;
    let driver = driver_command();
    let mut driver_set = false;
    for (key, value) in [
        ("merge.tusk.name", DRIVER_NAME.to_string()),
        ("merge.tusk.driver", driver.clone()),
        ("diff.tusk.textconv", textconv_command()),
    ] {
        if git_text(&top, &["config", "--get", key]).as_deref() != Some(value.as_str()) {
            let ok = git(&top, &["config", key, &value]).is_some_and(|o| o.status.success());
            if !ok {
                return Err(format!("`git config {key}` failed in {}", top.display()));
            }
            driver_set = true;
        }
    }
    // The lock file stays beside the store: `git add -A` would commit it.
    let store_dir = store.parent().unwrap_or(Path::new("."));
    let ignore = store_dir.join(".gitignore");
    let lock_name = crate::issues::store::lock_path(store)
        .file_name()
        .map(|n| format!("/{}", n.to_string_lossy()))
        .unwrap_or_default();
    // So does the journal directory (issue 61): its writer markers belong to
    // this machine's live processes, and another clone would settle them.
    let pending = crate::issues::journal::dir_of(store)
        .file_name()
        .map(|n| format!("/{}/", n.to_string_lossy()))
        .unwrap_or_default();
    let mut ignored = vec![lock_name.clone(), pending];
    ignored.extend(CLONE_FILES.iter().map(|f| f.to_string()));
    let ignore_added = !lock_name.is_empty() && !ensure_lines(&ignore, &ignored)?.is_empty();
    Ok(Some(Wired {
        top,
        attributes,
        attributes_added: added,
        driver,
        driver_set,
        ignore,
        ignore_added,
    }))
}

/// The `merge` attribute git gives `rel` in the work tree `top`.
pub fn merge_attribute(top: &Path, rel: &str) -> Option<String> {
    let out = git_text(top, &["check-attr", "merge", "--", rel])?;
    let value = out.rsplit_once(": ")?.1.to_string();
    Some(value)
}

/// The configured `merge.tusk.driver`, if any.
pub fn configured_driver(top: &Path) -> Option<String> {
    git_text(top, &["config", "--get", "merge.tusk.driver"])
}

/// The program a driver command runs (its first shell word, unquoted).
pub fn driver_program(command: &str) -> String {
    let command = command.trim_start();
    if let Some(rest) = command.strip_prefix('\'') {
        // `'a'\''b'` spells a quote inside a single-quoted word.
        let mut out = String::new();
        let mut rest = rest;
        loop {
            let Some(end) = rest.find('\'') else {
                out.push_str(rest);
                return out;
            };
            out.push_str(&rest[..end]);
            rest = &rest[end + 1..];
            match rest.strip_prefix("\\''") {
                Some(more) => {
                    out.push('\'');
                    rest = more;
                }
                None => return out,
            }
        }
    }
    command.split_whitespace().next().unwrap_or("").to_string()
}

/// Whether git tracks `rel` in the work tree `top`.
pub fn tracked(top: &Path, rel: &str) -> bool {
    tracked_in(top, rel)
}

/// Whether git ignores `rel` (a path relative to the work tree `top`).
pub fn ignored(top: &Path, rel: &str) -> bool {
    git(top, &["check-ignore", "-q", "--no-index", "--", rel]).is_some_and(|o| o.status.success())
}

fn tracked_in(top: &Path, rel: &str) -> bool {
    git(top, &["ls-files", "--error-unmatch", "--", rel]).is_some_and(|o| o.status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_lines_sit_beside_the_store() {
        assert_eq!(
            attribute_lines(".premath/issues.jsonl"),
            [
                ".premath/issues.jsonl merge=tusk",
                ".premath/issues.jsonl diff=tusk",
                ".premath/harness_feature_ledger.json merge=tusk",
                ".premath/host_effects.jsonl merge=union",
                ".premath/harness_trajectory.jsonl merge=union"
            ]
        );
        assert_eq!(
            attribute_lines("i.jsonl")[3],
            "host_effects.jsonl merge=union"
        );
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
        assert_eq!(
            attribute_pattern("my dir/.premath/issues.jsonl"),
            "\"my dir/.premath/issues.jsonl\""
        );
        assert_eq!(attribute_pattern("a[1]/x*.jsonl"), "a\\[1\\]/x\\*.jsonl");
        assert_eq!(
            attribute_pattern("#c/\"q\" é"),
            "\"#c/\\\"q\\\" \\303\\251\""
        );
        assert_eq!(shell_quote("/usr/bin/tusk"), "/usr/bin/tusk");
        assert_eq!(
            driver_program("'/a b/it'\\''s' merge-driver %O"),
            "/a b/it's"
        );
        assert_eq!(
            driver_program("/usr/bin/tusk merge-driver %O"),
            "/usr/bin/tusk"
        );
    }
}

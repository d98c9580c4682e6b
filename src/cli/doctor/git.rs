//! `tusk doctor`'s git check (issue 48, issue 60): the store and the
//! feature ledger routed to tusk's merge driver, the logs to `union`, the
//! driver configured and there, and one clone's own files ignored.

use super::{Check, DoctorArgs};
use crate::issues::store::IssueStore;
use std::path::Path;

/// The store's merge wiring in git (issue 48): read only, through `git`.
pub(super) fn check_git(args: &DoctorArgs) -> Check {
    use crate::issues::git;
    const ID: &str = "git";
    let default = crate::host::HostPaths::under(Path::new("."));
    let Ok(IssueStore::Jsonl(store)) = args.files.issues(default.issues.path()) else {
        return Check::ok(
            ID,
            "the issue store is a database: nothing for git to merge",
        );
    };
    let dir = store.parent().filter(|p| !p.as_os_str().is_empty());
    let Some(top) = git::work_tree(dir.unwrap_or(Path::new("."))) else {
        return Check::ok(ID, "not in a git work tree: no merge driver needed");
    };
    let Some(rel) = git::relative(&top, &store) else {
        return Check::ok(ID, "the issue store is outside the git work tree");
    };
    let mut problems = Vec::new();
    let mut fixes = Vec::new();
    let attributes = top.join(".gitattributes");
    let quoted = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let mut attribute = |path: &str, want: &str| {
        let got = git::merge_attribute(&top, path).unwrap_or_default();
        if got != want {
            problems.push(format!("{path} has merge={got}, not merge={want}"));
            fixes.push(format!(
                "echo {} >> {}",
                quoted(&format!("{path} merge={want}")),
                quoted(&attributes.display().to_string())
            ));
        }
    };
    attribute(&rel, git::DRIVER);
    let dir_rel = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let beside = |file: &str| {
        if dir_rel.is_empty() {
            file.to_string()
        } else {
            format!("{dir_rel}/{file}")
        }
    };
    for file in git::DRIVER_FILES {
        if git::tracked(&top, &beside(file)) {
            attribute(&beside(file), git::DRIVER);
        }
    }
    for log in git::LOG_FILES {
        let path = beside(log);
        if git::tracked(&top, &path) {
            attribute(&path, git::UNION);
        }
    }
    clone_files(&top, &beside, &mut problems, &mut fixes);
    let driver = git::configured_driver(&top);
    let problem = match &driver {
        None => Some("merge.tusk.driver is not set in the repository's config".to_string()),
        Some(d) if !d.contains(" merge-driver ") => Some(format!(
            "merge.tusk.driver is {d:?}, not tusk's merge driver"
        )),
        Some(d) => {
            let program = git::driver_program(d);
            let found = if program.contains('/') {
                Path::new(&program).is_file()
            } else {
                git::on_path(&program).is_some()
            };
            (!found).then(|| format!("merge.tusk.driver runs {program}, which is not there"))
        }
    };
    if let Some(problem) = problem {
        problems.push(problem);
        fixes.push(format!(
            "git config merge.tusk.name {} && git config merge.tusk.driver {}",
            quoted(git::DRIVER_NAME),
            quoted(&git::driver_command())
        ));
    }
    if problems.is_empty() {
        return Check::ok(
            ID,
            format!(
                "{rel} merges with tusk's driver ({})",
                driver.unwrap_or_default()
            ),
        );
    }
    Check::warn(
        ID,
        format!(
            "{}: branches that change the queue will conflict, or merge into duplicate ids",
            problems.join("; ")
        ),
        format!(
            "run `tusk init` (it wires both), or: {}",
            fixes.join(" && ")
        ),
    )
}

/// One clone's own files (issue 60): the session handoff tracked, or not
/// ignored, makes every merge of two clones conflict.
fn clone_files(
    top: &Path,
    beside: &dyn Fn(&str) -> String,
    problems: &mut Vec<String>,
    fixes: &mut Vec<String>,
) {
    use crate::issues::git;
    let quoted = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let session = beside("harness_session.json");
    if git::tracked(top, &session) {
        problems.push(format!(
            "{session} is tracked: it is one clone's handoff, and two clones' conflict on every merge"
        ));
        fixes.push(format!("git rm --cached {}", quoted(&session)));
    }
    if !git::ignored(top, &session) {
        problems.push(format!("{session} is not ignored"));
        fixes.push(format!(
            "echo /harness_session.json >> {}",
            quoted(&top.join(beside(".gitignore")).display().to_string())
        ));
    }
}

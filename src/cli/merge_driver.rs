//! `tusk merge-driver BASE OURS THEIRS [PATH]`: git's merge driver for the
//! issue store (`merge.tusk.driver = tusk merge-driver %O %A %B %P`), and the
//! same merge as a command on three files (issue 48; docs/issue-memory.md,
//! "Merging stores"). The merge itself is [`crate::issues::merge`].
//!
//! The result replaces OURS (git's convention; `--output` writes it
//! elsewhere), atomically (temp file in its directory, fsync, rename). Every
//! decision goes to stderr and, with `--report FILE`, into a JSON report.
//! Exit 0 when merged (the store never holds conflict markers); 1 when the
//! merge would delete most of a side's issues and was not told to
//! (`--allow-deletions`), 2 when an input is not a store; nothing written
//! in either case.

use super::{CliError, Exit};
use crate::issues::merge::{merge, Merged};
use crate::issues::IssueClass;
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `schema` member of the `--report` file.
pub const REPORT_SCHEMA: &str = "tusk.merge.v1";

/// `tusk merge-driver`.
#[derive(Args, Debug)]
pub struct MergeDriverArgs {
    /// The common ancestor's store (git's %O; an absent file is an empty store).
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// This side's store (git's %A): the merge is written here.
    #[arg(value_name = "OURS")]
    pub ours: PathBuf,
    /// The other side's store (git's %B).
    #[arg(value_name = "THEIRS")]
    pub theirs: PathBuf,
    /// The store's path in the repository (git's %P), for messages.
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Write every decision as JSON (`tusk.merge.v1`) to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write the merged store here instead of over OURS.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Take a merge that deletes most of a side's issues (refused otherwise,
    /// and git reports a conflict); also `TUSK_MERGE_ALLOW_DELETIONS=1`.
    #[arg(long)]
    pub allow_deletions: bool,
}

/// The variable that allows a mass deletion when git runs the driver.
pub const ALLOW_DELETIONS_ENV: &str = "TUSK_MERGE_ALLOW_DELETIONS";

const CONTEXT: &str = "tusk merge-driver";

fn read(path: &Path, absent_is_empty: bool) -> Result<String, CliError> {
    let bytes = match crate::files::read(path) {
        Ok(b) => b,
        Err(e) if absent_is_empty && e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            return Err(CliError::unusable(
                CONTEXT,
                format_args!("cannot read {}: {e}; nothing written", path.display()),
            )
            .with_class(IssueClass::MemoryIoError.as_str()))
        }
    };
    String::from_utf8(bytes).map_err(|_| {
        CliError::unusable(
            CONTEXT,
            format_args!(
                "{} is not a store (not UTF-8 text); nothing written",
                path.display()
            ),
        )
        .with_class(IssueClass::MemoryStoreCorrupt.as_str())
    })
}

/// Runs the merge: exit 0 merged, 2 an input is not a store.
pub fn run(args: &MergeDriverArgs) -> Result<Exit, CliError> {
    let base = read(&args.base, true)?;
    let ours = read(&args.ours, false)?;
    let theirs = read(&args.theirs, false)?;
    if is_ledger(&ours) {
        return merge_ledgers(args, &base, &ours, &theirs);
    }
    let merged = merge(
        &base,
        &ours,
        &theirs,
        [&args.base, &args.ours, &args.theirs],
    )
    .map_err(|e| {
        CliError::unusable(
            CONTEXT,
            format_args!("{e}: not a store, so there is nothing to merge; nothing written (fix the line, or resolve this file by hand)"),
        )
        .with_class(e.class())
    })?;
    let shown = crate::terminal::field(args.path.as_deref().unwrap_or(".premath/issues.jsonl"));
    let shown = shown.as_ref();
    let allowed = args.allow_deletions
        || std::env::var(ALLOW_DELETIONS_ENV).is_ok_and(|v| v == "1" || v == "true");
    if let Some(why) = merged.mass_deletion().filter(|_| !allowed) {
        return Err(CliError::refused(
            CONTEXT,
            format_args!(
                "{shown}: {why}; nothing written (git reports a conflict). If the deletion is meant, \
                 merge again with {ALLOW_DELETIONS_ENV}=1 (or `tusk merge-driver --allow-deletions`)"
            ),
        )
        .with_class(IssueClass::MergeMassDeletion.as_str()));
    }
    let mut err = std::io::stderr().lock();
    for d in &merged.decisions {
        let field = d
            .field
            .as_deref()
            .map(|f| format!(" {f}"))
            .unwrap_or_default();
        let _ = writeln!(
            err,
            "{CONTEXT}: {shown}: {}{field}: {} [{}]",
            crate::terminal::field(&d.id),
            crate::terminal::field(&d.detail),
            d.rule
        );
    }
    let _ = writeln!(
        err,
        "{CONTEXT}: {shown}: merged, {} issue(s), {} decision(s)",
        merged.issues,
        merged.decisions.len()
    );
    let target = args.output.as_deref().unwrap_or(&args.ours);
    write_atomically(target, merged.text.as_bytes())?;
    if let Some(report) = &args.report {
        write_atomically(report, report_json(args, shown, &merged).as_bytes())?;
    }
    Ok(Exit::Accepted)
}

fn report_json(args: &MergeDriverArgs, shown: &str, merged: &Merged) -> String {
    let value = json!({
        "schema": REPORT_SCHEMA,
        "result": "merged",
        "path": shown,
        "base": args.base.display().to_string(),
        "ours": args.ours.display().to_string(),
        "theirs": args.theirs.display().to_string(),
        "issues": merged.issues,
        "decisions": merged.decisions,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&value).expect("a report always encodes")
    )
}

/// Writes `bytes` to `path` atomically ([`crate::files::write_atomically`]).
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    crate::files::write_atomically(path, bytes).map_err(|e| {
        CliError::unusable(
            CONTEXT,
            format_args!("cannot write {}: {e}", path.display()),
        )
        .with_class(IssueClass::MemoryIoError.as_str())
    })
}

/// Whether `text` is a feature ledger (`.premath/harness_feature_ledger.json`,
/// which `tusk init` routes to this driver too): its `ledgerKind`.
fn is_ledger(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|v| v["ledgerKind"].as_str() == Some(crate::harness::feature::LEDGER_KIND))
}

/// The three-way merge of a feature ledger ([`crate::harness::feature_merge`]).
fn merge_ledgers(
    args: &MergeDriverArgs,
    base: &str,
    ours: &str,
    theirs: &str,
) -> Result<Exit, CliError> {
    use crate::harness::feature::{parse, Ledger};
    let parsed = |path: &Path, text: &str| {
        parse(path, text.as_bytes()).map_err(|e| {
            CliError::unusable(
                CONTEXT,
                format_args!("{e}: not a ledger, so there is nothing to merge; nothing written (fix it, or resolve this file by hand)"),
            )
            .with_class(e.class())
        })
    };
    let base = if base.trim().is_empty() {
        Ledger::new(String::new())
    } else {
        parsed(&args.base, base)?
    };
    let (merged, decisions) = crate::harness::feature_merge::merge(
        &base,
        &parsed(&args.ours, ours)?,
        &parsed(&args.theirs, theirs)?,
    );
    let shown = crate::terminal::field(
        args.path
            .as_deref()
            .unwrap_or(crate::harness::DEFAULT_FEATURE_LEDGER_PATH),
    )
    .into_owned();
    let mut err = std::io::stderr().lock();
    for d in &decisions {
        let _ = writeln!(
            err,
            "{CONTEXT}: {shown}: {}: {}",
            crate::terminal::field(&d.feature_id),
            d.detail
        );
    }
    let _ = writeln!(
        err,
        "{CONTEXT}: {shown}: merged, {} feature(s), {} decision(s)",
        merged.features.len(),
        decisions.len()
    );
    let target = args.output.as_deref().unwrap_or(&args.ours);
    write_atomically(target, merged.to_file_text().as_bytes())?;
    if let Some(report) = &args.report {
        let value = json!({
            "schema": REPORT_SCHEMA,
            "result": "merged",
            "path": shown,
            "features": merged.features.len(),
            "decisions": decisions.iter().map(|d| json!({"featureId": d.feature_id, "detail": d.detail})).collect::<Vec<_>>(),
        });
        write_atomically(report, format!("{value:#}\n").as_bytes())?;
    }
    Ok(Exit::Accepted)
}

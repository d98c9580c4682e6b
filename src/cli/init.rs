//! `tusk init [PATH]`: lay out `.premath/` with an issue store, as premath's
//! `init` does (same flags, same JSON, same messages).
//!
//! An existing `issues.jsonl` is never touched. A missing one is created empty,
//! or, when a legacy `.beads/issues.jsonl` exists, as a byte-for-byte copy of it.
//! Either write is atomic and made under the store lock, so an interrupted init
//! leaves no half-written store and a concurrent first mutation is never lost.

use crate::canonical::to_pretty_sorted;
use crate::issues::store::{create_if_missing, LockOptions};
use clap::Args;
use serde_json::json;
use std::fs;
use std::path::{Path, PathBuf};

/// `tusk init`.
#[derive(Args, Debug)]
pub struct InitArgs {
    /// The repository root to lay out.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Print the layout as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `init` found and made.
#[derive(Debug)]
struct Layout {
    repo_root: PathBuf,
    premath_dir: PathBuf,
    issues_path: PathBuf,
    migrated_from: Option<PathBuf>,
    created_root: bool,
    created_premath_dir: bool,
    created_issues: bool,
}

fn init_layout(root: &Path) -> Result<Layout, String> {
    let created_root = if root.exists() {
        if !root.is_dir() {
            return Err(format!("init path is not a directory: {}", root.display()));
        }
        false
    } else {
        fs::create_dir_all(root)
            .map_err(|e| format!("failed to create init path {}: {e}", root.display()))?;
        true
    };
    let premath_dir = root.join(".premath");
    let created_premath_dir = if premath_dir.exists() {
        if !premath_dir.is_dir() {
            return Err(format!(
                "premath path is not a directory: {}",
                premath_dir.display()
            ));
        }
        false
    } else {
        fs::create_dir_all(&premath_dir).map_err(|e| {
            format!(
                "failed to create premath directory {}: {e}",
                premath_dir.display()
            )
        })?;
        true
    };
    let issues_path = premath_dir.join("issues.jsonl");
    let mut migrated_from = None;
    let mut created_issues = false;
    if issues_path.exists() {
        if !issues_path.is_file() {
            return Err(format!(
                "issues path exists but is not a file: {}",
                issues_path.display()
            ));
        }
    } else {
        let legacy = root.join(".beads").join("issues.jsonl");
        let migrate = |e: &dyn std::fmt::Display| {
            format!(
                "failed to migrate legacy store {} -> {}: {e}",
                legacy.display(),
                issues_path.display()
            )
        };
        if legacy.exists() {
            let bytes = fs::read(&legacy).map_err(|e| migrate(&e))?;
            created_issues = create_if_missing(&issues_path, &bytes, LockOptions::default())
                .map_err(|e| migrate(&e))?;
            if created_issues {
                migrated_from = Some(legacy);
            }
        } else {
            created_issues = create_if_missing(&issues_path, b"", LockOptions::default())
                .map_err(|e| format!("failed to initialize {}: {e}", issues_path.display()))?;
        }
    }
    Ok(Layout {
        repo_root: root.to_path_buf(),
        premath_dir,
        issues_path,
        migrated_from,
        created_root,
        created_premath_dir,
        created_issues,
    })
}

/// Runs `tusk init`; returns the exit code (0 laid out, 1 refused).
pub fn run(args: InitArgs) -> i32 {
    let layout = match init_layout(&args.path) {
        Ok(l) => l,
        Err(msg) => {
            eprintln!("error: {msg}");
            return 1;
        }
    };
    let show = |p: &Path| p.display().to_string();
    if args.json {
        let out = json!({
            "action": "init",
            "repoRoot": show(&layout.repo_root),
            "premathDir": show(&layout.premath_dir),
            "issuesPath": show(&layout.issues_path),
            "migratedFromLegacy": layout.migrated_from.as_deref().map(show),
            "created": {
                "repoRoot": layout.created_root,
                "premathDir": layout.created_premath_dir,
                "issuesFile": layout.created_issues,
            },
        });
        println!("{}", to_pretty_sorted(&out));
    } else {
        let yes = |b: bool| if b { "yes" } else { "no" };
        println!("premath init {}", show(&layout.repo_root));
        println!();
        println!("  repo root: {}", show(&layout.repo_root));
        println!("  premath dir: {}", show(&layout.premath_dir));
        println!("  issues path: {}", show(&layout.issues_path));
        if let Some(from) = &layout.migrated_from {
            println!("  migrated from legacy: {}", show(from));
        }
        println!("  created repo root: {}", yes(layout.created_root));
        println!(
            "  created .premath dir: {}",
            yes(layout.created_premath_dir)
        );
        println!("  created issues file: {}", yes(layout.created_issues));
    }
    0
}

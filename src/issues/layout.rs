//! The `.premath/` layout (`tusk init`, premath's MCP `init_tool`).
//!
//! An existing `issues.jsonl` is never touched. A missing one is created empty,
//! or, when a legacy `.beads/issues.jsonl` exists, as a byte-for-byte copy of it.
//! Either write is atomic and made under the store lock, so an interrupted init
//! leaves no half-written store and a concurrent first mutation is never lost.

use super::store::{create_if_missing, LockOptions};
use std::fs;
use std::path::{Path, PathBuf};

/// What `init` found and made.
#[derive(Debug)]
pub struct Layout {
    pub repo_root: PathBuf,
    pub premath_dir: PathBuf,
    pub issues_path: PathBuf,
    pub migrated_from: Option<PathBuf>,
    pub created_root: bool,
    pub created_premath_dir: bool,
    pub created_issues: bool,
}

/// Lays out `root/.premath/issues.jsonl`.
///
/// # Errors
/// premath's messages: a path that is not a directory, an unwritable store.
pub fn init_layout(root: &Path) -> Result<Layout, String> {
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
            let bytes = crate::files::read(&legacy).map_err(|e| migrate(&e))?;
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

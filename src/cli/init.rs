//! `tusk init [PATH]`: lay out `.premath/` with an issue store, as premath's
//! `init` does (same flags, same JSON, same messages); the layout itself is
//! [`crate::issues::layout`].

use super::{CliError, Exit};
use crate::canonical::to_pretty_sorted;
use crate::issues::layout::init_layout;
use clap::Args;
use serde_json::json;
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

/// Runs `tusk init` (exit 1 refused, with premath's message).
pub fn run(args: InitArgs) -> Result<Exit, CliError> {
    let layout = init_layout(&args.path).map_err(|msg| CliError::refused("error", msg))?;
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
    Ok(Exit::Accepted)
}

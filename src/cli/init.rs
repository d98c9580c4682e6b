//! `tusk init [PATH]`: lay out `.premath/` with an issue store, as premath's
//! `init` does (same flags, same JSON, same messages); the layout itself is
//! [`crate::issues::layout`].
//!
//! Issue 48 (docs/issue-memory.md, "Ids" and "Wiring"): inside a git work
//! tree, init also routes the store to tusk's merge driver
//! ([`crate::issues::git::wire`]), and a store it creates there mints hash
//! ids (`ids` in `.premath/config.json`); `--ids hash|sequential` sets the
//! scheme of any store. Issue 62: a store init creates follows beads'
//! readiness rule (`readiness` in `.premath/config.json`; the JSON and text
//! stay premath's, since a fresh store's rule is not news to its caller).
//! Outside git, with no `--ids`, init's text is premath's, byte for byte
//! (its lines and JSON gain members only when one of these happened).

use super::{CliError, Exit};
use crate::canonical::to_pretty_sorted;
use crate::issues::git::{self, Wired};
use crate::issues::ids::{self, IdScheme};
use crate::issues::layout::{init_layout, Layout};
use crate::issues::readiness::{self, Readiness};
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
    /// The id scheme of the store (written to `.premath/config.json`):
    /// `hash` ids cannot collide across clones; `sequential` is premath's
    /// `bd-N`. Default: `hash` for a store created inside a git work tree,
    /// else the store's current scheme (sequential unless set).
    #[arg(long, value_enum, value_name = "SCHEME")]
    pub ids: Option<IdScheme>,
    /// Do not touch `.gitattributes` or the repository's git config.
    #[arg(long)]
    pub no_git: bool,
}

/// Runs `tusk init` (exit 1 refused, with premath's message).
pub fn run(args: InitArgs) -> Result<Exit, CliError> {
    let layout = init_layout(&args.path).map_err(|msg| CliError::refused("error", msg))?;
    let refused = |msg: String| CliError::refused("error", msg);
    let wired = if args.no_git {
        None
    } else {
        git::wire(&layout.issues_path).map_err(refused)?
    };
    let in_git = wired.is_some() || git::work_tree(&layout.premath_dir).is_some();
    let ids = choose_ids(&args, &layout, in_git).map_err(refused)?;
    choose_readiness(&layout).map_err(refused)?;
    let show = |p: &Path| p.display().to_string();
    if args.json {
        let mut out = json!({
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
        if let Some(scheme) = ids {
            out["ids"] = json!(scheme.as_str());
        }
        if let Some(w) = &wired {
            out["git"] = json!({
                "workTree": show(&w.top),
                "attributes": show(&w.attributes),
                "attributesAdded": w.attributes_added,
                "mergeDriver": w.driver,
                "mergeDriverSet": w.driver_set,
                "ignore": show(&w.ignore),
                "ignoreAdded": w.ignore_added,
            });
        }
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
        print_extras(ids, wired.as_ref());
    }
    Ok(Exit::Accepted)
}

/// The scheme init writes, if any: `--ids`, else `hash` for a store it just
/// created (not migrated) inside a git work tree whose config names none.
fn choose_ids(args: &InitArgs, layout: &Layout, in_git: bool) -> Result<Option<IdScheme>, String> {
    let config = layout.premath_dir.join("config.json");
    let scheme = match args.ids {
        Some(scheme) => scheme,
        None if in_git && layout.created_issues && layout.migrated_from.is_none() => {
            let current = crate::issues::model::read_config(&config)?;
            if current.as_ref().and_then(|c| c.get(ids::SETTING)).is_some() {
                return Ok(None);
            }
            IdScheme::Hash
        }
        None => return Ok(None),
    };
    ids::write_scheme(&config, scheme)?;
    Ok(Some(scheme))
}

/// The readiness rule init writes: `beads` for a store it creates (or
/// copies from `.beads/`), unless the config names one; an existing store
/// keeps its rule (premath's when it names none).
fn choose_readiness(layout: &Layout) -> Result<Option<Readiness>, String> {
    if !layout.created_issues {
        return Ok(None);
    }
    let config = layout.premath_dir.join("config.json");
    let current = crate::issues::model::read_config(&config)?;
    if current
        .as_ref()
        .and_then(|c| c.get(readiness::SETTING))
        .is_some()
    {
        return Ok(None);
    }
    crate::issues::model::write_setting(&config, readiness::SETTING, Readiness::Beads.as_str())?;
    Ok(Some(Readiness::Beads))
}

fn print_extras(ids: Option<IdScheme>, wired: Option<&Wired>) {
    if let Some(scheme) = ids {
        println!("  ids: {}", scheme.as_str());
    }
    if let Some(w) = wired {
        let attributes = if w.attributes_added.is_empty() {
            "up to date".to_string()
        } else {
            format!("added {}", w.attributes_added.join(", "))
        };
        println!(
            "  git attributes ({}): {attributes}",
            w.attributes.display()
        );
        let driver = if w.driver_set { "set" } else { "already set" };
        println!(
            "  git merge driver merge.tusk.driver: {driver} ({})",
            w.driver
        );
        if w.ignore_added {
            println!(
                "  git ignores the store's lock file and journals ({})",
                w.ignore.display()
            );
        }
    }
}

//! Records the commit the binary is built from, for `tusk --version` and
//! `tusk doctor`: `TUSK_GIT_COMMIT` (short hash, or empty) and
//! `TUSK_VERSION_LINE` (`0.1.0 (abc1234)`, or just the version).
//!
//! A build outside a git checkout (a crate tarball, `cargo install` from a
//! registry, no git on PATH) has no commit and says nothing about one. A
//! checkout is used only when its top level is this package's directory, so a
//! tarball unpacked inside some other repository does not report that
//! repository's commit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn absolute(dir: &Path, path: String) -> PathBuf {
    let p = PathBuf::from(path);
    if p.is_absolute() {
        p
    } else {
        dir.join(p)
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let ours = |top: &str| {
        let top = std::fs::canonicalize(top).ok();
        top.is_some() && top == std::fs::canonicalize(&manifest).ok()
    };
    let commit = git(&manifest, &["rev-parse", "--show-toplevel"])
        .filter(|top| ours(top))
        .and_then(|_| {
            // HEAD moves on checkout (HEAD changes) and on commit (the branch's
            // ref changes, loose or packed): rerun then, and only then. In a
            // worktree HEAD lives in its own git dir, the refs in the common one.
            // A watched path that does not exist would rerun this script (and
            // rebuild the crate) on every build, so only existing ones are named.
            let watch = |p: PathBuf| {
                if p.exists() {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            };
            if let Some(git_dir) = git(&manifest, &["rev-parse", "--git-dir"]) {
                watch(absolute(&manifest, git_dir).join("HEAD"));
            }
            if let Some(common) = git(&manifest, &["rev-parse", "--git-common-dir"]) {
                let common = absolute(&manifest, common);
                watch(common.join("packed-refs"));
                if let Some(head_ref) = git(&manifest, &["symbolic-ref", "-q", "HEAD"]) {
                    let loose = common.join(head_ref);
                    // A branch whose ref is only packed gets a loose file on its
                    // next commit: watch the folder it will appear in.
                    if loose.exists() {
                        watch(loose);
                    } else {
                        watch(loose.parent().map_or(common, Path::to_path_buf));
                    }
                }
            }
            git(&manifest, &["rev-parse", "--short", "HEAD"])
        })
        .unwrap_or_default();
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let line = if commit.is_empty() {
        version
    } else {
        format!("{version} ({commit})")
    };
    println!("cargo:rustc-env=TUSK_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=TUSK_VERSION_LINE={line}");
}

//! The README's install line works: `cargo install --locked --path .` (here
//! also `--offline`, into a scratch root) installs a `tusk` whose `--version`
//! names the package version and, when built from a git checkout, the commit.
//!
//! The install adds `--debug` and builds in this suite's own target
//! directory, so it reuses the dev-profile artifacts the suite was built
//! from and compiles only the `tusk` package (about 12 s). The release
//! profile's fat-LTO build from a clean checkout takes about 9 minutes on
//! two cores, the largest single item in CI; what this test checks (the
//! lockfile suffices, the binary target installs and names its commit, it
//! runs) does not depend on the profile.

use crate::common::Test;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The suite's target directory: `<target>/debug/tusk` is the binary under test.
fn target_dir() -> PathBuf {
    Path::new(crate::common::BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary lives in <target>/<profile>/")
        .to_path_buf()
}

/// The short commit of the checkout this package is, if it is one.
fn checkout_commit(manifest: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(manifest)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    if std::fs::canonicalize(top).ok() != std::fs::canonicalize(manifest).ok() {
        return None;
    }
    git(&["rev-parse", "--short", "HEAD"])
}

#[test]
fn cargo_install_locked_installs_a_tusk_that_names_its_version_and_commit() {
    let _heavy = crate::common::heavy();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = tempfile::tempdir().expect("temp dir");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["install", "--locked", "--offline", "--debug", "--path"])
        .arg(manifest)
        .arg("--root")
        .arg(root.path())
        .env("CARGO_TARGET_DIR", target_dir())
        .stdin(Stdio::null())
        .output()
        .expect("run cargo install");
    assert!(
        out.status.success(),
        "cargo install failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let installed = root.path().join("bin").join("tusk");
    // The installed binary works, not only its flags.
    let work = Test::on_files();
    let version = work.tusk(&["--version"]).bin(&installed).run();
    assert!(version.status.success());
    let line = String::from_utf8(version.stdout).unwrap();
    let pkg = env!("CARGO_PKG_VERSION");
    match checkout_commit(manifest) {
        Some(commit) => assert_eq!(line.trim(), format!("tusk {pkg} ({commit})")),
        None => assert_eq!(line.trim(), format!("tusk {pkg}")),
    }
    let doctor = work.tusk(&["doctor", "--json"]).bin(&installed).run();
    assert_eq!(doctor.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    assert_eq!(report["schema"], "tusk.doctor.v0");
}

//! Runs the real `tusk` binary in a temp directory for the harness tests.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One finished run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Stdout as JSON; panics with the whole run when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// Asserts the exit code, showing the run when it differs.
    pub fn expect(self, code: i32) -> Self {
        assert_eq!(self.code, code, "unexpected exit code: {self:?}");
        self
    }

    /// Asserts a clear one-line error on stderr that contains `needle`.
    pub fn expect_error(self, code: i32, needle: &str) -> Self {
        let run = self.expect(code);
        assert_eq!(
            run.stderr.trim_end().lines().count(),
            1,
            "stderr is not one line: {run:?}"
        );
        assert!(
            run.stderr.contains(needle),
            "stderr lacks {needle:?}: {run:?}"
        );
        run
    }
}

use crate::pg_support;

/// The trajectory file, which a PostgreSQL store holds as `tusk_trajectory`.
pub const TRAJECTORY: &str = ".premath/harness_trajectory.jsonl";

/// A temp directory to run in; with `TUSK_TEST_BACKEND=postgres`, commands get
/// `TUSK_STORE` of a fresh database, and the trajectory helpers use its table.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub db: Option<pg_support::TestDb>,
}

impl Sandbox {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            db: pg_support::backend_is_pg().then(pg_support::TestDb::new),
        }
    }

    /// What reports name the trajectory: its path, or the database table's name.
    pub fn trajectory_name(&self) -> String {
        match &self.db {
            Some(db) => format!(
                "{}#trajectory",
                tusk::pg::PgStore::open(&db.url).unwrap().shown()
            ),
            None => TRAJECTORY.to_string(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Runs `tusk ARGS` with the sandbox as working directory.
    pub fn tusk(&self, args: &[&str]) -> Run {
        run_with(
            self.dir.path(),
            args,
            self.db.as_ref().map(|db| db.url.as_str()),
        )
    }

    pub fn write(&self, rel: &str, text: &str) {
        if let (Some(db), TRAJECTORY) = (&self.db, rel) {
            db.put_log_text("tusk_trajectory", text);
            return;
        }
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        if let (Some(db), TRAJECTORY) = (&self.db, rel) {
            return db.log_text("tusk_trajectory");
        }
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }
}

pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_with(dir, args, None)
}

/// Runs `tusk ARGS` in `dir`, with `TUSK_STORE` when a database is given.
pub fn run_with(dir: &Path, args: &[&str], store: Option<&str>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tusk"));
    if let Some(url) = store {
        cmd.env("TUSK_STORE", url);
    }
    let out = cmd.args(args).current_dir(dir).output().expect("run tusk");
    Run {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

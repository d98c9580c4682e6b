//! The suite's one fixture: [`Test`], a temp directory and the issue store of
//! this run's backend (a JSONL file, or with `TUSK_TEST_BACKEND=postgres` a
//! fresh PostgreSQL database), and [`Tusk`], one run of the real binary in it,
//! built up (arguments, environment, stdin) and then run into a [`Run`].
//!
//! ```ignore
//! let t = Test::new().issues(&[issue("a")]).file("p.scm", "(+ 1 2)");
//! t.tusk(&["eval", "--json", "p.scm"]).run().status(0).json();
//! t.store(&["issue", "claim", "a", "--assignee", "w"]).ok();
//! t.store(&["issue", "claim", "zz"]).rejected(&["issue.not_found"]);
//! ```

use crate::pg_support::{backend_is_pg, TestDb};
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_tusk");

/// The issue store's file under a test's directory (file backend).
pub const ISSUES: &str = ".premath/issues.jsonl";
/// The trajectory file, which a PostgreSQL store holds as `tusk_trajectory`.
pub const TRAJECTORY: &str = ".premath/harness_trajectory.jsonl";

/// The logs a PostgreSQL store holds instead of these files.
const DB_LOGS: [(&str, &str); 2] = [
    (".premath/host_effects.jsonl", "tusk_effects"),
    (TRAJECTORY, "tusk_trajectory"),
];

/// Environment a run never inherits from the test process: the store and the
/// issue context come from the test, not from the shell that ran the suite.
const AMBIENT: [&str; 5] = [
    "TUSK_STORE",
    "PREMATH_ISSUES_PATH",
    "TUSK_ACTOR",
    "TUSK_POLICY_DIGEST",
    "TUSK_INSTRUCTION_REF",
];

/// The actor every run of the tests records, unless a test says otherwise.
pub const TEST_ACTOR: &str = "tester";

/// A temp directory to run `tusk` in, with this run's store backend: the
/// file store (`.premath/issues.jsonl`, the logs beside it), or a fresh
/// database that every run gets as `TUSK_STORE` (or `--store`, see
/// [`Test::store`]), whose log tables the log helpers read and write.
pub struct Test {
    dir: tempfile::TempDir,
    pub db: Option<TestDb>,
}

impl Default for Test {
    fn default() -> Self {
        Self::new()
    }
}

impl Test {
    /// An empty directory; the store exists on PostgreSQL (schema, no
    /// issues), on files it does not exist yet (nor does `.premath`).
    pub fn new() -> Self {
        Test {
            dir: tempfile::tempdir().expect("temp dir"),
            db: backend_is_pg().then(TestDb::new),
        }
    }

    /// An empty directory on the file store whatever the suite's backend,
    /// for tests about files or about naming a store explicitly.
    pub fn on_files() -> Self {
        Test {
            dir: tempfile::tempdir().expect("temp dir"),
            db: None,
        }
    }

    /// Seeds the store with exactly `text` (an empty text makes an empty file).
    pub fn issue_text(self, text: &str) -> Self {
        match &self.db {
            Some(db) => db.put_issue_text(text),
            None => {
                self.write(ISSUES, text);
            }
        }
        self
    }

    /// Seeds the store with one compact JSON line per issue (or edge).
    pub fn issues(self, issues: &[Value]) -> Self {
        let text: String = issues
            .iter()
            .map(|v| format!("{}\n", serde_json::to_string(v).unwrap()))
            .collect();
        self.issue_text(&text)
    }

    /// Writes a file before the first run (see [`Test::write`]).
    pub fn file(self, rel: &str, text: &str) -> Self {
        self.write(rel, text);
        self
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Whether the store is a file (tests of file-only properties check it).
    pub fn is_file(&self) -> bool {
        self.db.is_none()
    }

    /// The issue store's file, or what reports name as `issuesPath` on a database.
    pub fn issues_path(&self) -> PathBuf {
        match &self.db {
            Some(db) => PathBuf::from(tusk::pg::PgStore::open(&db.url).unwrap().shown()),
            None => self.path(ISSUES),
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

    /// The flags naming the store (`--issues PATH` or `--store URL`).
    pub fn store_args(&self) -> Vec<OsString> {
        match &self.db {
            Some(db) => vec!["--store".into(), db.url.clone().into()],
            None => vec!["--issues".into(), self.path(ISSUES).into()],
        }
    }

    /// The issue store as the library names it.
    pub fn issue_store(&self) -> tusk::issues::IssueStore {
        match &self.db {
            Some(db) => tusk::issues::IssueStore::locate(&db.url).unwrap(),
            None => tusk::issues::IssueStore::Jsonl(self.path(ISSUES)),
        }
    }

    /// The host configuration of this directory (its database, if any).
    pub fn host_config(&self) -> tusk::runtime::HostConfig {
        let mut config = tusk::runtime::HostConfig::under(self.dir.path()).unwrap();
        if let Some(db) = &self.db {
            let pg = std::sync::Arc::new(tusk::pg::PgStore::open(&db.url).unwrap());
            config.paths.issues = tusk::issues::IssueStore::Postgres(pg.clone());
            config.paths.trajectory =
                tusk::logs::LogStore::postgres(pg.clone(), tusk::pg::LogTable::Trajectory);
            config.paths.effects = tusk::logs::LogStore::postgres(pg, tusk::pg::LogTable::Effects);
        }
        config
    }

    /// The table holding the log at `rel`, on a database backend.
    fn db_log(&self, rel: &str) -> Option<(&TestDb, &'static str)> {
        let db = self.db.as_ref()?;
        DB_LOGS
            .iter()
            .find(|(file, _)| *file == rel)
            .map(|(_, table)| (db, *table))
    }

    /// Writes `text` at `rel` (parents made); a log the database holds gets
    /// the lines as its rows instead.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        if let Some((db, table)) = self.db_log(rel) {
            db.put_log_text(table, text);
            return self.path(rel);
        }
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    /// The text at `rel` (a database log's rows as lines); panics when missing.
    pub fn read(&self, rel: &str) -> String {
        if let Some((db, table)) = self.db_log(rel) {
            return db.log_text(table);
        }
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// The text of the log at `rel` (file, or the database's rows as lines);
    /// empty when there is none.
    pub fn log_text(&self, rel: &str) -> String {
        match self.db_log(rel) {
            Some((db, table)) => db.log_text(table),
            None => std::fs::read_to_string(self.path(rel)).unwrap_or_default(),
        }
    }

    /// The log at `rel` as JSON rows.
    pub fn jsonl(&self, rel: &str) -> Vec<Value> {
        self.log_text(rel)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("valid JSONL line"))
            .collect()
    }

    /// The issue store's text (on PostgreSQL: `tusk store export`).
    pub fn store_text(&self) -> String {
        match &self.db {
            Some(db) => String::from_utf8(db.run_ok(&["store", "export"]).stdout).unwrap(),
            None => std::fs::read_to_string(self.path(ISSUES)).unwrap(),
        }
    }

    /// The issue store's raw bytes (a file may hold invalid UTF-8).
    pub fn store_bytes(&self) -> Vec<u8> {
        match &self.db {
            Some(_) => self.store_text().into_bytes(),
            None => std::fs::read(self.path(ISSUES)).unwrap(),
        }
    }

    /// The issue store's lines parsed as JSON (blank lines skipped).
    pub fn store_lines(&self) -> Vec<Value> {
        self.store_text()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The store's last line with this id.
    pub fn stored(&self, id: &str) -> Value {
        self.store_lines()
            .into_iter()
            .rev()
            .find(|v| v["id"] == id)
            .unwrap_or_else(|| panic!("no issue {id}"))
    }

    /// One run of `tusk ARGS` in this directory, to build up and then run.
    pub fn tusk<S: AsRef<OsStr>>(&self, args: &[S]) -> Tusk<'_> {
        Tusk {
            test: self,
            bin: PathBuf::from(BIN),
            args: args.iter().map(|a| a.as_ref().to_owned()).collect(),
            env: Vec::new(),
            clear_env: false,
            stdin: Vec::new(),
            cwd: None,
            store_flags: false,
        }
    }

    /// `tusk ARGS` run at once, stdin empty.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Run {
        self.tusk(args).run()
    }

    /// `tusk ARGS --json` naming the store by flag (`--issues`/`--store`).
    pub fn store<S: AsRef<OsStr>>(&self, args: &[S]) -> Tusk<'_> {
        self.tusk(args).arg("--json").store_flags()
    }

    /// `tusk ARGS` naming the store by flag, without `--json`.
    pub fn store_raw<S: AsRef<OsStr>>(&self, args: &[S]) -> Tusk<'_> {
        self.tusk(args).store_flags()
    }

    /// `tusk eval --json` of `program` (written to `program.scm`, plus
    /// `extra` flags): (exit code, result).
    pub fn eval(&self, program: &str, extra: &[&str]) -> (i32, Value) {
        let file = self.write("program.scm", program);
        self.tusk(&["eval", "--json"])
            .arg(file)
            .args(extra)
            .run()
            .reply()
    }

    /// The digest `tusk policy digest` prints here (the built-in policy's
    /// unless the directory has a policy file).
    pub fn policy_digest(&self) -> String {
        self.tusk(&["policy", "digest"])
            .env_remove("TUSK_STORE")
            .run()
            .status(0)
            .stdout()
            .trim()
            .to_string()
    }

    /// `program` through `tusk eval --json -` against the store by flag,
    /// with the default policy's authority: the result.
    pub fn eval_with_authority(&self, program: &str) -> Value {
        let digest = self.policy_digest();
        self.store_raw(&["eval", "--json", "--policy-digest", &digest])
            .args(["--instruction-ref", "instr://routing", "-"])
            .stdin(program)
            .run()
            .json()
    }

    /// `integrity_check` of premath's `issue check`: these stores are
    /// machine-made, so their issues lack what premath's content rules ask of
    /// active issues (an Acceptance section, a verification command); every
    /// other finding fails the test. Returns the report.
    pub fn integrity_check(&self) -> Value {
        let (code, v) = self.store(&["issue", "check"]).reply();
        const CONTENT: [&str; 2] = [
            "issue_graph.acceptance.missing",
            "issue_graph.verification_command.missing",
        ];
        for error in v["errors"].as_array().expect("errors") {
            let class = error["class"].as_str().unwrap_or_default();
            assert!(CONTENT.contains(&class), "integrity error: {error:#}");
        }
        assert!(code == 0 || code == 1, "{v:#}");
        assert_eq!(
            code == 0,
            v["errors"].as_array().unwrap().is_empty(),
            "{v:#}"
        );
        v
    }

    /// Starts `tusk observe` on a free loopback port (plus `extra` flags)
    /// over this directory's stores; returns once it listens.
    pub fn observe(&self, extra: &[&str]) -> ObserveServer {
        self.start_observe(extra, None)
    }

    /// [`Test::observe`] with at most `max_files` open descriptors (a
    /// usual default is 1024), so that a flood of connections meets the
    /// limit a real server would.
    pub fn observe_with_open_files(&self, extra: &[&str], max_files: u64) -> ObserveServer {
        self.start_observe(extra, Some(max_files))
    }

    fn start_observe(&self, extra: &[&str], max_files: Option<u64>) -> ObserveServer {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut command = self
            .tusk(&["observe", "--http", "127.0.0.1:0"])
            .args(extra)
            .command();
        if let Some(n) = max_files {
            // SAFETY: setrlimit between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let rl = libc::rlimit {
                        rlim_cur: n,
                        rlim_max: n,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &rl) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn tusk observe");
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let addr = line
            .trim()
            .strip_prefix("tusk observe: serving http://")
            .and_then(|a| a.strip_suffix('/'))
            .unwrap_or_else(|| panic!("tusk observe announced no address: {line:?}"))
            .to_string();
        ObserveServer { child, addr }
    }
}

/// One run of the binary being built: `Test::tusk` gives the binary, the
/// working directory (the test's) and the store (`TUSK_STORE` on a
/// database); the methods add to or change them.
#[must_use]
pub struct Tusk<'t> {
    test: &'t Test,
    bin: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, Option<OsString>)>,
    clear_env: bool,
    stdin: Vec<u8>,
    cwd: Option<PathBuf>,
    store_flags: bool,
}

impl Tusk<'_> {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// Starts from an empty environment (then `env` adds to it).
    pub fn env_clear(mut self) -> Self {
        self.clear_env = true;
        self
    }

    pub fn stdin(mut self, text: impl AsRef<[u8]>) -> Self {
        self.stdin = text.as_ref().to_vec();
        self
    }

    /// Runs in `dir` instead of the test's directory.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Runs another build of tusk.
    pub fn bin(mut self, bin: impl AsRef<Path>) -> Self {
        self.bin = bin.as_ref().to_path_buf();
        self
    }

    /// Names the store by flag (`--issues PATH` / `--store URL`) instead of
    /// `TUSK_STORE`.
    pub fn store_flags(mut self) -> Self {
        self.store_flags = true;
        self
    }

    /// The process to start, for runs that need the child itself (stdio
    /// sessions, many at once, killing it); stdin, stdout and stderr are the
    /// caller's to set.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.current_dir(self.cwd.as_deref().unwrap_or(self.test.dir()));
        if self.clear_env {
            cmd.env_clear();
        }
        for key in AMBIENT {
            cmd.env_remove(key);
        }
        // Every run has one recorded actor, the same on every machine (not
        // the OS user); a test of the actor's sources removes it.
        cmd.env("TUSK_ACTOR", TEST_ACTOR);
        if let (Some(db), false) = (&self.test.db, self.store_flags) {
            cmd.env("TUSK_STORE", &db.url);
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd.args(&self.args);
        if self.store_flags {
            cmd.args(self.test.store_args());
        }
        cmd
    }

    /// Started with stdin, stdout and stderr piped, for a session the test
    /// speaks to as it goes (`tusk mcp`, `tusk repl`).
    pub fn spawn(&self) -> Child {
        self.command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn tusk")
    }

    /// Runs to the end, stdin given then closed; the run.
    pub fn run(self) -> Run {
        let mut child = self.spawn();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&self.stdin).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        Run {
            args: self
                .args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            status: out.status,
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }

    /// Runs; asserts the exit code.
    pub fn status(self, code: i32) -> Run {
        self.run().status(code)
    }

    /// Runs: (exit code, stdout as JSON).
    pub fn reply(self) -> (i32, Value) {
        self.run().reply()
    }

    /// Runs; see [`Run::ok`].
    pub fn ok(self) -> Value {
        self.run().ok()
    }

    /// Runs; see [`Run::rejected`].
    pub fn rejected(self, classes: &[&str]) -> Value {
        self.run().rejected(classes)
    }

    /// Runs; see [`Run::fails`].
    pub fn fails(self) -> String {
        self.run().fails()
    }
}

/// One finished run of the binary.
pub struct Run {
    pub args: Vec<String>,
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("args", &self.args)
            .field("status", &self.status)
            .field("stdout", &String::from_utf8_lossy(&self.stdout))
            .field("stderr", &String::from_utf8_lossy(&self.stderr))
            .finish()
    }
}

impl Run {
    /// The exit code (a run killed by a signal has none: a failure).
    pub fn code(&self) -> i32 {
        self.status
            .code()
            .unwrap_or_else(|| panic!("tusk exited by signal: {self:?}"))
    }

    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// Stdout, which must be UTF-8.
    pub fn stdout(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("utf-8 stdout")
    }

    /// Stderr, which must be UTF-8.
    pub fn stderr(&self) -> String {
        String::from_utf8(self.stderr.clone()).expect("utf-8 stderr")
    }

    /// Stdout as JSON; panics with the whole run when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }

    /// (exit code, stdout, stderr).
    pub fn parts(&self) -> (i32, String, String) {
        (self.code(), self.stdout(), self.stderr())
    }

    /// (exit code, stdout as JSON).
    pub fn reply(&self) -> (i32, Value) {
        (self.code(), self.json())
    }

    /// Asserts the exit code, showing the run when it differs, and that
    /// stdout and stderr are text (UTF-8).
    pub fn status(self, code: i32) -> Self {
        assert_eq!(
            self.status.code(),
            Some(code),
            "unexpected exit code: {self:?}"
        );
        assert!(
            std::str::from_utf8(&self.stdout).is_ok(),
            "stdout is not UTF-8: {self:?}"
        );
        assert!(
            std::str::from_utf8(&self.stderr).is_ok(),
            "stderr is not UTF-8: {self:?}"
        );
        self
    }

    /// Asserts a clear one-line error on stderr that contains `needle`.
    pub fn error(self, code: i32, needle: &str) -> Self {
        let run = self.status(code);
        let stderr = run.stderr();
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "stderr is not one line: {run:?}"
        );
        assert!(stderr.contains(needle), "stderr lacks {needle:?}: {run:?}");
        run
    }

    /// Asserts exit 0 and a result that is `accepted` or absent; the payload.
    pub fn ok(self) -> Value {
        let v = self.json();
        assert_eq!(self.status.code(), Some(0), "{:?} -> {v:#}", self.args);
        assert!(
            v.get("result").is_none_or(|r| r == "accepted"),
            "{:?} -> {v:#}",
            self.args
        );
        v
    }

    /// Asserts exit 1, a `rejected` result with exactly these failure
    /// classes and a diagnostic; the payload.
    pub fn rejected(self, classes: &[&str]) -> Value {
        let v = self.json();
        assert_eq!(self.status.code(), Some(1), "{:?} -> {v:#}", self.args);
        assert_eq!(v["result"], "rejected", "{:?} -> {v:#}", self.args);
        assert_eq!(
            v["failureClasses"],
            serde_json::json!(classes),
            "{:?} -> {v:#}",
            self.args
        );
        assert!(
            v["diagnostic"].as_str().is_some_and(|d| !d.is_empty()),
            "{v:#}"
        );
        v
    }

    /// Asserts exit 1 (a failure with premath's `error: …`); the stderr.
    pub fn fails(self) -> String {
        assert_eq!(self.status.code(), Some(1), "{self:?}");
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// A running `tusk observe`, stopped when dropped.
pub struct ObserveServer {
    pub child: std::process::Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Drop for ObserveServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! Shared helpers of the issue-memory tests: a store in a temp dir and the real
//! `tusk` binary run against it. With `TUSK_TEST_BACKEND=postgres` the same
//! tests run on a fresh PostgreSQL database per store (`--store URL`).
#![allow(dead_code)]

use crate::pg_support::{backend_is_pg, TestDb};
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_tusk");

/// A store in its own temp dir (the file may not exist yet), or in its own database.
pub struct Env {
    pub dir: tempfile::TempDir,
    /// The JSONL file (file backend), or what reports name as `issuesPath`.
    pub path: PathBuf,
    pub db: Option<TestDb>,
}

impl Env {
    /// A store that does not exist yet, in a `.premath` dir that does not exist yet
    /// (on PostgreSQL: a database with the schema and no issues).
    pub fn empty() -> Self {
        let dir = tempfile::tempdir().unwrap();
        if backend_is_pg() {
            let db = TestDb::new();
            let shown = tusk::pg::PgStore::open(&db.url)
                .unwrap()
                .shown()
                .to_string();
            return Env {
                dir,
                path: PathBuf::from(shown),
                db: Some(db),
            };
        }
        let path = dir.path().join(".premath").join("issues.jsonl");
        Env {
            dir,
            path,
            db: None,
        }
    }

    /// A store holding exactly `text`.
    pub fn with_text(text: &str) -> Self {
        let env = Env::empty();
        if let Some(db) = &env.db {
            db.put_issue_text(text);
            return env;
        }
        std::fs::create_dir_all(env.path.parent().unwrap()).unwrap();
        std::fs::write(&env.path, text).unwrap();
        env
    }

    /// Whether this store is a file (tests of file-only properties check it).
    pub fn is_file(&self) -> bool {
        self.db.is_none()
    }

    /// The flags naming this store.
    pub fn store_args(&self) -> Vec<OsString> {
        match &self.db {
            Some(db) => vec!["--store".into(), db.url.clone().into()],
            None => vec!["--issues".into(), self.path.clone().into()],
        }
    }

    /// The store as the library names it.
    pub fn store(&self) -> tusk::issues::IssueStore {
        match &self.db {
            Some(db) => tusk::issues::IssueStore::locate(&db.url).unwrap(),
            None => tusk::issues::IssueStore::Jsonl(self.path.clone()),
        }
    }

    /// A store with one compact JSON line per value.
    pub fn with_issues(issues: &[Value]) -> Self {
        let text: String = issues
            .iter()
            .map(|v| format!("{}\n", serde_json::to_string(v).unwrap()))
            .collect();
        Env::with_text(&text)
    }

    /// Runs `tusk <args> --issues PATH` and returns the raw output.
    pub fn raw(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .args(self.store_args())
            .output()
            .unwrap()
    }

    /// Runs `tusk <args> --json --issues PATH`: (exit code, parsed stdout).
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let out = Command::new(BIN)
            .args(args)
            .arg("--json")
            .args(self.store_args())
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "stdout of {args:?} is not JSON ({e}): {stdout}\nstderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap(), value)
    }

    /// Runs and asserts the exit code; returns the payload.
    pub fn ok(&self, args: &[&str]) -> Value {
        let (code, v) = self.json(args);
        assert_eq!(code, 0, "{args:?} -> {v:#}");
        assert!(
            v.get("result").is_none_or(|r| r == "accepted"),
            "{args:?} -> {v:#}"
        );
        v
    }

    /// Runs `tusk <args>` against this store, asserts exit 1 (a failure with
    /// premath's `error: …`) and returns its stderr.
    pub fn fails(&self, args: &[&str]) -> String {
        let out = self.raw(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    /// `issue check` as a test of the file's integrity: these stores are
    /// machine-made, so their issues lack what premath's content rules ask of
    /// active issues (an Acceptance section, a verification command); every
    /// other finding fails the test. Returns the report.
    pub fn integrity_check(&self) -> Value {
        let (code, v) = self.json(&["issue", "check"]);
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

    /// Runs, asserts exit 1 and exactly these failure classes; returns the payload.
    pub fn rejected(&self, args: &[&str], classes: &[&str]) -> Value {
        let (code, v) = self.json(args);
        assert_eq!(code, 1, "{args:?} -> {v:#}");
        assert_eq!(v["result"], "rejected", "{args:?} -> {v:#}");
        assert_eq!(
            v["failureClasses"],
            serde_json::json!(classes),
            "{args:?} -> {v:#}"
        );
        assert!(
            v["diagnostic"].as_str().is_some_and(|d| !d.is_empty()),
            "{v:#}"
        );
        v
    }

    /// The store's bytes (on PostgreSQL: `tusk store export`).
    pub fn text(&self) -> String {
        match &self.db {
            Some(db) => String::from_utf8(db.run_ok(&["store", "export"]).stdout).unwrap(),
            None => std::fs::read_to_string(&self.path).unwrap(),
        }
    }

    /// The store's raw bytes (a file may hold invalid UTF-8).
    pub fn bytes(&self) -> Vec<u8> {
        match &self.db {
            Some(_) => self.text().into_bytes(),
            None => std::fs::read(&self.path).unwrap(),
        }
    }

    /// The store's lines parsed as JSON (blank lines skipped).
    pub fn lines(&self) -> Vec<Value> {
        self.text()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The last line with this id.
    pub fn issue(&self, id: &str) -> Value {
        self.lines()
            .into_iter()
            .rev()
            .find(|v| v["id"] == id)
            .unwrap_or_else(|| panic!("no issue {id}"))
    }
}

/// A minimal issue line.
pub fn issue(id: &str) -> Value {
    serde_json::json!({"id": id, "title": format!("Issue {id}"), "status": "open", "priority": 2, "issue_type": "task"})
}

/// What premath's content rules ask of an active issue (`issue check`).
pub const SOUND_DESCRIPTION: &str = "Acceptance: it works.\n\n- `cargo test`";

/// `issue` that passes the content rules of `issue check`.
pub fn sound(id: &str) -> Value {
    sound_with(id, serde_json::json!({}))
}

/// `sound` with extra fields merged in.
pub fn sound_with(id: &str, extra: Value) -> Value {
    let mut v = issue_with(id, serde_json::json!({"description": SOUND_DESCRIPTION}));
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// `issue` with extra fields merged in.
pub fn issue_with(id: &str, extra: Value) -> Value {
    let mut v = issue(id);
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// A `blocks` edge from `id` to `on`.
pub fn blocks(id: &str, on: &str) -> Value {
    serde_json::json!({"issue_id": id, "depends_on_id": on, "type": "blocks"})
}

/// Ids of a view's items, in order.
pub fn ids(view: &Value) -> Vec<String> {
    view["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

/// A lease object that expired long ago, or that lasts until far in the future.
pub fn lease(owner: &str, lease_id: &str, active: bool) -> Value {
    let expires = if active {
        "2999-01-01T00:00:00Z"
    } else {
        "2020-01-01T01:00:00Z"
    };
    serde_json::json!({"lease_id": lease_id, "owner": owner, "acquired_at": "2020-01-01T00:00:00Z", "expires_at": expires})
}

/// premath's projection (A) of a stored line, spelled out independently of
/// tusk's code: `{assignee, id, issueType, owner, priority, status, title}`
/// with the line format's defaults.
pub fn basic(stored: &Value) -> Value {
    let text = |k: &str, d: &str| stored[k].as_str().unwrap_or(d).to_string();
    serde_json::json!({
        "assignee": text("assignee", ""),
        "id": text("id", ""),
        "issueType": text("issue_type", "task"),
        "owner": text("owner", ""),
        "priority": stored.get("priority").cloned().unwrap_or(serde_json::json!(2)),
        "status": text("status", "open"),
        "title": text("title", ""),
    })
}

impl Env {
    /// Runs `program` with `tusk eval --json` against this store (in the
    /// store's temp dir, with the default policy's authority): the result.
    pub fn eval(&self, program: &str) -> Value {
        use std::io::Write;
        let digest = Command::new(BIN)
            .args(["policy", "digest"])
            .current_dir(self.dir.path())
            .output()
            .unwrap();
        let digest = String::from_utf8(digest.stdout).unwrap().trim().to_string();
        let mut child = Command::new(BIN)
            .args(["eval", "--json", "--policy-digest", &digest])
            .args(["--instruction-ref", "instr://routing"])
            .args(self.store_args())
            .arg("-")
            .current_dir(self.dir.path())
            .env_remove("TUSK_STORE")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(program.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "eval stdout is not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        })
    }
}

//! A fresh PostgreSQL database per test, on the cluster `.ci/run` starts
//! (`tests/pg/cluster.sh`), and the switch that runs a suite on that backend.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};

/// Whether this run of the suite uses PostgreSQL (`TUSK_TEST_BACKEND=postgres`).
pub fn backend_is_pg() -> bool {
    match std::env::var("TUSK_TEST_BACKEND").as_deref() {
        Ok("postgres") => true,
        Ok("jsonl") | Err(_) => false,
        Ok(other) => panic!("TUSK_TEST_BACKEND={other:?}: expected jsonl or postgres"),
    }
}

/// The cluster's URL. A missing server is a failure with the way to start one,
/// never a skipped test.
pub fn admin_url() -> String {
    std::env::var("TUSK_TEST_PG_URL").unwrap_or_else(|_| {
        panic!(
            "TUSK_TEST_PG_URL is not set: these tests need a PostgreSQL server. Start a throwaway one with\n\
             \teval \"$(bash tests/pg/cluster.sh start)\"\n\
             (or run the whole suite with `bash .ci/run`, which does this)"
        )
    })
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A database of its own, dropped with the value.
pub struct TestDb {
    pub url: String,
    name: String,
    admin: String,
}

fn connect(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("cannot connect to the test server ({e}); is the cluster from tests/pg/cluster.sh running?"))
}

impl TestDb {
    /// An empty database (no schema).
    pub fn bare() -> Self {
        let admin = admin_url();
        let name = format!(
            "tusk_t_{}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos()
        );
        connect(&admin)
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let (base, _) = admin.rsplit_once('/').expect("URL has a database");
        TestDb {
            url: format!("{base}/{name}"),
            name,
            admin,
        }
    }

    /// A database with the tusk schema (`tusk store init`).
    pub fn new() -> Self {
        let db = TestDb::bare();
        db.run_ok(&["store", "init"]);
        db
    }

    /// Runs `tusk <args> --store URL` and asserts it succeeded; its output.
    pub fn run_ok(&self, args: &[&str]) -> std::process::Output {
        let out = std::process::Command::new(crate::common::BIN)
            .args(args)
            .args(["--store", &self.url])
            .env_remove("TUSK_STORE")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    pub fn client(&self) -> postgres::Client {
        connect(&self.url)
    }

    /// Puts `text` in as the issue lines, exactly: through `tusk store import`
    /// when it is a valid store, else raw (a store another tool corrupted).
    pub fn put_issue_text(&self, text: &str) {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        let imported = std::process::Command::new(crate::common::BIN)
            .args(["store", "import", "--replace", "--store", &self.url])
            .arg(file.path())
            .output()
            .unwrap();
        if imported.status.success() {
            return;
        }
        self.put_raw_issue_text(text);
    }

    /// Puts `text` in as the issue lines without checking or indexing them, as
    /// a tool other than tusk might have written them.
    pub fn put_raw_issue_text(&self, text: &str) {
        let mut c = self.client();
        let mut tx = c.transaction().unwrap();
        tx.execute("DELETE FROM tusk_issue_lines", &[]).unwrap();
        let (body, trailing) = match text.strip_suffix('\n') {
            Some(b) => (b, true),
            None => (text, false),
        };
        if !text.is_empty() {
            for (i, line) in body.split('\n').enumerate() {
                tx.execute(
                    "INSERT INTO tusk_issue_lines (ord, line) VALUES ($1, $2)",
                    &[&(i as i64 + 1), &line],
                )
                .unwrap();
            }
        }
        tx.execute(
            "INSERT INTO tusk_meta (key, value) VALUES ('issues.trailing_newline', $1) \
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&(if trailing { "1" } else { "0" })],
        )
        .unwrap();
        tx.commit().unwrap();
    }
}

impl TestDb {
    /// A log table's rows as the JSONL text of its file.
    pub fn log_text(&self, table: &str) -> String {
        let mut c = self.client();
        let mut text = String::new();
        for row in c
            .query(&format!("SELECT line FROM {table} ORDER BY seq"), &[])
            .unwrap()
        {
            text.push_str(row.get(0));
            text.push('\n');
        }
        text
    }

    /// Replaces a log table's rows with the lines of `text`.
    pub fn put_log_text(&self, table: &str, text: &str) {
        let mut c = self.client();
        let mut tx = c.transaction().unwrap();
        tx.execute(&format!("DELETE FROM {table}"), &[]).unwrap();
        for line in text.split_terminator('\n') {
            tx.execute(&format!("INSERT INTO {table} (line) VALUES ($1)"), &[&line])
                .unwrap();
        }
        tx.commit().unwrap();
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

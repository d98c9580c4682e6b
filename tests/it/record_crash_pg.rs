//! A change and its record are one on PostgreSQL (issue 61): a call's
//! mutation, its trajectory row and its effect row are one transaction, so
//! a writer killed anywhere (at each fault point between them, and at
//! random moments) leaves no issue without its accepted `issue.add` row and
//! no accepted row without its issue or its trajectory row, and once the
//! store is next opened, `tusk replay` keeps parity over every run (the
//! killed writers' runs closed by recovery). The writers are
//! `tusk eval` programs and command-line adds on `--store URL`; the
//! database is the one `.ci/run` starts.

use crate::common::*;
use crate::pg_support::TestDb;
use serde_json::Value;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::time::Duration;

struct Fixture {
    dir: Test,
    db: TestDb,
    auth: Vec<String>,
}

impl Fixture {
    fn new() -> Self {
        let dir = Test::on_files();
        let db = TestDb::new();
        dir.tusk(&["issue", "add", "target", "--store", &db.url])
            .env_remove("TUSK_STORE")
            .run()
            .status(0);
        let auth = vec![
            "--policy-digest".into(),
            dir.policy_digest(),
            "--instruction-ref".into(),
            "instr://crash".into(),
        ];
        Fixture { dir, db, auth }
    }

    fn lines(&self, table: &str) -> Vec<Value> {
        self.db
            .log_text(table)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The titles of the store's issues, but the seed's.
    fn titles(&self) -> BTreeSet<String> {
        let out = self.dir.run(&["store", "export", "--store", &self.db.url]);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["title"].as_str().map(str::to_string)
            })
            .filter(|t| t != "target")
            .collect()
    }

    /// Every issue has its accepted row, every accepted row its issue and
    /// its trajectory row.
    fn assert_one(&self, context: &str) {
        let store = self.titles();
        let mut rows = BTreeSet::new();
        let mut steps = Vec::new();
        for row in self.lines("tusk_effects") {
            if row["action"] != "issue.add" || row["envelope"]["resultClass"] != "accepted" {
                continue;
            }
            if let Some(t) = row["args"]["title"].as_str().filter(|t| *t != "target") {
                assert!(rows.insert(t.to_string()), "{context}: two rows for {t}");
            }
            if let Some(step) = row["envelope"]["trajectoryRow"]["stepId"].as_str() {
                steps.push(step.to_string());
            }
        }
        let in_store_only: Vec<_> = store.difference(&rows).collect();
        let in_log_only: Vec<_> = rows.difference(&store).collect();
        assert!(
            in_store_only.is_empty() && in_log_only.is_empty(),
            "{context}: changes without their row {in_store_only:?}; rows without their change {in_log_only:?}"
        );
        let trajectory: BTreeSet<String> = self
            .lines("tusk_trajectory")
            .iter()
            .filter_map(|r| r["stepId"].as_str().map(str::to_string))
            .collect();
        let missing: Vec<_> = steps.iter().filter(|s| !trajectory.contains(*s)).collect();
        assert!(
            missing.is_empty(),
            "{context}: rows without their trajectory row {missing:?}"
        );
    }

    /// Opens the store (which closes the runs of writers that died), then
    /// asserts `tusk replay` keeps parity over every run; the number of
    /// runs closed by recovery.
    fn assert_replay_parity(&self, context: &str) -> usize {
        self.dir
            .tusk(&["issue", "list", "--store", &self.db.url])
            .env_remove("TUSK_STORE")
            .run()
            .status(0);
        let out = self
            .dir
            .tusk(&["replay", "--json", "--store", &self.db.url])
            .env_remove("TUSK_STORE")
            .run();
        let v = out.json();
        assert_eq!(v["parity"], true, "{context}: {}", out.stdout());
        let runs = v["runs"].as_array().unwrap();
        runs.iter().filter(|r| r["recovered"] == true).count()
    }

    fn eval(&self, titles: &[String]) -> crate::common::Tusk<'_> {
        let program: String = titles
            .iter()
            .map(|t| format!("(issue.add (hash \"title\" \"{t}\"))\n"))
            .collect();
        let file = self.dir.write("p.scm", &program);
        self.dir
            .tusk(&["eval", "--store", &self.db.url])
            .arg(file)
            .args(&self.auth)
            .env_remove("TUSK_STORE")
    }
}

#[test]
fn a_writer_killed_at_each_fault_point_leaves_each_change_with_its_row() {
    let f = Fixture::new();
    for (k, point) in tusk::fault::DATABASE_POINTS.iter().enumerate() {
        for nth in [1, 3] {
            let titles: Vec<String> = (0..5).map(|i| format!("f{k}-{nth}-{i}")).collect();
            let out = f
                .eval(&titles)
                .env("TUSK_FAULT", format!("{point}@{nth}"))
                .run();
            assert_eq!(out.status.signal(), Some(9), "{point}@{nth}: {out:?}");
            f.assert_one(&format!("{point}@{nth}"));
            // The calls before the killed one committed, the killed one did not.
            let kept = f.titles();
            for (i, t) in titles.iter().enumerate() {
                assert_eq!(kept.contains(t), i + 1 < nth, "{point}@{nth}: {t}");
            }
        }
    }
    // Each killed run was closed by the next process to open the store.
    let recovered = f.assert_replay_parity("after every fault point");
    assert_eq!(recovered, 2 * tusk::fault::DATABASE_POINTS.len());
    // The store goes on: the next writer's calls all commit.
    let titles: Vec<String> = (0..3).map(|i| format!("after-{i}")).collect();
    f.eval(&titles).run().status(0);
    f.assert_one("after the kills");
    assert!(titles.iter().all(|t| f.titles().contains(t)));
}

#[test]
fn writers_killed_at_random_moments_leave_each_change_with_its_row() {
    const KILLS: usize = 200;
    let _heavy = heavy();
    let f = Fixture::new();
    let mut rng = Rng(0x51f1_5eed_0bad_cafe);
    let mut killed_mid_way = 0;
    for round in 0..KILLS {
        let cli = round % 4 == 3;
        let mut child = if cli {
            f.dir
                .tusk(&["issue", "add", &format!("k{round}"), "--store", &f.db.url])
                .env_remove("TUSK_STORE")
                .command()
        } else {
            let titles: Vec<String> = (0..60).map(|i| format!("r{round}-{i}")).collect();
            f.eval(&titles).command()
        }
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        let wait = if cli {
            rng.below(40)
        } else {
            20 + rng.below(300)
        };
        std::thread::sleep(Duration::from_millis(wait));
        let _ = child.kill();
        if child.wait().unwrap().signal() == Some(9) {
            killed_mid_way += 1;
        }
        f.assert_one(&format!("round {round}, killed after {wait} ms"));
        if round % 50 == 49 {
            f.assert_replay_parity(&format!("round {round}"));
        }
    }
    assert!(
        killed_mid_way >= KILLS / 2,
        "only {killed_mid_way} of {KILLS} writers were killed before they ended"
    );
}

#[test]
fn doctor_closes_the_runs_of_a_killed_writer_and_says_so() {
    let f = Fixture::new();
    let titles: Vec<String> = (0..4).map(|i| format!("d{i}")).collect();
    let point = tusk::fault::DATABASE_POINTS[0];
    let out = f
        .eval(&titles)
        .env("TUSK_FAULT", format!("{point}@2"))
        .run();
    assert_eq!(out.status.signal(), Some(9), "{out:?}");
    let doctor = |f: &Fixture| {
        let out = f
            .dir
            .tusk(&["doctor", "--store", &f.db.url])
            .env_remove("TUSK_STORE")
            .run();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = doctor(&f);
    let recovery = first.lines().find(|l| l.contains("recovery")).unwrap();
    assert!(
        recovery.starts_with("warn") && recovery.contains("closed run(s) run-"),
        "{first}"
    );
    // Closed before the effect log was checked: every run has its footer.
    assert!(!first.contains("log.runEnd"), "{first}");
    let again = doctor(&f);
    assert!(
        again.contains("no run left open by a process that died"),
        "{again}"
    );
    assert_eq!(f.assert_replay_parity("after doctor"), 1);
}

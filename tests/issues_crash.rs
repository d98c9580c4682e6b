//! Writers SIGKILLed at random instants during mutations of a 20,000-issue store:
//! afterwards the store always parses and holds every issue (old or new, never a mix).

mod issues_support;

use issues_support::*;
use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ISSUES: usize = 20_000;
const KILLS: usize = 30;
/// Extra rounds allowed until one kill lands inside the write window.
const MAX_ROUNDS: usize = 150;

/// xorshift64*: enough randomness for kill instants without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn big_store() -> Env {
    let mut text = String::with_capacity(ISSUES * 260);
    for i in 1..=ISSUES {
        let deps = if i > 10 {
            format!(",\"dependencies\":[{{\"issue_id\":\"bd-{i}\",\"depends_on_id\":\"bd-{}\",\"type\":\"blocks\"}}]", i / 3)
        } else {
            String::new()
        };
        let status = ["open", "open", "in_progress", "closed"][i % 4];
        text.push_str(&format!(
            "{{\"id\":\"bd-{i}\",\"title\":\"Synthetic issue {i}\",\"description\":\"Generated for the crash test. Generated for the crash test.\",\"status\":\"{status}\",\"priority\":{},\"issue_type\":\"task\",\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-02T00:00:00Z\"{deps}}}\n",
            i % 5
        ));
    }
    Env::with_text(&text)
}

/// Parses the store with the library (the same parser every command uses) and
/// returns its ids, failing on any corrupt line.
fn ids_in_store(env: &Env) -> BTreeSet<String> {
    let text = tusk::issues::store::read_text(&env.path).expect("store reads");
    let store = tusk::issues::store::Store::parse(&env.path, &text)
        .unwrap_or_else(|e| panic!("store corrupt after kill: {e}"));
    store.issues().map(|i| i.id.as_str().to_string()).collect()
}

/// Temp files beside the store (a writer's new store before its rename).
fn temp_files(env: &Env) -> impl Iterator<Item = String> {
    std::fs::read_dir(env.path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
}

fn mutation(rng: &mut Rng, round: usize) -> Vec<String> {
    let target = format!("bd-{}", 1 + rng.below(ISSUES as u64));
    let args: Vec<String> = match round % 5 {
        0 => vec![
            "issue".into(),
            "claim-next".into(),
            "--assignee".into(),
            format!("crash-{round}"),
        ],
        1 => vec![
            "issue".into(),
            "update".into(),
            target,
            "--notes".into(),
            format!("round {round}"),
        ],
        2 => vec![
            "issue".into(),
            "add".into(),
            format!("added in round {round}"),
        ],
        3 => vec![
            "issue".into(),
            "claim".into(),
            target,
            "--assignee".into(),
            format!("crash-{round}"),
        ],
        _ => vec![
            "issue".into(),
            "discover".into(),
            target,
            format!("found in round {round}"),
        ],
    };
    args
}

#[test]
fn sigkill_during_mutations_leaves_old_or_new_store() {
    let env = big_store();
    let original = ids_in_store(&env);
    assert_eq!(original.len(), ISSUES);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut rng = Rng(seed);

    // How long one mutation takes here, so kills land across its whole span.
    let t = Instant::now();
    let status = Command::new(BIN)
        .stdout(Stdio::null())
        .args(["issue", "update", "bd-1", "--notes", "warm-up", "--issues"])
        .arg(&env.path)
        .status()
        .unwrap();
    assert!(status.success());
    let span = t.elapsed().as_micros() as u64;

    let mut killed = 0;
    let mut changed = 0;
    // Rounds whose writer died holding a temp file: killed inside the write window.
    let mut in_write = 0;
    let mut known: BTreeSet<String> = original.clone();
    let mut round = 0;
    while round < KILLS || (in_write == 0 && round < MAX_ROUNDS) {
        round += 1;
        let args = mutation(&mut rng, round);
        let before = std::fs::read(&env.path).unwrap();
        let mut child = Command::new(BIN)
            .args(&args)
            .arg("--issues")
            .arg(&env.path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Every other round aims at the end of the run, where the write happens.
        let delay = if round % 2 == 0 {
            rng.below(span + span / 5)
        } else {
            span / 2 + rng.below(span * 3 / 4)
        };
        std::thread::sleep(Duration::from_micros(delay));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.signal() == Some(9) {
            killed += 1;
            if temp_files(&env).next().is_some() {
                in_write += 1;
            }
        }
        let after = std::fs::read(&env.path).unwrap();
        let now = ids_in_store(&env);
        assert!(
            now.is_superset(&known),
            "seed {seed}, round {round} ({args:?}): issues lost"
        );
        assert!(
            now.len() <= known.len() + 1,
            "seed {seed}: at most the one new issue appears"
        );
        if after != before {
            changed += 1;
            // The whole new store replaced the old one: every other line is byte-identical.
            let (old_lines, new_lines): (Vec<&[u8]>, Vec<&[u8]>) = (
                before.split(|b| *b == b'\n').collect(),
                after.split(|b| *b == b'\n').collect(),
            );
            let differing = old_lines
                .iter()
                .zip(&new_lines)
                .filter(|(a, b)| a != b)
                .count();
            let grown =
                new_lines.len() >= old_lines.len() && new_lines.len() <= old_lines.len() + 1;
            assert!(
                differing <= 1 && grown,
                "seed {seed}, round {round}: {differing} lines differ"
            );
        }
        known = now;
    }
    eprintln!(
        "seed {seed}: {killed} of {round} writers killed mid-way, {in_write} inside the write window, \
         {changed} changed the store (one mutation takes {span} us)"
    );
    assert!(
        killed >= round / 3,
        "only {killed} of {round} runs were killed mid-way (seed {seed})"
    );
    assert!(
        in_write > 0,
        "no kill landed inside the write window in {round} rounds (seed {seed})"
    );

    // Temp files of killed writers are cleaned by the next mutation; the store is whole.
    let status = Command::new(BIN)
        .stdout(Stdio::null())
        .args(["issue", "update", "bd-2", "--notes", "final", "--issues"])
        .arg(&env.path)
        .status()
        .unwrap();
    assert!(status.success());
    let leftovers: Vec<String> = temp_files(&env).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let check = env.ok(&["issue", "check"]);
    assert_eq!(
        check["issueCount"].as_u64().unwrap() as usize,
        ids_in_store(&env).len()
    );
    assert!(ids_in_store(&env).is_superset(&original));
}

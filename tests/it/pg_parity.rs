//! The database decides as the file does (issue 58): thousands of random
//! mutations, run as `tusk eval` programs on a JSONL store and on a
//! PostgreSQL store seeded with the same bytes, each call's envelope and
//! the mutated issue's `issue.show` compared call by call, the views the
//! database reads by index (ready, list, blocked, search) after every program, and the two stores compared byte for byte after
//! every program. The database answers
//! each mutation from the rows it locks (issues::scope); a check that read
//! anything else would decide differently here. Needs the cluster `.ci/run`
//! starts.

use crate::common::{Rng, Test};
use crate::pg_support::TestDb;
use serde_json::{json, Value};

/// The seed store: issues with labels, blocking chains, parents, leases and
/// closed ones, as one JSONL text.
fn seed_store(n: usize, rng: &mut Rng) -> String {
    let mut text = String::new();
    for i in 1..=n {
        let status = rng.pick(&["open", "open", "open", "in_progress", "closed", "blocked"]);
        let mut issue = json!({
            "id": format!("bd-{i}"),
            "title": match i % 7 {
                // Case folding outside ASCII: the Kelvin sign folds to `k`.
                3 => format!("Seed \u{212A}ey issue {i}"),
                5 => format!("Seed issue {i} — ÉCOLE"),
                _ => format!("Seed issue {i}"),
            },
            "status": status,
            "priority": rng.below(5) as usize,
            "issue_type": rng.pick(&["task", "bug", "feature", "epic"]),
            "labels": [rng.pick(&["role-a", "role-b"]), rng.pick(&["api", "ui", "db"])],
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        });
        if status == "closed" {
            issue["closed_at"] = json!("2026-01-02T00:00:00Z");
        }
        if status == "in_progress" {
            issue["assignee"] = json!("tester");
        }
        let mut deps = Vec::new();
        if i > 3 {
            for _ in 0..rng.below(3) {
                let target = 1 + rng.below(i as u64 - 1) as usize;
                let kind = rng.pick(&["blocks", "blocks", "related", "parent-child"]);
                if !deps
                    .iter()
                    .any(|d: &Value| d["depends_on_id"] == format!("bd-{target}"))
                {
                    deps.push(json!({"issue_id": format!("bd-{i}"), "depends_on_id": format!("bd-{target}"), "type": kind}));
                }
            }
        }
        if !deps.is_empty() {
            issue["dependencies"] = json!(deps);
        }
        text.push_str(&serde_json::to_string(&issue).unwrap());
        text.push('\n');
    }
    text
}

/// The views the database reads by index (issue 58): `issue.ready`
/// unfiltered, by label, and by a text member (which the database leaves
/// to the view); `issue.list` by each of its fields; `issue.blocked`;
/// `issue.search` for plain text (read by a byte search), for text whose
/// case folds outside ASCII (the Kelvin sign of some titles folds to `k`),
/// and for text with a quote and a slash (which a line may hold escaped);
/// `issue.stats` (counted by the columns), the lease projection (the
/// lines that may hold a lease) and `dep.tree` each way (the lines a
/// recursive query over the edges reaches).
const VIEWS: &str = r#"(issue.ready)
(issue.ready (hash "filter" (hash "labels" (list "role-a") "priorityMax" 2)))
(issue.ready (hash "filter" (hash "titleContains" "SEED" "excludeLabels" (list "ui"))))
(issue.list)
(issue.list (hash "status" "open" "label" "role-a"))
(issue.list (hash "issueType" "bug" "priority" 1))
(issue.list (hash "assignee" "tester" "filter" (hash "excludeLabels" (list "ui"))))
(issue.blocked)
(issue.blocked (hash "filter" (hash "labels" (list "api"))))
(issue.search (hash "query" "comment 1"))
(issue.search (hash "query" "KEY"))
(issue.search (hash "query" "école"))
(issue.search (hash "query" "\"quote\" and/or"))
(issue.stats)
(issue.lease_projection)
(issue.lease_projection (hash "filter" (hash "labels" (list "role-a"))))
(dep.tree (hash "id" "bd-30" "direction" "both" "maxDepth" 3))
(dep.tree (hash "id" "bd-2" "direction" "up"))
(dep.tree (hash "id" "bd-38" "direction" "down" "maxDepth" 1))
(dep.tree (hash "id" "bd-999"))
"#;

/// How many calls [`VIEWS`] makes.
const VIEW_CALLS: usize = 20;

/// A Scheme string literal.
fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// One random mutation (a Scheme call) and the issue whose `issue.show`
/// follows it.
fn mutation(rng: &mut Rng, issues: usize, step: usize) -> (String, String) {
    // Mostly existing issues; now and then one that does not exist.
    let mut id = || {
        if rng.chance(4) {
            "bd-999".to_string()
        } else {
            format!("bd-{}", 1 + rng.below(issues as u64))
        }
    };
    let a = id();
    let b = id();
    // The principal the suite runs as (an actor field names it).
    let who = "tester";
    let call = match rng.below(16) {
        0 => {
            let status = rng_status(rng);
            format!(
                r#"(issue.update (hash "id" {} "notes" {} "priority" {} "status" {}))"#,
                lit(&a),
                lit(&format!("note {step}")),
                rng.below(5) as usize,
                lit(status)
            )
        }
        1 => format!(
            r#"(issue.update (hash "id" {} "labels" (list {} "x")))"#,
            lit(&a),
            lit(rng.pick(&["role-a", "role-b"]))
        ),
        2 => format!(
            r#"(issue.close (hash "id" {} "reason" {}))"#,
            lit(&a),
            lit(&format!("done {step}"))
        ),
        3 => format!(r#"(issue.reopen (hash "id" {}))"#, lit(&a)),
        4 => format!(
            r#"(issue.label (hash "id" {} "add" (list {}) "remove" (list {})))"#,
            lit(&a),
            lit(rng.pick(&["api", "ui", "urgent"])),
            lit(rng.pick(&["db", "ui", "role-b"]))
        ),
        5 | 6 => format!(
            r#"(issue.comment (hash "id" {} "author" {} "text" {}))"#,
            lit(&a),
            lit(who),
            lit(&if step.is_multiple_of(9) {
                format!("comment {step}: a \"quote\" and/or école")
            } else {
                format!("comment {step}")
            })
        ),
        7 | 8 => format!(
            r#"(dep.add (hash "issueId" {} "dependsOnId" {} "type" {}))"#,
            lit(&a),
            lit(&b),
            lit(rng.pick(&["blocks", "blocks", "related", "parent-child", "bogus"]))
        ),
        9 => format!(
            r#"(dep.remove (hash "issueId" {} "dependsOnId" {}))"#,
            lit(&a),
            lit(&b)
        ),
        10 => format!(
            r#"(dep.replace (hash "issueId" {} "dependsOnId" {} "type" {}))"#,
            lit(&a),
            lit(&b),
            lit(rng.pick(&["blocks", "related"]))
        ),
        11 => format!(
            r#"(issue.claim (hash "id" {} "assignee" {} "respectBlockers" {}))"#,
            lit(&a),
            lit(who),
            if rng.chance(50) { "#t" } else { "#f" }
        ),
        12 => format!(
            r#"(issue.lease_renew (hash "id" {} "assignee" {} "leaseTtlSeconds" 600))"#,
            lit(&a),
            lit(who)
        ),
        13 => format!(
            r#"(issue.lease_release (hash "id" {} "assignee" {}))"#,
            lit(&a),
            lit(who)
        ),
        14 => {
            let filter = if rng.chance(50) {
                r#" "filter" (hash "labels" (list "role-a"))"#
            } else {
                ""
            };
            format!(
                r#"(issue.claim_next (hash "assignee" {}{filter}))"#,
                lit(who)
            )
        }
        _ => {
            if rng.chance(50) {
                format!(
                    r#"(issue.add (hash "title" {} "labels" (list "role-a")))"#,
                    lit(&format!("Added {step}"))
                )
            } else {
                format!(
                    r#"(issue.discover (hash "parentId" {} "title" {}))"#,
                    lit(&a),
                    lit(&format!("Found {step}"))
                )
            }
        }
    };
    (call, a)
}

fn rng_status(rng: &mut Rng) -> &'static str {
    rng.pick(&["open", "in_progress", "blocked", "closed"])
}

/// `s` with every timestamp and the store's name replaced: the two runs
/// happen seconds apart, on stores with different names.
fn normalized(s: &str, store_names: &[&str]) -> String {
    static STAMPS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let stamps = STAMPS.get_or_init(|| {
        regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)").unwrap()
    });
    let mut out = stamps.replace_all(s, "<time>").into_owned();
    for name in store_names {
        out = out.replace(name, "<store>");
    }
    out
}

/// What a call's envelope says, without what differs by store or clock
/// (the lease projection names its backend and the instant it checked).
fn call_view(effect: &Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in ["checkedAt", "queryBackend", "querySource"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut payload = effect["payload"].clone();
    strip(&mut payload);
    json!({
        "action": effect["action"],
        "resultClass": effect["resultClass"],
        "failureClasses": effect["failureClasses"],
        "payload": payload,
    })
}

#[test]
fn random_mutations_decide_the_same_on_both_stores() {
    let files = Test::on_files();
    let db = TestDb::new();
    let mut rng = Rng(0x005e_ed0f_7a5c);
    let seed = seed_store(40, &mut rng);
    files.write(".premath/issues.jsonl", &seed);
    let seed_file = files.write("seed.jsonl", &seed);
    let imported = files.run(&[
        "store",
        "import",
        seed_file.to_str().unwrap(),
        "--store",
        &db.url,
    ]);
    assert!(imported.status.success(), "{imported:?}");
    let digest = files.policy_digest();
    let file_store = files.path(".premath/issues.jsonl");
    let pg_shown = tusk::pg::PgStore::open(&db.url)
        .unwrap()
        .shown()
        .to_string();
    let names = [
        file_store.to_str().unwrap(),
        "./.premath/issues.jsonl",
        ".premath/issues.jsonl",
        pg_shown.as_str(),
    ];
    let rounds = 40;
    let per_round = 50;
    let mut issues = 40;
    let mut compared = 0;
    for round in 0..rounds {
        let mut program = String::new();
        for k in 0..per_round {
            let (call, shown) = mutation(&mut rng, issues, round * per_round + k);
            if call.contains("issue.add") || call.contains("issue.discover") {
                // Ids the next calls may name (a refused add wastes one: fine).
                issues += 1;
            }
            program.push_str(&call);
            program.push('\n');
            program.push_str(&format!("(issue.show (hash \"id\" {}))\n", lit(&shown)));
        }
        // The views the database reads by index.
        program.push_str(VIEWS);
        let run = |store: &[&str]| {
            let mut args = vec![
                "eval",
                "--json",
                "--policy-digest",
                &digest,
                "--instruction-ref",
                "instr://parity",
                "--max-calls",
                "200",
            ];
            args.extend_from_slice(store);
            args.push("-");
            files
                .tusk(&args)
                .env_remove("TUSK_STORE")
                .stdin(program.clone())
                .run()
                .json()
        };
        let on_file = run(&["--issues", file_store.to_str().unwrap()]);
        let on_db = run(&["--store", &db.url]);
        let (fe, de) = (
            on_file["effects"].as_array().expect("effects"),
            on_db["effects"].as_array().expect("effects"),
        );
        assert_eq!(fe.len(), per_round * 2 + VIEW_CALLS, "{}", on_file["error"]);
        assert_eq!(de.len(), fe.len(), "{}", on_db["error"]);
        for (i, (f, d)) in fe.iter().zip(de).enumerate() {
            let f = normalized(&call_view(f).to_string(), &names);
            let d = normalized(&call_view(d).to_string(), &names);
            assert_eq!(
                f,
                d,
                "round {round}, call {} differs between the stores; program:\n{program}",
                i + 1
            );
            compared += 1;
        }
        let exported = files.run(&["store", "export", "--store", &db.url]);
        assert!(exported.status.success(), "{exported:?}");
        assert_eq!(
            normalized(&String::from_utf8(exported.stdout).unwrap(), &names),
            normalized(&files.read(".premath/issues.jsonl"), &names),
            "the stores differ after round {round}; program:\n{program}"
        );
    }
    assert_eq!(compared, rounds * (per_round * 2 + VIEW_CALLS));
    // The mix reached every outcome worth comparing.
    let text = files.read(".premath/issues.jsonl");
    for member in [
        "\"comments\"",
        "\"lease\"",
        "\"close_reason\"",
        "\"blocks\"",
    ] {
        assert!(text.contains(member), "no {member} in the final store");
    }
}

//! Many processes mutating one store at once: claim-next never hands an issue out
//! twice, no update is lost, and the file stays valid.

use crate::common::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Barrier};

const WORKERS: usize = 8;
const READY_ISSUES: usize = 48;
const ADDERS: usize = 2;
const ADDS_EACH: usize = 8;

fn run(test: &Test, args: &[&str]) -> (i32, Value) {
    test.store(args)
        .args(["--lock-timeout-ms", "60000"])
        .reply()
}

#[test]
fn concurrent_claim_next_hands_out_each_issue_once_and_loses_nothing() {
    let _heavy = crate::common::heavy();
    // Ready issues plus a blocked tail that claim-next must leave alone.
    let mut issues: Vec<Value> = (0..READY_ISSUES)
        .map(|i| issue(&format!("q-{i:03}")))
        .collect();
    issues.push(issue_with(
        "q-blocked",
        json!({"dependencies": [blocks("q-blocked", "q-000")]}),
    ));
    let test = Arc::new(Test::new().issues(&issues));
    let start = Arc::new(Barrier::new(WORKERS + ADDERS));

    let mut handles = Vec::new();
    for w in 0..WORKERS {
        let (test, start) = (test.clone(), start.clone());
        handles.push(std::thread::spawn(move || {
            let me = format!("worker-{w}");
            let mut claimed = Vec::new();
            start.wait();
            loop {
                let (code, v) = run(&test, &["issue", "claim-next", "--assignee", &me]);
                assert_eq!(code, 0, "{v:#}");
                if v["claimed"] == false {
                    break;
                }
                assert_eq!(v["issue"]["lease"]["owner"], me.as_str());
                claimed.push(v["issue"]["id"].as_str().unwrap().to_string());
            }
            (me, claimed, Vec::new())
        }));
    }
    for a in 0..ADDERS {
        let (test, start) = (test.clone(), start.clone());
        handles.push(std::thread::spawn(move || {
            let mut added = Vec::new();
            start.wait();
            for k in 0..ADDS_EACH {
                let title = format!("added by {a} #{k}");
                let (code, v) = run(&test, &["issue", "add", &title, "--status", "blocked"]);
                assert_eq!(code, 0, "{v:#}");
                added.push(v["issue"]["id"].as_str().unwrap().to_string());
            }
            (format!("adder-{a}"), Vec::new(), added)
        }));
    }

    let mut owner_of: BTreeMap<String, String> = BTreeMap::new();
    let mut added: BTreeSet<String> = BTreeSet::new();
    for h in handles {
        let (me, claimed, adds) = h.join().unwrap();
        for id in claimed {
            if let Some(first) = owner_of.insert(id.clone(), me.clone()) {
                panic!("{id} was claimed by both {first} and {me}");
            }
        }
        for id in adds {
            assert!(
                added.insert(id.clone()),
                "id {id} was handed out twice by add"
            );
        }
    }

    // Every ready issue was claimed exactly once, the blocked one never.
    let expected: BTreeSet<String> = (0..READY_ISSUES).map(|i| format!("q-{i:03}")).collect();
    assert_eq!(owner_of.keys().cloned().collect::<BTreeSet<_>>(), expected);
    assert_eq!(added.len(), ADDERS * ADDS_EACH);

    // The file is valid and holds every update: each claim's lease, each add.
    let check = test.integrity_check();
    assert_eq!(check["issueCount"], READY_ISSUES + 1 + ADDERS * ADDS_EACH);
    let lines = test.store_lines();
    assert_eq!(
        lines.len(),
        READY_ISSUES + 1 + ADDERS * ADDS_EACH,
        "one line per issue, no repeats"
    );
    for line in &lines {
        let id = line["id"].as_str().unwrap();
        if let Some(owner) = owner_of.get(id) {
            assert_eq!(line["status"], "in_progress", "{line}");
            assert_eq!(line["assignee"], owner.as_str(), "{line}");
            assert_eq!(line["lease"]["owner"], owner.as_str(), "{line}");
        } else if id == "q-blocked" {
            assert_eq!(line["status"], "open");
            assert!(line.get("lease").is_none());
        } else {
            assert!(added.contains(id), "unexpected issue {id}");
            assert_eq!(line["status"], "blocked");
        }
    }
    // Workers really ran side by side: more than one of them got work.
    let owners: BTreeSet<&String> = owner_of.values().collect();
    assert!(owners.len() > 1, "{owners:?}");
}

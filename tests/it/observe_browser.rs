//! `tusk observe` in a real browser (issue 24): headless Chromium (Debian's
//! `/usr/bin/chromium`) driven by Playwright for Python
//! (`tests/browser/observe_browser.py`) over a seeded store and logs. Each
//! page loads without console errors and is no wider than a 1280 px
//! viewport, a hostile title renders as text, the runs page shows a run
//! made after it was opened and each run's principal and session, a run
//! page shows its replay verdict and the command that opens it in the REPL;
//! the queue shows the work in progress and its holders, an issue page its
//! edges and lease, the graph is drawn (edge types, a cycle marked), and a
//! session page lists an MCP session's forms in order (issue 47). The screenshots it takes go to a fresh directory (and
//! must be there); with `TUSK_UPDATE_SCREENSHOTS=1` they replace the
//! README's (`docs/images/observe-*.png`), which is how those were made.
//!
//! Needs `bash tests/browser/setup.sh` (`.ci/run` runs it); fails, never
//! skips, without it.

use crate::common::*;
use std::path::Path;
use std::process::Command;

fn issue(id: &str, title: &str, status: &str, extra: &str) -> String {
    format!(
        "{{\"id\":{},\"title\":{},\"status\":\"{status}\",\"priority\":{},\"issue_type\":\"task\",\"created_at\":\"2026-11-01T00:00:00Z\",\"updated_at\":\"2026-11-01T00:00:00Z\"{extra}}}\n",
        serde_json::to_string(id).unwrap(),
        serde_json::to_string(title).unwrap(),
        id.len() % 3
    )
}

/// A store with a hostile title, labels, blockers and closed work.
fn seed_store(s: &Test) {
    let dep = |on: &str| {
        format!(",\"dependencies\":[{{\"depends_on_id\":\"{on}\",\"type\":\"blocks\"}}]")
    };
    let mut text = issue(
        "bd-1",
        "<script>window.__owned=1</script><img src=x onerror=\"window.__owned=2\">",
        "open",
        ",\"labels\":[\"ui\"]",
    );
    // bd-2 relates to bd-4, which waits (through bd-3) on bd-2: a cycle
    // for the drawn graph to mark (a related edge does not block).
    text.push_str(&issue(
        "bd-2",
        "Write the parser",
        "open",
        ",\"labels\":[\"core\"],\"description\":\"A recursive-descent parser for the surface syntax.\",\"comments\":[{\"id\":1,\"issue_id\":\"bd-2\",\"author\":\"agent.b\",\"text\":\"The grammar is in docs/grammar.md; start from the expression rules.\",\"created_at\":\"2026-11-01T09:00:00Z\"}],\"dependencies\":[{\"depends_on_id\":\"bd-6\",\"type\":\"blocks\"},{\"depends_on_id\":\"bd-4\",\"type\":\"related\"}]",
    ));
    text.push_str(&issue("bd-3", "Type-check the AST", "open", &dep("bd-2")));
    let lease = |owner: &str, expires: &str| {
        format!(
            ",\"lease\":{{\"lease_id\":\"lease1_{owner}\",\"owner\":\"{owner}\",\"acquired_at\":\"2026-01-01T00:00:00Z\",\"expires_at\":\"{expires}\"}}"
        )
    };
    // A stale lease (expired long ago) and a contended one (active, but
    // the issue is not in progress for its owner).
    text.push_str(&issue(
        "bd-4",
        "Emit bytecode",
        "in_progress",
        &format!(
            "{},\"assignee\":\"agent.c\"{}",
            dep("bd-3"),
            lease("agent.c", "2026-01-01T01:00:00Z")
        ),
    ));
    text.push_str(&issue(
        "bd-5",
        "Benchmark the VM",
        "blocked",
        &lease("agent.a", "2099-01-01T00:00:00Z"),
    ));
    text.push_str(&issue("bd-6", "Set up CI", "closed", ""));
    text.push_str(&issue(
        "bd-7",
        "Document the CLI",
        "open",
        ",\"labels\":[\"docs\"]",
    ));
    text.push_str(&issue(
        "bd-8",
        "Fix the flaky test",
        "open",
        ",\"labels\":[\"core\"]",
    ));
    text.push_str(&issue("bd-9", "Retire the old lexer", "open", ""));
    match &s.db {
        Some(db) => db.put_issue_text(&text),
        None => {
            s.write(".premath/issues.jsonl", &text);
        }
    }
}

/// Trajectory rows over the last day: completed steps and a few failure
/// classes, for the plots.
fn seed_trajectory(s: &Test) {
    let now = chrono::Utc::now();
    let classes = [
        "accepted",
        "accepted",
        "accepted",
        "completed",
        "tool.result_missing",
        "transient.timeout",
        "verify.semantic_failed",
    ];
    let mut text = s.log_text(".premath/harness_trajectory.jsonl");
    for i in 0..160u32 {
        let at = now - chrono::TimeDelta::minutes(i64::from(i * 13 % 1440));
        let action = ["issue.claim", "apply.patch", "verify.run"][i as usize % 3];
        let row = serde_json::json!({
            "action": action,
            "finishedAt": at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "issueId": format!("bd-{}", i % 8 + 1),
            "resultClass": classes[(i as usize * 7 + i as usize / 5) % classes.len()],
            "schema": 1,
            "stepId": format!("seed-{i:04}"),
            "stepKind": "premath.harness.step.v1",
            "witnessRefs": [],
        });
        text.push_str(&row.to_string());
        text.push('\n');
    }
    s.write(".premath/harness_trajectory.jsonl", &text);
}

#[test]
fn the_dashboard_works_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/browser-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `bash tests/browser/setup.sh` (installs chromium and Playwright)",
        python.display()
    );
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "/usr/bin/chromium is missing: run `bash tests/browser/setup.sh`"
    );
    let s = Test::new();
    seed_store(&s);
    let out = s.run(&["policy", "digest"]);
    let digest = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let authority = [
        "--policy-digest",
        digest.as_str(),
        "--instruction-ref",
        "instr://browser-test",
    ];
    // An MCP session (principal `local`) whose third form uses the first's
    // definition; older than the runs below, so the newest failing run the
    // script opens is a plain `tusk eval`.
    crate::observe::mcp_session(
        &s,
        &[
            "(define (ready-count) (hash-ref (payload (issue.ready)) \"count\"))",
            "(display \"checking the queue\")",
            "(ready-count)",
        ],
    );
    for (program, extra) in [
        ("(issue.ready)", &[][..]),
        (
            "(issue.claim (hash \"id\" \"bd-2\" \"assignee\" \"agent.a\"))",
            &authority[..],
        ),
        (
            "(issue.claim (hash \"id\" \"bd-7\" \"assignee\" \"agent.b\"))",
            &authority[..],
        ),
        ("(issue.claim (hash \"id\" \"bd-8\"))", &[][..]),
        (
            "(issue.claim (hash \"id\" \"bd-8\" \"assignee\" \"agent.c\" \"leaseTtlSeconds\" 300))",
            &authority[..],
        ),
        (
            "(define note \"<script>window.__owned=1</script>\")\n(car (list))\n",
            &[][..],
        ),
        (
            "(define ready (payload (issue.ready)))\n(display (hash-ref ready \"count\"))\n(hash-ref ready \"count\")\n",
            &[][..],
        ),
    ] {
        let (code, result) = s.eval(program, extra);
        assert!(code == 0 || code == 1, "{result}");
    }
    // A dry run's plan (issue 59): the plans page draws it.
    let mut dry = authority.to_vec();
    dry.push("--dry-run");
    let (code, planned) = s.eval(
        "(issue.comment (hash \"id\" \"bd-2\" \"author\" \"agent.a\" \"text\" \"planned <b>x</b>\"))\n\
         (issue.update (hash \"id\" \"bd-2\" \"priority\" 0))\n",
        &dry,
    );
    assert_eq!(code, 0, "{planned}");
    // A change made at the command line: a recorded run, in bd-9's history.
    s.tusk(&[
        "--actor",
        "ops",
        "issue",
        "close",
        "bd-9",
        "--reason",
        "superseded",
    ])
    .run()
    .status(0);
    seed_trajectory(&s);
    let server = s.observe(&[]);
    // A fresh directory: a screenshot counts only if this run wrote it.
    let shots_dir = tempfile::tempdir().unwrap();
    let shots = shots_dir.path().to_path_buf();
    let out = Command::new(&python)
        .arg(root.join("tests/browser/observe_browser.py"))
        .arg(format!("http://{}", server.addr))
        .arg(BIN)
        .arg(s.dir())
        .arg(&shots)
        .envs(s.db.as_ref().map(|db| ("TUSK_STORE", db.url.clone())))
        .output()
        .expect("run the browser script");
    assert!(
        out.status.success(),
        "the browser test failed:\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let update = std::env::var_os("TUSK_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1");
    for page in [
        "queue",
        "leases",
        "runs",
        "run",
        "trajectory",
        "graph",
        "issue",
        "session",
        "plan",
    ] {
        let name = format!("observe-{page}.png");
        let shot = shots.join(&name);
        let bytes = std::fs::read(&shot).unwrap_or_default();
        assert!(
            bytes.starts_with(b"\x89PNG"),
            "{} was not written",
            shot.display()
        );
        if update {
            std::fs::write(root.join("docs/images").join(&name), &bytes).unwrap();
        }
    }
}

//! Finding what failed (issue 60): `tusk runs` lists the recorded runs
//! newest first with the dashboard's filters — result, principal, issue,
//! session, start — and the runs page filters by each for real.

use crate::common::*;
use crate::observe::{authority, get, get_json};
use serde_json::Value;

fn ids(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["runId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn runs_are_listed_and_filtered_on_the_command_line_and_the_page() {
    let s = Test::on_files().issues(&[issue("bd-1"), issue("bd-2")]);
    let auth = authority(&s);
    let run = |actor: &str, program: &str| {
        let out = s
            .tusk(&["--actor", actor, "eval", "--json", "-"])
            .args(&auth)
            .stdin(program)
            .run();
        out.json()["runId"].as_str().unwrap().to_string()
    };
    let a1 = run("alice", "(issue.ready)");
    let b1 = run(
        "bob",
        r#"(issue.comment (hash "id" "bd-2" "author" "bob" "text" "seen"))"#,
    );
    let a2 = run("alice", "(car (list))");
    let runs = |flags: &[&str]| {
        let mut args = vec!["runs", "--json"];
        args.extend_from_slice(flags);
        let out = s.tusk(&args).run();
        assert!(out.status.success(), "{flags:?}: {out:?}");
        ids(&out.json()["items"])
    };
    assert_eq!(runs(&[]), [a2.as_str(), &b1, &a1]);
    assert_eq!(runs(&["--failed"]), [a2.as_str()]);
    assert_eq!(runs(&["--result", "accepted"]), [b1.as_str(), &a1]);
    assert_eq!(runs(&["--principal", "alice"]), [a2.as_str(), &a1]);
    assert_eq!(
        runs(&["--principal", "alice", "--result", "accepted"]),
        [a1.as_str()]
    );
    assert_eq!(runs(&["--issue", "bd-2"]), [b1.as_str()]);
    assert_eq!(runs(&["--since", "1h"]), [a2.as_str(), &b1, &a1]);
    assert!(runs(&["--since", "2999-01-01T00:00:00Z"]).is_empty());
    assert!(runs(&["--session", "no-such-session"]).is_empty());

    // A page at a time: the text says how to go on, and going on gives the next.
    let out = s.tusk(&["runs", "--limit", "1"]).run();
    let text = out.stdout();
    assert!(out.status.success(), "{text}");
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with(&a2) && first.contains("rejected ("),
        "{text}"
    );
    let hint = text
        .split("older: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no hint: {text}"));
    let before = hint.split_whitespace().nth(3).unwrap();
    let out = s.tusk(&["runs", "--limit", "1", "--before", before]).run();
    assert!(out.stdout().starts_with(&b1), "{}", out.stdout());

    // What a flag does not take is refused, saying what it takes.
    for (flags, says) in [
        (vec!["--since", "yesterday"], "RFC 3339"),
        (vec!["--result", "maybe"], "accepted"),
        (vec!["--result", "accepted", "--failed"], "cannot be used"),
        (vec!["--effects", "missing.jsonl"], "no such file"),
    ] {
        let mut args = vec!["runs"];
        args.extend(flags.iter().copied());
        let out = s.tusk(&args).run();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{flags:?}: {err}");
    }

    // The runs page takes the same filters, each for real.
    let server = s.observe(&[]);
    let page = |q: &str| ids(&get_json(&server, &format!("/runs?{q}"))["items"]);
    assert_eq!(page("principal=alice&result=rejected"), [a2.as_str()]);
    assert_eq!(page("issue=bd-2"), [b1.as_str()]);
    assert_eq!(page("principal=bob&since=1h"), [b1.as_str()]);
    assert!(page("since=2999-01-01T00:00:00Z").is_empty());
    let (status, body) = get(&server, "/runs?since=someday&format=json");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("RFC 3339"), "{body}");
    // The older-runs link keeps the filters.
    let (_, html) = get(&server, "/runs?principal=alice&limit=1");
    assert!(html.contains("principal=alice"), "{html}");
}

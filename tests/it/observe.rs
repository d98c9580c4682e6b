//! `tusk observe --http` through the real binary (issue 24): every page's
//! JSON, pagination of the queue and the runs, escaping of hostile titles
//! and programs, a malformed effect-log row shown as an error row, replay
//! from the run page, the loopback rule and the bearer tokens. Runs on the
//! file store and, with TUSK_TEST_BACKEND=postgres, on a database.

use crate::common::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const EFFECTS: &str = ".premath/host_effects.jsonl";
const HOSTILE: &str = "<script>alert('owned')</script>";

/// One HTTP/1.1 exchange: (status, headers, body).
fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" {
        req.push_str("Content-Length: 0\r\n");
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).expect("UTF-8 response");
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, head.to_string(), body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
}

pub(crate) fn get(server: &ObserveServer, path: &str) -> (u16, String) {
    let (status, _, body) = request(&server.addr, "GET", path, &[]);
    (status, body)
}

pub(crate) fn get_json(server: &ObserveServer, path: &str) -> Value {
    let sep = if path.contains('?') { '&' } else { '?' };
    let (status, body) = get(server, &format!("{path}{sep}format=json"));
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"))
}

/// Writes the issue store (the file, or the database's issue lines).
fn put_issues(s: &Test, text: &str) {
    match &s.db {
        Some(db) => db.put_issue_text(text),
        None => {
            s.write(".premath/issues.jsonl", text);
        }
    }
}

fn issue_line(id: &str, title: &str, extra: &str) -> String {
    format!(
        "{{\"id\":{},\"title\":{},\"status\":\"open\",\"priority\":2,\"issue_type\":\"task\",\"created_at\":\"2026-11-01T00:00:00Z\",\"updated_at\":\"2026-11-01T00:00:00Z\"{extra}}}\n",
        serde_json::to_string(id).unwrap(),
        serde_json::to_string(title).unwrap()
    )
}

pub(crate) fn authority(s: &Test) -> Vec<String> {
    let out = s.run(&["policy", "digest"]);
    let digest = String::from_utf8(out.stdout).unwrap().trim().to_string();
    vec![
        "--policy-digest".into(),
        digest,
        "--instruction-ref".into(),
        "instr://observe-test".into(),
    ]
}

/// Every run id of the effect log's headers, in log order.
fn logged_runs(s: &Test) -> Vec<String> {
    s.jsonl(EFFECTS)
        .iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .map(|r| r["runId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn pages_answer_json_and_escape_what_programs_and_stores_supply() {
    let s = Test::new();
    let mut store = issue_line("bd-1", HOSTILE, ",\"labels\":[\"ui\"]");
    store.push_str(&issue_line("bd-2", "Second", ",\"labels\":[\"backend\"]"));
    store.push_str(&issue_line(
        "bd-3",
        "Waits on two",
        ",\"dependencies\":[{\"issue_id\":\"bd-3\",\"depends_on_id\":\"bd-2\",\"type\":\"blocks\"}]",
    ));
    put_issues(&s, &store);
    let auth = authority(&s);
    let auth: Vec<&str> = auth.iter().map(String::as_str).collect();
    let (_, ready) = s.eval(&format!("(display {:?}) (issue.ready)", HOSTILE), &[]);
    let (_, claim) = s.eval(
        "(issue.claim (hash \"id\" \"bd-2\" \"assignee\" \"agent.<b>\"))",
        &auth,
    );
    assert_eq!(claim["result"], "accepted", "{claim}");
    let (code, failed) = s.eval("(define x 1)\n(car (list))\n", &[]);
    assert_eq!(code, 1);

    let server = s.observe(&[]);

    // The queue: counts, the ready frontier, the blocked with blockers.
    let queue = get_json(&server, "/queue");
    assert_eq!(queue["total"], 3);
    assert_eq!(queue["counts"]["open"], 2);
    assert_eq!(queue["counts"]["in_progress"], 1);
    let ready_ids: Vec<&str> = queue["ready"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ready_ids, ["bd-1"]);
    assert_eq!(queue["ready"]["items"][0]["title"], HOSTILE);
    assert_eq!(queue["blocked"]["items"][0]["id"], "bd-3");
    assert_eq!(
        queue["blocked"]["items"][0]["blockers"][0]["dependsOnId"],
        "bd-2"
    );
    // Filters narrow the lists.
    let by_label = get_json(&server, "/queue?label=backend");
    assert_eq!(by_label["ready"]["total"], 0);
    assert_eq!(get_json(&server, "/queue?type=bug")["blocked"]["total"], 0);
    // The same path answers JSON by Accept.
    let (status, head, body) = request(
        &server.addr,
        "GET",
        "/queue",
        &[("Accept", "application/json")],
    );
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["total"], 3);

    // HTML: the hostile title is text, never markup.
    let (status, html) = get(&server, "/queue");
    assert_eq!(status, 200);
    assert!(
        html.contains("&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;"),
        "{html}"
    );
    assert!(
        !html.contains(HOSTILE),
        "a hostile title reached the page as markup"
    );
    let (_, head, _) = request(&server.addr, "GET", "/queue", &[]);
    assert!(head.contains("script-src 'self'"), "no CSP: {head}");

    // Leases: the claim is active, per worker.
    let leases = get_json(&server, "/leases");
    assert_eq!(leases["leaseCount"], 1);
    assert_eq!(leases["items"][0]["id"], "bd-2");
    assert_eq!(leases["workers"]["agent.<b>"]["active"], 1);
    let (_, html) = get(&server, "/leases");
    assert!(html.contains("agent.&lt;b&gt;") && !html.contains("agent.<b>"));

    // Runs: newest first, with result, classes, calls and a link.
    let runs = get_json(&server, "/runs");
    let ids: Vec<&str> = run_ids(&runs["items"]);
    assert_eq!(
        ids,
        [
            failed["runId"].as_str().unwrap(),
            claim["runId"].as_str().unwrap(),
            ready["runId"].as_str().unwrap()
        ]
    );
    assert_eq!(runs["items"][0]["result"], "rejected");
    assert_eq!(
        runs["items"][0]["failureClasses"][0],
        "scheme_eval.runtime_error"
    );
    assert_eq!(runs["items"][1]["callCount"], 1);
    assert!(runs["items"][1]["durationMs"].as_i64().unwrap() >= 0);
    assert_eq!(runs["next"], Value::Null);

    // One run: program, calls with args and envelopes, the log's checks.
    let href = runs["items"][2]["href"].as_str().unwrap().to_string();
    let run = get_json(&server, &href);
    assert_eq!(run["runId"], ready["runId"]);
    assert_eq!(run["calls"][0]["action"], "issue.ready");
    assert_eq!(run["calls"][0]["envelope"]["resultClass"], "accepted");
    assert_eq!(run["verify"]["ok"], true);
    let (_, html) = get(&server, &href);
    assert!(
        html.contains("(display &quot;&lt;script&gt;alert(&#39;owned&#39;)"),
        "{html}"
    );
    assert!(!html.contains(HOSTILE));
    // Found without the position too.
    let by_id = get_json(
        &server,
        &format!("/runs/{}", claim["runId"].as_str().unwrap()),
    );
    assert_eq!(by_id["calls"][0]["args"]["assignee"], "agent.<b>");
    // Replay: parity, with the value and output it reproduced.
    let replay_path = run["replay"]["href"].as_str().unwrap().to_string();
    let (status, _, body) = request(&server.addr, "POST", &replay_path, &[]);
    assert_eq!(status, 200, "{body}");
    let verdict: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(verdict["parity"], true, "{verdict}");
    assert_eq!(verdict["output"], HOSTILE);
    // The failing form is located by the replay.
    let failed_href = runs["items"][0]["href"].as_str().unwrap();
    let failed_run = get_json(&server, failed_href);
    let (_, _, body) = request(
        &server.addr,
        "POST",
        failed_run["replay"]["href"].as_str().unwrap(),
        &[],
    );
    let verdict: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(verdict["parity"], true, "{verdict}");
    assert_eq!(verdict["error"]["line"], 2, "{verdict}");
    // A replay from another site's page is refused.
    let (status, _, _) = request(
        &server.addr,
        "POST",
        &replay_path,
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(status, 403);
    assert_eq!(get(&server, "/runs/run-nope").0, 404);

    // Trajectory and KPI: rows read, plots drawn, the KPI computed.
    let traj = get_json(&server, "/trajectory");
    assert!(traj["rowsRead"].as_u64().unwrap() >= 3, "{traj}");
    assert_eq!(traj["kpi"]["kind"], "premath.multithread.throughput.v1");
    assert_eq!(traj["wip"][0]["worker"], "agent.<b>");
    let (status, html) = get(&server, "/trajectory");
    assert_eq!(status, 200);
    assert!(html.contains("<svg id=\"throughput\"") && html.contains("<svg id=\"wip\""));
    assert!(!html.contains("agent.<b>"));

    // The dependency graph, both ways.
    let graph = get_json(&server, "/issues/bd-2/graph");
    assert_eq!(graph["tree"]["children"][0]["id"], "bd-3");
    assert_eq!(graph["tree"]["children"][0]["direction"], "up");
    let (status, html) = get(&server, "/issues/bd-1/graph");
    assert_eq!(status, 200);
    assert!(!html.contains(HOSTILE) && html.contains("&lt;script&gt;"));
    assert_eq!(get(&server, "/issues/bd-404/graph").0, 404);

    // Bad parameters are 400 with a message, never a crash.
    let (status, body) = get(&server, "/runs?limit=many&format=json");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("limit"));

    // The runs page filters by result for real (issue 60: it listed every run).
    let rejected = get_json(&server, "/runs?result=rejected");
    assert_eq!(
        run_ids(&rejected["items"]),
        [failed["runId"].as_str().unwrap()],
        "{rejected}"
    );
    let accepted = get_json(&server, "/runs?result=accepted");
    assert_eq!(
        run_ids(&accepted["items"]),
        [
            claim["runId"].as_str().unwrap(),
            ready["runId"].as_str().unwrap()
        ],
        "{accepted}"
    );
    let (status, body) = get(&server, "/runs?result=maybe&format=json");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("accepted or rejected"), "{body}");
    // A request naming another host is refused (DNS rebinding).
    let (status, _, _) = request(&server.addr, "GET", "/queue", &[("Host", "evil.example")]);
    assert_eq!(status, 403);
}

/// Issue 60: a run that raised nothing but whose call the host refused is
/// placed too: the replay names the call and the line that made it, even
/// from inside a procedure of the prelude (`for-each`) or a `host-call`.
#[test]
fn the_replay_marks_the_line_of_a_refused_call() {
    let s = Test::new();
    put_issues(&s, &issue_line("bd-1", "One", ""));
    // Without authority evidence the claim is refused; the program goes on.
    let program = "(define ids (list \"bd-1\"))\n(issue.ready)\n(for-each\n  (lambda (id)\n    (issue.claim (hash \"id\" id \"assignee\" \"agent.a\")))\n  ids)\n(host-call \"issue.close\" (hash \"id\" \"bd-1\"))\n";
    let (_, run) = s.eval(program, &[]);
    assert_eq!(run["result"], "rejected", "{run}");
    assert!(run.get("error").is_none_or(Value::is_null), "{run}");
    let server = s.observe(&[]);
    let page = get_json(
        &server,
        &format!("/runs/{}", run["runId"].as_str().unwrap()),
    );
    let (status, _, body) = request(
        &server.addr,
        "POST",
        page["replay"]["href"].as_str().unwrap(),
        &[],
    );
    assert_eq!(status, 200, "{body}");
    let verdict: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(verdict["parity"], true, "{verdict}");
    assert_eq!(verdict["refused"]["seq"], 2, "{verdict}");
    assert_eq!(verdict["refused"]["action"], "issue.claim", "{verdict}");
    assert_eq!(verdict["refused"]["line"], 5, "{verdict}");
    assert!(
        verdict["refused"]["class"].as_str().unwrap().contains('.'),
        "{verdict}"
    );

    // The same, the refused call made with `host-call` on the last line.
    let (_, run) = s.eval(
        "(issue.ready)\n(host-call \"issue.close\" (hash \"id\" \"bd-1\"))\n",
        &[],
    );
    let page = get_json(
        &server,
        &format!("/runs/{}", run["runId"].as_str().unwrap()),
    );
    let (_, _, body) = request(
        &server.addr,
        "POST",
        page["replay"]["href"].as_str().unwrap(),
        &[],
    );
    let verdict: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(verdict["refused"]["action"], "issue.close", "{verdict}");
    assert_eq!(verdict["refused"]["line"], 2, "{verdict}");
    assert_eq!(verdict["refused"]["column"], 2, "{verdict}");
}

#[test]
fn pages_paginate_the_queue_and_the_runs() {
    let s = Test::new();
    let mut store = String::new();
    for n in 1..=12 {
        store.push_str(&issue_line(&format!("bd-{n}"), &format!("Issue {n}"), ""));
    }
    put_issues(&s, &store);
    // Nineteen runs from one REPL process, one per form.
    let forms: String = (1..=19).map(|n| format!("(+ {n} 0)\n")).collect();
    let out = s.tusk(&["repl", "--json"]).stdin(&forms).run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = s.observe(&[]);

    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let page = get_json(&server, &format!("/queue?limit=5&readyOffset={offset}"));
        assert_eq!(page["ready"]["total"], 12);
        let items = page["ready"]["items"].as_array().unwrap();
        if items.is_empty() {
            break;
        }
        assert!(items.len() <= 5);
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_string()));
        offset += 5;
    }
    let expected: Vec<String> = (1..=12).map(|n| format!("bd-{n}")).collect();
    assert_eq!(seen, expected);

    let mut logged = logged_runs(&s);
    logged.reverse();
    assert_eq!(logged.len(), 19);
    // By default a page of quiet REPL forms is one folded row (issue 60).
    let folded = get_json(&server, "/runs?limit=7");
    assert_eq!(folded["items"].as_array().unwrap().len(), 1, "{folded:#}");
    assert_eq!(folded["items"][0]["kind"], "quietForms");
    assert_eq!(folded["items"][0]["count"], 7);
    assert_eq!(folded["items"][0]["runIds"][0], logged[0].as_str());
    let mut listed = Vec::new();
    let mut path = "/runs?limit=7&forms=all".to_string();
    loop {
        let page = get_json(&server, &path);
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 7);
        listed.extend(
            items
                .iter()
                .map(|r| r["runId"].as_str().unwrap().to_string()),
        );
        for r in items {
            assert_eq!(r["result"], "accepted", "{r}");
        }
        match page["next"].as_u64() {
            Some(next) => path = format!("/runs?limit=7&before={next}&forms=all"),
            None => break,
        }
    }
    assert_eq!(
        listed, logged,
        "pages must list every run once, newest first"
    );
    // The HTML pager links the next page.
    let (_, html) = get(&server, "/runs?limit=7");
    assert!(html.contains("rel=\"next\" href=\"/runs?before="), "{html}");
    let (_, html) = get(&server, "/runs?limit=7&forms=all");
    assert!(html.contains("&amp;forms=all\">older runs</a>"), "{html}");
}

#[test]
fn a_run_page_names_the_trace_the_run_was_part_of() {
    let s = Test::new();
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let file = s.write("traced.scm", "(+ 1 2)");
    let out = s
        .tusk(&["eval", "--json"])
        .arg(&file)
        .env("TRACEPARENT", format!("00-{trace}-00f067aa0ba902b7-01"))
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .run();
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (_, untraced) = s.eval("(+ 2 3)", &[]);
    let server = s.observe(&[]);
    let id = run["runId"].as_str().unwrap();
    let page = get_json(&server, &format!("/runs/{id}"));
    assert_eq!(page["traceId"], trace, "{page}");
    let (status, html) = get(&server, &format!("/runs/{id}"));
    assert_eq!(status, 200);
    assert!(html.contains(&format!("<code id=\"trace-id\">{trace}</code>")));
    let other = get_json(
        &server,
        &format!("/runs/{}", untraced["runId"].as_str().unwrap()),
    );
    assert_eq!(other["traceId"], Value::Null);
}

#[test]
fn a_malformed_log_row_is_an_error_row_and_the_rest_still_shows() {
    let s = Test::new();
    put_issues(&s, &issue_line("bd-1", "One", ""));
    let (_, first) = s.eval("(+ 1 2)", &[]);
    let text = s.log_text(EFFECTS);
    s.write(EFFECTS, &format!("{text}{{this is not json\n[1,2]\n"));
    let (_, second) = s.eval("(issue.ready)", &[]);
    let server = s.observe(&[]);
    let runs = get_json(&server, "/runs");
    let kinds: Vec<&str> = runs["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["run", "error", "error", "run"], "{runs}");
    assert_eq!(runs["items"][0]["runId"], second["runId"]);
    assert_eq!(runs["items"][3]["runId"], first["runId"]);
    assert!(runs["items"][2]["message"]
        .as_str()
        .unwrap()
        .contains("not JSON"));
    let (status, html) = get(&server, "/runs");
    assert_eq!(status, 200);
    assert!(html.contains("bad row"));
}

#[test]
fn a_non_loopback_address_needs_allow_remote_and_auth() {
    let s = Test::new();
    let out = s.run(&["observe", "--http", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a loopback address") && err.contains("--allow-remote"),
        "{err}"
    );
    // --allow-remote without --auth is a usage error.
    let out = s.run(&["observe", "--http", "0.0.0.0:0", "--allow-remote"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--auth"));
}

#[test]
fn with_auth_every_request_needs_a_listed_bearer_token() {
    let s = Test::new();
    put_issues(&s, &issue_line("bd-1", "One", ""));
    let token = "observe-secret-token";
    let digest = tusk::canonical::sha256_hex(token.as_bytes());
    let tokens = s.write(
        "tokens.json",
        &format!(r#"{{"tokens":[{{"sha256":"{digest}","principal":"ops"}}]}}"#),
    );
    // --allow-remote on a loopback address: the remote rules (no Host check)
    // without opening a port to other hosts in a test.
    let server = s.observe(&["--allow-remote", "--auth", tokens.to_str().unwrap()]);
    let (status, head, _) = request(&server.addr, "GET", "/queue?format=json", &[]);
    assert_eq!(status, 401);
    assert!(head
        .to_ascii_lowercase()
        .contains("www-authenticate: bearer"));
    let (status, _, _) = request(
        &server.addr,
        "GET",
        "/queue?format=json",
        &[("Authorization", "Bearer wrong")],
    );
    assert_eq!(status, 401);
    let bearer = format!("Bearer {token}");
    let (status, _, body) = request(
        &server.addr,
        "GET",
        "/queue?format=json",
        &[("Authorization", &bearer), ("Host", "dashboard.example:80")],
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["total"], 1);
    // Assets too: nothing is served without the token.
    let (status, _, _) = request(&server.addr, "GET", "/assets/observe.js", &[]);
    assert_eq!(status, 401);
}

/// 1,100 connections that never finish their headers, then 300 that stall
/// mid-body and 300 that go idle after a request, against a server allowed
/// 1,024 open files: the dashboard still answers a new client at once (the
/// connection layer `tusk mcp --http` uses: deadlines per phase, the most
/// suspect connection evicted at the cap). Before, `tusk observe` had no
/// header deadline and no cap, and ran out of descriptors.
#[test]
fn half_open_and_stalled_connections_do_not_lock_the_dashboard_out() {
    let _heavy = crate::common::heavy();
    let t = Test::new().issues(&[issue("bd-1")]);
    let server = t.observe_with_open_files(&[], 1024);
    let mut held = Vec::new();
    let floods: [&[u8]; 3] = [
        b"GET /queue HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
        b"POST /runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{",
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    ];
    for (flood, n) in floods.iter().zip([1100, 300, 300]) {
        for _ in 0..n {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(flood).unwrap();
            held.push(s);
        }
        for _ in 0..3 {
            let started = std::time::Instant::now();
            let (status, body) = get(&server, "/queue?format=json");
            let took = started.elapsed();
            assert_eq!(status, 200, "{body}");
            assert!(
                took < Duration::from_millis(1500),
                "the dashboard took {took:?} under a flood of {n}"
            );
        }
    }
    drop(held);
}

/// `/` redirects to the queue and keeps the query (issue 49: `/?format=json`
/// lost it and answered HTML).
#[test]
fn the_root_redirect_keeps_the_query() {
    let t = Test::new().issues(&[issue("bd-1")]);
    let server = t.observe(&[]);
    let (status, head, _) = request(&server.addr, "GET", "/?format=json&limit=5", &[]);
    assert_eq!(status, 303, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("location: /queue?format=json&limit=5"),
        "{head}"
    );
    let (status, head, _) = request(&server.addr, "GET", "/", &[]);
    assert_eq!(status, 303);
    assert!(
        head.to_ascii_lowercase().contains("location: /queue\r\n"),
        "{head}"
    );
}

/// One form of an MCP session, replayed on its own from the dashboard and
/// from `tusk replay --run`, is replayed as the session: its earlier forms
/// first, so the definitions it uses exist, and the verdict is the recorded
/// failure with parity, as replaying the whole log says (issue 47). Before,
/// both reported `unbound identifier` and a divergence the run never had.
#[test]
fn a_session_form_is_replayed_as_its_session() {
    let t = Test::on_files();
    t.tusk(&["init"]).status(0);
    let (_, results) = mcp_session(
        &t,
        &[
            "(define me \"agent.a\")",
            "(define (first-ready) (hash-ref (payload (issue.ready)) \"count\"))",
            "(list me (first-ready) (hash-ref (hash) \"lease\"))",
        ],
    );
    // The third form failed on the missing key, having used the first two's
    // definitions.
    let result = &results[2];
    assert_eq!(result["result"], "rejected", "{result:#}");
    let message = result["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("lease"), "{message}");
    let run_id = result["runId"].as_str().unwrap().to_string();
    // `tusk replay --run` of that form: parity, the recorded failure.
    let out = t.tusk(&["replay", "--run", &run_id, "--json"]).run();
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{verdict:#}");
    // One report, of that form alone (the earlier forms ran silently).
    assert_eq!(verdict["runId"], run_id.as_str(), "{verdict:#}");
    assert_eq!(verdict["parity"], true, "{verdict:#}");
    assert_eq!(verdict["checkedCalls"], 1, "{verdict:#}");
    // The dashboard's replay of it says the same, and shows that failure.
    let server = t.observe(&[]);
    let page = get_json(&server, &format!("/runs/{run_id}"));
    let (status, _, body) = request(
        &server.addr,
        "POST",
        page["replay"]["href"].as_str().unwrap(),
        &[],
    );
    assert_eq!(status, 200, "{body}");
    let verdict: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(verdict["parity"], true, "{verdict:#}");
    let shown = verdict["error"]["message"].as_str().unwrap_or_default();
    assert!(
        shown.contains("lease") && !shown.contains("unbound"),
        "{verdict:#}"
    );
}

/// A store for the issue page (issue 47): a hostile title, id and comment,
/// labels, a description, and edges both ways with a cycle (bd-1 → bd-3 →
/// bd-1).
fn issue_page_store(s: &Test) {
    let comment = format!(
        ",\"labels\":[\"ui\",\"<i>l</i>\"],\"description\":\"What to build\",\"comments\":[{{\"id\":1,\"issue_id\":\"bd-1\",\"author\":\"agent.<b>\",\"text\":{},\"created_at\":\"2026-11-02T00:00:00Z\"}}],\"dependencies\":[{{\"depends_on_id\":\"bd-3\",\"type\":\"related\"}}]",
        serde_json::to_string(HOSTILE).unwrap()
    );
    let mut store = issue_line("bd-1", HOSTILE, &comment);
    store.push_str(&issue_line(
        "bd-2",
        "Waits on one",
        ",\"dependencies\":[{\"depends_on_id\":\"bd-1\",\"type\":\"blocks\"}]",
    ));
    store.push_str(&issue_line(
        "bd-3",
        "Closes the cycle",
        ",\"dependencies\":[{\"depends_on_id\":\"bd-1\",\"type\":\"blocks\"}]",
    ));
    store.push_str(&issue_line("x<script>\"'&", HOSTILE, ""));
    put_issues(s, &store);
}

#[test]
fn an_issue_page_shows_its_fields_comments_edges_lease_runs_and_trajectory() {
    let s = Test::new();
    issue_page_store(&s);
    let auth = authority(&s);
    let mut with_issue: Vec<&str> = auth.iter().map(String::as_str).collect();
    let (_, claim) = s.eval(
        "(issue.claim (hash \"id\" \"bd-1\" \"assignee\" \"agent.<b>\"))",
        &with_issue,
    );
    assert_eq!(claim["result"], "accepted", "{claim}");
    with_issue.extend(["--issue-id", "bd-1"]);
    let (_, worked) = s.eval("(+ 1 2)", &with_issue);
    let (_, other) = s.eval("(issue.ready)", &[]);
    let server = s.observe(&[]);

    let page = get_json(&server, "/issues/bd-1");
    assert_eq!(page["kind"], "tusk.observe.issue.v0");
    assert_eq!(page["issue"]["title"], HOSTILE);
    assert_eq!(page["issue"]["labels"][1], "<i>l</i>");
    assert_eq!(page["issue"]["description"], "What to build");
    assert_eq!(page["comments"][0]["text"], HOSTILE);
    assert_eq!(page["leaseState"], "active");
    assert_eq!(page["lease"]["owner"], "agent.<b>");
    // Both directions, with the edge types.
    assert_eq!(page["dependsOn"][0]["id"], "bd-3");
    assert_eq!(page["dependsOn"][0]["type"], "related");
    let dependents: Vec<(&str, &str)> = page["dependents"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["id"].as_str().unwrap(), d["type"].as_str().unwrap()))
        .collect();
    assert_eq!(dependents, [("bd-2", "blocks"), ("bd-3", "blocks")]);
    // The runs that touched it: by a call's arguments and by authority,
    // newest first; not the run that only read the queue.
    let runs: Vec<&str> = run_ids(&page["runs"]["items"]);
    assert_eq!(
        runs,
        [
            worked["runId"].as_str().unwrap(),
            claim["runId"].as_str().unwrap()
        ],
        "{page:#}"
    );
    assert!(!runs.contains(&other["runId"].as_str().unwrap()));
    // Trajectory rows: the steps of those runs and the rows naming it.
    let steps = page["trajectory"]["items"].as_array().unwrap();
    assert!(
        steps
            .iter()
            .any(|r| r["action"] == "scheme_eval.issue.claim"),
        "{page:#}"
    );
    assert!(steps.iter().all(|r| !r["stepId"]
        .as_str()
        .unwrap()
        .contains(other["runId"].as_str().unwrap())));
    // Its history (issue 57): the claim, with who made it and the run.
    let history = &page["history"];
    assert_eq!(history["kind"], "tusk.issue.history.v0");
    assert_eq!(history["total"], 1, "{history:#}");
    assert_eq!(history["entries"][0]["action"], "issue.claim");
    assert_eq!(history["entries"][0]["actor"], TEST_ACTOR);
    assert_eq!(history["entries"][0]["runId"], claim["runId"]);

    // HTML: everything the store supplied is text; links go to issue pages.
    let (status, html) = get(&server, "/issues/bd-1");
    assert_eq!(status, 200);
    assert!(!html.contains(HOSTILE) && !html.contains("agent.<b>") && !html.contains("<i>l</i>"));
    assert!(html.contains("&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;"));
    assert!(html.contains("<a href=\"/issues/bd-2\">bd-2</a>"), "{html}");
    assert!(html.contains("href=\"/issues/bd-1/graph\""));
    assert!(html.contains(claim["runId"].as_str().unwrap()));
    // The history table: its values escaped, the run linked.
    assert!(html.contains("id=\"issue-history\""), "{html}");
    assert!(
        html.contains(&format!(
            "<a href=\"/runs/{0}\">run {0}</a>",
            claim["runId"].as_str().unwrap()
        )),
        "{html}"
    );
    let (_, queue) = get(&server, "/queue");
    assert!(
        queue.contains("href=\"/issues/bd-2\"") && !queue.contains("/graph\""),
        "{queue}"
    );

    // A hostile id: its page, escaped, and its links percent-encoded.
    let hostile_path = "/issues/x%3Cscript%3E%22%27%26";
    let page = get_json(&server, hostile_path);
    assert_eq!(page["id"], "x<script>\"'&");
    let (status, html) = get(&server, hostile_path);
    assert_eq!(status, 200);
    assert!(!html.contains("x<script>") && html.contains("x&lt;script&gt;&quot;&#39;&amp;"));
    assert!(
        html.contains("href=\"/issues/x%3Cscript%3E%22%27%26/graph\""),
        "{html}"
    );

    // An unknown id: 404, saying where it looked and where the issues are.
    let (status, body) = get(&server, "/issues/bd-404?format=json");
    assert_eq!(status, 404, "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"], "observe.not_found");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("\"bd-404\"") && message.contains("/queue"),
        "{message}"
    );
    let (status, html) = get(&server, "/issues/%3Cb%3Enope");
    assert_eq!(status, 404);
    assert!(
        html.contains("&lt;b&gt;nope") && !html.contains("<b>nope"),
        "{html}"
    );
}

#[test]
fn the_graph_is_drawn_with_edge_types_and_cycles_and_the_tree_kept_as_text() {
    let s = Test::new();
    issue_page_store(&s);
    let server = s.observe(&[]);
    let page = get_json(&server, "/issues/bd-1/graph");
    let drawing = &page["drawing"];
    let layer = |id: &str| {
        drawing["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id)
            .unwrap_or_else(|| panic!("{id} not drawn: {drawing:#}"))["layer"]
            .as_i64()
            .unwrap()
    };
    // What it depends on below, what depends on it above.
    assert_eq!(layer("bd-1"), 0);
    assert_eq!(layer("bd-3"), 1);
    assert_eq!(layer("bd-2"), -1);
    let edge = |from: &str, to: &str| {
        drawing["edges"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["from"] == from && e["to"] == to)
            .unwrap_or_else(|| panic!("no edge {from} → {to}: {drawing:#}"))
            .clone()
    };
    assert_eq!(edge("bd-2", "bd-1")["type"], "blocks");
    assert_eq!(edge("bd-2", "bd-1")["cycle"], false);
    assert_eq!(edge("bd-1", "bd-3")["cycle"], true);
    assert_eq!(edge("bd-3", "bd-1")["cycle"], true);
    let (status, html) = get(&server, "/issues/bd-1/graph");
    assert_eq!(status, 200);
    assert!(html.contains("<svg id=\"dep-graph\""), "{html}");
    assert!(html.contains("class=\"edge cycle\"") && html.contains(">related · cycle</text>"));
    assert!(html.contains("<ul class=\"tree\" id=\"graph-down\">"));
    assert!(!html.contains(HOSTILE) && html.contains("&lt;script&gt;"));
}

#[test]
fn the_queue_shows_work_in_progress_and_who_holds_it() {
    let s = Test::new();
    let mut store = issue_line("bd-1", "Claimed", "");
    // In progress under a lease that lapsed (issue_line's status is open).
    store.push_str(
        &issue_line(
            "bd-2",
            "Lease lapsed",
            ",\"assignee\":\"agent.x\",\"lease\":{\"lease_id\":\"l1\",\"owner\":\"agent.<x>\",\"acquired_at\":\"2026-01-01T00:00:00Z\",\"expires_at\":\"2026-01-01T01:00:00Z\"}",
        )
        .replace("\"status\":\"open\"", "\"status\":\"in_progress\""),
    );
    store.push_str(&issue_line("bd-3", "Open", ""));
    put_issues(&s, &store);
    let auth = authority(&s);
    let auth: Vec<&str> = auth.iter().map(String::as_str).collect();
    let (_, claim) = s.eval(
        "(issue.claim (hash \"id\" \"bd-1\" \"assignee\" \"agent.a\"))",
        &auth,
    );
    assert_eq!(claim["result"], "accepted", "{claim}");
    let server = s.observe(&[]);
    let queue = get_json(&server, "/queue");
    let progress = &queue["inProgress"];
    assert_eq!(progress["total"], 2, "{queue:#}");
    let holders: Vec<(&str, &str, &str)> = progress["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap(),
                i["lease"]["owner"].as_str().unwrap(),
                i["lease"]["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        holders,
        [
            ("bd-1", "agent.a", "active"),
            ("bd-2", "agent.<x>", "stale")
        ]
    );
    let second = get_json(&server, "/queue?limit=1&progressOffset=1");
    assert_eq!(second["inProgress"]["items"][0]["id"], "bd-2");
    let (_, html) = get(&server, "/queue");
    assert!(html.contains("<table id=\"in-progress\">"), "{html}");
    assert!(html.contains("agent.&lt;x&gt;") && !html.contains("agent.<x>"));
}

/// The `runId` of each item of a list in a page's JSON.
fn run_ids(list: &Value) -> Vec<&str> {
    let items = list
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"));
    items.iter().map(|r| r["runId"].as_str().unwrap()).collect()
}

/// Opens an MCP session in one `tusk mcp` process over stdio and runs
/// `forms` in it, in order; returns the session id and each form's result
/// (its `structuredContent`).
pub(crate) fn mcp_session(s: &Test, forms: &[&str]) -> (String, Vec<Value>) {
    use std::io::BufRead;
    let mut child = s
        .tusk(&["mcp"])
        .command()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut ask = |request: Value| -> Value {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        if request.get("id").is_none() {
            return Value::Null;
        }
        loop {
            let mut line = String::new();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "server closed");
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply.get("id") == request.get("id") {
                return reply;
            }
        }
    };
    for r in mcp_handshake("observe-test") {
        ask(r);
    }
    let opened = ask(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "session_open", "arguments": {}}}),
    );
    let sid = opened["result"]["structuredContent"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("no session id: {opened:#}"))
        .to_string();
    let mut results = Vec::new();
    for (n, form) in forms.iter().enumerate() {
        let reply = ask(serde_json::json!({"jsonrpc": "2.0", "id": 10 + n,
            "method": "tools/call", "params": {"name": "scheme_eval",
            "arguments": {"program": form, "sessionId": sid}}}));
        assert!(reply.get("result").is_some(), "{reply:#}");
        results.push(reply["result"]["structuredContent"].clone());
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    (sid, results)
}

/// An MCP session of three forms over stdio: its page lists them in order,
/// each linked; its runs name their principal and link the session.
#[test]
fn a_session_page_lists_its_forms_in_order_and_runs_link_it() {
    let s = Test::new();
    put_issues(&s, &issue_line("bd-1", "One", ""));
    let (_, before) = s.eval("(+ 1 1)", &[]);
    let forms = [
        "(define (me) \"agent\")",
        "(me)",
        "(hash-ref (hash) \"lease\")",
    ];
    let (sid, _) = mcp_session(&s, &forms);
    let (_, after) = s.eval("(+ 2 2)", &[]);
    let server = s.observe(&[]);

    let path = format!("/sessions/{}", tusk::observe::html::url_part(&sid));
    let page = get_json(&server, &path);
    assert_eq!(page["kind"], "tusk.observe.session.v0");
    assert_eq!(page["sessionId"], sid.as_str());
    // The stdio client is recorded as the local actor (issue 57).
    assert_eq!(page["principals"], serde_json::json!([TEST_ACTOR]));
    assert_eq!(page["complete"], true);
    let listed: Vec<(u64, &str)> = page["forms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["form"].as_u64().unwrap(),
                f["programHead"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [(1, forms[0]), (2, forms[1]), (3, forms[2])],
        "{page:#}"
    );
    let ids: Vec<&str> = run_ids(&page["forms"]);
    assert!(!ids.contains(&before["runId"].as_str().unwrap()));
    assert!(!ids.contains(&after["runId"].as_str().unwrap()));
    assert_eq!(page["forms"][2]["result"], "rejected");
    let (status, html) = get(&server, &path);
    assert_eq!(status, 200);
    for f in page["forms"].as_array().unwrap() {
        let href = tusk::observe::html::esc(f["href"].as_str().unwrap());
        assert!(html.contains(&format!("href=\"{href}\"")), "{html}");
    }

    // A form's run page: its principal, its session linked, the REPL command.
    let run = get_json(&server, page["forms"][1]["href"].as_str().unwrap());
    assert_eq!(run["principal"], TEST_ACTOR);
    assert_eq!(run["sessionHref"], path.as_str());
    assert_eq!(
        run["replCommand"],
        format!("tusk repl --run {}", ids[1]).as_str()
    );
    let (_, html) = get(&server, page["forms"][1]["href"].as_str().unwrap());
    assert!(html.contains(&format!("href=\"{path}\"")), "{html}");
    assert!(html.contains(&format!(
        "<code id=\"repl-command\">tusk repl --run {}</code>",
        ids[1]
    )));
    assert!(html.contains(&format!("<span id=\"run-principal\">{TEST_ACTOR}</span>")));
    // The runs list: a principal column and the session linked.
    let runs = get_json(&server, "/runs");
    assert_eq!(runs["items"][1]["principal"], TEST_ACTOR);
    let (_, html) = get(&server, "/runs");
    assert!(html.contains("<th>principal</th>") && html.contains("<th>session</th>"));
    assert!(html.contains(&format!("href=\"{path}\"")), "{html}");
    // The session's two forms without a host call fold into one row
    // (issue 60); the rejected form and the runs around it stay rows.
    assert_eq!(runs["items"].as_array().unwrap().len(), 4, "{runs:#}");
    let folded = &runs["items"][2];
    assert_eq!(folded["kind"], "quietForms", "{runs:#}");
    assert_eq!(folded["count"], 2);
    assert_eq!(folded["sessionId"], sid.as_str());
    assert_eq!(folded["runIds"], serde_json::json!([ids[1], ids[0]]));
    assert_eq!(folded["programHeads"][0], forms[1]);
    assert_eq!(runs["items"][1]["runId"], ids[2]);
    let every = format!(
        "/runs?session={}&forms=all",
        tusk::observe::html::url_part(&sid)
    );
    assert_eq!(folded["href"], every.as_str());
    assert!(html.contains(">2 forms</a>"), "{html}");
    // Asked for every form, or for the session, each form is a row.
    for listing in ["/runs?forms=all".to_string(), every] {
        let all = get_json(&server, &listing);
        assert_eq!(
            all["items"].as_array().unwrap().len(),
            if listing.contains("session") { 3 } else { 5 },
            "{all:#}"
        );
        assert!(all["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["runId"].is_string()));
    }

    // An unknown session: 404 with a message, the id escaped.
    let (status, body) = get(&server, "/sessions/nope?format=json");
    assert_eq!(status, 404);
    assert!(body.contains("no run of session \\\"nope\\\""), "{body}");
    let (status, html) = get(&server, "/sessions/%3Cscript%3E");
    assert_eq!(status, 404);
    assert!(
        !html.contains("<script>") && html.contains("&lt;script&gt;"),
        "{html}"
    );
}

/// Issue 55: the replay button holds a run to `tusk eval`'s default limits,
/// whatever its (forged, rechained) header asks for.
#[test]
fn a_forged_ceiling_is_refused_by_the_replay_button() {
    let t = Test::on_files();
    let (_, r) = t.eval("(let loop () (loop))", &["--timeout-ms", "300"]);
    let run = r["runId"].as_str().unwrap().to_string();
    let mut rows = t.jsonl(EFFECTS);
    for row in &mut rows {
        if row["kind"] == "premath.scheme_eval.run.v0" {
            row["limits"]["timeoutMs"] = serde_json::json!(60_000);
        }
    }
    rechain(&mut rows);
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    t.write(EFFECTS, &text);
    let server = t.observe(&[]);
    let started = std::time::Instant::now();
    let (status, _, body) = request(&server.addr, "POST", &format!("/runs/{run}/replay"), &[]);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the forged limits were honoured"
    );
    assert_eq!(status, 200, "{body}");
    let verdict: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(verdict["parity"], false, "{verdict}");
    assert_eq!(verdict["divergence"]["field"], "log.limits", "{verdict}");
}

/// Issue 55: store text cannot reorder a page (bidirectional controls are
/// shown escaped), ids `.` and `..` stay reachable, and a graph of many
/// paths to one long title stays small.
#[test]
fn store_text_cannot_reorder_pages_and_odd_ids_stay_reachable() {
    let long = "L".repeat(200_000);
    let mut issues = vec![
        issue_with("bd-1", serde_json::json!({"title": "abc\u{202e}fed"})),
        issue_with(".", serde_json::json!({"title": "dot"})),
        issue_with("..", serde_json::json!({"title": "dotdot"})),
        issue_with("bd-hub", serde_json::json!({"title": long})),
    ];
    // 30 issues that each depend on the hub, and a root that depends on all.
    let mut root_deps = Vec::new();
    for i in 0..30 {
        let id = format!("bd-m{i}");
        issues.push(issue_with(&id, serde_json::json!({"dependencies": [{"issue_id": id, "depends_on_id": "bd-hub", "type": "blocks"}]})));
        root_deps.push(
            serde_json::json!({"issue_id": "bd-root", "depends_on_id": id, "type": "blocks"}),
        );
    }
    issues.push(issue_with(
        "bd-root",
        serde_json::json!({"dependencies": root_deps}),
    ));
    let t = Test::on_files().issues(&issues);
    let server = t.observe(&[]);
    let (status, html) = get(&server, "/issues/bd-1");
    assert_eq!(status, 200, "{html}");
    assert!(
        !html.contains('\u{202e}'),
        "a bidi override reached the page"
    );
    assert!(html.contains("abc\\u{202e}fed"), "{html}");
    let (_, queue) = get(&server, "/queue");
    assert!(!queue.contains('\u{202e}'));
    // The queue links `.` and `..` by query; those links lead to their pages.
    assert!(queue.contains("href=\"/issue?id=.\""), "{queue}");
    assert!(queue.contains("href=\"/issue?id=..\""), "{queue}");
    for (href, title) in [("/issue?id=.", "dot"), ("/issue?id=..", "dotdot")] {
        let page = get_json(&server, href);
        assert_eq!(page["issue"]["title"], title, "{href}: {page}");
    }
    let graph = get_json(&server, "/issue/graph?id=..");
    assert_eq!(graph["tree"]["id"], "..");
    // Thirty paths to one 200 KB title: the title once, the page small.
    let (status, page) = get(&server, "/issues/bd-root/graph?depth=3");
    assert_eq!(status, 200);
    assert!(
        page.len() < 1_000_000,
        "the graph page is {} bytes",
        page.len()
    );
    let json = get_json(&server, "/issues/bd-root/graph?depth=3");
    assert_eq!(json["tree"].to_string().matches(&long).count(), 1);
}

/// Issue 59: the plans pages list the plans dry runs kept, with their
/// state, and draw one; an unknown plan is 404.
#[test]
fn the_plans_pages_list_kept_plans_and_draw_one() {
    let s = Test::new();
    put_issues(&s, &issue_line("bd-1", "One", ""));
    let auth = authority(&s);
    let mut flags: Vec<&str> = auth.iter().map(String::as_str).collect();
    flags.push("--dry-run");
    let (code, dry) = s.eval(
        "(issue.close (hash \"id\" \"bd-1\" \"reason\" \"planned\"))",
        &flags,
    );
    assert_eq!(code, 0, "{dry}");
    let id = dry["plan"]["planId"].as_str().unwrap().to_string();
    let server = s.observe(&[]);
    let list = get_json(&server, "/plans");
    assert_eq!(list["items"][0]["planId"], id.as_str(), "{list:#}");
    assert_eq!(list["items"][0]["state"], "not applied");
    assert_eq!(list["items"][0]["issues"], serde_json::json!(["bd-1"]));
    let one = get_json(&server, &format!("/plans/{id}"));
    assert_eq!(
        one["plan"]["changes"][0]["fields"]["status"]["after"],
        "closed"
    );
    let (status, html) = get(&server, &format!("/plans/{id}"));
    assert_eq!(status, 200);
    assert!(html.contains("id=\"fields-bd-1\""), "{html}");
    s.store(&["plan", "apply", &id]).run().status(0);
    let list = get_json(&server, "/plans");
    assert_eq!(list["items"][0]["state"], "applied", "{list:#}");
    assert_eq!(
        get(&server, &format!("/plans/plan-{}", "0".repeat(64))).0,
        404
    );
}

//! `tusk mcp` on stdio, spoken to line by line as a client that misbehaves
//! would: what `src/mcp/stdio.rs` promises beyond the MCP SDKs' transport.

use crate::common::{self, issue, jsonrpc_stdio, mcp_handshake, Test};

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// A client that sends and does not read: once the answers the server owes
/// fill its stdout and `MAX_OUTSTANDING` more are waiting, the server stops
/// reading, so the client's writes block instead of the server's memory
/// growing. When the client reads, every request is answered, in order.
#[test]
fn a_client_that_does_not_read_stops_the_servers_reading() {
    const REQUESTS: usize = 20_000;
    let t = Test::on_files();
    // Its stderr is piped and not read: the server writes nothing there.
    let mut child = t.tusk(&["mcp"]).spawn();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for message in common::mcp_handshake("backpressure") {
        writeln!(stdin, "{message}").unwrap();
    }
    // The server is up and reading before the flood starts.
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 0, "{init}");
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let written = written.clone();
        thread::spawn(move || {
            for id in 1..=REQUESTS {
                let ping = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
                if writeln!(stdin, "{ping}").is_err() {
                    return;
                }
                written.store(id, Ordering::SeqCst);
            }
        })
    };
    // Wait until the writer stops getting anywhere (or finishes).
    let started = Instant::now();
    let mut last = usize::MAX;
    loop {
        thread::sleep(Duration::from_millis(500));
        let now = written.load(Ordering::SeqCst);
        if now == last || now == REQUESTS || started.elapsed() > Duration::from_secs(120) {
            break;
        }
        last = now;
    }
    let stalled_at = written.load(Ordering::SeqCst);
    // At most ~4,700: the answers stdout's pipe holds (~1,600 of 41 bytes),
    // the 16 owed, and the requests in stdin's pipe, the server's 64 KiB
    // read buffer (~1,450 of 45 bytes each) and its queue to rmcp (64).
    assert!(
        stalled_at < REQUESTS / 2,
        "the server read {stalled_at} of {REQUESTS} requests while nothing was read from it"
    );
    for id in 1..=REQUESTS {
        let line = lines.next().expect("an answer").expect("a line");
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
        assert!(answer.get("result").is_some(), "{answer}");
    }
    writer.join().unwrap();
    assert_eq!(written.load(Ordering::SeqCst), REQUESTS);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

/// A client that cancels its requests keeps the server reading: rmcp sends
/// no answer to a request cancelled in time, so the filter must not go on
/// counting it as owed. Each run here would spin for two minutes; after
/// more cancellations than `MAX_OUTSTANDING`, a ping still gets its answer
/// at once (counted as owed, the 16th run would hold reading until its
/// timeout).
#[test]
fn cancelled_requests_are_not_owed() {
    const CANCELLED: usize = 20;
    let t = Test::on_files();
    let mut child = t.tusk(&["mcp", "--timeout-ms", "120000"]).spawn();
    let mut stdin = child.stdin.take().unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (answers, answer) = std::sync::mpsc::channel::<Value>();
    let reader = thread::spawn(move || {
        for line in lines {
            let Ok(line) = line else { return };
            if answers.send(serde_json::from_str(&line).unwrap()).is_err() {
                return;
            }
        }
    });
    for message in common::mcp_handshake("cancels") {
        writeln!(stdin, "{message}").unwrap();
    }
    let init = answer.recv_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(init["id"], 0, "{init}");
    for id in 1..=CANCELLED {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "scheme_eval", "arguments": {"program": "(let loop () (loop))"}}});
        let cancel = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the client gave up"}});
        writeln!(stdin, "{call}").unwrap();
        thread::sleep(Duration::from_millis(50));
        writeln!(stdin, "{cancel}").unwrap();
    }
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":"after","method":"ping"}}"#).unwrap();
    // A cancelled run that ended before its cancel was read is answered;
    // any such answer may come first.
    let deadline = Instant::now() + Duration::from_secs(30);
    let pong = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let answer = answer
            .recv_timeout(left)
            .expect("the ping after the cancellations is answered");
        if answer["id"] == "after" {
            break answer;
        }
    };
    assert!(pong.get("result").is_some(), "{pong}");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    reader.join().unwrap();
}

/// `scheme_eval`'s `detail` (issue 46): "summary", the default, sends each
/// call's id, action and class (a refused one's classes and diagnostic) and
/// leaves payloads, digests, refs, paths and times to the effect log;
/// "full" sends every envelope whole.
#[test]
fn scheme_eval_sends_a_summary_unless_asked_for_the_whole_result() {
    let t = Test::on_files().issues(&[issue("bd-1"), issue("bd-2")]);
    let program = r#"(issue.ready) (issue.close (hash "id" "bd-1")) (+ 1 2)"#;
    let call = |id: u64, detail: Option<&str>| {
        let mut args = serde_json::json!({"program": program});
        if let Some(d) = detail {
            args["detail"] = serde_json::json!(d);
        }
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "scheme_eval", "arguments": args}})
    };
    let mut requests = mcp_handshake("detail");
    requests.extend([
        call(1, None),
        call(2, Some("summary")),
        call(3, Some("full")),
    ]);
    let mut cmd = t.tusk(&["mcp"]).command();
    let replies = jsonrpc_stdio(&mut cmd, &requests);
    let sc = |i: usize| replies[i]["result"]["structuredContent"].clone();
    let (default, summary, full) = (sc(1), sc(2), sc(3));
    assert_eq!(default["effects"], summary["effects"]);
    assert_eq!(summary["value"], 3);
    assert_eq!(
        summary["effects"][0],
        serde_json::json!({"callId": "call-1", "action": "issue.ready", "resultClass": "accepted"})
    );
    let refused = &summary["effects"][1];
    assert_eq!(
        refused["resultClass"], "mutation.use_evidence_missing",
        "{refused}"
    );
    assert!(
        refused["diagnostic"]
            .as_str()
            .unwrap()
            .contains("policyDigest"),
        "{refused}"
    );
    for gone in ["programDigest", "trajectoryPath", "startedAt", "finishedAt"] {
        assert!(summary.get(gone).is_none(), "{gone} in a summary");
        assert!(
            full.get(gone).is_some(),
            "{gone} missing from the full result"
        );
    }
    assert_eq!(
        full["effects"][0]["payload"]["count"], 2,
        "{}",
        full["effects"][0]
    );
    assert!(full["effects"][0]["witnessRefs"].is_array());
    assert!(summary.to_string().len() * 3 < full.to_string().len());
}

/// What a model reads once (issue 56, point 3): the tool list, under 16 KB,
/// gives every action's payload shape (the keys a program reads, such as a
/// blocker's `dependsOnId` and a retry decision's `ruleId`) and the store's
/// own readiness rule.
#[test]
fn tools_list_is_under_16_kb_with_every_payload_shape() {
    for (rule, says) in [
        ("beads", "`parent-child` only organizes"),
        (
            "premath",
            "a child (which names its parent with `parent-child`) waits",
        ),
    ] {
        let t = Test::on_files().issues(&[issue("bd-1")]);
        t.write(
            ".premath/config.json",
            &format!("{{\"readiness\": \"{rule}\"}}"),
        );
        let mut requests = mcp_handshake("size");
        requests.push(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        let mut cmd = t.tusk(&["mcp"]).command();
        let replies = jsonrpc_stdio(&mut cmd, &requests);
        let list = &replies[1]["result"];
        let bytes = serde_json::to_vec(list).unwrap().len();
        assert!(bytes < 16 * 1024, "tools/list is {bytes} bytes");
        let eval = list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "scheme_eval")
            .unwrap();
        let text = eval["description"].as_str().unwrap();
        for want in [
            "(issue.ready (hash [\"filter\" hash])) → {count, items: [Item], leaseCounts: LeaseCounts}",
            "Blocker = {",
            "dependsOnId",
            "Decision = {attempt, retry, maxAttempts, backoffClass",
            "ruleId",
            "handled is true",
            says,
        ] {
            assert!(text.contains(want), "{rule}: {want:?} missing from:\n{text}");
        }
    }
}

/// A handled refusal is not an error (issue 56, point 4): a program that
/// reads a refusal and goes on is `rejected` with `handled: true` and
/// `isError` false; one that ignores a refusal is an error naming the call.
#[test]
fn a_handled_refusal_is_not_an_error_and_an_ignored_one_is() {
    let t = Test::on_files().issues(&[issue("bd-1")]);
    let call = |id: u64, program: &str| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "scheme_eval", "arguments": {"program": program}}})
    };
    let mut requests = mcp_handshake("handled");
    requests.extend([
        // Reads the refusal, answers with its class.
        call(1, r#"(define e (issue.close (hash "id" "bd-1"))) (if (accepted? e) "closed" (result-class e))"#),
        // Ignores it.
        call(2, r#"(issue.close (hash "id" "bd-1")) "done""#),
        // Reads it, then fails.
        call(3, r#"(define e (issue.show (hash "id" "bd-9"))) (if (rejected? e) (car '()) 1)"#),
        // Reads one refusal of two.
        call(4, r#"(define a (issue.show (hash "id" "bd-8"))) (issue.show (hash "id" "bd-9")) (failure-classes a)"#),
    ]);
    let mut cmd = t.tusk(&["mcp"]).command();
    let replies = jsonrpc_stdio(&mut cmd, &requests);
    let result = |i: usize| &replies[i]["result"];
    assert_eq!(result(1)["isError"], false, "{:#}", result(1));
    let sc = &result(1)["structuredContent"];
    assert_eq!(sc["result"], "rejected");
    assert_eq!(sc["handled"], true);
    assert_eq!(sc["value"], "mutation.use_evidence_missing");
    assert!(sc.get("unexamined").is_none(), "{sc:#}");
    for (i, unexamined) in [(2, Some("call-1")), (3, None), (4, Some("call-2"))] {
        let r = result(i);
        assert_eq!(r["isError"], true, "{i}: {r:#}");
        assert_eq!(r["structuredContent"]["handled"], false, "{i}: {r:#}");
        assert_eq!(
            r["structuredContent"]["unexamined"]
                .get(0)
                .and_then(Value::as_str),
            unexamined,
            "{i}: {r:#}"
        );
    }
}

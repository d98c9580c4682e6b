//! `tusk mcp` on stdio, spoken to line by line as a client that misbehaves
//! would: what `src/mcp/stdio.rs` promises beyond the MCP SDKs' transport.

use crate::common::{self, Test};

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

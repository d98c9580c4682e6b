//! Replay speed: recorded host calls re-checked per second.
//!
//! `cargo bench --bench replay [-- CALLS]` (default 50000, at least 10000 in
//! bench mode) records one long run of CALLS calls and CALLS/50 short runs of
//! 50 calls each through a real [`Host`], then replays the whole log with the
//! library and times it (reading and checking the log included); then the
//! long run alone and the short runs alone, so what a run costs beyond its
//! calls shows apart from what a call costs. Under `cargo
//! test --all-targets` it runs a small smoke version. It asserts parity and the
//! number of checked calls, never timings.

mod support;

use std::time::Instant;
use tusk::replay::{log, Replayer, Selection};
use tusk::runtime::Request;
use tusk::sandbox::LimitsOverride;

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let calls: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(if bench { 50_000 } else { 500 });
    let calls = if bench { calls.max(10_000) } else { calls };
    let dir = tempfile::tempdir().expect("temp dir");
    let host = support::host(dir.path());
    let program = |n: usize| {
        format!("(let loop ((i 0) (sum 0)) (if (< i {n}) (loop (+ i 1) (+ sum (hash-ref (payload (bench.echo (hash \"n\" i))) \"n\"))) sum))")
    };
    let record = |n: usize| {
        let r = host
            .eval(&Request {
                program: program(n),
                limits: Some(LimitsOverride {
                    max_calls: Some(n as u32),
                    timeout_ms: Some(600_000),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .expect("logs are writable");
        assert!(r.accepted, "{}", r.json["error"]);
    };
    record(calls);
    let short_runs = calls / 50;
    for _ in 0..short_runs {
        record(50);
    }
    let total_calls = calls + short_runs * 50;
    let path = host.config().paths.effects.path();
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);

    let t = Instant::now();
    let mut log = log::read(path).expect("readable");
    let read = t.elapsed();
    let reports = Replayer::new()
        .replay(std::mem::take(&mut log.runs), &Selection::All)
        .expect("runs to replay");
    let dt = t.elapsed();
    assert!(
        reports.iter().all(|r| r.parity()),
        "{:?}",
        reports.iter().find(|r| !r.parity())
    );
    let checked: usize = reports.iter().map(|r| r.checked_calls).sum();
    assert_eq!(checked, total_calls);
    println!(
        "replay: {} runs, {checked} recorded calls ({:.1} MB log) in {:.3} s = {:.0} calls/s (reading and checking the log: {:.3} s)",
        reports.len(),
        bytes as f64 / 1e6,
        dt.as_secs_f64(),
        checked as f64 / dt.as_secs_f64(),
        read.as_secs_f64(),
    );

    // The long run alone, already read: host calls answered with no action,
    // no envelope building and no I/O. What is left per call is the program,
    // the args digest and the envelope's conversion into a Steel hash, which
    // bounds the live host-call throughput from above.
    let mut log = log::read(path).expect("readable");
    let long = log.runs.remove(0);
    let t = Instant::now();
    let report = Replayer::new().replay_run(long, tusk::sandbox::EngineMode::Fresh);
    let dt = t.elapsed();
    assert!(report.parity(), "{report:?}");
    println!(
        "replay of the {calls}-call run alone: {:.3} s = {:.0} calls/s ({:.2} µs/call)",
        dt.as_secs_f64(),
        calls as f64 / dt.as_secs_f64(),
        dt.as_secs_f64() * 1e6 / calls as f64,
    );

    // The short runs alone, already read: what a run costs beyond its calls
    // (a worker of its own, the program's compilation, the footer's checks).
    let t = Instant::now();
    let reports = Replayer::new()
        .replay(log.runs, &Selection::All)
        .expect("runs to replay");
    let dt = t.elapsed();
    assert!(reports.iter().all(|r| r.parity()));
    let checked: usize = reports.iter().map(|r| r.checked_calls).sum();
    assert_eq!(checked, short_runs * 50);
    println!(
        "replay of the {short_runs} short runs alone: {:.3} s = {:.0} calls/s ({:.2} ms/run)",
        dt.as_secs_f64(),
        checked as f64 / dt.as_secs_f64(),
        dt.as_secs_f64() * 1e3 / short_runs as f64,
    );
}

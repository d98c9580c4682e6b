//! In-process figures of the host core (issue 2's benchmark):
//!
//! - **warm per-program latency**: one [`Host`] (engine prepared once) runs many
//!   one-call programs in a row, each a full run: effect-log header, one call
//!   with its effect row and trajectory row, footer; back to back (each run
//!   also waits for its worker to be made) and paced (`GAP_MS` apart, default
//!   2, as a server's requests arrive: the spare worker is ready);
//! - **host-call throughput**: one program making many calls to a trivial read
//!   action registered through the embedding API.
//!
//! `cargo bench --bench host [-- PROGRAMS CALLS]` (defaults 2000 and 200000).
//! Under `cargo test --all-targets` it runs a small smoke version. It asserts
//! that every run was accepted and every call was recorded, never timings; the
//! cold whole-process figure is `bench/host.sh`.

mod support;

use serde_json::Value;
use std::time::{Duration, Instant};
use support::host;
use tusk::runtime::{Host, Request};
use tusk::sandbox::LimitsOverride;

fn run(host: &Host, program: &str, limits: Option<LimitsOverride>) -> Value {
    let result = host
        .eval(&Request {
            program: program.into(),
            limits,
            ..Default::default()
        })
        .expect("logs are writable");
    assert!(result.accepted, "{}", result.json);
    result.json
}

fn lines(path: &std::path::Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|c| **c == b'\n').count())
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// `programs` runs in a row, each `gap` after the last one ended (zero: back
/// to back, so each run also waits for its worker to be made; a server's
/// requests arrive with the client's thinking between them).
fn warm(programs: usize, label: &str, program: &str, gap: Duration) {
    let dir = tempfile::tempdir().expect("temp dir");
    let host = host(dir.path());
    // A few unmeasured runs so file creation is not in the figures.
    for _ in 0..5 {
        run(&host, program, None);
    }
    let mut times = Vec::with_capacity(programs);
    let t = Instant::now();
    for _ in 0..programs {
        if !gap.is_zero() {
            std::thread::sleep(gap);
        }
        let t = Instant::now();
        let json = run(&host, program, None);
        times.push(t.elapsed());
        assert_eq!(json["executedCallCount"], 1);
    }
    let wall = t.elapsed();
    let total: Duration = times.iter().sum();
    let paths = &host.config().paths;
    // Header + one row + footer per run; one trajectory row per run.
    assert_eq!(lines(paths.effects.path()), 3 * (programs + 5));
    // A call row and the run's step row per run.
    assert_eq!(lines(paths.trajectory.path()), 2 * (programs + 5));
    times.sort();
    println!(
        "warm per-program ({label}): {programs} programs in {:.3} s: mean {:.3} ms, p50 {:.3} ms, p99 {:.3} ms",
        wall.as_secs_f64(),
        total.as_secs_f64() * 1e3 / programs as f64,
        percentile(&times, 0.5),
        percentile(&times, 0.99),
    );
}

fn throughput(calls: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let host = host(dir.path());
    let program =
        format!("(let loop ((i 0)) (if (< i {calls}) (begin (bench.noop) (loop (+ i 1))) i))");
    let limits = LimitsOverride {
        max_calls: Some(calls as u32),
        timeout_ms: Some(600_000),
        ..Default::default()
    };
    let t = Instant::now();
    let json = run(&host, &program, Some(limits));
    let dt = t.elapsed();
    assert_eq!(json["value"], calls);
    assert_eq!(json["executedCallCount"], calls);
    let paths = &host.config().paths;
    assert_eq!(lines(paths.effects.path()), calls + 2);
    assert_eq!(lines(paths.trajectory.path()), calls + 1);
    let in_program = json["usage"]["elapsedMs"].as_f64().unwrap_or(f64::NAN) / 1e3;
    println!(
        "host-call throughput (bench.noop, each call with effect row + trajectory row): {calls} calls in {:.3} s = {:.0} calls/s ({:.2} µs/call); inside the program {:.3} s = {:.0} calls/s",
        dt.as_secs_f64(),
        calls as f64 / dt.as_secs_f64(),
        dt.as_secs_f64() * 1e6 / calls as f64,
        in_program,
        calls as f64 / in_program,
    );
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let numbers: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let programs = numbers
        .first()
        .copied()
        .unwrap_or(if bench { 2_000 } else { 20 });
    let calls = numbers
        .get(1)
        .copied()
        .unwrap_or(if bench { 200_000 } else { 500 });
    let none = Duration::ZERO;
    warm(programs, "(bench.noop), back to back", "(bench.noop)", none);
    warm(
        programs,
        "(issue.ready) on an empty store, back to back",
        "(result-class (issue.ready))",
        none,
    );
    // GAP_MS sets the pause between paced runs (default 2).
    let gap_ms: u64 = std::env::var("GAP_MS")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(2);
    warm(
        programs,
        &format!("(bench.noop), {gap_ms} ms apart"),
        "(bench.noop)",
        Duration::from_millis(gap_ms),
    );
    throughput(calls);
}

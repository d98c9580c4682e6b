//! The cost guard of the fast paths (issue 25): counts, not timings. Under
//! `strace -f -c`, the system calls of one host call (inside one `tusk eval`
//! program) and of one warm run (one `scheme_eval` of a long-lived
//! `tusk mcp`), each as the difference between a long and a short session
//! divided by the extra calls or runs, so start-up and exit cancel out. A
//! change that adds work to either path (another open, another fork, another
//! round trip) fails here before it shows in a benchmark.
//!
//! Waiting is not work: calls that only wait (futex, epoll, poll, sleeps) and
//! calls that failed (a non-blocking read's EAGAIN) are not counted, so the
//! counts do not depend on the machine's load. strace is installed by
//! `.ci/run` (Debian's package).

use crate::common;

use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The ceilings, from the counts measured when the guard was written (host
/// call 9.0, warm run 123.6-124.2 after the logs stopped creating their
/// directory on every open, 130 before; one fork per run), lowered as the
/// paths got cheaper (warm run 109.3-110.6 once the store was read through
/// one open and a worker's `/proc` status in one read; 104.6 once the run's
/// step row went to the trajectory its calls had opened), with room for the
/// per-run noise of the kernel's socket reads.
const HOST_CALL_CEILING: f64 = 10.0;
const WARM_RUN_CEILING: f64 = 110.0;
const FORKS_PER_RUN: f64 = 1.0;

const WAITING: [&str; 10] = [
    "futex",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "poll",
    "ppoll",
    "sched_yield",
    "nanosleep",
    "clock_nanosleep",
    "restart_syscall",
];
/// Process creation (glibc's fork is `clone` with SIGCHLD; threads are
/// `clone3`, and the server's thread pool may add one now and then).
const FORKS: [&str; 3] = ["clone", "fork", "vfork"];

fn strace() -> Command {
    let ok = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "strace is required (apt-get install strace; .ci/run installs it)"
    );
    Command::new("strace")
}

/// Successful calls per system call in an `strace -c` summary.
fn summary(path: &Path) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        // % time, seconds, usecs/call, calls, [errors], syscall
        if cols.len() < 5 || cols[0].starts_with('-') || cols[0] == "%" {
            continue;
        }
        let name = cols[cols.len() - 1];
        if name == "total" {
            continue;
        }
        let calls: f64 = cols[3].parse().unwrap();
        let errors: f64 = if cols.len() == 6 {
            cols[4].parse().unwrap()
        } else {
            0.0
        };
        *out.entry(name.to_string()).or_insert(0.0) += calls - errors;
    }
    out
}

/// Per-unit difference of two summaries: (work, forks, the itemised work).
fn per_unit(
    short: &BTreeMap<String, f64>,
    long: &BTreeMap<String, f64>,
    units: f64,
) -> (f64, f64, Vec<(String, f64)>) {
    let mut items = Vec::new();
    let mut work = 0.0;
    let mut forks = 0.0;
    for name in short.keys().chain(long.keys()) {
        if items.iter().any(|(n, _)| n == name) {
            continue;
        }
        let d = (long.get(name).copied().unwrap_or(0.0) - short.get(name).copied().unwrap_or(0.0))
            / units;
        if FORKS.contains(&name.as_str()) {
            forks += d;
        }
        if !WAITING.contains(&name.as_str()) {
            work += d;
            items.push((name.clone(), d));
        }
    }
    items.sort_by(|a, b| b.1.total_cmp(&a.1));
    (work, forks, items)
}

/// Runs `tusk eval ARGS` in `dir` under `strace -f -o OUT TRACE_ARGS`; it
/// must succeed.
fn strace_eval(dir: &Path, trace_args: &[&str], out_file: &Path, eval_args: &[&str]) {
    let out = strace()
        .arg("-f")
        .args(trace_args)
        .arg("-o")
        .arg(out_file)
        .arg(common::BIN)
        .arg("eval")
        .args(eval_args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn eval_counts(dir: &Path, calls: usize) -> BTreeMap<String, f64> {
    let program =
        format!("(define (go i) (if (< i {calls}) (begin (issue.ready) (go (+ i 1))) i)) (go 0)");
    std::fs::write(dir.join("p.scm"), program).unwrap();
    let out_file = dir.join(format!("eval-{calls}.strace"));
    strace_eval(dir, &["-c"], &out_file, &["--max-calls", "1000", "p.scm"]);
    summary(&out_file)
}

#[test]
fn one_host_call_costs_no_more_system_calls_than_today() {
    let dir = tempfile::tempdir().unwrap();
    let short = eval_counts(dir.path(), 1);
    let long = eval_counts(dir.path(), 201);
    let (work, forks, items) = per_unit(&short, &long, 200.0);
    assert!(
        work <= HOST_CALL_CEILING,
        "one host call made {work:.1} system calls (ceiling {HOST_CALL_CEILING}): {items:?}"
    );
    // A host call never forks.
    assert!(forks.abs() < 0.01, "{forks} forks per host call");
    // And it does real work: the effect row and the trajectory row.
    assert!(work >= 4.0, "{items:?}");
}

fn mcp_counts(dir: &Path, runs: usize) -> BTreeMap<String, f64> {
    let out_file = dir.join(format!("mcp-{runs}.strace"));
    let mut cmd = strace();
    cmd.args(["-f", "-c", "-o"])
        .arg(&out_file)
        .arg(common::BIN)
        .arg("mcp")
        .current_dir(dir);
    let mut requests = common::mcp_handshake("syscalls");
    requests.extend((1..=runs).map(|id| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "scheme_eval", "arguments": {"program": "(issue.ready)"}}})
    }));
    let replies = common::jsonrpc_stdio(&mut cmd, &requests);
    for reply in &replies[1..] {
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
    summary(&out_file)
}

#[test]
fn one_warm_run_costs_no_more_system_calls_than_today() {
    let dir = tempfile::tempdir().unwrap();
    let short = mcp_counts(dir.path(), 1);
    let long = mcp_counts(dir.path(), 41);
    let (work, forks, items) = per_unit(&short, &long, 40.0);
    assert!(
        work <= WARM_RUN_CEILING,
        "one warm run made {work:.1} system calls (ceiling {WARM_RUN_CEILING}): {items:?}"
    );
    // One worker per run: a fresh engine is a fork, and only one (the
    // spare worker kept ready may be one ahead at the end).
    assert!(
        forks <= FORKS_PER_RUN + 0.05,
        "{forks:.2} forks per warm run: {items:?}"
    );
    assert!(
        forks >= FORKS_PER_RUN - 0.05,
        "{forks:.2} forks per warm run"
    );
}

/// `tusk eval` forks its template (whose engine then builds, compiling no
/// prelude form the program does not reach, and which becomes the run's
/// worker) before it reads the program file: the engine's build overlaps the reading of the request and the
/// opening of the logs. A template started only when the run begins builds
/// on the run's clock instead (and, not started in one-run mode, compiles
/// the whole prelude: cold runs were 2.5x slower when the early start was
/// lost).
#[test]
fn a_one_run_process_forks_its_template_before_reading_the_program() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("one.scm"), "(issue.ready)\n").unwrap();
    let trace = dir.path().join("order.strace");
    strace_eval(
        dir.path(),
        &["-e", "trace=clone,clone3,fork,vfork,openat"],
        &trace,
        &["one.scm"],
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    let main_pid = text.split_whitespace().next().expect("a traced call");
    let mine: Vec<&str> = text
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(main_pid))
        .collect();
    // glibc's fork is `clone` with SIGCHLD; threads are `clone3`.
    let fork = mine
        .iter()
        .position(|l| l.contains("clone(") && l.contains("SIGCHLD"));
    let read = mine.iter().position(|l| l.contains("\"one.scm\""));
    let (Some(fork), Some(read)) = (fork, read) else {
        panic!("no fork or no open of one.scm by {main_pid}:\n{text}");
    };
    assert!(
        fork < read,
        "the template was forked after the program was read:\n{}",
        mine.join("\n")
    );
    // One process is forked in all: the template, which then becomes the
    // run's worker instead of forking one.
    let forks = text
        .lines()
        .filter(|l| l.contains("clone(") && l.contains("SIGCHLD"))
        .count();
    assert_eq!(forks, 1, "{text}");
}

//! Sandbox v2 through the real binary: every hostile program gets exactly one
//! result, the host (and a REPL session) goes on, the effect log is whole and
//! replays with parity, nothing outside the store changes, the worker stays
//! within its memory limit plus the stated overhead, and the same program
//! gives the same bytes in any process.

use crate::common::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Stated overhead of a worker over its memory limit: the allocator's hard
/// cap (limit/4 + 16 MiB), the native stack (64 MiB) and slack (see
/// docs/sandbox.md).
fn memory_bound_kb(limit_mb: u64) -> u64 {
    limit_mb * 1024 * 5 / 4 + 128 * 1024
}

/// Every file under `dir` outside `.premath` with its content.
fn outside_store(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().to_string();
            if rel.starts_with(".premath") || rel == "program.scm" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// What a hostile program must come to.
enum Expect {
    Class(&'static str),
    /// Rejected with one of these classes.
    OneOf(&'static [&'static str]),
    Value(Value),
    Accepted,
}

/// Runs `program` with `flags`: exactly one result of the expected kind, a
/// whole effect log that replays with parity, nothing else touched, memory
/// within bounds. Returns the result.
fn hostile(program: &str, flags: &[&str], expect: Expect) -> Value {
    let s = Test::new();
    s.write("canary.txt", "canary");
    s.write("inner/keep.txt", "keep");
    let before = outside_store(s.dir());
    let (code, r) = s.eval(program, flags);
    match &expect {
        Expect::Class(class) => {
            assert_eq!(code, 1, "{program}: {r:#}");
            assert!(
                classes(&r).contains(&class.to_string()),
                "{program}: expected {class}, got {r:#}"
            );
        }
        Expect::Value(v) => {
            assert_eq!(code, 0, "{program}: {r:#}");
            assert_eq!(&r["value"], v, "{program}");
        }
        Expect::Accepted => assert_eq!(code, 0, "{program}: {r:#}"),
        Expect::OneOf(allowed) => {
            assert_eq!(code, 1, "{program}: {r:#}");
            assert!(
                classes(&r).iter().any(|c| allowed.contains(&c.as_str())),
                "{program}: expected one of {allowed:?}, got {r:#}"
            );
        }
    }
    assert_eq!(outside_store(s.dir()), before, "{program} changed files");
    let log = s.jsonl(".premath/host_effects.jsonl");
    let kinds: Vec<&str> = log.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds.first(),
        Some(&"premath.scheme_eval.run.v0"),
        "{program}"
    );
    assert_eq!(
        kinds.last(),
        Some(&"premath.scheme_eval.run_end.v0"),
        "{program}"
    );
    assert_eq!(
        kinds.iter().filter(|k| k.ends_with("run_end.v0")).count(),
        1,
        "{program}"
    );
    let replay = s.run(&["replay", "--json"]);
    let report: Value = serde_json::from_slice(&replay.stdout).expect("replay prints JSON");
    assert_eq!(replay.status.code(), Some(0), "{program}: {report:#}");
    assert_eq!(report["parity"], true, "{program}: {report:#}");
    let limit_mb = flags
        .iter()
        .position(|f| *f == "--max-memory-mb")
        .map_or(256, |i| flags[i + 1].parse().unwrap());
    if let Some(peak) = r["usage"]["peakMemoryKb"].as_u64() {
        assert!(
            peak <= memory_bound_kb(limit_mb),
            "{program}: worker peak {peak} KiB over {} KiB",
            memory_bound_kb(limit_mb)
        );
    }
    r
}

const CRASHED: &str = "scheme_eval.worker_crashed";
const RUNTIME: &str = "scheme_eval.runtime_error";
const MEMORY: &str = "scheme_eval.memory_exceeded";
const INVALID: &str = "scheme_eval.invalid_program";

const CYCLE: &str = "(define b (box 1)) (set-box! b b) ";

#[test]
fn cyclic_values_in_messages_and_hashes() {
    // Steel's own printer and hasher recurse on these: the worker dies, the
    // run gets its one result, the host goes on.
    for tail in [
        "(car b)",
        "(+ 1 b)",
        "(with-handler (lambda (e) 1) (+ 1 b))",
    ] {
        let r = hostile(&format!("{CYCLE}{tail}"), &[], Expect::Class(CRASHED));
        assert!(
            r["error"]["message"].as_str().unwrap().contains("stack"),
            "{r:#}"
        );
    }
    // Where tusk prints, it is cycle-safe.
    let r = hostile(&format!("{CYCLE}(error b)"), &[], Expect::Class(RUNTIME));
    assert!(r["error"]["message"].as_str().unwrap().contains("#<cycle>"));
    hostile(
        &format!("{CYCLE}(hash-ref (hash \"a\" b) \"z\")"),
        &[],
        Expect::Class(RUNTIME),
    );
    hostile(
        "(define a (mutable-vector 1)) (vector-set! a 0 a) (hash a 1)",
        &[],
        Expect::Class(CRASHED),
    );
}

#[test]
fn deep_structures_end_as_one_result() {
    // A list nested 2,000,000 deep used as a hash key.
    hostile(
        "(define (nest n acc) (if (= n 0) acc (nest (- n 1) (list acc)))) (hash (nest 2000000 '()) 1)",
        &[],
        Expect::Class(CRASHED),
    );
    // A small syntax-rules program whose expansion would be 2^17 levels deep
    // (the token-depth check never sees it): Steel's expander stops at 512
    // nested expansions, and whatever else happens, the run gets one result.
    let mut program = String::from("(define-syntax w0 (syntax-rules () [(_ x) (list x)]))\n");
    for k in 1..=17 {
        program.push_str(&format!(
            "(define-syntax w{k} (syntax-rules () [(_ x) (w{j} (w{j} x))]))\n",
            j = k - 1
        ));
    }
    program.push_str("(w17 1)\n");
    assert!(program.len() < 4096);
    let r = hostile(
        &program,
        &["--timeout-ms", "5000"],
        Expect::OneOf(&[INVALID, CRASHED]),
    );
    assert_eq!(r["value"], Value::Null);
}

#[test]
fn primitive_faults_are_the_programs_errors() {
    for program in [
        "(make-string -1 #\\a)",
        "(define v (mutable-vector 1)) (vector-append! v v)",
    ] {
        let r = hostile(program, &[], Expect::Class(RUNTIME));
        assert!(!classes(&r).contains(&"scheme_eval.internal_error".to_string()));
    }
    // The prelude's internals skip its allocation checks: unreachable.
    for program in ["(tusk-raw-make-vector 10 0)", "(tusk-raw-expt 2 100000000)"] {
        hostile(program, &[], Expect::Class("scheme_eval.effect_denied"));
    }
}

#[test]
fn numbers_are_exact_or_an_error() {
    hostile(
        "(abs -9223372036854775808)",
        &[],
        Expect::Value(json!(9223372036854775808u64)),
    );
    let r = hostile("(exact (round 1e300))", &[], Expect::Accepted);
    assert!(r["value"]
        .as_str()
        .unwrap()
        .starts_with("1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864"));
    hostile(
        "(list (equal? (exact 1.5) (/ 3 2)) (arithmetic-shift 1 64) (arithmetic-shift -1 -100) (bitwise-ior 1 (expt 2 65)))",
        &[],
        Expect::Value(json!([true, "18446744073709551616", -1, "36893488147419103233"])),
    );
    hostile("(exact +nan.0)", &[], Expect::Class(RUNTIME));
}

#[test]
fn colliding_json_keys_are_an_error_not_a_coin() {
    let r = hostile("(hash \"k\" 1 'k 2)", &[], Expect::Class(RUNTIME));
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("same JSON key"));
    let r = hostile(
        "(issue.list (hash \"status\" \"open\" 'status \"closed\"))",
        &[],
        Expect::Class("host.args_invalid"),
    );
    assert!(r["effects"][0]["payload"]["diagnostic"]
        .as_str()
        .unwrap()
        .contains("same JSON key"));
}

/// Bytes the runs wrote to the effect log and the trajectory.
fn log_bytes(s: &Test) -> u64 {
    ["host_effects.jsonl", "harness_trajectory.jsonl"]
        .iter()
        .map(|f| {
            std::fs::metadata(s.path(&format!(".premath/{f}")))
                .unwrap()
                .len()
        })
        .sum()
}

#[test]
fn what_a_run_writes_is_bounded_by_its_limits() {
    // 64 calls each passing a 2 MB string, under a 16 MiB limit.
    let program = "(define s (make-string 2000000 #\\a))
        (define (go i) (when (< i 64) (issue.show (hash \"id\" s)) (go (+ i 1))))
        (go 0)";
    let s = Test::new();
    let (code, r) = s.eval(program, &["--max-memory-mb", "16"]);
    assert_eq!(code, 1);
    assert_eq!(r["usage"]["hostCalls"], 64);
    assert!(classes(&r).contains(&"host.args_invalid".to_string()));
    let diag = r["effects"][0]["payload"]["diagnostic"].as_str().unwrap();
    assert!(diag.contains("per-call limit"), "{diag}");
    let result_bytes = serde_json::to_vec(&r).unwrap().len();
    let logs = log_bytes(&s);
    // Documented bound: per call, the capped arguments (here a marker) and
    // an envelope with a capped diagnostic: well under 4 KiB each.
    assert!(result_bytes < 64 * 4096, "result {result_bytes} bytes");
    assert!(logs < 2 * 64 * 4096, "logs {logs} bytes");
    assert!(r["usage"]["peakMemoryKb"].as_u64().unwrap() <= memory_bound_kb(16));

    // One call with 30 MB of control characters (6× in JSON), 500 ms limit.
    let s = Test::new();
    let started = Instant::now();
    let (code, r) = s.eval(
        "(issue.show (hash \"id\" (make-string 30000000 (integer->char 1))))",
        &["--timeout-ms", "500"],
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code, 1);
    // The deadline holds: timeout + 250 ms grace (+ the supervisor's 10 ms tick and reaping).
    assert!(r["usage"]["elapsedMs"].as_u64().unwrap() <= 850, "{r:#}");
    let logs = log_bytes(&s);
    assert!(logs < 64 * 1024, "logs {logs} bytes");
}

#[test]
fn the_final_value_is_converted_under_the_limits() {
    // A list DAG with 2^40 shared leaves.
    let r = hostile(
        "(define (dag n) (if (= n 0) 1 (let ([x (dag (- n 1))]) (list x x)))) (dag 40)",
        &["--max-memory-mb", "16"],
        Expect::Class(MEMORY),
    );
    assert_eq!(r["value"], Value::Null);
}

#[test]
fn deep_args_are_refused_as_the_reader_would_and_the_log_replays() {
    let s = Test::new();
    let (code, first) = s.eval("(issue.ready)", &[]);
    assert_eq!(code, 0);
    let (code, r) = s.eval(
        "(define (nest n) (if (= n 0) 1 (hash \"a\" (nest (- n 1))))) (issue.list (nest 200))",
        &[],
    );
    assert_eq!(code, 1);
    assert_eq!(r["effects"][0]["resultClass"], "host.args_invalid");
    for args in [
        vec!["replay", "--json"],
        vec![
            "replay",
            "--json",
            "--run",
            first["runId"].as_str().unwrap(),
        ],
        vec!["replay", "--json", "--run", r["runId"].as_str().unwrap()],
    ] {
        let out = s.run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn replay_compares_output_and_failure_classes() {
    let s = Test::new();
    let (_, r) = s.eval("(display \"one\") 1", &[]);
    let run = r["runId"].as_str().unwrap().to_string();
    let path = s.path(".premath/host_effects.jsonl");
    let original = std::fs::read_to_string(&path).unwrap();
    // A self-consistent record of another outcome (chain recomputed): the
    // replay's own comparison must catch it.
    let tamper = |field: &str, value: Value| {
        let mut rows: Vec<Value> = original
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for row in rows.iter_mut() {
            if row["kind"] == "premath.scheme_eval.run_end.v0" {
                row[field] = value.clone();
            }
        }
        rechain(&mut rows);
        let lines: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let out = s.run(&["replay", "--json", "--run", &run]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), report)
    };
    let (code, report) = tamper(
        "outputDigest",
        json!(format!("sha256:{}", sha256_hex("two"))),
    );
    assert_eq!(code, Some(1));
    assert_eq!(report["divergence"]["field"], "outputDigest", "{report:#}");
    let (code, report) = tamper("failureClasses", json!(["scheme_eval.runtime_error"]));
    assert_eq!(code, Some(1));
    assert_eq!(
        report["divergence"]["field"], "failureClasses",
        "{report:#}"
    );
    std::fs::write(&path, &original).unwrap();
    assert_eq!(s.run(&["replay", "--run", &run]).status.code(), Some(0));
}

#[test]
fn one_runs_definitions_never_reach_the_next() {
    // REPL: shadow a primitive and a prelude helper, then reset.
    let s = Test::new();
    let out = s.tusk(&["repl", "--json"]).stdin("(define car cdr)\n(define (accepted? e) #t)\n(car (list 1 2))\n:reset\n(car (list 1 2))\n(accepted? (hash \"resultClass\" \"x\"))\n").run();
    let results = repl_results(&out.stdout);
    let values: Vec<&Value> = results.iter().map(|r| &r["value"]).collect();
    assert_eq!(values[2], &json!([2]));
    assert_eq!(values[3], &json!(1));
    assert_eq!(values[4], &json!(false));
    // Separate runs of one log replay in one process: each sees a pristine engine.
    let s = Test::new();
    s.eval("(define car cdr) (define (accepted? e) #t) 0", &[]);
    let (_, r) = s.eval(
        "(list (car (list 1 2)) (accepted? (hash \"resultClass\" \"x\")))",
        &[],
    );
    assert_eq!(r["value"], json!([1, false]));
    assert_eq!(s.run(&["replay"]).status.code(), Some(0));
}

#[test]
fn a_crashed_session_worker_is_replaced_and_the_session_says_so() {
    let s = Test::new();
    let out = s
        .tusk(&["repl", "--json"])
        .stdin(format!("(define x 5)\n{CYCLE}(car b)\nx\n(+ 1 2)\n"))
        .run();
    assert_eq!(out.status.code(), Some(1));
    let results = repl_results(&out.stdout);
    // (define x 5), (define b …), (set-box! …), (car b), x, (+ 1 2)
    assert_eq!(results.len(), 6);
    assert!(classes(&results[3]).contains(&CRASHED.to_string()));
    // The session was reset: `x` is gone, and later forms run.
    assert!(classes(&results[4]).contains(&INVALID.to_string()));
    assert_eq!(results[5]["value"], 3);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("reset") || stderr.contains("definitions"),
        "{stderr}"
    );
    let log = s.jsonl(".premath/host_effects.jsonl");
    assert!(log
        .iter()
        .any(|r| r["kind"] == "premath.scheme_eval.run.v0" && r["sessionReset"] == true));
    let sid = results[0]["sessionId"].as_str().unwrap();
    assert_eq!(s.run(&["replay", "--session", sid]).status.code(), Some(0));
}

#[test]
fn unreadable_program_text_is_an_invalid_program_result() {
    let s = Test::new();
    std::fs::write(s.path("bad.scm"), b"(+ 1 \xff 2)").unwrap();
    let out = s.run(&["eval", "--json", "bad.scm"]);
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(classes(&r), vec![INVALID]);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("offset 5"),
        "{r:#}"
    );
    let log = s.jsonl(".premath/host_effects.jsonl");
    assert_eq!(log[0]["invalidUtf8At"], 5);
    assert_eq!(s.run(&["replay"]).status.code(), Some(0));

    for program in ["\u{feff}(+ 1 2)", "", "  ; nothing but a comment\n"] {
        let (code, r) = s.eval(program, &[]);
        assert_eq!(code, 1, "{program:?}");
        assert_eq!(classes(&r), vec![INVALID], "{program:?}");
    }
    // A request that cannot be served still prints one JSON object with --json.
    s.write("req.json", "{not json");
    let out = s.run(&["eval", "--json", "--request", "req.json"]);
    assert_eq!(out.status.code(), Some(2));
    let e: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(e["kind"], "premath.scheme_eval.request_error.v0");
    assert!(e["error"]["message"]
        .as_str()
        .unwrap()
        .contains("JSON request"));
}

#[test]
fn messages_are_capped() {
    let r = hostile(
        "(define h (foldl (lambda (i acc) (hash-insert acc i i)) (hash) (range 0 20000))) (hash-ref h -1)",
        &[],
        Expect::Class(RUNTIME),
    );
    assert!(r["error"]["message"].as_str().unwrap().len() < 512, "{r:#}");
    let r = hostile(
        "(error (make-string 100000 #\\a))",
        &[],
        Expect::Class(RUNTIME),
    );
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.len() < 4200 && message.contains("more bytes]"),
        "{}",
        message.len()
    );
}

#[test]
fn human_output_escapes_control_characters() {
    let s = Test::new();
    let file = s.write(
        "program.scm",
        "(host-call \"x\\naccepted · forged\") (display \"\\x1b;[2J\\x07;bell\") 1",
    );
    let out = s.run(&["eval", file.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.lines().all(|l| !l.starts_with("accepted")), "{text}");
    assert!(text.contains("\\x1b[2J"), "{text}");
    let out = s.run(&["harness-trajectory", "query", "--mode", "latest"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("x\\naccepted"), "{text}");
    assert!(text.lines().all(|l| !l.starts_with("accepted")), "{text}");
}

#[test]
fn repl_load_reads_only_under_its_root() {
    let s = Test::new();
    s.write("forms.scm", "(define y 2)\n(* y 21)\n");
    // Scripted, no root given: :load is off.
    let out = s
        .tusk(&["repl", "--json"])
        .stdin(":load /etc/passwd\n:load forms.scm\n")
        .run();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert!(!text.contains("root:x:0:0"), "{text}");
    assert!(text.contains("--load-root"), "{text}");
    assert!(!s.path(".premath/host_effects.jsonl").exists());
    // With a root: inside loads, outside (absolute or by ..) is refused.
    let out = s
        .tusk(&["repl", "--json", "--load-root", "."])
        .stdin(":load /etc/passwd\n:load ../x.scm\n:load forms.scm\n")
        .run();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stdout.contains("root:x:0:0") && !stderr.contains("root:x:0:0"));
    assert_eq!(
        stderr.matches("outside the load root").count() + stderr.matches("cannot read").count(),
        2,
        "{stderr}"
    );
    assert!(stdout.contains("\"value\":42"), "{stdout}");
}

/// Programs whose behaviour would depend on hash order, printing, errors
/// and host-call arguments built from hash walks.
const CORPUS: &[&str] = &[
    "(hash-keys->list (hash \"a\" 1 \"b\" 2 \"c\" 3 \"d\" 4 \"e\" 5 \"f\" 6))",
    "(hash-values->list (hash 'x 1 'y 2 'z 3 'w 4 'v 5))",
    "(hash->list (hash 1 \"one\" 2 \"two\" 3 \"three\" 40 \"forty\"))",
    "(hashset->list (list->hashset (list 9 8 7 6 5 4 3 2 1 \"s\" 'sym)))",
    "(display (hash \"q\" 1 \"r\" 2 \"s\" (hash \"t\" 3 \"u\" 4))) (->string (list->hashset (list 1 2 3)))",
    "(with-handler (lambda (e) (error-object-message e)) (+ 1 (hash \"a\" 1 \"b\" 2 \"c\" 3)))",
    "(+ 1 (list->hashset (list 1 2 3 4 5 6 7)))",
    "(define h (hash \"k1\" 1 \"k2\" 2 \"k3\" 3 \"k4\" 4))
     (map (lambda (k) (hash-ref (payload (issue.show (hash \"id\" k))) \"diagnostic\")) (hash-keys->list h))",
    "(payload (issue.list (hash \"labels\" (hash-keys->list (hash \"l1\" 1 \"l2\" 2 \"l3\" 3)))))",
    "(hash-ref (hash \"a\" 1 \"b\" 2 \"c\" 3) \"missing\")",
];

#[test]
fn the_same_program_gives_the_same_bytes_in_five_processes() {
    let mut first: Option<Vec<(String, String)>> = None;
    for _ in 0..5 {
        let mut seen = Vec::new();
        for program in CORPUS {
            // A fresh process and a fresh store each time.
            let s = Test::new();
            let (_, r) = s.eval(program, &[]);
            let rows: Vec<String> = s
                .jsonl(".premath/host_effects.jsonl")
                .into_iter()
                .map(|row| canonical(&normalized(row, r["runId"].as_str().unwrap())))
                .collect();
            let run_id = r["runId"].as_str().unwrap().to_string();
            seen.push((canonical(&normalized(r, &run_id)), rows.join("\n")));
        }
        match &first {
            None => first = Some(seen),
            Some(expected) => {
                for (i, (got, want)) in seen.iter().zip(expected).enumerate() {
                    assert!(
                        got == want,
                        "program {i} differs between processes: {}\n{got:?}\n{want:?}",
                        CORPUS[i]
                    );
                }
            }
        }
    }
    // The walks come out sorted.
    let s = Test::new();
    let (_, r) = s.eval(CORPUS[0], &[]);
    assert_eq!(r["value"], json!(["a", "b", "c", "d", "e", "f"]));
}

#[test]
fn a_repl_sessions_growth_is_bounded_by_its_memory_limit() {
    // Each form keeps ~1.6 MB alive in the session; under a 16 MiB limit
    // the session's whole heap counts, so the definitions cannot pile up.
    let s = Test::new();
    let forms: String = (0..30)
        .map(|i| format!("(define v{i} (make-vector 100000 {i}))\n"))
        .collect();
    let out = s
        .tusk(&["repl", "--json", "--max-memory-mb", "16"])
        .stdin(&forms)
        .run();
    let results = repl_results(&out.stdout);
    assert_eq!(results.len(), 30);
    let first_breach = results
        .iter()
        .position(|r| classes(r).contains(&MEMORY.to_string()))
        .expect("the session hit its memory limit");
    assert!(first_breach > 2 && first_breach < 20, "{first_breach}");
    for r in &results {
        if let Some(peak) = r["usage"]["peakMemoryKb"].as_u64() {
            assert!(peak <= memory_bound_kb(16), "{peak} KiB");
        }
    }
}

/// The result objects a `tusk repl --json` session printed, in order.
fn repl_results(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["kind"] == "premath.scheme_eval.result.v0")
        .collect()
}

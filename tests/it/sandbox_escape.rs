//! Escape and exhaustion attempts against `tusk eval`. Each asserts that the
//! process survived with exactly one result envelope, that the expected class
//! was reported, and that nothing outside the sandbox changed.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `dir` (except tusk's own `.premath` logs) with its content.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let p = entry.path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().to_string();
            if rel.starts_with(".premath") {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Runs `program`; asserts one result, the class, and an untouched scratch dir.
fn attempt(program: &str, class: &str) {
    attempt_with(program, class, &["--timeout-ms", "2000"]);
}

fn attempt_with(program: &str, class: &str, flags: &[&str]) {
    let s = Test::new();
    s.write("canary.txt", "canary");
    s.write("inner/keep.txt", "keep");
    let before = snapshot(s.dir());
    let home_env = std::env::var("HOME").unwrap_or_default();
    let (code, r) = s.eval(program, flags);
    assert!(code == 0 || code == 1, "{program}: exit {code}");
    assert_eq!(r["kind"], "premath.scheme_eval.result.v0", "{program}");
    let mut after = snapshot(s.dir());
    after.remove("program.scm");
    let mut before = before;
    before.remove("program.scm");
    assert_eq!(before, after, "{program} changed the scratch directory");
    assert!(
        classes(&r).contains(&class.to_string()),
        "{program}: expected {class}, got {r:#}"
    );
    assert_eq!(r["result"], "rejected", "{program}");
    let text = r.to_string();
    assert!(!text.contains("root:x:0:0"), "{program} leaked /etc/passwd");
    if !home_env.is_empty() && class == "scheme_eval.effect_denied" && program.contains("HOME") {
        assert!(!text.contains(&home_env), "{program} leaked $HOME");
    }
    // The effect log got exactly one run, start to end.
    let log = s.jsonl(".premath/host_effects.jsonl");
    assert_eq!(
        log.first().map(|r| r["kind"].clone()),
        Some("premath.scheme_eval.run.v0".into()),
        "{program}"
    );
    assert_eq!(
        log.last().map(|r| r["kind"].clone()),
        Some("premath.scheme_eval.run_end.v0".into()),
        "{program}"
    );
}

const DENIED: &str = "scheme_eval.effect_denied";

#[test]
fn file_read_port() {
    attempt(r#"(open-input-file "/etc/passwd")"#, DENIED);
}
#[test]
fn file_read_string() {
    attempt(r#"(read-to-string "/etc/passwd")"#, DENIED);
}
#[test]
fn file_write() {
    attempt(r#"(open-output-file "canary.txt")"#, DENIED);
}
#[test]
fn file_delete() {
    attempt(r#"(delete-file! "canary.txt")"#, DENIED);
}
#[test]
fn directory_create() {
    attempt(r#"(create-directory! "inner/new")"#, DENIED);
}
#[test]
fn directory_delete() {
    attempt(r#"(delete-directory! "inner")"#, DENIED);
}
#[test]
fn directory_list() {
    attempt(r#"(read-dir "/")"#, DENIED);
}
#[test]
fn current_directory() {
    attempt(r#"(current-directory)"#, DENIED);
}
#[test]
fn process_spawn() {
    attempt(
        r#"(spawn-process (command "touch" (list "pwned")))"#,
        DENIED,
    );
}
#[test]
fn process_command() {
    attempt(r#"(command "sh" (list "-c" "touch pwned"))"#, DENIED);
}
#[test]
fn env_read() {
    attempt(r#"(env-var "HOME")"#, DENIED);
}
#[test]
fn env_write() {
    attempt(r#"(set-env-var! "PATH" "")"#, DENIED);
}
#[test]
fn network_tcp() {
    attempt(r#"(tcp-connect "127.0.0.1:9")"#, DENIED);
}
#[test]
fn network_http() {
    attempt(r#"(http-get "http://127.0.0.1:9/")"#, DENIED);
}
#[test]
fn module_require_file() {
    attempt(r#"(require "/etc/passwd")"#, DENIED);
}
#[test]
fn module_require_builtin() {
    attempt(r#"(require-builtin steel/fs)"#, DENIED);
}
#[test]
fn module_load() {
    attempt(r#"(load "/etc/passwd")"#, DENIED);
}
#[test]
fn eval_quoted() {
    attempt(r#"(eval '(read-to-string "/etc/passwd"))"#, DENIED);
}
#[test]
fn eval_string() {
    attempt(r#"(eval-string "(env-var \"HOME\")")"#, DENIED);
}
#[test]
fn read_route() {
    attempt(r#"(read (open-input-string "(x)"))"#, DENIED);
}
#[test]
fn macro_route_to_file() {
    attempt(
        r#"(define-syntax m (syntax-rules () ((_ f) (f "/etc/passwd")))) (m read-to-string)"#,
        DENIED,
    );
}
#[test]
fn macro_route_to_require() {
    attempt(
        r#"(define-syntax r (syntax-rules () ((_ p) (require p)))) (r "/etc/passwd")"#,
        DENIED,
    );
}
#[test]
fn dynamic_library() {
    attempt(r#"(#%get-dylib "libc.so.6")"#, DENIED);
}
#[test]
fn native_thread() {
    attempt(r#"(spawn-native-thread (lambda () 1))"#, DENIED);
}
#[test]
fn module_internals() {
    attempt(r#"(%module-get% 1 2)"#, DENIED);
}
#[test]
fn clock() {
    attempt(r#"(current-milliseconds)"#, DENIED);
}
#[test]
fn randomness() {
    attempt(r#"(random-int 10)"#, DENIED);
}
#[test]
fn host_shell() {
    attempt(
        r#"(host-call "shell.exec" (hash "cmd" "touch pwned"))"#,
        DENIED,
    );
}
#[test]
fn host_fs() {
    attempt(
        r#"(host-call "fs.read" (hash "file" "/etc/passwd"))"#,
        DENIED,
    );
}
#[test]
fn host_network() {
    attempt(
        r#"(host-call "network.fetch" (hash "url" "http://x"))"#,
        DENIED,
    );
}
#[test]
fn host_instruction_run() {
    attempt(r#"(host-call "instruction.run")"#, DENIED);
}
#[test]
fn host_arg_path() {
    attempt(
        r#"(harness.trajectory.query (hash "path" "/etc/passwd"))"#,
        "host.args_invalid",
    );
}

#[test]
fn memory_bomb_vector() {
    attempt("(make-vector 2000000000 0)", "scheme_eval.memory_exceeded");
}
#[test]
fn memory_bomb_string_doubling() {
    attempt(
        r#"(define (double s n) (if (= n 0) s (double (string-append s s) (- n 1)))) (string-length (double "ab" 40))"#,
        "scheme_eval.memory_exceeded",
    );
}
#[test]
fn memory_bomb_expt() {
    attempt("(expt 7 (expt 10 12))", "scheme_eval.memory_exceeded");
}
#[test]
fn memory_bomb_shift() {
    attempt(
        "(arithmetic-shift 1 100000000000)",
        "scheme_eval.memory_exceeded",
    );
}
#[test]
fn memory_bomb_make_string() {
    attempt(
        "(make-string 4000000000 #\\a)",
        "scheme_eval.memory_exceeded",
    );
}
#[test]
fn memory_gradual_growth() {
    attempt_with(
        "(define (build n acc) (if (= n 0) acc (build (- n 1) (cons (list n n n) acc)))) (build 1000000000 '())",
        "scheme_eval.memory_exceeded",
        &["--max-memory-mb", "64", "--timeout-ms", "20000"],
    );
}
#[test]
fn deep_recursion() {
    attempt_with(
        "(define (f n) (+ 1 (f (+ n 1)))) (f 0)",
        "scheme_eval.memory_exceeded",
        &["--max-memory-mb", "64", "--timeout-ms", "20000"],
    );
}
#[test]
fn paren_nest_300k() {
    attempt(&"(".repeat(300_000), "scheme_eval.invalid_program");
}
#[test]
fn quote_nest_300k() {
    attempt(
        &format!("{}x", "'".repeat(300_000)),
        "scheme_eval.invalid_program",
    );
}
#[test]
fn endless_loop() {
    attempt_with(
        "(define (spin) (spin)) (spin)",
        "scheme_eval.timeout",
        &["--timeout-ms", "300"],
    );
}
#[test]
fn runaway_macro_expansion() {
    attempt_with(
        "(define-syntax blow (syntax-rules () ((_ x) (blow (x x))))) (blow 1)",
        "scheme_eval.timeout",
        &["--timeout-ms", "500"],
    );
}
#[test]
fn endless_macro_recursion() {
    attempt(
        "(define-syntax again (syntax-rules () ((_ x) (again x)))) (again 1)",
        "scheme_eval.invalid_program",
    );
}
#[test]
fn call_budget() {
    attempt_with(
        "(let loop () (host-call \"issue.nothing\") (loop))",
        "scheme_eval.call_budget_exceeded",
        &[],
    );
}

/// A final value that contains itself is one result: rejected, naming the
/// place (issue 62: a result never holds a made-up string); the printed
/// output marks the cycle.
#[test]
fn cyclic_final_value_is_one_result_naming_its_place() {
    let s = Test::new();
    let (code, r) = s.eval(
        "(define v (mutable-vector 1 2)) (vector-set! v 1 v) (display v) v",
        &[],
    );
    assert_eq!(code, 1, "{r:#}");
    assert_eq!(r["error"]["class"], "scheme_eval.runtime_error", "{r:#}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("at `[1]`"),
        "{r:#}"
    );
    assert_eq!(r["output"], "#(1 #<cycle>)");
}

/// The process a `tusk eval` program runs in (the template, become the
/// worker) is confined in every thread while the program runs: each task
/// under `/proc/<pid>/task` has the system-call filter and no new
/// privileges, so the thread that started the template is no way around it.
#[test]
fn every_thread_of_a_one_run_worker_is_confined() {
    let test = Test::on_files().file("spin.scm", "(define (spin n) (spin (+ n 1))) (spin 0)\n");
    let mut child = test
        .tusk(&["eval", "--timeout-ms", "20000", "spin.scm"])
        .command()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let children = format!("/proc/{0}/task/{0}/children", child.id());
    let seccomp_of = |pid: &str| -> Vec<(String, String)> {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return Vec::new();
        };
        tasks
            .filter_map(|t| {
                let status = std::fs::read_to_string(t.ok()?.path().join("status")).ok()?;
                let field = |name: &str| {
                    status
                        .lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(|v| v.trim().to_string())
                        .unwrap_or_default()
                };
                Some((field("Seccomp:"), field("NoNewPrivs:")))
            })
            .collect()
    };
    // Wait until the worker runs the program: it is confined by then.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let mut seen = Vec::new();
    while std::time::Instant::now() < deadline {
        let pids = std::fs::read_to_string(&children).unwrap_or_default();
        if let Some(pid) = pids.split_whitespace().next() {
            seen = seccomp_of(pid);
            if seen.len() >= 2 && seen.iter().any(|(s, _)| s == "2") {
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(seen.len() >= 2, "the worker's threads: {seen:?}");
    for (seccomp, no_new_privs) in &seen {
        assert_eq!(seccomp, "2", "a thread without the filter: {seen:?}");
        assert_eq!(no_new_privs, "1", "{seen:?}");
    }
}

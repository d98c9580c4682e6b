//! In-process tests of the evaluator alone (the CLI suite covers the whole path).

use super::*;
use crate::host::HostClass;
use serde_json::json;

struct EchoBridge;

impl HostBridge for EchoBridge {
    fn call(
        &self,
        action: &str,
        args: Option<Value>,
        args_error: Option<convert::ConvertError>,
    ) -> HostReply {
        let envelope = match args_error {
            None => json!({"action": action, "resultClass": "accepted", "payload": args}),
            Some(e) => {
                json!({"action": action, "resultClass": HostClass::ArgsInvalid.as_str(), "payload": e.to_string()})
            }
        };
        HostReply {
            envelope: envelope.into(),
            text: None,
            breach: None,
        }
    }
}

fn run(program: &str) -> RunOutput {
    run_with(program, Limits::default())
}

fn run_with(program: &str, limits: Limits) -> RunOutput {
    let sandbox = Sandbox::new(vec!["test.echo".to_string()]);
    sandbox.run(program, limits, EngineMode::Fresh, Arc::new(EchoBridge))
}

#[test]
fn prelude_forms_work() {
    let out = run(r#"
        (define (f x) (cond [(= x 0) 'zero] [(> x 0) 'pos] [else 'neg]))
        (define total (let loop ([i 0] [acc 0]) (if (= i 10) acc (loop (+ i 1) (+ acc i)))))
        (list (f 0) (f 3) (f -1) total (and 1 2) (or #f 3) (when #t 4) (let* ([a 1] [b (+ a 1)]) b)
              (case 2 [(1) 'one] [(2 3) 'two] [else 'other]) `(1 ,(+ 1 1)) (map + '(1 2) '(10 20))
              (sort '(3 1 2) <) (with-handler (lambda (e) 'caught) (error "boom")))
    "#);
    assert_eq!(out.error, None);
    assert_eq!(
        out.value,
        json!([
            "zero",
            "pos",
            "neg",
            45,
            2,
            3,
            4,
            2,
            "two",
            [1, 2],
            [11, 22],
            [1, 2, 3],
            "caught"
        ])
    );
}

/// A hash's entries bound to two names keep a value that is a list whole
/// (the pair ("a" . ("x")) is also the list ("a" "x")): in-hash and a hash
/// walked directly, in every for form.
#[test]
fn hash_entries_with_list_values_bind_whole() {
    let out = run(r#"
        (define h (hash "a" (list "x") "b" (list "y" "z") "c" '()))
        (list (for/hash ([(k v) (in-hash h)]) (values k (length v)))
              (for/list ([(k v) h]) (list k v))
              (for*/list ([(k v) (in-hash h)] [x v]) x)
              (for/fold ([n 0]) ([(k v) h]) (+ n (length v)))
              (for/list ([p (in-hash-pairs (hash "k" (list 1)))]) (cdr p)))
    "#);
    assert_eq!(out.error, None);
    assert_eq!(
        out.value,
        json!([
            {"a": 1, "b": 2, "c": 0},
            [["a", ["x"]], ["b", ["y", "z"]], ["c", []]],
            ["x", "y", "z"],
            3,
            [[1]]
        ])
    );
}

#[test]
fn host_call_round_trips_values() {
    let out = run(r#"(payload (test.echo (hash "id" "bd-1" 'n 2 "xs" (list 1 "a" #t))))"#);
    assert_eq!(out.error, None, "{out:?}");
    assert_eq!(
        out.value,
        json!({"id": "bd-1", "n": 2, "xs": [1, "a", true]})
    );
}

#[test]
fn display_is_captured_and_truncated() {
    let limits = Limits {
        max_output_bytes: 8,
        ..Limits::default()
    };
    let out = run_with(r#"(display "hello ") (display "world!") 1"#, limits);
    assert_eq!(out.output, "hello wo");
    assert!(out.output_truncated);
    assert_eq!(out.value, json!(1));
}

#[test]
fn denied_names_are_effect_denied() {
    for program in [
        "(spawn-process \"ls\")",
        "(env-var \"HOME\")",
        "(open-input-file \"/etc/passwd\")",
        "(require \"/etc/passwd\")",
        "(load \"/etc/passwd\")",
    ] {
        let out = run(program);
        let error = out.error.expect(program);
        assert_eq!(
            error.class,
            FailureClass::EffectDenied,
            "{program}: {error:?}"
        );
        assert!(
            !error.message.contains("root:"),
            "{program} leaked: {}",
            error.message
        );
    }
}

/// A value that contains itself has no JSON form: the run says where
/// (issue 62: never a made-up string in a result).
#[test]
fn cyclic_value_is_an_error_naming_its_place() {
    let out = run("(define v (mutable-vector 1 2)) (vector-set! v 0 v) (display v) v");
    let error = out.error.expect("an error");
    assert_eq!(error.class, FailureClass::RuntimeError);
    assert!(error.message.contains("at `[0]`"), "{}", error.message);
    assert!(
        error.message.contains("contains itself"),
        "{}",
        error.message
    );
}

/// Issue 62: every value survives JSON or is refused with the fix.
#[test]
fn pairs_are_arrays_and_what_has_no_json_form_is_named() {
    let out = run(r#"(list (cons "a" 1) (cons "b" 2))"#);
    assert_eq!(out.error, None);
    assert_eq!(out.value, json!([["a", 1], ["b", 2]]));
    let out = run(r#"(hash "t" (cons 1 (cons 2 3)))"#);
    assert_eq!(out.value, json!({"t": [1, [2, 3]]}));
    for (program, place, fix) in [
        ("(list 1 car)", "at `[1]`", "call it"),
        (r#"(hash "f" (lambda (x) x))"#, "at `f`", "call it"),
        ("(list 1 (when #f 2))", "at `[1]`", "leave it out"),
        ("(list (hashset 1 2))", "at `[0]`", "hashset->list"),
        (r#"(hash "n" +inf.0)"#, "at `n`", "not finite"),
    ] {
        let out = run(program);
        let error = out
            .error
            .unwrap_or_else(|| panic!("{program}: no error, {}", out.value));
        assert_eq!(error.class, FailureClass::RuntimeError, "{program}");
        assert!(
            error.message.contains(place),
            "{program}: {}",
            error.message
        );
        assert!(error.message.contains(fix), "{program}: {}", error.message);
        assert!(
            !error.message.contains("#<"),
            "{program}: {}",
            error.message
        );
    }
    // Void alone, or as a hash member, is null.
    assert_eq!(run(r#"(hash "a" (void))"#).value, json!({"a": null}));
    assert_eq!(run("(void)").value, json!(null));
}

#[test]
fn limits_end_the_run() {
    let limits = Limits {
        timeout_ms: 300,
        ..Limits::default()
    };
    let out = run_with("(define (spin) (spin)) (spin)", limits);
    assert_eq!(out.breach, Some(Breach::Timeout));
    let out = run("(make-vector 2000000000 0)");
    assert_eq!(out.breach, Some(Breach::Memory), "{out:?}");
    let out = run("(define (grow acc) (grow (cons acc acc))) (define (build n acc) (if (= n 0) acc (build (- n 1) (cons n acc)))) (build 100000000 '())");
    assert_eq!(out.breach, Some(Breach::Memory), "{out:?}");
    let out = run(&"(".repeat(300_000));
    assert_eq!(
        out.error.map(|e| e.class),
        Some(FailureClass::InvalidProgram)
    );
}

#[test]
fn session_engine_keeps_definitions_until_reset() {
    let sandbox = Sandbox::new(vec![]);
    let limits = Limits::default();
    let bridge = || -> Arc<dyn HostBridge> { Arc::new(EchoBridge) };
    let out = sandbox.run("(define x 41)", limits, EngineMode::Session, bridge());
    assert_eq!(out.error, None);
    let out = sandbox.run("(+ x 1)", limits, EngineMode::Session, bridge());
    assert_eq!(out.value, json!(42), "{out:?}");
    // A fresh run is a fresh fork of the template: the session's names do
    // not exist there at all.
    let out = sandbox.run("(+ x 1)", limits, EngineMode::Fresh, bridge());
    let error = out.error.expect("x is unknown in a fresh engine");
    assert_eq!(error.class, FailureClass::InvalidProgram, "{error:?}");
    assert!(
        error.message.contains("unbound identifier `x`"),
        "{error:?}"
    );
    // A reset forgets the session's names, functions and macros entirely.
    let out = sandbox.run(
        "(define (f) 1) (define-syntax mac (syntax-rules () ((_ v) v)))",
        limits,
        EngineMode::Session,
        bridge(),
    );
    assert_eq!(out.error, None);
    for program in ["(+ x 1)", "(f)", "(mac 1)"] {
        let out = sandbox.run(program, limits, EngineMode::ResetSession, bridge());
        let error = out.error.expect("gone after the reset");
        assert_eq!(
            error.class,
            FailureClass::InvalidProgram,
            "{program}: {error:?}"
        );
        assert!(!out.worker_abandoned, "{program}");
    }
    let out = sandbox.run(
        "(define x 1) (+ x 1)",
        limits,
        EngineMode::Session,
        bridge(),
    );
    assert_eq!(out.value, json!(2), "{out:?}");
}

#[test]
fn interrupt_handle_stops_the_run_and_keeps_the_session() {
    let sandbox = Arc::new(Sandbox::new(vec![]));
    let limits = Limits {
        timeout_ms: 60_000,
        ..Limits::default()
    };
    let handle = sandbox.interrupt_handle();
    assert!(!handle.interrupt(), "nothing runs yet");
    let out = sandbox.run(
        "(define kept 7)",
        limits,
        EngineMode::Session,
        Arc::new(EchoBridge),
    );
    assert_eq!(out.error, None);
    let interrupter = std::thread::spawn(move || {
        // Keep trying until the run is published: the first attempts may come
        // before the worker started it.
        for _ in 0..200 {
            std::thread::sleep(Duration::from_millis(25));
            if handle.interrupt() {
                return true;
            }
        }
        false
    });
    let started = Instant::now();
    let out = sandbox.run(
        "(let loop () (loop))",
        limits,
        EngineMode::Session,
        Arc::new(EchoBridge),
    );
    assert!(
        interrupter.join().unwrap(),
        "the loop was never seen running"
    );
    assert!(started.elapsed() < Duration::from_secs(10), "{out:?}");
    assert_eq!(out.breach, Some(Breach::Interrupted));
    assert_eq!(
        out.error.as_ref().map(|e| e.class),
        Some(FailureClass::Interrupted)
    );
    assert!(!out.worker_abandoned);
    let out = sandbox.run("kept", limits, EngineMode::Session, Arc::new(EchoBridge));
    assert_eq!(out.value, json!(7), "{out:?}");
}

#[test]
fn every_program_name_is_bound() {
    let names = program_names();
    for expected in ["map", "car", "display", "host-call", "when", "hash-ref*"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing");
    }
    assert!(names.iter().all(|n| !n.starts_with("tusk-")));
    // An unbound name fails to compile as "unbound identifier"; a bound one
    // compiles (a macro used as a value may fail otherwise, but not so).
    let sandbox = Sandbox::new(vec![]);
    for name in &names {
        // A macro is no value: use it in head position instead.
        let unbound = ["(lambda () {})", "(lambda () ({} #t))"]
            .iter()
            .all(|shape| {
                let program = shape.replace("{}", name);
                let out = sandbox.run(
                    &program,
                    Limits::default(),
                    EngineMode::Fresh,
                    Arc::new(EchoBridge),
                );
                out.error
                    .is_some_and(|e| e.message.contains("unbound identifier"))
            });
        assert!(!unbound, "{name} is listed but not bound");
    }
    let out = sandbox.run(
        "(lambda () no-such-name)",
        Limits::default(),
        EngineMode::Fresh,
        Arc::new(EchoBridge),
    );
    assert!(out
        .error
        .is_some_and(|e| e.message.contains("unbound identifier")));
}

#[test]
fn fresh_runs_do_not_see_each_others_definitions() {
    let sandbox = Sandbox::new(vec![]);
    let limits = Limits::default();
    let b = || -> Arc<dyn HostBridge> { Arc::new(EchoBridge) };
    let out = sandbox.run(
        "(define y 1) (define (g) 2) (define-syntax m (syntax-rules () ((_ x) x)))",
        limits,
        EngineMode::Fresh,
        b(),
    );
    assert_eq!(out.error, None);
    for name in ["m", "y", "g"] {
        let program = format!("({name} 5)");
        let out = sandbox.run(&program, limits, EngineMode::Fresh, b());
        let error = out.error.expect("not defined in a fresh engine");
        assert_eq!(
            error.class,
            FailureClass::InvalidProgram,
            "{program}: {error:?}"
        );
        assert!(!out.worker_abandoned);
    }
}

/// The second wall on its own: with a file-, socket-, process-opening
/// primitive deliberately bound (unit-test builds only), the system-call
/// filter still stops the worker, and the run gets exactly one result.
#[test]
fn seccomp_stops_a_widened_allowlist() {
    let sandbox = Sandbox::new(vec![]);
    let _ = std::fs::remove_file("/tmp/tusk-seccomp-escape");
    for (what, syscall) in [
        ("open", "openat"),
        ("create", "openat"),
        ("socket", "socket"),
        ("exec", ""),
        ("fork", ""),
    ] {
        for program in [
            format!("(test-syscall \"{what}\")"),
            format!("(with-handler (lambda (e) 'caught) (test-syscall \"{what}\"))"),
        ] {
            let out = sandbox.run(
                &program,
                Limits::default(),
                EngineMode::Fresh,
                Arc::new(EchoBridge),
            );
            let error = out
                .error
                .unwrap_or_else(|| panic!("{program}: ran: {:?}", out.value));
            assert_eq!(
                error.class,
                FailureClass::WorkerCrashed,
                "{program}: {error:?}"
            );
            assert!(
                error.message.contains("system-call filter") && error.message.contains(syscall),
                "{program}: {error:?}"
            );
            assert_eq!(out.value, Value::Null);
        }
    }
    assert!(
        !std::path::Path::new("/tmp/tusk-seccomp-escape").exists(),
        "a worker wrote a file"
    );
    // The sandbox goes on.
    let out = sandbox.run(
        "(+ 1 2)",
        Limits::default(),
        EngineMode::Fresh,
        Arc::new(EchoBridge),
    );
    assert_eq!(out.value, json!(3));
}

#[test]
fn envelopes_read_straight_into_scheme_values_as_json_to_value_would() {
    let sample = json!({"a": [1, -2, 3.5, null, true, "x"], "big": 18446744073709551615u64,
                        "neg": -9223372036854775808i64, "nested": {"k": {"j": []}}});
    let direct: convert::SteelJson = serde_json::from_str(&sample.to_string()).unwrap();
    assert_eq!(direct.0, convert::json_to_value(&sample));
}

/// A spare made while runs wait for spares, or while they follow each other
/// with no time between them, skips the warm-up; one made while runs are
/// paced is warmed. Runs that spawn their own worker never warm it.
#[test]
fn spares_skip_the_warm_up_only_while_runs_come_back_to_back() {
    use supervisor::Purpose;
    let sandbox = Sandbox::new(vec![]);
    let spares = supervisor::Spares::new(sandbox.bindings.clone());
    let limits = Limits::default();
    let take = || spares.take(&limits).expect("a worker").purpose();
    // The first two runs find no spare; the second starts the spare thread.
    assert_eq!(take(), Purpose::Run);
    assert_eq!(take(), Purpose::Run);
    spares.wait_ready();
    assert_eq!(
        take(),
        Purpose::Spare { warm: false },
        "made after run 2 found none ready"
    );
    // Run 3 found its spare ready: the next one, made after it ended, is warmed.
    spares.ended(&limits);
    spares.wait_ready();
    std::thread::sleep(supervisor::WARM_SLACK);
    assert_eq!(take(), Purpose::Spare { warm: true });
    // Run 5 finds none (run 4 never ended): the one made beside it is not.
    assert_eq!(take(), Purpose::Run);
    spares.wait_ready();
    assert_eq!(take(), Purpose::Spare { warm: false });
    // A run that takes a ready spare right after the last one ended: the
    // spare made next is not warmed. (A test thread held up for WARM_SLACK
    // between the two calls made them paced after all: a few tries.)
    let cold_after_back_to_back = (0..5).any(|_| {
        spares.ended(&limits);
        spares.wait_ready();
        spares.ended(&limits);
        let _ = take();
        spares.ended(&limits);
        spares.wait_ready();
        take() == Purpose::Spare { warm: false }
    });
    assert!(cold_after_back_to_back);
}

#[test]
fn every_unbound_name_at_once() {
    let out = run("(list (foo 1) (bar 2))");
    let e = out.error.expect("an error");
    assert!(
        e.message.contains("`foo`") && e.message.contains("`bar`"),
        "{}",
        e.message
    );
}

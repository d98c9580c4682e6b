//! In-process tests of the evaluator alone (the CLI suite covers the whole path).

use super::*;
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
                json!({"action": action, "resultClass": "host.args_invalid", "payload": e.to_string()})
            }
        };
        HostReply {
            envelope,
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
        assert_eq!(error.class, CLASS_EFFECT_DENIED, "{program}: {error:?}");
        assert!(
            !error.message.contains("root:"),
            "{program} leaked: {}",
            error.message
        );
    }
}

#[test]
fn cyclic_value_is_marked() {
    let out = run("(define v (mutable-vector 1 2)) (vector-set! v 0 v) (display v) v");
    assert_eq!(out.error, None);
    assert_eq!(out.value, json!(["#<cycle>", 2]));
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
    assert_eq!(out.error.map(|e| e.class), Some(CLASS_INVALID_PROGRAM));
}

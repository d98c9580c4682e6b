//! racket/match in programs (issue 56, point 1): the forms rewritten before
//! expansion (src/sandbox/matching.rs) over the prelude's matcher, driven
//! through `tusk eval` as a model's program would use them, with the errors
//! a wrong pattern or an unmatched value gives.

use crate::common::*;
use serde_json::json;

#[test]
fn patterns_over_json_shaped_data() {
    let t = Test::new();
    let (code, r) = t.eval(
        r#"
(define (route v)
  (match v
    [(list) "empty"]
    [(list 'add x) (list "add" x)]
    [`(neg ,n) (- n)]
    [(list a b ... c) (list a b c)]
    [(cons h t) (list "pair" h t)]
    [(? string? s) #:when (> (string-length s) 3) (string-append "long " s)]
    [(hash-table ("id" id) ("status" (and st (or "open" "closed")))) (list id st)]
    [(hash "issue_type" "bug" "priority" (? number? p)) (list "bug" p)]
    [(? number? (app (lambda (n) (* n 2)) d)) d]
    [_ "other"]))
(match-define (list q r) (list (quotient 17 5) (remainder 17 5)))
(define sum2 (match-lambda [(list x y) (+ x y)] [_ 0]))
(list (route '()) (route (list 'add 5)) (route (list 1 2 3 4)) (route (cons 1 2))
      (route "hello") (route "hi")
      (route (hash "id" "bd-1" "status" "open" "title" "t"))
      (route (hash "id" "bd-1" "status" "blocked"))
      (route (hash "issueType" "bug" "priority" 1))
      (route 21) (route '(neg 4))
      q r (sum2 (list 3 4)) (sum2 5)
      (match* (1 2) [(a b) (+ a b)])
      (match-let ([(list a b) (list 1 2)] [c 3]) (list a b c))
      (match-let* ([(list a b) (list 1 2)] [c (+ a b)]) (list a b c))
      (match (list (list "a" 1) (list "b" 2)) [(list (list k v) ...) (list k v)])
      (match (list 1 1) [(list a a) "same"] [_ "differ"])
      (match (list 1 2) [(list a a) "same"] [_ "differ"]))"#,
        &[],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(
        r["value"],
        json!([
            "empty",
            ["add", 5],
            [1, [2, 3], 4],
            ["pair", 1, 2],
            "long hello",
            "other",
            ["bd-1", "open"],
            "other",
            ["bug", 1],
            42,
            -4,
            3,
            2,
            7,
            0,
            3,
            [1, 2, 3],
            [1, 2, 3],
            [["a", "b"], [1, 2]],
            "same",
            "differ"
        ])
    );
}

#[test]
fn a_value_no_clause_matches_is_an_error_at_the_match() {
    let t = Test::new();
    let (code, r) = t.eval("(define x 1)\n(match 5\n  [(list a) a])", &[]);
    assert_eq!(code, 1);
    assert_eq!(r["error"]["class"], "scheme_eval.runtime_error", "{r:#}");
    assert_eq!(
        (r["error"]["line"].clone(), r["error"]["column"].clone()),
        (json!(2), json!(1))
    );
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no matching clause for 5") && message.contains("[_ …]"),
        "{message}"
    );
    // An error inside a clause's body names the body's line.
    let (_, r) = t.eval("(match (list 1)\n  [(list a)\n   (car a)])", &[]);
    assert_eq!(
        (r["error"]["line"].clone(), r["error"]["column"].clone()),
        (json!(3), json!(5)),
        "{r:#}"
    );
}

#[test]
fn a_wrong_pattern_is_refused_with_the_patterns_there_are() {
    let t = Test::new();
    for (program, says, line) in [
        (
            "(define x 1)\n(match (list 1)\n  [(foo a) a])",
            "(foo …) is not a pattern",
            3,
        ),
        ("(match (list 1) [(list a ... b ...) a])", "one `...`", 1),
        ("(match 1 [(list a)])", "needs a body", 1),
        ("(match 1 [(hash-table (\"id\")) 1])", "(key pattern)", 1),
        ("(match-let ([x]) x)", "[pattern expression]", 1),
    ] {
        let (code, r) = t.eval(program, &[]);
        assert_eq!(code, 1, "{program}");
        assert_eq!(
            r["error"]["class"], "scheme_eval.invalid_program",
            "{program}: {r:#}"
        );
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{program}: {message}");
        assert_eq!(r["error"]["line"], line, "{program}: {r:#}");
    }
}

#[test]
fn a_program_that_defines_match_keeps_its_own() {
    let t = Test::new();
    let (code, r) = t.eval("(define (match a b) (+ a b))\n(match 1 2)", &[]);
    assert_eq!((code, r["value"].clone()), (0, json!(3)), "{r:#}");
}

#[test]
fn define_values_evaluates_its_expression_once() {
    let t = Test::new();
    let (code, r) = t.eval(
        "(define-values (a b c) (begin (display \"x\") (values 1 2 3)))
         (define (f) (define-values (q r) (quotient/remainder 7 2)) (list q r))
         (list a b c (f))",
        &[],
    );
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["value"], json!([1, 2, 3, [3, 1]]));
    assert_eq!(r["output"], "x");
}

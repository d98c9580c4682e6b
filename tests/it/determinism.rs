//! The determinism suite: every order a program can observe — hash walks,
//! printed hashes and sets, error messages, JSON, host-call arguments, lookups
//! of keys mutated after insertion — is the same in every process.
//!
//! Each program of the corpus runs in five fresh `tusk eval --json`
//! processes; their results (value, output, error text, digests) and effect
//! rows must be byte-identical, the recording must replay with parity, and the
//! result must show the documented order where the corpus pins it. A property
//! test does the same for random keyed structures, and checks that a hash's
//! printed form does not depend on the order its keys were inserted in.
//!
//! `TUSK_TEST_BIN=/path/to/tusk` runs the suite against another build (to see
//! which programs an older build gets wrong).

use crate::common::*;
use proptest::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

/// How many fresh processes run each program.
const PROCESSES: usize = 5;

fn tusk_bin() -> PathBuf {
    std::env::var_os("TUSK_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(BIN))
}

/// Runs the binary under test in the test's dir; returns its stdout as JSON.
fn tusk_json(s: &Test, args: &[&str]) -> Value {
    s.tusk(args).bin(tusk_bin()).run().json()
}

/// One process's view of a run: the result (normalized) and the effect log.
struct Run {
    result: Value,
    bytes: String,
}

/// Runs `program` in a fresh process and store; returns the run and the
/// scratch dir holding its recording.
fn run_once(program: &str) -> (Run, Test) {
    let s = Test::new();
    let file = s.write("program.scm", program);
    let r = tusk_json(&s, &["eval", "--json", file.to_str().unwrap()]);
    let run_id = r["runId"].as_str().expect("a run id").to_string();
    let rows: Vec<String> = s
        .jsonl(".premath/host_effects.jsonl")
        .into_iter()
        .map(|row| canonical(&normalized(row, &run_id)))
        .collect();
    let result = normalized(r, &run_id);
    let bytes = format!("{}\n{}", canonical(&result), rows.join("\n"));
    (Run { result, bytes }, s)
}

/// Runs `program` in [`PROCESSES`] fresh processes and replays the last
/// recording; returns the first run, or what went wrong.
fn same_everywhere(program: &str) -> Result<Value, String> {
    let (first, _) = run_once(program);
    for i in 1..PROCESSES {
        let (other, s) = run_once(program);
        if other.bytes != first.bytes {
            return Err(format!(
                "process {i} differs from process 0:\n  0: {}\n  {i}: {}",
                first.bytes, other.bytes
            ));
        }
        if i == PROCESSES - 1 {
            let replay = tusk_json(&s, &["replay", "--json"]);
            if replay["parity"] != true {
                return Err(format!(
                    "the recording does not replay with parity: {replay}"
                ));
            }
        }
    }
    Ok(first.result)
}

/// Definitions shared by the corpus (prepended to every program).
const HELPERS: &str = r#"
(define (sym s) (string->symbol s))
(define (from-pairs pairs)
  (foldl (lambda (p acc) (hash-insert acc (car p) (cdr p))) (hash) pairs))
(define (upto n) (let loop ((i (- n 1)) (acc '())) (if (< i 0) acc (loop (- i 1) (cons i acc)))))
(define (message-of thunk) (with-handler (lambda (e) (error-object-message e)) (thunk)))
;; Keys that print alike: the integer n and the symbol named "n".
(define alike
  (from-pairs (map (lambda (i) (cons (if (even? i) (quotient i 2) (sym (number->string (quotient i 2)))) i))
                   (upto 16))))
"#;

/// A corpus program: its name, its text, and what its result must show.
struct Case {
    name: &'static str,
    program: &'static str,
    check: fn(&Value) -> Result<(), String>,
}

fn accepted(r: &Value) -> Result<(), String> {
    if r["result"] == "accepted" {
        Ok(())
    } else {
        Err(format!("not accepted: {}", r["error"]))
    }
}

fn value_is(r: &Value, want: Value) -> Result<(), String> {
    accepted(r)?;
    if r["value"] == want {
        Ok(())
    } else {
        Err(format!("value {} is not {want}", r["value"]))
    }
}

fn output_is(r: &Value, want: &str) -> Result<(), String> {
    if r["output"] == want {
        Ok(())
    } else {
        Err(format!("output {} is not {want:?}", r["output"]))
    }
}

fn error_is(r: &Value, want: &str) -> Result<(), String> {
    if r["error"]["message"] == want {
        Ok(())
    } else {
        Err(format!("error {} is not {want:?}", r["error"]))
    }
}

const CORPUS: &[Case] = &[
    Case {
        name: "the names models reach for (issue 46): format, hash-keys, for loops, tolerant keys",
        program: r##"
(define h (from-pairs (map (lambda (i) (cons (string-append "k_" (number->string i)) i)) (upto 30))))
(define g (for/fold ([acc (hash)]) ([k (hash-keys h)]) (hash-update acc (substring k 0 3) add1 0)))
(list (hash-keys g) (hash-values g) (take (hash-keys h) 5) (hash-ref (hash "issueType" 1) "issue_type")
      (for/list ([x (range 0 5)] #:when (odd? x)) (format "~a:~s" x (number->string x)))
      (string-split "b a  c") (string-join (remove-duplicates (list "x" "y" "x")))
      (hash-ref h "missing" (lambda () "thunk")) (index-of (list 'a 'b) 'b))"##,
        check: |r| {
            accepted(r)?;
            value_is(
                r,
                serde_json::json!([
                    ["k_0", "k_1", "k_2", "k_3", "k_4", "k_5", "k_6", "k_7", "k_8", "k_9"],
                    [1, 11, 11, 1, 1, 1, 1, 1, 1, 1],
                    ["k_0", "k_1", "k_10", "k_11", "k_12"],
                    1,
                    ["1:\"1\"", "3:\"3\""],
                    ["b", "a", "c"],
                    "x y",
                    "thunk",
                    1
                ]),
            )
        },
    },
    Case {
        name: "hash->list over a 50-key hash",
        program: r##"
(define h (from-pairs (map (lambda (i) (cons (sym (string-append "k" (number->string i))) i)) (upto 50))))
(list (map car (hash->list h)) (hash-keys->list h) (hash-values->list h) (map cdr (hash->list h)))"##,
        check: |r| {
            accepted(r)?;
            let mut names: Vec<String> = (0..50).map(|i| format!("k{i}")).collect();
            names.sort();
            let values: Vec<i64> = names.iter().map(|n| n[1..].parse().unwrap()).collect();
            value_is(
                r,
                serde_json::json!([names.clone(), names, values.clone(), values]),
            )
        },
    },
    Case {
        name: "walkers over keys of every kind",
        program: r##"
(define keys (list 3 -7 2/3 12345678901234567890 1.5 -0.25 #\a #\( "a" "a(" (sym "a") (sym "1") #t #f
                   (list 1 2) (list 1) (vector 1 2) (cons 1 2) (hash 1 2) (list->hashset (list 1 2)) 1))
(define h (from-pairs (map (lambda (k i) (cons k i)) keys (upto (length keys)))))
(list (hash-values->list h) (map cdr (hash->list h))
      (map (lambda (k) (hash-ref h k)) (hash-keys->list h))
      (map (lambda (k) (hash-ref h k)) (hashset->list (list->hashset keys))))"##,
        check: |r| {
            // #f #t, exact numbers, floats, chars, strings, symbols, lists,
            // pairs, vectors, hashes, sets.
            let order = serde_json::json!([
                13, 12, 1, 2, 20, 0, 3, 5, 4, 7, 6, 8, 9, 11, 10, 15, 14, 17, 16, 18, 19
            ]);
            value_is(r, serde_json::json!([order, order, order, order]))
        },
    },
    Case {
        name: "hash-values->list and hashset->list over hashes inside hashes",
        program: r##"
(define (pairwise i) (hash i 'a (sym (number->string i)) 'b))
(define (swapped i) (hash (sym (number->string i)) 'a i 'b))
(define keys (foldl (lambda (i acc) (cons (pairwise i) (cons (swapped i) acc))) '() (upto 8)))
(define h (from-pairs (map (lambda (k i) (cons k i)) keys (upto (length keys)))))
(define s (list->hashset keys))
(list (hash-values->list h) (map (lambda (k) (hash-ref h k)) (hashset->list s))
      (->string (hash-keys->list h)))"##,
        check: accepted,
    },
    Case {
        name: "sets inside sets and hashes as set members",
        program: r##"
(define members (map (lambda (i) (list->hashset (list i (sym (number->string i)) (hash i i)))) (upto 8)))
(define s (list->hashset (append members (map (lambda (i) (hash (sym (number->string i)) i i 'x)) (upto 8)))))
(->string (hashset->list s))"##,
        check: accepted,
    },
    Case {
        name: "printer: the integer 1 and the symbol '1",
        program: r##"
(display alike) (newline) (write alike) (newline)
(->string (hash 1 'int (sym "1") 'sym))"##,
        check: |r| {
            value_is(r, serde_json::json!("#hash((1 . int) (1 . sym))"))?;
            let ints: Vec<String> = (0..8).map(|i| format!("({i} . {})", 2 * i)).collect();
            let syms: Vec<String> = (0..8).map(|i| format!("({i} . {})", 2 * i + 1)).collect();
            let line = format!("#hash({} {})", ints.join(" "), syms.join(" "));
            output_is(r, &format!("{line}\n{line}\n"))
        },
    },
    Case {
        name: "printer: strings sharing a 300-byte prefix",
        program: r##"
(define prefix (make-string 300 #\p))
(define h (from-pairs (map (lambda (c) (cons (string-append prefix (string c)) (string c)))
                           (list #\h #\b #\f #\a #\g #\c #\e #\d))))
(display (hash-values->list h)) (newline)
(->string h)"##,
        check: |r| {
            output_is(r, "(a b c d e f g h)\n")?;
            let prefix = "p".repeat(300);
            let entries: Vec<String> = "abcdefgh"
                .chars()
                .map(|c| format!("(\"{prefix}{c}\" . {c})"))
                .collect();
            value_is(
                r,
                serde_json::json!(format!("#hash({})", entries.join(" "))),
            )
        },
    },
    Case {
        name: "printer: procedure keys",
        program: r##"
(define (adder n) (lambda (x) (+ x n)))
(define h (hash car 1 cdr 2 cons 3 list 4 + 5 (lambda (x) x) 6 first 7 display 8 length 9
                (adder 1) 10 (lambda (y) y) 11 hash-ref 12 newline 13 - 14))
(display h) (newline)
(list (hash-values->list h) (map cdr (hash->list h))
      (map (lambda (v) (if (procedure? v) "procedure" v)) (hashset->list (list->hashset (list 1 car cdr list (sym "a"))))))"##,
        check: accepted,
    },
    Case {
        name: "printer: the character #\\a and the symbol named #\\a",
        program: r##"
(define chars (list #\a #\b #\c #\d #\e #\f #\g #\h))
(define h (from-pairs (append (map (lambda (c) (cons c 'char)) chars)
                              (map (lambda (c) (cons (sym (string-append "#\\" (string c))) 'symbol)) chars))))
(write h) (newline)
(->string (hash-values->list h))"##,
        check: |r| {
            let chars: Vec<String> = "abcdefgh"
                .chars()
                .map(|c| format!("(#\\{c} . char)"))
                .collect();
            let syms: Vec<String> = "abcdefgh"
                .chars()
                .map(|c| format!("(#\\{c} . symbol)"))
                .collect();
            output_is(
                r,
                &format!("#hash({} {})\n", chars.join(" "), syms.join(" ")),
            )?;
            value_is(
                r,
                serde_json::json!("(char char char char char char char char symbol symbol symbol symbol symbol symbol symbol symbol)"),
            )
        },
    },
    Case {
        name: "error irritants",
        program: r##"(error "bad keys:" alike (hash car 1 cdr 2 list 3) (list alike))"##,
        check: |r| {
            let ints: Vec<String> = (0..8).map(|i| format!("({i} . {})", 2 * i)).collect();
            let syms: Vec<String> = (0..8).map(|i| format!("({i} . {})", 2 * i + 1)).collect();
            let line = format!("#hash({} {})", ints.join(" "), syms.join(" "));
            let message = r["error"]["message"].as_str().unwrap_or_default();
            if message.contains(&line) {
                Ok(())
            } else {
                Err(format!("{message:?} lacks {line:?}"))
            }
        },
    },
    Case {
        name: "error-object-message of error and of Steel's own errors",
        program: r##"
(list (message-of (lambda () (error "bad keys:" alike)))
      (message-of (lambda () (+ 1 alike)))
      (message-of (lambda () (car (list->hashset (list 1 (sym "1") #\( "a(" "b}"))))))"##,
        check: |r| {
            accepted(r)?;
            let set = &r["value"][2];
            let want =
                "car expected a list or pair, found: #<hashset Gc({1, #\\(, \"a(\", \"b}\", '1})>";
            if set.as_str().is_some_and(|m| m.ends_with(want)) {
                Ok(())
            } else {
                Err(format!("{set} does not end with {want:?}"))
            }
        },
    },
    Case {
        name: "Steel's error message for a hash whose keys hold ( } \" and #\\(",
        program: r##"(+ 1 (hash "a(" 1 "b}" 2 "c\"" 3 #\( 4 'x 5 "d,e" 6 (list 1 "}") 7 #\} 8 "{" 9))"##,
        check: |r| {
            error_is(
                r,
                "TypeMismatch: + expects a number, found: #<hashmap {\n    #\\(: 4,\n    #\\}: 8,\n    \"a(\": 1,\n    \"b}\": 2,\n    \"c\\\"\": 3,\n    \"d,e\": 6,\n    \"{\": 9,\n    'x: 5,\n    '(1 \"}\"): 7,\n}>",
            )
        },
    },
    Case {
        name: "Steel's error message for a set",
        program: r##"(vector-ref (list->hashset (list "a(" "b}" "c\"" #\( "d,e" 1 (sym "1") (list 2 "(") 2.5)) 0)"##,
        check: |r| {
            error_is(
                r,
                "TypeMismatch: vector-ref expected a vector and a number, found: #<hashset Gc({1, 2.5, #\\(, \"a(\", \"b}\", \"c\\\"\", \"d,e\", '1, '(2 \"(\")})> and 0",
            )
        },
    },
    Case {
        name: "hash-get and hash-ref misses",
        program: r##"
(define h (hash "a(" 1 "b}" 2 "c\"" 3 #\( 4 'x 5 "d,e" 6))
(list (message-of (lambda () (hash-ref h 'nope))) (message-of (lambda () (hash-get h 'nope)))
      (message-of (lambda () (hash-get 5 'nope))) (message-of (lambda () (hash-union alike 5))))"##,
        check: accepted,
    },
    Case {
        name: "nested hashes printed as values",
        program: r##"
(define h (hash "outer" alike 'b (hash (list alike) 1 (vector alike) 2) 3 (list alike alike)))
(display h) (newline)
(->string (list h (hash-values->list h)))"##,
        check: accepted,
    },
    Case {
        name: "hash-contains? after vector-set! on a mutable-vector key",
        program: r##"
(define (probe i) (let* ((v (mutable-vector i 0)) (h (hash v i))) (vector-set! v 1 1) (hash-contains? h v)))
(filter probe (upto 400))"##,
        check: accepted,
    },
    Case {
        name: "hashset-contains? after vector-set! on a mutable-vector member",
        program: r##"
(define (probe i)
  (let* ((v (mutable-vector i 0)) (s (list->hashset (list v (mutable-vector i 2)))))
    (vector-set! v 1 1) (hashset-contains? s v)))
(filter probe (upto 400))"##,
        check: accepted,
    },
    Case {
        name: "mutated keys walked, printed and looked up",
        program: r##"
(define vs (map (lambda (i) (mutable-vector i 'x)) (upto 12)))
(define b (box 'in-a-box))
(define h (from-pairs (cons (cons b 'box) (map (lambda (v i) (cons v i)) vs (upto 12)))))
(for-each (lambda (v) (vector-set! v 0 (- 20 (vector-ref v 0)))) vs)
(vector-set! (list-ref vs 3) 0 (vector-ref (list-ref vs 4) 0))
(set-box! b 'moved)
(display h) (newline)
(list (hash-values->list h) (map (lambda (v) (hash-contains? h v)) vs) (hash-contains? h b))"##,
        check: accepted,
    },
    Case {
        name: "keys that come to contain themselves",
        program: r##"
(define v (mutable-vector 1 2))
(define w (mutable-vector 1 3))
(define h (hash v 'v w 'w (sym "v") 's (list v w) 'l (list w v) 'm))
(vector-set! v 1 v)
(vector-set! w 1 w)
(display h) (newline)
(list (hash-values->list h) (length (hash-keys->list h)))"##,
        check: accepted,
    },
    Case {
        name: "host-call arguments built from hash walks",
        program: r##"
(define h (from-pairs (map (lambda (i) (cons (sym (string-append "label-" (number->string i))) i)) (upto 30))))
(define labels (map (lambda (p) (number->string (cdr p))) (hash->list h)))
(list (result-class (issue.list (hash "label" (string-join labels ",") "status" "open")))
      (result-class (issue.list (hash "label" (string-join (map symbol->string (hash-keys->list h)) ",")))))"##,
        check: |r| value_is(r, serde_json::json!(["accepted", "accepted"])),
    },
    Case {
        // A closure hashes by its lambda's number: `tusk eval` compiles only
        // the prelude forms a program reaches, the replay's server engine
        // all of them, and the numbers (so the order) must not differ.
        name: "closures as keys, from the program and from prelude procedures",
        program: r##"
(define fs (list (lambda (x) (+ x 1)) (lambda (x) (* x 2)) (lambda (x) (- x 3))
                 (lambda (x) (list x)) (lambda (x) (vector x)) sort map filter
                 (lambda (x) (sort (list x 2 1) <))))
(define h (from-pairs (map (lambda (f i) (cons f i)) fs (upto (length fs)))))
(list (hash-values->list h) (map (lambda (f) (hash-ref h f)) (hash-keys->list h)))"##,
        check: accepted,
    },
    // Issue 56's names: mutable hashes, the for family, racket/hash and
    // list procedures that walk a hash, exceptions and multiple values.
    Case {
        name: "mutable hashes filled in different orders",
        program: r##"
(define a (make-hash))
(define b (make-hash))
(for ([i (in-range 40)]) (hash-set! a (sym (string-append "k" (number->string (* i 37)))) i))
(for ([i (in-range 39 -1 -1)]) (hash-set! b (sym (string-append "k" (number->string (* i 37)))) i))
(hash-update! a 'k0 add1 0)
(hash-update! b 'k0 add1 0)
(hash-remove! a 'k37)
(hash-remove! b 'k37)
(display a) (newline)
(list (hash-keys a) (hash-values b) (hash->list a) (equal? a b) (hash-count (hash-copy b))
      (for/list ([(k v) (in-hash a)]) (list k v))
      (hash-map b (lambda (k v) v)))"##,
        check: accepted,
    },
    Case {
        name: "for/hash, hash-union and group-by over keys that print alike",
        program: r##"
(define h (for/hash ([(k v) (in-hash alike)]) (values v k)))
(define u (hash-union alike (hash 'x 1 'y 2) #:combine (lambda (a b) (+ a b))))
(list (hash-keys h) (hash-values u)
      (group-by (lambda (n) (modulo n 3)) (hash-values alike))
      (for/fold ([sum 0] [keys '()] #:result (list sum (length keys))) ([(k v) (in-hash alike)])
        (values (+ sum v) (cons k keys)))
      (sort (hash-values alike) < #:key (lambda (n) (- n)))
      (remove-duplicates (map (lambda (n) (modulo n 5)) (hash-values alike))))"##,
        check: accepted,
    },
    Case {
        name: "exceptions and values carry their data unchanged",
        program: r##"
(define-values (q r) (quotient/remainder 17 5))
(list q r
      (with-handlers ([exn:fail? exn-message]) (error 'who "bad ~a: ~s" "x" (hash 'b 2 'a 1)))
      (guard (e [(string? e) (string-append "caught " e)]) (raise "up"))
      (call-with-current-continuation (lambda (k) (dynamic-wind void (lambda () (k 'out)) void)))
      (let-values ([(evens odds) (partition even? (hash-values alike))]) (list evens odds))
      (~a "n" #:width 6 #:align 'right) (~r 3.14159 #:precision 2))"##,
        check: accepted,
    },
    Case {
        name: "match over hashes and lists",
        program: r##"
(define (shape v)
  (match v
    [(hash-table ("k0" a) ("k37" b)) (list 'both a b)]
    [(list (list k v) ...) (list 'pairs (length k) (apply + v))]
    [(? hash? h) (hash-keys h)]
    [_ 'other]))
(list (shape (for/hash ([i (in-range 40)]) (values (string-append "k" (number->string (* i 37))) i)))
      (shape (map (lambda (p) (list (car p) (cdr p))) (hash->list alike)))
      (shape alike)
      (match-let ([(list a b) (hash-values alike)]) a))"##,
        // The unmatched value, in the error, shows the hash's order.
        check: |r| match r["error"]["message"].as_str() {
            Some(m) if m.contains("no matching clause for ((") => Ok(()),
            _ => Err(format!("error {}", r["error"])),
        },
    },
    Case {
        name: "a final value with string keys as JSON",
        program: r##"
(from-pairs (map (lambda (i) (cons (string-append "key-" (number->string (* i 7919))) (hash "n" i (sym "m") (list i)))) (upto 40)))"##,
        check: accepted,
    },
];

#[test]
fn every_corpus_program_is_byte_identical_in_five_processes_and_replays() {
    let mut failures = Vec::new();
    for case in CORPUS {
        let program = format!("{HELPERS}\n{}", case.program);
        match same_everywhere(&program).and_then(|r| (case.check)(&r)) {
            Ok(()) => {}
            Err(why) => failures.push(format!("{}: {why}", case.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus programs failed:\n\n{}",
        failures.len(),
        CORPUS.len(),
        failures.join("\n\n")
    );
}

/// Scheme source of a random key: every kind of value a program can use as
/// a key, alike-printing ones on purpose.
fn key() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        (-3i64..40).prop_map(|i| i.to_string()),
        (0u8..6).prop_map(|i| format!("(string->symbol \"{i}\")")),
        (0u8..4).prop_map(|i| format!("(string->symbol \"#\\\\{}\")", (b'a' + i) as char)),
        (0u8..4).prop_map(|i| format!("#\\{}", (b'a' + i) as char)),
        prop_oneof![Just("#\\("), Just("#\\}"), Just("#\\\"")].prop_map(String::from),
        (0u8..5).prop_map(|i| format!("(string-append (make-string 300 #\\p) \"{i}\")")),
        prop_oneof![
            Just("\"a(\""),
            Just("\"}\""),
            Just("\"q\\\"\""),
            Just("\"x, y\"")
        ]
        .prop_map(String::from),
        (-4i32..4).prop_map(|i| format!("{i}.5")),
        (1i32..4).prop_map(|i| format!("{i}/7")),
        prop_oneof![Just("#t"), Just("#f")].prop_map(String::from),
        prop_oneof![
            Just("car"),
            Just("cdr"),
            Just("length"),
            Just("display"),
            Just("(lambda (x) x)"),
            Just("(lambda (y) 1)")
        ]
        .prop_map(String::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| format!("(list {})", v.join(" "))),
            prop::collection::vec(inner.clone(), 1..4)
                .prop_map(|v| format!("(vector {})", v.join(" "))),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|v| format!("(mutable-vector {})", v.join(" "))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(cons {a} {b})")),
            prop::collection::vec((inner.clone(), 0u8..3), 0..4).prop_map(|v| {
                let body: Vec<String> = v.iter().map(|(k, i)| format!("{k} {i}")).collect();
                format!("(hash {})", body.join(" "))
            }),
            prop::collection::vec(inner, 0..4)
                .prop_map(|v| format!("(list->hashset (list {}))", v.join(" "))),
        ]
    })
}

/// A program that builds a hash and a set from `keys` and observes them in
/// every way: printed, walked, in error messages, as JSON.
fn observer(keys: &[String]) -> String {
    format!(
        r#"
(define ks (list {}))
(define h (foldl (lambda (k acc) (hash-insert acc k (hash-length acc))) (hash) ks))
(define s (list->hashset ks))
(define (message-of thunk) (with-handler (lambda (e) (error-object-message e)) (thunk)))
(display h) (newline)
(write (hash-values->list h)) (newline)
(display (map car (hash->list h))) (newline)
(display (hashset->list s)) (newline)
(display (message-of (lambda () (error "irritants:" h s)))) (newline)
(display (message-of (lambda () (+ 1 h)))) (newline)
(display (message-of (lambda () (car s)))) (newline)
(list (hash-values->list h) (->string (hash-keys->list h)) (length (hashset->list s)))"#,
        keys.join(" ")
    )
}

/// Random cases per property: 24, or `PROPTEST_CASES`.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Random keyed structures: the same bytes in five processes, replayed
    /// with parity.
    #[test]
    fn random_keyed_structures_are_observed_alike_in_every_process(
        keys in prop::collection::vec(key(), 1..12)
    ) {
        let r = same_everywhere(&observer(&keys)).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&r["result"], "accepted", "{}", r["error"]);
    }

    /// Keys without opaque values: the printed hash, its walks and Steel's
    /// rendering of it are functions of the keys, whatever the order they
    /// were inserted in. (Without sets too: Steel's `equal?` takes any two
    /// sets of one size for equal, so which of two such keys a hash keeps
    /// depends on which came first.)
    #[test]
    fn insertion_order_does_not_show(
        (keys, order) in prop::collection::vec(key(), 1..10)
            .prop_filter("opaque keys keep insertion order by design; no sets", |ks| {
                ks.iter().all(|k| {
                    k.split([' ', '(', ')']).all(|word| {
                        !["car", "cdr", "length", "display", "lambda", "list->hashset"].contains(&word)
                    })
                })
            })
            .prop_flat_map(|ks| { let n = ks.len(); (Just(ks), Just((0..n).collect::<Vec<_>>()).prop_shuffle()) })
    ) {
        let shuffled: Vec<String> = order.iter().map(|&i| keys[i].clone()).collect();
        let program = format!(
            r#"
(define (build ks) (foldl (lambda (k acc) (hash-insert acc k (->string k))) (hash) ks))
(define (seen h)
  (list (->string h) (->string (hash-values->list h))
        (with-handler (lambda (e) (error-object-message e)) (+ 1 h))
        (with-handler (lambda (e) (error-object-message e)) (car (list->hashset (hash-keys->list h))))))
(define a (seen (build (list {}))))
(define b (seen (build (list {}))))
(if (equal? a b) 'same (list a b))"#,
            keys.join(" "),
            shuffled.join(" ")
        );
        let s = Test::new();
        let file = s.write("program.scm", &program);
        let r = tusk_json(&s, &["eval", "--json", file.to_str().unwrap()]);
        prop_assert_eq!(&r["value"], "same", "{}", r);
    }
}

//! The model-program corpus (`tests/model_programs/`, issue 46): programs a
//! language model wrote from `tusk prime` alone, each run first try on a
//! fresh copy of the seed store with mutation authority, its value compared
//! with the task's answer; and deliberately wrong variants, whose error must
//! name the fix. The programs are kept as written (see the corpus README).

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_programs")
}

/// The blind corpus (issue 56, point 7): sixty tasks written from `tusk
/// prime` and the tool list of landed c37e741 alone, sealed until issue
/// 56's work was done, run as written.
fn blind_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_programs_blind")
}

/// One corpus file: its header lines and its program.
struct Task {
    name: String,
    task: String,
    expect: Option<Value>,
    after: Option<Value>,
    program: String,
}

fn read_task(path: &Path) -> Task {
    let text = std::fs::read_to_string(path).unwrap();
    let mut task = Task {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        task: String::new(),
        expect: None,
        after: None,
        program: String::new(),
    };
    fn header<'l>(line: &'l str, key: &str) -> Option<&'l str> {
        line.strip_prefix(&format!(";; {key}:")).map(str::trim)
    }
    let json = |text: &str, what: &str| -> Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: {what}: {e}", path.display()))
    };
    for line in text.lines() {
        if let Some(t) = header(line, "task") {
            task.task = t.to_string();
        } else if let Some(e) = header(line, "expect") {
            task.expect = Some(json(e, "expect"));
        } else if let Some(a) = header(line, "after") {
            task.after = Some(json(a, "after"));
        }
    }
    task.program = text;
    task
}

fn files(wrong: bool) -> Vec<PathBuf> {
    files_in(&corpus_dir(), wrong)
}

fn files_in(dir: &Path, wrong: bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "scm"))
        .filter(|p| p.to_string_lossy().ends_with(".wrong.scm") == wrong)
        .collect();
    out.sort();
    out
}

/// Runs `program` on a fresh seed store with authority: (exit code, result, store).
fn run(program: &str) -> (i32, Value, Test) {
    run_in(&corpus_dir(), None, program)
}

/// Runs `program` on a fresh copy of `dir`'s seed store, with `readiness`
/// in its config.json when given, with authority.
fn run_in(dir: &Path, readiness: Option<&str>, program: &str) -> (i32, Value, Test) {
    let t = Test::on_files().issue_text(&std::fs::read_to_string(dir.join("seed.jsonl")).unwrap());
    if let Some(rule) = readiness {
        t.write(
            ".premath/config.json",
            &format!("{{\"readiness\": \"{rule}\"}}"),
        );
    }
    let digest = t.policy_digest();
    let (code, result) = t
        .tusk(&["eval", "--json", "-", "--policy-digest", &digest])
        .args(["--instruction-ref", "instr://corpus"])
        .stdin(program)
        .run()
        .reply();
    (code, result, t)
}

/// Why a task's run is not its answer, if it is not.
fn judge(task: &Task, result: &Value, t: &Test) -> Option<String> {
    let value = &result["value"];
    if let Some(expect) = &task.expect {
        if value != expect {
            let error = result["error"]["message"].as_str().unwrap_or("");
            let rejected: Vec<String> = result["effects"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|e| e["resultClass"] != "accepted")
                .map(|e| {
                    format!(
                        "{} → {}: {}",
                        e["action"].as_str().unwrap_or("?"),
                        e["resultClass"].as_str().unwrap_or("?"),
                        e["payload"]["diagnostic"].as_str().unwrap_or("")
                    )
                })
                .collect();
            return Some(format!(
                "value {} (want {expect}); error: {error}; rejected calls: {rejected:?}",
                truncate(&value.to_string(), 300)
            ));
        }
    }
    if let Some(after) = task.after.as_ref().and_then(Value::as_object) {
        for (id, fields) in after {
            let stored = t
                .store_lines()
                .into_iter()
                .find(|l| l["id"] == *id)
                .unwrap_or(Value::Null);
            for (field, want) in fields.as_object().into_iter().flatten() {
                if &stored[field] != want {
                    return Some(format!(
                        "after: {id}.{field} is {} (want {want})",
                        stored[field]
                    ));
                }
            }
        }
    }
    None
}

fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        return s.to_string();
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The share of programs that must give their task's answer first try.
const FIRST_TRY_TARGET: f64 = 0.95;

/// Runs every task of `dir` first try: (tasks, failures, each with why).
fn first_try(dir: &Path, readiness: Option<&str>) -> (usize, Vec<String>) {
    let tasks: Vec<Task> = files_in(dir, false).iter().map(|p| read_task(p)).collect();
    assert!(tasks.len() >= 60, "the corpus holds {} tasks", tasks.len());
    let mut failures = Vec::new();
    for task in &tasks {
        assert!(!task.task.is_empty(), "{}: no task line", task.name);
        let (_, result, t) = run_in(dir, readiness, &task.program);
        if let Some(why) = judge(task, &result, &t) {
            failures.push(format!("{}: {why}", task.name));
        }
    }
    (tasks.len(), failures)
}

#[test]
fn model_programs_run_first_try() {
    let (total, failures) = first_try(&corpus_dir(), None);
    let tasks = vec![(); total];
    let passed = tasks.len() - failures.len();
    let rate = passed as f64 / tasks.len() as f64;
    eprintln!(
        "model programs: {passed}/{} first try ({:.1}%)",
        tasks.len(),
        rate * 100.0
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(
        rate >= FIRST_TRY_TARGET,
        "{passed}/{} programs gave their answer first try; the target is {:.0}%:\n{}",
        tasks.len(),
        FIRST_TRY_TARGET * 100.0,
        failures.join("\n")
    );
}

/// The first blind corpus's tasks whose expected answer tusk does not give,
/// each with why. They were written from landed c37e741's guide and tool
/// list (which showed no payload shapes and no readiness rule) and are kept
/// as written; the list stays exact, so a fix or a regression shows here.
const BLIND_MISSES: &[(&str, &str)] = &[
    ("001", "expects a blocked epic's children ready; beads' rule (issue 62, as bd does) blocks them"),
    ("006", "the same readiness expectation (bd-8, bd-9 under blocked epic bd-6)"),
    ("044", "the same readiness expectation"),
    ("045", "the same readiness expectation"),
    ("009", "expects a whole-word match first; issue.search breaks a score tie by priority"),
    ("003", "guessed a blocker as an id string (a Blocker is {dependsOnId, …}, shown since)"),
    ("017", "guessed a blocker as an id string, silently (shown since)"),
    ("008", "guessed dep.tree's root under \"root\" (it is \"tree\", shown since)"),
    ("023", "guessed dep.tree's root under \"root\" (shown since)"),
    ("011", "guessed the lease counts at the payload's top (under \"projection\"; the error lists the keys)"),
    ("054", "guessed the session under \"session\" (the payload is the session; the error lists its keys)"),
    ("057", "guessed the session under \"session\", read with hash-ref* (silent #f)"),
    ("060", "guessed the next feature under \"feature\" (the payload has nextFeatureId, shown since)"),
];

/// The first blind corpus (issue 56, point 7), on the store a new user gets
/// (`tusk init`: beads' readiness rule): 47 of 60 first try (36 on landed
/// c37e741); every other task is a recorded miss.
#[test]
fn blind_programs_run_first_try() {
    let (total, failures) = first_try(&blind_dir(), Some("beads"));
    let passed = total - failures.len();
    eprintln!(
        "blind programs: {passed}/{total} first try ({:.1}%)",
        passed as f64 / total as f64 * 100.0
    );
    let failed: Vec<&str> = failures.iter().map(|f| &f[..3]).collect();
    let mut problems: Vec<String> = failures
        .iter()
        .filter(|f| !BLIND_MISSES.iter().any(|(n, _)| f.starts_with(n)))
        .map(|f| format!("not a recorded miss: {f}"))
        .collect();
    problems.extend(
        BLIND_MISSES
            .iter()
            .filter(|(n, _)| !failed.contains(n))
            .map(|(n, why)| format!("{n} now passes: remove it from BLIND_MISSES ({why})")),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The second blind corpus: sixty tasks written, like the first, from the
/// guide and tool list alone, those of 2026-11-29 (every payload's shape,
/// the readiness rule, handled refusals), never run before it was sealed.
/// Held to the target.
#[test]
fn second_blind_programs_run_first_try() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_programs_blind2");
    let (total, failures) = first_try(&dir, Some("beads"));
    let passed = total - failures.len();
    let rate = passed as f64 / total as f64;
    eprintln!(
        "second blind programs: {passed}/{total} first try ({:.1}%)",
        rate * 100.0
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(
        rate >= FIRST_TRY_TARGET,
        "{passed}/{total} programs gave their answer first try; the target is {:.0}%:\n{}",
        FIRST_TRY_TARGET * 100.0,
        failures.join("\n")
    );
}

/// What the error of each deliberately wrong variant must contain: the
/// fix, in words a model acts on (the key, the name, the type).
const WRONG_FIXES: &[(&str, &[&str])] = &[
    ("001", &["\"id\"", "\"title\""]),
    ("010", &["issue.show"]),
    ("019", &["\"comments\""]),
    ("021", &["direction", "\"up\""]),
    ("023", &["~d", "~a"]),
    ("028", &["number->string"]),
    ("031", &["(issue.claim_next (hash"]),
    ("032", &["did you mean `labels`"]),
    ("035", &["`id`"]),
    ("039", &["`reason`"]),
    ("040", &["`assignee`"]),
    ("041", &["`assignee`"]),
    ("043", &["REJECTED", "(accepted? e)"]),
    ("044", &["one hash"]),
    ("045", &["issue.reopen"]),
    ("047", &["an integer", "\"priority\" 2"]),
    ("051", &["a list of strings", "(list"]),
    ("053", &["a list of strings", "(list"]),
    ("063", &["must be a string"]),
    ("065", &["failure-classes"]),
    ("067", &["harness.session.write"]),
    ("070", &["(hash-ref h \"claimed\")"]),
    ("076", &["separator"]),
];

/// Wrong variants whose "mistake" this dialect now accepts by design (a
/// filter label given as one string, snake_case argument names, Racket's
/// `index-of`): they must give their task's answer.
const NOW_ACCEPTED: &[&str] = &["003", "037", "057", "088"];

#[test]
fn wrong_variants_name_their_fix() {
    let mut problems = Vec::new();
    let wrong = files(true);
    let mut seen = Vec::new();
    for path in &wrong {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let number = &name[..3];
        seen.push(number.to_string());
        let text = std::fs::read_to_string(path).unwrap();
        let (code, result, _) = run(&text);
        if NOW_ACCEPTED.contains(&number) {
            let task = files(false)
                .into_iter()
                .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(number))
                .map(|p| read_task(&p))
                .unwrap();
            if result["value"] != task.expect.clone().unwrap_or(Value::Null) {
                problems.push(format!(
                    "{name}: accepted by design, but gave {}",
                    result["value"]
                ));
            }
            continue;
        }
        let Some((_, fixes)) = WRONG_FIXES.iter().find(|(n, _)| *n == number) else {
            problems.push(format!("{name}: no entry in WRONG_FIXES"));
            continue;
        };
        let told = said(&result);
        if code == 0 {
            problems.push(format!("{name}: ran without an error"));
        }
        for fix in *fixes {
            if !told.contains(fix) {
                problems.push(format!(
                    "{name}: the error does not say {fix:?}: {}",
                    truncate(&told, 500)
                ));
            }
        }
    }
    assert!(
        WRONG_FIXES.len() >= 20,
        "{} wrong variants are checked; the issue asks for 20",
        WRONG_FIXES.len()
    );
    for (n, _) in WRONG_FIXES {
        assert!(
            seen.iter().any(|s| s == n),
            "WRONG_FIXES names {n}, which has no .wrong.scm"
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Everything a run tells the program's author: the error, and each
/// rejected call's class and diagnostic.
fn said(result: &Value) -> String {
    let mut out = result["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    for e in result["effects"].as_array().into_iter().flatten() {
        if e["resultClass"] != "accepted" {
            out.push_str(&format!(
                " | {} → {}: {}",
                e["action"].as_str().unwrap_or("?"),
                e["resultClass"].as_str().unwrap_or("?"),
                e["payload"]["diagnostic"].as_str().unwrap_or("")
            ));
        }
    }
    out
}

/// No procedure drops an argument without a word (issue 46): a function
/// called with too many or too few arguments is an error naming it (Steel's
/// optimizer inlined such a call and dropped the extra: vendor patch §5),
/// `format` refuses values it has no directive for, and `displayln` prints
/// every argument.
#[test]
fn no_argument_is_silently_dropped() {
    let t = Test::on_files();
    let run = |program: &str| t.tusk(&["eval", "--json", "-"]).stdin(program).run().json();
    for (program, named) in [
        (
            "(define (f a) (+ a 1)) (f 1 2)",
            "`f` expected 1 arguments, found 2",
        ),
        (
            "(define (f a b) a) (list (f 1))",
            "`f` expected 2 arguments, found 1",
        ),
        (
            "(define (f a) a) (map (lambda (x) (f x x)) (list 1 2))",
            "`f` expected 1",
        ),
        ("(take (list 1 2))", "`take` expected 2 arguments, found 1"),
        (
            r#"(format "~a" 1 2)"#,
            "2 argument(s) but the template has 1",
        ),
    ] {
        let r = run(program);
        let message = r["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(named), "{program}: {r:#}");
    }
    let r = run(r#"(displayln "claimed " "bd-1" " at " 3) (define (f a . more) more) (f 1 2 3)"#);
    assert_eq!(r["output"], "claimed bd-1 at 3\n", "{r:#}");
    assert_eq!(r["value"], serde_json::json!([2, 3]));
}

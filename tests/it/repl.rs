//! `tusk repl` through the real binary: in a pseudo-terminal (rustyline,
//! Ctrl-C, completion, history) and scripted from a pipe.

use crate::common::*;
use rexpect::session::PtySession;
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

/// Generous: the machine may be busy building or testing something else.
const EXPECT_MS: u64 = 60_000;

/// A `tusk repl` in a pseudo-terminal, at its first prompt.
struct Pty {
    session: PtySession,
    /// The session id printed in the banner.
    sid: String,
    /// What came before the banner (`--run`: the opened run).
    opening: String,
}

impl Pty {
    fn start(s: &Test, extra: &[&str]) -> Pty {
        let command = s
            .tusk(&["repl"])
            .args(extra)
            .env("XDG_STATE_HOME", s.path("state"))
            .env("TERM", "xterm")
            .command();
        let options = rexpect::reader::Options::new()
            .timeout_ms(Some(EXPECT_MS))
            .strip_ansi_escape_codes(true);
        let mut session = rexpect::spawn_with_options(command, options).expect("spawn tusk repl");
        let (opening, matched) = session
            .exp_regex(r"session session-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9a-f]{12}")
            .expect("banner with the session id");
        let sid = matched.trim_start_matches("session ").to_string();
        session.exp_string("tusk> ").expect("first prompt");
        Pty {
            session,
            sid,
            opening,
        }
    }

    /// Types `text` and Enter (a carriage return, as a terminal sends it).
    fn enter(&mut self, text: &str) {
        self.session.send(text).unwrap();
        self.session.send("\r").unwrap();
        self.session.flush().unwrap();
    }

    /// Waits for `needle`; returns everything before it.
    fn expect(&mut self, needle: &str) -> String {
        // rexpect turns each byte read into one char: match UTF-8 the same way.
        let bytes: String = needle.bytes().map(char::from).collect();
        self.session
            .exp_string(&bytes)
            .unwrap_or_else(|e| panic!("waiting for {needle:?}: {e}"))
    }

    /// Waits for the next prompt (after a result).
    fn prompt(&mut self) {
        self.expect("tusk> ");
    }

    /// Ctrl-C at the prompt: the line is dropped and a new prompt comes.
    /// rustyline drops keys typed ahead of that prompt, so wait for it.
    fn cancel_line(&mut self) {
        std::thread::sleep(Duration::from_millis(300));
        self.session.send_control('c').unwrap();
        self.prompt();
        std::thread::sleep(Duration::from_millis(300));
    }

    /// `:quit` and wait for the process to end with exit code 0.
    fn quit(mut self) {
        self.enter(":quit");
        self.session.exp_eof().expect("tusk repl exits on :quit");
        assert_exit_0(&mut self.session);
    }
}

/// The pty child ended with exit code 0 (nix's `WaitStatus`, read via Debug:
/// rexpect does not re-export the type).
fn assert_exit_0(session: &mut PtySession) {
    let status = format!("{:?}", session.process_mut().wait().unwrap());
    assert!(
        status.starts_with("Exited(") && status.ends_with(", 0)"),
        "{status}"
    );
}

#[test]
fn pty_evaluates_forms_with_definitions_across_lines_and_runs() {
    let s = Test::new();
    let mut p = Pty::start(&s, &[]);
    p.enter("(+ 1 2)");
    p.expect("=> 3");
    p.prompt();
    // Multi-line: Enter inside an open form continues it, strings and
    // comments do not count as parens.
    p.enter("(define (shout x) ; a ( comment");
    p.enter("  (string-append x \")\"))");
    p.expect("; defined shout");
    p.prompt();
    p.enter("(shout \"hey\") (+ 40 2)");
    p.expect("=> \"hey)\"");
    p.expect("=> 42");
    p.prompt();
    p.quit();

    let log = s.jsonl(".premath/host_effects.jsonl");
    let programs: Vec<&str> = log
        .iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .map(|r| r["program"].as_str().unwrap())
        .collect();
    assert_eq!(
        programs,
        [
            "(+ 1 2)",
            "(define (shout x) ; a ( comment\n  (string-append x \")\"))",
            "(shout \"hey\")",
            "(+ 40 2)"
        ]
    );
}

#[test]
fn pty_host_call_goes_to_the_effect_log_under_the_session_id() {
    let s = Test::new();
    let mut p = Pty::start(&s, &[]);
    p.enter("(issue.list)");
    p.expect("call-1 issue.list → accepted");
    p.expect("=> envelope call-1 issue.list → accepted");
    p.prompt();
    p.enter("(host-actions)");
    p.expect("\"issue.ready\"");
    p.prompt();
    p.enter(":effects");
    p.expect("run 1");
    p.expect("call-1 issue.list → accepted");
    p.prompt();
    let sid = p.sid.clone();
    p.quit();

    let log = s.jsonl(".premath/host_effects.jsonl");
    let kinds: Vec<&str> = log.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "premath.scheme_eval.run.v0",
            "premath.host_effect.row.v0",
            "premath.scheme_eval.run_end.v0",
            "premath.scheme_eval.run.v0",
            "premath.scheme_eval.run_end.v0"
        ]
    );
    assert_eq!(log[0]["program"], "(issue.list)");
    assert_eq!(log[1]["action"], "issue.list");
    assert_eq!(log[1]["runId"], log[0]["runId"]);
    for row in [&log[0], &log[2], &log[3], &log[4]] {
        assert_eq!(row["sessionId"], sid.as_str(), "{row}");
    }
    assert_ne!(log[0]["runId"], log[3]["runId"]);
    // The call row, and one step row per form, tagged with the session.
    let trajectory = s.jsonl(".premath/harness_trajectory.jsonl");
    let calls: Vec<&Value> = trajectory
        .iter()
        .filter(|r| r["action"] != "scheme_eval.run")
        .collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["action"], "scheme_eval.issue.list");
    let steps = trajectory.len() - calls.len();
    assert_eq!(
        steps,
        log.iter()
            .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
            .count()
    );
    // Tagged with the session (and the actor, issue 57; refs are sorted).
    assert!(trajectory
        .iter()
        .filter(|r| r["action"] == "scheme_eval.run")
        .all(|r| r["lineageRefs"]
            .as_array()
            .unwrap()
            .contains(&Value::String(format!("session://{sid}")))));
}

#[test]
fn pty_ctrl_c_stops_an_endless_loop_and_the_prompt_works() {
    let s = Test::new();
    // Only the interrupt can end the loop early: its own limit is a minute.
    let mut p = Pty::start(&s, &["--timeout-ms", "60000"]);
    let sid = p.sid.clone();
    p.enter("(define kept 39)");
    p.expect("; defined kept");
    p.prompt();
    let started = Instant::now();
    p.enter("(let loop () (loop))");
    // Let the form start running (the terminal leaves raw mode for it).
    std::thread::sleep(Duration::from_millis(1000));
    p.session.send_control('c').unwrap();
    p.expect("error: scheme_eval.interrupted");
    p.prompt();
    p.enter("(+ 1 2 kept)");
    p.expect("=> 42");
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(5),
        "the loop was not interrupted promptly: {elapsed:?}"
    );
    p.prompt();
    // Ctrl-C at the prompt clears the line and does not end the REPL.
    p.session.send("(+ 1").unwrap();
    p.session.flush().unwrap();
    p.cancel_line();
    p.enter("(* 6 7)");
    p.expect("=> 42");
    p.prompt();
    p.quit();

    let log = s.jsonl(".premath/host_effects.jsonl");
    let footers: Vec<&Value> = log
        .iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run_end.v0")
        .collect();
    assert_eq!(footers.len(), 4, "{log:#?}");
    assert_eq!(
        footers[1]["failureClasses"],
        serde_json::json!(["scheme_eval.interrupted"])
    );

    // The whole session replays, the interrupted loop included, and replay
    // waits only about as long as the recording ran, not the minute's limit.
    let started = Instant::now();
    let out = s.run(&["replay", "--session", &sid, "--timeout-ms", "60000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("4 run(s): 4 parity, 0 not"), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "replay of the interrupted run waited {:?}",
        started.elapsed()
    );
}

#[test]
fn pty_errors_show_a_caret_and_the_prompt_goes_on() {
    let s = Test::new();
    let mut p = Pty::start(&s, &[]);
    p.enter("(list 1 2 nope)");
    p.expect("error: scheme_eval.invalid_program: unbound identifier `nope`");
    p.expect("  (list 1 2 nope)");
    let caret_line = p.expect("^");
    // The caret sits under column 11, where `nope` starts.
    let pad = caret_line.rsplit('\n').next().unwrap();
    assert_eq!(pad.trim_end_matches('\r'), format!("  {}", " ".repeat(10)));
    p.prompt();
    p.enter("(car 1)");
    p.expect("error: scheme_eval.runtime_error");
    p.prompt();
    p.enter(":nonsense");
    p.expect("unknown command `:nonsense`");
    p.prompt();
    p.enter("(+ 2 2)");
    p.expect("=> 4");
    p.prompt();
    p.quit();
}

#[test]
fn pty_history_is_written_under_xdg_state_home() {
    let s = Test::new();
    let mut p = Pty::start(&s, &[]);
    p.enter("(+ 20 22)");
    p.expect("=> 42");
    p.prompt();
    p.enter("(list 1");
    p.enter(" 2)");
    p.expect("=> [1,2]");
    p.prompt();
    p.quit();
    let history = std::fs::read_to_string(s.path("state/tusk/repl_history"))
        .expect("history file under $XDG_STATE_HOME/tusk");
    assert!(history.contains("(+ 20 22)"), "{history}");
    assert!(history.contains(":quit"), "{history}");
    // A multi-line entry is one history entry.
    assert!(history.contains(r"(list 1\n 2)"), "{history}");

    // The next session starts with it: Up recalls the last entry.
    let mut p = Pty::start(&s, &[]);
    p.session.send("\x1b[A\x1b[A").unwrap(); // Up twice: past `:quit`
    p.session.send("\r").unwrap();
    p.session.flush().unwrap();
    p.expect("=> [1,2]");
    p.prompt();
    p.quit();
}

#[test]
fn pty_tab_completes_action_ids() {
    let s = Test::new();
    let mut p = Pty::start(&s, &[]);
    // `issue.rea` has one completion: Tab inserts it, and it runs.
    p.session.send("(issue.rea\t").unwrap();
    p.session.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    p.enter(")");
    p.expect("call-1 issue.ready → accepted");
    p.prompt();
    // An ambiguous prefix lists the candidates on a second Tab.
    p.session.send("(issue.cl\t\t").unwrap();
    p.session.flush().unwrap();
    p.expect("issue.claim_next");
    p.expect("issue.close");
    p.cancel_line();
    p.quit();
}

#[test]
fn pty_ctrl_d_on_an_empty_line_leaves() {
    let s = Test::new();
    let mut p = Pty::start(&s, &["--json"]);
    p.enter("(+ 1 1)");
    p.expect("\"value\": 2");
    p.prompt();
    p.session.send_control('d').unwrap();
    p.session.exp_eof().expect("exit on Ctrl-D");
    assert_exit_0(&mut p.session);
}

// ---- scripted (stdin is not a terminal) ----

fn script(s: &Test, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut all = vec!["repl"];
    all.extend_from_slice(args);
    let out = s.tusk(&all).stdin(stdin).run();
    (
        out.status.code().expect("exited by signal"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn script_prints_one_result_per_form() {
    let s = Test::new();
    let (code, out, err) = script(
        &s,
        &[],
        "(define x 41)\n(+ x 1) (display \"hi\")\n; a comment\n(define (f n)\n  (* n 2))\n(f 21)\n",
    );
    assert_eq!(code, 0, "{out}\n{err}");
    // A definition says what it defined (its value is null; issue 49).
    assert_eq!(out, "; defined x\n=> 42\nhi\n=> null\n; defined f\n=> 42\n");
}

#[test]
fn script_json_lines_share_one_session_id_in_the_effect_log() {
    let s = Test::new();
    let (code, out, err) = script(&s, &["--json"], "(define x 1)\n(issue.ready)\n(+ x 1)\n");
    assert_eq!(code, 0, "{err}");
    let results = json_lines(&out);
    assert_eq!(results.len(), 3);
    let sid = results[0]["sessionId"].as_str().unwrap().to_string();
    assert!(sid.starts_with("session-"));
    for r in &results {
        assert_eq!(r["kind"], "premath.scheme_eval.result.v0");
        assert_eq!(r["sessionId"], sid.as_str());
    }
    assert_eq!(results[2]["value"], 2);
    assert_eq!(results[1]["effects"][0]["action"], "issue.ready");

    let log = s.jsonl(".premath/host_effects.jsonl");
    let headers: Vec<&Value> = log
        .iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .collect();
    let programs: Vec<&str> = headers
        .iter()
        .map(|h| h["program"].as_str().unwrap())
        .collect();
    assert_eq!(programs, ["(define x 1)", "(issue.ready)", "(+ x 1)"]);
    for (h, r) in headers.iter().zip(&results) {
        assert_eq!(h["sessionId"], sid.as_str());
        assert_eq!(h["runId"], r["runId"]);
        assert!(h.get("sessionReset").is_none());
    }
    assert!(
        log.iter()
            .all(|row| row["kind"] == "premath.host_effect.row.v0"
                || row["sessionId"] == sid.as_str())
    );
}

#[test]
fn script_rejections_and_an_unbalanced_last_form_exit_1() {
    let s = Test::new();
    let (code, out, _) = script(&s, &[], "(+ 1 2)\n(car 1)\n");
    assert_eq!(code, 1);
    assert!(
        out.starts_with("=> 3\nerror: scheme_eval.runtime_error"),
        "{out}"
    );

    let (code, out, _) = script(&s, &["--json"], "(+ 1 2)\n(list 1\n  (+ 2 3)\n");
    assert_eq!(code, 1);
    let results = json_lines(&out);
    assert_eq!(results.len(), 2, "{out}");
    assert_eq!(results[1]["result"], "rejected");
    assert_eq!(
        classes(&results[1]),
        ["scheme_eval.invalid_program".to_string()]
    );
    let log = s.jsonl(".premath/host_effects.jsonl");
    let last_header = log
        .iter()
        .rev()
        .find(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .unwrap();
    assert_eq!(last_header["program"], "(list 1\n  (+ 2 3)");

    let (code, out, _) = script(&s, &[], "\"never closed\n");
    assert_eq!(code, 1);
    assert!(out.contains("error: scheme_eval.invalid_program"), "{out}");
}

#[test]
fn script_commands_limits_policy_effects_json() {
    let s = Test::new();
    let (code, out, err) = script(
        &s,
        &["--timeout-ms", "1234", "--max-calls", "7", "--read-only"],
        ":help\n:effects\n:limits\n(issue.ready)\n:effects 5\n:policy\n:json\n(+ 1 1)\n:limits\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  :load FILE     run each top-level form of FILE"),
        "{out}"
    );
    assert!(out.contains("no host calls in this session yet\n"), "{out}");
    assert!(
        out.contains("timeout        1234 ms\nhost calls     7\n"),
        "{out}"
    );
    assert!(
        out.contains("run 1   call-1 issue.ready → accepted"),
        "{out}"
    );
    assert!(
        out.contains("mutations       none registered (read-only)"),
        "{out}"
    );
    // From `:json` on, every line is one JSON object, the toggle's included.
    let json_part = &out[out
        .find("{\"command\":\"json\"")
        .expect("json toggle reported")..];
    let tail: Vec<Value> = json_lines(json_part);
    assert_eq!(tail[0]["json"], true);
    assert_eq!(tail[1]["value"], 2);
    assert_eq!(tail[2]["command"], "limits");
    assert_eq!(tail[2]["limits"]["timeoutMs"], 1234);

    let (code, _, err) = script(&s, &[], ":frobnicate\n(+ 1 1)\n");
    assert_eq!(code, 1);
    assert!(err.contains("unknown command `:frobnicate`"), "{err}");
}

#[test]
fn script_policy_reports_authority_and_mutations_pass_with_it() {
    let s = Test::new();
    let digest_out = s.run(&["policy", "digest"]);
    let digest = String::from_utf8(digest_out.stdout)
        .unwrap()
        .trim()
        .to_string();
    let (code, out, err) = script(
        &s,
        &[
            "--json",
            "--policy-digest",
            &digest,
            "--instruction-ref",
            "instr://repl-test",
        ],
        ":policy\n(issue.add (hash \"title\" \"From the REPL\"))\n",
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let lines = json_lines(&out);
    assert_eq!(lines[0]["command"], "policy");
    assert_eq!(lines[0]["evidence"]["policyDigestMatches"], true);
    assert_eq!(lines[0]["evidence"]["instructionRef"], "instr://repl-test");
    assert_eq!(
        lines[0]["verdict"],
        "mutations the policy allows will be admitted"
    );
    assert_eq!(lines[1]["effects"][0]["resultClass"], "accepted");
    let issues = s.jsonl(".premath/issues.jsonl");
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0]["title"], "From the REPL");

    // Without the evidence the same mutation is rejected, and :policy says why.
    let (code, out, _) = script(&s, &[], ":policy\n(issue.add (hash \"title\" \"No\"))\n");
    assert_eq!(code, 1);
    assert!(out.contains("mutation.use_evidence_missing"), "{out}");
    assert_eq!(s.jsonl(".premath/issues.jsonl").len(), 1);
}

#[test]
fn script_load_runs_each_form_and_reset_drops_definitions() {
    let s = Test::new();
    s.write(
        "lib.scm",
        "; helpers\n(define (inc n) (+ n 1))\n\n(define base 40)\n(inc (inc base))\n",
    );
    let (code, out, err) = script(
        &s,
        &["--json", "--load-root", "."],
        ":load lib.scm\n(inc base)\n:reset\n(inc 1)\n:load missing.scm\n",
    );
    assert_eq!(code, 1, "the missing file fails the script: {out}\n{err}");
    assert!(err.contains("cannot read missing.scm"), "{err}");
    let lines = json_lines(&out);
    assert_eq!(lines[2]["value"], 42);
    assert_eq!(lines[3]["value"], 41);
    assert_eq!(lines[4]["command"], "reset");
    assert_eq!(lines[5]["result"], "rejected");
    assert!(
        lines[5]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("inc"),
        "{}",
        lines[5]
    );

    let log = s.jsonl(".premath/host_effects.jsonl");
    let headers: Vec<&Value> = log
        .iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0")
        .collect();
    let programs: Vec<&str> = headers
        .iter()
        .map(|h| h["program"].as_str().unwrap())
        .collect();
    assert_eq!(
        programs,
        [
            "(define (inc n) (+ n 1))",
            "(define base 40)",
            "(inc (inc base))",
            "(inc base)",
            "(inc 1)"
        ]
    );
    // The first run after :reset says so, for a replay of the session.
    let resets: Vec<bool> = headers.iter().map(|h| h["sessionReset"] == true).collect();
    assert_eq!(resets, [false, false, false, false, true]);
    // Replay drops the definitions at the same point: `(inc 1)` fails again.
    let out = s.run(&["replay"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("5 run(s): 5 parity, 0 not"), "{text}");

    // Text mode names the file and line of each loaded form.
    let (code, out, _) = script(&s, &["--load-root", "."], ":load lib.scm\n");
    assert_eq!(code, 0);
    assert!(
        out.starts_with(
            "; lib.scm:2\n; defined inc\n; lib.scm:4\n; defined base\n; lib.scm:5\n=> 42\n"
        ),
        "{out}"
    );
}

#[test]
fn script_setup_failures_exit_2() {
    let s = Test::new();
    s.write("bad_policy.json", "{\"schema\": 2}");
    // No stdin: the session must fail before reading any.
    let (code, out, err) = script(&s, &["--policy", "bad_policy.json"], "");
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("tusk repl:"), "{err}");
    s.write("join.json", "{\"not\": \"evidence\"}");
    let (code, _, err) = script(&s, &["--join-evidence", "join.json"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("join evidence"), "{err}");
    assert!(!s.path(".premath/host_effects.jsonl").exists());
}

#[test]
fn script_sigint_stops_the_running_form_and_the_script() {
    let s = Test::new();
    let mut child = s.tusk(&["repl", "--json", "--timeout-ms", "60000"]).spawn();
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        stdin
            .write_all(b"(+ 1 1)\n(let loop () (loop))\n(+ 2 2)\n")
            .unwrap();
    }
    // The first result means the session is up and the loop comes next.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    drop(child.stdin.take());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(130));
    let results = json_lines(&format!("{first}{rest}"));
    assert_eq!(
        results.len(),
        2,
        "the form after the interrupted one does not run"
    );
    assert_eq!(results[0]["value"], 2);
    assert_eq!(
        classes(&results[1]),
        ["scheme_eval.interrupted".to_string()]
    );
}

// ---- debugging a recorded run (`tusk repl --run`, issue 47) ----

/// A copy of `.premath/`'s store files under `rel`, for `:live`.
fn snapshot(s: &Test, rel: &str) -> String {
    std::fs::create_dir_all(s.path(rel)).unwrap();
    for name in ["issues.jsonl", "mutation_policy.json"] {
        let from = s.path(&format!(".premath/{name}"));
        if from.exists() {
            std::fs::copy(from, s.path(&format!("{rel}/{name}"))).unwrap();
        }
    }
    rel.to_string()
}

/// Three open issues on files.
fn three_issues() -> Test {
    let s = Test::on_files();
    for title in ["one", "two", "three"] {
        assert!(s.run(&["issue", "add", title]).status.success());
    }
    s
}

/// `tusk replay --session SID --json`: the debugging session replays.
fn assert_session_replays(s: &Test, sid: &str, forms: usize) {
    let out = s.run(&["replay", "--json", "--session", sid]);
    let set: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{set:#}");
    assert_eq!(set["runCount"], forms, "{set:#}");
}

/// The forms the debugging session recorded: each header names the run.
fn debug_forms(s: &Test, sid: &str, run: &str) -> Vec<Value> {
    let forms: Vec<Value> = s
        .jsonl(".premath/host_effects.jsonl")
        .into_iter()
        .filter(|r| r["kind"] == "premath.scheme_eval.run.v0" && r["sessionId"] == sid)
        .collect();
    for form in &forms {
        assert_eq!(form["debugOf"]["runId"], run, "{form:#}");
    }
    forms
}

#[test]
fn pty_debugs_a_recorded_failing_run_step_eval_rerun_live() {
    let s = three_issues();
    let snap = snapshot(&s, "snap");
    let digest = s.policy_digest();
    let program = r#"(define (target) "bd-1")
(define ready (issue.ready))
(define shown (issue.show (hash "id" (target))))
(define claimed (issue.claim_next (hash "assignee" "agent.a")))
(hash-ref (payload shown) "nope")"#;
    let (code, recorded) = s.eval(
        program,
        &["--policy-digest", &digest, "--instruction-ref", "instr://t"],
    );
    assert_eq!((code, &recorded["result"]), (1, &Value::from("rejected")));
    let run = recorded["runId"].as_str().unwrap().to_string();
    let store = s.store_bytes();
    let snap_bytes = std::fs::read(s.path("snap/issues.jsonl")).unwrap();

    let mut p = Pty::start(&s, &["--run", &run]);
    assert!(
        p.opening.contains(&format!(
            "debugging run {run} (3 host call(s) recorded, rejected)"
        )),
        "{}",
        p.opening
    );
    // Before its first call, then its second: the recorded envelope shown.
    p.enter(":step");
    p.expect("stopped before call 1 of 3: issue.ready");
    p.prompt();
    // One line per call (issue 60); `:show` gives the whole envelope.
    p.enter(":step");
    p.expect(
        r#"stopped before call 2 of 3: issue.show {"id":"bd-1"} → recorded accepted · :show 2 for its envelope"#,
    );
    p.prompt();
    p.enter(":show");
    p.expect("call 2 of 3: issue.show");
    p.expect(r#"args {"id":"bd-1"}"#);
    p.expect("recorded envelope (what the program is given):");
    p.expect(r#""callId": "call-2""#);
    p.expect(r#""title": "one""#);
    p.prompt();
    // The run's environment: what it defined before call 2, with call 1's
    // recorded answer.
    p.enter(r#"(list (target) (hash-ref (payload ready) "count"))"#);
    p.expect(r#"=> ["bd-1",3]"#);
    p.prompt();
    // A redefinition, and the run again: call 1 from the record, call 2 parts.
    p.enter(r#"(define (target) "bd-2")"#);
    p.expect("; defined target");
    p.prompt();
    p.enter(":rerun");
    p.expect("the run parts from the record at call 2 (issue.show)");
    p.expect("first difference at call 2: argsDigest: ");
    p.expect(r#"at id: "bd-1" vs "bd-2""#);
    p.prompt();
    // From there on, against a copy of the snapshot: the claim is made there.
    p.enter(&format!(":live {snap}"));
    p.expect("live from call 2");
    p.prompt();
    p.enter(":break issue.claim_next");
    p.expect("breakpoints: issue.claim_next");
    p.prompt();
    p.enter(":continue");
    p.expect("stopped before call 3 of 3: issue.claim_next");
    p.prompt();
    p.enter(r#"(hash-ref* (payload shown) "issue" "title")"#);
    p.expect(r#"=> "two""#);
    p.prompt();
    p.enter(":continue");
    p.expect("the run ended after 3 host call(s)");
    p.expect("issue.claim_next → accepted");
    p.expect(r#"key not found: "nope""#);
    p.prompt();
    p.enter(r#"(hash-ref (payload claimed) "claimed")"#);
    p.expect("=> true");
    p.prompt();
    let sid = p.sid.clone();
    p.quit();

    // Neither the real store nor the snapshot was written.
    assert!(s.store_bytes() == store, "the real store was written");
    assert!(
        std::fs::read(s.path("snap/issues.jsonl")).unwrap() == snap_bytes,
        "the snapshot was written"
    );
    let forms = debug_forms(&s, &sid, &run);
    assert_eq!(forms.len(), 4);
    assert_eq!(forms[0]["debugOf"]["stoppedBefore"], 2);
    assert_eq!(
        forms[2]["debugOf"]["patches"][0],
        r#"(define (target) "bd-2")"#
    );
    assert_eq!(forms[3]["debugOf"]["live"]["fromCall"], 2);
    assert_session_replays(&s, &sid, 4);
}

/// The debugger's second day (issue 60): a step is one line, `:show N`
/// the whole envelope, `:final` replaces the final expression, and `:save`
/// writes the program as patched, which then runs.
#[test]
fn a_patched_final_expression_runs_and_the_program_is_saved() {
    let s = three_issues();
    let digest = s.policy_digest();
    let auth = [
        "--policy-digest",
        digest.as_str(),
        "--instruction-ref",
        "instr://t",
    ];
    let program = r#"(define (target) "bd-1")
(define shown (issue.show (hash "id" (target))))
(hash-ref (payload shown) "nope")"#;
    let (code, recorded) = s.eval(program, &auth);
    assert_eq!(code, 1, "{recorded}");
    let run = recorded["runId"].as_str().unwrap();
    let (code, out, err) = script(
        &s,
        &["--run", run, "--load-root", "."],
        concat!(
            ":step\n",
            ":show 5\n",
            ":final (define z 1)\n",
            ":final (a) (b\n",
            ":final (hash-ref* (payload shown) \"issue\" \"title\")\n",
            ":rerun\n",
            "(target)\n",
            ":save fixed.scm\n",
            ":save ../outside.scm\n",
            ":save .premath\n",
        ),
    );
    assert_eq!(code, 1, "{out}\n{err}");
    let step = out
        .lines()
        .filter(|l| l.starts_with("stopped before call 1 of 1"))
        .collect::<Vec<_>>();
    assert_eq!(
        step,
        [
            r#"stopped before call 1 of 1: issue.show {"id":"bd-1"} → recorded accepted · :show 1 for its envelope"#
        ],
        "{out}"
    );
    assert!(
        err.contains("no such call: the run recorded 1 host call(s)"),
        "{err}"
    );
    assert!(err.contains(":final: that is a definition"), "{err}");
    assert!(
        err.contains(":final: 1 form(s) and an unclosed one"),
        "{err}"
    );
    assert!(
        out.contains("the program's final expression is now"),
        "{out}"
    );
    assert!(out.contains("the run ended after 1 host call(s)"), "{out}");
    assert!(out.contains(r#"=> "one""#), "{out}");
    assert!(out.contains("saved the program (3 form(s)"), "{out}");
    assert!(
        err.contains(":save: ../outside.scm is outside the load root"),
        "{err}"
    );
    assert!(
        err.contains(":save: .premath is not a regular file"),
        "{err}"
    );
    assert!(!s.path("../outside.scm").exists());
    // The saved program is the patched one, and it runs.
    let saved = s.read("fixed.scm");
    assert!(
        saved.contains(r#"(hash-ref* (payload shown) "issue" "title")"#),
        "{saved}"
    );
    assert!(!saved.contains(r#""nope""#), "{saved}");
    let (code, fixed) = s.eval(&saved, &auth);
    assert_eq!((code, &fixed["value"]), (0, &Value::from("one")), "{fixed}");
    // The form typed after `:final` met the patched program's environment:
    // replay rebuilds it from the header's patches, with parity.
    let replay = s.tusk(&["replay", "--json"]).run();
    assert_eq!(replay.json()["parity"], true, "{}", replay.stdout());
}

#[test]
fn pty_debugs_a_sessions_third_form_with_its_earlier_definitions() {
    let s = three_issues();
    let snap = snapshot(&s, "snap");
    let (_, results) = crate::observe::mcp_session(
        &s,
        &[
            "(define me \"agent.a\")",
            "(define (first-ready) (hash-ref (payload (issue.ready)) \"count\"))",
            "(list me (first-ready) (hash-ref (hash) \"lease\"))",
        ],
    );
    assert_eq!(results[2]["result"], "rejected", "{:#}", results[2]);
    let run = results[2]["runId"].as_str().unwrap().to_string();
    let store = s.store_bytes();

    let mut p = Pty::start(&s, &["--run", &run]);
    assert!(
        p.opening.contains("form 3 of session mcp-"),
        "{}",
        p.opening
    );
    // The session's earlier forms ran: their definitions are there.
    p.enter("(string-append me \"!\")");
    p.expect(r#"=> "agent.a!""#);
    p.prompt();
    p.enter(":step");
    p.expect("stopped before call 1 of 1: issue.ready (none) → recorded accepted");
    p.prompt();
    p.enter(":show 1");
    p.expect(r#""count": 3"#);
    p.prompt();
    // A definition of an earlier form's, retyped: the run parts at call 1.
    p.enter("(define (first-ready) (hash-ref (payload (issue.list)) \"count\"))");
    p.expect("; defined first-ready");
    p.prompt();
    p.enter(":rerun");
    p.expect("the run parts from the record at call 1 (issue.list)");
    p.expect(r#"first difference at call 1: action: "issue.ready" vs "issue.list""#);
    p.prompt();
    p.enter(&format!(":live {snap}"));
    p.expect("live from call 1");
    p.prompt();
    p.enter(":continue");
    p.expect("the run ended after 1 host call(s)");
    p.expect("issue.list → accepted");
    p.expect(r#"key not found: "lease""#);
    p.prompt();
    let sid = p.sid.clone();
    p.quit();

    assert!(s.store_bytes() == store, "the real store was written");
    let forms = debug_forms(&s, &sid, &run);
    assert_eq!(forms.len(), 2);
    assert_eq!(forms[0]["debugOf"]["stoppedBefore"], 0);
    assert_session_replays(&s, &sid, 2);
}

#[test]
fn debugging_errors_say_what_to_do() {
    let s = Test::on_files();
    let (code, recorded) = s.eval("(+ 1 2)", &[]);
    assert_eq!(code, 0);
    let run = recorded["runId"].as_str().unwrap();
    // An unknown run: not started, and how to list the runs.
    let (code, _, err) = script(&s, &["--run", "run-nope"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no run run-nope in the effect log"), "{err}");
    assert!(err.contains("tusk replay --verify"), "{err}");
    // Debugging commands with no run open.
    for command in [
        ":step",
        ":continue",
        ":rerun",
        ":break issue.list",
        ":live snap",
    ] {
        let (code, _, err) = script(&s, &[], &format!("{command}\n"));
        assert_eq!(code, 1, "{command}: {err}");
        assert!(err.contains("`:open RUN` first"), "{command}: {err}");
    }
    std::fs::create_dir_all(s.path("snap")).unwrap();
    let (code, out, err) = script(
        &s,
        &["--load-root", "."],
        &format!(":open\n:open run-nope\n:open {run}\n:live nowhere\n:live ..\n:continue\n:step\n"),
    );
    assert_eq!(code, 1);
    assert!(err.contains("usage: :open RUN"), "{err}");
    assert!(err.contains(":open: no run run-nope"), "{err}");
    assert!(err.contains("snapshot nowhere: No such file"), "{err}");
    assert!(
        err.contains("snapshot .. is outside the load root"),
        "{err}"
    );
    assert!(out.contains("the run ended after 0 host call(s)"), "{out}");
    assert!(out.contains("=> 3"), "{out}");
    assert!(err.contains("the run has ended"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A scripted session reads no snapshot unless the operator said where.
    let (code, _, err) = script(&s, &["--run", run], ":live snap\n");
    assert_eq!(code, 1);
    assert!(
        err.contains("start tusk repl with --load-root DIR"),
        "{err}"
    );
}

/// Issue 59: `:atomic on` makes each next form all or nothing, `dry-run`
/// shows each form's plan and changes nothing, `off` lands call by call;
/// `:atomic` alone says which is set; replay keeps parity over the session.
#[test]
fn script_atomic_sets_how_each_next_form_lands() {
    let s = Test::new();
    s.run(&["issue", "add", "First"]);
    let digest = s.policy_digest();
    let failing = "(begin (issue.update (hash \"id\" \"bd-1\" \"priority\" 0)) (car (list)))";
    let stdin = format!(
        ":atomic\n:atomic on\n{failing}\n:atomic dry-run\n(issue.update (hash \"id\" \"bd-1\" \"priority\" 1))\n:atomic off\n{failing}\n:atomic sometimes\n"
    );
    let (code, out, err) = script(
        &s,
        &[
            "--json",
            "--policy-digest",
            &digest,
            "--instruction-ref",
            "instr://repl-atomic",
        ],
        &stdin,
    );
    assert_eq!(code, 1, "{out}\n{err}");
    let lines = json_lines(&out);
    assert_eq!(lines[0]["atomic"], "off");
    assert_eq!(lines[1]["atomic"], "on");
    assert_eq!(lines[2]["commit"]["outcome"], "aborted", "{}", lines[2]);
    assert_eq!(lines[3]["atomic"], "dry-run");
    assert_eq!(lines[4]["commit"]["outcome"], "dryRun", "{}", lines[4]);
    assert_eq!(
        lines[4]["plan"]["changes"][0]["fields"]["priority"],
        serde_json::json!({"before": 2, "after": 1})
    );
    assert_eq!(lines[5]["atomic"], "off");
    assert!(lines[6].get("commit").is_none(), "{}", lines[6]);
    // Only the form run call by call landed.
    assert_eq!(s.stored("bd-1")["priority"], 0);
    assert!(err.contains("usage: :atomic [on | off | dry-run]"), "{err}");
    let replay = s.tusk(&["replay", "--json"]).run().json();
    assert_eq!(replay["parity"], true, "{replay:#}");
}

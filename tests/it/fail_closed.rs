//! Fail closed (issue 45): a named configuration file that does not exist
//! is an error, never a default; files under `.premath/` are opened as
//! files; a record that cannot be written fails the call before the
//! mutation; graph walks survive any depth.

use crate::common::*;

const MISSING_POLICY: &str = "/nonexistent/mutation_policy.json";

#[test]
fn a_named_policy_that_does_not_exist_is_an_error_everywhere() {
    let t = Test::on_files().issues(&[issue("bd-1")]);
    let digest = t.policy_digest();
    let before = t.store_text();

    // `policy digest`: exit 2, the path, the class under --json.
    let run = t
        .run(&["policy", "digest", "--policy", MISSING_POLICY])
        .status(2);
    assert!(run.stdout().is_empty(), "{run:?}");
    assert!(run.stderr().contains(MISSING_POLICY), "{run:?}");
    let (code, v) = t
        .run(&["policy", "digest", "--policy", MISSING_POLICY, "--json"])
        .reply();
    assert_eq!(code, 2);
    assert_eq!(v["class"], "config.file_not_found", "{v}");
    assert!(v["message"].as_str().unwrap().contains(MISSING_POLICY));

    // `eval` with the built-in digest: nothing runs, nothing is written.
    t.write("add.scm", r#"(issue.add (hash "title" "sneaked in"))"#);
    let (code, v) = t
        .tusk(&["eval", "--json", "add.scm", "--policy", MISSING_POLICY])
        .args(["--policy-digest", &digest, "--instruction-ref", "x"])
        .run()
        .reply();
    assert_eq!(code, 2, "{v}");
    assert_eq!(v["class"], "config.file_not_found", "{v}");
    assert_eq!(t.store_text(), before, "the store must be untouched");
    assert!(!t.path(".premath/host_effects.jsonl").exists());

    // `doctor` fails the policy check and names the fix.
    let (code, v) = t
        .run(&["doctor", "--json", "--policy", MISSING_POLICY])
        .reply();
    assert_eq!(code, 1, "{v}");
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "policy")
        .unwrap_or_else(|| panic!("no policy check: {v}"));
    assert_eq!(check["status"], "fail", "{check}");
    assert!(check["message"].as_str().unwrap().contains(MISSING_POLICY));

    // The servers and the REPL do not start; print-config gives no digest.
    for args in [
        vec!["mcp", "--policy", MISSING_POLICY],
        vec!["repl", "--policy", MISSING_POLICY],
        vec![
            "mcp",
            "--print-config",
            "claude",
            "--with-authority",
            "--policy",
            MISSING_POLICY,
        ],
    ] {
        let run = t.run(&args).status(2);
        assert!(run.stderr().contains(MISSING_POLICY), "{run:?}");
    }
    assert_eq!(t.store_text(), before);
}

#[test]
fn the_default_policy_location_may_be_absent_and_says_so() {
    let t = Test::on_files();
    let run = t.run(&["policy", "digest"]).status(0);
    assert!(run.stdout().trim().starts_with("pol1_"), "{run:?}");
    assert!(
        run.stderr().contains("built-in default is active"),
        "{run:?}"
    );
    let v = t.run(&["policy", "digest", "--json"]).status(0).json();
    assert!(v["source"].is_null(), "{v}");
}

/// A repository can carry symlinks: `.premath/host_effects.jsonl` pointing
/// at a shell rc file had every run append to it, and a lock file planted as
/// a symlink made tusk create a file at its target. Every file of tusk's is
/// now opened without following a final symlink (or checked before a
/// rename), and `tusk doctor` names the link.
#[test]
fn files_behind_symlinks_are_refused_and_their_targets_untouched() {
    use std::os::unix::fs::symlink;
    let t = Test::on_files().issues(&[issue("bd-1")]);
    let digest = t.policy_digest();
    let rc = t.write("outside/rc", "# a shell rc file\n");
    let session = r#"(harness.session.write (hash "state" "active" "summary" "s"))"#;
    let eval = |program: &str| {
        t.tusk(&["eval", "--json", "-", "--policy-digest", &digest])
            .args(["--instruction-ref", "instr://fail-closed"])
            .stdin(program)
            .run()
    };
    for (link, program) in [
        (".premath/host_effects.jsonl", "(issue.list)"),
        (".premath/harness_trajectory.jsonl", "(issue.list)"),
        (".premath/harness_session.json", session),
        (
            ".premath/issues.jsonl.lock",
            r#"(issue.add (hash "title" "x"))"#,
        ),
    ] {
        let at = t.path(link);
        let _ = std::fs::remove_file(&at);
        symlink(&rc, &at).unwrap();
        let run = eval(program);
        let said = format!("{}{}", run.stdout(), run.stderr());
        assert!(
            run.code() != 0 && said.contains("is a symbolic link"),
            "{link}: {run:?}"
        );
        assert_eq!(
            t.read("outside/rc"),
            "# a shell rc file\n",
            "{link}: written through"
        );
        let (code, v) = t.run(&["doctor", "--json"]).reply();
        assert_eq!(code, 1, "{v}");
        let files = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "files")
            .unwrap_or_else(|| panic!("no files check: {v}"))
            .clone();
        assert_eq!(files["status"], "fail", "{files}");
        assert!(
            files["message"]
                .as_str()
                .unwrap()
                .contains(link.trim_start_matches("./")),
            "{files}"
        );
        std::fs::remove_file(&at).unwrap();
    }
    // Planted locks pointing nowhere: nothing is created at their targets.
    let planted = t.path("outside/planted");
    for (lock, program) in [
        (
            ".premath/issues.jsonl.lock",
            r#"(issue.add (hash "title" "x"))"#,
        ),
        (".premath/harness_session.json.lock", session),
    ] {
        let at = t.path(lock);
        let _ = std::fs::remove_file(&at);
        symlink(&planted, &at).unwrap();
        let run = eval(program);
        assert_ne!(run.code(), 0, "{lock}: {run:?}");
        assert!(!planted.exists(), "{lock}: tusk created the link's target");
        std::fs::remove_file(&at).unwrap();
    }
    // The store itself behind a link: read and write refused, target intact.
    let store = t.path(ISSUES);
    let moved = t.path("outside/issues.jsonl");
    std::fs::rename(&store, &moved).unwrap();
    let before = std::fs::read(&moved).unwrap();
    symlink(&moved, &store).unwrap();
    for args in [
        vec!["issue", "list", "--json"],
        vec!["issue", "add", "y", "--json"],
    ] {
        let run = t.run(&args);
        assert_ne!(run.code(), 0, "{run:?}");
        assert!(run.stderr().contains("is a symbolic link"), "{run:?}");
    }
    assert_eq!(std::fs::read(&moved).unwrap(), before);
    assert!(std::fs::symlink_metadata(&store)
        .unwrap()
        .file_type()
        .is_symlink());
}

const TWO_CLOSES: &str = r#"(define a (issue.close (hash "id" "bd-1")))
(define b (issue.close (hash "id" "bd-2")))
(list (result-class a) (result-class b))"#;

/// Every line of a log file is whole (no torn row left behind).
fn whole_lines(path: &std::path::Path) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "a torn row: {text:?}"
    );
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("a line that is not a row ({e}): {line}"));
    }
}

/// The effect log on a full file system: before, two mutations landed in the
/// store, one with only a torn effect row, and the program was told
/// `accepted`. Now no mutation is made without room for its rows, the
/// program is told `record.unwritable`, and no torn row is left.
#[test]
fn a_full_disk_refuses_the_mutation_before_it_is_made() {
    let t = Test::on_files().issues(&[issue("bd-1"), issue("bd-2")]);
    let digest = t.policy_digest();
    let before = t.store_text();
    std::fs::create_dir_all(t.path("logs")).unwrap();
    t.write("two.scm", TWO_CLOSES);
    // A private mount namespace: a 16 KiB tmpfs, 12,000 bytes of it taken.
    let script = format!(
        "mount -t tmpfs -o size=16k tmpfs logs && head -c 12000 /dev/zero > logs/fill && \
         exec {} eval --json two.scm --effects logs/effects.jsonl --trajectory logs/t.jsonl \
         --policy-digest {digest} --instruction-ref instr://full",
        BIN
    );
    let out = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .current_dir(t.dir())
        .env_remove("TUSK_STORE")
        .output()
        .expect("unshare (util-linux) runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(v["result"], "rejected", "{v}");
    assert_eq!(
        v["value"],
        serde_json::json!(["record.unwritable", "record.unwritable"]),
        "{v}"
    );
    let first = &v["effects"][0];
    assert!(
        first["payload"]["diagnostic"]
            .as_str()
            .is_some_and(|d| d.contains("was not made") || d.contains("did not run")),
        "{first}"
    );
    assert_eq!(t.store_text(), before, "a mutation landed without its rows");
}

/// A file-size limit (RLIMIT_FSIZE) that leaves no room for a row: the
/// mutation is refused before it is made, the host is not killed by
/// SIGXFSZ, and the logs hold only whole rows.
#[test]
fn a_file_size_limit_refuses_the_mutation_and_leaves_whole_rows() {
    use std::os::unix::process::CommandExt;
    let t = Test::on_files().issues(&[issue("bd-1"), issue("bd-2")]);
    let digest = t.policy_digest();
    // Logs that exist and are larger than the store.
    t.tusk(&["eval", "-"])
        .stdin("(issue.list) (issue.ready)")
        .run()
        .status(0);
    let effects = t.path(".premath/host_effects.jsonl");
    let trajectory = t.path(TRAJECTORY);
    let limit = [&effects, &trajectory, &t.path(ISSUES)]
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .max()
        .unwrap()
        + 4096;
    let before = t.store_text();
    let mut cmd = t
        .tusk(&["eval", "--json", "-", "--policy-digest", &digest])
        .args(["--instruction-ref", "instr://fsize"])
        .command();
    // SAFETY: setrlimit between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &rl) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(TWO_CLOSES.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["value"],
        serde_json::json!(["record.unwritable", "record.unwritable"]),
        "{v}"
    );
    assert_eq!(t.store_text(), before, "a mutation landed without its rows");
    whole_lines(&effects);
    whole_lines(&trajectory);
}

/// A chain `bd-1 → bd-2 → … → bd-N` of blocking edges.
fn chain(n: usize) -> Vec<serde_json::Value> {
    (1..=n)
        .map(|i| {
            let id = format!("bd-{i}");
            match i < n {
                true => issue_with(
                    &id,
                    serde_json::json!({"dependencies": [blocks(&id, &format!("bd-{}", i + 1))]}),
                ),
                false => issue(&id),
            }
        })
        .collect()
}

/// A read-only caller asking `dep.tree` for a huge `maxDepth` on a long
/// chain overflowed the host's stack (the shared HTTP server at 4,000
/// issues, stdio at 5,000, the CLI at 20,000). The depth is bounded (50)
/// and refused above it with the fix; every process lives.
#[test]
fn a_deep_chain_is_walked_within_bounds_and_kills_nothing() {
    let _heavy = crate::common::heavy();
    let t = Test::on_files().issues(&chain(100_000));
    // The CLI: refused with the bound named, then answered at the bound.
    let run = t.run(&["dep", "tree", "bd-1", "--max-depth", "100000", "--json"]);
    let (code, v) = run.reply();
    assert_eq!(code, 1, "{v}");
    assert_eq!(
        v["failureClasses"],
        serde_json::json!(["host.args_invalid"])
    );
    assert!(
        v["diagnostic"].as_str().unwrap().contains("at most 50"),
        "{v}"
    );
    let v = t
        .run(&[
            "dep",
            "tree",
            "bd-100000",
            "--direction",
            "up",
            "--max-depth",
            "50",
            "--json",
        ])
        .status(0)
        .json();
    assert_eq!(v["nodes"], 51, "{}", &v.to_string()[..200]);
    // The stdio server, read-only: refused, then it goes on serving.
    let mut requests = mcp_handshake("deep");
    for (id, depth) in [(1, 100_000), (2, 50)] {
        requests.push(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "scheme_eval", "arguments": {"program": format!(
                r#"(define t (dep.tree (hash "id" "bd-1" "maxDepth" {depth})))
                   (list (result-class t) (hash-ref* (payload t) "nodes"))"#)}}}),
        );
    }
    let mut cmd = t.tusk(&["mcp", "--read-only"]).command();
    let replies = jsonrpc_stdio(&mut cmd, &requests);
    let value = |r: &serde_json::Value| r["result"]["structuredContent"]["value"].clone();
    assert_eq!(
        value(&replies[1]),
        serde_json::json!(["host.args_invalid", false]),
        "{}",
        replies[1]
    );
    assert_eq!(
        value(&replies[2]),
        serde_json::json!(["accepted", 51]),
        "{}",
        replies[2]
    );
}

/// A ladder of diamonds (each level's two issues depend on both of the
/// next): 2^depth paths. The tree stops at its node budget and says so.
#[test]
fn a_graph_of_diamonds_stops_at_the_node_budget() {
    let levels = 40;
    let mut issues = Vec::new();
    for l in 0..levels {
        for side in ["a", "b"] {
            let id = format!("{side}{l}");
            let below: Vec<serde_json::Value> = match l + 1 < levels {
                true => ["a", "b"]
                    .iter()
                    .map(|o| blocks(&id, &format!("{o}{}", l + 1)))
                    .collect(),
                false => Vec::new(),
            };
            issues.push(issue_with(&id, serde_json::json!({"dependencies": below})));
        }
    }
    let t = Test::on_files().issues(&issues);
    let v = t
        .run(&["dep", "tree", "a0", "--max-depth", "50", "--json"])
        .status(0)
        .json();
    assert_eq!(v["nodes"], 10_000, "{}", &v.to_string()[..300]);
    assert_eq!(v["nodeLimitReached"], true);
}

/// Issue 55: a walk's size is bounded by its node count, not its titles:
/// one 200 KB title that many paths reach is given once (its later
/// appearances are `repeat`), so a read-only `dep.tree` writes a small
/// effect row; and no mutation gives an issue a title over 500 characters.
#[test]
fn a_walk_gives_each_title_once_and_titles_are_bounded() {
    let long = "T".repeat(200_000);
    let mut issues = vec![issue_with("hub", serde_json::json!({"title": long}))];
    let mut below = Vec::new();
    for i in 0..200 {
        let id = format!("m{i}");
        issues.push(issue_with(
            &id,
            serde_json::json!({"dependencies": [blocks(&id, "hub")]}),
        ));
        below.push(blocks("root", &id));
    }
    issues.push(issue_with(
        "root",
        serde_json::json!({"dependencies": below}),
    ));
    let t = Test::on_files().issues(&issues);
    let r = t.eval_with_authority(r#"(hash-ref (payload (dep.tree (hash "id" "root"))) "nodes")"#);
    assert_eq!(r["value"], 401, "{r}");
    let log = t.log_text(".premath/host_effects.jsonl");
    assert!(
        log.len() < 2_000_000,
        "the effect log is {} bytes",
        log.len()
    );
    assert_eq!(
        log.matches(&long).count(),
        1,
        "the title is in the row more than once"
    );
    let tree = t.run(&["dep", "tree", "root", "--json"]).status(0).json();
    let hubs: Vec<&serde_json::Value> = tree["tree"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["children"][0])
        .collect();
    assert_eq!(hubs[0]["title"], long.as_str());
    assert_eq!(hubs[1]["title"], serde_json::Value::Null);
    assert_eq!(hubs[1]["repeat"], true);
    // A title of 501 characters is refused, by the host and the command line.
    let r = t.eval_with_authority(&format!(
        r#"(issue.update (hash "id" "m1" "title" "{}"))"#,
        "x".repeat(501)
    ));
    assert_eq!(r["effects"][0]["resultClass"], "issue.invalid_title", "{r}");
    assert!(r.to_string().contains("at most 500"), "{r}");
    let out = t.run(&["issue", "add", &"y".repeat(501), "--json"]);
    assert_eq!(out.code(), 1, "{out:?}");
    assert!(out.stdout().contains("issue.invalid_title"), "{out:?}");
    let ok = t.run(&["issue", "add", &"y".repeat(500), "--json"]);
    assert_eq!(ok.code(), 0, "{ok:?}");
}

/// Issue 55: a store line nested deeper than any reader takes is refused as
/// corrupt, by every command, never a panic.
#[test]
fn a_deeply_nested_line_is_corrupt_everywhere() {
    let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
    let line = format!(
        r#"{{"id":"bd-1","title":"x","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","x":{deep}}}"#
    );
    let t = Test::on_files().issue_text(&format!("{line}\n"));
    for args in [
        vec!["issue", "update", "bd-1", "--notes", "n"],
        vec!["issue", "show", "bd-1"],
        vec!["issue", "list"],
        vec!["issue", "close", "bd-1"],
    ] {
        let out = t.run(&args);
        assert!(!out.stderr().contains("panicked"), "{args:?}: {out:?}");
        assert_ne!(out.code(), 101, "{args:?}");
        assert_ne!(out.code(), 0, "{args:?}: {out:?}");
        assert!(
            format!("{}{}", out.stdout(), out.stderr()).contains("nested more than 64 levels"),
            "{args:?}: {out:?}"
        );
    }
    let r = t.eval_with_authority(r#"(issue.show (hash "id" "bd-1"))"#);
    assert_eq!(
        r["effects"][0]["payload"]["cause"], "memory.store_corrupt",
        "{r}"
    );
    assert!(r.to_string().contains("nested more than 64 levels"), "{r}");
}

/// Issue 55: a link to `/dev/zero`, a FIFO or a link to a file elsewhere in
/// place of the policy (a cloned repository can carry one) is refused at
/// once by every command that reads it, named or default; so is a FIFO in
/// place of the store's lock file.
#[test]
fn a_policy_that_is_not_a_regular_file_is_refused_at_once() {
    let t = Test::on_files().issues(&[issue("bd-1")]);
    let policy = t.path(".premath/mutation_policy.json");
    let elsewhere = t.write(
        "outside/policy.json",
        r#"{"schema":1,"policyKind":"premath.mutation_policy.v1","allowedActions":[]}"#,
    );
    let fifo = t.path("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let commands: Vec<Vec<&str>> = vec![
        vec!["policy", "digest"],
        vec!["eval", "-"],
        vec!["doctor", "--json"],
        vec!["repl"],
        vec!["mcp"],
    ];
    for target in [
        std::path::Path::new("/dev/zero"),
        elsewhere.as_path(),
        fifo.as_path(),
    ] {
        let _ = std::fs::remove_file(&policy);
        std::os::unix::fs::symlink(target, &policy).unwrap();
        for args in &commands {
            let started = std::time::Instant::now();
            let out = t.tusk(args).stdin("(+ 1 2)\n").run();
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "{args:?} hung"
            );
            assert_ne!(out.code(), 0, "{target:?} {args:?}: {out:?}");
            let said = format!("{}{}", out.stdout(), out.stderr());
            assert!(
                said.contains("is a symbolic link"),
                "{target:?} {args:?}: {said}"
            );
        }
    }
    std::fs::remove_file(&policy).unwrap();
    for (named, what) in [
        ("/dev/zero", "is a device"),
        (fifo.to_str().unwrap(), "is a FIFO"),
    ] {
        for args in [
            vec!["policy", "digest", "--policy", named],
            vec!["eval", "-", "--policy", named],
        ] {
            let started = std::time::Instant::now();
            let out = t.tusk(&args).stdin("(+ 1 2)").run();
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "{args:?} hung"
            );
            assert_eq!(out.code(), 2, "{args:?}: {out:?}");
            assert!(out.stderr().contains(what), "{args:?}: {}", out.stderr());
        }
    }
    // A FIFO in place of the store's lock file: refused, not waited on.
    let lock = t.path(".premath/issues.jsonl.lock");
    let _ = std::fs::remove_file(&lock);
    assert!(std::process::Command::new("mkfifo")
        .arg(&lock)
        .status()
        .unwrap()
        .success());
    let started = std::time::Instant::now();
    let out = t.run(&["issue", "add", "x", "--lock-timeout-ms", "500"]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "the lock FIFO hung"
    );
    assert_ne!(out.code(), 0, "{out:?}");
    assert!(out.stderr().contains("is a FIFO"), "{}", out.stderr());
}

/// The resident size of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// After six 6 MB results, `tusk mcp` on stdio stayed at 56 MiB against a
/// 14 MiB idle baseline, 30 s later. Its resident size now comes back to
/// within twice the baseline within 5 s of going idle.
#[test]
fn the_server_gives_memory_back_after_large_results() {
    use std::io::{BufRead, Write};
    let _heavy = crate::common::heavy();
    let t = Test::on_files();
    let mut child = t
        .tusk(&["mcp"])
        .command()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut call = |id: Option<u64>, request: serde_json::Value| {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let Some(id) = id else {
            return serde_json::Value::Null;
        };
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            let reply: serde_json::Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == id {
                return reply;
            }
        }
    };
    let handshake = mcp_handshake("rss");
    call(Some(0), handshake[0].clone());
    call(None, handshake[1].clone());
    let eval = |id: u64, program: &str| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "scheme_eval", "arguments": {"program": program}}})
    };
    call(Some(1), eval(1, "(+ 1 2)"));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let base = rss_kib(child.id());
    for id in 10..16 {
        let reply = call(Some(id), eval(id, r"(make-string 6000000 #\a)"));
        assert!(
            reply["result"]["isError"] == false,
            "{}",
            &reply.to_string()[..300]
        );
    }
    let peak = rss_kib(child.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut now = peak;
    while std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(250));
        now = rss_kib(child.id());
        if now <= 2 * base {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        now <= 2 * base,
        "RSS {now} KiB 5 s after six 6 MB results (idle baseline {base} KiB, peak {peak} KiB)"
    );
}

/// The `actions` bound (512 ids, 64 KiB) held only after the ids were
/// looked up: 100,000 unknown ids were refused as `request.unknown_action`
/// with a 1.8 MB answer echoing them all. The bound is now checked on the
/// list as sent, and a refusal echoes at most 1 KiB of it.
#[test]
fn the_actions_bound_holds_on_the_raw_list_and_refusals_echo_little() {
    let t = Test::on_files();
    let call = |id: u64, actions: Vec<String>| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "scheme_eval", "arguments": {"program": "(+ 1 2)", "actions": actions}}})
    };
    let many: Vec<String> = (0..100_000).map(|i| format!("no.such_{i}")).collect();
    let over_count: Vec<String> = (0..600).map(|i| format!("x{i}")).collect();
    let long_unknown: Vec<String> = (0..300)
        .map(|i| format!("{i}{}", "y".repeat(100)))
        .collect();
    let mut requests = mcp_handshake("bounds");
    requests.push(call(1, many));
    requests.push(call(2, over_count));
    requests.push(call(3, long_unknown));
    requests.push(call(4, vec!["issue.ready".into()]));
    let mut cmd = t.tusk(&["mcp"]).command();
    let replies = jsonrpc_stdio(&mut cmd, &requests);
    let text = |r: &serde_json::Value| {
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    for (i, class) in [
        (1, "request.field_too_large"),
        (2, "request.field_too_large"),
        (3, "request.unknown_action"),
    ] {
        let reply = &replies[i];
        let size = reply.to_string().len();
        assert!(
            size < 4096,
            "reply {i} is {size} bytes: {}",
            &reply.to_string()[..300]
        );
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        assert!(text(reply).contains(class), "reply {i}: {}", text(reply));
    }
    assert!(
        text(&replies[1]).contains("100000 ids"),
        "{}",
        text(&replies[1])
    );
    assert!(text(&replies[3]).contains("more"), "{}", text(&replies[3]));
    assert_eq!(
        replies[4]["result"]["structuredContent"]["value"], 3,
        "{}",
        replies[4]
    );
}

/// A log written before the row chain: `tusk replay` says so on each run
/// and in its summary (before, only `--verify` did).
#[test]
fn replay_names_an_unchained_log() {
    let t = Test::on_files();
    t.tusk(&["eval", "-"]).stdin("(issue.list)").run().status(0);
    let path = t.path(".premath/host_effects.jsonl");
    let mut rows = read_jsonl(&path);
    unchain(&mut rows);
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let out = t.run(&["replay"]).status(0).stdout();
    assert!(out.contains("parity · unchained"), "{out}");
    assert!(out.contains("1 unchained"), "{out}");
}

/// Mermaid has no backslash escapes: an id holding `"` broke out of its
/// label (`"a\"]; click n0 …"`). Labels now carry every other character as
/// an entity code, so each line is one node or one edge, and the codes give
/// the ids back.
#[test]
fn mermaid_labels_cannot_be_broken_out_of() {
    let hostile = [
        r#"x"]; click n0 "javascript:alert(1)"; n9["y"#,
        "tab\tnew\nline",
        "%%{init: {}}%%",
        "a#quot;b|c>d<e&f;g[h]i{j}k`l",
    ];
    let issues: Vec<serde_json::Value> = hostile
        .iter()
        .enumerate()
        .map(|(i, id)| match hostile.get(i + 1) {
            Some(next) => issue_with(id, serde_json::json!({"dependencies": [blocks(id, next)]})),
            None => issue(id),
        })
        .collect();
    let t = Test::on_files().issues(&issues);
    let out = t
        .run(&["dep", "tree", hostile[0], "--format", "mermaid"])
        .status(0)
        .stdout();
    let label = regex::Regex::new(r#""([A-Za-z0-9 .,_:/#;-]*)""#).unwrap();
    let node = regex::Regex::new(r#"^  n\d+\["[A-Za-z0-9 .,_:/#;-]*"\]$"#).unwrap();
    let edge = regex::Regex::new(r#"^  n\d+ -->\|"[A-Za-z0-9 .,_:/#;-]*"\| n\d+$"#).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "flowchart TD");
    for line in &lines[1..] {
        assert!(
            node.is_match(line) || edge.is_match(line),
            "a line Mermaid would misread: {line:?}"
        );
    }
    let decode = |s: &str| {
        regex::Regex::new(r"#(\d+);")
            .unwrap()
            .replace_all(s, |c: &regex::Captures| {
                char::from_u32(c[1].parse().unwrap()).unwrap().to_string()
            })
            .into_owned()
    };
    let labels: Vec<String> = lines[1..]
        .iter()
        .filter(|l| node.is_match(l))
        .map(|l| decode(&label.captures(l).unwrap()[1]))
        .collect();
    for id in hostile {
        assert!(
            labels.contains(&id.to_string()),
            "{id:?} not among {labels:?}"
        );
    }
}

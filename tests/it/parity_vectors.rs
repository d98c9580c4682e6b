//! Parity vectors recorded from the reference premath-cli
//! (`vectors/premath-cli/record.py`): tusk runs each scenario in a fresh
//! directory and must give the same exit code, stdout, stderr and files, byte
//! for byte, with two explicit, per-scenario exceptions:
//! - `normalize: [KEY, ...]`: a whole-second UTC timestamp
//!   (`YYYY-MM-DDTHH:MM:SSZ`) that is the value of `"KEY": ` in pretty JSON is
//!   replaced by `<normalized>` on both sides (the clock differs between the
//!   two runs; any other timestamp form is still compared as it is);
//! - `normalizeInstant: [KEY, ...]`: the same for an RFC3339 UTC instant in
//!   either of premath's renderings (`Z` or `+00:00`, with or without a
//!   fraction of 1–9 digits), for the lease and projection instants
//!   (`acquiredAt`, `expiresAt`, `renewedAt`, `checkedAt`) that premath prints
//!   with nanoseconds and tusk in whole seconds;
//! - `extraKeys: [KEY, ...]` with `extraKeysReason`: top-level members tusk
//!   adds to a JSON stdout (steps with `--json`; its verdict, its own
//!   findings). tusk's stdout must
//!   still be canonical (sorted keys, pretty, one newline); the listed members
//!   are removed from it and the rest must equal premath's bytes. premath's
//!   output must not have them (an extra may only add);
//! - `missingKeys: [KEY, ...]` with `missingKeysReason`: top-level members
//!   premath prints and tusk deliberately does not (premath's doctrine
//!   resolver witness); they are removed from premath's JSON stdout, re-rendered
//!   the same way, and tusk's must not have them;
//! - `dropResolver: REASON`: premath's doctrine site resolver (its
//!   `resolverWitness`, `resolverWitnessRef` members at any depth and its
//!   `resolver://site-resolve/…` witness refs), which tusk does not compute,
//!   are removed from premath's JSON stdout and from its captured JSON Lines
//!   rows before the comparison; tusk's must not have them;
//! - `jsonLines: [PATH, ...]`: captured files compared row by row as JSON
//!   values (tusk writes trajectory rows with sorted keys, premath in its
//!   struct order), `normalize` keys replaced in both;
//! - `skip: {STREAM: REASON}`: a stream (`stdout` or `stderr`) that is not
//!   compared, with the documented reason (a known difference outside the
//!   scenario's subject).
//!
//! - `extraLines: [PREFIX, ...]` with `extraLinesReason`: text lines tusk
//!   adds (a line that says what premath's says in symbols); they are
//!   removed from tusk's stdout, must be there on success, and premath's
//!   stdout must have none;
//! - a step that fails under `--json` where premath printed nothing on
//!   stdout: tusk's stdout must be its one error object (`result`,
//!   `class`, `failureClasses`, `message`; issue 49), and counts as empty.
//!
//! A scenario with `mcp` was recorded from premath's MCP tool of that name
//! (premath has no CLI twin; see record.py): tusk's `args` must print what the
//! tool answers.

use crate::common::Test;
use serde_json::Value;
use std::path::Path;

fn dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/premath-cli")
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(format!("{name}.json")))
        .unwrap_or_else(|e| panic!("{name}: no recorded vector ({e}); run record.py"));
    serde_json::from_str(&text).unwrap()
}

fn write_file(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn setup(root: &Path, scenario: &Value) {
    for rel in scenario["dirs"].as_array().into_iter().flatten() {
        std::fs::create_dir_all(root.join(rel.as_str().unwrap())).unwrap();
    }
    for (rel, text) in scenario["files"].as_object().into_iter().flatten() {
        write_file(root, rel, text.as_str().unwrap());
    }
    for (rel, source) in scenario["filesCopy"].as_object().into_iter().flatten() {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(source.as_str().unwrap());
        write_file(root, rel, &std::fs::read_to_string(from).unwrap());
    }
    for (rel, source) in scenario["filesFrom"].as_object().into_iter().flatten() {
        let (name, captured) = source.as_str().unwrap().split_once(':').unwrap();
        let text = load(name)["files"][captured]
            .as_str()
            .unwrap_or_else(|| panic!("{source}: not captured"))
            .to_string();
        write_file(root, rel, &text);
    }
}

/// `tusk ARGS` in the test's directory with nothing of this process's
/// environment but `PATH`, and `LC_ALL=C`.
fn run_tusk(root: &Test, args: &[&str]) -> (Option<i32>, String, String) {
    let out = root
        .tusk(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("LC_ALL", "C")
        .run();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// True for `YYYY-MM-DDTHH:MM:SSZ`.
fn is_whole_second_utc(s: &[u8]) -> bool {
    s.len() == 20
        && s.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Replaces each whole-second UTC timestamp that is the value of `"KEY": ` by
/// `<normalized>`, for every KEY in `keys`.
fn normalize(text: &str, keys: &[&str]) -> String {
    replace_values(text, keys, |v| {
        (v.len() >= 20 && is_whole_second_utc(&v[..20])).then_some(20)
    })
}

/// Replaces by `<normalized>` each whole string value of `"KEY": ` (for every
/// KEY in `keys`) whose start `matched` measures and that ends right there.
fn replace_values(text: &str, keys: &[&str], matched: impl Fn(&[u8]) -> Option<usize>) -> String {
    let mut out = text.to_string();
    for key in keys {
        let prefix = format!("\"{key}\": \"");
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(&prefix) {
            let value_start = at + prefix.len();
            result.push_str(&rest[..value_start]);
            rest = &rest[value_start..];
            if let Some(len) = matched(rest.as_bytes()) {
                if rest.as_bytes().get(len) == Some(&b'"') {
                    result.push_str("<normalized>");
                    rest = &rest[len..];
                }
            }
        }
        result.push_str(rest);
        out = result;
    }
    out
}

/// Length of an RFC3339 UTC instant at the start of `s` (`YYYY-MM-DDTHH:MM:SS`,
/// an optional `.` and 1–9 digits, then `Z` or `+00:00`), if there is one.
fn instant_len(s: &[u8]) -> Option<usize> {
    if s.len() < 20 || !is_whole_second_utc(&[&s[..19], b"Z"].concat()) {
        return None;
    }
    let mut at = 19;
    if s.get(at) == Some(&b'.') {
        let digits = s[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        at += 1 + digits;
    }
    if s[at..].starts_with(b"Z") {
        Some(at + 1)
    } else if s[at..].starts_with(b"+00:00") {
        Some(at + 6)
    } else {
        None
    }
}

/// Replaces each instant (see [`instant_len`]) that is the whole string value
/// of `"KEY": ` by `<normalized>`, for every KEY in `keys`.
fn normalize_instants(text: &str, keys: &[&str]) -> String {
    replace_values(text, keys, instant_len)
}

/// tusk's JSON stdout without its extra top-level members, re-rendered; an
/// error when the stdout is not one canonical JSON object.
fn without_extras(stdout: &str, keys: &[&str]) -> Result<String, String> {
    let mut value: Value =
        serde_json::from_str(stdout).map_err(|e| format!("not JSON ({e}): {stdout}"))?;
    if format!("{}\n", tusk::canonical::to_pretty_sorted(&value)) != stdout {
        return Err(format!("not canonical JSON: {stdout}"));
    }
    let object = value
        .as_object_mut()
        .ok_or_else(|| format!("not an object: {stdout}"))?;
    for key in keys {
        object.remove(*key);
    }
    Ok(format!("{}\n", tusk::canonical::to_pretty_sorted(&value)))
}

/// Ok when `stdout` is the CLI's one error object, canonical: `result`
/// `rejected`, a `class` named in `failureClasses`, a `message`.
fn error_object(stdout: &str) -> Result<(), String> {
    let value: Value = serde_json::from_str(stdout)
        .map_err(|e| format!("not one JSON object ({e}): {stdout:?}"))?;
    let canonical = format!("{}\n", tusk::canonical::to_pretty_sorted(&value)) == stdout;
    let class = value["class"].as_str().unwrap_or_default();
    if canonical
        && value["result"] == "rejected"
        && !class.is_empty()
        && value["failureClasses"][0] == class
        && value["message"].as_str().is_some_and(|m| !m.is_empty())
    {
        Ok(())
    } else {
        Err(format!("not the CLI's error object: {stdout}"))
    }
}

/// A scenario's key list that needs a stated reason (`<key>Reason`) when not empty.
fn reasoned_list<'a>(sc: &'a Value, key: &str) -> Vec<&'a str> {
    let list = str_list(sc, key);
    assert!(
        list.is_empty()
            || sc[format!("{key}Reason")]
                .as_str()
                .is_some_and(|w| !w.trim().is_empty()),
        "{}: {key} needs a reason",
        sc["name"]
    );
    list
}

/// premath's JSON stdout without the members tusk does not print, re-rendered
/// (premath's pretty rendering is the canonical one); other text is kept.
fn without_missing(stdout: &str, keys: &[&str]) -> String {
    match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(mut m)) => {
            for key in keys {
                m.remove(*key);
            }
            format!("{}\n", tusk::canonical::to_pretty_sorted(&Value::Object(m)))
        }
        _ => stdout.to_string(),
    }
}

#[test]
fn instant_normalization_is_narrow() {
    let keys = ["expiresAt"];
    for (given, want) in [
        (
            "\"expiresAt\": \"2026-02-25T08:40:07Z\"",
            "\"expiresAt\": \"<normalized>\"",
        ),
        (
            "\"expiresAt\": \"2026-02-25T08:40:07+00:00\"",
            "\"expiresAt\": \"<normalized>\"",
        ),
        (
            "\"expiresAt\": \"2026-02-25T08:40:07.123456789+00:00\"",
            "\"expiresAt\": \"<normalized>\"",
        ),
        // Other offsets, over-long fractions, trailing text and other keys stay.
        (
            "\"expiresAt\": \"2026-02-25T08:40:07+02:00\"",
            "\"expiresAt\": \"2026-02-25T08:40:07+02:00\"",
        ),
        (
            "\"expiresAt\": \"2026-02-25T08:40:07.1234567890Z\"",
            "\"expiresAt\": \"2026-02-25T08:40:07.1234567890Z\"",
        ),
        (
            "\"expiresAt\": \"2026-02-25T08:40:07Z soon\"",
            "\"expiresAt\": \"2026-02-25T08:40:07Z soon\"",
        ),
        (
            "\"acquiredAt\": \"2026-02-25T08:40:07Z\"",
            "\"acquiredAt\": \"2026-02-25T08:40:07Z\"",
        ),
    ] {
        assert_eq!(normalize_instants(given, &keys), want);
    }
}

#[test]
fn extras_are_only_removed_from_canonical_json() {
    assert_eq!(
        without_extras(
            "{\n  \"a\": 1,\n  \"result\": \"accepted\"\n}\n",
            &["result"]
        )
        .unwrap(),
        "{\n  \"a\": 1\n}\n"
    );
    // Unsorted keys, compact text or a missing newline are not tusk's rendering.
    for bad in [
        "{\n  \"b\": 1,\n  \"a\": 1\n}\n",
        "{\"a\":1}\n",
        "{\n  \"a\": 1\n}",
        "text\n",
    ] {
        assert!(without_extras(bad, &["result"]).is_err(), "{bad}");
    }
}

#[test]
fn normalization_is_narrow() {
    let keys = ["updatedAt"];
    assert_eq!(
        normalize(
            "{\n  \"updatedAt\": \"2026-02-25T08:40:07Z\",\n  \"x\": \"2026-02-25T08:40:07Z\"\n}",
            &keys
        ),
        "{\n  \"updatedAt\": \"<normalized>\",\n  \"x\": \"2026-02-25T08:40:07Z\"\n}"
    );
    // Fractions, offsets and other values are left alone.
    for kept in [
        "\"updatedAt\": \"2026-02-25T08:40:07.5Z\"",
        "\"updatedAt\": \"2026-02-25T08:40:07+00:00\"",
        "\"updatedAt\": \"soon\"",
        "\"updatedAt\": \"2026-02-25T08:40:07Z",
    ] {
        assert_eq!(normalize(kept, &keys), kept);
    }
}

/// premath's site-resolver members and refs removed, at any depth.
fn without_resolver(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "resolverWitness" | "resolverWitnessRef"))
                .map(|(k, v)| (k.clone(), without_resolver(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .filter(|v| {
                    !v.as_str()
                        .is_some_and(|s| s.starts_with("resolver://site-resolve/"))
                })
                .map(without_resolver)
                .collect(),
        ),
        other => other.clone(),
    }
}

/// True when `value` holds a site-resolver member or ref anywhere.
fn has_resolver(value: &Value) -> bool {
    without_resolver(value) != *value
}

/// JSON Lines text as values, the `keys` members that are whole-second UTC
/// timestamps (at the top of each row) replaced by `<normalized>`.
fn json_rows(text: &str, keys: &[&str], drop_resolver: bool) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut row: Value = serde_json::from_str(l).unwrap_or(Value::String(l.to_string()));
            for key in keys {
                if row[*key]
                    .as_str()
                    .is_some_and(|t| is_whole_second_utc(t.as_bytes()))
                {
                    row[*key] = Value::String("<normalized>".into());
                }
            }
            if drop_resolver {
                row = without_resolver(&row);
            }
            row
        })
        .collect()
}

/// A scenario's list of strings under `key` (absent: empty).
fn str_list<'a>(sc: &'a Value, key: &str) -> Vec<&'a str> {
    sc[key]
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| k.as_str().unwrap())
        .collect()
}

#[test]
fn tusk_matches_every_recorded_premath_vector() {
    let scenarios: Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("scenarios.json")).unwrap())
            .unwrap();
    let scenarios = scenarios["scenarios"].as_array().unwrap();
    assert!(!scenarios.is_empty());
    let mut mismatches = Vec::new();
    for sc in scenarios {
        let name = sc["name"].as_str().unwrap();
        let want = load(name);
        let keys = str_list(sc, "normalize");
        let instants = str_list(sc, "normalizeInstant");
        let extras = reasoned_list(sc, "extraKeys");
        let missing = reasoned_list(sc, "missingKeys");
        let extra_lines = reasoned_list(sc, "extraLines");
        let norm = |text: &str| normalize_instants(&normalize(text, &keys), &instants);
        let drop_resolver = match sc.get("dropResolver") {
            None => false,
            Some(why) => {
                assert!(
                    why.as_str().is_some_and(|w| !w.trim().is_empty()),
                    "{name}: dropResolver needs a reason"
                );
                true
            }
        };
        let json_lines = str_list(sc, "jsonLines");
        let skip = sc["skip"].as_object().cloned().unwrap_or_default();
        for (stream, why) in &skip {
            assert!(
                matches!(stream.as_str(), "stdout" | "stderr")
                    && why.as_str().is_some_and(|w| !w.trim().is_empty()),
                "{name}: skip needs a stream and a reason"
            );
        }
        // One entry per step: (args, recorded run).
        let steps: Vec<(Value, Value)> = match sc.get("steps") {
            Some(steps) => steps
                .as_array()
                .unwrap()
                .iter()
                .zip(want["steps"].as_array().expect("steps recorded"))
                .map(|(a, w)| (a.clone(), w.clone()))
                .collect(),
            None => vec![(sc["args"].clone(), want.clone())],
        };
        if let Some(s) = sc.get("steps") {
            assert_eq!(
                s.as_array().unwrap().len(),
                want["steps"].as_array().unwrap().len(),
                "{name}: vector is stale; re-record"
            );
        }
        let root = Test::on_files();
        setup(root.dir(), sc);
        let mut seen_extra_line = false;
        for (i, (args, recorded)) in steps.iter().enumerate() {
            assert_eq!(
                &recorded["args"], args,
                "{name}: vector is stale; re-record"
            );
            let args: Vec<&str> = args
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            let (code, stdout, stderr) = run_tusk(&root, &args);
            // Where premath fails under `--json` with nothing on stdout, tusk
            // prints its one error object (issue 49: every failure answers in
            // the format asked for); stderr and the exit code stay premath's.
            let stdout = if args.contains(&"--json")
                && code != Some(0)
                && recorded["stdout"].as_str() == Some("")
            {
                match error_object(&stdout) {
                    Ok(()) => String::new(),
                    Err(e) => {
                        mismatches.push(format!("{name} (step {i}): {e}"));
                        stdout
                    }
                }
            } else {
                stdout
            };
            let stdout = if extras.is_empty() || !args.contains(&"--json") {
                stdout
            } else {
                let premath = recorded["stdout"].as_str().unwrap_or_default();
                if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(premath) {
                    for key in &extras {
                        assert!(!m.contains_key(*key), "{name}: premath prints {key} itself");
                    }
                }
                without_extras(&stdout, &extras).unwrap_or_else(|e| e)
            };
            let stdout = if extra_lines.is_empty() {
                stdout
            } else {
                let theirs = recorded["stdout"].as_str().unwrap_or_default();
                assert!(
                    !theirs
                        .lines()
                        .any(|l| extra_lines.iter().any(|p| l.starts_with(p))),
                    "{name}: premath prints an extraLines line itself"
                );
                let mine: String = stdout
                    .split_inclusive('\n')
                    .filter(|l| !extra_lines.iter().any(|p| l.starts_with(p)))
                    .collect();
                seen_extra_line |= mine != stdout;
                mine
            };
            let got = [
                ("exit", serde_json::json!(code)),
                ("stdout", Value::String(norm(&stdout))),
                ("stderr", Value::String(norm(&stderr))),
            ];
            for (key, got) in got {
                if skip.contains_key(key) {
                    continue;
                }
                let want = match &recorded[key] {
                    Value::String(s) if key == "stdout" && drop_resolver => {
                        let mine: Value = serde_json::from_str(got.as_str().unwrap_or_default())
                            .unwrap_or(Value::Null);
                        if has_resolver(&mine) {
                            mismatches.push(format!(
                                "{name} (step {i}): tusk prints a site-resolver witness"
                            ));
                        }
                        let theirs: Value = serde_json::from_str(s).expect("premath printed JSON");
                        let text = format!(
                            "{}\n",
                            serde_json::to_string_pretty(&without_resolver(&theirs)).unwrap()
                        );
                        Value::String(norm(&text))
                    }
                    Value::String(s) if key == "stdout" && !missing.is_empty() => {
                        let mine: Value = serde_json::from_str(got.as_str().unwrap_or_default())
                            .unwrap_or(Value::Null);
                        for k in &missing {
                            if mine.get(*k).is_some() {
                                mismatches.push(format!("{name} (step {i}): tusk prints {k}"));
                            }
                        }
                        Value::String(norm(&without_missing(s, &missing)))
                    }
                    Value::String(s) => Value::String(norm(s)),
                    other => other.clone(),
                };
                if got != want {
                    mismatches.push(format!(
                        "{name} (step {i}): {key}\n  premath: {want}\n  tusk:    {got}"
                    ));
                }
            }
        }
        if !extra_lines.is_empty() && !seen_extra_line {
            mismatches.push(format!("{name}: no step printed an extraLines line"));
        }
        for rel in sc["capture"].as_array().into_iter().flatten() {
            let rel = rel.as_str().unwrap();
            let path = root.dir().join(rel);
            if json_lines.contains(&rel) {
                let got = std::fs::read_to_string(&path).unwrap_or_default();
                let got_rows = json_rows(&got, &keys, false);
                if got_rows.iter().any(has_resolver) {
                    mismatches.push(format!(
                        "{name}: file {rel}: tusk writes a site-resolver ref"
                    ));
                }
                let want_rows = json_rows(
                    want["files"][rel].as_str().unwrap_or_default(),
                    &keys,
                    drop_resolver,
                );
                if got_rows != want_rows {
                    mismatches.push(format!(
                        "{name}: file {rel} (rows)\n  premath: {want_rows:?}\n  tusk:    {got_rows:?}"
                    ));
                }
                continue;
            }
            let got = if path.is_file() {
                Value::String(norm(
                    &String::from_utf8(std::fs::read(path).unwrap()).unwrap(),
                ))
            } else {
                Value::Null
            };
            let want = match &want["files"][rel] {
                Value::String(s) => Value::String(norm(s)),
                other => other.clone(),
            };
            if got != want {
                mismatches.push(format!(
                    "{name}: file {rel}\n  premath: {want}\n  tusk:    {got}"
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// A ledger premath wrote (recorded in a vector) drives tusk's session
/// bootstrap to the projection premath's `harness-feature next` gave for it.
#[test]
fn tusk_bootstrap_reads_a_premath_written_ledger() {
    const LEDGER: &str = ".premath/harness_feature_ledger.json";
    for (writer, next) in [
        (
            "harness_feature_write_sequence",
            "harness_feature_cross_read_next_json",
        ),
        (
            "harness_feature_write_all_completed",
            "harness_feature_cross_read_closed_next_json",
        ),
    ] {
        let ledger = load(writer)["files"][LEDGER].as_str().unwrap().to_string();
        let premath_next: Value =
            serde_json::from_str(load(next)["stdout"].as_str().unwrap()).unwrap();
        assert_eq!(premath_next["exists"], true, "{next}");
        let root = Test::on_files();
        write_file(root.dir(), LEDGER, &ledger);
        let (code, _, err) = run_tusk(
            &root,
            &[
                "harness-session",
                "write",
                "--state",
                "active",
                "--session-id",
                "s1",
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        let (code, out, err) = run_tusk(&root, &["harness-session", "bootstrap", "--json"]);
        assert_eq!(code, Some(0), "{err}");
        let boot: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            boot["featureCount"], premath_next["featureCount"],
            "{writer}"
        );
        assert_eq!(
            boot["featureClosureComplete"], premath_next["closureComplete"],
            "{writer}"
        );
        assert_eq!(
            boot.get("nextFeatureId").unwrap_or(&Value::Null),
            &premath_next["nextFeatureId"],
            "{writer}"
        );
        // The file is untouched by reading it.
        assert_eq!(
            std::fs::read_to_string(root.dir().join(LEDGER)).unwrap(),
            ledger
        );
    }
}

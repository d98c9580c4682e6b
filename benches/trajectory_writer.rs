//! In-process append throughput of the evaluator's trajectory writer.
//!
//! `cargo bench --bench trajectory_writer [-- ROWS]` prints rows/s for one
//! [`TrajectoryWriter`] kept open (the evaluator's case: one row per host call) and
//! for the one-shot [`append`] (open, lock, write, close per row). Under `cargo test
//! --all-targets` it runs a small smoke version. It asserts correctness (every row
//! is read back), never timings.

use std::path::Path;
use std::time::Instant;
use tusk::harness::trajectory::{self, ProjectionMode, StepRow, TrajectoryWriter};

fn row(i: usize) -> StepRow {
    let digest = format!("he1_{:064x}", i as u128 * 0x9e37_79b9_7f4a_7c15);
    StepRow {
        step_id: format!(
            "scheme_eval.{}.call-{}.issue.claim.{digest}",
            i / 64,
            i % 64 + 1
        ),
        action: "scheme_eval.issue.claim".into(),
        result_class: if i.is_multiple_of(5) {
            "lease_contention_active"
        } else {
            "accepted"
        }
        .into(),
        finished_at: format!(
            "2026-02-01T{:02}:{:02}:{:02}.{:03}Z",
            (i / 3600) % 24,
            (i / 60) % 60,
            i % 60,
            i % 1000
        ),
        issue_id: Some(format!("bd-{}", i % 500)),
        instruction_refs: vec!["instruction://ci/required".into()],
        witness_refs: vec![format!(
            "host-effect://scheme-eval/issue.claim/{digest}/{}",
            i % 64 + 1
        )],
        lineage_refs: Vec::new(),
        started_at: None,
    }
}

fn check(path: &Path, expected: usize) {
    let p = trajectory::query(path, ProjectionMode::Latest, 1).expect("read back");
    assert_eq!(
        p.value["totalCount"], expected,
        "every appended row reads back"
    );
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let rows: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(if bench { 200_000 } else { 2_000 });
    let dir = tempfile::tempdir().expect("temp dir");

    let path = dir.path().join("writer.jsonl");
    let mut writer = TrajectoryWriter::open(&path).expect("open");
    let rows_in: Vec<StepRow> = (0..rows).map(row).collect();
    let t = Instant::now();
    for r in &rows_in {
        writer.append(r).expect("append");
    }
    let dt = t.elapsed();
    check(&path, rows);
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "TrajectoryWriter::append: {rows} rows in {:.3} s = {:.0} rows/s ({:.2} µs/row, {:.0} bytes/row)",
        dt.as_secs_f64(),
        rows as f64 / dt.as_secs_f64(),
        dt.as_secs_f64() * 1e6 / rows as f64,
        bytes as f64 / rows as f64
    );

    let oneshot = rows.min(50_000);
    let path = dir.path().join("oneshot.jsonl");
    let t = Instant::now();
    for r in &rows_in[..oneshot] {
        trajectory::append(&path, r).expect("append");
    }
    let dt = t.elapsed();
    check(&path, oneshot);
    println!(
        "trajectory::append (open per row): {oneshot} rows in {:.3} s = {:.0} rows/s ({:.2} µs/row)",
        dt.as_secs_f64(),
        oneshot as f64 / dt.as_secs_f64(),
        dt.as_secs_f64() * 1e6 / oneshot as f64
    );
}

//! The multithread throughput KPI (`premath.multithread.throughput.v1`, seed §13).
//!
//! ```text
//! kpi = throughput_per_worker_per_day * gate_pass_rate
//! throughput_per_worker_per_day = completed_rows_per_day / max(active_workers, 1)
//! completed_rows_per_day = completed_rows * (24 / window_hours)
//! gate_pass_rate = completed_rows / window_rows
//! ```
//!
//! Rows count when `now − windowHours < finishedAt ≤ now`; "completed" is a
//! success class as [`classify`](super::trajectory::classify) says. [`compute`] is
//! the pure formula and [`decide`] the thresholds; [`report`] reads the file.
//!
//! Where the spec is silent: `gatePassRate` (and so the KPI) is 0 for an empty
//! window; `--window-hours` is a positive number of at most 100 years; an explicit
//! `--active-workers 0` is reported as 0 and counts as 1 in the formula. The KPI is
//! computed as one division of exact products, so a KPI that is exactly a threshold
//! in rational terms meets that threshold (no rounding drift at the edges).

use super::format_timestamp;
use super::trajectory::{scan_file, RowRef, Scan, TrajectoryError};
use crate::host::HostClass;
use chrono::{DateTime, TimeDelta, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// `kind` of the KPI output.
pub const KPI_KIND: &str = "premath.multithread.throughput.v1";
/// KPI at or above which the decision is `pass`.
pub const TARGET: f64 = 0.8;
/// KPI below which the decision is `rollback`.
pub const ROLLBACK: f64 = 0.4;
/// Fewer window rows than this is `insufficient_data`.
pub const MINIMUM_ROWS: u64 = 3;
/// The default window.
pub const DEFAULT_WINDOW_HOURS: f64 = 24.0;
const MAX_WINDOW_HOURS: f64 = 24.0 * 366.0 * 100.0;

/// The decision state of a KPI report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Pass,
    Watch,
    Rollback,
    InsufficientData,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Pass => "pass",
            Decision::Watch => "watch",
            Decision::Rollback => "rollback",
            Decision::InsufficientData => "insufficient_data",
        }
    }
}

/// The thresholds of seed §13, applied in order.
pub fn decide(kpi: f64, window_rows: u64) -> Decision {
    if window_rows < MINIMUM_ROWS {
        Decision::InsufficientData
    } else if kpi >= TARGET {
        Decision::Pass
    } else if kpi >= ROLLBACK {
        Decision::Watch
    } else {
        Decision::Rollback
    }
}

/// Checks a `--window-hours` value.
pub fn validate_window_hours(hours: f64) -> Result<f64, String> {
    if hours.is_finite() && hours > 0.0 && hours <= MAX_WINDOW_HOURS {
        Ok(hours)
    } else {
        Err(format!(
            "window hours must be a positive number of at most {MAX_WINDOW_HOURS}, found {hours}"
        ))
    }
}

/// The counts the formula needs, taken from the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowCounts {
    pub window_rows: u64,
    pub completed_rows: u64,
    /// Distinct issue ids among the window's rows.
    pub distinct_issues: u64,
}

/// A computed KPI report; serialized, the members of its `--json` object
/// ([`KpiReport`]).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Kpi {
    /// An integer when the window is a whole number of hours.
    #[serde(serialize_with = "whole_number")]
    pub window_hours: f64,
    #[serde(serialize_with = "timestamp")]
    #[schemars(with = "String")]
    pub now: DateTime<Utc>,
    pub window_rows: u64,
    pub completed_rows: u64,
    pub active_workers: u64,
    pub completed_rows_per_day: f64,
    pub throughput_per_worker_per_day: f64,
    pub gate_pass_rate: f64,
    pub kpi: f64,
    /// `pass`, `watch`, `rollback` or `insufficient_data`.
    #[serde(serialize_with = "decision_name")]
    #[schemars(with = "String")]
    pub decision: Decision,
}

fn whole_number<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    number(*x).serialize(s)
}

fn timestamp<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_timestamp(*t))
}

fn decision_name<S: serde::Serializer>(d: &Decision, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.as_str())
}

/// The formula. `active_workers` defaults to the distinct issue ids (at least 1).
pub fn compute(
    counts: WindowCounts,
    window_hours: f64,
    active_workers: Option<u64>,
    now: DateTime<Utc>,
) -> Kpi {
    let active = active_workers.unwrap_or(counts.distinct_issues.max(1));
    let workers = active.max(1) as f64;
    let c = counts.completed_rows as f64;
    let n = counts.window_rows as f64;
    let (gate_pass_rate, kpi) = if counts.window_rows == 0 {
        (0.0, 0.0)
    } else {
        (c / n, (c * c * 24.0) / (window_hours * workers * n))
    };
    Kpi {
        window_hours,
        now,
        window_rows: counts.window_rows,
        completed_rows: counts.completed_rows,
        active_workers: active,
        completed_rows_per_day: c * 24.0 / window_hours,
        throughput_per_worker_per_day: c * 24.0 / (window_hours * workers),
        gate_pass_rate,
        kpi,
        decision: decide(kpi, counts.window_rows),
    }
}

impl Kpi {
    /// The `--json` object.
    pub fn report(&self) -> KpiReport<'_> {
        KpiReport {
            kind: KPI_KIND,
            kpi: self,
            thresholds: Thresholds {
                target: TARGET,
                rollback: ROLLBACK,
                minimum_rows: MINIMUM_ROWS,
            },
        }
    }

    /// [`Kpi::report`] as JSON.
    pub fn to_json(&self) -> Value {
        crate::host::payload_json(&self.report())
    }

    /// The short human report.
    pub fn text(&self) -> String {
        format!(
            "harness-kpi: {decision}\n\
             kpi: {kpi:.4} (target {TARGET}, rollback {ROLLBACK}, minimum rows {MINIMUM_ROWS})\n\
             window: {hours} h ending {now}: {rows} rows, {completed} completed\n\
             activeWorkers: {workers}, throughputPerWorkerPerDay: {tp:.4}, gatePassRate: {rate:.4}",
            decision = self.decision.as_str(),
            kpi = self.kpi,
            hours = number(self.window_hours),
            now = format_timestamp(self.now),
            rows = self.window_rows,
            completed = self.completed_rows,
            workers = self.active_workers,
            tp = self.throughput_per_worker_per_day,
            rate = self.gate_pass_rate,
        )
    }
}

/// The `--json` object of the KPI (`premath.multithread.throughput.v1`; the
/// payload of `harness.kpi`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KpiReport<'k> {
    /// `premath.multithread.throughput.v1`.
    pub kind: &'static str,
    #[serde(flatten)]
    pub kpi: &'k Kpi,
    pub thresholds: Thresholds,
}

/// The KPI's decision thresholds.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Thresholds {
    pub target: f64,
    pub rollback: f64,
    pub minimum_rows: u64,
}

/// A whole number of hours prints as an integer.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// Why a KPI report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum KpiError {
    #[error("windowHours: {0}")]
    InvalidWindow(String),
    #[error(transparent)]
    Trajectory(#[from] TrajectoryError),
}

impl KpiError {
    /// The failure class a host action reports for this error.
    pub fn class(&self) -> &'static str {
        match self {
            KpiError::InvalidWindow(_) => HostClass::ArgsInvalid.as_str(),
            KpiError::Trajectory(e) => e.class(),
        }
    }
}

/// Counts the window of the trajectory at `path` and computes the KPI; the
/// warnings are for stderr (a skipped torn last line).
pub fn report_store(
    log: &crate::logs::LogStore,
    window_hours: f64,
    active_workers: Option<u64>,
    now: DateTime<Utc>,
) -> Result<(Kpi, Vec<String>), KpiError> {
    log.with_file(
        |e| KpiError::Trajectory(TrajectoryError::from_log(log, e)),
        |path| report(path, window_hours, active_workers, now),
    )
}

/// The KPI over the trajectory file at `path` (absent = no rows).
pub fn report(
    path: &Path,
    window_hours: f64,
    active_workers: Option<u64>,
    now: DateTime<Utc>,
) -> Result<(Kpi, Vec<String>), KpiError> {
    let window_hours = validate_window_hours(window_hours).map_err(KpiError::InvalidWindow)?;
    let span = TimeDelta::nanoseconds((window_hours * 3_600_000_000_000.0).round() as i64);
    let start = now - span;
    #[derive(Default)]
    struct Acc {
        rows: u64,
        completed: u64,
        issues: HashSet<String>,
    }
    let Scan { acc, warnings, .. } = scan_file(
        path,
        Acc::default,
        |acc: &mut Acc, row: RowRef<'_>, _| {
            // Steps, not host calls: a run's reads are not completed work.
            if row.finished_at <= start
                || row.finished_at > now
                || super::trajectory::is_host_call_row(&row.action)
            {
                return;
            }
            acc.rows += 1;
            if row.outcome.is_success() {
                acc.completed += 1;
            }
            if let Some(issue) = row
                .issue_id
                .as_deref()
                .map(str::trim)
                .filter(|i| !i.is_empty())
            {
                if !acc.issues.contains(issue) {
                    acc.issues.insert(issue.to_string());
                }
            }
        },
        |mut a, b| {
            a.rows += b.rows;
            a.completed += b.completed;
            a.issues.extend(b.issues);
            a
        },
    )?;
    let counts = WindowCounts {
        window_rows: acc.rows,
        completed_rows: acc.completed,
        distinct_issues: acc.issues.len() as u64,
    };
    Ok((compute(counts, window_hours, active_workers, now), warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-02-10T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn kpi(window: u64, completed: u64, hours: f64, workers: u64) -> Kpi {
        compute(
            WindowCounts {
                window_rows: window,
                completed_rows: completed,
                distinct_issues: 0,
            },
            hours,
            Some(workers),
            now(),
        )
    }

    #[test]
    fn formula() {
        let k = kpi(10, 8, 48.0, 2);
        assert_eq!(k.completed_rows_per_day, 4.0);
        assert_eq!(k.throughput_per_worker_per_day, 2.0);
        assert_eq!(k.gate_pass_rate, 0.8);
        assert_eq!(k.kpi, 1.6);
    }

    #[test]
    fn threshold_edges_are_exact() {
        // 4 of 5 completed in 24 h by 4 workers: 1.0 * 0.8 = 0.8 exactly → pass.
        assert_eq!(kpi(5, 4, 24.0, 4).kpi, 0.8);
        assert_eq!(kpi(5, 4, 24.0, 4).decision, Decision::Pass);
        // 2 of 5 in 24 h by 2 workers: 1.0 * 0.4 = 0.4 exactly → watch.
        assert_eq!(kpi(5, 2, 24.0, 2).kpi, 0.4);
        assert_eq!(kpi(5, 2, 24.0, 2).decision, Decision::Watch);
        // 6 of 6 in 72 h by 3 workers: 2/3 → watch; 3 of 3 in 24 h by 8: 0.375 → rollback.
        assert_eq!(kpi(6, 6, 72.0, 3).decision, Decision::Watch);
        assert_eq!(kpi(3, 3, 24.0, 8).decision, Decision::Rollback);
        // Fewer than 3 window rows is insufficient whatever the KPI.
        assert_eq!(kpi(2, 2, 24.0, 1).decision, Decision::InsufficientData);
        assert_eq!(kpi(0, 0, 24.0, 1).decision, Decision::InsufficientData);
        assert_eq!(kpi(0, 0, 24.0, 1).gate_pass_rate, 0.0);
    }

    #[test]
    fn window_hours_bounds() {
        assert!(validate_window_hours(0.0).is_err());
        assert!(validate_window_hours(-1.0).is_err());
        assert!(validate_window_hours(f64::NAN).is_err());
        assert!(validate_window_hours(1e9).is_err());
        assert_eq!(validate_window_hours(0.5), Ok(0.5));
    }

    #[test]
    fn whole_hours_print_as_integers() {
        assert_eq!(number(24.0), Value::from(24));
        assert_eq!(number(1.5), Value::from(1.5));
    }
}

//! `harness.kpi`: The multithread throughput KPI over the trajectory: decision, rate, window.

use super::*;
use crate::harness::HarnessClass;
use crate::host::HostClass;

/// The multithread throughput KPI's window.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KpiArgs {
    /// Window length in hours (default 24).
    pub window_hours: Option<f64>,
    pub active_workers: Option<u64>,
    /// The window's end (RFC 3339; default now).
    pub now: Option<String>,
}

/// The declaration of `harness.kpi`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.kpi",
            kind: ActionKind::Read,
            description:
                "The multithread throughput KPI over the trajectory: decision, rate, window.",
            payload: payload_schema::<kpi::KpiReport<'static>>,
            failure_classes: crate::failure::class_list![
                HostClass::ArgsInvalid.as_str(),
                HarnessClass::TrajectoryCorrupt.as_str(),
                HarnessClass::IoError.as_str(),
            ],
            example: r#"(harness.kpi (hash "windowHours" 24))"#,
        },
        kpi_report,
    )
}

fn kpi_report(ctx: &ActionContext<'_>, args: KpiArgs) -> Result<ActionOutcome, ActionError> {
    let hours = match args.window_hours.map(kpi::validate_window_hours) {
        None => kpi::DEFAULT_WINDOW_HOURS,
        Some(Ok(h)) => h,
        Some(Err(e)) => return Ok(args_invalid(format!("windowHours: {e}"))),
    };
    let workers = args.active_workers;
    let now = match args.now.as_deref() {
        None => ctx.now,
        Some(t) => match parse_timestamp(t) {
            Ok(t) => t.with_timezone(&Utc),
            Err(e) => return Ok(args_invalid(format!("now: {e}"))),
        },
    };
    let (report, warnings) = kpi::report_store(&ctx.paths.trajectory, hours, workers, now)
        .map_err(|e| ActionError::new(e.class(), e.to_string()))?;
    print_warnings(&warnings);
    Ok(ActionOutcome::accepted(report.to_json()))
}

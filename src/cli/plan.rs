//! `tusk plan apply ID|FILE`: a dry run's plan applied by a person
//! (issue 59, docs/plans.md), as the `plan.apply` host action applies it,
//! recorded as the operator's one-call run.

use super::issue::StoreOpts;
use super::{CliError, Exit};
use crate::issues::actions::plan_apply::{self, PlanApplyArgs};
use clap::{Args, Subcommand};
use std::path::Path;

/// `tusk plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub opts: StoreOpts,
    #[command(subcommand)]
    pub command: PlanCommand,
}

#[derive(Subcommand, Debug)]
pub enum PlanCommand {
    /// Apply a plan: exactly its changes, in one write, when every issue its
    /// dry run read is unchanged (else plan.stale, nothing written); a plan
    /// applied before answers its first result again.
    Apply {
        /// A kept plan's id (`plan-…`, printed by `tusk eval --dry-run`), or
        /// a plan file (`tusk eval --dry-run --plan-out FILE`).
        plan: String,
    },
}

pub fn run(args: PlanArgs) -> Result<Exit, CliError> {
    let PlanCommand::Apply { plan } = args.command;
    let action = crate::issues::plan::APPLY_ACTION;
    let unusable = |why: String| CliError::unusable(format_args!("tusk: {action}"), why);
    let given = if crate::issues::plan_store::is_plan_id(&plan) && !Path::new(&plan).exists() {
        PlanApplyArgs {
            plan_id: Some(plan),
            plan: None,
        }
    } else {
        let text = crate::files::read_to_string(Path::new(&plan), crate::files::INPUT_MAX)
            .map_err(|e| {
                unusable(format!(
                    "cannot read the plan file {plan}: {e}; give a plan file, or a kept plan's id \
                     (plan-…)"
                ))
            })?;
        let value = serde_json::from_str(&text)
            .map_err(|e| unusable(format!("{plan} is not a JSON plan: {e}")))?;
        PlanApplyArgs {
            plan_id: None,
            plan: Some(value),
        }
    };
    let recorded = super::record::args_of(&given);
    super::issue::run_recorded_action(
        &args.opts,
        action,
        recorded,
        Box::new(move |ctx| plan_apply::report(ctx, given)),
    )
}

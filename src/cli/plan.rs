//! `tusk plan apply ID|FILE` and `tusk plan approve ID`: a dry run's plan
//! applied, or a held-back plan approved, by a person (issue 59,
//! docs/plans.md), as the `plan.apply` and `plan.approve` host actions do,
//! recorded as the operator's one-call run.

use super::issue::StoreOpts;
use super::{CliError, Exit};
use crate::issues::actions::plan_apply::{self, PlanApplyArgs};
use crate::issues::plan::Applier;
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
    /// Approve a plan the policy's approval rules hold back, and apply it
    /// (an approver the policy names; recorded with both principals).
    Approve {
        /// The plan's id (`plan-…`, from the refusal's `planId`).
        plan: String,
    },
}

pub fn run(args: PlanArgs) -> Result<Exit, CliError> {
    // The policy's approval rules and who runs the command.
    let policy = crate::runtime::load_policy(&crate::host::PolicyFile::Default(
        crate::host::HostPaths::under(Path::new(".")).policy,
    ))
    .map_err(|e| CliError::unusable("tusk plan", e))?;
    let actor =
        crate::host::actor::local_actor().map_err(|e| CliError::unusable("tusk plan", e))?;
    let approval = policy.approval;
    let allowed = policy.allowed_actions;
    let principal = actor.name;
    // An approval is an application by an approver (`plan.approve` is
    // `plan.apply` of a kept plan, approving).
    let (given, approving) = match args.command {
        PlanCommand::Approve { plan } => (
            PlanApplyArgs {
                plan_id: Some(plan),
                plan: None,
            },
            true,
        ),
        PlanCommand::Apply { plan } => (apply_args(&plan)?, false),
    };
    let who = Applier {
        approving,
        ..Applier::default()
    };
    let recorded = super::record::args_of(&given);
    super::issue::run_recorded_action(
        &args.opts,
        who.action(),
        recorded,
        Box::new(move |ctx| {
            let who = Applier {
                principal: Some(&principal),
                approval: Some(&approval),
                allowed: Some(&allowed),
                approving,
            };
            plan_apply::report(ctx, given, who)
        }),
    )
}

/// A plan id, or the plan a file holds.
fn apply_args(plan: &str) -> Result<PlanApplyArgs, CliError> {
    let action = crate::issues::plan::APPLY_ACTION;
    let unusable = |why: String| CliError::unusable(format_args!("tusk: {action}"), why);
    if crate::issues::plan_store::is_plan_id(plan) && !Path::new(plan).exists() {
        return Ok(PlanApplyArgs {
            plan_id: Some(plan.to_string()),
            plan: None,
        });
    }
    let text =
        crate::files::read_to_string(Path::new(plan), crate::files::INPUT_MAX).map_err(|e| {
            unusable(format!(
            "cannot read the plan file {plan}: {e}; give a plan file, or a kept plan's id (plan-…)"
        ))
        })?;
    let value = serde_json::from_str(&text)
        .map_err(|e| unusable(format!("{plan} is not a JSON plan: {e}")))?;
    Ok(PlanApplyArgs {
        plan_id: None,
        plan: Some(value),
    })
}

//! `harness.session.write`: Persist the session handoff (active or stopped) with summary, next step and refs.

use super::*;
use crate::harness::HarnessClass;
use crate::host::HostClass;

/// The session handoff to persist.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionWriteArgs {
    /// `active` or `stopped` (also accepted as `status`); when absent, the
    /// session keeps its state, and a new one is `active`.
    #[serde(alias = "status")]
    #[schemars(extend("x-aliases" = ["status"]))]
    pub state: Option<String>,
    /// Defaults to the request's issue id.
    pub issue_id: Option<String>,
    pub summary: Option<String>,
    pub next_step: Option<String>,
    pub instruction_refs: Option<Vec<String>>,
    pub witness_refs: Option<Vec<String>>,
    pub lineage_refs: Option<Vec<String>>,
    pub session_id: Option<String>,
}

/// The declaration of `harness.session.write`.
pub fn action() -> Arc<dyn HostAction> {
    declare(
        Declaration {
            id: "harness.session.write",
            kind: ActionKind::Mutation,
            description:
                "Persist the session handoff (active or stopped) with summary, next step and refs.",
            payload: payload_schema::<session::SessionDoc<'static>>,
            failure_classes: crate::failure::class_list![
                HostClass::ArgsInvalid.as_str(),
                HarnessClass::SessionCorrupt.as_str(),
                HarnessClass::IoError.as_str(),
            ],
            example: r#"(harness.session.write (hash "state" "stopped" "summary" "parser done" "nextStep" "lexer"))"#,
        },
        session_write,
    )
}

fn session_write(
    ctx: &ActionContext<'_>,
    args: SessionWriteArgs,
) -> Result<ActionOutcome, ActionError> {
    let kept = || {
        session::read(&ctx.paths.session)
            .ok()
            .flatten()
            .map_or(SessionState::Active, |s| s.state)
    };
    let state_text = args.state.as_deref().unwrap_or("");
    let parsed = match &args.state {
        None => Some(kept()),
        Some(text) => SessionState::parse(text),
    };
    let Some(state) = parsed else {
        return Ok(args_invalid(format!(
            "state: must be active or stopped, found {state_text:?}"
        )));
    };
    let req = SessionWrite {
        state,
        issue_id: args.issue_id.or_else(|| ctx.issue_id.map(str::to_string)),
        summary: args.summary,
        next_step: args.next_step,
        instruction_refs: args.instruction_refs.unwrap_or_default(),
        witness_refs: args.witness_refs.unwrap_or_default(),
        lineage_refs: args.lineage_refs.unwrap_or_default(),
        issues: ctx.paths.issues.clone(),
        session_id: args.session_id,
    };
    session::write(&ctx.paths.session, &req, ctx.now)
        .map(|s| ActionOutcome::accepted(s.to_json()))
        .map_err(session_err)
}

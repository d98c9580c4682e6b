//! The lease machine: claim, claim-next, renew, release, with the spec's failure
//! classes. A lease is active while `now < expires_at`, else stale.

use super::model::{format_time, parse_time, Issue, LeaseState};
use super::mutate::{object_of, replace, run, run_ready, set_text, MutationCtx, Rejection};
use crate::issues::IssueClass;

use super::footprint::Footprint;
use super::payload::StoredIssue;
use super::projection;
use super::store::{Edit, Store, StoreError};
use super::views::ready;
use super::Report;
use chrono::{DateTime, Duration, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// A refused claim: failure class, diagnostic, and payload members that say
/// more (the current holder and expiry on contention).
type LeaseRejection = (&'static str, String, Map<String, Value>);

/// TTL when neither a TTL nor an expiry is given.
pub const DEFAULT_TTL_SECONDS: i64 = 3600;
/// Allowed TTL range.
pub const TTL_RANGE: std::ops::RangeInclusive<i64> = 30..=86400;

/// How long a lease lasts: at most one of a TTL or an explicit expiry.
#[derive(Clone, Debug, Default)]
pub struct LeaseTerm {
    pub ttl_seconds: Option<i64>,
    pub expires_at: Option<String>,
}

/// Arguments of claim / claim-next / renew / release (unused ones stay `None`).
#[derive(Clone, Debug, Default)]
pub struct LeaseRequest {
    pub assignee: String,
    pub lease_id: Option<String>,
    pub term: LeaseTerm,
}

/// Every broken input rule's class, and one diagnostic for them all.
type InputRejection = (Vec<&'static str>, String);

/// Input rules checked before the store is touched; every broken one is reported.
fn validate(req: &LeaseRequest, now: DateTime<Utc>) -> Result<DateTime<Utc>, InputRejection> {
    let mut classes = Vec::new();
    let mut diags = Vec::new();
    if req.assignee.trim().is_empty() {
        classes.push(IssueClass::LeaseInvalidAssignee.as_str());
        diags.push("assignee is required".to_string());
    }
    let mut expires = now + Duration::seconds(DEFAULT_TTL_SECONDS);
    match (&req.term.ttl_seconds, &req.term.expires_at) {
        (Some(_), Some(_)) => {
            classes.push(IssueClass::LeaseBindingAmbiguous.as_str());
            diags.push("provide only one of leaseTtlSeconds or leaseExpiresAt".into());
        }
        (Some(ttl), None) if !TTL_RANGE.contains(ttl) => {
            classes.push(IssueClass::LeaseInvalidTtl.as_str());
            diags.push(format!(
                "lease_ttl_seconds must be in range [{}, {}]",
                TTL_RANGE.start(),
                TTL_RANGE.end()
            ));
        }
        (Some(ttl), None) => expires = now + Duration::seconds(*ttl),
        (None, Some(t)) => match parse_time(t) {
            Some(t) if t > now => expires = t,
            Some(_) => {
                classes.push(IssueClass::LeaseInvalidExpiresAt.as_str());
                diags.push("lease_expires_at must be in the future".into());
            }
            None => {
                classes.push(IssueClass::LeaseInvalidExpiresAt.as_str());
                diags.push("lease_expires_at must be RFC3339".into());
            }
        },
        (None, None) => {}
    }
    if classes.is_empty() {
        Ok(expires)
    } else {
        Err((classes, diags.join("; ")))
    }
}

/// The refusal of a lease action on a missing issue: `issue.not_found`,
/// what is wrong, then premath's `lease_not_found`, so a caller written for
/// the reference still matches ([`premath_classes`] keeps only premath's).
fn lease_not_found(action: &str, path: &str, id: &str) -> Report {
    Report::rejected(
        action,
        path,
        &[
            IssueClass::NotFound.as_str(),
            IssueClass::LeaseNotFound.as_str(),
        ],
        format!("issue not found: {id}"),
    )
}

/// A lease refusal's classes as premath names them (its transport and MCP
/// tools answer byte for byte): a missing issue is `lease_not_found` alone.
pub(crate) fn premath_classes(classes: &[String]) -> Vec<String> {
    let lease_missing = classes
        .iter()
        .any(|c| c == IssueClass::LeaseNotFound.as_str());
    classes
        .iter()
        .filter(|c| !(lease_missing && *c == IssueClass::NotFound.as_str()))
        .cloned()
        .collect()
}

fn explicit_lease_id(req: &LeaseRequest) -> Option<&str> {
    req.lease_id.as_deref().filter(|l| !l.is_empty())
}

/// `lease1_<issue>_<assignee token>`; the token keeps `[A-Za-z0-9._-]` and maps
/// anything else to `_` so the id stays one shell- and URL-safe word.
pub fn default_lease_id(issue_id: &str, assignee: &str) -> String {
    let token: String = assignee
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("lease1_{issue_id}_{token}")
}

/// The claim rule on one issue: the new line's object and whether a stale lease was
/// cleared, or the rejection.
fn claim_object(
    store: &Store<'_>,
    issue: &Issue<'_>,
    assignee: &str,
    lease_id: Option<&str>,
    expires: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(Map<String, Value>, bool), LeaseRejection> {
    let id = issue.id.as_str();
    if issue.is_closed() {
        return Err((
            IssueClass::LeaseIssueClosed.as_str(),
            format!("cannot claim closed issue: {id}"),
            Map::new(),
        ));
    }
    let stamp = format_time(now);
    let mut m = object_of(store, issue);
    let state = issue.lease_state(now);
    let stale_cleared = state == LeaseState::Stale;
    let mut keep_lease = false;
    match (&issue.lease, state) {
        (Some(lease), LeaseState::Active) if lease.owner.as_str() != assignee => {
            let mut extra = Map::new();
            extra.insert("holder".into(), json!(lease.owner.as_str()));
            extra.insert("expiresAt".into(), json!(lease.expires_at_text.as_str()));
            let diag = format!(
                "issue already leased: {id} (owner={}, lease_id={})",
                lease.owner.as_str(),
                lease.lease_id.as_str()
            );
            return Err((IssueClass::LeaseContentionActive.as_str(), diag, extra));
        }
        (Some(lease), LeaseState::Active) => {
            if lease_id.is_some_and(|l| l != lease.lease_id.as_str()) {
                let diag = format!(
                    "{id} is already leased to {assignee} as {}",
                    lease.lease_id.as_str()
                );
                return Err((IssueClass::LeaseIdMismatch.as_str(), diag, Map::new()));
            }
            keep_lease = true;
        }
        (Some(_), _) => {
            // A stale lease is cleared first, and its in_progress issue reopened.
            m.remove("lease");
            if issue.status.as_str() == "in_progress" {
                m.insert("status".into(), json!("open"));
            }
        }
        (None, _) => {
            // premath's rule: an issue someone else is assigned to is theirs,
            // lease or not (claim-next passes it by).
            if let Some(holder) = issue.assignee.as_ref().filter(|a| a.as_str() != assignee) {
                let mut extra = Map::new();
                extra.insert("holder".into(), json!(holder.as_str()));
                let diag = format!("issue already claimed: {id} (assignee={})", holder.as_str());
                return Err((IssueClass::LeaseContentionActive.as_str(), diag, extra));
            }
        }
    }
    match m.get_mut("lease") {
        // Same owner, active lease: the same lease goes on (id, acquired_at and any
        // fields this program does not know are kept), only its term moves.
        Some(Value::Object(lease)) if keep_lease => {
            lease.insert("expires_at".into(), json!(format_time(expires)));
            lease.insert("renewed_at".into(), json!(stamp));
        }
        _ => {
            let lease_id = lease_id.map_or_else(|| default_lease_id(id, assignee), str::to_string);
            m.insert(
                "lease".into(),
                json!({"lease_id": lease_id, "owner": assignee, "acquired_at": stamp, "expires_at": format_time(expires)}),
            );
        }
    }
    m.insert("status".into(), json!("in_progress"));
    m.insert("assignee".into(), json!(assignee));
    m.insert("updated_at".into(), json!(stamp));
    Ok((m, stale_cleared))
}

/// The members of an accepted `issue.claim`: premath's lease summary (B) of
/// the claimed issue, and whether a stale lease was cleared on the way.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Claimed<'m> {
    pub issue: projection::LeaseSummary<'m>,
    pub stale_lease_cleared: bool,
    /// What the claim went past (an open blocker); absent when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The members of an accepted `issue.claim_next`: a claim (with `claimed`
/// after it), or `claimed: false` and a null issue when none is ready.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
// Built once per call and serialized at once: not worth a box.
#[allow(clippy::large_enum_variant)]
pub enum ClaimedNext<'m> {
    Claimed {
        #[serde(flatten)]
        claim: Claimed<'m>,
        /// true.
        claimed: bool,
    },
    NoneReady {
        /// false.
        claimed: bool,
        /// null.
        issue: (),
    },
}

/// The members of an accepted `issue.lease_renew`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Renewed<'a> {
    pub id: &'a str,
    /// The renewed lease as stored (snake_case).
    pub lease: Value,
    /// `active`.
    pub lease_state: &'static str,
    /// The stored line after the renewal.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

/// The members of an accepted `issue.lease_release`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Released<'a> {
    pub id: &'a str,
    /// The lease given back, as it was stored (snake_case; null when none).
    pub released_lease: Value,
    /// `unleased`.
    pub lease_state: &'static str,
    /// The stored line after the release.
    #[schemars(with = "StoredIssue")]
    pub issue: Map<String, Value>,
}

fn rejection_report(action: &str, path: &str, (classes, diag): InputRejection) -> Report {
    Report::rejected(action, path, &classes, diag)
}

/// What a claim of an issue that still waits on an open blocker does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Blockers {
    /// premath's rule: the claim is taken, with a warning naming the blockers.
    #[default]
    Warn,
    /// Refused (`issue.not_ready`): for fleets that claim only ready work.
    Respect,
}

/// The warning (or, respected, the diagnostic) for claiming `issue` while
/// it waits on `open` blockers.
fn blocked_text(id: &str, open: &[super::views::Blocker<'_>]) -> String {
    let names: Vec<String> = open
        .iter()
        .map(|b| match b.blocker_status {
            Some(status) => format!("{} ({status})", b.depends_on_id),
            None => format!("{} (missing)", b.depends_on_id),
        })
        .collect();
    format!(
        "{id} waits on {}, not yet closed: it is not ready (`issue ready` lists what is)",
        names.join(", ")
    )
}

/// `issue claim ID --assignee A [--lease-ttl-seconds S | --lease-expires-at T] [--lease-id L]`.
pub fn claim(
    ctx: &MutationCtx<'_>,
    id: &str,
    req: &LeaseRequest,
    blockers: Blockers,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let action = "issue.claim";
    let expires = match validate(req, ctx.now) {
        Ok(e) => e,
        Err(r) => return Ok(rejection_report(action, &path, r)),
    };
    let assignee = req.assignee.trim();
    // A claim reports its open blockers: its edges' targets.
    let report = run(ctx, action, Footprint::WithTargets(id), |store| {
        let Some(issue) = store.get(id) else {
            return (lease_not_found(action, &path, id), None);
        };
        let open = super::views::blockers(store, issue);
        let warnings = if open.is_empty() || issue.is_closed() {
            Vec::new()
        } else if blockers == Blockers::Respect {
            let diag = format!(
                "{}; claim refused (--respect-blockers)",
                blocked_text(id, &open)
            );
            let class = IssueClass::NotReady.as_str();
            return (Report::rejected(action, &path, &[class], diag), None);
        } else {
            vec![blocked_text(id, &open)]
        };
        match claim_object(
            store,
            issue,
            assignee,
            explicit_lease_id(req),
            expires,
            ctx.now,
        ) {
            Err((class, diag, extra)) => (
                Report::rejected_with(action, &path, &[class], diag, extra),
                None,
            ),
            Ok((m, cleared)) => {
                let edit = replace(store, issue, &m);
                let claimed = Claimed {
                    issue: projection::LeaseSummary::of(&m),
                    stale_lease_cleared: cleared,
                    warnings,
                };
                (Report::accepted_body(action, &path, claimed), Some(edit))
            }
        }
    });
    counted(report)
}

/// Counts a claim's outcome (telemetry) and passes it on.
fn counted(report: Result<Report, StoreError>) -> Result<Report, StoreError> {
    if let Ok(r) = &report {
        crate::telemetry::record::claim(
            r.failure_classes.first().map_or("accepted", String::as_str),
        );
    }
    report
}

/// `issue claim-next --assignee A [--lease-ttl-seconds S] [--lease-id L]`: the first
/// ready issue (ready order) whose claim would not be refused, i.e. one without an
/// active lease of another owner. None left is an accepted `claimed: false`.
/// Claims the first ready issue that `filter` passes (an empty filter: the
/// first ready issue).
pub fn claim_next(
    ctx: &MutationCtx<'_>,
    req: &LeaseRequest,
    filter: &super::filter::IssueFilter,
) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let action = "issue.claim_next";
    let expires = match validate(req, ctx.now) {
        Ok(e) => e,
        Err(r) => return Ok(rejection_report(action, &path, r)),
    };
    let assignee = req.assignee.trim();
    // Reads only the ready frontier: the database claims it row by row.
    let report = run_ready(ctx, action, filter, |store| {
        for issue in ready(store).into_iter().filter(|i| filter.passes(store, i)) {
            if let Ok((m, cleared)) = claim_object(
                store,
                issue,
                assignee,
                explicit_lease_id(req),
                expires,
                ctx.now,
            ) {
                let edit: Edit = replace(store, issue, &m);
                // claim-next takes ready issues only: no blocker to warn of.
                let claim = Claimed {
                    issue: projection::LeaseSummary::of(&m),
                    stale_lease_cleared: cleared,
                    warnings: Vec::new(),
                };
                let next = ClaimedNext::Claimed {
                    claim,
                    claimed: true,
                };
                return (Report::accepted_body(action, &path, next), Some(edit));
            }
        }
        let none = ClaimedNext::NoneReady {
            claimed: false,
            issue: (),
        };
        (Report::accepted_body(action, &path, none), None)
    });
    counted(report)
}

/// Owner and id checks shared by renew and release.
fn check_holder(
    issue: &Issue<'_>,
    assignee: &str,
    lease_id: Option<&str>,
    now: DateTime<Utc>,
    need_active: bool,
) -> Result<(), Rejection> {
    let id = issue.id.as_str();
    let Some(lease) = &issue.lease else {
        return Err((
            IssueClass::LeaseMissing.as_str(),
            format!("issue has no lease: {id}"),
        ));
    };
    if need_active && issue.lease_state(now) == LeaseState::Stale {
        return Err((
            IssueClass::LeaseStale.as_str(),
            format!("lease is stale and must be reclaimed: {id}"),
        ));
    }
    if lease.owner.as_str() != assignee {
        return Err((
            IssueClass::LeaseOwnerMismatch.as_str(),
            format!(
                "lease owner mismatch for {id} (expected={}, got={assignee})",
                lease.owner.as_str()
            ),
        ));
    }
    if lease_id.is_some_and(|l| l != lease.lease_id.as_str()) {
        return Err((
            IssueClass::LeaseIdMismatch.as_str(),
            format!(
                "lease_id mismatch for {id} (expected={}, got={})",
                lease.lease_id.as_str(),
                lease_id.unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// `issue lease-renew ID --assignee A --lease-id L [--lease-ttl-seconds S | --lease-expires-at T]`:
/// moves `expires_at` and sets `renewed_at` of an active lease.
pub fn renew(ctx: &MutationCtx<'_>, id: &str, req: &LeaseRequest) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let action = "issue.lease_renew";
    let expires = match validate(req, ctx.now) {
        Ok(e) => e,
        Err(r) => return Ok(rejection_report(action, &path, r)),
    };
    let assignee = req.assignee.trim();
    let stamp = format_time(ctx.now);
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return (lease_not_found(action, &path, id), None);
        };
        // Renewal names the lease it renews (the command line always does;
        // a program that leaves it out renews the lease the assignee holds).
        let lease_id = req.lease_id.as_deref();
        if let Err((class, diag)) = check_holder(issue, assignee, lease_id, ctx.now, true) {
            return (Report::rejected(action, &path, &[class], diag), None);
        }
        let mut m = object_of(store, issue);
        if let Some(Value::Object(lease)) = m.get_mut("lease") {
            lease.insert("expires_at".into(), json!(format_time(expires)));
            lease.insert("renewed_at".into(), json!(stamp));
        }
        let edit = replace(store, issue, &m);
        let renewed = Renewed {
            id,
            lease: m.get("lease").cloned().unwrap_or(Value::Null),
            lease_state: "active",
            issue: m,
        };
        (Report::accepted_body(action, &path, renewed), Some(edit))
    })
}

/// `issue lease-release ID --assignee A [--lease-id L]`: removes the lease and the
/// assignee, and reopens an `in_progress` issue. The owner may release a stale lease.
pub fn release(ctx: &MutationCtx<'_>, id: &str, req: &LeaseRequest) -> Result<Report, StoreError> {
    let path = ctx.path_str();
    let action = "issue.lease_release";
    let assignee = req.assignee.trim();
    if assignee.is_empty() {
        return Ok(Report::rejected(
            action,
            &path,
            &[IssueClass::LeaseInvalidAssignee.as_str()],
            "assignee is required",
        ));
    }
    let stamp = format_time(ctx.now);
    run(ctx, action, Footprint::Issue(id), |store| {
        let Some(issue) = store.get(id) else {
            return (lease_not_found(action, &path, id), None);
        };
        if let Err((class, diag)) =
            check_holder(issue, assignee, explicit_lease_id(req), ctx.now, false)
        {
            return (Report::rejected(action, &path, &[class], diag), None);
        }
        let mut m = object_of(store, issue);
        let released = m.remove("lease").unwrap_or(Value::Null);
        set_text(&mut m, "assignee", "");
        if issue.status.as_str() == "in_progress" {
            m.insert("status".into(), json!("open"));
        }
        m.insert("updated_at".into(), json!(stamp));
        let edit = replace(store, issue, &m);
        let released = Released {
            id,
            released_lease: released,
            lease_state: "unleased",
            issue: m,
        };
        (Report::accepted_body(action, &path, released), Some(edit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        parse_time("2026-03-01T12:00:00Z").unwrap()
    }

    fn req(assignee: &str, ttl: Option<i64>, expires: Option<&str>) -> LeaseRequest {
        LeaseRequest {
            assignee: assignee.into(),
            lease_id: None,
            term: LeaseTerm {
                ttl_seconds: ttl,
                expires_at: expires.map(String::from),
            },
        }
    }

    #[test]
    fn binding_rules() {
        assert_eq!(
            validate(&req("a", None, None), now()).unwrap(),
            now() + Duration::seconds(3600)
        );
        assert_eq!(
            validate(&req("a", Some(30), None), now()).unwrap(),
            now() + Duration::seconds(30)
        );
        assert_eq!(
            validate(&req("a", Some(29), None), now()).unwrap_err().0,
            vec!["lease_invalid_ttl"]
        );
        assert_eq!(
            validate(&req("a", Some(86401), None), now()).unwrap_err().0,
            vec!["lease_invalid_ttl"]
        );
        assert_eq!(
            validate(&req("a", Some(60), Some("2026-03-02T00:00:00Z")), now())
                .unwrap_err()
                .0,
            vec!["lease_binding_ambiguous"]
        );
        assert_eq!(
            validate(&req("a", None, Some("2026-03-01T12:00:00Z")), now())
                .unwrap_err()
                .0,
            vec!["lease_invalid_expires_at"]
        );
        assert_eq!(
            validate(&req("a", None, Some("tomorrow")), now())
                .unwrap_err()
                .0,
            vec!["lease_invalid_expires_at"]
        );
        assert_eq!(
            validate(&req(" ", Some(1), None), now()).unwrap_err().0,
            vec!["lease_invalid_assignee", "lease_invalid_ttl"]
        );
    }

    #[test]
    fn default_lease_id_token() {
        assert_eq!(
            default_lease_id("bd-7", "agent a/1"),
            "lease1_bd-7_agent_a_1"
        );
    }
}

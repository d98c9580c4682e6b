//! The three-way merge of an issue store (issue 48; docs/issue-memory.md,
//! "Merging stores"): what `tusk merge-driver BASE OURS THEIRS` computes.
//!
//! Record by record, keyed by id:
//!
//! - added on one side: kept; added on both sides: one line when they are
//!   equal, else (two issues minted the same id, as sequential ids do) the
//!   one with the later `(created_at, line)` is given a new id, and the
//!   edges that its side added towards the old id follow it;
//! - deleted on one side and unchanged on the other: deleted; deleted on one
//!   side and changed on the other: kept, and reported; an issue deleted by
//!   the merge that a kept edge still points at is kept, and reported;
//! - changed on one side: that side's line, byte for byte; changed on both:
//!   field by field against the base, below.
//!
//! Field by field: a scalar member comes from the side that changed it;
//! changed on both sides to different values, from the *later* side: the one
//! with the later `updated_at`, and on equal times the one whose whole line
//! is greater byte-wise (the stated tie-break that makes the merge of A into
//! B and of B into A the same bytes). `status`, `closed_at` and
//! `close_reason` are one member for this rule (a close is never half
//! taken). `labels`, `dependencies` (keyed by `depends_on_id`) and `comments`
//! (keyed by `id`) are merged as sets against the base: an element removed on
//! one side stays removed unless the other side changed it; comments added on
//! both sides under one id (comment ids count per issue) are all kept, the
//! later ones renumbered past the largest id. `lease`: the later lease wins
//! (`renewed_at`, else `acquired_at`; a removed lease counts at the line's
//! `updated_at`), and a lease ends when the merged issue is closed.
//!
//! Output: surviving issues of the base in the base's order, then new issues
//! by `created_at`, then id in natural order: the store's canonical order
//! (tusk appends new issues). A line taken whole keeps its bytes; a merged
//! line is encoded as tusk encodes a mutated line. Never a conflict marker.

use super::model::parse_time;
use super::store::{Store, StoreError};
use super::views::natural_cmp;
use crate::canonical::to_canonical_string;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// One decision of the merge, as printed and reported.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// The issue.
    pub id: String,
    /// The member, or none for a whole line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Which rule decided (a stable word: `added`, `deleted`, `delete_change_kept`,
    /// `changed_one_side`, `both_changed_same`, `both_changed_later`,
    /// `set_merged`, `lease_later`, `lease_ended_closed`, `id_collision_renamed`,
    /// `comment_renumbered`, `dependency_target_kept`, `both_added_merged`).
    pub rule: &'static str,
    /// Where the result came from: `ours`, `theirs`, `both`, `base` or `merged`.
    pub taken: &'static str,
    /// The decision in words.
    pub detail: String,
}

/// The merged store and how it was decided.
#[derive(Debug)]
pub struct Merged {
    pub text: String,
    pub issues: usize,
    pub decisions: Vec<Decision>,
    /// Per side (ours, theirs): how many of its issues the merge leaves out,
    /// and how many it had.
    pub lost: [(usize, usize); 2],
}

impl Merged {
    /// Why this merge must not be taken without being told to: it leaves
    /// out most of a side's issues (issue 55). tusk has no delete action,
    /// so a side that lost its issues was truncated or edited by hand, and
    /// a driver that took it would spread the loss to every clone.
    pub fn mass_deletion(&self) -> Option<String> {
        let [(ours_lost, ours), (theirs_lost, theirs)] = self.lost;
        let most = |lost: usize, of: usize| lost > 0 && lost * 2 > of;
        let (side, lost, of) = if most(ours_lost, ours) {
            ("ours", ours_lost, ours)
        } else if most(theirs_lost, theirs) {
            ("theirs", theirs_lost, theirs)
        } else {
            return None;
        };
        Some(format!(
            "the merge would delete {lost} of the {of} issue(s) {side} holds (the other side deleted them); \
             tusk has no delete action, so that side was probably truncated or edited by hand"
        ))
    }
}

/// One side's winning line for an id.
#[derive(Clone, Debug)]
struct Rec<'a> {
    raw: Cow<'a, str>,
    obj: Map<String, Value>,
}

impl Rec<'_> {
    fn time(&self, key: &str) -> Option<DateTime<Utc>> {
        self.obj
            .get(key)
            .and_then(Value::as_str)
            .and_then(parse_time)
    }

    /// The order of "later": `updated_at`, then the line's bytes.
    fn later_key(&self) -> (Option<DateTime<Utc>>, &str) {
        (self.time("updated_at"), &self.raw)
    }
}

/// One input: records by id, in file order.
struct Side<'a> {
    records: HashMap<String, Rec<'a>>,
    order: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Which {
    Ours,
    Theirs,
}

impl Which {
    fn word(self) -> &'static str {
        match self {
            Which::Ours => "ours",
            Which::Theirs => "theirs",
        }
    }
    fn other(self) -> Which {
        match self {
            Which::Ours => Which::Theirs,
            Which::Theirs => Which::Ours,
        }
    }
}

fn parse_side<'a>(path: &Path, text: &'a str) -> Result<Side<'a>, StoreError> {
    let store = Store::parse(path, text)?;
    let mut records = HashMap::with_capacity(store.issue_count());
    let mut order = Vec::with_capacity(store.issue_count());
    for issue in store.issues() {
        // A store just parsed holds no in-memory edits: its lines are `text`'s.
        let raw = &text[issue.span.clone()];
        let obj: Map<String, Value> =
            serde_json::from_str(raw).map_err(|e| StoreError::Corrupt {
                path: path.display().to_string(),
                line: issue.line,
                reason: format!("not valid JSON ({e})"),
            })?;
        let id = issue.id.as_str().to_string();
        order.push(id.clone());
        records.insert(
            id,
            Rec {
                raw: Cow::Borrowed(raw),
                obj,
            },
        );
    }
    Ok(Side { records, order })
}

/// Merges `ours` and `theirs` against `base` (each a store's text; `paths`
/// name them in errors).
///
/// # Errors
/// A text that is not a store: nothing is merged.
pub fn merge(
    base: &str,
    ours: &str,
    theirs: &str,
    paths: [&Path; 3],
) -> Result<Merged, StoreError> {
    let base = parse_side(paths[0], base)?;
    let mut ours = parse_side(paths[1], ours)?;
    let mut theirs = parse_side(paths[2], theirs)?;
    let mut log = Vec::new();
    rename_collisions(&base, &mut ours, &mut theirs, &mut log);
    let mut ids: Vec<&String> = base.order.iter().collect();
    let base_ids: HashSet<&String> = base.order.iter().collect();
    let mut new_ids: Vec<&String> = ours
        .order
        .iter()
        .chain(theirs.order.iter())
        .filter(|id| !base_ids.contains(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let created = |id: &String| {
        let rec = ours.records.get(id).or_else(|| theirs.records.get(id));
        rec.and_then(|r| r.time("created_at"))
    };
    new_ids.sort_by(|a, b| created(a).cmp(&created(b)).then_with(|| natural_cmp(a, b)));
    ids.extend(new_ids);
    let mut out: Vec<(String, Option<Rec<'_>>)> = Vec::with_capacity(ids.len());
    for id in ids {
        let b = base.records.get(id);
        let o = ours.records.get(id);
        let t = theirs.records.get(id);
        out.push((id.clone(), merge_record(id, b, o, t, &mut log)));
    }
    keep_dependency_targets(&mut out, &base, &ours, &theirs, &mut log);
    let mut text = String::new();
    let mut issues = 0;
    for rec in out.iter().filter_map(|(_, r)| r.as_ref()) {
        text.push_str(&rec.raw);
        text.push('\n');
        issues += 1;
    }
    let kept: HashSet<&str> = out
        .iter()
        .filter(|(_, r)| r.is_some())
        .map(|(id, _)| id.as_str())
        .collect();
    let lost = |side: &Side<'_>| {
        let gone = side
            .order
            .iter()
            .filter(|id| !kept.contains(id.as_str()))
            .count();
        (gone, side.order.len())
    };
    let lost = [lost(&ours), lost(&theirs)];
    Ok(Merged {
        text,
        issues,
        decisions: log,
        lost,
    })
}

fn decision(
    id: &str,
    field: Option<&str>,
    rule: &'static str,
    taken: &'static str,
    detail: String,
) -> Decision {
    Decision {
        id: id.to_string(),
        field: field.map(str::to_string),
        rule,
        taken,
        detail,
    }
}

fn encode(obj: Map<String, Value>) -> Rec<'static> {
    let raw = serde_json::to_string(&obj).expect("a JSON map always encodes");
    Rec {
        raw: Cow::Owned(raw),
        obj,
    }
}

/// Of two different records, the later one (see the module docs).
fn later_of(o: &Rec<'_>, t: &Rec<'_>) -> Which {
    if t.later_key() > o.later_key() {
        Which::Theirs
    } else {
        Which::Ours
    }
}

/// One id's line in the merged store (`None`: deleted).
fn merge_record<'a>(
    id: &str,
    b: Option<&Rec<'a>>,
    o: Option<&Rec<'a>>,
    t: Option<&Rec<'a>>,
    log: &mut Vec<Decision>,
) -> Option<Rec<'a>> {
    let equal = |x: &Rec<'_>, y: &Rec<'_>| x.obj == y.obj;
    match (b, o, t) {
        (_, None, None) => {
            if b.is_some() {
                log.push(decision(
                    id,
                    None,
                    "deleted",
                    "both",
                    "deleted on both sides".into(),
                ));
            }
            None
        }
        (None, Some(one), None) | (None, None, Some(one)) => {
            let side = if o.is_some() { "ours" } else { "theirs" };
            log.push(decision(
                id,
                None,
                "added",
                side,
                format!("added on {side}"),
            ));
            Some(one.clone())
        }
        (None, Some(o), Some(t)) if equal(o, t) => Some(either(o, t)),
        (None, Some(o), Some(t)) => {
            log.push(decision(
                id,
                None,
                "both_added_merged",
                "merged",
                "added on both sides as the same issue (same created_at and title): merged field by field".into(),
            ));
            let empty = Rec {
                raw: Cow::Borrowed(""),
                obj: Map::new(),
            };
            Some(merge_fields(id, &empty, o, t, log))
        }
        (Some(b), Some(kept), None) | (Some(b), None, Some(kept)) => {
            let (side, gone) = if o.is_some() {
                ("ours", "theirs")
            } else {
                ("theirs", "ours")
            };
            if equal(b, kept) {
                log.push(decision(
                    id,
                    None,
                    "deleted",
                    gone,
                    format!("deleted on {gone}, unchanged on {side}: deleted"),
                ));
                None
            } else {
                log.push(decision(
                    id,
                    None,
                    "delete_change_kept",
                    side,
                    format!("deleted on {gone} but changed on {side}: kept as {side} has it"),
                ));
                Some(kept.clone())
            }
        }
        (Some(b), Some(o), Some(t)) => Some(merge_present(id, b, o, t, log)),
    }
}

/// Of two equal records, the smaller line (either way round, the same bytes).
fn either<'a>(x: &Rec<'a>, y: &Rec<'a>) -> Rec<'a> {
    if y.raw < x.raw {
        y.clone()
    } else {
        x.clone()
    }
}

/// A record on all three: one side's line when only it changed, else field
/// by field.
fn merge_present<'a>(
    id: &str,
    b: &Rec<'a>,
    o: &Rec<'a>,
    t: &Rec<'a>,
    log: &mut Vec<Decision>,
) -> Rec<'a> {
    if o.obj == t.obj {
        if o.obj != b.obj {
            log.push(decision(
                id,
                None,
                "both_changed_same",
                "both",
                "changed the same way on both sides".into(),
            ));
        }
        either(o, t)
    } else if o.obj == b.obj {
        log.push(decision(
            id,
            None,
            "changed_one_side",
            "theirs",
            "changed on theirs only".into(),
        ));
        t.clone()
    } else if t.obj == b.obj {
        log.push(decision(
            id,
            None,
            "changed_one_side",
            "ours",
            "changed on ours only".into(),
        ));
        o.clone()
    } else {
        merge_fields(id, b, o, t, log)
    }
}

/// Members decided together by the scalar rule.
const STATUS_GROUP: [&str; 3] = ["status", "closed_at", "close_reason"];

/// Both sides changed the record: member by member.
fn merge_fields<'a>(
    id: &str,
    b: &Rec<'_>,
    o: &Rec<'a>,
    t: &Rec<'a>,
    log: &mut Vec<Decision>,
) -> Rec<'a> {
    let later = later_of(o, t);
    let side = |w: Which| if w == Which::Ours { o } else { t };
    // Key order: the base's, then the later side's, then the other's.
    let mut keys: Vec<&String> = Vec::new();
    let mut seen = HashSet::new();
    for key in b
        .obj
        .keys()
        .chain(side(later).obj.keys())
        .chain(side(later.other()).obj.keys())
    {
        if seen.insert(key.as_str()) {
            keys.push(key);
        }
    }
    let mut merged: Map<String, Value> = Map::new();
    let mut group_done = false;
    for key in keys {
        let k = key.as_str();
        if STATUS_GROUP.contains(&k) {
            if !group_done {
                group_done = true;
                merge_group(id, &STATUS_GROUP, b, o, t, later, &mut merged, log);
            }
            continue;
        }
        if k == "lease" {
            continue;
        }
        let (bv, ov, tv) = (b.obj.get(k), o.obj.get(k), t.obj.get(k));
        let value = match k {
            "labels" | "dependencies" | "comments" => merge_set(id, k, bv, ov, tv, later, log),
            _ => merge_scalar(id, k, bv, ov, tv, later, log),
        };
        if let Some(v) = value {
            merged.insert(key.clone(), v);
        }
    }
    merge_lease(id, b, o, t, later, &mut merged, log);
    // Re-order to the key order (the status group and lease were inserted late).
    let mut ordered = Map::new();
    for key in b
        .obj
        .keys()
        .chain(side(later).obj.keys())
        .chain(side(later.other()).obj.keys())
    {
        if let Some(v) = merged.remove(key) {
            ordered.insert(key.clone(), v);
        }
    }
    // A merge that equals one side keeps that side's bytes.
    if ordered == o.obj {
        return o.clone();
    }
    if ordered == t.obj {
        return t.clone();
    }
    encode(ordered)
}

fn shown(v: Option<&Value>) -> String {
    v.map_or_else(|| "(absent)".to_string(), |v| v.to_string())
}

/// Three-way on one value: `None` in the result means absent.
fn merge_scalar(
    id: &str,
    key: &str,
    bv: Option<&Value>,
    ov: Option<&Value>,
    tv: Option<&Value>,
    later: Which,
    log: &mut Vec<Decision>,
) -> Option<Value> {
    if ov == tv {
        return ov.cloned();
    }
    if ov == bv {
        log.push(decision(
            id,
            Some(key),
            "changed_one_side",
            "theirs",
            format!("changed on theirs only: {}", shown(tv)),
        ));
        return tv.cloned();
    }
    if tv == bv {
        log.push(decision(
            id,
            Some(key),
            "changed_one_side",
            "ours",
            format!("changed on ours only: {}", shown(ov)),
        ));
        return ov.cloned();
    }
    let (won, lost) = if later == Which::Ours {
        (ov, tv)
    } else {
        (tv, ov)
    };
    log.push(decision(
        id,
        Some(key),
        "both_changed_later",
        later.word(),
        format!(
            "changed on both sides: {} from {} (later updated_at, then the greater line), not {}",
            shown(won),
            later.word(),
            shown(lost)
        ),
    ));
    won.cloned()
}

/// The scalar rule over several members taken together.
#[allow(clippy::too_many_arguments)]
fn merge_group(
    id: &str,
    group: &[&str],
    b: &Rec<'_>,
    o: &Rec<'_>,
    t: &Rec<'_>,
    later: Which,
    merged: &mut Map<String, Value>,
    log: &mut Vec<Decision>,
) {
    let pick = |r: &Rec<'_>| -> Vec<Option<Value>> {
        group.iter().map(|k| r.obj.get(*k).cloned()).collect()
    };
    let (bv, ov, tv) = (pick(b), pick(o), pick(t));
    let name = group.join("+");
    let chosen = if ov == tv {
        ov
    } else if ov == bv {
        log.push(decision(
            id,
            Some(&name),
            "changed_one_side",
            "theirs",
            format!("changed on theirs only: {}", shown(tv[0].as_ref())),
        ));
        tv
    } else if tv == bv {
        log.push(decision(
            id,
            Some(&name),
            "changed_one_side",
            "ours",
            format!("changed on ours only: {}", shown(ov[0].as_ref())),
        ));
        ov
    } else {
        let (won, lost) = if later == Which::Ours {
            (ov, tv)
        } else {
            (tv, ov)
        };
        log.push(decision(
            id,
            Some(&name),
            "both_changed_later",
            later.word(),
            format!(
                "changed on both sides: status {} from {} (later updated_at, then the greater line), not {}",
                shown(won[0].as_ref()),
                later.word(),
                shown(lost[0].as_ref())
            ),
        ));
        won
    };
    for (k, v) in group.iter().zip(chosen) {
        if let Some(v) = v {
            merged.insert((*k).to_string(), v);
        }
    }
}

/// When a lease was last taken or given up on a side.
fn lease_time(r: &Rec<'_>) -> Option<DateTime<Utc>> {
    match r.obj.get("lease") {
        Some(l) => ["renewed_at", "acquired_at"]
            .iter()
            .find_map(|k| l.get(*k).and_then(Value::as_str).and_then(parse_time)),
        None => r.time("updated_at"),
    }
}

fn is_closed(r: &Rec<'_>) -> bool {
    r.obj.get("status").and_then(Value::as_str) == Some("closed")
}

fn merge_lease(
    id: &str,
    b: &Rec<'_>,
    o: &Rec<'_>,
    t: &Rec<'_>,
    later: Which,
    merged: &mut Map<String, Value>,
    log: &mut Vec<Decision>,
) {
    let (bv, ov, tv) = (b.obj.get("lease"), o.obj.get("lease"), t.obj.get("lease"));
    let ended = |log: &mut Vec<Decision>, why: &str| {
        log.push(decision(
            id,
            Some("lease"),
            "lease_ended_closed",
            "merged",
            format!("{why}: the lease ends"),
        ));
    };
    if merged.get("status").and_then(Value::as_str) == Some("closed") {
        if ov.is_some() || tv.is_some() {
            ended(log, "the merged issue is closed");
        }
        return;
    }
    let (value, from) = if ov == tv {
        (ov, None)
    } else if ov == bv {
        log.push(decision(
            id,
            Some("lease"),
            "changed_one_side",
            "theirs",
            format!("changed on theirs only: {}", shown(tv)),
        ));
        (tv, Some(Which::Theirs))
    } else if tv == bv {
        log.push(decision(
            id,
            Some("lease"),
            "changed_one_side",
            "ours",
            format!("changed on ours only: {}", shown(ov)),
        ));
        (ov, Some(Which::Ours))
    } else {
        let winner = later_lease(id, o, t, later, merged, log);
        (if winner == Which::Ours { ov } else { tv }, Some(winner))
    };
    // A lease taken on one side of an issue the other side closed ends.
    let closed_by = |w: Which| {
        let r = if w == Which::Ours { o } else { t };
        is_closed(r) && !is_closed(b)
    };
    if let (Some(_), Some(w)) = (value, from) {
        if closed_by(w.other()) {
            ended(log, &format!("{} closed the issue", w.other().word()));
            return;
        }
    }
    if let Some(v) = value {
        merged.insert("lease".into(), v.clone());
    }
}

/// Leases changed on both sides: the side of the later one (its holder
/// becomes the assignee).
fn later_lease(
    id: &str,
    o: &Rec<'_>,
    t: &Rec<'_>,
    later: Which,
    merged: &mut Map<String, Value>,
    log: &mut Vec<Decision>,
) -> Which {
    let (ov, tv) = (o.obj.get("lease"), t.obj.get("lease"));
    let key = |r: &Rec<'_>, v: Option<&Value>| {
        (
            lease_time(r),
            v.map(to_canonical_string).unwrap_or_default(),
        )
    };
    let winner = match key(t, tv).cmp(&key(o, ov)) {
        Ordering::Greater => Which::Theirs,
        Ordering::Less => Which::Ours,
        Ordering::Equal => later,
    };
    let (won, lost, side) = if winner == Which::Ours {
        (ov, tv, o)
    } else {
        (tv, ov, t)
    };
    log.push(decision(
        id,
        Some("lease"),
        "lease_later",
        winner.word(),
        format!(
            "leases changed on both sides: the later one ({}) from {}, not {}",
            shown(won),
            winner.word(),
            shown(lost)
        ),
    ));
    if let Some(assignee) = side.obj.get("assignee") {
        if merged.get("assignee") != Some(assignee) {
            merged.insert("assignee".into(), assignee.clone());
            log.push(decision(
                id,
                Some("assignee"),
                "lease_later",
                winner.word(),
                format!("the assignee of the later lease: {assignee}"),
            ));
        }
    }
    winner
}

/// The key of a set element: a dependency's target, a comment's id, a label.
fn element_key(field: &str, v: &Value) -> String {
    let member = match field {
        "dependencies" => v.get("depends_on_id"),
        "comments" => v.get("id"),
        _ => None,
    };
    to_canonical_string(member.unwrap_or(v))
}

fn keyed<'v>(field: &str, v: Option<&'v Value>) -> BTreeMap<String, &'v Value> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|e| (element_key(field, e), e)).collect())
        .unwrap_or_default()
}

fn elements(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A set member merged against the base (see the module docs).
fn merge_set(
    id: &str,
    field: &str,
    bv: Option<&Value>,
    ov: Option<&Value>,
    tv: Option<&Value>,
    later: Which,
    log: &mut Vec<Decision>,
) -> Option<Value> {
    if ov == tv {
        return ov.cloned();
    }
    let is_list = |v: Option<&Value>| v.is_none_or(Value::is_array);
    if !(is_list(bv) && is_list(ov) && is_list(tv)) {
        // Not lists (or absent) on every side: the scalar rule.
        return merge_scalar(id, field, bv, ov, tv, later, log);
    }
    let (bk, ok, tk) = (keyed(field, bv), keyed(field, ov), keyed(field, tv));
    let mut notes: Vec<String> = Vec::new();
    let mut result = base_elements(field, bv, [&bk, &ok, &tk], later, &mut notes);
    let (first, second) = if later == Which::Ours {
        (ov, tv)
    } else {
        (tv, ov)
    };
    let (first_k, second_k) = if later == Which::Ours {
        (&ok, &tk)
    } else {
        (&tk, &ok)
    };
    let mut added: Vec<Value> = Vec::new();
    let mut added_keys = HashSet::new();
    for (e, other) in elements(first)
        .iter()
        .map(|e| (e, second_k))
        .chain(elements(second).iter().map(|e| (e, first_k)))
    {
        let k = element_key(field, e);
        if bk.contains_key(&k) || added_keys.contains(&k) {
            continue;
        }
        if field == "comments" {
            added.push(e.clone());
            continue;
        }
        added_keys.insert(k.clone());
        let from_both = other.get(&k).is_some_and(|x| *x == e);
        notes.push(format!(
            "{k} added{}",
            if from_both { " on both sides" } else { "" }
        ));
        added.push(e.clone());
    }
    if field == "comments" {
        added = number_comments(id, added, &result, log);
        notes.push(format!("{} comment(s) added", added.len()));
    }
    result.extend(added);
    if result.is_empty() && (ov.is_none() || tv.is_none()) {
        log.push(decision(
            id,
            Some(field),
            "set_merged",
            "merged",
            "merged as a set against the base: empty".into(),
        ));
        return None;
    }
    log.push(decision(
        id,
        Some(field),
        "set_merged",
        "merged",
        format!("merged as a set against the base: {}", notes.join("; ")),
    ));
    Some(Value::Array(result))
}

/// The base's elements a merge keeps (removed on one side and unchanged on
/// the other: gone), in the base's order.
fn base_elements(
    field: &str,
    bv: Option<&Value>,
    [bk, ok, tk]: [&BTreeMap<String, &Value>; 3],
    later: Which,
    notes: &mut Vec<String>,
) -> Vec<Value> {
    let mut result = Vec::new();
    let mut done = HashSet::new();
    for e in elements(bv) {
        let k = element_key(field, e);
        if !done.insert(k.clone()) {
            continue;
        }
        let b = bk[&k];
        match (ok.get(&k), tk.get(&k)) {
            (None, None) => notes.push(format!("{k} removed on both sides")),
            (Some(x), None) | (None, Some(x)) => {
                let (has, gone) = if ok.contains_key(&k) {
                    ("ours", "theirs")
                } else {
                    ("theirs", "ours")
                };
                if *x == b {
                    notes.push(format!("{k} removed on {gone}"));
                } else {
                    notes.push(format!("{k} removed on {gone} but changed on {has}: kept"));
                    result.push((*x).clone());
                }
            }
            (Some(o), Some(t)) => result.push(pick3(b, o, t, later).clone()),
        }
    }
    result
}

/// Of three versions of one element, the one the scalar rule picks.
fn pick3<'v>(b: &Value, o: &'v Value, t: &'v Value, later: Which) -> &'v Value {
    if o == t || t == b {
        o
    } else if o == b {
        t
    } else if later == Which::Ours {
        o
    } else {
        t
    }
}

/// Comments added on either side: equal ones once, in `(created_at, text)`
/// order; one whose id another added comment took first is renumbered past
/// the largest id.
fn number_comments(
    id: &str,
    mut added: Vec<Value>,
    kept: &[Value],
    log: &mut Vec<Decision>,
) -> Vec<Value> {
    let order_key = |c: &Value| {
        (
            c.get("created_at")
                .and_then(Value::as_str)
                .and_then(parse_time),
            to_canonical_string(c),
        )
    };
    added.sort_by_key(order_key);
    added.dedup();
    let in_use: Vec<i64> = kept
        .iter()
        .chain(added.iter())
        .filter_map(|c| c.get("id").and_then(Value::as_i64))
        .collect();
    let mut ids = super::tracker::CommentIds::new(in_use);
    let mut taken: HashSet<String> = kept.iter().map(|c| element_key("comments", c)).collect();
    for c in &mut added {
        let k = element_key("comments", c);
        if taken.insert(k.clone()) {
            continue;
        }
        let Some(next) = ids.next() else {
            // Every comment id is taken: keep the comment's own (the
            // store's comment list keeps both).
            continue;
        };
        if let Some(obj) = c.as_object_mut() {
            obj.insert("id".into(), Value::from(next));
        }
        taken.insert(next.to_string());
        log.push(decision(id, Some("comments"), "comment_renumbered", "merged", format!("comment {k} was added on both sides with different texts: the later one is now comment {next}")));
    }
    added
}

/// Two issues added on the two sides under one id: the later is given a new
/// id, and the edges its side added towards it follow it.
///
/// Every rename is decided first, then each side's edges are rewritten
/// against that side's whole map (issue 55): an edge means "this side's
/// issue X", so on the side whose X was renamed it names X's new id, even
/// when the edge's own issue was renamed too (an epic and its child added
/// on both sides). Linear in the stores: ids are looked up in sets, the
/// next number of each prefix is kept, each record is visited once.
fn rename_collisions<'a>(
    base: &Side<'_>,
    ours: &mut Side<'a>,
    theirs: &mut Side<'a>,
    log: &mut Vec<Decision>,
) {
    let mut colliding: Vec<String> = ours
        .order
        .iter()
        .filter(|id| !base.records.contains_key(*id))
        .filter(
            |id| match (ours.records.get(*id), theirs.records.get(*id)) {
                (Some(o), Some(t)) => o.obj != t.obj && !same_issue(o, t),
                _ => false,
            },
        )
        .cloned()
        .collect();
    if colliding.is_empty() {
        return;
    }
    colliding.sort_by(|a, b| natural_cmp(a, b));
    let mut fresh = FreshIds::new(
        base.order
            .iter()
            .chain(ours.order.iter())
            .chain(theirs.order.iter()),
    );
    let mut renames: [HashMap<String, String>; 2] = [HashMap::new(), HashMap::new()];
    for old in &colliding {
        let (o, t) = (&ours.records[old], &theirs.records[old]);
        let key = |r: &Rec<'_>| (r.time("created_at"), r.raw.to_string());
        let loser = if key(t) > key(o) {
            Which::Theirs
        } else {
            Which::Ours
        };
        let new = fresh.next(old, if loser == Which::Ours { &o.raw } else { &t.raw });
        log.push(decision(
            &new,
            Some("id"),
            "id_collision_renamed",
            loser.word(),
            format!("{old} was added on both sides as two different issues: the later one (from {}) is now {new}, with the edges {} added towards it", loser.word(), loser.word()),
        ));
        renames[usize::from(loser == Which::Theirs)].insert(old.clone(), new);
    }
    let colliding: HashSet<String> = colliding.into_iter().collect();
    let [ours_map, theirs_map] = renames;
    let theirs_ids: HashSet<String> = theirs.order.iter().cloned().collect();
    let ours_ids: HashSet<String> = ours.order.iter().cloned().collect();
    rename_in_side(ours, &theirs_ids, base, &colliding, &ours_map);
    rename_in_side(theirs, &ours_ids, base, &colliding, &theirs_map);
}

/// The same issue added on both sides (e.g. a commit picked onto both).
fn same_issue(o: &Rec<'_>, t: &Rec<'_>) -> bool {
    o.obj.get("created_at") == t.obj.get("created_at") && o.obj.get("title") == t.obj.get("title")
}

/// New ids for the losers of collisions: never one in use, never past the
/// end of the number line.
struct FreshIds {
    used: HashSet<String>,
    /// The largest number after each prefix, once asked for.
    largest: HashMap<String, u64>,
}

impl FreshIds {
    fn new<'i>(ids: impl Iterator<Item = &'i String>) -> Self {
        Self {
            used: ids.cloned().collect(),
            largest: HashMap::new(),
        }
    }

    /// A free id for the loser of `old`: the next number for a numbered id
    /// (`bd-7` → one past the largest `bd-N`), else (or when the numbers
    /// run out) `<prefix>-<base36 of the line's digest>`, as long as the
    /// old tail and longer while taken, then with a counter.
    fn next(&mut self, old: &str, raw: &str) -> String {
        let (prefix, tail) = old.rsplit_once('-').unwrap_or((old, ""));
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            let used = &self.used;
            let largest = self.largest.entry(prefix.to_string()).or_insert_with(|| {
                used.iter()
                    .filter_map(|id| id.rsplit_once('-'))
                    .filter(|(p, _)| *p == prefix)
                    .filter_map(|(_, n)| n.parse::<u64>().ok())
                    .max()
                    .unwrap_or(0)
            });
            let mut n = *largest;
            while let Some(next) = n.checked_add(1) {
                n = next;
                let id = format!("{prefix}-{n}");
                if !self.used.contains(&id) {
                    *self.largest.get_mut(prefix).expect("just set") = n;
                    self.used.insert(id.clone());
                    return id;
                }
            }
        }
        let digest = crate::canonical::sha256_hex(raw.as_bytes());
        let digits: String = digest
            .as_bytes()
            .chunks(2)
            .map(|pair| {
                let byte =
                    u8::from_str_radix(std::str::from_utf8(pair).unwrap_or("0"), 16).unwrap_or(0);
                char::from(b"0123456789abcdefghijklmnopqrstuvwxyz"[usize::from(byte % 36)])
            })
            .collect();
        let candidates = (tail.len().max(4)..=digits.len())
            .map(|len| format!("{prefix}-{}", &digits[..len]))
            .chain((2u64..).map(|k| format!("{prefix}-{digits}{k}")));
        for id in candidates {
            if self.used.insert(id.clone()) {
                return id;
            }
        }
        unreachable!("an endless run of candidates always has a free one")
    }
}

/// Renames one side's losers (`map`: old id → new id) and points that
/// side's edges at them. The records renamed take their new id (and their
/// edges' and comments' `issue_id`); then every edge towards a renamed id
/// follows it in each record that is this side's own — a base issue, an
/// issue only this side added, or either issue of a collision — except an
/// edge the record's base line already had (the base never had the issue,
/// so such an edge is a dangling one of the base's, not this side's). An
/// issue both sides added as the same issue keeps its edges: which side's
/// issue they meant cannot be told.
fn rename_in_side(
    side: &mut Side<'_>,
    other_ids: &HashSet<String>,
    base: &Side<'_>,
    colliding: &HashSet<String>,
    map: &HashMap<String, String>,
) {
    if map.is_empty() {
        return;
    }
    for (old, new) in map {
        let Some(mut rec) = side.records.remove(old) else {
            continue;
        };
        let old_v = Value::from(old.as_str());
        let new_v = Value::from(new.as_str());
        rec.obj.insert("id".into(), new_v.clone());
        for field in ["dependencies", "comments"] {
            if let Some(Value::Array(items)) = rec.obj.get_mut(field) {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    if item.get("issue_id") == Some(&old_v) {
                        item.insert("issue_id".into(), new_v.clone());
                    }
                }
            }
        }
        side.records.insert(new.clone(), encode(rec.obj));
    }
    for id in &mut side.order {
        if let Some(new) = map.get(id.as_str()) {
            *id = new.clone();
        }
    }
    let renamed: HashSet<&String> = map.values().collect();
    for id in &side.order {
        let own = renamed.contains(id)
            || colliding.contains(id)
            || base.records.contains_key(id)
            || !other_ids.contains(id);
        if !own {
            continue;
        }
        let base_edges: HashSet<&Value> = base
            .records
            .get(id)
            .map(|r| {
                elements(r.obj.get("dependencies"))
                    .iter()
                    .filter_map(|d| d.get("depends_on_id"))
                    .collect()
            })
            .unwrap_or_default();
        let rec = side.records.get_mut(id).expect("listed");
        let mut changed = false;
        if let Some(Value::Array(deps)) = rec.obj.get_mut("dependencies") {
            for dep in deps.iter_mut().filter_map(Value::as_object_mut) {
                let target = dep.get("depends_on_id").and_then(Value::as_str);
                let Some(new) = target.and_then(|t| map.get(t)) else {
                    continue;
                };
                if base_edges.contains(dep.get("depends_on_id").expect("read above")) {
                    continue;
                }
                dep.insert("depends_on_id".into(), Value::from(new.as_str()));
                changed = true;
            }
        }
        if changed {
            let obj = std::mem::take(&mut rec.obj);
            *rec = encode(obj);
        }
    }
}

/// An issue the merge deleted that a kept edge points at is kept (as the
/// side that still has it, else the base), until no such edge is left.
fn keep_dependency_targets<'a>(
    out: &mut [(String, Option<Rec<'a>>)],
    base: &Side<'a>,
    ours: &Side<'a>,
    theirs: &Side<'a>,
    log: &mut Vec<Decision>,
) {
    loop {
        let present: HashSet<&str> = out
            .iter()
            .filter(|(_, r)| r.is_some())
            .map(|(id, _)| id.as_str())
            .collect();
        let mut wanted: BTreeMap<String, String> = BTreeMap::new();
        for (id, rec) in out.iter() {
            let Some(rec) = rec else { continue };
            for dep in elements(rec.obj.get("dependencies")) {
                if let Some(target) = dep.get("depends_on_id").and_then(Value::as_str) {
                    if !present.contains(target) {
                        wanted
                            .entry(target.to_string())
                            .or_insert_with(|| id.clone());
                    }
                }
            }
        }
        let mut restored = false;
        for (id, rec) in out.iter_mut().filter(|(_, r)| r.is_none()) {
            let Some(by) = wanted.get(id.as_str()) else {
                continue;
            };
            let found = match (
                ours.records.get(id.as_str()),
                theirs.records.get(id.as_str()),
            ) {
                (Some(o), Some(t)) => Some(if t.raw < o.raw { t } else { o }),
                (Some(r), None) | (None, Some(r)) => Some(r),
                (None, None) => base.records.get(id.as_str()),
            };
            if let Some(found) = found {
                *rec = Some(found.clone());
                restored = true;
                log.push(decision(
                    id,
                    None,
                    "dependency_target_kept",
                    "merged",
                    format!("deleted by the merge, but {by} depends on it: kept"),
                ));
            }
        }
        if !restored {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(b: &str, o: &str, t: &str) -> Merged {
        let p = Path::new("x");
        merge(b, o, t, [p, p, p]).unwrap()
    }

    #[test]
    fn both_ways_give_the_same_bytes() {
        let b = "{\"id\":\"a\",\"title\":\"t\",\"updated_at\":\"2026-01-01T00:00:00Z\"}\n";
        let o = "{\"id\":\"a\",\"title\":\"o\",\"labels\":[\"x\"],\"updated_at\":\"2026-01-01T00:00:01Z\"}\n{\"id\":\"b\",\"title\":\"new\"}\n";
        let t = "{\"id\":\"a\",\"title\":\"t2\",\"labels\":[\"y\"],\"updated_at\":\"2026-01-01T00:00:02Z\"}\n";
        let one = run(b, o, t);
        let two = run(b, t, o);
        assert_eq!(one.text, two.text);
        assert!(one.text.contains("\"title\":\"t2\""), "{}", one.text);
        assert!(one.text.contains("[\"y\",\"x\"]"), "{}", one.text);
        assert_eq!(one.issues, 2);
    }

    /// A small deterministic generator (xorshift), so a failing case can be
    /// rerun by its seed.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n.max(1)
        }
    }

    fn line(id: &str, title: &str, day: u64, deps: &[(String, &str)]) -> String {
        let deps: Vec<Value> = deps
            .iter()
            .map(|(to, ty)| serde_json::json!({"issue_id": id, "depends_on_id": to, "type": ty}))
            .collect();
        let mut obj = serde_json::json!({
            "id": id, "title": title, "status": "open",
            "created_at": format!("2026-01-{:02}T00:00:00Z", day % 28 + 1),
            "updated_at": format!("2026-01-{:02}T00:00:00Z", day % 28 + 1),
        });
        if !deps.is_empty() {
            obj["dependencies"] = Value::Array(deps);
        }
        obj.to_string()
    }

    /// The edges of a store as (source title, target title, type): what
    /// each edge means, whatever ids the issues carry.
    fn meanings(text: &str) -> HashSet<(String, String, String)> {
        let rows: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let title: HashMap<&str, &str> = rows
            .iter()
            .map(|r| (r["id"].as_str().unwrap(), r["title"].as_str().unwrap()))
            .collect();
        let mut out = HashSet::new();
        for r in &rows {
            for d in r["dependencies"].as_array().into_iter().flatten() {
                let to = d["depends_on_id"].as_str().unwrap();
                out.insert((
                    r["title"].as_str().unwrap().to_string(),
                    title
                        .get(to)
                        .map_or(format!("<missing {to}>"), |t| t.to_string()),
                    d["type"].as_str().unwrap().to_string(),
                ));
            }
        }
        out
    }

    /// One side: the base's issues, some with an edge added towards a new
    /// issue of this side, and new issues numbered after the base (so both
    /// sides mint the same ids), linked among themselves and to the base.
    fn side(rng: &mut Rng, name: &str, base_n: u64, new_n: u64, numbered: bool) -> String {
        let id = |k: u64| {
            if numbered {
                format!("bd-{k}")
            } else {
                // Hash-style ids drawn from a small alphabet collide too.
                format!(
                    "bd-{}",
                    ["a1", "b2", "c3", "d4", "e5", "f6"][k as usize % 6]
                )
            }
        };
        let new_ids: Vec<String> = (base_n + 1..=base_n + new_n).map(id).collect();
        let mut out = String::new();
        for k in 1..=base_n {
            let mut deps = Vec::new();
            if !new_ids.is_empty() && rng.below(3) == 0 {
                deps.push((new_ids[rng.below(new_n) as usize].clone(), "related"));
            }
            let day = if deps.is_empty() {
                0
            } else {
                1 + rng.below(20)
            };
            out.push_str(&line(&format!("bd-{k}"), &format!("base {k}"), day, &deps));
            out.push('\n');
        }
        let mut seen = HashSet::new();
        for (i, nid) in new_ids.iter().enumerate() {
            if !seen.insert(nid.clone()) {
                continue;
            }
            let mut deps: Vec<(String, &str)> = Vec::new();
            for _ in 0..rng.below(3) {
                let to = if i > 0 && rng.below(2) == 0 {
                    new_ids[rng.below(i as u64) as usize].clone()
                } else {
                    format!("bd-{}", 1 + rng.below(base_n))
                };
                let ty = ["parent-child", "blocks", "related"][rng.below(3) as usize];
                if to != *nid && !deps.iter().any(|(t, _)| *t == to) {
                    deps.push((to, ty));
                }
            }
            let title = format!("{name} {i}");
            out.push_str(&line(nid, &title, 2 + rng.below(20), &deps));
            out.push('\n');
        }
        out
    }

    /// Issue 55: every edge keeps its meaning through a merge that renames
    /// colliding ids (an epic and its child added on both sides, edges from
    /// base issues to new ones, hash-style and numbered ids), and the merge
    /// is the same bytes both ways.
    #[test]
    fn every_edge_keeps_its_meaning() {
        for seed in 1..=400u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let base_n = 1 + rng.below(4);
            let numbered = seed % 4 != 0;
            let base: String = (1..=base_n)
                .map(|k| line(&format!("bd-{k}"), &format!("base {k}"), 0, &[]) + "\n")
                .collect();
            let (ours_n, theirs_n) = (1 + rng.below(4), 1 + rng.below(4));
            let ours = side(&mut rng, "ours", base_n, ours_n, numbered);
            let theirs = side(&mut rng, "theirs", base_n, theirs_n, numbered);
            let one = run(&base, &ours, &theirs);
            let two = run(&base, &theirs, &ours);
            assert_eq!(one.text, two.text, "seed {seed}: not the same both ways");
            let merged = meanings(&one.text);
            for (name, text) in [("ours", &ours), ("theirs", &theirs)] {
                for edge in meanings(text) {
                    assert!(
                        merged.contains(&edge),
                        "seed {seed}: {name}'s edge {edge:?} lost its meaning:\nbase:\n{base}ours:\n{ours}theirs:\n{theirs}merged:\n{}",
                        one.text
                    );
                }
            }
            let ids: Vec<Value> = one
                .text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
                .collect();
            let unique: HashSet<String> = ids.iter().map(Value::to_string).collect();
            assert_eq!(unique.len(), ids.len(), "seed {seed}: an id twice");
        }
    }

    /// Issue 55: ids and comment ids at the end of the number line.
    #[test]
    fn the_end_of_the_number_line_is_never_crossed() {
        let max = "bd-18446744073709551615";
        let b = format!("{}\n", line(max, "far", 0, &[]));
        let o = format!("{b}{}\n", line("bd-5", "ours five", 1, &[]));
        let t = format!("{b}{}\n", line("bd-5", "theirs five", 2, &[]));
        let m = run(&b, &o, &t);
        assert_eq!(m.text.lines().count(), 3, "{}", m.text);
        assert!(!m.text.contains("\"bd-0\""), "{}", m.text);
        assert_eq!(m.text, run(&b, &t, &o).text);
        let mut fresh = FreshIds::new([max.to_string()].iter());
        let hash = "x".repeat(32);
        let taken = fresh.next(&format!("bd-{hash}"), "raw");
        let again = fresh.next(&format!("bd-{hash}"), "raw");
        assert_ne!(taken, again);
        let mut ids = super::super::tracker::CommentIds::new([i64::MAX, 1]);
        assert_eq!(ids.next(), Some(2));
        assert_eq!(ids.next(), Some(3));
    }

    #[test]
    fn corrupt_input_is_refused() {
        let p = Path::new("x");
        assert!(merge("", "<<<<<<< HEAD\n", "", [p, p, p]).is_err());
    }
}

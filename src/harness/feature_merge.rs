//! The three-way merge of a feature ledger (issue 60): two clones whose
//! agents each update the ledger merge without a conflict, as the issue
//! store does (`tusk merge-driver` takes either file). Feature by feature,
//! keyed by `featureId`:
//!
//! - added on one side (or on both, the same): kept; added on both sides
//!   differently, or changed on both: the later `updatedAt` wins whole (ours
//!   on a tie);
//! - changed on one side only: that side's;
//! - removed on one side and unchanged on the other: removed; removed on one
//!   side and changed on the other: the changed one is kept (a removal never
//!   loses work done meanwhile).
//!
//! The order is ours, then the features only theirs has, in theirs'. The
//! ledger's `updatedAt` is the later of the two; its `sessionRef` and other
//! members come from the side that changed them (ours when both did).

use super::feature::{Feature, Ledger};
use std::collections::BTreeMap;

/// One decision the merge took, for the merge driver's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerDecision {
    pub feature_id: String,
    pub detail: String,
}

/// The merged ledger and every decision that was not "both sides agree".
pub fn merge(base: &Ledger, ours: &Ledger, theirs: &Ledger) -> (Ledger, Vec<LedgerDecision>) {
    let index = |l: &Ledger| -> BTreeMap<String, Feature> {
        l.features
            .iter()
            .map(|f| (f.feature_id.clone(), f.clone()))
            .collect()
    };
    let (b, o, t) = (index(base), index(ours), index(theirs));
    let mut decisions = Vec::new();
    let mut say = |id: &str, detail: String| {
        decisions.push(LedgerDecision {
            feature_id: id.to_string(),
            detail,
        })
    };
    let mut order: Vec<&str> = ours
        .features
        .iter()
        .map(|f| f.feature_id.as_str())
        .collect();
    for f in &theirs.features {
        if !o.contains_key(&f.feature_id) {
            order.push(&f.feature_id);
        }
    }
    // Removed on both sides: listed by neither.
    let mut features = Vec::new();
    for id in order {
        let kept = match (b.get(id), o.get(id), t.get(id)) {
            (_, Some(x), Some(y)) if x == y => Some(x.clone()),
            (Some(old), Some(x), Some(y)) if x == old => {
                say(id, "changed by theirs only: theirs".into());
                Some(y.clone())
            }
            (Some(old), Some(x), Some(y)) if y == old => Some(x.clone()),
            (_, Some(x), Some(y)) => {
                let theirs_later = later(&y.updated_at, &x.updated_at);
                say(
                    id,
                    format!(
                        "changed by both: the later updatedAt wins ({})",
                        if theirs_later { "theirs" } else { "ours" }
                    ),
                );
                Some(if theirs_later { y.clone() } else { x.clone() })
            }
            (Some(old), Some(x), None) if x == old => {
                say(id, "removed by theirs".into());
                None
            }
            (Some(_), Some(x), None) => {
                say(id, "removed by theirs, changed by ours: kept".into());
                Some(x.clone())
            }
            (None, Some(x), None) => Some(x.clone()),
            (Some(old), None, Some(y)) if y == old => {
                say(id, "removed by ours".into());
                None
            }
            (Some(_), None, Some(y)) => {
                say(id, "removed by ours, changed by theirs: kept".into());
                Some(y.clone())
            }
            (None, None, Some(y)) => {
                say(id, "added by theirs".into());
                Some(y.clone())
            }
            (_, None, None) => None,
        };
        features.extend(kept);
    }
    let pick = |old: &Option<String>, x: &Option<String>, y: &Option<String>| {
        if x == old {
            y.clone()
        } else {
            x.clone()
        }
    };
    let extra = if ours.extra == base.extra {
        theirs.extra.clone()
    } else {
        ours.extra.clone()
    };
    let merged = Ledger {
        session_ref: pick(&base.session_ref, &ours.session_ref, &theirs.session_ref),
        updated_at: if later(&theirs.updated_at, &ours.updated_at) {
            theirs.updated_at.clone()
        } else {
            ours.updated_at.clone()
        },
        features,
        extra,
    };
    (merged, decisions)
}

/// Whether instant `a` is later than `b` (RFC 3339; text order for what
/// does not parse, which a valid ledger never holds).
fn later(a: &str, b: &str) -> bool {
    use chrono::DateTime;
    match (
        DateTime::parse_from_rfc3339(a),
        DateTime::parse_from_rfc3339(b),
    ) {
        (Ok(x), Ok(y)) => x > y,
        _ => a > b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn feature(id: &str, status: &str, at: &str) -> Feature {
        Feature {
            feature_id: id.into(),
            status: status.into(),
            issue_id: None,
            summary: None,
            instruction_refs: Vec::new(),
            verification_refs: Vec::new(),
            updated_at: at.into(),
            extra: Map::new(),
        }
    }

    fn ledger(at: &str, features: Vec<Feature>) -> Ledger {
        Ledger {
            session_ref: None,
            updated_at: at.into(),
            features,
            extra: Map::new(),
        }
    }

    #[test]
    fn features_merge_by_id_and_the_later_change_wins() {
        let t0 = "2026-11-29T10:00:00Z";
        let (t1, t2) = ("2026-11-29T11:00:00Z", "2026-11-29T12:00:00Z");
        let base = ledger(
            t0,
            vec![
                feature("a", "pending", t0),
                feature("b", "pending", t0),
                feature("c", "pending", t0),
                feature("d", "pending", t0),
            ],
        );
        let ours = ledger(
            t1,
            vec![
                feature("a", "in_progress", t1), // changed by both, ours earlier
                feature("b", "completed", t1),   // changed by ours only
                feature("d", "pending", t0),     // removed by theirs, unchanged here
                feature("x", "pending", t1),     // added by ours
            ],
        );
        // c removed by ours, changed by theirs: kept.
        let theirs = ledger(
            t2,
            vec![
                feature("a", "blocked", t2),
                feature("b", "pending", t0),
                feature("c", "in_progress", t2),
                feature("y", "pending", t2),
            ],
        );
        let (merged, decisions) = merge(&base, &ours, &theirs);
        let got: Vec<(&str, &str)> = merged
            .features
            .iter()
            .map(|f| (f.feature_id.as_str(), f.status.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "blocked"),
                ("b", "completed"),
                ("x", "pending"),
                ("c", "in_progress"),
                ("y", "pending")
            ]
        );
        assert_eq!(merged.updated_at, t2);
        let ids: Vec<&str> = decisions.iter().map(|d| d.feature_id.as_str()).collect();
        assert_eq!(ids, ["a", "d", "c", "y"]);
        // Merging is symmetric in what it keeps.
        let (back, _) = merge(&base, &theirs, &ours);
        let mut a: Vec<_> = merged.features.iter().map(|f| &f.feature_id).collect();
        let mut b: Vec<_> = back.features.iter().map(|f| &f.feature_id).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}

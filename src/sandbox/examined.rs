//! The refusals a program examined (issue 56, point 4: a handled refusal is
//! not a failure). Reading an envelope's `resultClass` or `failureClasses`
//! (what `accepted?`, `rejected?`, `result-class` and `failure-classes` do,
//! or `hash-ref` of either key in any case style) notes the envelope's
//! `callId`. The runtime calls a rejected run `handled` when the program
//! finished and had examined every refused call; a refusal the program never
//! looked at keeps the run an error (docs/scheme-eval.md, "Handled
//! refusals").
//!
//! The set is per run (reset as a run starts) and bounded: a program that
//! forges envelopes only marks call ids, and only the ids of its real
//! rejected calls count.

use steel::rvals::SteelVal;

/// At most this many call ids are kept (a run's host calls are bounded far
/// lower; forged envelopes beyond it are not noted).
const MAX_NOTED: usize = 65_536;

thread_local! {
    static NOTED: std::cell::RefCell<std::collections::BTreeSet<String>> = Default::default();
}

/// Whether `key` names an envelope's verdict (`resultClass`,
/// `failureClasses`, in any case style).
fn is_verdict_key(key: &str) -> bool {
    matches!(key.len(), 11..=15)
        && matches!(
            crate::spelling::squash(key, "_-").as_str(),
            "resultclass" | "failureclasses"
        )
}

/// Notes `map`'s `callId` when `key` reads its verdict.
pub(crate) fn note(map: &steel::HashMap<SteelVal, SteelVal>, key: &SteelVal) {
    let SteelVal::StringV(k) = key else {
        return;
    };
    if !is_verdict_key(k.as_str()) {
        return;
    }
    if let Some(SteelVal::StringV(id)) = map.get(&SteelVal::StringV("callId".into())) {
        NOTED.with(|n| {
            let mut n = n.borrow_mut();
            if n.len() < MAX_NOTED {
                n.insert(id.as_str().to_string());
            }
        });
    }
}

/// Forgets the last run's notes.
pub(crate) fn reset() {
    NOTED.with(|n| n.borrow_mut().clear());
}

/// The call ids this run examined, in order.
pub(crate) fn take() -> Vec<String> {
    NOTED.with(|n| std::mem::take(&mut *n.borrow_mut()).into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_keys_in_every_spelling() {
        for k in [
            "resultClass",
            "result_class",
            "result-class",
            "ResultClass",
            "failureClasses",
            "failure_classes",
        ] {
            assert!(is_verdict_key(k), "{k}");
        }
        for k in ["payload", "callId", "result", "classes", "resultClassX"] {
            assert!(!is_verdict_key(k), "{k}");
        }
    }
}

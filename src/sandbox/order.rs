//! One canonical order on values, for everything a program can observe about
//! a hash or a set.
//!
//! The order is a function of the values alone: kind first ([`rank`]), then
//! value; compound values (lists, pairs, vectors, boxes, hash maps, sets)
//! structurally, element by element. Every allowlisted primitive that walks a
//! hash or a set, tusk's printer, the JSON conversion and Steel's own printer
//! (which renders the values inside its error messages, through
//! `steel::rvals::set_print_order`) put entries in this order.
//!
//! Opaque values — procedures, continuations, error objects — have no value
//! to compare: two of one kind compare equal, and a stable sort keeps them in
//! the hash's own order, which the engine makes the same in every process
//! (vendor/steel-core/TUSK_PATCHES.md: keys are hashed with fixed keys; a
//! closure hashes by the number Steel gives its lambda when it compiles it,
//! any other opaque value by its kind alone, so those keep the order the
//! program inserted them in).

use std::cmp::Ordering;
use std::collections::HashSet;
use steel::gc::ShareableMut;
use steel::rvals::SteelVal;

/// Nesting followed before two values are taken as equal (the hash's own
/// order then decides, the same in every process).
const MAX_DEPTH: usize = 256;
/// Values visited by one comparison before the rest is taken as equal: a
/// bound on the work a hostile key (a wide, deeply shared structure) costs.
const MAX_STEPS: usize = 1 << 20;

/// Rank of a value's kind: values of different kinds order by kind. Each
/// kind of opaque value has its own rank, so that two values that tie are of
/// one Steel kind (and so, but for closures, share one hash).
fn rank(v: &SteelVal) -> u8 {
    match v {
        SteelVal::Void => 0,
        SteelVal::BoolV(_) => 1,
        SteelVal::IntV(_)
        | SteelVal::BigNum(_)
        | SteelVal::Rational(_)
        | SteelVal::BigRational(_) => 2,
        SteelVal::NumV(_) => 3,
        SteelVal::Complex(_) => 4,
        SteelVal::CharV(_) => 5,
        SteelVal::StringV(_) => 6,
        SteelVal::SymbolV(_) => 7,
        SteelVal::ByteVector(_) => 8,
        SteelVal::ListV(_) => 9,
        SteelVal::Pair(_) => 10,
        SteelVal::VectorV(_) => 11,
        SteelVal::MutableVector(_) => 12,
        SteelVal::HeapAllocated(_) => 13,
        SteelVal::Boxed(_) => 14,
        SteelVal::HashMapV(_) => 15,
        SteelVal::HashSetV(_) => 16,
        // Opaque: no value to compare.
        SteelVal::Closure(_) => 17,
        SteelVal::FuncV(_) => 18,
        SteelVal::BuiltIn(_) => 19,
        SteelVal::MutFunc(_) => 20,
        SteelVal::BoxedFunction(_) => 21,
        SteelVal::ContinuationFunction(_) => 22,
        SteelVal::Custom(_) => 23,
        SteelVal::CustomStruct(_) => 24,
        SteelVal::PortV(_) => 25,
        SteelVal::IterV(_) => 26,
        SteelVal::ReducerV(_) => 27,
        SteelVal::FutureFunc(_) => 28,
        SteelVal::FutureV(_) => 29,
        SteelVal::StreamV(_) => 30,
        SteelVal::BoxedIterator(_) => 31,
        SteelVal::SyntaxObject(_) => 32,
        SteelVal::Reference(_) => 33,
    }
}

/// An exact number as a big rational (only called on rank 2).
fn exact(v: &SteelVal) -> num_rational::BigRational {
    use num_bigint::BigInt;
    match v {
        SteelVal::IntV(i) => BigInt::from(*i as i64).into(),
        SteelVal::BigNum(b) => b.as_ref().clone().into(),
        SteelVal::Rational(r) => {
            num_rational::BigRational::new(BigInt::from(*r.numer()), BigInt::from(*r.denom()))
        }
        SteelVal::BigRational(r) => r.as_ref().clone(),
        _ => BigInt::from(0).into(),
    }
}

/// The canonical order: a total order on values, the same in every process.
pub(crate) fn compare(a: &SteelVal, b: &SteelVal) -> Ordering {
    Comparison::default().cmp(a, b, 0)
}

/// One comparison's state: the pairs of mutable containers already entered
/// (a structure that contains itself compares equal where it recurs) and the
/// work done so far.
#[derive(Default)]
struct Comparison {
    entered: HashSet<(usize, usize)>,
    steps: usize,
}

impl Comparison {
    fn cmp(&mut self, a: &SteelVal, b: &SteelVal, depth: usize) -> Ordering {
        self.steps += 1;
        if depth > MAX_DEPTH || self.steps > MAX_STEPS {
            return Ordering::Equal;
        }
        let by_kind = rank(a).cmp(&rank(b));
        if by_kind != Ordering::Equal {
            return by_kind;
        }
        match (a, b) {
            (SteelVal::BoolV(x), SteelVal::BoolV(y)) => x.cmp(y),
            (SteelVal::IntV(x), SteelVal::IntV(y)) => x.cmp(y),
            (x, y) if rank(x) == 2 => exact(x).cmp(&exact(y)),
            (SteelVal::NumV(x), SteelVal::NumV(y)) => x.total_cmp(y),
            (SteelVal::Complex(x), SteelVal::Complex(y)) => self
                .cmp(&x.re, &y.re, depth + 1)
                .then_with(|| self.cmp(&x.im, &y.im, depth + 1)),
            // Steel's rendering of a byte vector is its bytes, one by one.
            (SteelVal::ByteVector(_), SteelVal::ByteVector(_)) => a.to_string().cmp(&b.to_string()),
            (SteelVal::CharV(x), SteelVal::CharV(y)) => x.cmp(y),
            (SteelVal::StringV(x), SteelVal::StringV(y)) => x.as_str().cmp(y.as_str()),
            (SteelVal::SymbolV(x), SteelVal::SymbolV(y)) => x.as_str().cmp(y.as_str()),
            (SteelVal::ListV(x), SteelVal::ListV(y)) => self.seq(x.iter(), y.iter(), depth),
            (SteelVal::Pair(x), SteelVal::Pair(y)) => self
                .cmp(x.car_ref(), y.car_ref(), depth + 1)
                .then_with(|| self.cmp(x.cdr_ref(), y.cdr_ref(), depth + 1)),
            (SteelVal::VectorV(x), SteelVal::VectorV(y)) => self.seq(x.iter(), y.iter(), depth),
            (SteelVal::MutableVector(x), SteelVal::MutableVector(y)) => {
                if !self.entered.insert((x.as_ptr_usize(), y.as_ptr_usize())) {
                    return Ordering::Equal;
                }
                let x: Vec<SteelVal> = x.borrow(|items| items.clone());
                let y: Vec<SteelVal> = y.borrow(|items| items.clone());
                self.seq(x.iter(), y.iter(), depth)
            }
            (SteelVal::HeapAllocated(x), SteelVal::HeapAllocated(y)) => {
                if !self.entered.insert((x.as_ptr_usize(), y.as_ptr_usize())) {
                    return Ordering::Equal;
                }
                self.cmp(&x.get(), &y.get(), depth + 1)
            }
            (SteelVal::Boxed(x), SteelVal::Boxed(y)) => {
                let (x, y) = (x.read().clone(), y.read().clone());
                self.cmp(&x, &y, depth + 1)
            }
            (SteelVal::HashMapV(x), SteelVal::HashMapV(y)) => {
                let x = self.sorted(x.iter().collect(), depth);
                let y = self.sorted(y.iter().collect(), depth);
                let mut i = 0;
                loop {
                    match (x.get(i), y.get(i)) {
                        (None, None) => return Ordering::Equal,
                        (None, Some(_)) => return Ordering::Less,
                        (Some(_), None) => return Ordering::Greater,
                        (Some((xk, xv)), Some((yk, yv))) => {
                            let o = self
                                .cmp(xk, yk, depth + 1)
                                .then_with(|| self.cmp(xv, yv, depth + 1));
                            if o != Ordering::Equal {
                                return o;
                            }
                        }
                    }
                    i += 1;
                }
            }
            (SteelVal::HashSetV(x), SteelVal::HashSetV(y)) => {
                let x = self.sorted(x.iter().map(|m| (m, m)).collect(), depth);
                let y = self.sorted(y.iter().map(|m| (m, m)).collect(), depth);
                self.seq(x.iter().map(|e| e.0), y.iter().map(|e| e.0), depth)
            }
            // Opaque values of one kind: no value to compare (see the module doc).
            _ => Ordering::Equal,
        }
    }

    /// Lexicographic: the first difference decides, then the shorter first.
    fn seq<'a>(
        &mut self,
        mut x: impl Iterator<Item = &'a SteelVal>,
        mut y: impl Iterator<Item = &'a SteelVal>,
        depth: usize,
    ) -> Ordering {
        loop {
            match (x.next(), y.next()) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(a), Some(b)) => {
                    let o = self.cmp(a, b, depth + 1);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
            }
        }
    }

    /// Entries by key, stably (equal keys keep the hash's own order).
    fn sorted<'a>(
        &mut self,
        mut entries: Vec<(&'a SteelVal, &'a SteelVal)>,
        depth: usize,
    ) -> Vec<(&'a SteelVal, &'a SteelVal)> {
        entries.sort_by(|a, b| self.cmp(a.0, b.0, depth + 1));
        entries
    }
}

/// A map's entries in canonical key order.
pub(crate) fn entries(map: &steel::HashMap<SteelVal, SteelVal>) -> Vec<(&SteelVal, &SteelVal)> {
    let mut entries: Vec<(&SteelVal, &SteelVal)> = map.iter().collect();
    entries.sort_by(|a, b| compare(a.0, b.0));
    entries
}

/// A set's members in canonical order.
pub(crate) fn members(set: &steel::HashSet<SteelVal>) -> Vec<&SteelVal> {
    let mut members: Vec<&SteelVal> = set.iter().collect();
    members.sort_by(|a, b| compare(a, b));
    members
}

/// Makes Steel's printer, which renders the values inside its error
/// messages, write hash entries and set members in canonical order. Called
/// once, before any program runs (in the template every worker forks from).
pub(crate) fn install() {
    steel::rvals::set_print_order(compare);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use steel::gc::Gc;

    fn int(i: i64) -> SteelVal {
        SteelVal::IntV(i as isize)
    }

    fn map(entries: Vec<(SteelVal, SteelVal)>) -> SteelVal {
        SteelVal::HashMapV(Gc::new(entries.into_iter().collect::<steel::HashMap<_, _>>()).into())
    }

    fn set(members: Vec<SteelVal>) -> SteelVal {
        SteelVal::HashSetV(Gc::new(members.into_iter().collect::<steel::HashSet<_>>()).into())
    }

    /// Values a program can build and compare by value (no opaque ones);
    /// with sets when `sets` (Steel takes any two sets of one size for equal
    /// keys, so a map keyed by sets keeps the first it was given).
    fn values(sets: bool) -> impl Strategy<Value = SteelVal> {
        let leaf = prop_oneof![
            Just(SteelVal::Void),
            any::<bool>().prop_map(SteelVal::BoolV),
            (-5i64..5).prop_map(int),
            prop::sample::select(vec![-2.5, 0.0, 0.5, 1.0, 3.25]).prop_map(SteelVal::NumV),
            prop::sample::select(vec!['a', 'b', '(', '}']).prop_map(SteelVal::CharV),
            prop::sample::select(vec!["", "a", "a(", "b}", "1"])
                .prop_map(|s| SteelVal::StringV(s.into())),
            prop::sample::select(vec!["a", "1", "#\\a"]).prop_map(|s| SteelVal::SymbolV(s.into())),
        ];
        leaf.prop_recursive(3, 16, 3, move |inner| {
            let sets = if sets { 0..3 } else { 0..1 };
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3)
                    .prop_map(|v| SteelVal::ListV(v.into_iter().collect())),
                prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(map),
                prop::collection::vec(inner, sets).prop_map(set),
            ]
        })
    }

    fn value() -> impl Strategy<Value = SteelVal> {
        values(true)
    }

    proptest! {
        #[test]
        fn compare_is_a_total_order(a in value(), b in value(), c in value()) {
            prop_assert_eq!(compare(&a, &a), Ordering::Equal);
            prop_assert_eq!(compare(&a, &b), compare(&b, &a).reverse());
            if compare(&a, &b) != Ordering::Greater && compare(&b, &c) != Ordering::Greater {
                prop_assert_ne!(compare(&a, &c), Ordering::Greater);
            }
        }

        /// Two values the order cannot tell apart are the same key.
        #[test]
        fn ties_are_equal_values(a in value(), b in value()) {
            if compare(&a, &b) == Ordering::Equal {
                prop_assert!(a == b, "{} and {} tie", a, b);
            }
        }

        /// A map's entries come out in one order whatever the order of insertion.
        #[test]
        fn entries_do_not_depend_on_insertion_order(
            keys in prop::collection::vec(values(false), 0..8).prop_shuffle(),
        ) {
            let forward: steel::HashMap<SteelVal, SteelVal> =
                keys.iter().map(|k| (k.clone(), int(0))).collect();
            let backward: steel::HashMap<SteelVal, SteelVal> =
                keys.iter().rev().map(|k| (k.clone(), int(0))).collect();
            let forward: Vec<String> = entries(&forward).iter().map(|e| e.0.to_string()).collect();
            let backward: Vec<String> = entries(&backward).iter().map(|e| e.0.to_string()).collect();
            prop_assert_eq!(forward, backward);
        }
    }

    #[test]
    fn kinds_order_first_then_values() {
        let keys = [
            SteelVal::SymbolV("1".into()),
            SteelVal::StringV("1".into()),
            SteelVal::CharV('1'),
            SteelVal::NumV(1.0),
            int(1),
            SteelVal::BoolV(true),
            SteelVal::ListV(vec![int(1)].into_iter().collect()),
            map(vec![(int(1), int(1))]),
        ];
        let mut sorted = keys.to_vec();
        sorted.sort_by(compare);
        let shown: Vec<String> = sorted.iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(
            shown,
            [
                "#true",
                "1",
                "1.0",
                "#\\1",
                "\"1\"",
                "'1",
                "'(1)",
                "#<hashmap {\n    1: 1,\n}>"
            ]
        );
    }

    #[test]
    fn a_structure_that_contains_itself_compares_without_end() {
        let v = SteelVal::ListV(vec![int(1)].into_iter().collect());
        let program = "(define v (mutable-vector 1 2)) (vector-set! v 1 v) v";
        let mut engine = crate::sandbox::primitives::build_engine().unwrap();
        let a = engine.run(program).unwrap().pop().unwrap();
        let b = engine.run(program).unwrap().pop().unwrap();
        assert_eq!(compare(&a, &b), Ordering::Equal);
        assert_eq!(compare(&a, &v), Ordering::Greater);
    }

    /// Steel's printer, which renders the values in its error messages,
    /// writes entries and members in the canonical order.
    #[test]
    fn steels_printer_uses_the_order() {
        install();
        let keys = || {
            vec![
                SteelVal::StringV("b}".into()),
                SteelVal::SymbolV("1".into()),
                SteelVal::CharV('('),
                int(1),
                SteelVal::StringV("a(".into()),
            ]
        };
        let mut reversed = keys();
        reversed.reverse();
        let m = |ks: Vec<SteelVal>| map(ks.into_iter().map(|k| (k, int(0))).collect());
        assert_eq!(m(keys()).to_string(), m(reversed.clone()).to_string());
        assert_eq!(
            set(keys()).to_string(),
            "#<hashset Gc({1, #\\(, \"a(\", \"b}\", '1})>"
        );
        assert_eq!(set(reversed).to_string(), set(keys()).to_string());
    }
}

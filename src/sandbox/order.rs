//! One canonical order for everything a program can observe about a hash.
//!
//! Steel's hash maps and sets iterate in an order seeded per process (std's
//! `RandomState`), so the same program would see its keys in another order in
//! another process: a coin to flip, and a replay that diverges on an
//! untouched log. Every allowlisted primitive that walks a hash or a set, the
//! printer and the JSON conversion use [`compare`] instead; error messages,
//! which Steel renders with its own printer, are put in order by
//! [`canonical_message`].

use super::printer;
use std::cmp::Ordering;
use steel::rvals::SteelVal;

/// Rank of a value's kind: values of different kinds order by kind.
fn rank(v: &SteelVal) -> u8 {
    match v {
        SteelVal::Void => 0,
        SteelVal::BoolV(_) => 1,
        SteelVal::IntV(_) | SteelVal::BigNum(_) => 2,
        SteelVal::Rational(_) => 3,
        SteelVal::NumV(_) => 4,
        SteelVal::CharV(_) => 5,
        SteelVal::StringV(_) => 6,
        SteelVal::SymbolV(_) => 7,
        SteelVal::ListV(_) => 8,
        SteelVal::VectorV(_) => 9,
        SteelVal::MutableVector(_) => 10,
        SteelVal::HashMapV(_) => 11,
        SteelVal::HashSetV(_) => 12,
        _ => 13,
    }
}

fn big(v: &SteelVal) -> num_bigint::BigInt {
    match v {
        SteelVal::IntV(i) => num_bigint::BigInt::from(*i as i64),
        SteelVal::BigNum(b) => b.as_ref().clone(),
        _ => num_bigint::BigInt::from(0),
    }
}

/// A total order on hash keys that does not depend on the process: kind,
/// then value; compound and opaque values by their printed form.
pub(crate) fn compare(a: &SteelVal, b: &SteelVal) -> Ordering {
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (SteelVal::IntV(x), SteelVal::IntV(y)) => x.cmp(y),
        (SteelVal::IntV(_) | SteelVal::BigNum(_), SteelVal::IntV(_) | SteelVal::BigNum(_)) => {
            big(a).cmp(&big(b))
        }
        (SteelVal::NumV(x), SteelVal::NumV(y)) => x.total_cmp(y),
        (SteelVal::BoolV(x), SteelVal::BoolV(y)) => x.cmp(y),
        (SteelVal::CharV(x), SteelVal::CharV(y)) => x.cmp(y),
        (SteelVal::StringV(x), SteelVal::StringV(y)) => x.as_str().cmp(y.as_str()),
        (SteelVal::SymbolV(x), SteelVal::SymbolV(y)) => x.as_str().cmp(y.as_str()),
        _ => printer::render(a, true, 1 << 16).cmp(&printer::render(b, true, 1 << 16)),
    })
}

/// The keys of distinct entries that [`compare`] cannot tell apart (two
/// procedures, say) have no canonical order: walking such a hash is an error
/// rather than a coin.
fn check_ties(keys: &[&SteelVal]) -> Result<(), String> {
    for pair in keys.windows(2) {
        if compare(pair[0], pair[1]) == Ordering::Equal {
            return Err(format!(
                "the hash keys {} and {} have no canonical order; use strings, symbols or numbers as keys",
                printer::render(pair[0], true, 200),
                printer::render(pair[1], true, 200)
            ));
        }
    }
    Ok(())
}

/// A map's entries in canonical key order.
pub(crate) fn entries(
    map: &steel::HashMap<SteelVal, SteelVal>,
) -> Result<Vec<(&SteelVal, &SteelVal)>, String> {
    let mut entries: Vec<(&SteelVal, &SteelVal)> = map.iter().collect();
    entries.sort_by(|a, b| compare(a.0, b.0));
    check_ties(&entries.iter().map(|e| e.0).collect::<Vec<_>>())?;
    Ok(entries)
}

/// A set's members in canonical order.
pub(crate) fn members(set: &steel::HashSet<SteelVal>) -> Result<Vec<&SteelVal>, String> {
    let mut members: Vec<&SteelVal> = set.iter().collect();
    members.sort_by(|a, b| compare(a, b));
    check_ties(&members)?;
    Ok(members)
}

/// Puts Steel's renderings of hashes and sets inside an error message in
/// canonical order: the entries of every `{…}` group (outside string
/// literals) are sorted, innermost first, and joined with `, `.
pub(crate) fn canonical_message(message: &str) -> String {
    let chars: Vec<char> = message.chars().collect();
    let mut pos = 0;
    let mut out = String::with_capacity(message.len());
    while pos < chars.len() {
        let (text, next) = group_or_char(&chars, pos);
        out.push_str(&text);
        pos = next;
    }
    out
}

/// At `pos`: a whole `{…}` group in canonical form, a whole string literal,
/// or one character; and where to continue.
fn group_or_char(chars: &[char], pos: usize) -> (String, usize) {
    match chars[pos] {
        '"' => {
            let end = string_end(chars, pos);
            (chars[pos..end].iter().collect(), end)
        }
        '{' => match group(chars, pos) {
            Some((text, end)) => (text, end),
            None => ("{".to_string(), pos + 1),
        },
        c => (c.to_string(), pos + 1),
    }
}

/// The index just past the string literal opening at `start`.
fn string_end(chars: &[char], start: usize) -> usize {
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// The group opening at `start` with its entries sorted, and the index past
/// its `}`; `None` when it never closes (a cut message): left as it is.
fn group(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut entries: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '}' if depth == 0 => {
                entries.push(std::mem::take(&mut current));
                let mut entries: Vec<String> = entries
                    .into_iter()
                    .map(|e| e.trim().to_string())
                    .filter(|e| !e.is_empty())
                    .collect();
                entries.sort();
                return Some((format!("{{{}}}", entries.join(", ")), i + 1));
            }
            ',' if depth == 0 => {
                entries.push(std::mem::take(&mut current));
                i += 1;
            }
            '{' => {
                let (text, next) = group(chars, i)?;
                current.push_str(&text);
                i = next;
            }
            '"' => {
                let end = string_end(chars, i);
                current.extend(&chars[i..end]);
                i = end;
            }
            c @ ('(' | '[') => {
                depth += 1;
                current.push(c);
                i += 1;
            }
            c @ (')' | ']') => {
                depth = depth.saturating_sub(1);
                current.push(c);
                i += 1;
            }
            c => {
                current.push(c);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::canonical_message;

    #[test]
    fn groups_sorted_innermost_first() {
        let a =
            "key not found: 5 - map: Gc({#<hashmap {\n    3: 4,\n    1: 2,\n}>: 1, \"b,}\": 2})";
        let b =
            "key not found: 5 - map: Gc({\"b,}\": 2, #<hashmap {\n    1: 2,\n    3: 4,\n}>: 1})";
        assert_eq!(canonical_message(a), canonical_message(b));
        assert_eq!(
            canonical_message("#<hashset Gc({4, 3, 5})>"),
            "#<hashset Gc({3, 4, 5})>"
        );
        assert_eq!(canonical_message("cut {a: 1, b"), "cut {a: 1, b");
    }
}

//! How a new issue gets its id (issue 48, docs/issue-memory.md "Ids").
//!
//! Two schemes, chosen per store by the `ids` member of the `config.json`
//! beside it (`tusk init --ids hash|sequential` writes it):
//!
//! - `sequential` (no setting: every store made before issue 48, and
//!   premath's behaviour, which the parity vectors exercise): `<prefix>-<n>`,
//!   one past the largest number of the store's most used prefix.
//! - `hash`: `<prefix>-<k base36 characters>` drawn from the operating
//!   system's random source, so that clones that never talk do not mint the
//!   same id. `k` starts at 4 and grows with the store: it is the smallest
//!   length for which `36^k >= 2^20 * (n+1)^2` (`n` issues in the store), which
//!   keeps the chance that two clones of that size ever share an id near one
//!   in a million; an id already in the store is drawn again, and after three
//!   draws the length grows by one (beads' scheme). A candidate of digits only
//!   is drawn again, so a hash id never reads as a sequential one.
//!
//! Children and discovered issues are ids like any other (no per-parent
//! counter), minted by the same rule.

use super::store::Store;
use super::IssueStore;

/// The member of `config.json` that names the scheme.
pub const SETTING: &str = "ids";

/// The id scheme of a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum IdScheme {
    /// `<prefix>-<n>`, one past the largest (premath's).
    Sequential,
    /// `<prefix>-<random base36>`, growing with the store.
    Hash,
}

impl IdScheme {
    pub fn as_str(self) -> &'static str {
        match self {
            IdScheme::Sequential => "sequential",
            IdScheme::Hash => "hash",
        }
    }
}

/// The scheme `config` (the store's `config.json`, if any) names: absent or
/// without the member, sequential.
///
/// # Errors
/// A member that is not `"hash"` or `"sequential"`.
pub fn scheme_of(config: Option<&serde_json::Value>, shown: &str) -> Result<IdScheme, String> {
    match config.and_then(|c| c.get(SETTING)) {
        None => Ok(IdScheme::Sequential),
        Some(serde_json::Value::String(s)) if s == "hash" => Ok(IdScheme::Hash),
        Some(serde_json::Value::String(s)) if s == "sequential" => Ok(IdScheme::Sequential),
        Some(other) => Err(format!(
            "{shown}: \"{SETTING}\" is {other}; write \"hash\" or \"sequential\" (`tusk init --ids hash`)"
        )),
    }
}

/// The scheme of `store` (its `config.json`).
///
/// # Errors
/// An unreadable or invalid `config.json`.
pub fn scheme(store: &IssueStore) -> Result<IdScheme, String> {
    let path = super::model::config_path(store);
    let config = super::model::read_config(&path)?;
    scheme_of(config.as_ref(), &path.display().to_string())
}

/// Sets the scheme in the `config.json` at `path` (created when absent;
/// its other members kept, in their order), written atomically.
///
/// # Errors
/// A `config.json` that is not a JSON object, or a failed write.
pub fn write_scheme(path: &std::path::Path, scheme: IdScheme) -> Result<(), String> {
    super::model::write_setting(path, SETTING, scheme.as_str()).map_err(|e| {
        format!(
            "{e}; fix it, then run `tusk init --ids {}` again",
            scheme.as_str()
        )
    })
}

/// A new id for `store` by `scheme`.
pub fn next_id(store: &Store<'_>, scheme: IdScheme) -> String {
    match scheme {
        IdScheme::Sequential => next_sequential(store),
        IdScheme::Hash => next_hash(store, &mut os_random),
    }
}

/// The prefix most used in the store (ties: the smaller), `bd` for an
/// empty one; `numbered` counts only ids whose tail is a number.
fn main_prefix<'s>(store: &'s Store<'_>, numbered: bool) -> Option<(&'s str, u64)> {
    let mut per_prefix: std::collections::HashMap<&str, (usize, u64)> =
        std::collections::HashMap::new();
    for issue in store.issues() {
        if let Some((prefix, tail)) = issue.id.as_str().rsplit_once('-') {
            let num = tail.parse::<u64>().ok();
            if numbered && num.is_none() {
                continue;
            }
            let e = per_prefix.entry(prefix).or_insert((0, 0));
            e.0 += 1;
            e.1 = e.1.max(num.unwrap_or(0));
        }
    }
    per_prefix
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then_with(|| b.0.cmp(a.0)))
        .map(|(prefix, (_, max))| (prefix, max))
}

/// The next free id `<prefix>-<n>`: the prefix most used in the store (`bd` for a
/// new store), `n` one past its largest number. Runs under the lock, so
/// concurrent adds cannot pick the same id.
fn next_sequential(store: &Store<'_>) -> String {
    match main_prefix(store, true) {
        Some((prefix, max)) => {
            // Checked: a store holding `bd-18446744073709551615` (the end
            // of the number line) gets a hash id, never a wrap to `bd-0`.
            let mut n = max;
            while let Some(next) = n.checked_add(1) {
                n = next;
                let id = format!("{prefix}-{n}");
                if store.get(&id).is_none() {
                    return id;
                }
            }
            next_hash(store, &mut os_random)
        }
        None => "bd-1".to_string(),
    }
}

/// The length a hash id starts at in a store of `n` issues.
pub fn hash_length(n: usize) -> usize {
    let need = (1u128 << 20) * (n as u128 + 1).pow(2);
    let mut k = 4;
    while 36u128.pow(k as u32) < need && k < MAX_HASH_LEN {
        k += 1;
    }
    k
}

/// 36^24 < 2^128: a draw of 128 bits covers every length up to this.
const MAX_HASH_LEN: usize = 24;

fn os_random() -> u128 {
    let mut bytes = [0u8; 16];
    // The OS random source does not fail on Linux once booted; if it ever
    // did, the time and pid still make a collision across clones unlikely.
    if getrandom::fill(&mut bytes).is_err() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        return now ^ (u128::from(std::process::id()) << 64);
    }
    u128::from_le_bytes(bytes)
}

fn base36(mut v: u128, len: usize) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = vec![b'0'; len];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(v % 36) as usize];
        v /= 36;
    }
    String::from_utf8(out).expect("base36 digits are ASCII")
}

/// A hash id not in `store`, drawn from `random`.
fn next_hash(store: &Store<'_>, random: &mut dyn FnMut() -> u128) -> String {
    let prefix = main_prefix(store, false).map_or("bd", |(p, _)| p);
    let mut len = hash_length(store.issue_count());
    let mut draws = 0;
    loop {
        let tail = base36(random(), len);
        if tail.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let id = format!("{prefix}-{tail}");
        if store.get(&id).is_none() {
            return id;
        }
        draws += 1;
        if draws % 3 == 0 && len < MAX_HASH_LEN {
            len += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn lengths_grow_with_the_store() {
        assert_eq!(hash_length(0), 4);
        assert_eq!(hash_length(1), 5);
        assert_eq!(hash_length(100), 7);
        assert_eq!(hash_length(1000), 8);
        assert_eq!(hash_length(100_000), 11);
    }

    #[test]
    fn a_taken_id_is_drawn_again_then_the_length_grows() {
        let text = "{\"id\":\"pr-000a\",\"title\":\"t\"}\n";
        let store = Store::parse(Path::new("s"), text).unwrap();
        // Always the same draw: 10 in base36 is "000a" at length 4, taken.
        let mut draws = 0;
        let id = next_hash(&store, &mut || {
            draws += 1;
            10
        });
        // The store holds one issue: the length starts at 5, where 10 is "0000a".
        assert_eq!(id, "pr-0000a");
        assert_eq!(draws, 1);
        let text = "{\"id\":\"pr-0000a\",\"title\":\"t\"}\n";
        let store = Store::parse(Path::new("s"), text).unwrap();
        let id = next_hash(&store, &mut || 10);
        assert_eq!(id, "pr-00000a", "three draws taken, then one longer");
        // Digits only are drawn again.
        let empty = Store::parse(Path::new("s"), "").unwrap();
        let mut seq = [5u128, 11].into_iter().cycle();
        assert_eq!(next_hash(&empty, &mut || seq.next().unwrap()), "bd-000b");
    }

    #[test]
    fn sequential_ids_ignore_hash_ids() {
        let text = "{\"id\":\"bd-3\",\"title\":\"t\"}\n{\"id\":\"bd-x9k2\",\"title\":\"t\"}\n";
        let store = Store::parse(Path::new("s"), text).unwrap();
        assert_eq!(next_id(&store, IdScheme::Sequential), "bd-4");
        let id = next_id(&store, IdScheme::Hash);
        assert!(
            id.starts_with("bd-") && id.len() == 3 + hash_length(2),
            "{id}"
        );
    }

    #[test]
    fn the_setting_is_read_and_refused_when_wrong() {
        let v = serde_json::json!({"ids": "hash"});
        assert_eq!(scheme_of(Some(&v), "c").unwrap(), IdScheme::Hash);
        assert_eq!(scheme_of(None, "c").unwrap(), IdScheme::Sequential);
        let bad = serde_json::json!({"ids": 3});
        assert!(scheme_of(Some(&bad), "c").unwrap_err().contains("hash"));
    }
}

//! Comparing names the way a writer misspells them, for the errors and
//! lookups that say what was meant: the same words with other separators
//! or case (`issue_type`, `issueType`), or a few edits away.

/// `s` lowercased without the characters of `separators`.
pub(crate) fn squash(s: &str, separators: &str) -> String {
    s.chars()
        .filter(|c| !separators.contains(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Levenshtein distance over characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = if ca == *cb { prev } else { prev + 1 };
            prev = row[j + 1];
            row[j + 1] = cost.min(row[j] + 1).min(prev + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn squash_and_distance() {
        assert_eq!(super::squash("Issue_Type-x.y", "_-"), "issuetypex.y");
        assert_eq!(super::squash("issue.claim_next", "._-"), "issueclaimnext");
        assert_eq!(super::edit_distance("redy", "ready"), 1);
        assert_eq!(super::edit_distance("", "abc"), 3);
        assert_eq!(super::edit_distance("kitten", "sitting"), 3);
    }
}

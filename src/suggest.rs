//! "Did you mean …?": [`closest`], the known name nearest to a mistyped one.

/// The candidate closest to `name` by edit distance (Damerau–Levenshtein, case
/// ignored), if it is close enough to be a typo: at most a third of the longer name's
/// length, and at least one edit allowed. Ties go to the first candidate.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (name.chars().count().max(c.chars().count()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `; did you mean "X"?` for `name` among `candidates`, or nothing.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    closest(name, candidates).map_or(String::new(), |c| format!("; did you mean {c:?}?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_name_and_strangers_find_none() {
        let names = ["wait_mean_s", "wait_max_s", "makespan_d", "utilization"];
        assert_eq!(closest("wait_mean", names), Some("wait_mean_s"));
        assert_eq!(closest("wiat_mean_s", names), Some("wait_mean_s"));
        assert_eq!(closest("Utilisation", names), Some("utilization"));
        assert_eq!(closest("throughput", names), None);
        assert_eq!(
            closest(
                "KTH-SP2-1996-2.1",
                ["KTH-SP2-1996-2.1-cln", "CTC-SP2-1996-3.1-cln"]
            ),
            Some("KTH-SP2-1996-2.1-cln")
        );
        assert_eq!(
            did_you_mean("esy", ["easy", "fcfs"]),
            "; did you mean \"easy\"?"
        );
        assert_eq!(did_you_mean("x", ["easy"]), "");
    }
}

//! Sets of node ids: [`NodeSet`], in Batsim's interval-set syntax (`0-3 7`).
//!
//! The simulator itself only counts busy nodes (the nodes are identical); node ids
//! come from a scheduler that chooses them (an external one, over Batsim's protocol) or
//! are assigned after the fact ([`crate::allocation`]).

use std::fmt;

/// A set of node ids as disjoint, non-adjacent half-open intervals in increasing order.
/// Displays in Batsim's interval-set syntax: `0-3 7` is nodes 0, 1, 2, 3 and 7.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeSet {
    /// `[first, end)` intervals.
    intervals: Vec<(u64, u64)>,
}

/// Why a text is not an interval set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeSetError {
    #[error("{0:?} is not a node id or a range `first-last` of node ids")]
    NotARange(String),
    #[error("range {0:?} ends before it starts")]
    Reversed(String),
    #[error("node {0} is given twice")]
    Repeated(u64),
}

impl NodeSet {
    /// The set of the given half-open `[first, end)` intervals, which must be
    /// disjoint, non-adjacent and in increasing order.
    pub(crate) fn from_intervals(intervals: Vec<(u64, u64)>) -> NodeSet {
        debug_assert!(intervals.windows(2).all(|w| w[0].1 < w[1].0));
        debug_assert!(intervals.iter().all(|&(a, b)| a < b));
        NodeSet { intervals }
    }

    /// Parses Batsim's interval-set syntax: ids and inclusive ranges `first-last`,
    /// separated by spaces, in any order (`7 0-3` is `0-3 7`). A node given twice is
    /// an error; the empty text is the empty set.
    pub fn parse(text: &str) -> Result<NodeSet, NodeSetError> {
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for word in text.split_ascii_whitespace() {
            let number = |s: &str| {
                s.parse::<u64>()
                    .ok()
                    .filter(|_| !s.starts_with('+'))
                    .ok_or_else(|| NodeSetError::NotARange(word.to_string()))
            };
            let (first, last) = match word.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => {
                    let n = number(word)?;
                    (n, n)
                }
            };
            if last < first {
                return Err(NodeSetError::Reversed(word.to_string()));
            }
            let end = last
                .checked_add(1)
                .ok_or_else(|| NodeSetError::NotARange(word.to_string()))?;
            ranges.push((first, end));
        }
        ranges.sort_unstable();
        let mut intervals: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
        for (first, end) in ranges {
            match intervals.last_mut() {
                Some(last) if first < last.1 => return Err(NodeSetError::Repeated(first)),
                Some(last) if first == last.1 => last.1 = end,
                _ => intervals.push((first, end)),
            }
        }
        Ok(NodeSet { intervals })
    }

    /// The intervals as inclusive `(first, last)` pairs, in increasing order.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.intervals.iter().map(|&(a, b)| (a, b - 1))
    }

    /// Every id, in increasing order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.intervals.iter().flat_map(|&(a, b)| a..b)
    }

    /// The number of ids.
    pub fn len(&self) -> u64 {
        self.intervals.iter().map(|&(a, b)| b - a).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// The highest id, if any.
    pub fn max(&self) -> Option<u64> {
        self.intervals.last().map(|&(_, b)| b - 1)
    }

    /// The half-open `[first, end)` intervals.
    pub(crate) fn intervals(&self) -> &[(u64, u64)] {
        &self.intervals
    }
}

impl fmt::Display for NodeSet {
    /// `first-last` for an interval of several ids, `id` for one, separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (first, last)) in self.ranges().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if first == last {
                write!(f, "{first}")?;
            } else {
                write!(f, "{first}-{last}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_batsim_interval_syntax() {
        let set = NodeSet {
            intervals: vec![(0, 4), (7, 8), (9, 12)],
        };
        assert_eq!(set.to_string(), "0-3 7 9-11");
        assert_eq!(set.len(), 8);
        assert_eq!(set.max(), Some(11));
        assert_eq!(set.ids().collect::<Vec<_>>(), [0, 1, 2, 3, 7, 9, 10, 11]);
        assert_eq!(NodeSet::default().to_string(), "");
    }

    /// Parsing by hand: ranges in any order are sorted and adjacent ones merged (`4-5
    /// 0-3` is nodes 0 to 5, one interval); the text of a parsed set is canonical.
    #[test]
    fn parses_batsim_interval_sets() {
        let p = |t: &str| NodeSet::parse(t).map(|s| s.to_string());
        assert_eq!(p("0-3 7"), Ok("0-3 7".into()));
        assert_eq!(p("7 0-3"), Ok("0-3 7".into()));
        assert_eq!(p("4-5 0-3"), Ok("0-5".into()));
        assert_eq!(p("  2  "), Ok("2".into()));
        assert_eq!(p("3-3"), Ok("3".into()));
        assert_eq!(p(""), Ok("".into()));
        assert_eq!(NodeSet::parse("0-3 7").unwrap().len(), 5);
    }

    #[test]
    fn refuses_what_is_not_an_interval_set() {
        use NodeSetError::*;
        let e = |t: &str| NodeSet::parse(t).unwrap_err();
        assert_eq!(e("0,1"), NotARange("0,1".into()));
        assert_eq!(e("a-3"), NotARange("a-3".into()));
        assert_eq!(e("-3"), NotARange("-3".into()));
        assert_eq!(e("+3"), NotARange("+3".into()));
        assert_eq!(e("1-2-3"), NotARange("1-2-3".into()));
        assert_eq!(e("5-2"), Reversed("5-2".into()));
        assert_eq!(e("0-3 2"), Repeated(2));
        assert_eq!(e("1 1"), Repeated(1));
        assert_eq!(
            e("18446744073709551615"),
            NotARange("18446744073709551615".into())
        );
    }
}

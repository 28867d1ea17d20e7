//! SWF header comments: [`SwfHeader`].

/// The comment lines of an SWF file, kept verbatim (the text after `;`) and in order,
/// with typed access to the standard keys (`Version`, `Computer`, `MaxJobs`,
/// `MaxRecords`, `MaxNodes`, `MaxProcs`, `UnixStartTime`, `TimeZoneString`, `Note`).
///
/// Values may carry free text: `MaxNodes: 338 (batch partition; 512 total)`. The numeric
/// accessors read the leading integer and ignore the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwfHeader {
    lines: Vec<String>,
}

impl SwfHeader {
    pub fn from_lines(lines: Vec<String>) -> SwfHeader {
        SwfHeader { lines }
    }

    /// Every comment line, without its leading `;`.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    pub(crate) fn push_line(&mut self, line: String) {
        self.lines.push(line);
    }

    /// Sets `key` to `value`: replaces the first line with this key, or adds one.
    pub fn set(&mut self, key: &str, value: &str) {
        let line = format!(" {key}: {value}");
        match self
            .lines
            .iter()
            .position(|l| split_key(l).is_some_and(|(k, _)| k == key))
        {
            Some(i) => self.lines[i] = line,
            None => self.lines.push(line),
        }
    }

    /// Removes every line with this key.
    pub fn remove(&mut self, key: &str) {
        self.lines
            .retain(|l| split_key(l).is_none_or(|(k, _)| k != key));
    }

    /// All `Key: value` pairs in file order (a key may repeat, as `Note` does).
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.lines.iter().filter_map(|l| split_key(l))
    }

    /// The value of the first line with this key (case-sensitive, as SWF defines it).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Every value of a repeated key, e.g. all `Note` lines.
    pub fn get_all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries()
            .filter(move |(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// The leading integer of a key's value (`"338 (batch partition; 512 total)"` → 338).
    pub fn get_int(&self, key: &str) -> Option<i64> {
        leading_int(self.get(key)?)
    }

    pub fn version(&self) -> Option<&str> {
        self.get("Version")
    }
    pub fn computer(&self) -> Option<&str> {
        self.get("Computer")
    }
    pub fn max_jobs(&self) -> Option<i64> {
        self.get_int("MaxJobs")
    }
    pub fn max_records(&self) -> Option<i64> {
        self.get_int("MaxRecords")
    }
    pub fn max_nodes(&self) -> Option<i64> {
        self.get_int("MaxNodes")
    }
    pub fn max_procs(&self) -> Option<i64> {
        self.get_int("MaxProcs")
    }
    pub fn unix_start_time(&self) -> Option<i64> {
        self.get_int("UnixStartTime")
    }
    pub fn time_zone_string(&self) -> Option<&str> {
        self.get("TimeZoneString")
    }
    pub fn notes(&self) -> impl Iterator<Item = &str> {
        self.get_all("Note")
    }

    /// The size of each partition where the header lists them after the platform size:
    /// `MaxProcs: 1664 (72, 1368, 224)` gives partition 1 72 processors, partition 2
    /// 1368 and partition 3 224 (SDSC-DS). Read from the key the platform size comes
    /// from (`MaxProcs`, else `MaxNodes`, so that the unit is the jobs'), and only when
    /// the list has two or more positive whole numbers that add up to the total before
    /// it: other free text (`338 (batch partition; 512 total)`) says nothing per
    /// partition. Index 0 is partition 1.
    pub fn partition_sizes(&self) -> Option<Vec<i64>> {
        let value = match self.get("MaxProcs") {
            Some(v) => v,
            None => self.get("MaxNodes")?,
        };
        let total = leading_int(value)?;
        let rest = value.trim_start();
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-');
        let list = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
        let sizes = list
            .split(',')
            .map(|s| s.trim().parse::<i64>().ok().filter(|&n| n > 0))
            .collect::<Option<Vec<i64>>>()?;
        (sizes.len() >= 2 && sizes.iter().sum::<i64>() == total).then_some(sizes)
    }
}

/// `" MaxNodes: 338 (x)"` → `("MaxNodes", "338 (x)")`. A key is one word of letters.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start();
    let colon = line.find(':')?;
    let key = &line[..colon];
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some((key, line[colon + 1..].trim()))
}

fn leading_int(value: &str) -> Option<i64> {
    let v = value.trim_start();
    let end = v
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(v.len(), |(i, _)| i);
    v[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(lines: &[&str]) -> SwfHeader {
        SwfHeader::from_lines(lines.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn free_text_after_numbers_is_ignored() {
        let h = header(&[
            " MaxNodes: 338 (batch partition; 512 total)",
            " MaxProcs: 1664 (72, 1368, 224)",
            " Version: 2.2",
        ]);
        assert_eq!(h.max_nodes(), Some(338));
        assert_eq!(h.max_procs(), Some(1664));
        assert_eq!(h.version(), Some("2.2"));
        assert_eq!(h.get("MaxNodes"), Some("338 (batch partition; 512 total)"));
    }

    #[test]
    fn notes_repeat_and_continuations_are_not_keys() {
        let h = header(&[
            " Note: first",
            "\tsee: http://example.org/x",
            " Note: second",
            " StartTime: Mon Sep 23 14:00:31 CEST 1996",
        ]);
        assert_eq!(h.notes().collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(h.get("see"), Some("http://example.org/x"));
        assert_eq!(h.get("StartTime"), Some("Mon Sep 23 14:00:31 CEST 1996"));
        assert_eq!(h.max_procs(), None);
    }

    /// The header lines of SDSC-DS-2004-2.1-cln and of CTC-SP2-1996-3.1-cln.
    #[test]
    fn partition_sizes_are_read_where_the_header_lists_them() {
        let ds = header(&[
            " MaxNodes: 184  ( 6,  171,   7)",
            " MaxProcs: 1664 (72, 1368, 224)",
        ]);
        assert_eq!(ds.partition_sizes(), Some(vec![72, 1368, 224]));
        // Without MaxProcs, MaxNodes' list (the jobs then count nodes).
        let nodes = header(&[" MaxNodes: 184  ( 6,  171,   7)"]);
        assert_eq!(nodes.partition_sizes(), Some(vec![6, 171, 7]));
        // MaxProcs without a list: MaxNodes' list is in another unit, not used.
        let mixed = header(&[" MaxNodes: 184 (6, 171, 7)", " MaxProcs: 1664"]);
        assert_eq!(mixed.partition_sizes(), None);
        for text in [
            " MaxNodes: 338 (batch partition; 512 total)",
            " MaxProcs: 93312",
            " MaxProcs: 100 (40, 50)",    // does not add up to 100
            " MaxProcs: 100 (100)",       // one partition says nothing
            " MaxProcs: 100 (0, 100)",    // a partition of no processor
            " MaxProcs: 100 (50, 50",     // unclosed
            " MaxProcs: 100 (50, x, 50)", // not a number
        ] {
            assert_eq!(header(&[text]).partition_sizes(), None, "{text}");
        }
    }
}

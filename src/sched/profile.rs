//! The node-availability profile of conservative backfilling: [`Profile`].

use crate::time::Time;

/// Free nodes over future time, as a step function: `steps[i] = (t, free)` means `free`
/// nodes are free from `t` until the next step's time (the last step lasts forever and
/// has every node free). Steps before `now` are dropped lazily. Adjacent steps never
/// carry the same count.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    steps: Vec<(Time, u32)>,
    /// The time of the last [`Profile::advance`], and the step in force then.
    now: Time,
    base: usize,
    /// `prefix_max[i]` = max free over `steps[base..=i]`, valid for `base <= i <
    /// valid_prefix`.
    prefix_max: Vec<u32>,
    valid_prefix: usize,
    total: u32,
}

impl Profile {
    pub(crate) fn new(total: u32) -> Profile {
        Profile {
            steps: vec![(Time::from_millis(i64::MIN), total)],
            now: Time::from_millis(i64::MIN),
            base: 0,
            prefix_max: Vec::new(),
            valid_prefix: 0,
            total,
        }
    }

    /// Forgets the past: afterwards the first step is the one in force at `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        let mut current = self.index_at(now);
        // Amortised: drop the stale prefix only once it is a large share.
        if current > 32 && current * 2 > self.steps.len() {
            self.steps.drain(..current);
            current = 0;
        }
        self.now = now;
        self.base = current;
        self.valid_prefix = current;
    }

    /// Index of the step in force at `t`.
    fn index_at(&self, t: Time) -> usize {
        self.steps.partition_point(|&(s, _)| s <= t) - 1
    }

    /// The earliest start ≥ `now` at which `size` nodes are free for `duration`.
    pub(crate) fn earliest(&self, now: Time, size: u32, duration: Time) -> Time {
        debug_assert!(size <= self.total);
        let mut i = self.index_at(now);
        let mut candidate = now;
        loop {
            let (_, free) = self.steps[i];
            let next = self.steps.get(i + 1).map(|&(t, _)| t);
            if free < size {
                // Blocked; the next step starts a new candidate (the last step has every
                // node free, so this always ends).
                candidate = next.unwrap_or(Time::FAR);
                i += 1;
                if i == self.steps.len() {
                    return candidate;
                }
                continue;
            }
            match next {
                Some(t) if t < candidate + duration => i += 1,
                _ => return candidate,
            }
        }
    }

    /// The most nodes free at any instant from the last [`Profile::advance`] time up to
    /// (not including) `until`; 0 for an empty window. Cached prefix maxima make repeated
    /// queries cheap while the profile does not change.
    pub(crate) fn max_free_before(&mut self, until: Time) -> u32 {
        if until <= self.now {
            return 0;
        }
        let to = self.index_at(until - Time::MILLI).max(self.base);
        if self.prefix_max.len() < self.steps.len() {
            self.prefix_max.resize(self.steps.len(), 0);
        }
        let mut i = self.valid_prefix.max(self.base);
        let mut running = if i == self.base {
            0
        } else {
            self.prefix_max[i - 1]
        };
        while i <= to {
            running = running.max(self.steps[i].1);
            self.prefix_max[i] = running;
            i += 1;
        }
        self.valid_prefix = self.valid_prefix.max(to + 1);
        self.prefix_max[to]
    }

    /// Takes `size` nodes over `[from, to)`; they must be free.
    pub(crate) fn reserve(&mut self, from: Time, to: Time, size: u32) {
        self.add(from, to, size, false);
    }

    /// Gives back `size` nodes over `[from, to)`.
    pub(crate) fn release(&mut self, from: Time, to: Time, size: u32) {
        self.add(from, to, size, true);
    }

    fn add(&mut self, from: Time, to: Time, size: u32, give: bool) {
        if from >= to || size == 0 {
            return;
        }
        let a = self.split_at(from);
        let b = self.split_at(to);
        for step in &mut self.steps[a..b] {
            if give {
                step.1 += size;
            } else {
                debug_assert!(step.1 >= size, "reserving busy nodes");
                step.1 -= size;
            }
        }
        // Merge equal neighbours at the two boundaries (b first: indices shift).
        self.merge_at(b);
        self.merge_at(a);
        self.valid_prefix = self.valid_prefix.min(a.saturating_sub(1)).max(self.base);
    }

    /// Makes sure a step starts exactly at `t`; returns its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.index_at(t);
        if self.steps[i].0 == t {
            return i;
        }
        let free = self.steps[i].1;
        self.steps.insert(i + 1, (t, free));
        if i < self.base {
            self.base += 1;
        }
        self.valid_prefix = self.valid_prefix.min(i + 1).max(self.base);
        i + 1
    }

    fn merge_at(&mut self, i: usize) {
        if i > 0 && i < self.steps.len() && self.steps[i].1 == self.steps[i - 1].1 {
            self.steps.remove(i);
            if i <= self.base {
                self.base -= 1;
            }
            self.valid_prefix = self.valid_prefix.min(i).max(self.base);
        }
    }

    #[cfg(test)]
    fn steps(&self) -> Vec<(i64, u32)> {
        self.steps[1..]
            .iter()
            .map(|&(t, f)| (t.millis(), f))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: i64) -> Time {
        Time::from_millis(ms)
    }

    #[test]
    fn reserve_release_and_merge() {
        let mut p = Profile::new(10);
        p.reserve(t(0), t(10), 4);
        p.reserve(t(5), t(20), 6);
        assert_eq!(p.steps(), [(0, 6), (5, 0), (10, 4), (20, 10)]);
        p.release(t(5), t(20), 6);
        assert_eq!(p.steps(), [(0, 6), (10, 10)]);
    }

    #[test]
    fn earliest_finds_first_window_long_enough() {
        let mut p = Profile::new(10);
        p.reserve(t(0), t(10), 8); // 2 free until 10
        p.reserve(t(12), t(20), 8); // 2 free on [12, 20)
        assert_eq!(p.earliest(t(0), 2, t(100)), t(0));
        assert_eq!(p.earliest(t(0), 3, t(2)), t(10));
        assert_eq!(p.earliest(t(0), 3, t(3)), t(20));
        assert_eq!(p.earliest(t(15), 3, t(1)), t(20));
        assert_eq!(p.earliest(t(0), 10, t(2)), t(10));
        assert_eq!(p.earliest(t(0), 10, t(3)), t(20));
    }

    #[test]
    fn max_free_before_sees_only_the_window() {
        let mut p = Profile::new(10);
        p.reserve(t(0), t(10), 8);
        p.reserve(t(10), t(20), 5);
        p.advance(t(0));
        assert_eq!(p.max_free_before(t(0)), 0);
        assert_eq!(p.max_free_before(t(10)), 2);
        assert_eq!(p.max_free_before(t(11)), 5);
        assert_eq!(p.max_free_before(t(25)), 10);
        p.release(t(0), t(10), 8);
        assert_eq!(p.max_free_before(t(10)), 10);
        p.advance(t(12));
        assert_eq!(p.max_free_before(t(15)), 5);
    }
}

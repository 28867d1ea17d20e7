//! The node-availability profile of conservative backfilling: [`Profile`].

use crate::time::Time;

/// Steps per block of cached maxima.
const BLOCK: usize = 64;

/// Free nodes over future time, as a step function: `steps[i] = (t, free)` means `free`
/// nodes are free from `t` until the next step's time (the last step lasts forever and
/// has every node free). Steps before `now` are dropped lazily. Adjacent steps never
/// carry the same count.
///
/// Searches skip blocked stretches (fewer nodes free than needed) a block of 64 steps at
/// a time, using each block's maximum. A change at step `i` invalidates the cached
/// maxima from `i`'s block on; they are recomputed lazily when a search reaches them.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    steps: Vec<(Time, u32)>,
    /// `block_max[b]` = max free over `steps[b * BLOCK..(b + 1) * BLOCK]`, valid for
    /// `b < clean_blocks`.
    block_max: Vec<u32>,
    clean_blocks: usize,
    total: u32,
}

impl Profile {
    pub(crate) fn new(total: u32) -> Profile {
        Profile {
            steps: vec![(Time::from_millis(i64::MIN), total)],
            block_max: Vec::new(),
            clean_blocks: 0,
            total,
        }
    }

    /// Forgets the past: afterwards the first step is the one in force at `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        let current = self.index_at(now);
        // Amortised: drop the stale prefix only once it is a large share.
        if current > 32 && current * 2 > self.steps.len() {
            self.steps.drain(..current);
            self.clean_blocks = 0;
        }
    }

    /// Index of the step in force at `t`.
    fn index_at(&self, t: Time) -> usize {
        self.steps.partition_point(|&(s, _)| s <= t) - 1
    }

    /// The time of step `i`, or [`Time::FAR`] past the last.
    fn time_of(&self, i: usize) -> Time {
        self.steps.get(i).map_or(Time::FAR, |&(t, _)| t)
    }

    /// Marks the cached maxima from step `i`'s block on as stale.
    fn touch(&mut self, i: usize) {
        self.clean_blocks = self.clean_blocks.min(i / BLOCK);
    }

    /// The first step at or after `i` with at least `size` nodes free (`steps.len()` if
    /// none, which cannot happen for `size <= total`: the last step has every node free).
    fn next_fitting(&mut self, mut i: usize, size: u32) -> usize {
        let n = self.steps.len();
        let block_end = (i / BLOCK + 1) * BLOCK;
        while i < n.min(block_end) {
            if self.steps[i].1 >= size {
                return i;
            }
            i += 1;
        }
        let blocks = n.div_ceil(BLOCK);
        if self.block_max.len() < blocks {
            self.block_max.resize(blocks, 0);
        }
        let mut b = i / BLOCK;
        while b < blocks {
            while self.clean_blocks <= b {
                let c = self.clean_blocks;
                let block = &self.steps[c * BLOCK..n.min((c + 1) * BLOCK)];
                self.block_max[c] = block.iter().map(|&(_, f)| f).max().unwrap_or(0);
                self.clean_blocks += 1;
            }
            if self.block_max[b] >= size {
                let end = n.min((b + 1) * BLOCK);
                return (b * BLOCK..end)
                    .find(|&j| self.steps[j].1 >= size)
                    .unwrap_or(end);
            }
            b += 1;
        }
        n
    }

    /// The earliest start ≥ `now` at which `size` nodes are free for `duration`.
    pub(crate) fn earliest(&mut self, now: Time, size: u32, duration: Time) -> Time {
        debug_assert!(size <= self.total);
        let mut i = self.index_at(now);
        let mut candidate = now;
        loop {
            if self.steps[i].1 < size {
                i = self.next_fitting(i + 1, size);
                candidate = self.time_of(i);
                if i == self.steps.len() {
                    return candidate;
                }
                continue;
            }
            let next = self.time_of(i + 1);
            if next < candidate + duration {
                i += 1;
            } else {
                return candidate;
            }
        }
    }

    /// For a job holding the slot `[own, own + duration)`: the earliest start before
    /// `own` at which it could run instead, counting its own slot as free; `None` if
    /// there is none. Equals [`Profile::earliest`] after releasing the slot whenever that
    /// is earlier than `own`, but changes nothing and stops at `own`.
    pub(crate) fn earliest_before(
        &mut self,
        now: Time,
        size: u32,
        duration: Time,
        own: Time,
    ) -> Option<Time> {
        let own_end = own + duration;
        let mut candidate = now;
        let mut i = self.index_at(now);
        // Segments [from, to) of constant free count: the steps, cut at `own` and
        // `own_end` so that the job's own nodes are added back inside its slot. Inside
        // the slot a segment always fits; before it, a blocked step moves the candidate
        // to the next step that fits.
        let mut from = now;
        loop {
            if candidate >= own {
                return None;
            }
            let step_end = self.time_of(i + 1);
            if self.steps[i].1 < size && from < own {
                i = self.next_fitting(i + 1, size);
                candidate = self.time_of(i);
                from = candidate;
                if i == self.steps.len() {
                    return None;
                }
                continue;
            }
            let cut = if from < own {
                own
            } else if from < own_end {
                own_end
            } else {
                Time::FAR
            };
            let to = step_end.min(cut);
            let mut free = self.steps[i].1;
            if from >= own && from < own_end {
                free += size;
            }
            if free < size {
                // Only after the slot: the window cannot start before `own` any more.
                return None;
            }
            if to >= candidate + duration {
                return Some(candidate);
            }
            from = to;
            if to == step_end {
                i += 1;
                if i == self.steps.len() {
                    return None;
                }
            }
        }
    }

    /// The first stretch `[a, b)` within `[from, to)` with fewer than `size` nodes free.
    pub(crate) fn first_short(&self, from: Time, to: Time, size: u32) -> Option<(Time, Time)> {
        let mut i = self.index_at(from);
        while i < self.steps.len() && self.steps[i].0 < to {
            if self.steps[i].1 < size {
                return Some((self.steps[i].0.max(from), self.time_of(i + 1).min(to)));
            }
            i += 1;
        }
        None
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
                step.1 = step.1.saturating_sub(size);
            }
        }
        self.touch(a);
        // Merge equal neighbours at the two boundaries (b first: indices shift).
        self.merge_at(b);
        self.merge_at(a);
    }

    /// Makes sure a step starts exactly at `t`; returns its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.index_at(t);
        if self.steps[i].0 == t {
            return i;
        }
        let free = self.steps[i].1;
        self.steps.insert(i + 1, (t, free));
        self.touch(i + 1);
        i + 1
    }

    fn merge_at(&mut self, i: usize) {
        if i > 0 && i < self.steps.len() && self.steps[i].1 == self.steps[i - 1].1 {
            self.steps.remove(i);
            self.touch(i);
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
    fn earliest_before_counts_own_slot_and_stops_there() {
        let mut p = Profile::new(10);
        p.reserve(t(0), t(10), 8); // 2 free on [0, 10)
        p.reserve(t(10), t(20), 4); // a job of 4 holding [10, 20)
        // It could slide to 5 using 2 free nodes on [5, 10)? No: it needs 4 there.
        assert_eq!(p.earliest_before(t(0), 4, t(10), t(10)), None);
        p.release(t(0), t(10), 8);
        p.reserve(t(0), t(5), 8); // now all 10 free on [5, 10)
        // Slides to 5, overlapping its own slot [10, 15).
        assert_eq!(p.earliest_before(t(0), 4, t(10), t(10)), Some(t(5)));
        p.release(t(10), t(20), 4);
        assert_eq!(p.earliest(t(0), 4, t(10)), t(5));
        // Never at or after its own start.
        assert_eq!(p.earliest_before(t(5), 4, t(10), t(5)), None);
    }
}

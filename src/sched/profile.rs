//! The node-availability profile of conservative backfilling: [`Profile`].

use crate::time::Time;

/// Steps per block of cached minima and maxima (32 measured faster than 16 or 64 on
/// SDSC-SP2 at half speed).
const BLOCK: usize = 32;

/// Free nodes over future time, as a step function: step `i` has `free[i]` nodes free
/// from `times[i]` until the next step's time (the last step lasts forever and has every
/// node free). The first step is the one in force at `now` (the past is dropped at each
/// [`Profile::advance`]). Adjacent steps never carry the same count.
///
/// Searches move from one run of steps with enough nodes free to the next, skipping
/// whole blocks of steps with each block's cached minimum and maximum, so a search
/// costs the number of fitting/blocked alternations it crosses rather than the number of
/// steps. A change at step `i` invalidates the cached bounds from `i`'s block on; they
/// are recomputed lazily when a search reaches them.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    /// Step `i` starts at `times[i]` with `free[i]` nodes free (two arrays, so that the
    /// searches, which read only the counts, read a quarter of the bytes).
    times: Vec<Time>,
    free: Vec<u32>,
    /// `(min, max)` of `free[b * BLOCK..(b + 1) * BLOCK]` for block `b`, valid for
    /// `b < clean_blocks`.
    bounds: Vec<(u32, u32)>,
    clean_blocks: usize,
    total: u32,
}

impl Profile {
    pub(crate) fn new(total: u32) -> Profile {
        Profile {
            times: vec![Time::from_millis(i64::MIN)],
            free: vec![total],
            bounds: Vec::new(),
            clean_blocks: 0,
            total,
        }
    }

    /// The profile of running jobs alone, as of `now`: `free` nodes free now and, at
    /// each `(time, nodes)` of `releases` (sorted by time, every time after `now`), that
    /// many more.
    pub(crate) fn of_releases(
        total: u32,
        now: Time,
        free: u32,
        releases: &[(Time, u32)],
    ) -> Profile {
        let mut times = Vec::with_capacity(releases.len() + 1);
        let mut counts = Vec::with_capacity(releases.len() + 1);
        times.push(now);
        counts.push(free);
        let mut avail = free;
        for &(t, nodes) in releases.iter().filter(|r| r.1 > 0) {
            avail += nodes;
            if times.last() == Some(&t) {
                *counts.last_mut().expect("a first step") = avail;
            } else {
                times.push(t);
                counts.push(avail);
            }
        }
        Profile {
            times,
            free: counts,
            bounds: Vec::new(),
            clean_blocks: 0,
            total,
        }
    }

    /// Whether `size` nodes are free throughout `[from, from + duration)`.
    pub(crate) fn fits_at(&mut self, from: Time, size: u32, duration: Time) -> bool {
        let i = self.index_at(from);
        if self.free[i] < size {
            return false;
        }
        let blocked = self.next_blocked(i + 1, size);
        self.time_of(blocked) >= from + duration
    }

    /// Forgets the past: afterwards the first step is the one in force at `now`, and
    /// starts at `now`. Nothing may be asked about an earlier time afterwards.
    pub(crate) fn advance(&mut self, now: Time) {
        let current = self.index_at(now);
        if current > 0 {
            self.times.drain(..current);
            self.free.drain(..current);
            self.clean_blocks = 0;
        }
        self.times[0] = now;
    }

    /// Index of the step in force at `t` (at least the first step's time): the first
    /// step itself when `t` is before the second, as it is for the searches from `now`.
    fn index_at(&self, t: Time) -> usize {
        if self.times.get(1).is_none_or(|&second| t < second) {
            return 0;
        }
        self.times.partition_point(|&s| s <= t) - 1
    }

    /// The time of step `i`, or [`Time::FAR`] past the last.
    fn time_of(&self, i: usize) -> Time {
        self.times.get(i).copied().unwrap_or(Time::FAR)
    }

    /// Marks the cached bounds from step `i`'s block on as stale.
    fn touch(&mut self, i: usize) {
        self.clean_blocks = self.clean_blocks.min(i / BLOCK);
    }

    /// Recomputes the cached bounds of the blocks up to and including `b`.
    fn clean_through(&mut self, b: usize) {
        let n = self.free.len();
        if self.bounds.len() <= b {
            self.bounds.resize(b + 1, (0, 0));
        }
        while self.clean_blocks <= b {
            let c = self.clean_blocks;
            let block = &self.free[c * BLOCK..n.min((c + 1) * BLOCK)];
            self.bounds[c] = block
                .iter()
                .fold((u32::MAX, 0), |(lo, hi), &f| (lo.min(f), hi.max(f)));
            self.clean_blocks += 1;
        }
    }

    /// The first step at or after `i` with at least `size` nodes free (the step count if
    /// none, which cannot happen for `size <= total`: the last step has every node free).
    fn next_fitting(&mut self, i: usize, size: u32) -> usize {
        self.next_where(i, |free| free >= size, |(_, max)| max >= size)
    }

    /// The first step at or after `i` with fewer than `size` nodes free (the step count
    /// if none).
    fn next_blocked(&mut self, i: usize, size: u32) -> usize {
        self.next_where(i, |free| free < size, |(min, _)| min < size)
    }

    /// The first step at or after `i` whose free count satisfies `hit`; `may_hold` says
    /// from a block's (min, max) whether any of its steps can.
    fn next_where(
        &mut self,
        i: usize,
        hit: impl Fn(u32) -> bool,
        may_hold: impl Fn((u32, u32)) -> bool,
    ) -> usize {
        let n = self.free.len();
        let block_end = n.min((i / BLOCK + 1) * BLOCK);
        if let Some(k) = self
            .free
            .get(i..block_end)
            .and_then(|f| f.iter().position(|&f| hit(f)))
        {
            return i + k;
        }
        // Whole blocks from the next one on.
        for b in block_end.div_ceil(BLOCK)..n.div_ceil(BLOCK) {
            self.clean_through(b);
            if may_hold(self.bounds[b]) {
                let end = n.min((b + 1) * BLOCK);
                return self.free[b * BLOCK..end]
                    .iter()
                    .position(|&f| hit(f))
                    .map_or(end, |k| b * BLOCK + k);
            }
        }
        n
    }

    /// The earliest start ≥ `from` (not before now) at which `size` nodes are free for
    /// `duration`.
    pub(crate) fn earliest(&mut self, from: Time, size: u32, duration: Time) -> Time {
        debug_assert!(size <= self.total);
        self.first_window(from, size, duration, Time::FAR)
            .expect("the last step has every node free")
    }

    /// For a job holding the slot `[own, own + duration)`: the earliest start ≥ `from`
    /// (not before now) and before `own` at which it could run instead, counting its own
    /// slot as free; `None` if there is none. Equals [`Profile::earliest`] after
    /// releasing the slot whenever that is earlier than `own`, but changes nothing and
    /// stops at `own`.
    ///
    /// A start `c < own` ends before `own + duration`, and inside the job's own slot its
    /// `size` nodes count as free, so every step there fits: only the part of the window
    /// before `own` can block it.
    pub(crate) fn earliest_before(
        &mut self,
        from: Time,
        size: u32,
        duration: Time,
        own: Time,
    ) -> Option<Time> {
        self.first_window(from, size, duration, own)
    }

    /// The earliest start `c` with `from <= c < before` at which `size` nodes are free
    /// over `[c, min(c + duration, before))`, if any: from one run of fitting steps to
    /// the next.
    fn first_window(
        &mut self,
        from: Time,
        size: u32,
        duration: Time,
        before: Time,
    ) -> Option<Time> {
        let mut i = self.index_at(from);
        let mut candidate = from;
        loop {
            if self.free[i] < size {
                i = self.next_fitting(i + 1, size);
                candidate = self.time_of(i);
            }
            if candidate >= before {
                return None;
            }
            // Steps i.. fit up to the next blocked one.
            let blocked = self.next_blocked(i + 1, size);
            if self.time_of(blocked) >= (candidate + duration).min(before) {
                return Some(candidate);
            }
            i = blocked;
        }
    }

    /// The first stretch `[a, b)` within `[from, to)` with fewer than `size` nodes free.
    pub(crate) fn first_short(&self, from: Time, to: Time, size: u32) -> Option<(Time, Time)> {
        let mut i = self.index_at(from);
        while i < self.times.len() && self.times[i] < to {
            if self.free[i] < size {
                return Some((self.times[i].max(from), self.time_of(i + 1).min(to)));
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
        for free in &mut self.free[a..b] {
            if give {
                *free += size;
            } else {
                debug_assert!(*free >= size, "reserving busy nodes");
                *free = free.saturating_sub(size);
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
        if self.times[i] == t {
            return i;
        }
        self.times.insert(i + 1, t);
        self.free.insert(i + 1, self.free[i]);
        self.touch(i + 1);
        i + 1
    }

    fn merge_at(&mut self, i: usize) {
        if i > 0 && i < self.free.len() && self.free[i] == self.free[i - 1] {
            self.times.remove(i);
            self.free.remove(i);
            self.touch(i);
        }
    }

    #[cfg(test)]
    fn steps(&self) -> Vec<(i64, u32)> {
        self.times[1..]
            .iter()
            .zip(&self.free[1..])
            .map(|(&t, &f)| (t.millis(), f))
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

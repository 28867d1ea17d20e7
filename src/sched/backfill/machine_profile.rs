//! Which machines are free over future time: [`MachineSet`] and [`MachineProfile`],
//! the availability profile of machine-level reservations (`reserve = "machines"`),
//! after batsched's `Schedule` (a list of time slices, each with its set of available
//! machines).
//!
//! A job fits at `t` when at least its size of machines are free throughout
//! `[t, t + duration)`; it takes the lowest-numbered of them (batsched's `basic`
//! resource selector). The earliest such `t` from a time on is always the start of a
//! step (or that time itself): within a step, free machines do not change, so a window
//! that fits later in the step fits at its start too, on the same machines or more.

use crate::time::Time;
use std::fmt;

/// A set of machine ids as disjoint, non-adjacent half-open intervals, in increasing
/// order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct MachineSet {
    intervals: Vec<(u32, u32)>,
}

impl MachineSet {
    /// Machines `0..n`.
    pub(crate) fn first(n: u32) -> MachineSet {
        MachineSet {
            intervals: if n == 0 { Vec::new() } else { vec![(0, n)] },
        }
    }

    /// Its `[first, end)` intervals, in increasing order.
    pub(crate) fn intervals(&self) -> &[(u32, u32)] {
        &self.intervals
    }

    pub(crate) fn len(&self) -> u32 {
        self.intervals.iter().map(|&(a, b)| b - a).sum()
    }

    /// The machines in both.
    pub(crate) fn intersect(&self, other: &MachineSet) -> MachineSet {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.intervals.len() && j < other.intervals.len() {
            let (a, b) = self.intervals[i];
            let (c, d) = other.intervals[j];
            let (lo, hi) = (a.max(c), b.min(d));
            if lo < hi {
                out.push((lo, hi));
            }
            if b < d {
                i += 1;
            } else {
                j += 1;
            }
        }
        MachineSet { intervals: out }
    }

    /// Whether every machine of `other` is in this set.
    pub(crate) fn contains(&self, other: &MachineSet) -> bool {
        other.intervals.iter().all(|&(c, d)| {
            let k = self.intervals.partition_point(|&(_, b)| b <= c);
            self.intervals
                .get(k)
                .is_some_and(|&(a, b)| a <= c && d <= b)
        })
    }

    /// Whether the sets share a machine.
    pub(crate) fn overlaps(&self, other: &MachineSet) -> bool {
        self.intersect(other).len() > 0
    }

    /// The `n` lowest-numbered machines (all of them if fewer).
    pub(crate) fn lowest(&self, n: u32) -> MachineSet {
        let mut left = n;
        let mut out = Vec::new();
        for &(a, b) in &self.intervals {
            if left == 0 {
                break;
            }
            let take = (b - a).min(left);
            out.push((a, a + take));
            left -= take;
        }
        MachineSet { intervals: out }
    }

    /// This set without the machines of `other`.
    pub(crate) fn minus(&self, other: &MachineSet) -> MachineSet {
        let mut out = Vec::new();
        let mut j = 0;
        for &(a, b) in &self.intervals {
            let mut lo = a;
            while j < other.intervals.len() && other.intervals[j].1 <= lo {
                j += 1;
            }
            let mut k = j;
            while lo < b {
                match other.intervals.get(k) {
                    Some(&(c, d)) if c < b => {
                        if c > lo {
                            out.push((lo, c));
                        }
                        lo = lo.max(d);
                        k += 1;
                    }
                    _ => {
                        out.push((lo, b));
                        lo = b;
                    }
                }
            }
        }
        MachineSet { intervals: out }
    }

    /// The machines of both sets.
    pub(crate) fn union(&self, other: &MachineSet) -> MachineSet {
        let mut all: Vec<(u32, u32)> = self
            .intervals
            .iter()
            .chain(&other.intervals)
            .copied()
            .collect();
        all.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(all.len());
        for (a, b) in all {
            match out.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        MachineSet { intervals: out }
    }
}

impl fmt::Display for MachineSet {
    /// Batsim's interval-set syntax: `0-3 7`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, &(a, b)) in self.intervals.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            if b - a == 1 {
                write!(f, "{a}")?;
            } else {
                write!(f, "{}-{}", a, b - 1)?;
            }
        }
        Ok(())
    }
}

/// One step of the profile: from `time` until the next step's time, `free` machines.
#[derive(Clone, Debug)]
struct Step {
    time: Time,
    free: MachineSet,
    count: u32,
}

/// Free machines over future time, as steps: step `i` has `free` machines from its time
/// until the next step's (the last step lasts forever). The first step is the one in
/// force at `now` (the past is dropped at each [`MachineProfile::advance`]). Adjacent
/// steps never have the same free machines.
#[derive(Clone, Debug)]
pub(crate) struct MachineProfile {
    steps: Vec<Step>,
}

impl MachineProfile {
    pub(crate) fn new(total: u32) -> MachineProfile {
        MachineProfile {
            steps: vec![Step {
                time: Time::FAR_PAST,
                free: MachineSet::first(total),
                count: total,
            }],
        }
    }

    /// Forgets the past: afterwards the first step is the one in force at `now`.
    pub(crate) fn advance(&mut self, now: Time) {
        let i = self.index_at(now);
        self.steps.drain(..i);
        self.steps[0].time = now;
    }

    /// Index of the step in force at `t` (the first step for earlier times).
    fn index_at(&self, t: Time) -> usize {
        self.steps
            .partition_point(|s| s.time <= t)
            .saturating_sub(1)
    }

    fn time_of(&self, i: usize) -> Time {
        self.steps.get(i).map_or(Time::FAR, |s| s.time)
    }

    /// The machines free throughout `[t, t + duration)` from step `i` on (`t` in step
    /// `i`), if at least `size` of them are: the lowest `size` of them.
    fn window(&self, i: usize, t: Time, size: u32, duration: Time) -> Option<MachineSet> {
        let step = &self.steps[i];
        if step.count < size {
            return None;
        }
        let mut free = step.free.clone();
        let end = t + duration;
        let mut j = i + 1;
        while self.time_of(j) < end {
            let s = &self.steps[j];
            if s.count < size {
                return None;
            }
            free = free.intersect(&s.free);
            if free.len() < size {
                return None;
            }
            j += 1;
        }
        Some(free.lowest(size))
    }

    /// The earliest start ≥ `from` (not before now) at which `size` machines are free
    /// throughout `duration`, with the lowest-numbered of them.
    pub(crate) fn earliest(&self, from: Time, size: u32, duration: Time) -> (Time, MachineSet) {
        let first = self.index_at(from);
        for i in first..self.steps.len() {
            let t = self.steps[i].time.max(from);
            if let Some(m) = self.window(i, t, size, duration) {
                return (t, m);
            }
        }
        (Time::FAR, MachineSet::default())
    }

    /// The machines a job of `size` and `duration` would take if it started at `at`
    /// (no earlier than now), if it fits then.
    pub(crate) fn fits_at(&self, at: Time, size: u32, duration: Time) -> Option<MachineSet> {
        self.window(self.index_at(at), at, size, duration)
    }

    /// The first instant in `[from, to)` at which some machine of `set` is not free, with
    /// the end of that step (capped at `to`).
    pub(crate) fn first_taken(
        &self,
        from: Time,
        to: Time,
        set: &MachineSet,
    ) -> Option<(Time, Time)> {
        let mut i = self.index_at(from);
        while i < self.steps.len() && self.steps[i].time < to {
            if !self.steps[i].free.contains(set) {
                return Some((self.steps[i].time.max(from), self.time_of(i + 1).min(to)));
            }
            i += 1;
        }
        None
    }

    /// Makes sure a step starts exactly at `t`; returns its index.
    fn split_at(&mut self, t: Time) -> usize {
        let i = self.index_at(t);
        if self.steps[i].time == t {
            return i;
        }
        let mut step = self.steps[i].clone();
        step.time = t;
        self.steps.insert(i + 1, step);
        i + 1
    }

    /// Takes the machines of `set` over `[from, to)`; they must be free.
    pub(crate) fn reserve(&mut self, from: Time, to: Time, set: &MachineSet) {
        self.change(from, to, set, false);
    }

    /// Gives back the machines of `set` over `[from, to)`.
    pub(crate) fn release(&mut self, from: Time, to: Time, set: &MachineSet) {
        self.change(from, to, set, true);
    }

    fn change(&mut self, from: Time, to: Time, set: &MachineSet, give: bool) {
        if from >= to || set.len() == 0 {
            return;
        }
        let a = self.split_at(from);
        let b = self.split_at(to);
        for step in &mut self.steps[a..b] {
            step.free = if give {
                step.free.union(set)
            } else {
                debug_assert!(step.free.contains(set), "reserving busy machines");
                step.free.minus(set)
            };
            step.count = step.free.len();
        }
        // Merge equal neighbours at the two boundaries (b first: indices shift).
        for i in [b, a] {
            if i > 0 && i < self.steps.len() && self.steps[i].free == self.steps[i - 1].free {
                self.steps.remove(i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(intervals: &[(u32, u32)]) -> MachineSet {
        MachineSet {
            intervals: intervals.to_vec(),
        }
    }

    #[test]
    fn set_operations() {
        let a = set(&[(0, 4), (6, 10)]);
        let b = set(&[(2, 7), (9, 12)]);
        assert_eq!(a.intersect(&b), set(&[(2, 4), (6, 7), (9, 10)]));
        assert_eq!(a.minus(&b), set(&[(0, 2), (7, 9)]));
        assert_eq!(a.union(&b), set(&[(0, 12)]));
        assert_eq!(a.lowest(5), set(&[(0, 4), (6, 7)]));
        assert!(a.contains(&set(&[(1, 3), (7, 9)])));
        assert!(!a.contains(&set(&[(3, 7)])));
        assert_eq!(a.to_string(), "0-3 6-9");
        assert_eq!(set(&[(5, 6)]).to_string(), "5");
    }

    #[test]
    fn earliest_takes_the_lowest_machines_free_throughout() {
        let t = Time::from_secs;
        let mut p = MachineProfile::new(8);
        p.advance(t(0));
        // Machines 0-3 busy until 10, 4-5 busy from 5 to 20.
        p.reserve(t(0), t(10), &set(&[(0, 4)]));
        p.reserve(t(5), t(20), &set(&[(4, 6)]));
        // 4 machines for 3 s: at 0, machines 4-7 (free on [0, 3)).
        assert_eq!(p.earliest(t(0), 4, t(3)), (t(0), set(&[(4, 8)])));
        // For 6 s, 4-5 are taken at 5: only 6-7 free throughout; at 10, 0-3.
        assert_eq!(p.earliest(t(0), 4, t(6)), (t(10), set(&[(0, 4)])));
        // 6 machines: at 10 (0-3 and 6-7 free on [10, 20): four plus two).
        assert_eq!(p.earliest(t(0), 6, t(5)), (t(10), set(&[(0, 4), (6, 8)])));
        assert_eq!(p.earliest(t(0), 7, t(5)), (t(20), set(&[(0, 7)])));
        assert_eq!(p.fits_at(t(0), 2, t(100)), Some(set(&[(6, 8)])));
        assert_eq!(
            p.first_taken(t(0), t(30), &set(&[(3, 5)])),
            Some((t(0), t(5)))
        );
        p.release(t(5), t(20), &set(&[(4, 6)]));
        p.release(t(0), t(10), &set(&[(0, 4)]));
        assert_eq!(p.steps.len(), 1, "{:?}", p.steps);
    }
}

//! What the backfilling family plans a job's run time as: [`Prediction`], the
//! [`Predictor`] that learns from each user's ended jobs, and when a running job is
//! expected to end ([`Predictor::running_end`]).
//!
//! One mechanism for the requested time, the prediction window and EASY++ (Tsafrir,
//! Etsion & Feitelson 2007): a job is planned with a duration fixed when it is submitted
//! (its requested time, or a prediction capped by it), and a running job that outlives
//! its planned duration is given a longer one, by a rule of the mode, never beyond its
//! requested time while that is still ahead; a job that outlives its requested time too
//! (walltime `run`) is expected to need another whole requested time (see
//! [`super::super::expected_end`]).

use super::super::expected_end;
use crate::time::Time;
use std::collections::{HashMap, VecDeque};
use std::num::NonZeroU32;

/// How jobs are planned: `"estimate"` (the requested time), `{ window = K }` (the mean
/// run time of the user's last K ended jobs, capped by the requested time) or `"easy++"`
/// (EASY++'s predictor: the window of 2, with its correction ladder).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Prediction {
    #[default]
    Estimate,
    Window(NonZeroU32),
    EasyPlusPlus,
}

/// EASY++'s corrections: a job that outlives its prediction p is expected to run
/// p + the first of these that is still ahead (capped by its requested time).
pub(crate) const LADDER: [Time; 11] = [
    Time::from_secs(60),
    Time::from_secs(5 * 60),
    Time::from_secs(15 * 60),
    Time::from_secs(30 * 60),
    Time::from_secs(3600),
    Time::from_secs(2 * 3600),
    Time::from_secs(5 * 3600),
    Time::from_secs(10 * 3600),
    Time::from_secs(20 * 3600),
    Time::from_secs(50 * 3600),
    Time::from_secs(100 * 3600),
];

impl Prediction {
    /// How many of a user's last ended jobs the prediction averages (0: none).
    fn window(self) -> usize {
        match self {
            Prediction::Estimate => 0,
            Prediction::Window(k) => k.get() as usize,
            Prediction::EasyPlusPlus => 2,
        }
    }

    pub(crate) fn predicts(self) -> bool {
        self != Prediction::Estimate
    }
}

/// Run-time predictions from each user's recent jobs.
#[derive(Debug, Clone)]
pub(crate) struct Predictor {
    mode: Prediction,
    /// Per user: the run times of the last `window` ended jobs, and their sum (ms).
    users: HashMap<i64, (VecDeque<Time>, i64)>,
}

impl Predictor {
    pub(crate) fn new(mode: Prediction) -> Predictor {
        Predictor {
            mode,
            users: HashMap::new(),
        }
    }

    /// The duration a job of `user` requesting `requested` is planned with, as of its
    /// submission: the requested time, or the mean run time (rounded down to the
    /// millisecond) of the user's last ended jobs, capped by it (the requested time
    /// when the user has none).
    pub(crate) fn plan(&self, user: i64, requested: Time) -> Time {
        if !self.mode.predicts() {
            return requested;
        }
        match self.users.get(&user) {
            Some((last, sum)) if !last.is_empty() => {
                Time::from_millis(sum / last.len() as i64).min(requested)
            }
            _ => requested,
        }
    }

    /// A job of `user` ended after running `ran` (completed or killed).
    pub(crate) fn learn(&mut self, user: i64, ran: Time) {
        let window = self.mode.window();
        if window == 0 {
            return;
        }
        let (last, sum) = self.users.entry(user).or_default();
        last.push_back(ran);
        *sum += ran.millis();
        if last.len() > window
            && let Some(old) = last.pop_front()
        {
            *sum -= old.millis();
        }
    }

    /// When a job started at `start`, planned to run `planned`, requesting `requested`,
    /// is expected to end, as of `now` while it runs (always after `now`): `start +
    /// planned` while that is ahead; then, under EASY++, `start + planned + c` for the
    /// first correction `c` still ahead, while that is before `start + requested`;
    /// otherwise the requested time's end, extended by whole requested times once that
    /// has passed (`expected_end`) — except at the instant the job starts, when a job
    /// requesting no time is expected to end at once (it does, under walltime kill, and
    /// the cleaning gives a request of 0 only to jobs that run for 0). `min_slot` is the shortest duration counted (1 ms in
    /// a profile, where a slot of zero length would hold no nodes; none for EASY's
    /// shadow time).
    pub(crate) fn running_end(
        &self,
        start: Time,
        planned: Time,
        requested: Time,
        now: Time,
        min_slot: Time,
    ) -> Time {
        let end = start + planned.max(min_slot);
        if end > now {
            return end;
        }
        let requested = requested.max(min_slot);
        if start == now && requested == Time::ZERO {
            // Just started, requesting no time at all: it ends at once, killed or done
            // (the cleaning gives a request of 0 only to jobs that run for 0).
            return start;
        }
        if self.mode == Prediction::EasyPlusPlus {
            let cap = start + requested;
            if let Some(c) = LADDER
                .iter()
                .map(|&c| start + planned + c)
                .find(|&c| c > now)
                .filter(|&c| c < cap)
            {
                return c;
            }
        }
        expected_end(start, requested, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: i64) -> Time {
        Time::from_secs(x)
    }

    #[test]
    fn window_means_and_caps() {
        let mut p = Predictor::new(Prediction::Window(NonZeroU32::new(2).unwrap()));
        assert_eq!(p.plan(1, s(100)), s(100), "no history: the request");
        p.learn(1, s(10));
        assert_eq!(p.plan(1, s(100)), s(10));
        p.learn(1, s(31));
        // (10 + 31) / 2 = 20.5 s.
        assert_eq!(p.plan(1, s(100)), Time::from_millis(20_500));
        p.learn(1, s(50));
        // The last two: (31 + 50) / 2 = 40.5 s; capped by a request of 30 s.
        assert_eq!(p.plan(1, s(100)), Time::from_millis(40_500));
        assert_eq!(p.plan(1, s(30)), s(30));
        assert_eq!(p.plan(2, s(7)), s(7), "another user");
    }

    #[test]
    fn easy_plus_plus_climbs_the_ladder_then_the_request() {
        let p = Predictor::new(Prediction::EasyPlusPlus);
        let end = |now| p.running_end(s(0), s(100), s(10_000), s(now), Time::ZERO);
        assert_eq!(end(50), s(100), "prediction still ahead");
        assert_eq!(end(100), s(160), "+1 min");
        assert_eq!(end(159), s(160));
        assert_eq!(end(160), s(400), "+5 min");
        assert_eq!(end(1000), s(1900), "+30 min");
        assert_eq!(end(1900), s(3700), "+1 h");
        // +2 h = 7300 s is beyond the request (10,000 s)? No: 7300 < 10,000.
        assert_eq!(end(3700), s(7300));
        // +5 h = 18,100 s > 10,000: capped, the request's end.
        assert_eq!(end(7300), s(10_000));
        // Past the request (walltime run): whole requests.
        assert_eq!(end(10_000), s(20_000));
    }

    #[test]
    fn window_mode_goes_to_the_request() {
        let p = Predictor::new(Prediction::Window(NonZeroU32::new(3).unwrap()));
        let end = |now| p.running_end(s(0), s(100), s(1000), s(now), Time::ZERO);
        assert_eq!(end(99), s(100));
        assert_eq!(end(100), s(1000));
        assert_eq!(end(2500), s(3000));
    }
}

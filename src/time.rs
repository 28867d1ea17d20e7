//! Simulation time: [`Time`], an integer count of milliseconds.
//!
//! Every layer uses the same integer type for instants and durations, so that speed
//! changes by ×2 or ÷2 stay exact and event ordering never depends on float rounding.
//! SWF files count seconds; one second is [`Time::SECOND`].

use serde::Serialize;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a duration, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Time(i64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MILLI: Time = Time(1);
    pub const SECOND: Time = Time(1000);
    /// Far beyond any real trace (about 73 million years) but far from overflow, so that
    /// `Time::FAR + duration` stays representable.
    pub const FAR: Time = Time(1 << 60);
    /// Far before any real trace (−[`Time::FAR`]): a start value for running maxima.
    pub const FAR_PAST: Time = Time(-(1 << 60));

    /// The largest time an input may give, in seconds: a million (Julian) years. SWF
    /// time fields beyond it are refused when read.
    pub const MAX_INPUT_SECS: i64 = 31_557_600_000_000;
    /// The simulator's horizon (2^58 ms, about 9.1 million years): the jobs of one
    /// simulation may last at most this long in total, and no submission may come
    /// later. Every instant a simulation computes then stays below [`Time::FAR`]
    /// (submissions, plus at most every job's run time, requested time and recorded
    /// wait), so time arithmetic never overflows.
    pub const HORIZON: Time = Time(1 << 58);

    /// `self × k`, usable in constants.
    pub const fn mul_const(self, k: i64) -> Time {
        Time(self.0 * k)
    }

    pub const fn from_millis(ms: i64) -> Time {
        Time(ms)
    }

    /// Whole seconds, as SWF counts them. Saturates far outside any real trace.
    pub const fn from_secs(s: i64) -> Time {
        Time(s.saturating_mul(1000))
    }

    pub const fn millis(self) -> i64 {
        self.0
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// Seconds rounded to the nearest whole second (half away from zero), as SWF
    /// stores them.
    pub fn round_secs(self) -> i64 {
        let q = self.0.div_euclid(1000);
        let r = self.0.rem_euclid(1000);
        if r >= 500 { q + 1 } else { q }
    }

    /// This duration divided by a positive factor, rounded to the nearest millisecond.
    /// Exact for factors that are powers of two (and for any factor dividing it).
    pub fn div_f64(self, factor: f64) -> Time {
        Time((self.0 as f64 / factor).round() as i64)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0 + rhs.0)
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 += rhs.0;
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    /// Seconds with up to three decimals: `12`, `12.5`, `0.001`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (s, ms) = (abs / 1000, abs % 1000);
        if ms == 0 {
            write!(f, "{sign}{s}")
        } else {
            let frac = format!("{ms:03}");
            write!(f, "{sign}{s}.{}", frac.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_seconds_with_trimmed_millis() {
        assert_eq!(Time::from_secs(12).to_string(), "12");
        assert_eq!(Time::from_millis(12_500).to_string(), "12.5");
        assert_eq!(Time::from_millis(1).to_string(), "0.001");
        assert_eq!(Time::from_millis(-1500).to_string(), "-1.5");
    }

    #[test]
    fn halving_and_doubling_speed_is_exact() {
        let t = Time::from_secs(7);
        assert_eq!(t.div_f64(2.0), Time::from_millis(3500));
        assert_eq!(t.div_f64(0.5), Time::from_secs(14));
        assert_eq!(Time::from_millis(3500).round_secs(), 4);
        assert_eq!(Time::from_millis(3499).round_secs(), 3);
    }
}

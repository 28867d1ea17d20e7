//! Wall-clock time of a workload: [`Calendar`], from an SWF header's `UnixStartTime`
//! and `TimeZoneString` (an IANA zone such as `Europe/Stockholm`, daylight saving time
//! included; the time zone database is built into the binary, so results do not depend
//! on the machine's). Simulated time t (milliseconds since the trace's start) is the
//! instant `UnixStartTime` + t.

use crate::swf::SwfHeader;
use crate::time::Time;
use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

/// Maps simulated times to local dates and times.
#[derive(Clone, Debug)]
pub struct Calendar {
    /// `UnixStartTime` in milliseconds.
    unix_start_ms: i64,
    tz: TimeZone,
}

/// Why a workload has no calendar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalendarError {
    #[error(
        "the trace header has no {0}, which day and week cycles need; give it with the \
         trace (a spec workload's unix_start = SECONDS and timezone = \"Area/City\", or \
         --unix-start and --timezone)"
    )]
    Missing(&'static str),
    #[error("unknown time zone {0:?} (expected an IANA name such as \"Europe/Paris\")")]
    UnknownZone(String),
    #[error("UnixStartTime {0} is out of range")]
    OutOfRange(i64),
}

impl Calendar {
    /// Trace time 0 is `unix_start` (seconds since 1970 UTC) in time zone `zone`.
    pub fn new(unix_start: i64, zone: &str) -> Result<Calendar, CalendarError> {
        let tz = TimeZone::get(zone).map_err(|_| CalendarError::UnknownZone(zone.to_string()))?;
        let unix_start_ms = unix_start
            .checked_mul(1000)
            .filter(|&ms| Timestamp::from_millisecond(ms).is_ok())
            .ok_or(CalendarError::OutOfRange(unix_start))?;
        Ok(Calendar { unix_start_ms, tz })
    }

    /// From the header's `UnixStartTime` and `TimeZoneString` (which cleaning may have
    /// set: [`CleaningPolicy::unix_start`](super::CleaningPolicy::unix_start)).
    pub fn of(header: &SwfHeader) -> Result<Calendar, CalendarError> {
        let start = header
            .unix_start_time()
            .ok_or(CalendarError::Missing("UnixStartTime"))?;
        let zone = header
            .time_zone_string()
            .ok_or(CalendarError::Missing("TimeZoneString"))?;
        Calendar::new(start, zone)
    }

    /// Checks a time zone name.
    pub(crate) fn check_zone(zone: &str) -> Result<(), CalendarError> {
        TimeZone::get(zone)
            .map(drop)
            .map_err(|_| CalendarError::UnknownZone(zone.to_string()))
    }

    /// Local date and time of simulated time `t`.
    pub fn local(&self, t: Time) -> DateTime {
        self.tz.to_datetime(self.timestamp(t))
    }

    fn timestamp(&self, t: Time) -> Timestamp {
        let ms = self.unix_start_ms.saturating_add(t.millis());
        Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
            Timestamp::MIN
        } else {
            Timestamp::MAX
        })
    }

    /// Simulated time `t` as the archive's headers write instants (`StartTime:`), e.g.
    /// `Mon Sep 23 14:00:31 CEST 1996`.
    pub(crate) fn archive_format(&self, t: Time) -> String {
        self.timestamp(t)
            .to_zoned(self.tz.clone())
            .strftime("%a %b %d %H:%M:%S %Z %Y")
            .to_string()
    }

    /// The simulated time of local date `date` at `offset` past its midnight (local
    /// clock time: on a daylight-saving change day, 7:30 is 7:30 on the clock; a time
    /// skipped by the change is taken after it, a repeated one at its first occurrence).
    pub fn at(&self, date: Date, offset: Time) -> Time {
        let midnight = date.to_datetime(jiff::civil::Time::midnight());
        let dt = midnight
            .checked_add(jiff::SignedDuration::from_millis(offset.millis()))
            .unwrap_or(midnight);
        let ts = self
            .tz
            .to_timestamp(dt)
            .unwrap_or_else(|_| self.timestamp(Time::ZERO));
        Time::from_millis(ts.as_millisecond() - self.unix_start_ms)
    }

    /// A clock for many lookups: it keeps the UTC offset while it holds.
    pub fn clock(&self) -> LocalClock<'_> {
        LocalClock {
            calendar: self,
            from: 0,
            until: 0,
            offset: 0,
        }
    }

    /// The hour of the week of simulated time `t`, local: 0 is Monday 0:00–1:00, 167
    /// Sunday 23:00–24:00.
    pub fn hour_of_week(&self, t: Time) -> u8 {
        self.clock().hour_of_week(t)
    }

    /// The local calendar day of simulated time `t` (days since 1970-01-01, local).
    pub fn day(&self, t: Time) -> i64 {
        self.clock().day(t)
    }
}

/// Local-time lookups that reuse the zone's UTC offset from one lookup to the next
/// while it holds (from the last lookup that computed it to the zone's next
/// transition), so that times in increasing order cost one zone lookup per transition.
#[derive(Debug)]
pub struct LocalClock<'a> {
    calendar: &'a Calendar,
    /// The offset (seconds) holds for Unix milliseconds in `from..until`.
    from: i64,
    until: i64,
    offset: i64,
}

impl LocalClock<'_> {
    /// Local seconds since 1970-01-01 0:00 local time, at simulated time `t`.
    fn local_seconds(&mut self, t: Time) -> i64 {
        let ts = self.calendar.timestamp(t);
        let ms = ts.as_millisecond();
        if !(self.from..self.until).contains(&ms) {
            let tz = &self.calendar.tz;
            self.offset = i64::from(tz.to_offset(ts).seconds());
            self.from = ms;
            self.until = tz
                .following(ts)
                .next()
                .map_or(i64::MAX, |tr| tr.timestamp().as_millisecond());
        }
        ms.div_euclid(1000) + self.offset
    }

    /// See [`Calendar::hour_of_week`].
    pub(crate) fn hour_of_week(&mut self, t: Time) -> u8 {
        self.hour_and_day(t).0
    }

    /// [`Calendar::hour_of_week`] and [`Calendar::day`] of `t`, from one lookup.
    pub(crate) fn hour_and_day(&mut self, t: Time) -> (u8, i64) {
        let s = self.local_seconds(t);
        let day = s.div_euclid(86_400);
        // 1970-01-01 was a Thursday: day 0 is weekday 3 counting from Monday.
        let week_hour = (day + 3).rem_euclid(7) * 24 + s.rem_euclid(86_400) / 3_600;
        (week_hour as u8, day)
    }

    /// See [`Calendar::day`].
    pub(crate) fn day(&mut self, t: Time) -> i64 {
        self.hour_and_day(t).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (found in review, when the clock kept the local day of its last
    /// lookup): a time past the end of the zone's range (year 9999) took the unclamped
    /// hour of the last day looked up when that day ran past the range, and the clamped
    /// one when looked up first; the answer depended on the order of lookups.
    #[test]
    fn times_past_the_zone_range_do_not_depend_on_lookup_order() {
        let cal = Calendar::new(253_402_200_000, "UTC").unwrap();
        let (inside, past) = (Time::ZERO, Time::from_millis(11_404_073));
        let mut warm = cal.clock();
        warm.hour_and_day(inside);
        assert_eq!(warm.hour_and_day(past), cal.clock().hour_and_day(past));
    }

    /// The offset-reusing clock agrees with jiff's own local date-time, every
    /// 59 s and 1 ms across the spring and autumn changes of 2024 in Paris, and of
    /// Lord Howe Island (UTC+10:30, +11 in summer: a change of half an hour), and of
    /// 2010 in St. John's (changes at 0:01, within a local hour), forwards and
    /// backwards.
    #[test]
    fn clock_agrees_with_the_zone_across_daylight_saving_changes() {
        // 2024-03-30, 2024-10-26, 2024-04-06, 2024-10-05, 2010-03-13 and 2010-11-06
        // 0:00 UTC.
        for (start, zone) in [
            (1_711_756_800, "Europe/Paris"),
            (1_729_900_800, "Europe/Paris"),
            (1_712_361_600, "Australia/Lord_Howe"),
            (1_728_086_400, "Australia/Lord_Howe"),
            (1_268_438_400, "America/St_Johns"),
            (1_289_001_600, "America/St_Johns"),
        ] {
            let cal = Calendar::new(start, zone).unwrap();
            let times: Vec<Time> = (0..3 * 24 * 60)
                .map(|k| Time::from_millis(k * 59_001))
                .collect();
            let mut clock = cal.clock();
            for &t in times.iter().chain(times.iter().rev()) {
                let dt = cal.local(t);
                let want = dt.weekday().to_monday_zero_offset() as u8 * 24 + dt.hour() as u8;
                let day = dt
                    .date()
                    .since(jiff::civil::date(1970, 1, 1))
                    .unwrap()
                    .get_days();
                assert_eq!(clock.hour_and_day(t), (want, i64::from(day)), "{zone} {dt}");
            }
        }
    }
}

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
        "the trace header has no {0}, which this replay model needs for day and week \
         cycles; give it in the model (unix_start = SECONDS, timezone = \"Area/City\")"
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

    /// From the header, each field overridable (`unix_start`, `zone`).
    pub fn of(
        header: &SwfHeader,
        unix_start: Option<i64>,
        zone: Option<&str>,
    ) -> Result<Calendar, CalendarError> {
        let start = unix_start
            .or(header.unix_start_time())
            .ok_or(CalendarError::Missing("UnixStartTime"))?;
        let zone = zone
            .or(header.time_zone_string())
            .ok_or(CalendarError::Missing("TimeZoneString"))?;
        Calendar::new(start, zone)
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

    /// Local seconds since 1970-01-01 0:00 local time, at simulated time `t`.
    fn local_seconds(&self, t: Time) -> i64 {
        let ts = self.timestamp(t);
        ts.as_second() + i64::from(self.tz.to_offset(ts).seconds())
    }

    /// The hour of the week of simulated time `t`, local: 0 is Monday 0:00–1:00, 167
    /// Sunday 23:00–24:00.
    pub fn hour_of_week(&self, t: Time) -> u8 {
        let s = self.local_seconds(t);
        // 1970-01-01 was a Thursday: day 0 is weekday 3 counting from Monday.
        let weekday = (s.div_euclid(86_400) + 3).rem_euclid(7);
        (weekday * 24 + s.rem_euclid(86_400) / 3_600) as u8
    }

    /// The local calendar day of simulated time `t` (days since 1970-01-01, local).
    pub fn day(&self, t: Time) -> i64 {
        self.local_seconds(t).div_euclid(86_400)
    }
}

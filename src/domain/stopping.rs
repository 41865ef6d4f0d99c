//! How a survey is run (docs/design.md, "Which interval is primary"): watched live (the
//! default), or fixed in advance by a stopping rule set before it opens — a target number of
//! responses, a closing time, or both, whichever comes first. The rule is frozen when the
//! survey opens (migrations/sqlite/0006_analyses.sql), like ε.

use std::fmt;

use super::DomainError;

/// The most responses a target may name (as many as `planned_respondents` may).
pub const MAX_TARGET_RESPONSES: u64 = super::MAX_PLANNED_RESPONDENTS;

/// An instant in UTC, to the second, written as RFC 3339 (`2027-01-31T23:59:00Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClosingTime(i64);

impl ClosingTime {
    /// Parses RFC 3339 in UTC: `YYYY-MM-DDTHH:MM:SSZ`, with optional fractional seconds
    /// (dropped: the rule is to the second) and `+00:00` accepted for `Z`. Other offsets are
    /// refused rather than converted, so the stored instant is the one the researcher read.
    pub fn parse(text: &str) -> Result<Self, DomainError> {
        let invalid = |why: &str| {
            DomainError::invalid(
                "invalid_closes_at",
                format!(
                    "closes_at must be a UTC instant written like 2027-01-31T23:59:00Z \
                     (RFC 3339): {why}, not {text:?}"
                ),
            )
        };
        let Some(stamp) = text
            .strip_suffix(['Z', 'z'])
            .or_else(|| text.strip_suffix("+00:00"))
        else {
            return Err(invalid("it must end in Z (UTC)"));
        };
        // Fractional seconds are allowed and dropped.
        let stamp = match stamp.split_once('.') {
            Some((whole, fraction))
                if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) =>
            {
                whole
            }
            Some(_) => return Err(invalid("the fraction of a second is malformed")),
            None => stamp,
        };
        let bytes = stamp.as_bytes();
        let shaped = bytes.len() == 19
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && matches!(bytes[10], b'T' | b't')
            && bytes[13] == b':'
            && bytes[16] == b':'
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| matches!(i, 4 | 7 | 10 | 13 | 16) || b.is_ascii_digit());
        if !shaped {
            return Err(invalid("it is not shaped YYYY-MM-DDTHH:MM:SS"));
        }
        // The calendar day is checked as retention dates are.
        super::RetentionDate::parse(&stamp[..10])
            .map_err(|_| invalid("the date is not a calendar day"))?;
        let field = |range: std::ops::Range<usize>| stamp[range].parse::<i64>().unwrap_or(99);
        let (hour, minute, second) = (field(11..13), field(14..16), field(17..19));
        // A leap second (:60) is refused: Unix time has none.
        if hour > 23 || minute > 59 || second > 59 {
            return Err(invalid("the time of day is out of range"));
        }
        let day = field(8..10);
        let (year, month) = (field(0..4), field(5..7));
        let days = days_from_civil(year, month, day);
        Ok(Self(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// The instant `seconds` after 1970-01-01T00:00:00Z.
    pub fn from_unix(seconds: i64) -> Self {
        Self(seconds)
    }

    pub fn unix(self) -> i64 {
        self.0
    }

    /// Now, to the second.
    pub fn now() -> Self {
        Self(super::unix_now())
    }

    /// Whether this instant has come (at or before `now`).
    pub fn has_passed(self, now: Self) -> bool {
        self <= now
    }
}

impl fmt::Display for ClosingTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (days, seconds) = (self.0.div_euclid(86_400), self.0.rem_euclid(86_400));
        let (year, month, day) = super::civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            seconds / 3_600,
            seconds / 60 % 60,
            seconds % 60
        )
    }
}

/// Days from 1970-01-01 to a calendar day: Howard Hinnant's `days_from_civil`.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let shifted_month = (month + 9) % 12;
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A survey's stopping rule: none (watched live), or fixed in advance by a target number of
/// responses, a closing time, or both (whichever comes first closes it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoppingRule {
    target_responses: Option<u64>,
    closes_at: Option<ClosingTime>,
}

impl StoppingRule {
    /// Watched live: no rule.
    pub const NONE: Self = Self {
        target_responses: None,
        closes_at: None,
    };

    /// A rule as given; `closes_at` must lie after `now` (a rule that has already fired
    /// would close the survey the moment it opens).
    pub fn parse(
        target_responses: Option<u64>,
        closes_at: Option<&str>,
        now: ClosingTime,
    ) -> Result<Self, DomainError> {
        if let Some(target) = target_responses {
            if !(1..=MAX_TARGET_RESPONSES).contains(&target) {
                return Err(DomainError::invalid(
                    "invalid_target_responses",
                    format!("target_responses must be between 1 and {MAX_TARGET_RESPONSES}"),
                ));
            }
        }
        let closes_at = closes_at.map(ClosingTime::parse).transpose()?;
        if let Some(closes_at) = closes_at {
            if closes_at.has_passed(now) {
                return Err(DomainError::invalid(
                    "invalid_closes_at",
                    format!("closes_at ({closes_at}) has already passed: it must lie ahead"),
                ));
            }
        }
        Ok(Self {
            target_responses,
            closes_at,
        })
    }

    /// A stored rule (trusted).
    pub fn from_stored(target_responses: Option<u64>, closes_at: Option<i64>) -> Self {
        Self {
            target_responses,
            closes_at: closes_at.map(ClosingTime::from_unix),
        }
    }

    pub fn target_responses(self) -> Option<u64> {
        self.target_responses
    }

    pub fn closes_at(self) -> Option<ClosingTime> {
        self.closes_at
    }

    /// Whether the survey is fixed in advance (has any rule).
    pub fn is_fixed(self) -> bool {
        self.target_responses.is_some() || self.closes_at.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_utc_instant_round_trips_through_its_rfc_3339_text() {
        let instant = ClosingTime::parse("2027-01-31T23:59:00Z").unwrap();
        assert_eq!(instant.to_string(), "2027-01-31T23:59:00Z");
        assert_eq!(
            ClosingTime::parse("1970-01-01T00:00:00Z").unwrap().unix(),
            0
        );
        // date -u -d 2027-01-31T23:59:00Z +%s
        assert_eq!(instant.unix(), 1_801_439_940);
        assert_eq!(
            ClosingTime::parse("2024-02-29T12:00:00.250+00:00").unwrap(),
            ClosingTime::parse("2024-02-29T12:00:00Z").unwrap()
        );
    }

    #[test]
    fn other_offsets_malformed_times_and_impossible_days_are_refused() {
        for bad in [
            "2027-01-31T23:59:00+01:00",
            "2027-01-31T23:59:00",
            "2027-01-31 23:59:00Z",
            "2027-02-29T10:00:00Z",
            "2027-01-31T24:00:00Z",
            "2027-01-31T23:59:60Z",
            "2027-01-31T23:59Z",
            "2027-01-31T23:59:00.Z",
            "tomorrow",
        ] {
            assert!(ClosingTime::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn a_rule_needs_a_target_in_range_and_a_closing_time_ahead() {
        let now = ClosingTime::parse("2026-06-01T00:00:00Z").unwrap();
        assert!(!StoppingRule::parse(None, None, now).unwrap().is_fixed());
        let rule = StoppingRule::parse(Some(2_000), Some("2027-01-31T23:59:00Z"), now).unwrap();
        assert!(rule.is_fixed());
        assert_eq!(rule.target_responses(), Some(2_000));
        assert!(StoppingRule::parse(Some(0), None, now).is_err());
        assert!(StoppingRule::parse(None, Some("2026-06-01T00:00:00Z"), now).is_err());
        assert!(StoppingRule::parse(Some(MAX_TARGET_RESPONSES + 1), None, now).is_err());
    }
}

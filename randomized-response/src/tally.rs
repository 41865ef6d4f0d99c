use crate::MechanismError;

/// Counts of one question's reports at one ε: n reports, of which `reported_yes` are yes.
///
/// Tallies are mergeable: the tally of two sets of responses is the sum of their tallies,
/// and withdrawing a response subtracts its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    n: u64,
    reported_yes: u64,
}

impl Tally {
    /// A tally of `n` reports of which `reported_yes` are yes; `reported_yes ≤ n`.
    pub fn new(n: u64, reported_yes: u64) -> Result<Self, MechanismError> {
        if reported_yes > n {
            return Err(MechanismError::YesExceedsCount { n, reported_yes });
        }
        Ok(Self { n, reported_yes })
    }

    /// The tally of a sequence of reports.
    pub fn from_reports(reports: impl IntoIterator<Item = bool>) -> Self {
        let mut tally = Self::default();
        for report in reports {
            tally.record(report);
        }
        tally
    }

    /// Counts one more report.
    pub fn record(&mut self, report: bool) {
        self.n += 1;
        self.reported_yes += u64::from(report);
    }

    /// The number of reports.
    pub fn n(self) -> u64 {
        self.n
    }

    /// The number of reported yes.
    pub fn reported_yes(self) -> u64 {
        self.reported_yes
    }

    /// The tally of both sets of reports; `None` on overflow.
    pub fn checked_add(self, other: Tally) -> Option<Tally> {
        Some(Self {
            n: self.n.checked_add(other.n)?,
            reported_yes: self.reported_yes.checked_add(other.reported_yes)?,
        })
    }

    /// The tally without `other`'s reports (a withdrawal); `None` if `other` holds
    /// reports this tally does not.
    pub fn checked_sub(self, other: Tally) -> Option<Tally> {
        let n = self.n.checked_sub(other.n)?;
        let reported_yes = self.reported_yes.checked_sub(other.reported_yes)?;
        Self::new(n, reported_yes).ok()
    }
}

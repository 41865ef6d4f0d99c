//! Where a survey's releases stand, as its owner's views say it (docs/design.md, invariant
//! 11 and "Releases").

use serde::{Deserialize, Serialize};

/// The `release` object of every survey's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReleaseSummary {
    /// The survey's count of responses received (which withdrawals never lower) when
    /// releases were last considered: every k received, and at close.
    pub considered_at: u64,
    /// The responses the figures come from; null while the survey withholds its results
    /// until close (which responses were released depends on when they arrived).
    pub released_responses: Option<u64>,
    /// Responses stored but in no figure: while open, those waiting for their cell to hold
    /// enough new ones, and those of releases that withdrawals left below k; once closed,
    /// also those of cells that never held k. Withheld responses stay withdrawable with
    /// their receipt. Null while the survey withholds its results until close.
    pub withheld_responses: Option<u64>,
    pub reason: ReleaseReason,
}

/// Why responses are withheld.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseReason {
    /// Open: a cell is released once it holds k + s new responses at a consideration.
    Waiting,
    /// Open, and defined with `results_after_close`: no figure from the reports before
    /// close.
    ResultsAfterClose,
    /// Closed: what was not released at close stays withheld.
    Closed,
}

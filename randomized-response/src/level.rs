use crate::MechanismError;

/// 2^64 as a float: the number of values a uniform 64-bit draw can take.
pub(crate) const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// How far the threshold stays below `p · 2^64`, in units of 2^-64.
///
/// `p` is computed as `1 / (1 + exp(−ε))` in f64: `exp` is correct to within 1 ulp and
/// the addition and division each round by at most half an ulp, so the computed p is
/// within 3 ulps (3 · 2^-53, since p ∈ [1/2, 1)) of the true p. Staying 8 ulps below it
/// makes the realized truth probability strictly smaller than the true p, by at least
/// 5 ulps, enough for the realized ε to compare below ε even in floating point.
const THRESHOLD_MARGIN: f64 = 8.0 * 2048.0;

/// A validated privacy level ε of randomized response.
///
/// The device reports the true answer with probability `p = e^ε / (1 + e^ε)` and its
/// opposite with probability `q = 1 − p`. For either report the likelihood ratio of the
/// two possible truths is `p / q = e^ε`, so the mechanism is ε-locally differentially
/// private (Warner 1965; see Erlingsson et al. 2014 for the LDP reading).
///
/// Accepted range: [`Self::MIN_EPSILON`] ≤ ε ≤ [`Self::MAX_EPSILON`]. Below 0.01 the
/// answers carry almost no signal (r < 0.005: a ±5 % estimate would need more than
/// 29 million respondents); above 20 the device lies less than once in 485 million
/// answers, which is no protection worth the name, and p is no longer distinguishable
/// from 1 at the precision the sampler needs.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct PrivacyLevel {
    epsilon: f64,
}

impl PrivacyLevel {
    /// The smallest accepted ε.
    pub const MIN_EPSILON: f64 = 0.01;
    /// The largest accepted ε.
    pub const MAX_EPSILON: f64 = 20.0;

    /// Validates ε: finite and within [`Self::MIN_EPSILON`, `Self::MAX_EPSILON`].
    pub fn new(epsilon: f64) -> Result<Self, MechanismError> {
        if !epsilon.is_finite() {
            return Err(MechanismError::EpsilonNotFinite);
        }
        if !(Self::MIN_EPSILON..=Self::MAX_EPSILON).contains(&epsilon) {
            return Err(MechanismError::EpsilonOutOfRange(epsilon));
        }
        Ok(Self { epsilon })
    }

    /// Warner's coin protocol: "flip a coin; heads, answer truthfully; tails, flip again
    /// and answer yes on heads" reports the truth with p = 3/4, that is ε = ln 3.
    pub fn warner() -> Self {
        Self {
            epsilon: libm::log(3.0),
        }
    }

    /// The level whose truth probability is `p`: `ε = ln(p / (1 − p))`.
    ///
    /// `p` must lie in (1/2, 1), within the truth probabilities of the accepted ε range
    /// as this type computes them, so that every level's own p converts back to it.
    pub fn from_truth_probability(truth_probability: f64) -> Result<Self, MechanismError> {
        let lowest = Self::bound(Self::MIN_EPSILON).truth_probability();
        let highest = Self::bound(Self::MAX_EPSILON).truth_probability();
        if !(lowest..=highest).contains(&truth_probability) {
            return Err(MechanismError::TruthProbabilityOutOfRange(
                truth_probability,
            ));
        }
        // log1p keeps the precision for p near 1/2: p / (1 − p) = 1 + (2p − 1) / (1 − p).
        let odds_excess = (2.0 * truth_probability - 1.0) / (1.0 - truth_probability);
        let epsilon = libm::log1p(odds_excess);
        // At the ends of the range, rounding p can move ε a few ulps outside it.
        Ok(Self {
            epsilon: epsilon.clamp(Self::MIN_EPSILON, Self::MAX_EPSILON),
        })
    }

    const fn bound(epsilon: f64) -> Self {
        Self { epsilon }
    }

    /// ε, the bound on how much one report can change the odds of the two truths.
    pub fn epsilon(self) -> f64 {
        self.epsilon
    }

    /// `p = e^ε / (1 + e^ε)`, the probability of reporting the true answer.
    pub fn truth_probability(self) -> f64 {
        1.0 / (1.0 + libm::exp(-self.epsilon))
    }

    /// `q = 1 − p = 1 / (1 + e^ε)`, the probability of reporting the opposite.
    pub fn lie_probability(self) -> f64 {
        1.0 / (1.0 + libm::exp(self.epsilon))
    }

    /// `r = 2p − 1 = tanh(ε/2)`: how much of the truth survives in a report. An unbiased
    /// estimate divides by r, so its spread grows as 1/r when ε shrinks.
    pub fn signal(self) -> f64 {
        libm::tanh(self.epsilon / 2.0)
    }

    /// The integer threshold T of the exact sampler: report the truth iff a uniform 64-bit
    /// draw u satisfies `u < T`, so the truth is reported with probability exactly
    /// `T / 2^64`, which never exceeds p (see [`Self::realized_truth_probability`]).
    pub fn threshold(self) -> u64 {
        // p · 2^64 is exact in f64 (a power-of-two scaling of p ∈ [1/2, 1)), a multiple of
        // 2^11, and so is the result after subtracting the margin: the cast is exact.
        (self.truth_probability() * TWO_POW_64 - THRESHOLD_MARGIN) as u64
    }

    /// `T / 2^64`: the probability with which the sampler really reports the truth.
    /// Strictly below p, by at most 11 · 2^-53 (rounding toward privacy).
    pub fn realized_truth_probability(self) -> f64 {
        self.threshold() as f64 / TWO_POW_64
    }

    /// `ln(T / (2^64 − T))`: the privacy the sampler really gives, never above ε.
    pub fn realized_epsilon(self) -> f64 {
        let threshold = self.threshold();
        // 2^64 − T, computed in integers; both terms are exact in f64 (multiples of 2^11).
        let lie_count = threshold.wrapping_neg();
        libm::log(threshold as f64 / lie_count as f64)
    }
}

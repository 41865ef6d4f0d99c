//! Confidence sets within a target's range: an interval that can be empty, and a one-sided
//! bound that can be empty.
//!
//! Every interval of the crate is computed as `[low, high]` on the real line and then
//! intersected with the range the target lies in ([0, 1] for a share, [min, max] for a
//! number's mean). When the computed interval lies entirely outside that range the
//! intersection is empty: no value of the target is consistent with the reports at this
//! confidence (fake reports or a faulty client are the usual causes). It is reported as
//! empty, never as the nearest end of the range: a clamped point would claim that end is
//! consistent with the data, while the test of that very value rejects it (with the same
//! ρ, the anytime p-value of θ0 is below β exactly when θ0 lies outside the computed
//! interval).

/// A confidence interval within its target's range, or empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// `[low, high]` as computed, before intersecting with the target's range.
    computed: (f64, f64),
    /// `computed` intersected with the target's range; `None` when that is empty.
    range: Option<(f64, f64)>,
}

impl Interval {
    /// `[low, high] ∩ [target_low, target_high]`, empty when the two do not meet.
    pub(crate) fn within(low: f64, high: f64, target_low: f64, target_high: f64) -> Self {
        let outside = high < target_low || low > target_high;
        Self {
            computed: (low, high),
            range: (!outside).then(|| {
                (
                    low.clamp(target_low, target_high),
                    high.clamp(target_low, target_high),
                )
            }),
        }
    }

    /// An empty interval that was computed as `[low, high]`.
    pub(crate) fn empty(low: f64, high: f64) -> Self {
        Self {
            computed: (low, high),
            range: None,
        }
    }

    /// `(low, high)` as computed, before intersecting with the target's range: what a test
    /// is dual to (with the same ρ, the anytime p-value of θ0 is below β exactly when θ0
    /// lies outside it).
    pub fn computed(self) -> (f64, f64) {
        self.computed
    }

    /// `(low, high)`, within the target's range; `None` when the interval is empty.
    pub fn range(self) -> Option<(f64, f64)> {
        self.range
    }

    /// Whether no value of the target's range is consistent with the reports: the computed
    /// interval lies entirely outside it.
    pub fn is_empty(self) -> bool {
        self.range.is_none()
    }

    /// The lower bound, within the target's range; `None` when the interval is empty.
    pub fn low(self) -> Option<f64> {
        self.range.map(|(low, _)| low)
    }

    /// The upper bound, within the target's range; `None` when the interval is empty.
    pub fn high(self) -> Option<f64> {
        self.range.map(|(_, high)| high)
    }

    /// Half the width before intersecting with the target's range: the precision the data
    /// give, comparable across methods and sample sizes (defined for an empty interval too).
    pub fn half_width(self) -> f64 {
        (self.computed.1 - self.computed.0) / 2.0
    }

    /// Whether `value` lies in [low, high] (never, when empty).
    pub fn contains(self, value: f64) -> bool {
        self.range
            .is_some_and(|(low, high)| low <= value && value <= high)
    }
}

/// A one-sided bound within its target's range ("the target is at most U", "at least L"),
/// or empty: an upper bound below the range's low end (a lower bound above its high end)
/// leaves no value of the target consistent with the reports. A bound beyond the range on
/// its own side says nothing and is the range's end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// The bound, within the target's range.
    Within(f64),
    /// No value of the target's range satisfies it.
    Empty,
}

impl Bound {
    /// The bound `value` on side `upper` (true: "at most") within `[target_low, target_high]`.
    pub(crate) fn within(value: f64, upper: bool, target_low: f64, target_high: f64) -> Self {
        let outside = if upper {
            value < target_low
        } else {
            value > target_high
        };
        if outside {
            Self::Empty
        } else {
            Self::Within(value.clamp(target_low, target_high))
        }
    }

    /// The bound's value; `None` when empty.
    pub fn value(self) -> Option<f64> {
        match self {
            Self::Within(value) => Some(value),
            Self::Empty => None,
        }
    }

    /// Whether the bound leaves no value of the target's range.
    pub fn is_empty(self) -> bool {
        self == Self::Empty
    }
}

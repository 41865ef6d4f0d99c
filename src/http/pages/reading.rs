//! How the results page reads a question out loud: one plain sentence on its primary
//! interval, and whether the intervals are yet narrow enough to read closely. While they
//! are not, the page says so instead of showing a precise-looking estimate (issue 32).

use crate::domain::QuestionType;
use crate::explain::{percent, Decimals};
use crate::results::{IntervalBounds, Primary, QuestionResults};

/// While a question's widest primary interval is wider than ± this (a share in points, a
/// mean as a fraction of its range), the page says "still too few responses to read this
/// closely" and shows ranges in whole units, not estimates. The page's script reads it from
/// `data-readable-half-width`.
pub const READABLE_HALF_WIDTH: f64 = 0.10;

/// What the primary interval promises, for the sentence's parenthesis.
pub fn primary_words(method: Primary) -> &'static str {
    match method {
        Primary::Anytime => "valid however often you look",
        Primary::Exact => "exact for a sample size fixed in advance",
        Primary::Chernoff => "holds whatever the truth, for a sample size fixed in advance",
    }
}

/// A question's sentence on one target: a yes/no share or a mean.
pub struct RangeReading {
    /// Before "between": "" for a yes/no share, "the mean is" for a mean.
    pub subject: &'static str,
    /// After the range: "answer Yes" for a yes/no share, "" for a mean.
    pub after: &'static str,
    /// `share` or `mean`: where the page's script finds the interval in the results JSON.
    pub target: &'static str,
}

/// The figures of a sentence at one precision.
pub struct Figures {
    pub decimals: usize,
    /// The range's ends ("" for a choice question).
    pub low: String,
    pub high: String,
    /// The widest interval's half-width in points ("" for a range).
    pub widest: String,
}

/// A question's sentence, the way the page writes it and its script refreshes it: both
/// wordings are in the page, the one that applies shown, so that the page can switch when
/// the intervals narrow without loading itself again.
pub struct Reading {
    /// A yes/no share or a mean: "between L and H"; None: a choice question's options.
    pub range: Option<RangeReading>,
    pub words: &'static str,
    /// The figures are shares, shown in percent.
    pub percent: bool,
    /// The figures while the question can be read closely, and while it cannot.
    pub fine: Figures,
    pub rough: Figures,
}

/// The primary intervals of a question's targets, each with its range's width (1 for a
/// share): the yes share, every option's share, the mean.
fn primary_intervals(question: &QuestionResults) -> Vec<(IntervalBounds, f64)> {
    let mut found = Vec::new();
    let mut add = |bounds: Option<IntervalBounds>, range: f64| {
        if let Some(bounds) = bounds {
            found.push((bounds, range));
        }
    };
    add(
        question.primary.and_then(|m| question.intervals.get(m)),
        1.0,
    );
    for option in question.options.iter().flatten() {
        add(option.primary.and_then(|m| option.intervals.get(m)), 1.0);
    }
    if let Some(mean) = &question.mean {
        add(
            mean.primary.and_then(|m| mean.intervals.get(m)),
            mean.max - mean.min,
        );
    }
    found
}

/// The widest primary half-width of a question, as a fraction of each target's range
/// (None without any interval yet).
pub fn widest_primary(question: &QuestionResults) -> Option<f64> {
    primary_intervals(question)
        .into_iter()
        .map(|(bounds, range)| bounds.half_width / range)
        .reduce(f64::max)
}

/// Whether a question's intervals are narrow enough to read its estimates closely.
pub fn readable(question: &QuestionResults) -> bool {
    widest_primary(question).is_some_and(|widest| widest <= READABLE_HALF_WIDTH)
}

/// A share in percent with `decimals` decimals, as the workspace's pages show shares:
/// "12.3 %".
pub fn percent_with(fraction: f64, decimals: usize) -> String {
    format!("{} %", percent(fraction, Decimals::Fixed(decimals)))
}

/// A chart row's figure while too uncertain to read closely: the range in whole units.
pub fn rough_range((low, high): (f64, f64), percent: bool, decimals: usize) -> String {
    if percent {
        let whole = |share: f64| crate::explain::percent(share, Decimals::Fixed(0));
        format!("{}–{} %", whole(low), whole(high))
    } else {
        format!("{low:.decimals$}–{high:.decimals$}")
    }
}

/// The sentence for a question; None while it has no primary interval (withheld, blinded,
/// or no responses yet). `mean_decimals` are the decimals the page shows a mean with.
pub fn reading(question: &QuestionResults, mean_decimals: usize) -> Option<Reading> {
    let shares = |range: Option<(f64, f64)>, widest: Option<f64>, decimals: usize| Figures {
        decimals,
        low: range.map_or_else(String::new, |(low, _)| percent_with(low, decimals)),
        high: range.map_or_else(String::new, |(_, high)| percent_with(high, decimals)),
        widest: widest.map_or_else(String::new, |w| percent(w, Decimals::Fixed(decimals))),
    };
    match question.question_type {
        QuestionType::YesNo => {
            let method = question.primary?;
            // An empty interval has no range to read: the page's note says why.
            let bounds = question.intervals.get(method)?.range()?;
            Some(Reading {
                range: Some(RangeReading {
                    subject: "",
                    after: "answer Yes",
                    target: "share",
                }),
                words: primary_words(method),
                percent: true,
                fine: shares(Some(bounds), None, 1),
                rough: shares(Some(bounds), None, 0),
            })
        }
        QuestionType::Choice => {
            let method = question.options.iter().flatten().find_map(|o| o.primary)?;
            let widest = widest_primary(question)?;
            Some(Reading {
                range: None,
                words: primary_words(method),
                percent: true,
                fine: shares(None, Some(widest), 1),
                rough: shares(None, Some(widest), 0),
            })
        }
        QuestionType::Ordinal | QuestionType::Number => {
            let mean = question.mean.as_ref()?;
            let method = mean.primary?;
            let (low, high) = mean.intervals.get(method)?.range()?;
            let figures = || Figures {
                decimals: mean_decimals,
                low: format!("{low:.mean_decimals$}"),
                high: format!("{high:.mean_decimals$}"),
                widest: String::new(),
            };
            Some(Reading {
                range: Some(RangeReading {
                    subject: if question.question_type == QuestionType::Ordinal {
                        "the mean level is"
                    } else {
                        "the mean is"
                    },
                    after: "",
                    target: "mean",
                }),
                words: primary_words(method),
                percent: false,
                fine: figures(),
                rough: figures(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A yes/no question whose anytime interval is `low` to `high` (the primary one).
    fn yes_no(low: f64, high: f64) -> QuestionResults {
        let interval =
            json!({"low": low, "high": high, "half_width": (high - low) / 2.0, "empty": false});
        serde_json::from_value(json!({
            "id": 1, "position": 1, "text": "Have you?", "type": "yes_no", "design": "mirrored",
            "epsilon": 1.0, "truth_probability": 0.73, "n": 30, "reported_yes": 12,
            "estimate": (low + high) / 2.0, "estimate_clipped": (low + high) / 2.0,
            "intervals": {"chernoff": null, "exact": null, "anytime": interval},
            "primary": "anytime", "bounds": null, "test": null, "consistency": null,
            "options": null, "mean": null, "respondents_needed_for_5_percent": 1000,
            "planning": {"interval": "anytime", "for_5_points": 4314, "for_10_points": 1079,
                         "chernoff_for_5_points": 3455, "chernoff_for_10_points": 864}
        }))
        .expect("a question's results")
    }

    #[test]
    fn an_interval_wider_than_ten_points_each_way_is_too_uncertain_to_read_closely() {
        assert!(!readable(&yes_no(0.05, 0.45)));
        assert!(readable(&yes_no(0.12, 0.31)));
        // Exactly ±10 points still reads (the threshold is inclusive).
        assert!(readable(&yes_no(0.25, 0.45)));
    }

    #[test]
    fn a_yes_no_question_reads_as_its_primary_range_in_both_precisions() {
        let reading = reading(&yes_no(0.054, 0.449), 0).expect("a sentence");
        assert_eq!(reading.words, "valid however often you look");
        assert_eq!(
            (reading.fine.low, reading.fine.high),
            ("5.4 %".to_owned(), "44.9 %".to_owned())
        );
        assert_eq!(
            (reading.rough.low, reading.rough.high),
            ("5 %".to_owned(), "45 %".to_owned())
        );
        assert_eq!(reading.range.expect("a range").after, "answer Yes");
    }

    #[test]
    fn a_question_without_an_interval_has_no_sentence() {
        let mut question = yes_no(0.1, 0.2);
        question.primary = None;
        assert!(reading(&question, 0).is_none());
        assert!(!readable(&question));
    }

    #[test]
    fn a_rough_range_is_in_whole_percent() {
        assert_eq!(rough_range((0.054, 0.449), true, 1), "5–45 %");
    }

    #[test]
    fn a_rough_mean_keeps_the_means_decimals() {
        assert_eq!(rough_range((3.04, 24.0), false, 1), "3.0–24.0");
    }

    #[test]
    fn each_primary_interval_says_what_it_promises() {
        assert_eq!(
            primary_words(Primary::Anytime),
            "valid however often you look"
        );
        assert!(primary_words(Primary::Exact).starts_with("exact"));
    }
}

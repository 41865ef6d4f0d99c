//! The results page's breakdown by a grouping question: per randomized question, one
//! grouped chart of each group with released responses (docs/design.md, invariant 11) —
//! its estimate and primary interval, per option for a choice question — and, folded away,
//! the figures and each difference in words. Nothing is drawn before a group is released.
//! Everything comes from [`crate::breakdown::compute`], as the API's `?by=` gives it.

use crate::breakdown::{Breakdown, Difference, GroupResults};
use crate::domain::{QuestionType, Survey};
use crate::results::{IntervalBounds, Intervals, Primary};

use super::reading::percent_with;

/// A grouping question the page can break down by.
pub struct GroupingChoice {
    pub id: i64,
    pub text: String,
    pub selected: bool,
}

/// One group's row in a question's chart and table.
pub struct GroupRow {
    pub label: String,
    pub n: String,
    pub estimate: String,
    pub interval: String,
    pub has_data: bool,
    pub bar_width: String,
    pub low_x: String,
    pub high_x: String,
}

/// One target of a question broken down: the yes share, one option's share, or the mean.
pub struct TargetBreakdown {
    /// The option's label ("" for a yes share or a mean): the rows' heading on the chart.
    pub option: String,
    pub rows: Vec<GroupRow>,
    /// Each difference, in words.
    pub differences: Vec<String>,
}

/// One randomized question broken down: one grouped chart.
pub struct QuestionBreakdown {
    /// The form's number (grouping questions included).
    pub number: u32,
    pub text: String,
    /// What the chart shows: "share answering Yes", "each option's share", "mean".
    pub what: String,
    /// Shares get bars on a 0–100 % track; a mean gets a mark on its scale.
    pub share: bool,
    /// The scale's ends and middle, as the axis labels them.
    pub axis: [String; 3],
    pub targets: Vec<TargetBreakdown>,
}

pub struct BreakdownView {
    pub choices: Vec<GroupingChoice>,
    pub text: String,
    pub min_cell: u32,
    pub blinded: bool,
    /// "Released at 120 responses; the next release comes at 150." and the like.
    pub release_note: String,
    /// Labels of hidden groups, for "fewer than k respondents".
    pub suppressed: Vec<String>,
    /// Groups shown with their n (blinded: the only figures).
    pub counts: Vec<(String, u64)>,
    pub questions: Vec<QuestionBreakdown>,
    pub primary_name: &'static str,
}

fn interval_text(bounds: Option<IntervalBounds>, format: impl Fn(f64) -> String) -> String {
    match bounds.map(|b| b.range()) {
        None => "–".to_owned(),
        Some(None) => "empty".to_owned(),
        Some(Some((low, high))) => format!("{} to {}", format(low), format(high)),
    }
}

fn track_x(value: f64, min: f64, max: f64) -> String {
    format!(
        "{:.2}",
        ((value - min) / (max - min)).clamp(0.0, 1.0) * 100.0
    )
}

fn primary_name(primary: Option<Primary>) -> &'static str {
    match primary {
        Some(Primary::Anytime) => "anytime",
        Some(Primary::Exact) => "exact",
        Some(Primary::Chernoff) => "Chernoff",
        None => "",
    }
}

/// A group's label for sentences.
fn group_label(group: &GroupResults) -> String {
    group.label.clone()
}

/// A signed difference of shares in percentage points, or of means in the scale's units.
fn signed(value: f64, share: bool) -> String {
    if share {
        format!("{:+.1} points", value * 100.0)
    } else {
        format!("{value:+.2}")
    }
}

fn difference_words(
    breakdown: &Breakdown,
    difference: &Difference,
    share: bool,
    confidence_percent: u32,
) -> Option<String> {
    let name = |value: &serde_json::Value| -> String {
        match value.as_u64() {
            Some(index) => breakdown
                .groups
                .get(index as usize)
                .map_or_else(|| format!("group {index}"), |g| g.label.clone()),
            None => "everyone else".to_owned(),
        }
    };
    let estimate = difference.estimate?;
    let bounds = difference
        .primary
        .and_then(|method| difference.intervals.get(method))?;
    let format = |value: f64| signed(value, share);
    let test = match (difference.p_value, difference.p_value_test.as_deref()) {
        (Some(p), Some(kind)) => format!("; p = {p:.3} ({kind} test of no difference)"),
        _ => String::new(),
    };
    let interval = match bounds.range() {
        Some((low, high)) => format!("{} to {}", format(low), format(high)),
        // A group's reports are not consistent with the design at this confidence.
        None => "empty: the reports are not consistent with the design".to_owned(),
    };
    Some(format!(
        "{} minus {}: {} ({confidence_percent} % {} interval {interval}){test}.",
        name(&difference.groups[0]),
        name(&difference.groups[1]),
        format(estimate),
        primary_name(difference.primary),
    ))
}

impl BreakdownView {
    pub fn of(survey: &Survey, breakdown: &Breakdown, confidence_percent: u32) -> BreakdownView {
        let choices = survey
            .groupings
            .iter()
            .map(|grouping| GroupingChoice {
                id: grouping.id.get(),
                text: grouping.text.clone(),
                selected: grouping.id.get() == breakdown.by,
            })
            .collect();
        let release_note = match (breakdown.released_responses, breakdown.next_release_at) {
            (released, None) => format!(
                "The survey is closed: the breakdown holds its {} released responses; any \
                 others are withheld for good.",
                released.unwrap_or(0)
            ),
            (None, Some(next)) => format!(
                "Nothing released yet: releases are next considered once {next} responses \
                 have been received."
            ),
            (Some(at), Some(next)) => format!(
                "{at} responses released; releases are next considered once {next} responses \
                 have been received."
            ),
        };
        let shown: Vec<&GroupResults> = breakdown.groups.iter().filter(|g| !g.suppressed).collect();
        let suppressed = breakdown
            .groups
            .iter()
            .filter(|g| g.suppressed)
            .map(|g| g.label.clone())
            .collect();
        let counts = shown
            .iter()
            .map(|g| (group_label(g), g.n.unwrap_or(0)))
            .collect();
        let mut questions = Vec::new();
        // Nothing released, nothing drawn: no chart or table of empty groups.
        if !breakdown.blinded && !shown.is_empty() {
            for question in &survey.questions {
                let share = question.design.question_type() != QuestionType::Ordinal
                    && question.design.question_type() != QuestionType::Number;
                let options = question.design.options().unwrap_or_default();
                // The yes share or the mean (None), or each option's share.
                let targets: Vec<Option<usize>> = match question.design.question_type() {
                    QuestionType::Choice => (0..options.len()).map(Some).collect(),
                    QuestionType::YesNo | QuestionType::Ordinal | QuestionType::Number => {
                        vec![None]
                    }
                };
                // A mean's scale, as the groups' figures give it.
                let scale = shown
                    .iter()
                    .find_map(|g| g.questions.iter().find(|q| q.id == question.id.get()))
                    .and_then(|q| q.mean.as_ref())
                    .filter(|_| !share)
                    .map_or((0.0, 1.0), |m| (m.min, m.max));
                let mut broken_down = Vec::new();
                for option in targets {
                    let rows = shown
                        .iter()
                        .map(|group| {
                            let figures =
                                group.questions.iter().find(|q| q.id == question.id.get());
                            let (estimate, intervals, primary, range): (
                                Option<f64>,
                                Intervals,
                                Option<Primary>,
                                (f64, f64),
                            ) = match (figures, option) {
                                (Some(q), Some(option)) => q
                                    .options
                                    .as_ref()
                                    .and_then(|o| o.get(option))
                                    .map_or((None, Intervals::default(), None, (0.0, 1.0)), |o| {
                                        (
                                            o.estimate_clipped,
                                            o.intervals.clone(),
                                            o.primary,
                                            (0.0, 1.0),
                                        )
                                    }),
                                (Some(q), None) if share => (
                                    q.estimate_clipped,
                                    q.intervals.clone(),
                                    q.primary,
                                    (0.0, 1.0),
                                ),
                                (Some(q), None) => q.mean.as_ref().map_or(
                                    (None, Intervals::default(), None, (0.0, 1.0)),
                                    |m| {
                                        (
                                            m.estimate_clipped,
                                            m.intervals.clone(),
                                            m.primary,
                                            (m.min, m.max),
                                        )
                                    },
                                ),
                                (None, _) => (None, Intervals::default(), None, (0.0, 1.0)),
                            };
                            let drawn = primary.and_then(|method| intervals.get(method));
                            let number = |value: f64| format!("{value:.2}");
                            let (min, max) = range;
                            GroupRow {
                                label: group_label(group),
                                n: group.n.map_or_else(|| "–".to_owned(), |n| n.to_string()),
                                estimate: estimate.map_or_else(
                                    || "–".to_owned(),
                                    |e| if share { percent_with(e, 1) } else { number(e) },
                                ),
                                interval: if share {
                                    interval_text(drawn, |e| percent_with(e, 1))
                                } else {
                                    interval_text(drawn, number)
                                },
                                has_data: estimate.is_some()
                                    && drawn.is_some_and(|b| b.range().is_some()),
                                bar_width: track_x(estimate.unwrap_or(min), min, max),
                                low_x: track_x(drawn.and_then(|b| b.low).unwrap_or(min), min, max),
                                high_x: track_x(
                                    drawn.and_then(|b| b.high).unwrap_or(min),
                                    min,
                                    max,
                                ),
                            }
                        })
                        .collect();
                    let differences = breakdown
                        .differences
                        .iter()
                        .filter(|d| d.question == question.id.get() && d.option == option)
                        .filter_map(|d| difference_words(breakdown, d, share, confidence_percent))
                        .collect();
                    broken_down.push(TargetBreakdown {
                        option: option
                            .and_then(|index| options.get(index))
                            .cloned()
                            .unwrap_or_default(),
                        rows,
                        differences,
                    });
                }
                let (min, max) = scale;
                let number = |value: f64| format!("{value:.2}");
                questions.push(QuestionBreakdown {
                    number: question.number(),
                    text: question.text.clone(),
                    what: match question.design.question_type() {
                        QuestionType::YesNo => "share answering Yes",
                        QuestionType::Choice => "each option’s share",
                        QuestionType::Ordinal => "mean level",
                        QuestionType::Number => "mean",
                    }
                    .to_owned(),
                    share,
                    axis: if share {
                        ["0 %".to_owned(), "50 %".to_owned(), "100 %".to_owned()]
                    } else {
                        [number(min), number((min + max) / 2.0), number(max)]
                    },
                    targets: broken_down,
                });
            }
        }
        BreakdownView {
            choices,
            text: breakdown.text.clone(),
            min_cell: breakdown.min_cell,
            blinded: breakdown.blinded,
            release_note,
            suppressed,
            counts,
            questions,
            primary_name: primary_name(crate::results::survey_primary(survey)),
        }
    }
}

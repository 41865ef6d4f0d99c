//! Breakdowns by a grouping question (`GET /api/surveys/{slug}/results?by=<id>`): every
//! randomized question's estimate and intervals within each group, and the differences
//! between groups with their intervals and tests (docs/design.md, "Breakdowns").
//!
//! A survey shows its owner released responses only, released by cell — a combination of
//! grouping answers — in releases of at least k (= min_cell) responses (docs/design.md,
//! invariant 11; `crate::db::released`). A group of a breakdown is the sum of the released
//! cells that gave its answer, so every figure here is a sum over whole releases, as the
//! overall results and the export are. A group without any released cell is not shown.
//! Under `results_after_close` while open, nothing is shown that depends on grouping
//! answers: no group sizes, no figures.

use randomized_response::{Confidence, Design, Group, PerRecordEstimator};
use serde::{Deserialize, Serialize};

use crate::db::counts::QuestionCounts;
use crate::db::released::Released;
use crate::domain::{GroupingQuestion, Question, QuestionType, Survey};
use crate::error::AppError;
use crate::results::{
    finite, mean_level_estimator, question_results, Intervals, MeanResults, OptionResults, Primary,
    Summarizing,
};

/// Per option of the grouping question (by index), every randomized question's counts.
pub type GroupedCounts = Vec<Vec<QuestionCounts>>;

/// `GET …/results?by=<id>`: one grouping question's breakdown.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Breakdown {
    /// The grouping question's id.
    pub by: i64,
    /// The grouping question's text.
    pub text: String,
    /// `draft`, `open` or `closed`.
    pub status: String,
    pub confidence: f64,
    /// k: every group shown sums released cells of at least k responses each.
    pub min_cell: u32,
    /// While blinded (a survey fixed in advance, open): group counts only.
    pub blinded: bool,
    /// The released responses the groups cover; null before anything is released.
    pub released_responses: Option<u64>,
    /// While open: releases are next considered once the survey has received this many
    /// responses (`release.considered_at` + k); null once closed.
    pub next_release_at: Option<u64>,
    /// Every option of the grouping question, in order.
    pub groups: Vec<GroupResults>,
    /// For two groups shown, their difference; for more, each group against the rest of
    /// the survey. Per randomized question (and per option of a choice question).
    pub differences: Vec<Difference>,
}

/// One group of a breakdown.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GroupResults {
    /// The option's index.
    pub index: Option<usize>,
    /// The option's label.
    pub label: String,
    /// Unused since every group is a sum of released cells (no groups are folded together
    /// any more); kept absent for the shape's sake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<usize>>,
    /// Released responses in the group; null when none is released, and while the survey
    /// withholds its results until close.
    pub n: Option<u64>,
    /// No released cell gave this answer (yet): no counts, no figures. False while the
    /// survey withholds its results until close (nothing is said of any group then).
    pub suppressed: bool,
    /// Every randomized question within the group (none when suppressed; figures null while
    /// blinded).
    pub questions: Vec<GroupQuestion>,
}

/// One randomized question within one group.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GroupQuestion {
    pub id: i64,
    /// Yes/no: the share answering yes (unclipped); null for other types and while blinded.
    pub estimate: Option<f64>,
    pub estimate_clipped: Option<f64>,
    pub intervals: Intervals,
    pub primary: Option<Primary>,
    /// Choice and ordinal: each option's share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<OptionResults>>,
    /// Ordinal: the mean level; number: the mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<MeanResults>,
}

/// The difference of one target between two groups, or a group and the rest.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Difference {
    /// `[i, j]`: group i minus group j; `[i, "rest"]`: group i minus every other response
    /// of the release.
    #[schema(value_type = Vec<Object>, examples(json!([0, "rest"])))]
    pub groups: [serde_json::Value; 2],
    /// The randomized question.
    pub question: i64,
    /// Choice: the option whose share differs; null for the other types.
    pub option: Option<usize>,
    /// What differs: `yes` (a yes/no share), `option` (a choice option's share) or `mean`.
    pub target: String,
    /// The estimate of group i minus the other's (each unclipped).
    pub estimate: Option<f64>,
    pub intervals: Intervals,
    pub primary: Option<Primary>,
    /// The test of "no difference": the anytime-valid p-value when the anytime interval is
    /// primary (or no exact test exists), Fisher's exact test otherwise.
    pub p_value: Option<f64>,
    /// Which test `p_value` is: `anytime` or `exact`.
    pub p_value_test: Option<String>,
}

/// A question's counts in one group, padded to its design's reports.
fn counts_of(question: &Question, group: &[QuestionCounts]) -> Vec<u64> {
    let mut counts = group
        .iter()
        .find(|c| c.question_id == question.id)
        .map_or_else(Vec::new, |c| c.counts.clone());
    counts.resize(question.design.reports(), 0);
    counts
}

/// One target a difference compares: a yes share, one option's share, or a mean.
struct DifferenceTarget {
    option: Option<usize>,
    name: &'static str,
    estimator: PerRecordEstimator,
}

/// The targets a difference compares, per question.
fn difference_targets(question: &Question) -> Result<Vec<DifferenceTarget>, AppError> {
    let mechanism = question.design.mechanism();
    let matrix = mechanism.matrix();
    let target = |option, name, estimator| DifferenceTarget {
        option,
        name,
        estimator,
    };
    Ok(match question.design.question_type() {
        QuestionType::YesNo => vec![target(
            None,
            "yes",
            matrix
                .option_estimator(Design::YES)
                .map_err(AppError::internal)?,
        )],
        QuestionType::Choice => (0..matrix.answers())
            .map(|option| {
                Ok(target(
                    Some(option),
                    "option",
                    matrix
                        .option_estimator(option)
                        .map_err(AppError::internal)?,
                ))
            })
            .collect::<Result<_, AppError>>()?,
        QuestionType::Ordinal => vec![target(None, "mean", mean_level_estimator(matrix))],
        QuestionType::Number => vec![target(
            None,
            "mean",
            mechanism
                .mean_estimator(false)
                .ok_or_else(|| AppError::internal("a number question without a mean"))?,
        )],
    })
}

/// A difference's figures: estimate, intervals, the primary one and its test.
struct DifferenceFigures {
    estimate: f64,
    intervals: Intervals,
    primary: Option<Primary>,
    /// The p-value and the test's name.
    test: Option<(f64, &'static str)>,
}

/// One difference between `a` and `b` (counts of one question), led by the survey's primary.
fn difference(
    estimator: &PerRecordEstimator,
    a: &[u64],
    b: &[u64],
    how: Summarizing,
    planned_per_group: u64,
) -> Result<Option<DifferenceFigures>, AppError> {
    let group = |counts| Group {
        counts,
        planned_respondents: planned_per_group,
    };
    let Some(summary) = estimator
        .difference(group(a), group(b), how.confidence)
        .map_err(AppError::internal)?
    else {
        return Ok(None);
    };
    let primary = crate::results::primary_for(how.primary, estimator);
    let test = match (primary, summary.exact_p_value) {
        (Some(Primary::Exact), Some(p)) => Some((p, "exact")),
        (Some(_), _) => Some((summary.anytime_p_value, "anytime")),
        (None, _) => None,
    };
    Ok(Some(DifferenceFigures {
        estimate: summary.estimate,
        intervals: Intervals {
            chernoff: finite(summary.chernoff),
            exact: summary.exact.and_then(finite),
            anytime: finite(summary.anytime),
        },
        primary,
        test,
    }))
}

/// The breakdown of `survey` by `grouping` from its released cells.
pub fn compute(
    survey: &Survey,
    grouping: &GroupingQuestion,
    released: &Released,
    confidence: Confidence,
) -> Result<Breakdown, AppError> {
    let how = Summarizing::of(survey, confidence);
    let withheld = how.primary.is_none();
    let options = grouping.options.len();
    if released.hides_groups() {
        return Ok(Breakdown {
            by: grouping.id.get(),
            text: grouping.text.clone(),
            status: survey.status.as_str().to_owned(),
            confidence: confidence.level(),
            min_cell: survey.min_cell.get(),
            blinded: survey.is_blinded(),
            released_responses: None,
            next_release_at: released.next_consideration_at(),
            groups: grouping
                .options
                .iter()
                .enumerate()
                .map(|(index, label)| GroupResults {
                    index: Some(index),
                    label: label.clone(),
                    members: None,
                    n: None,
                    suppressed: false,
                    questions: Vec::new(),
                })
                .collect(),
            differences: Vec::new(),
        });
    }
    let grouped = released.grouped(survey, grouping);
    let sizes: Vec<u64> = grouped.iter().map(|(n, _)| *n).collect();
    let counts: GroupedCounts = grouped.into_iter().map(|(_, counts)| counts).collect();
    let shown: Vec<bool> = sizes.iter().map(|&n| n > 0).collect();
    // Each group's anytime interval is tuned for its share of the planned size.
    let planned_per_group = (survey.planned_size() / options as u64).max(1);
    let group_how = Summarizing {
        planned_respondents: planned_per_group,
        ..how
    };
    let figures = |group: &[QuestionCounts]| -> Result<Vec<GroupQuestion>, AppError> {
        survey
            .questions
            .iter()
            .map(|question| {
                let results = question_results(question, &counts_of(question, group), group_how)?;
                Ok(GroupQuestion {
                    id: results.id,
                    estimate: results.estimate,
                    estimate_clipped: results.estimate_clipped,
                    intervals: results.intervals,
                    primary: results.primary,
                    options: results.options,
                    mean: results.mean,
                })
            })
            .collect()
    };
    let mut groups = Vec::with_capacity(options);
    for (index, label) in grouping.options.iter().enumerate() {
        groups.push(GroupResults {
            index: Some(index),
            label: label.clone(),
            members: None,
            n: shown[index].then_some(sizes[index]),
            suppressed: !shown[index],
            questions: if shown[index] {
                figures(&counts[index])?
            } else {
                Vec::new()
            },
        });
    }
    let total: u64 = sizes.iter().sum();
    let differences = if withheld {
        Vec::new()
    } else {
        differences(survey, &counts, &shown, how, planned_per_group)?
    };
    Ok(Breakdown {
        by: grouping.id.get(),
        text: grouping.text.clone(),
        status: survey.status.as_str().to_owned(),
        confidence: confidence.level(),
        min_cell: survey.min_cell.get(),
        blinded: survey.is_blinded(),
        released_responses: (total > 0).then_some(total),
        next_release_at: released.next_consideration_at(),
        groups,
        differences,
    })
}

/// A question's counts summed over several groups.
fn sum_counts<'a>(
    question: &Question,
    groups: impl Iterator<Item = &'a [QuestionCounts]>,
) -> Vec<u64> {
    let mut sum = vec![0; question.design.reports()];
    for group in groups {
        for (total, count) in sum.iter_mut().zip(counts_of(question, group)) {
            *total += count;
        }
    }
    sum
}

/// Two groups shown: their difference. More: each against the rest of the release.
fn differences(
    survey: &Survey,
    counts: &GroupedCounts,
    shown: &[bool],
    how: Summarizing,
    planned_per_group: u64,
) -> Result<Vec<Difference>, AppError> {
    let shown: Vec<usize> = (0..shown.len()).filter(|&g| shown[g]).collect();
    // One group shown beside "other": it against the rest (which is "other").
    let pairs: Vec<(usize, Option<usize>)> = match shown.as_slice() {
        [a, b] => vec![(*a, Some(*b))],
        groups => groups.iter().map(|&g| (g, None)).collect(),
    };
    let mut found = Vec::new();
    for question in &survey.questions {
        let total = sum_counts(question, counts.iter().map(Vec::as_slice));
        for target in difference_targets(question)? {
            for &(a, b) in &pairs {
                let first = counts_of(question, &counts[a]);
                let second = match b {
                    Some(b) => counts_of(question, &counts[b]),
                    None => total.iter().zip(&first).map(|(t, f)| t - f).collect(),
                };
                let Some(figures) =
                    difference(&target.estimator, &first, &second, how, planned_per_group)?
                else {
                    continue;
                };
                found.push(Difference {
                    groups: [
                        serde_json::json!(a),
                        b.map_or_else(|| serde_json::json!("rest"), |b| serde_json::json!(b)),
                    ],
                    question: question.id.get(),
                    option: target.option,
                    target: target.name.to_owned(),
                    estimate: Some(figures.estimate),
                    intervals: figures.intervals,
                    primary: figures.primary,
                    p_value: figures.test.map(|(p, _)| p),
                    p_value_test: figures.test.map(|(_, name)| name.to_owned()),
                });
            }
        }
    }
    Ok(found)
}

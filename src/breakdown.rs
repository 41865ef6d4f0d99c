//! Breakdowns by a grouping question (`GET /api/surveys/{slug}/results?by=<id>`): every
//! randomized question's estimate and intervals within each group, and the differences
//! between groups with their intervals and tests (docs/design.md, "Breakdowns").
//!
//! Two guards keep a breakdown from pointing at a person:
//!
//! * **k-anonymity** (k = the survey's `min_cell`): a group is shown only with at least k
//!   responses, and small groups are folded together — with the smallest shown ones while
//!   needed — into one "other" of at least k, so that no subtraction of published figures
//!   isolates a hidden group ([`crate::k_anonymity`]).
//! * **releases**: the counts a breakdown shows move for all groups together, and only once
//!   m = k × (number of options) new responses have arrived since the last release — never
//!   on one group's own count, never on a timer alone — so that watching the page does not
//!   reveal the newest respondent's group. Closing releases everything. Releases are kept
//!   by [`Releases`] (on SQLite in memory: after a restart the first release waits for m
//!   new responses again, since the counts seen before the restart are not known and
//!   releasing at once could differ from them by a single response; on PostgreSQL in the
//!   database, shared by every node).

use randomized_response::{Confidence, Design, Group, PerRecordEstimator};
use serde::{Deserialize, Serialize};

use crate::db::queries::QuestionCounts;
use crate::db::Database;
use crate::domain::{GroupingQuestion, Question, QuestionType, Survey, SurveyStatus};
use crate::error::AppError;
use crate::k_anonymity::suppress;
use crate::live::{responses_counted, Release, Releases, View};
use crate::results::{
    finite, mean_level_estimator, question_results, Intervals, MeanResults, OptionResults, Primary,
    Summarizing,
};

/// Per option of the grouping question (by index), every randomized question's counts.
pub type GroupedCounts = Vec<Vec<QuestionCounts>>;

/// What a breakdown may show now.
pub struct Released {
    /// The released counts; `None` before the first release.
    pub counts: Option<GroupedCounts>,
    /// The responses the release covers.
    pub responses: Option<u64>,
    /// The release moves on once the survey holds this many responses (`None` once closed).
    pub next_at: Option<u64>,
}

/// The responses of a set of grouped counts: the sum of the groups'.
fn grouped_responses(counts: &GroupedCounts) -> u64 {
    counts.iter().map(|group| responses_counted(group)).sum()
}

/// The counts a breakdown of `survey` by `grouping` may show, given the current ones.
pub async fn released(
    releases: &Releases,
    db: &Database,
    survey: &Survey,
    grouping: &GroupingQuestion,
    current: GroupedCounts,
) -> Result<Released, AppError> {
    let now = grouped_responses(&current);
    if survey.status == SurveyStatus::Closed {
        return Ok(Released {
            counts: Some(current),
            responses: Some(now),
            next_at: None,
        });
    }
    // m = k × groups: a step in which every group could have gained k.
    let step = u64::from(survey.min_cell.get()) * grouping.options.len() as u64;
    let next = Release {
        responses: now,
        redemptions: 0,
        counts: Some(current),
    };
    let release = releases
        .advance(db, survey.id, View::Breakdown(grouping.id), step, next)
        .await?;
    let since = release.as_ref().map_or(0, |release| release.responses);
    let counts = release.and_then(|release| release.counts);
    Ok(Released {
        responses: counts.as_ref().map(|_| since),
        counts,
        next_at: Some(since + step),
    })
}

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
    /// The smallest group shown (k of k-anonymity: the survey's `min_cell`).
    pub min_cell: u32,
    /// While blinded (a survey fixed in advance, open): group counts only.
    pub blinded: bool,
    /// The responses the shown release covers; null before the first release.
    pub released_responses: Option<u64>,
    /// The breakdown moves on once the survey holds this many responses (k × the number of
    /// options after the last release); null once closed (everything is released).
    pub next_release_at: Option<u64>,
    /// Every option of the grouping question, in order, then "other" when small groups are
    /// folded together.
    pub groups: Vec<GroupResults>,
    /// For two groups shown, their difference; for more, each group against the rest of
    /// the survey. Per randomized question (and per option of a choice question).
    pub differences: Vec<Difference>,
}

/// One group of a breakdown.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GroupResults {
    /// The option's index; null for "other".
    pub index: Option<usize>,
    /// The option's label, or `other`.
    pub label: String,
    /// "other" only: the options folded into it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<usize>>,
    /// Responses in the group; null when suppressed.
    pub n: Option<u64>,
    /// Fewer than k responses (or folded to protect one that has): no counts, no figures.
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

/// The breakdown of `survey` by `grouping` from the released counts (`None`: no release
/// yet, every group pending).
pub fn compute(
    survey: &Survey,
    grouping: &GroupingQuestion,
    released: &Released,
    confidence: Confidence,
) -> Result<Breakdown, AppError> {
    let how = Summarizing::of(survey, confidence);
    let blinded = how.primary.is_none();
    let k = u64::from(survey.min_cell.get());
    let options = grouping.options.len();
    let empty: GroupedCounts = vec![Vec::new(); options];
    let counts = released.counts.as_ref().unwrap_or(&empty);
    let sizes: Vec<u64> = (0..options)
        .map(|option| {
            counts
                .get(option)
                .map_or(0, |group| responses_counted(group))
        })
        .collect();
    let suppression = suppress(&sizes, k);
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
    let mut groups = Vec::with_capacity(options + 1);
    for (index, label) in grouping.options.iter().enumerate() {
        let shown = released.counts.is_some() && suppression.shown[index];
        groups.push(GroupResults {
            index: Some(index),
            label: label.clone(),
            members: None,
            n: shown.then_some(sizes[index]),
            suppressed: !shown,
            questions: if shown {
                figures(&counts[index])?
            } else {
                Vec::new()
            },
        });
    }
    if released.counts.is_some() && suppression.has_other() {
        let folded: Vec<QuestionCounts> = survey
            .questions
            .iter()
            .map(|question| QuestionCounts {
                question_id: question.id,
                counts: sum_counts(question, suppression.folded.iter().map(|&g| &counts[g][..])),
            })
            .collect();
        groups.push(GroupResults {
            index: None,
            label: "other".to_owned(),
            members: Some(suppression.folded.clone()),
            n: Some(suppression.folded.iter().map(|&g| sizes[g]).sum()),
            suppressed: false,
            questions: figures(&folded)?,
        });
    }
    let differences = if blinded || released.counts.is_none() {
        Vec::new()
    } else {
        differences(survey, counts, &suppression.shown, how, planned_per_group)?
    };
    Ok(Breakdown {
        by: grouping.id.get(),
        text: grouping.text.clone(),
        status: survey.status.as_str().to_owned(),
        confidence: confidence.level(),
        min_cell: survey.min_cell.get(),
        blinded,
        released_responses: released.responses,
        next_release_at: released.next_at,
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

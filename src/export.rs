//! Streamed exports of the randomized reports (CSV and NDJSON), ordered by record id.
//!
//! One row per (response, question): the report as an integer and the per-record unbiased
//! values of the question's design (docs/design.md, "Export"). Everything that depends only
//! on a question and its report is computed once per export ([`ExportPlan`]), so a row
//! costs a look-up and a write: memory stays flat whatever the survey's size.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use actix_web::web::Bytes;
use futures_util::stream::{self, Stream};
use randomized_response::Design;
use serde::Serialize;

use crate::db::responses::ExportRow;
use crate::db::Database;
use crate::domain::{
    GroupingQuestion, QuestionDesign, QuestionId, QuestionType, RecordId, StoredGrouping, Survey,
    SurveyId,
};
use crate::error::AppError;
use crate::results::mean_level_estimator;

/// Responses per page: each page is one short read on the read pool.
const RESPONSES_PER_PAGE: u32 = 512;

/// The export's columns, in order. The first six are those of the first release, in its
/// order: scripts read them by position.
pub const COLUMNS: [&str; 8] = [
    "record_id",
    "question_id",
    "epsilon",
    "truth_probability",
    "report",
    "unbiased_value",
    "type",
    "option_values",
];

/// Separates the per-option values in a CSV cell (`option_values`); NDJSON has an array.
pub const OPTION_VALUES_SEPARATOR: &str = ";";

/// The name of a grouping question's column, after the fixed ones: `group_<id>`.
pub fn grouping_column(id: QuestionId) -> String {
    format!("group_{}", id.get())
}

/// Which responses an export holds: every stored one (a survey without grouping questions
/// or invitations), or the released ones only — once the survey has closed, since an
/// export of such a survey while it is open is refused (409 `export_withheld`;
/// docs/design.md, invariant 11). Each released response's grouping answers are its cell,
/// released whole with at least k others, so its labels are given as answered.
use crate::db::released::ExportPermit;

#[derive(Debug, Clone, Copy)]
pub enum ExportFormat {
    Csv,
    Ndjson,
}

impl ExportFormat {
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Csv => "text/csv; charset=utf-8",
            Self::Ndjson => "application/x-ndjson",
        }
    }

    pub fn file_name(self, slug: &str) -> String {
        match self {
            Self::Csv => format!("{slug}.csv"),
            Self::Ndjson => format!("{slug}.ndjson"),
        }
    }

    fn write_header(self, plan: &ExportPlan, out: &mut Vec<u8>) {
        if let Self::Csv = self {
            out.extend_from_slice(COLUMNS.join(",").as_bytes());
            for grouping in &plan.groupings {
                out.push(b',');
                out.extend_from_slice(grouping_column(grouping.id).as_bytes());
            }
            out.extend_from_slice(b"\n");
        }
    }

    fn write_rows(
        self,
        plan: &ExportPlan,
        rows: &[ExportRow],
        out: &mut Vec<u8>,
    ) -> Result<(), AppError> {
        use std::io::Write;
        for row in rows {
            let (question, values) = plan.lookup(row)?;
            let groups = plan.labels(&row.groupings);
            match self {
                Self::Csv => {
                    // Numbers only, written by Rust's shortest round-trip formatting: no
                    // cell can start a formula (record ids are hex). Grouping labels are
                    // text, made spreadsheet-safe.
                    write!(
                        out,
                        "{},{},{},{},{},{}",
                        row.record_id.to_hex(),
                        row.question_id.get(),
                        row.level.epsilon(),
                        question.truth_probability,
                        row.report,
                        values.csv_tail
                    )
                    .map_err(AppError::internal)?;
                    for cell in &groups {
                        write!(out, ",{}", spreadsheet_safe(cell)).map_err(AppError::internal)?;
                    }
                    out.push(b'\n');
                }
                Self::Ndjson => {
                    let record = ExportRecord {
                        record_id: row.record_id.to_hex(),
                        question_id: row.question_id.get(),
                        epsilon: row.level.epsilon(),
                        truth_probability: question.truth_probability,
                        report: row.report,
                        unbiased_value: values.values.unbiased_value,
                        question_type: question.question_type,
                        option_values: values.values.option_values.as_deref(),
                        groups: (!plan.groupings.is_empty()).then(|| {
                            plan.groupings
                                .iter()
                                .zip(groups)
                                .map(|(grouping, cell)| (grouping_column(grouping.id), cell))
                                .collect()
                        }),
                    };
                    serde_json::to_writer(&mut *out, &record).map_err(AppError::internal)?;
                    out.push(b'\n');
                }
            }
        }
        Ok(())
    }
}

/// One row of an export: a line of the NDJSON, a row of the CSV (where a null is an empty
/// cell and `option_values` are joined by `;`).
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ExportRecord<'a> {
    /// Hex SHA-256 of the response id: names a response's rows, and (unlike the response
    /// id) cannot be used to submit it again.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    record_id: String,
    question_id: i64,
    /// The ε stored beside the report (the question's, frozen when the survey opened).
    epsilon: f64,
    /// The question's largest probability that a report equals the truth (for forced
    /// response 0.67/0.165/0.165: 0.835; for a number, that of its binary report).
    truth_probability: f64,
    /// The randomized report: yes/no 1 = yes, 0 = no; choice and ordinal the option index
    /// (0 = the first); number 0 = its min end, 1 = its max end.
    #[schema(minimum = 0, maximum = 19)]
    report: u8,
    /// The per-record unbiased value: its mean over a question's rows is an unbiased
    /// estimate of the yes share (yes/no, through the design's matrix), of the mean level
    /// on 1…k (ordinal) or of the mean (number). Null for choice (see `option_values`). One
    /// row's value may lie outside the target's range.
    unbiased_value: Option<f64>,
    /// The question's type: `yes_no`, `choice`, `ordinal` or `number`.
    #[serde(rename = "type")]
    question_type: QuestionType,
    /// Choice and ordinal: one per-record unbiased value per option, in option order; the
    /// mean of the i-th over a question's rows estimates the share of option i. Null for
    /// yes/no and number.
    #[schema(value_type = Option<Vec<f64>>)]
    option_values: Option<&'a [f64]>,
    /// Surveys with grouping questions: `group_<id>` → the response's answer (its label, as
    /// given: not randomized). Such a survey exports once closed, its released responses
    /// only: each is in a cell (a combination of grouping answers) released whole with at
    /// least k = `min_cell` responses. Absent without grouping questions.
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<BTreeMap<String, String>>,
}

/// The per-record unbiased values of one report of one question: what the export writes
/// beside it, and what the codebook lists.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ReportValues {
    /// The report.
    pub report: u8,
    /// Yes/no: the value whose mean is the yes share (`(P⁻¹)[report][yes]`); ordinal: whose
    /// mean is the mean level on 1…k; number: whose mean is the mean. Null for choice.
    pub unbiased_value: Option<f64>,
    /// Choice and ordinal: `(P⁻¹)[report][i]` for each option i, whose mean is option i's
    /// share. Null for yes/no and number.
    pub option_values: Option<Vec<f64>>,
}

/// The per-record unbiased values of every report of a question's design (reports
/// `0..reports`), from the crate's estimators: the same values the results average.
pub fn report_values(design: &QuestionDesign) -> Result<Vec<ReportValues>, AppError> {
    let mechanism = design.mechanism();
    let matrix = mechanism.matrix();
    let unbiased = match design.question_type() {
        QuestionType::YesNo => Some(
            matrix
                .option_estimator(Design::YES)
                .map_err(AppError::internal)?,
        ),
        QuestionType::Ordinal => Some(mean_level_estimator(matrix)),
        QuestionType::Number => Some(
            mechanism
                .mean_estimator(false)
                .ok_or_else(|| AppError::internal("a number question without a mean"))?,
        ),
        QuestionType::Choice => None,
    };
    let options = match design.question_type() {
        QuestionType::Choice | QuestionType::Ordinal => Some(
            (0..matrix.answers())
                .map(|option| matrix.option_estimator(option))
                .collect::<Result<Vec<_>, _>>()
                .map_err(AppError::internal)?,
        ),
        QuestionType::YesNo | QuestionType::Number => None,
    };
    (0..mechanism.reports())
        .map(|report| {
            Ok(ReportValues {
                report: u8::try_from(report).map_err(AppError::internal)?,
                unbiased_value: unbiased.as_ref().map(|e| e.values()[report]),
                option_values: options
                    .as_ref()
                    .map(|estimators| estimators.iter().map(|e| e.values()[report]).collect()),
            })
        })
        .collect()
}

/// A report's values with its CSV cells after `report`, rendered once.
struct RenderedReport {
    values: ReportValues,
    /// `unbiased_value,type,option_values`.
    csv_tail: String,
}

struct QuestionColumns {
    question_type: QuestionType,
    truth_probability: f64,
    /// Indexed by report.
    reports: Vec<RenderedReport>,
}

/// What an export writes beside each report, per question and report: looked up once per
/// export, not per row.
pub struct ExportPlan {
    questions: HashMap<QuestionId, QuestionColumns>,
    /// The grouping questions, in position order: one `group_<id>` column each.
    groupings: Vec<GroupingQuestion>,
}

impl ExportPlan {
    pub fn new(survey: &Survey) -> Result<Self, AppError> {
        let mut questions = HashMap::with_capacity(survey.questions.len());
        for question in &survey.questions {
            let design = &question.design;
            let question_type = design.question_type();
            let reports = report_values(design)?
                .into_iter()
                .map(|values| RenderedReport {
                    csv_tail: csv_tail(question_type, &values),
                    values,
                })
                .collect();
            questions.insert(
                question.id,
                QuestionColumns {
                    question_type,
                    truth_probability: design.truth_probability(),
                    reports,
                },
            );
        }
        Ok(Self {
            questions,
            groupings: survey.groupings.clone(),
        })
    }

    /// One response's `group_<id>` cells: its grouping answers' labels, in the grouping
    /// questions' order.
    fn labels(&self, answers: &[StoredGrouping]) -> Vec<String> {
        self.groupings
            .iter()
            .map(|grouping| {
                let answer = answers
                    .iter()
                    .find(|answer| answer.question_id == grouping.id)
                    .map_or(u8::MAX, |answer| answer.answer);
                grouping.label(answer)
            })
            .collect()
    }

    fn lookup(&self, row: &ExportRow) -> Result<(&QuestionColumns, &RenderedReport), AppError> {
        let question = self.questions.get(&row.question_id).ok_or_else(|| {
            AppError::internal(format!(
                "a stored report names question {}, which its survey does not have",
                row.question_id.get()
            ))
        })?;
        let values = question
            .reports
            .get(usize::from(row.report))
            .ok_or_else(|| {
                AppError::internal(format!(
                    "a stored report of question {} is {}, out of its design's range",
                    row.question_id.get(),
                    row.report
                ))
            })?;
        Ok((question, values))
    }
}

fn csv_tail(question_type: QuestionType, values: &ReportValues) -> String {
    let unbiased = values
        .unbiased_value
        .map_or_else(String::new, |value| value.to_string());
    let options = values.option_values.as_ref().map_or_else(String::new, |v| {
        v.iter()
            .map(f64::to_string)
            .collect::<Vec<_>>()
            .join(OPTION_VALUES_SEPARATOR)
    });
    format!("{unbiased},{},{options}", question_type.as_str())
}

/// Text that a spreadsheet would run as a formula gets a leading `'` (OWASP's advice for
/// CSV injection). Only text passes through here: numbers, which may well start with `-`,
/// stay numbers.
pub fn formula_safe(text: &str) -> Cow<'_, str> {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A CSV text cell: [`formula_safe`], then quoted if it holds a comma, quote or newline.
pub fn spreadsheet_safe(text: &str) -> Cow<'_, str> {
    let text = formula_safe(text);
    if text.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")))
    } else {
        text
    }
}

struct Cursor {
    db: Database,
    survey_id: SurveyId,
    plan: Arc<ExportPlan>,
    format: ExportFormat,
    permit: ExportPermit,
    after: Option<RecordId>,
    header_written: bool,
    finished: bool,
}

/// The export of `survey` (its responses in the figures, which the permit says may be
/// exported) as a stream of chunks, one page of responses per chunk (keyset pagination, so
/// memory stays flat whatever the survey's size). The questions' designs are read from
/// `survey` once, here.
pub fn stream_export(
    db: Database,
    survey: &Survey,
    format: ExportFormat,
    permit: ExportPermit,
) -> Result<impl Stream<Item = Result<Bytes, AppError>>, AppError> {
    let cursor = Cursor {
        db,
        survey_id: survey.id,
        plan: Arc::new(ExportPlan::new(survey)?),
        format,
        permit,
        after: None,
        header_written: false,
        finished: false,
    };
    Ok(stream::try_unfold(cursor, |mut cursor| async move {
        if cursor.finished {
            return Ok(None);
        }
        let mut chunk = Vec::new();
        if !cursor.header_written {
            cursor.format.write_header(&cursor.plan, &mut chunk);
            cursor.header_written = true;
        }
        let (survey_id, after, permit) = (cursor.survey_id, cursor.after, cursor.permit);
        let rows = cursor
            .db
            .export_page(survey_id, after, RESPONSES_PER_PAGE, permit)
            .await?;
        match rows.last() {
            Some(last) => {
                cursor.after = Some(last.record_id);
                cursor.format.write_rows(&cursor.plan, &rows, &mut chunk)?;
            }
            None => cursor.finished = true,
        }
        if chunk.is_empty() {
            return Ok(None);
        }
        Ok(Some((Bytes::from(chunk), cursor)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::DesignFields;

    fn design(json: &str) -> QuestionDesign {
        let fields: DesignFields = serde_json::from_str(json).unwrap();
        QuestionDesign::parse("q", &fields).unwrap()
    }

    #[test]
    fn formula_like_text_is_neutralised() {
        for formula in ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert!(spreadsheet_safe(formula)
                .trim_start_matches('"')
                .starts_with('\''));
        }
    }

    #[test]
    fn plain_text_is_left_alone_and_commas_are_quoted() {
        assert_eq!(spreadsheet_safe("abc123"), "abc123");
        assert_eq!(spreadsheet_safe("a,\"b\""), "\"a,\"\"b\"\"\"");
    }

    #[test]
    fn a_mirrored_question_keeps_the_first_releases_unbiased_value() {
        let level = randomized_response::PrivacyLevel::new(1.0986).unwrap();
        let values = report_values(&QuestionDesign::mirrored(level)).unwrap();
        for report in [false, true] {
            let expected = randomized_response::unbiased_value(report, level);
            let got = values[usize::from(report)].unbiased_value.unwrap();
            assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        }
        assert_eq!(values[1].option_values, None);
    }

    #[test]
    fn forced_response_values_are_rrs_moment_estimator_per_record() {
        // rr: P(report yes) = c π + d with c = p, d = p1, so the per-record value is
        // (report − p1) / p.
        let values = report_values(&design(
            r#"{"design": "forced_response", "answer_truthfully": 0.67,
                "forced_yes": 0.165, "forced_no": 0.165}"#,
        ))
        .unwrap();
        for (report, expected) in [(0, -0.165 / 0.67), (1, 0.835 / 0.67)] {
            let got = values[report].unbiased_value.unwrap();
            assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        }
    }

    #[test]
    fn choice_has_option_values_only_and_ordinal_also_a_mean_level() {
        let choice = report_values(&design(
            r#"{"type": "choice", "epsilon": 1.5, "options": ["a", "b", "c", "d"]}"#,
        ))
        .unwrap();
        assert_eq!(choice.len(), 4);
        let e = 1.5f64.exp();
        let (a, b) = (e / (e + 3.0), 1.0 / (e + 3.0));
        for (report, values) in choice.iter().enumerate() {
            assert_eq!(values.unbiased_value, None);
            let options = values.option_values.as_ref().unwrap();
            assert_eq!(options.len(), 4);
            for (option, &value) in options.iter().enumerate() {
                let indicator = if option == report { 1.0 } else { 0.0 };
                assert!((value - (indicator - b) / (a - b)).abs() < 1e-9);
            }
            // The options' values add up to 1 for every report: the shares add up to 1.
            assert!((options.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        let ordinal = report_values(&design(
            r#"{"type": "ordinal", "epsilon": 1.5, "options": ["1", "2", "3", "4", "5"]}"#,
        ))
        .unwrap();
        for values in &ordinal {
            // The mean level is Σ_i (i + 1) · option value i.
            let options = values.option_values.as_ref().unwrap();
            let level: f64 = options
                .iter()
                .enumerate()
                .map(|(i, v)| (i + 1) as f64 * v)
                .sum();
            assert!((values.unbiased_value.unwrap() - level).abs() < 1e-9);
        }
    }

    #[test]
    fn a_numbers_values_lie_beyond_its_bounds_and_average_to_the_mean() {
        let values = report_values(&design(
            r#"{"type": "number", "epsilon": 1.0, "min": 0, "max": 30}"#,
        ))
        .unwrap();
        let p = 1.0 / (1.0 + (-1.0f64).exp());
        let r = 2.0 * p - 1.0;
        let low = values[0].unbiased_value.unwrap();
        let high = values[1].unbiased_value.unwrap();
        assert!((low - 30.0 * (0.0 - (1.0 - p)) / r).abs() < 1e-9);
        assert!((high - 30.0 * p / r).abs() < 1e-9);
        assert!(low < 0.0 && high > 30.0);
        assert_eq!(values[0].option_values, None);
    }

    #[test]
    fn csv_cells_after_the_report_are_written_once_per_question_and_report() {
        let values = ReportValues {
            report: 2,
            unbiased_value: None,
            option_values: Some(vec![-0.25, 1.5, -0.25]),
        };
        assert_eq!(
            csv_tail(QuestionType::Choice, &values),
            ",choice,-0.25;1.5;-0.25"
        );
        let values = ReportValues {
            report: 1,
            unbiased_value: Some(1.25),
            option_values: None,
        };
        assert_eq!(csv_tail(QuestionType::YesNo, &values), "1.25,yes_no,");
    }
}

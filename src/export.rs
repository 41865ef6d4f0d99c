//! Streamed exports of the randomized reports (CSV and NDJSON), ordered by record id.

use std::borrow::Cow;

use actix_web::web::Bytes;
use futures_util::stream::{self, Stream};
use randomized_response::unbiased_value;
use serde::Serialize;

use crate::db::responses::{self, ExportRow};
use crate::db::Database;
use crate::domain::{RecordId, SurveyId};
use crate::error::AppError;

/// Responses per page: each page is one short read on the read pool.
const RESPONSES_PER_PAGE: u32 = 512;

pub const COLUMNS: [&str; 6] = [
    "record_id",
    "question_id",
    "epsilon",
    "truth_probability",
    "report",
    "unbiased_value",
];

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

    fn write_header(self, out: &mut Vec<u8>) {
        if let Self::Csv = self {
            out.extend_from_slice(COLUMNS.join(",").as_bytes());
            out.extend_from_slice(b"\n");
        }
    }

    fn write_rows(self, rows: &[ExportRow], out: &mut Vec<u8>) -> Result<(), AppError> {
        for row in rows {
            let record = ExportRecord::from(row);
            match self {
                Self::Csv => {
                    let line = format!(
                        "{},{},{},{},{},{}\n",
                        record.record_id,
                        record.question_id,
                        record.epsilon,
                        record.truth_probability,
                        record.report,
                        record.unbiased_value
                    );
                    out.extend_from_slice(line.as_bytes());
                }
                Self::Ndjson => {
                    serde_json::to_writer(&mut *out, &record).map_err(AppError::internal)?;
                    out.push(b'\n');
                }
            }
        }
        Ok(())
    }
}

/// One row of an export: a line of the NDJSON, a row of the CSV.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ExportRecord {
    /// Hex SHA-256 of the response id: names a response's rows, and (unlike the response
    /// id) cannot be used to submit it again.
    #[schema(pattern = "^[0-9a-f]{64}$")]
    record_id: String,
    question_id: i64,
    epsilon: f64,
    truth_probability: f64,
    /// The randomized report: 1 = yes, 0 = no.
    #[schema(minimum = 0, maximum = 1)]
    report: u8,
    /// (report − (1 − p)) / (2p − 1): its mean is an unbiased estimate of the "yes" share.
    unbiased_value: f64,
}

impl From<&ExportRow> for ExportRecord {
    fn from(row: &ExportRow) -> Self {
        Self {
            record_id: row.record_id.to_hex(),
            question_id: row.question_id.get(),
            epsilon: row.level.epsilon(),
            truth_probability: row.level.truth_probability(),
            report: row.report,
            unbiased_value: unbiased_value(row.report == 1, row.level),
        }
    }
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
    format: ExportFormat,
    after: Option<RecordId>,
    header_written: bool,
    finished: bool,
}

/// The export as a stream of chunks, one page of responses per chunk (keyset pagination,
/// so memory stays flat whatever the survey's size).
pub fn stream_export(
    db: Database,
    survey_id: SurveyId,
    format: ExportFormat,
) -> impl Stream<Item = Result<Bytes, AppError>> {
    let cursor = Cursor {
        db,
        survey_id,
        format,
        after: None,
        header_written: false,
        finished: false,
    };
    stream::try_unfold(cursor, |mut cursor| async move {
        if cursor.finished {
            return Ok(None);
        }
        let mut chunk = Vec::new();
        if !cursor.header_written {
            cursor.format.write_header(&mut chunk);
            cursor.header_written = true;
        }
        let (survey_id, after) = (cursor.survey_id, cursor.after);
        let rows = cursor
            .db
            .read(move |connection| {
                responses::export_page(connection, survey_id, after.as_ref(), RESPONSES_PER_PAGE)
            })
            .await?;
        match rows.last() {
            None => cursor.finished = true,
            Some(last) => {
                cursor.after = Some(last.record_id);
                cursor.format.write_rows(&rows, &mut chunk)?;
            }
        }
        if chunk.is_empty() {
            return Ok(None);
        }
        Ok(Some((Bytes::from(chunk), cursor)))
    })
}

#[cfg(test)]
mod tests {
    use super::spreadsheet_safe;

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
}

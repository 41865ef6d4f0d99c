//! The layout of a stored response: its reports (and grouping answers) packed in one value,
//! one B-tree entry per response instead of one per report
//! (migrations/sqlite/0002_privacy_at_rest.sql).

use randomized_response::PrivacyLevel;

use crate::domain::{QuestionId, StoredGrouping, StoredReport};
use crate::error::AppError;

/// The privacy level of a stored ε (checked again: the column is only a number).
pub fn stored_level(epsilon: f64) -> Result<PrivacyLevel, AppError> {
    PrivacyLevel::new(epsilon)
        .map_err(|error| AppError::internal_context(format!("stored ε {epsilon}"), error))
}

/// The first byte of a stored `reports` value: the layout below.
const REPORTS_FORMAT: u8 = 1;
/// Question id (i64), ε (f64), report (u8).
const REPORT_BYTES: usize = 8 + 8 + 1;

/// The reports of one response in question order, as one value: one B-tree entry per
/// response instead of one per report.
pub fn encode_reports(reports: &[StoredReport]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(1 + REPORT_BYTES * reports.len());
    bytes.push(REPORTS_FORMAT);
    for report in reports {
        bytes.extend_from_slice(&report.question_id.get().to_le_bytes());
        bytes.extend_from_slice(&report.level.epsilon().to_le_bytes());
        bytes.push(report.report);
    }
    bytes
}

/// The first byte of a response with grouping answers: format 2, then the number of
/// reports (one byte), the reports as in format 1, then [`GROUPING_BYTES`] per grouping
/// answer. Grouping answers are not randomized; they live in this one value with the
/// reports, so they are stored, reordered by compaction and deleted exactly as reports are
/// (docs/design.md, invariant 8).
const GROUPED_FORMAT: u8 = 2;
/// Question id (i64), answer (u8).
const GROUPING_BYTES: usize = 8 + 1;

/// A response's reports and grouping answers as one value: format 1 (the first release's
/// layout) when there are no grouping answers, format 2 otherwise.
pub fn encode_response(reports: &[StoredReport], groupings: &[StoredGrouping]) -> Vec<u8> {
    if groupings.is_empty() {
        return encode_reports(reports);
    }
    let mut bytes =
        Vec::with_capacity(2 + REPORT_BYTES * reports.len() + GROUPING_BYTES * groupings.len());
    bytes.push(GROUPED_FORMAT);
    bytes.push(u8::try_from(reports.len()).unwrap_or(u8::MAX));
    bytes.extend_from_slice(&encode_reports(reports)[1..]);
    for grouping in groupings {
        bytes.extend_from_slice(&grouping.question_id.get().to_le_bytes());
        bytes.push(grouping.answer);
    }
    bytes
}

/// A stored response's reports and grouping answers (none in format 1).
pub fn decode_response(bytes: &[u8]) -> Result<(Vec<StoredReport>, Vec<StoredGrouping>), AppError> {
    let corrupt = || AppError::internal("a stored response's reports are malformed");
    match bytes.first() {
        Some(&GROUPED_FORMAT) => {
            let count = usize::from(*bytes.get(1).ok_or_else(corrupt)?);
            let reports_end = 2 + count * REPORT_BYTES;
            let groupings = bytes.get(reports_end..).ok_or_else(corrupt)?;
            if groupings.is_empty() || groupings.len() % GROUPING_BYTES != 0 {
                return Err(corrupt());
            }
            let reports = decode_report_chunks(&bytes[2..reports_end])?;
            let groupings = groupings
                .chunks_exact(GROUPING_BYTES)
                .map(|chunk| {
                    let (id, answer) = chunk.split_at(8);
                    let id = i64::from_le_bytes(id.try_into().map_err(|_| corrupt())?);
                    if usize::from(answer[0]) >= randomized_response::MAX_OPTIONS {
                        return Err(corrupt());
                    }
                    Ok(StoredGrouping {
                        question_id: QuestionId::from_stored(id),
                        answer: answer[0],
                    })
                })
                .collect::<Result<_, AppError>>()?;
            Ok((reports, groupings))
        }
        _ => Ok((decode_reports(bytes)?, Vec::new())),
    }
}

pub fn decode_reports(bytes: &[u8]) -> Result<Vec<StoredReport>, AppError> {
    let corrupt = || AppError::internal("a stored response's reports are malformed");
    let (&format, body) = bytes.split_first().ok_or_else(corrupt)?;
    match format {
        REPORTS_FORMAT => decode_report_chunks(body),
        GROUPED_FORMAT => decode_response(bytes).map(|(reports, _)| reports),
        _ => Err(corrupt()),
    }
}

/// Reports as format 1 lays them out, after its first byte.
fn decode_report_chunks(body: &[u8]) -> Result<Vec<StoredReport>, AppError> {
    let corrupt = || AppError::internal("a stored response's reports are malformed");
    if body.len() % REPORT_BYTES != 0 {
        return Err(corrupt());
    }
    body.chunks_exact(REPORT_BYTES)
        .map(|chunk| {
            let (id, rest) = chunk.split_at(8);
            let (epsilon, report) = rest.split_at(8);
            let id = i64::from_le_bytes(id.try_into().map_err(|_| corrupt())?);
            let epsilon = f64::from_le_bytes(epsilon.try_into().map_err(|_| corrupt())?);
            let report = report[0];
            if usize::from(report) >= randomized_response::MAX_OPTIONS {
                return Err(corrupt());
            }
            Ok(StoredReport {
                question_id: QuestionId::from_stored(id),
                level: stored_level(epsilon)?,
                report,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_round_trip_through_their_stored_form() {
        let reports = vec![
            StoredReport {
                question_id: QuestionId::from_stored(7),
                level: PrivacyLevel::new(1.0986).unwrap(),
                report: 19,
            },
            StoredReport {
                question_id: QuestionId::from_stored(i64::MAX),
                level: PrivacyLevel::new(0.01).unwrap(),
                report: 0,
            },
        ];
        let bytes = encode_reports(&reports);
        assert_eq!(bytes.len(), 1 + 2 * REPORT_BYTES);
        assert_eq!(decode_reports(&bytes).unwrap(), reports);
    }

    #[test]
    fn grouping_answers_round_trip_beside_the_reports_in_format_two() {
        let reports = vec![StoredReport {
            question_id: QuestionId::from_stored(3),
            level: PrivacyLevel::new(1.0).unwrap(),
            report: 1,
        }];
        let groupings = vec![
            StoredGrouping {
                question_id: QuestionId::from_stored(4),
                answer: 2,
            },
            StoredGrouping {
                question_id: QuestionId::from_stored(9),
                answer: 0,
            },
        ];
        let bytes = encode_response(&reports, &groupings);
        assert_eq!(bytes[0], 2);
        assert_eq!(bytes.len(), 2 + REPORT_BYTES + 2 * GROUPING_BYTES);
        assert_eq!(
            decode_response(&bytes).unwrap(),
            (reports.clone(), groupings)
        );
        assert_eq!(decode_reports(&bytes).unwrap(), reports);
        // Without grouping answers, the first release's layout, unchanged.
        assert_eq!(encode_response(&reports, &[]), encode_reports(&reports));
        for bad in [
            &bytes[..bytes.len() - 1],
            &bytes[..2 + REPORT_BYTES],
            &[2, 5][..],
        ] {
            assert!(decode_response(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn malformed_stored_reports_are_an_error_not_a_panic() {
        let mut report_twenty = vec![1; 18];
        report_twenty[9..17].copy_from_slice(&1.0_f64.to_le_bytes());
        report_twenty[17] = 20;
        for bad in [&[][..], &[2], &[1, 0, 0], &[1; 18], &report_twenty] {
            assert!(decode_reports(bad).is_err(), "{bad:?}");
        }
    }
}

//! What the owner's figures are computed from: per cell, the report counts of the responses
//! in the figures (`released_cells`), and the report pairs of every two randomized questions
//! over the same responses (`released_pairs`), for cross-tabulations. Both are kept current
//! in the transactions that release, withdraw and withhold; PostgreSQL also keeps a copy as
//! of the last consideration (`considered_cells`, `considered_pairs`).

use std::collections::BTreeMap;

use super::super::counts::QuestionCounts;
use super::super::sql::{params, Conn, OptionalExtension};
use crate::domain::{QuestionId, StoredReport, SurveyId};
use crate::error::AppError;

pub(super) fn count_from_sql(n: i64) -> Result<u64, AppError> {
    u64::try_from(n).map_err(|_| AppError::internal("a negative count in the release state"))
}

pub(super) fn count_to_sql(n: u64) -> Result<i64, AppError> {
    i64::try_from(n).map_err(|_| AppError::internal("a count past i64 in the release state"))
}

/// One cell in the figures: its grouping answers (one byte per grouping question, in
/// position order; empty without grouping questions), its responses in the figures, and
/// their report counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleasedCell {
    pub cell: Vec<u8>,
    pub n: u64,
    pub counts: Vec<QuestionCounts>,
}

impl ReleasedCell {
    fn empty(cell: &[u8]) -> Self {
        Self {
            cell: cell.to_vec(),
            n: 0,
            counts: Vec::new(),
        }
    }

    /// Adds (`delta` 1) or takes away (`delta` −1) one response's reports.
    pub(super) fn change(&mut self, reports: &[StoredReport], delta: i64) -> Result<(), AppError> {
        self.n = shifted(self.n, delta)?;
        for report in reports {
            let counts = match self
                .counts
                .iter_mut()
                .position(|counts| counts.question_id == report.question_id)
            {
                Some(at) => &mut self.counts[at],
                None => {
                    self.counts.push(QuestionCounts {
                        question_id: report.question_id,
                        counts: Vec::new(),
                    });
                    self.counts.last_mut().expect("just pushed")
                }
            };
            let index = usize::from(report.report);
            if counts.counts.len() <= index {
                counts.counts.resize(index + 1, 0);
            }
            counts.counts[index] = shifted(counts.counts[index], delta)?;
        }
        self.counts.sort_by_key(|counts| counts.question_id);
        Ok(())
    }
}

fn shifted(count: u64, delta: i64) -> Result<u64, AppError> {
    count
        .checked_add_signed(delta)
        .ok_or_else(|| AppError::internal("a released count went below zero"))
}

/// The report pairs of every two randomized questions over a set of responses: for each
/// pair of question ids (the smaller first), the count of each pair of reports. Sparse: only
/// pairs that occurred are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PairTables {
    pairs: BTreeMap<(QuestionId, QuestionId), BTreeMap<(u8, u8), u64>>,
}

/// The first byte of a stored [`PairTables`]: the layout of [`PairTables::encode`].
const PAIRS_FORMAT: u8 = 1;

impl PairTables {
    /// The pairs of one set of responses, each given by its reports.
    pub fn of<'a>(responses: impl IntoIterator<Item = &'a [StoredReport]>) -> Self {
        let mut tables = Self::default();
        for reports in responses {
            tables
                .change(reports, 1)
                .expect("adding never goes below zero");
        }
        tables
    }

    /// Adds (`delta` 1) or takes away (`delta` −1) one response's report pairs.
    pub(super) fn change(&mut self, reports: &[StoredReport], delta: i64) -> Result<(), AppError> {
        for (i, first) in reports.iter().enumerate() {
            for second in &reports[i + 1..] {
                let (a, b) = if first.question_id <= second.question_id {
                    (first, second)
                } else {
                    (second, first)
                };
                let table = self
                    .pairs
                    .entry((a.question_id, b.question_id))
                    .or_default();
                let count = table.entry((a.report, b.report)).or_insert(0);
                *count = shifted(*count, delta)?;
                if *count == 0 {
                    table.remove(&(a.report, b.report));
                }
            }
        }
        self.pairs.retain(|_, table| !table.is_empty());
        Ok(())
    }

    /// The `rows` × `columns` table of the reports of `first` (rows) and `second`
    /// (columns), row-major.
    pub fn table(
        &self,
        first: QuestionId,
        second: QuestionId,
        rows: usize,
        columns: usize,
    ) -> Vec<u64> {
        let mut table = vec![0_u64; rows * columns];
        let flipped = first > second;
        let key = if flipped {
            (second, first)
        } else {
            (first, second)
        };
        if let Some(pairs) = self.pairs.get(&key) {
            for (&(a, b), &count) in pairs {
                let (row, column) = if flipped {
                    (usize::from(b), usize::from(a))
                } else {
                    (usize::from(a), usize::from(b))
                };
                if row < rows && column < columns {
                    table[row * columns + column] += count;
                }
            }
        }
        table
    }

    /// `PAIRS_FORMAT`, then per pair of questions: both ids (i64 LE), the number of report
    /// pairs (u16 LE), and per report pair both reports (u8) and the count (u64 LE).
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut bytes = vec![PAIRS_FORMAT];
        for ((first, second), table) in &self.pairs {
            bytes.extend_from_slice(&first.get().to_le_bytes());
            bytes.extend_from_slice(&second.get().to_le_bytes());
            let entries = u16::try_from(table.len()).expect("at most 20 × 20 report pairs");
            bytes.extend_from_slice(&entries.to_le_bytes());
            for (&(a, b), &count) in table {
                bytes.push(a);
                bytes.push(b);
                bytes.extend_from_slice(&count.to_le_bytes());
            }
        }
        bytes
    }

    pub(super) fn decode(bytes: &[u8]) -> Result<Self, AppError> {
        let corrupt = || AppError::internal("stored report pairs are malformed");
        let mut rest = match bytes.split_first() {
            Some((&PAIRS_FORMAT, rest)) => rest,
            _ => return Err(corrupt()),
        };
        let mut take = |length: usize| -> Result<&[u8], AppError> {
            if rest.len() < length {
                return Err(corrupt());
            }
            let (taken, left) = rest.split_at(length);
            rest = left;
            Ok(taken)
        };
        let id = |raw: &[u8]| -> Result<QuestionId, AppError> {
            Ok(QuestionId::from_stored(i64::from_le_bytes(
                raw.try_into().map_err(|_| corrupt())?,
            )))
        };
        let mut tables = Self::default();
        let mut left = bytes.len() - 1;
        while left > 0 {
            let first = id(take(8)?)?;
            let second = id(take(8)?)?;
            let entries = usize::from(u16::from_le_bytes(
                take(2)?.try_into().map_err(|_| corrupt())?,
            ));
            let table = tables.pairs.entry((first, second)).or_default();
            for _ in 0..entries {
                let reports = take(2)?;
                let (a, b) = (reports[0], reports[1]);
                let count = u64::from_le_bytes(take(8)?.try_into().map_err(|_| corrupt())?);
                table.insert((a, b), count);
            }
            left -= 18 + entries * 10;
        }
        Ok(tables)
    }
}

/// What the owner's figures are computed from: the cells and the report pairs of one set of
/// responses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Figures {
    pub cells: Vec<ReleasedCell>,
    pub pairs: PairTables,
}

impl Figures {
    /// The responses the figures cover.
    pub fn responses(&self) -> u64 {
        self.cells.iter().map(|cell| cell.n).sum()
    }
}

/// Which figures a read takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FiguresAsOf {
    /// As they are now (a closed survey: every withdrawal has taken effect).
    Now,
    /// As of the last consideration (PostgreSQL keeps them for every node).
    LastConsideration,
}

/// The survey's figures `as_of`, cells in cell order.
pub(super) fn read_figures(
    connection: &Conn,
    survey_id: SurveyId,
    as_of: FiguresAsOf,
) -> Result<Figures, AppError> {
    let (cells_sql, pairs_sql) = match as_of {
        FiguresAsOf::Now => (
            "SELECT cell, n, counts FROM released_cells WHERE survey_id = ?1 ORDER BY cell",
            "SELECT pairs FROM released_pairs WHERE survey_id = ?1",
        ),
        FiguresAsOf::LastConsideration => (
            "SELECT cell, n, counts FROM considered_cells WHERE survey_id = ?1 ORDER BY cell",
            "SELECT pairs FROM considered_pairs WHERE survey_id = ?1",
        ),
    };
    let rows = connection
        .prepare_cached(cells_sql)?
        .query_map([survey_id.get()], |row| {
            Ok((
                row.get::<_, Vec<u8>>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let cells = rows
        .into_iter()
        .map(|(cell, n, counts)| {
            Ok(ReleasedCell {
                cell,
                n: count_from_sql(n)?,
                counts: decode_counts(&counts)?,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    let pairs: Option<Vec<u8>> = connection
        .prepare_cached(pairs_sql)?
        .query_row([survey_id.get()], |row| row.get(0))
        .optional()?;
    let pairs = pairs
        .as_deref()
        .map(PairTables::decode)
        .transpose()?
        .unwrap_or_default();
    Ok(Figures { cells, pairs })
}

pub(super) fn read_cell(
    connection: &Conn,
    survey_id: SurveyId,
    cell: &[u8],
) -> Result<ReleasedCell, AppError> {
    let row: Option<(i64, String)> = connection
        .prepare_cached("SELECT n, counts FROM released_cells WHERE survey_id = ?1 AND cell = ?2")?
        .query_row(params![survey_id.get(), cell], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    match row {
        Some((n, counts)) => Ok(ReleasedCell {
            cell: cell.to_vec(),
            n: count_from_sql(n)?,
            counts: decode_counts(&counts)?,
        }),
        None => Ok(ReleasedCell::empty(cell)),
    }
}

pub(super) fn write_cell(
    connection: &Conn,
    survey_id: SurveyId,
    cell: &ReleasedCell,
) -> Result<(), AppError> {
    connection
        .prepare_cached(
            "INSERT INTO released_cells (survey_id, cell, n, counts) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (survey_id, cell) DO UPDATE SET n = excluded.n, counts = excluded.counts",
        )?
        .execute(params![
            survey_id.get(),
            cell.cell.as_slice(),
            count_to_sql(cell.n)?,
            encode_counts(&cell.counts)
        ])?;
    Ok(())
}

pub(super) fn read_pairs(connection: &Conn, survey_id: SurveyId) -> Result<PairTables, AppError> {
    let pairs: Option<Vec<u8>> = connection
        .prepare_cached("SELECT pairs FROM released_pairs WHERE survey_id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))
        .optional()?;
    pairs
        .as_deref()
        .map(PairTables::decode)
        .transpose()
        .map(Option::unwrap_or_default)
}

pub(super) fn write_pairs(
    connection: &Conn,
    survey_id: SurveyId,
    pairs: &PairTables,
) -> Result<(), AppError> {
    connection
        .prepare_cached(
            "INSERT INTO released_pairs (survey_id, pairs) VALUES (?1, ?2)
             ON CONFLICT (survey_id) DO UPDATE SET pairs = excluded.pairs",
        )?
        .execute(params![survey_id.get(), pairs.encode()])?;
    Ok(())
}

/// `[[question id, [count of report 0, …]], …]`.
fn encode_counts(counts: &[QuestionCounts]) -> String {
    let questions: Vec<(i64, &[u64])> = counts
        .iter()
        .map(|question| (question.question_id.get(), question.counts.as_slice()))
        .collect();
    serde_json::to_string(&questions).expect("integers always serialize")
}

fn decode_counts(text: &str) -> Result<Vec<QuestionCounts>, AppError> {
    let questions: Vec<(i64, Vec<u64>)> = serde_json::from_str(text)
        .map_err(|error| AppError::internal_context("a stored release", error))?;
    Ok(questions
        .into_iter()
        .map(|(id, counts)| QuestionCounts {
            question_id: QuestionId::from_stored(id),
            counts,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use randomized_response::PrivacyLevel;

    fn reports(pairs: &[(i64, u8)]) -> Vec<StoredReport> {
        pairs
            .iter()
            .map(|&(id, report)| StoredReport {
                question_id: QuestionId::from_stored(id),
                level: PrivacyLevel::new(1.0).unwrap(),
                report,
            })
            .collect()
    }

    #[test]
    fn stored_counts_read_back_as_they_were_written() {
        let counts = vec![
            QuestionCounts {
                question_id: QuestionId::from_stored(7),
                counts: vec![3, 0, 12],
            },
            QuestionCounts {
                question_id: QuestionId::from_stored(9),
                counts: vec![1, 1],
            },
        ];
        assert_eq!(decode_counts(&encode_counts(&counts)).unwrap(), counts);
        assert!(decode_counts("{").is_err());
    }

    #[test]
    fn pair_tables_count_every_two_questions_and_read_back_as_written() {
        let one = reports(&[(9, 1), (4, 2), (7, 0)]);
        let two = reports(&[(4, 2), (7, 1), (9, 1)]);
        let tables = PairTables::of([one.as_slice(), two.as_slice()]);
        let (four, seven, nine) = (
            QuestionId::from_stored(4),
            QuestionId::from_stored(7),
            QuestionId::from_stored(9),
        );
        // Question 4 (3 reports) against question 7 (2 reports), and the same transposed.
        assert_eq!(tables.table(four, seven, 3, 2), [0, 0, 0, 0, 1, 1]);
        assert_eq!(tables.table(seven, four, 2, 3), [0, 0, 1, 0, 0, 1]);
        assert_eq!(tables.table(nine, seven, 2, 2), [0, 0, 1, 1]);
        assert_eq!(PairTables::decode(&tables.encode()).unwrap(), tables);
        assert!(PairTables::decode(&[2]).is_err());
        assert!(PairTables::decode(&tables.encode()[..20]).is_err());
    }

    #[test]
    fn taking_a_response_away_leaves_the_tables_of_the_others() {
        let one = reports(&[(1, 1), (2, 0)]);
        let two = reports(&[(1, 0), (2, 0)]);
        let mut tables = PairTables::of([one.as_slice(), two.as_slice()]);
        tables.change(&one, -1).unwrap();
        assert_eq!(tables, PairTables::of([two.as_slice()]));
        tables.change(&two, -1).unwrap();
        assert_eq!(tables, PairTables::default());
        assert!(tables.change(&one, -1).is_err(), "nothing to take away");
    }

    #[test]
    fn a_cell_counts_each_report_and_refuses_to_go_below_zero() {
        let mut cell = ReleasedCell::empty(&[1]);
        cell.change(&reports(&[(3, 2), (1, 0)]), 1).unwrap();
        cell.change(&reports(&[(3, 0), (1, 0)]), 1).unwrap();
        assert_eq!(cell.n, 2);
        assert_eq!(cell.counts[0].question_id, QuestionId::from_stored(1));
        assert_eq!(cell.counts[1].counts, [1, 0, 1]);
        cell.change(&reports(&[(3, 2), (1, 0)]), -1).unwrap();
        assert_eq!(cell.counts[1].counts, [1, 0, 0]);
        assert!(cell.change(&reports(&[(3, 2), (1, 0)]), -1).is_err());
    }
}

//! Release state at rest (migrations/sqlite/0009_disclosure.sql; docs/design.md,
//! invariant 11 and "Releases").
//!
//! A survey with grouping questions or invitations shows its owner report-derived figures
//! of released responses only. Each stored response of such a survey starts unreleased
//! (`unreleased_responses`). Releases are *considered* every k (= min_cell) stored
//! responses, counted by `surveys.received`, which a withdrawal never lowers — with
//! invitations also every k redemptions — and when the survey closes. At a consideration
//! every cell (a combination of grouping answers, fixed when the survey opens) holding at
//! least k unreleased responses is released whole: their reports are added to the cell's
//! counts (`released_cells`) and their marks go. Nothing else ever releases anything: a
//! restart, a crash or a second node reads the same state and releases nothing early.
//!
//! All of it runs in the writer's transaction that stores, withdraws, redeems or closes,
//! so the state always agrees with the responses stored. On PostgreSQL the survey's row is
//! updated first in each of them, which locks it until COMMIT: two nodes never consider
//! one survey at once.
//!
//! Also here, for the other surveys: the step of their live pages on PostgreSQL
//! ([`read`], [`write`]; on SQLite it is kept in memory, `crate::live`).

use std::collections::BTreeMap;

use super::counts::responses_counted;
use super::counts::QuestionCounts;
use super::sql::{params, Conn, OptionalExtension};
use super::stored_format::decode_response;
use crate::domain::{QuestionId, RecordId, StoredGrouping, StoredReport, SurveyId};
use crate::error::AppError;

/// A survey's counters as of its last consideration, and the responses received since.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReleaseCounters {
    /// Responses ever stored (a withdrawal never lowers it).
    pub received: u64,
    /// `received` at the last consideration (0 before the first).
    pub considered_at: u64,
    /// Invitations redeemed at the last consideration.
    pub considered_redemptions: u64,
    /// Responses stored at the last consideration.
    pub considered_responses: u64,
    /// Of those, the released ones.
    pub considered_released: u64,
}

/// One released cell: its grouping answers (one byte per grouping question, in position
/// order; empty without grouping questions), its released responses still stored, and
/// their report counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleasedCell {
    pub cell: Vec<u8>,
    pub n: u64,
    pub counts: Vec<QuestionCounts>,
}

fn count_from_sql(n: i64) -> Result<u64, AppError> {
    u64::try_from(n).map_err(|_| AppError::internal("a negative count in the release state"))
}

fn count_to_sql(n: u64) -> Result<i64, AppError> {
    i64::try_from(n).map_err(|_| AppError::internal("a count past i64 in the release state"))
}

/// The survey's release counters.
pub fn counters(connection: &Conn, survey_id: SurveyId) -> Result<ReleaseCounters, AppError> {
    let row: (i64, i64, i64, i64, i64) = connection
        .prepare_cached(
            "SELECT received, considered_at, considered_redemptions, considered_responses,
                    considered_released
             FROM surveys WHERE id = ?1",
        )?
        .query_row([survey_id.get()], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    Ok(ReleaseCounters {
        received: count_from_sql(row.0)?,
        considered_at: count_from_sql(row.1)?,
        considered_redemptions: count_from_sql(row.2)?,
        considered_responses: count_from_sql(row.3)?,
        considered_released: count_from_sql(row.4)?,
    })
}

/// Which released cells a read takes: as they are now, or as of the last consideration
/// (PostgreSQL keeps those for every node; SQLite's server keeps them in memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellsAsOf {
    Now,
    LastConsideration,
}

/// Every released cell of the survey, in cell order.
pub fn released_cells(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<Vec<ReleasedCell>, AppError> {
    cells(connection, survey_id, CellsAsOf::Now)
}

fn cells(
    connection: &Conn,
    survey_id: SurveyId,
    as_of: CellsAsOf,
) -> Result<Vec<ReleasedCell>, AppError> {
    let statement = connection.prepare_cached(match as_of {
        CellsAsOf::Now => {
            "SELECT cell, n, counts FROM released_cells WHERE survey_id = ?1 ORDER BY cell"
        }
        CellsAsOf::LastConsideration => {
            "SELECT cell, n, counts FROM considered_cells WHERE survey_id = ?1 ORDER BY cell"
        }
    })?;
    let rows = statement
        .query_map([survey_id.get()], |row| {
            Ok((
                row.get::<_, Vec<u8>>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    rows.into_iter()
        .map(|(cell, n, counts)| {
            Ok(ReleasedCell {
                cell,
                n: count_from_sql(n)?,
                counts: decode_counts(&counts)?,
            })
        })
        .collect()
}

/// The survey's responses not released (yet, or at close for good: withheld).
pub fn unreleased_count(connection: &Conn, survey_id: SurveyId) -> Result<u64, AppError> {
    let n: i64 = connection
        .prepare_cached("SELECT count(*) FROM unreleased_responses WHERE survey_id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))?;
    count_from_sql(n)
}

/// The record ids of the survey's unreleased responses (the disclosure auditor compares the
/// owner's figures with the responses released: `tests/api/disclosure/`).
pub fn unreleased_records(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<std::collections::HashSet<RecordId>, AppError> {
    connection
        .prepare_cached("SELECT record_id FROM unreleased_responses WHERE survey_id = ?1")?
        .query_map([survey_id.get()], |row| row.get::<_, Vec<u8>>(0))?
        .map(|bytes| Ok(RecordId::from_stored(&bytes?)?))
        .collect()
}

/// What a consideration needs to know of the survey: k, whether it requires invitations,
/// and the counters, read while the survey's row is locked (on PostgreSQL, by the UPDATE).
struct Locked {
    min_cell: u64,
    requires_invitation: bool,
    counters: ReleaseCounters,
}

/// Adds `received` to the survey's count of responses ever stored (0: only locks the row)
/// and reads what a consideration needs.
fn lock_survey(connection: &Conn, survey_id: SurveyId, received: i64) -> Result<Locked, AppError> {
    let row: (i64, bool, i64, i64, i64, i64, i64) = connection
        .prepare_cached(
            "UPDATE surveys SET received = received + ?2 WHERE id = ?1
             RETURNING min_cell, requires_invitation, received, considered_at,
                       considered_redemptions, considered_responses, considered_released",
        )?
        .query_row(params![survey_id.get(), received], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
                row.get(6)?,
            ))
        })
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    Ok(Locked {
        // Surveys made before the floor of 5 keep working with 5 (`MinCell::from_stored`).
        min_cell: u64::from(
            crate::domain::MinCell::from_stored(u32::try_from(row.0).unwrap_or(u32::MAX)).get(),
        ),
        requires_invitation: row.1,
        counters: ReleaseCounters {
            received: count_from_sql(row.2)?,
            considered_at: count_from_sql(row.3)?,
            considered_redemptions: count_from_sql(row.4)?,
            considered_responses: count_from_sql(row.5)?,
            considered_released: count_from_sql(row.6)?,
        },
    })
}

/// Invitations of the survey redeemed so far.
fn redeemed(connection: &Conn, survey_id: SurveyId) -> Result<u64, AppError> {
    let n: i64 = connection
        .prepare_cached("SELECT count(*) FROM redemptions WHERE survey_id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))?;
    count_from_sql(n)
}

fn requires_invitation(connection: &Conn, survey_id: SurveyId) -> Result<bool, AppError> {
    Ok(connection
        .prepare_cached("SELECT requires_invitation FROM surveys WHERE id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))?)
}

/// Whether releases are considered now: at least `k` responses received since the last
/// consideration (`last`: received and redeemed then) and, for a survey that requires
/// invitations, at least `k` redemptions too. (At close they are considered whatever.)
pub fn consideration_due(k: u64, last: (u64, u64), now: (u64, u64), invitations: bool) -> bool {
    let ((received_then, redeemed_then), (received, redeemed)) = (last, now);
    received >= received_then + k && (!invitations || redeemed >= redeemed_then + k)
}

/// [`consideration_due`] for a survey whose row is locked.
fn due(connection: &Conn, survey_id: SurveyId, locked: &Locked) -> Result<bool, AppError> {
    let counters = locked.counters;
    if counters.received < counters.considered_at + locked.min_cell {
        return Ok(false);
    }
    let redeemed = if locked.requires_invitation {
        redeemed(connection, survey_id)?
    } else {
        0
    };
    Ok(consideration_due(
        locked.min_cell,
        (counters.considered_at, counters.considered_redemptions),
        (counters.received, redeemed),
        locked.requires_invitation,
    ))
}

/// In the transaction that stores a new response of a survey that shows its owner
/// released responses only: the response starts unreleased, counts as received, and a
/// consideration runs if one is due.
pub fn record_arrival(
    connection: &Conn,
    survey_id: SurveyId,
    record_id: &RecordId,
) -> Result<(), AppError> {
    connection
        .prepare_cached("INSERT INTO unreleased_responses (survey_id, record_id) VALUES (?1, ?2)")?
        .execute(params![survey_id.get(), record_id.as_bytes()])?;
    let locked = lock_survey(connection, survey_id, 1)?;
    if due(connection, survey_id, &locked)? {
        consider(connection, survey_id, &locked)?;
    }
    Ok(())
}

/// In the transaction that redeems an invitation: a consideration runs if one is due (it
/// may have waited for redemptions).
pub fn record_redemption(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    let locked = lock_survey(connection, survey_id, 0)?;
    if due(connection, survey_id, &locked)? {
        consider(connection, survey_id, &locked)?;
    }
    Ok(())
}

/// In the close step's transaction: the last consideration. Cells with at least k
/// unreleased responses are released; the rest stay withheld for good.
pub fn consider_at_close(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    let locked = lock_survey(connection, survey_id, 0)?;
    consider(connection, survey_id, &locked)
}

/// In the transaction that withdraws a response: of a survey that shows released responses
/// only, an unreleased response loses its mark and a released one leaves its cell's
/// counts (nothing for other surveys).
pub fn record_withdrawal(
    connection: &Conn,
    survey_id: SurveyId,
    record_id: &RecordId,
    reports: &[StoredReport],
    groupings: &[StoredGrouping],
) -> Result<(), AppError> {
    let unmarked = connection
        .prepare_cached("DELETE FROM unreleased_responses WHERE survey_id = ?1 AND record_id = ?2")?
        .execute(params![survey_id.get(), record_id.as_bytes()])?;
    if unmarked == 1 {
        return Ok(());
    }
    let order = grouping_order(connection, survey_id)?;
    let requires_invitation: bool = connection
        .prepare_cached("SELECT requires_invitation FROM surveys WHERE id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))?;
    if order.is_empty() && !requires_invitation {
        return Ok(());
    }
    let cell = cell_of(&order, groupings);
    let mut released = read_cell(connection, survey_id, &cell)?
        .ok_or_else(|| AppError::internal("a released response without its released cell"))?;
    released.n = released
        .n
        .checked_sub(1)
        .ok_or_else(|| AppError::internal("a released cell counted below zero"))?;
    for report in reports {
        let counts = released
            .counts
            .iter_mut()
            .find(|counts| counts.question_id == report.question_id)
            .ok_or_else(|| AppError::internal("a released report its cell never counted"))?;
        let count = counts
            .counts
            .get_mut(usize::from(report.report))
            .filter(|count| **count > 0)
            .ok_or_else(|| AppError::internal("a released report counted below zero"))?;
        *count -= 1;
    }
    write_cell(connection, survey_id, &released)
}

/// The ids of the survey's grouping questions, in position order: the bytes of a cell.
fn grouping_order(connection: &Conn, survey_id: SurveyId) -> Result<Vec<QuestionId>, AppError> {
    let ids = connection
        .prepare_cached(
            "SELECT id FROM questions
             WHERE survey_id = ?1 AND coalesce(design ->> 'type', 'yes_no') = 'grouping'
             ORDER BY position",
        )?
        .query_map([survey_id.get()], |row| row.get::<_, i64>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ids.into_iter().map(QuestionId::from_stored).collect())
}

/// A response's cell, as [`crate::domain::Survey::cell_of`] makes it.
fn cell_of(order: &[QuestionId], answers: &[StoredGrouping]) -> Vec<u8> {
    order
        .iter()
        .map(|id| {
            answers
                .iter()
                .find(|answer| answer.question_id == *id)
                .map_or(u8::MAX, |answer| answer.answer)
        })
        .collect()
}

fn read_cell(
    connection: &Conn,
    survey_id: SurveyId,
    cell: &[u8],
) -> Result<Option<ReleasedCell>, AppError> {
    let row: Option<(i64, String)> = connection
        .prepare_cached("SELECT n, counts FROM released_cells WHERE survey_id = ?1 AND cell = ?2")?
        .query_row(params![survey_id.get(), cell], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    row.map(|(n, counts)| {
        Ok(ReleasedCell {
            cell: cell.to_vec(),
            n: count_from_sql(n)?,
            counts: decode_counts(&counts)?,
        })
    })
    .transpose()
}

fn write_cell(connection: &Conn, survey_id: SurveyId, cell: &ReleasedCell) -> Result<(), AppError> {
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

/// The unreleased responses of one cell, gathered by a consideration.
#[derive(Default)]
struct Waiting {
    records: Vec<Vec<u8>>,
    counts: BTreeMap<QuestionId, Vec<u64>>,
}

/// A consideration: every cell with at least k unreleased responses is released whole, and
/// the survey's counters record it. Runs in the caller's transaction with the survey's row
/// locked ([`lock_survey`]).
fn consider(connection: &Conn, survey_id: SurveyId, locked: &Locked) -> Result<(), AppError> {
    let order = grouping_order(connection, survey_id)?;
    let mut cells: BTreeMap<Vec<u8>, Waiting> = BTreeMap::new();
    connection
        .prepare_cached(
            "SELECT unreleased_responses.record_id, all_responses.reports
             FROM unreleased_responses JOIN all_responses
                 ON all_responses.survey_id = unreleased_responses.survey_id
                 AND all_responses.record_id = unreleased_responses.record_id
             WHERE unreleased_responses.survey_id = ?1",
        )?
        .for_each_row([survey_id.get()], |row| {
            let record_id: Vec<u8> = row.get(0)?;
            let (reports, groupings) = decode_response(&row.get::<_, Vec<u8>>(1)?)?;
            let waiting = cells.entry(cell_of(&order, &groupings)).or_default();
            waiting.records.push(record_id);
            for report in reports {
                let counts = waiting.counts.entry(report.question_id).or_default();
                let index = usize::from(report.report);
                if counts.len() <= index {
                    counts.resize(index + 1, 0);
                }
                counts[index] += 1;
            }
            Ok::<_, AppError>(())
        })?;
    let mut still_unreleased = 0_u64;
    for (cell, waiting) in cells {
        let size = waiting.records.len() as u64;
        if size < locked.min_cell {
            still_unreleased += size;
            continue;
        }
        let mut released = read_cell(connection, survey_id, &cell)?.unwrap_or(ReleasedCell {
            cell: cell.clone(),
            n: 0,
            counts: Vec::new(),
        });
        released.n += size;
        for (question_id, counts) in waiting.counts {
            match released
                .counts
                .iter_mut()
                .find(|kept| kept.question_id == question_id)
            {
                Some(kept) => {
                    if kept.counts.len() < counts.len() {
                        kept.counts.resize(counts.len(), 0);
                    }
                    for (total, count) in kept.counts.iter_mut().zip(counts) {
                        *total += count;
                    }
                }
                None => released.counts.push(QuestionCounts {
                    question_id,
                    counts,
                }),
            }
        }
        released.counts.sort_by_key(|counts| counts.question_id);
        write_cell(connection, survey_id, &released)?;
        let unmark = connection.prepare_cached(
            "DELETE FROM unreleased_responses WHERE survey_id = ?1 AND record_id = ?2",
        )?;
        for record_id in &waiting.records {
            unmark.execute(params![survey_id.get(), record_id.as_slice()])?;
        }
    }
    connection
        .rules()
        .share_consideration(connection, survey_id)?;
    let stored = responses_counted(connection, survey_id)?;
    let redeemed = if locked.requires_invitation {
        redeemed(connection, survey_id)?
    } else {
        0
    };
    connection
        .prepare_cached(
            "UPDATE surveys SET considered_at = received, considered_redemptions = ?2,
                                considered_responses = ?3, considered_released = ?4
             WHERE id = ?1",
        )?
        .execute(params![
            survey_id.get(),
            count_to_sql(redeemed)?,
            count_to_sql(stored)?,
            count_to_sql(stored.saturating_sub(still_unreleased))?
        ])?;
    Ok(())
}

/// A survey's release state read in one transaction, so that its parts agree.
#[derive(Debug, Clone, Default)]
pub struct ReleaseState {
    pub counters: ReleaseCounters,
    /// Responses stored now.
    pub stored: u64,
    /// Of those, not released (withheld once the survey has closed).
    pub unreleased: u64,
    /// Invitations redeemed now.
    pub redeemed: u64,
    /// The released cells, when asked for.
    pub cells: Option<Vec<ReleasedCell>>,
}

/// The survey's release state; its released cells too (`as_of`) when `want_cells` says so
/// given the counters (a snapshot kept in memory may still be current).
pub fn state(
    connection: &Conn,
    survey_id: SurveyId,
    as_of: CellsAsOf,
    want_cells: impl FnOnce(&ReleaseCounters) -> bool,
) -> Result<ReleaseState, AppError> {
    connection.execute_batch(connection.rules().begin_snapshot())?;
    let state = (|| {
        let counters = counters(connection, survey_id)?;
        let cells = if want_cells(&counters) {
            Some(cells(connection, survey_id, as_of)?)
        } else {
            None
        };
        Ok(ReleaseState {
            counters,
            stored: responses_counted(connection, survey_id)?,
            unreleased: unreleased_count(connection, survey_id)?,
            redeemed: if requires_invitation(connection, survey_id)? {
                redeemed(connection, survey_id)?
            } else {
                0
            },
            cells,
        })
    })();
    // A read transaction: ending it changes nothing either way.
    let _ = connection.execute_batch("COMMIT");
    state
}

// --- the live pages' steps of surveys that show every response, on PostgreSQL ------------

/// One step of a survey's live pages as stored on PostgreSQL: the responses when it was
/// made, and the counts it published (`None`: nothing yet).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredRelease {
    pub responses: u64,
    pub counts: Option<Vec<QuestionCounts>>,
}

/// The live pages' step of the survey.
pub fn read(connection: &Conn, survey_id: SurveyId) -> Result<Option<StoredRelease>, AppError> {
    let row: Option<(i64, Option<String>)> = connection
        .prepare_cached("SELECT responses, counts FROM releases WHERE survey_id = ?1 AND view = 0")?
        .query_row([survey_id.get()], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    let Some((responses, counts)) = row else {
        return Ok(None);
    };
    Ok(Some(StoredRelease {
        responses: count_from_sql(responses)?,
        counts: counts.as_deref().map(decode_counts).transpose()?,
    }))
}

/// Makes `release` the live pages' step of the survey.
pub fn write(
    connection: &Conn,
    survey_id: SurveyId,
    release: &StoredRelease,
) -> Result<(), AppError> {
    connection.execute(
        "INSERT INTO releases (survey_id, view, responses, redemptions, counts)
         VALUES (?1, 0, ?2, 0, ?3)
         ON CONFLICT (survey_id, view) DO UPDATE SET responses = excluded.responses,
             counts = excluded.counts",
        params![
            survey_id.get(),
            count_to_sql(release.responses)?,
            release.counts.as_ref().map(|counts| encode_counts(counts))
        ],
    )?;
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
    fn releases_are_considered_every_k_received_and_with_invitations_every_k_redeemed_too() {
        assert!(!consideration_due(5, (0, 0), (4, 9), true));
        assert!(!consideration_due(5, (0, 0), (9, 4), true));
        assert!(consideration_due(5, (0, 0), (5, 5), true));
        assert!(consideration_due(5, (0, 0), (5, 0), false));
        assert!(!consideration_due(5, (5, 5), (9, 10), true));
        assert!(consideration_due(5, (5, 5), (10, 10), true));
    }

    #[test]
    fn a_cell_is_the_grouping_answers_in_position_order_whatever_order_they_came_in() {
        let (year, sport) = (QuestionId::from_stored(4), QuestionId::from_stored(9));
        let answers = [
            StoredGrouping {
                question_id: sport,
                answer: 2,
            },
            StoredGrouping {
                question_id: year,
                answer: 0,
            },
        ];
        assert_eq!(cell_of(&[year, sport], &answers), vec![0, 2]);
        assert_eq!(cell_of(&[], &answers), Vec::<u8>::new());
    }
}

//! Releases (migrations 0009 and 0012; docs/design.md, invariant 11 and "Releases"): the one
//! place that decides which stored responses an owner's figures may count, and the only
//! code that reads their counts for the owner (`super::released` hands the figures to the
//! views).
//!
//! Every survey shows its owner report-derived figures of **released** responses only. A
//! stored response starts unreleased (`unreleased_responses`). Releases are *considered*
//! every k (= `min_cell`) stored responses, counted by `surveys.received`, which a withdrawal
//! never lowers — with invitations also every k redemptions — and when the survey closes. At
//! a consideration:
//!
//! 1. **Withdrawals take effect.** A *release* is the responses of one cell (a combination of
//!    grouping answers; one cell without grouping questions) that entered the figures at one
//!    step (`cell_releases`, its members in `release_members`). A release left with 1 to
//!    k − 1 responses that have not withdrawn leaves the figures for good: its responses are
//!    withheld as at close (stored, withdrawable, in no figure and no export), never released
//!    again. The people who withdrew from it left at their withdrawal's step; the ones who
//!    stayed leave now, all in one step, so that no class of alike responses is smaller than
//!    k (the withdrawn ones count in it).
//! 2. **Cells are released.** While the survey is open, a cell whose unreleased responses
//!    number at least k + s (s = max(2, ⌈k/5⌉), so that one or two withdrawals do not withhold
//!    the rest of a release) becomes a new release, whole; at close, one of at least k.
//!
//! Withdrawals also take effect when a closed survey's response withdraws (at once), at a
//! restart on SQLite (`apply_withdrawals_at_start`), and at close. Nothing else ever releases
//! anything: a restart, a crash or a second node reads the same state.
//!
//! All of it runs in the writer's transaction that stores, withdraws, redeems or closes, so the
//! state always agrees with the responses stored. On PostgreSQL the survey's row is updated
//! first in each of them, which locks it until COMMIT: two nodes never consider one survey at
//! once.

mod figures;
mod migration;

use std::collections::BTreeMap;

use figures::{count_from_sql, count_to_sql, read_cell, read_figures, read_pairs, write_cell};
pub use figures::{Figures, FiguresAsOf, PairTables, ReleasedCell};
pub(super) use migration::release_existing_responses_by_cell;

use super::counts::responses_counted;
use super::sql::{params, Conn, OptionalExtension};
use super::stored_format::decode_response;
use crate::domain::{MinCell, QuestionId, RecordId, StoredGrouping, StoredReport, SurveyId};
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
    /// Of those, the ones in the figures.
    pub considered_released: u64,
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

/// The record ids of the survey's responses in the figures now: released, in a release not
/// withheld (the disclosure auditor compares the owner's figures with them:
/// `tests/api/disclosure/`).
pub fn records_in_figures(
    connection: &Conn,
    survey_id: SurveyId,
) -> Result<std::collections::HashSet<RecordId>, AppError> {
    connection
        .prepare_cached(
            "SELECT m.record_id FROM release_members m JOIN cell_releases c
                 ON c.survey_id = m.survey_id AND c.release_id = m.release_id
             WHERE m.survey_id = ?1 AND c.withheld = 0",
        )?
        .query_map([survey_id.get()], |row| row.get::<_, Vec<u8>>(0))?
        .map(|bytes| Ok(RecordId::from_stored(&bytes?)?))
        .collect()
}

/// What a consideration needs to know of the survey, read while its row is locked (on
/// PostgreSQL, by the UPDATE).
struct Locked {
    min_cell: MinCell,
    k: u64,
    requires_invitation: bool,
    open: bool,
    /// Under `results_after_close` a cell's release is its whole release at close.
    results_after_close: bool,
    counters: ReleaseCounters,
}

/// Adds `received` to the survey's count of responses ever stored (0: only locks the row)
/// and reads what a consideration needs.
fn lock_survey(connection: &Conn, survey_id: SurveyId, received: i64) -> Result<Locked, AppError> {
    type Row = (i64, bool, String, i64, i64, i64, i64, i64, bool);
    let row: Row = connection
        .prepare_cached(
            "UPDATE surveys SET received = received + ?2 WHERE id = ?1
             RETURNING min_cell, requires_invitation, status, received, considered_at,
                       considered_redemptions, considered_responses, considered_released,
                       results_after_close",
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
                row.get(7)?,
                row.get(8)?,
            ))
        })
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    // Surveys made before the floor of 5 keep working with 5 (`MinCell::from_stored`).
    let min_cell = MinCell::from_stored(u32::try_from(row.0).unwrap_or(u32::MAX));
    Ok(Locked {
        min_cell,
        k: u64::from(min_cell.get()),
        requires_invitation: row.1,
        open: row.2 == "open",
        results_after_close: row.8,
        counters: ReleaseCounters {
            received: count_from_sql(row.3)?,
            considered_at: count_from_sql(row.4)?,
            considered_redemptions: count_from_sql(row.5)?,
            considered_responses: count_from_sql(row.6)?,
            considered_released: count_from_sql(row.7)?,
        },
    })
}

/// Invitations of the survey redeemed so far.
pub(crate) fn redeemed(connection: &Conn, survey_id: SurveyId) -> Result<u64, AppError> {
    let n: i64 = connection
        .prepare_cached("SELECT count(*) FROM redemptions WHERE survey_id = ?1")?
        .query_row([survey_id.get()], |row| row.get(0))?;
    count_from_sql(n)
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
    if counters.received < counters.considered_at + locked.k {
        return Ok(false);
    }
    let redeemed = if locked.requires_invitation {
        redeemed(connection, survey_id)?
    } else {
        0
    };
    Ok(consideration_due(
        locked.k,
        (counters.considered_at, counters.considered_redemptions),
        (counters.received, redeemed),
        locked.requires_invitation,
    ))
}

/// In the transaction that stores a new response: it starts unreleased, counts as received,
/// and a consideration runs if one is due.
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

/// In the close step's transaction, after the status changed: the last consideration.
/// Withdrawals take effect; cells with at least k unreleased responses are released; the
/// rest stay withheld for good.
pub fn consider_at_close(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    let locked = lock_survey(connection, survey_id, 0)?;
    consider(connection, survey_id, &locked)
}

/// At a SQLite server's start: withdrawals since the last consideration of every open survey
/// take effect (the snapshot of that consideration was in the earlier process's memory).
pub fn apply_withdrawals_at_start(connection: &Conn) -> Result<(), AppError> {
    let open = connection
        .prepare("SELECT id, min_cell FROM surveys WHERE status = 'open'")?
        .query_map((), |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (survey_id, min_cell) in open {
        let survey_id = SurveyId::from_stored(survey_id);
        let k = u64::from(MinCell::from_stored(u32::try_from(min_cell).unwrap_or(u32::MAX)).get());
        if withhold_below_k(connection, survey_id, k)? > 0 {
            record_released(connection, survey_id)?;
        }
    }
    Ok(())
}

/// In the transaction that withdraws a response: an unreleased response loses its mark; a
/// released one leaves its release (and, unless the release was withheld, the figures'
/// counts and pairs). Once the survey is closed, the withdrawal takes effect at once: its
/// release, left with 1 to k − 1 responses, leaves the figures.
pub fn record_withdrawal(
    connection: &Conn,
    survey_id: SurveyId,
    record_id: &RecordId,
    reports: &[StoredReport],
) -> Result<(), AppError> {
    let unmarked = connection
        .prepare_cached("DELETE FROM unreleased_responses WHERE survey_id = ?1 AND record_id = ?2")?
        .execute(params![survey_id.get(), record_id.as_bytes()])?;
    if unmarked == 1 {
        return Ok(());
    }
    let release_id: i64 = connection
        .prepare_cached(
            "DELETE FROM release_members WHERE survey_id = ?1 AND record_id = ?2
             RETURNING release_id",
        )?
        .query_row(params![survey_id.get(), record_id.as_bytes()], |row| {
            row.get(0)
        })
        .optional()?
        .ok_or_else(|| AppError::internal("a stored response neither unreleased nor released"))?;
    let (cell, withheld): (Vec<u8>, bool) = connection
        .prepare_cached(
            "UPDATE cell_releases SET remaining = remaining - 1
             WHERE survey_id = ?1 AND release_id = ?2
             RETURNING cell, withheld",
        )?
        .query_row(params![survey_id.get(), release_id], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?
        .ok_or_else(|| AppError::internal("a released response without its release"))?;
    if withheld {
        return Ok(());
    }
    let mut released = read_cell(connection, survey_id, &cell)?;
    released.change(reports, -1)?;
    write_cell(connection, survey_id, &released)?;
    let mut pairs = read_pairs(connection, survey_id)?;
    pairs.change(reports, -1)?;
    figures::write_pairs(connection, survey_id, &pairs)?;
    let locked = lock_survey(connection, survey_id, 0)?;
    if !locked.open {
        // Closed: the withdrawal takes effect at once.
        withhold_below_k(connection, survey_id, locked.k)?;
        record_released(connection, survey_id)?;
    }
    Ok(())
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

/// A release's responses still stored (its members who have not withdrawn), with their
/// reports.
fn members_reports(
    connection: &Conn,
    survey_id: SurveyId,
    release_id: i64,
) -> Result<Vec<Vec<StoredReport>>, AppError> {
    let mut members = Vec::new();
    connection
        .prepare_cached(
            "SELECT r.reports FROM release_members m JOIN all_responses r
                 ON r.survey_id = m.survey_id AND r.record_id = m.record_id
             WHERE m.survey_id = ?1 AND m.release_id = ?2",
        )?
        .for_each_row(params![survey_id.get(), release_id], |row| {
            let (reports, _) = decode_response(&row.get::<_, Vec<u8>>(0)?)?;
            members.push(reports);
            Ok::<_, AppError>(())
        })?;
    Ok(members)
}

/// The releases in the figures that withdrawals left with 1 to k − 1 responses: (release
/// id, cell).
fn releases_below_k(
    connection: &Conn,
    survey_id: SurveyId,
    k: u64,
) -> Result<Vec<(i64, Vec<u8>)>, AppError> {
    Ok(connection
        .prepare_cached(
            "SELECT release_id, cell FROM cell_releases
             WHERE survey_id = ?1 AND withheld = 0 AND remaining >= 1 AND remaining < ?2",
        )?
        .query_map(params![survey_id.get(), count_to_sql(k)?], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?)
}

/// What taking the releases that withdrawals left below k out of `figures` leaves, without
/// writing anything: the figures a SQLite server shows after a consideration, which its
/// next consideration (or restart, or close) will make so for good. Returns the responses
/// taken out.
pub fn without_releases_below_k(
    connection: &Conn,
    survey_id: SurveyId,
    k: u64,
    figures: &mut Figures,
) -> Result<u64, AppError> {
    let mut taken = 0;
    for (release_id, cell) in releases_below_k(connection, survey_id, k)? {
        let members = members_reports(connection, survey_id, release_id)?;
        let released = figures
            .cells
            .iter_mut()
            .find(|released| released.cell == cell)
            .ok_or_else(|| AppError::internal("a release without its cell in the figures"))?;
        for reports in &members {
            released.change(reports, -1)?;
            figures.pairs.change(reports, -1)?;
        }
        taken += members.len() as u64;
    }
    figures.cells.retain(|cell| cell.n > 0);
    Ok(taken)
}

/// Withholds for good every release in the figures that withdrawals left with 1 to k − 1
/// responses: its responses leave the cell's counts and the pairs. Returns how many
/// releases were withheld.
fn withhold_below_k(connection: &Conn, survey_id: SurveyId, k: u64) -> Result<usize, AppError> {
    let below = releases_below_k(connection, survey_id, k)?;
    if below.is_empty() {
        return Ok(0);
    }
    let mut pairs = read_pairs(connection, survey_id)?;
    for (release_id, cell) in &below {
        let mut released = read_cell(connection, survey_id, cell)?;
        for reports in members_reports(connection, survey_id, *release_id)? {
            released.change(&reports, -1)?;
            pairs.change(&reports, -1)?;
        }
        write_cell(connection, survey_id, &released)?;
        connection
            .prepare_cached(
                "UPDATE cell_releases SET withheld = 1 WHERE survey_id = ?1 AND release_id = ?2",
            )?
            .execute(params![survey_id.get(), *release_id])?;
    }
    figures::write_pairs(connection, survey_id, &pairs)?;
    Ok(below.len())
}

/// The responses in the figures now, recorded as the last consideration's (what the counts
/// of an invitation survey show while it is open).
fn record_released(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    connection
        .prepare_cached(
            "UPDATE surveys SET considered_released = (
                 SELECT coalesce(sum(n), 0) FROM released_cells WHERE survey_id = ?1)
             WHERE id = ?1",
        )?
        .execute([survey_id.get()])?;
    Ok(())
}

/// The unreleased responses of one cell, gathered by a consideration.
#[derive(Default)]
struct Waiting {
    records: Vec<Vec<u8>>,
    reports: Vec<Vec<StoredReport>>,
}

/// A fresh release id: random, so that a copy of the files does not order releases in time.
fn new_release_id() -> Result<i64, AppError> {
    let bytes = crate::crypto::random_bytes::<8>()?;
    // Positive, so that every engine sorts and prints it alike.
    Ok(i64::from_le_bytes(bytes) & i64::MAX)
}

/// Makes the responses of `records` (all of one cell, with their reports) a new release in
/// the figures.
pub(super) fn release(
    connection: &Conn,
    survey_id: SurveyId,
    cell: &[u8],
    records: &[Vec<u8>],
    reports: &[Vec<StoredReport>],
    pairs: &mut PairTables,
) -> Result<(), AppError> {
    let release_id = new_release_id()?;
    let size = count_to_sql(records.len() as u64)?;
    connection
        .prepare_cached(
            "INSERT INTO cell_releases (survey_id, release_id, cell, members, remaining)
             VALUES (?1, ?2, ?3, ?4, ?4)",
        )?
        .execute(params![survey_id.get(), release_id, cell, size])?;
    let member = connection.prepare_cached(
        "INSERT INTO release_members (survey_id, record_id, release_id) VALUES (?1, ?2, ?3)",
    )?;
    let unmark = connection.prepare_cached(
        "DELETE FROM unreleased_responses WHERE survey_id = ?1 AND record_id = ?2",
    )?;
    for record_id in records {
        member.execute(params![survey_id.get(), record_id.as_slice(), release_id])?;
        unmark.execute(params![survey_id.get(), record_id.as_slice()])?;
    }
    let mut released = read_cell(connection, survey_id, cell)?;
    for reports in reports {
        released.change(reports, 1)?;
        pairs.change(reports, 1)?;
    }
    write_cell(connection, survey_id, &released)
}

/// A consideration: withdrawals take effect (releases left below k are withheld for good),
/// then every cell with enough unreleased responses is released whole ([`MinCell::release_threshold`]),
/// and the survey's counters record it. Runs in the caller's transaction with the survey's
/// row locked ([`lock_survey`]).
fn consider(connection: &Conn, survey_id: SurveyId, locked: &Locked) -> Result<(), AppError> {
    withhold_below_k(connection, survey_id, locked.k)?;
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
            waiting.reports.push(reports);
            Ok::<_, AppError>(())
        })?;
    let threshold = locked.min_cell.release_threshold(locked.open);
    // Under results_after_close nothing is released while open: each cell is one release at
    // close, so no withdrawal can withhold part of it before anyone saw it.
    let releasing = !(locked.open && locked.results_after_close);
    let mut pairs = read_pairs(connection, survey_id)?;
    let mut released_any = false;
    for (cell, waiting) in cells {
        if !releasing || (waiting.records.len() as u64) < threshold {
            continue;
        }
        release(
            connection,
            survey_id,
            &cell,
            &waiting.records,
            &waiting.reports,
            &mut pairs,
        )?;
        released_any = true;
    }
    if released_any {
        figures::write_pairs(connection, survey_id, &pairs)?;
    }
    let stored = responses_counted(connection, survey_id)?;
    let redeemed = if locked.requires_invitation {
        redeemed(connection, survey_id)?
    } else {
        0
    };
    connection
        .prepare_cached(
            "UPDATE surveys SET considered_at = received, considered_redemptions = ?2,
                                considered_responses = ?3
             WHERE id = ?1",
        )?
        .execute(params![
            survey_id.get(),
            count_to_sql(redeemed)?,
            count_to_sql(stored)?
        ])?;
    record_released(connection, survey_id)?;
    connection
        .rules()
        .share_consideration(connection, survey_id)?;
    Ok(())
}

/// A survey's release state read in one transaction, so that its parts agree.
#[derive(Debug, Clone, Default)]
pub struct ReleaseState {
    pub counters: ReleaseCounters,
    /// Responses stored now.
    pub stored: u64,
    /// Invitations redeemed now.
    pub redeemed: u64,
    /// The figures, when asked for.
    pub figures: Option<Figures>,
}

/// Which figures a read of the release state takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// [`FiguresAsOf`] as stored.
    Stored(FiguresAsOf),
    /// The figures as they are now, less the releases that withdrawals left below k (a
    /// SQLite server's snapshot of an open survey, taken at its first read after a
    /// consideration).
    NowWithWithdrawals { k: u64 },
}

/// The survey's release state; its figures too when `want_figures` says so given the
/// counters (a snapshot kept in memory may still be current).
pub fn state(
    connection: &Conn,
    survey_id: SurveyId,
    reading: Reading,
    want_figures: impl FnOnce(&ReleaseCounters) -> bool,
) -> Result<ReleaseState, AppError> {
    connection.execute_batch(connection.rules().begin_snapshot())?;
    let state = (|| {
        let counters = counters(connection, survey_id)?;
        let figures = if want_figures(&counters) {
            Some(match reading {
                Reading::Stored(as_of) => read_figures(connection, survey_id, as_of)?,
                Reading::NowWithWithdrawals { k } => {
                    let mut figures = read_figures(connection, survey_id, FiguresAsOf::Now)?;
                    without_releases_below_k(connection, survey_id, k, &mut figures)?;
                    figures
                }
            })
        } else {
            None
        };
        let requires_invitation: bool = connection
            .prepare_cached("SELECT requires_invitation FROM surveys WHERE id = ?1")?
            .query_row([survey_id.get()], |row| row.get(0))?;
        Ok(ReleaseState {
            counters,
            stored: responses_counted(connection, survey_id)?,
            redeemed: if requires_invitation {
                redeemed(connection, survey_id)?
            } else {
                0
            },
            figures,
        })
    })();
    // A read transaction: ending it changes nothing either way.
    let _ = connection.execute_batch("COMMIT");
    state
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn an_open_cell_needs_k_plus_a_margin_for_withdrawals_and_a_closing_one_k() {
        // s = max(2, ⌈k/5⌉).
        let threshold = |k, open| MinCell::parse(k).unwrap().release_threshold(open);
        assert_eq!(threshold(5, true), 7);
        assert_eq!(threshold(10, true), 12);
        assert_eq!(threshold(11, true), 14);
        assert_eq!(threshold(100, true), 120);
        assert_eq!(threshold(5, false), 5);
        assert_eq!(threshold(10, false), 10);
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

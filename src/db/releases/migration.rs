//! Migration 0012's data step: every survey that collected responses gets its releases.
//!
//! How earlier considerations batched the responses they released was never recorded, so
//! the responses already released in a cell become one release of that cell. A survey
//! without grouping questions or invitations was outside the model until now: everything it
//! stored becomes one release, considered at its current count (`received` = its stored
//! responses); one made with fewer than k responses stays in the figures as it is until one
//! of them withdraws (docs/design.md, "Releases"). Responses not yet released stay waiting.

use std::collections::BTreeMap;

use super::super::sql::Conn;
use super::super::stored_format::decode_response;
use super::{cell_of, grouping_order, record_released, release, PairTables};
use crate::domain::{StoredReport, SurveyId};
use crate::error::AppError;

/// Released responses of one cell: their record ids and reports.
type CellMembers = (Vec<Vec<u8>>, Vec<Vec<StoredReport>>);

pub(in crate::db) fn release_existing_responses_by_cell(connection: &Conn) -> Result<(), AppError> {
    let surveys = connection
        .prepare(
            "SELECT id, requires_invitation, status,
                    EXISTS (SELECT 1 FROM questions
                            WHERE questions.survey_id = surveys.id
                              AND coalesce(design ->> 'type', 'yes_no') = 'grouping')
             FROM surveys WHERE status <> 'draft'",
        )?
        .query_map((), |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, bool>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, bool>(3)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    for (id, requires_invitation, status, has_groupings) in surveys {
        let survey_id = SurveyId::from_stored(id);
        let was_in_model = requires_invitation || has_groupings;
        let order = grouping_order(connection, survey_id)?;
        let mut cells: BTreeMap<Vec<u8>, CellMembers> = BTreeMap::new();
        connection
            .prepare(
                "SELECT r.record_id, r.reports FROM all_responses r
                 WHERE r.survey_id = ?1
                   AND NOT EXISTS (SELECT 1 FROM unreleased_responses u
                                   WHERE u.survey_id = r.survey_id AND u.record_id = r.record_id)",
            )?
            .for_each_row([id], |row| {
                let record_id: Vec<u8> = row.get(0)?;
                let (reports, groupings) = decode_response(&row.get::<_, Vec<u8>>(1)?)?;
                let (records, all_reports) = cells.entry(cell_of(&order, &groupings)).or_default();
                records.push(record_id);
                all_reports.push(reports);
                Ok::<_, AppError>(())
            })?;
        // The cells' counts are made again from the releases.
        connection.execute("DELETE FROM released_cells WHERE survey_id = ?1", [id])?;
        let mut pairs = PairTables::default();
        for (cell, (records, reports)) in &cells {
            release(connection, survey_id, cell, records, reports, &mut pairs)?;
        }
        super::figures::write_pairs(connection, survey_id, &pairs)?;
        if !was_in_model {
            // Considered now, at everything it stored.
            connection.execute(
                "UPDATE surveys SET
                     received = (SELECT count(*) FROM all_responses WHERE survey_id = ?1),
                     considered_at = (SELECT count(*) FROM all_responses WHERE survey_id = ?1),
                     considered_responses =
                         (SELECT count(*) FROM all_responses WHERE survey_id = ?1)
                 WHERE id = ?1",
                [id],
            )?;
        }
        record_released(connection, survey_id)?;
        if status == "open" {
            connection
                .rules()
                .share_consideration(connection, survey_id)?;
        }
    }
    Ok(())
}

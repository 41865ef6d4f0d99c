//! The tallies results are read from: `report_counts` per (question, report) and
//! `grouped_report_counts` per (grouping answer, question, report), kept as responses are
//! stored and withdrawn, so that results cost the same at any number of responses.
//!
//! The writer sums the changes of a group's submissions and writes each key's sum once,
//! before the group's COMMIT ([`flush_group_counts`]): a group of 100 three-question
//! submissions to one survey is one upsert of six rows, not 100 upserts of three.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::sql::{Conn, ToValue};
use crate::domain::{StoredGrouping, StoredReport};
use crate::error::AppError;

/// A tally table and the columns of its key (constants, never input).
struct Tally {
    table: &'static str,
    key_columns: &'static str,
}

const REPORT_COUNTS: Tally = Tally {
    table: "report_counts",
    key_columns: "question_id, report",
};
const GROUPED_COUNTS: Tally = Tally {
    table: "grouped_report_counts",
    key_columns: "grouping_id, answer, question_id, report",
};

/// Rows per multi-row upsert of summed counts (5 values each at most, far below SQLite's
/// limit on bound values).
const SUMS_PER_STATEMENT: usize = 500;

/// Adds `change` (1 or −1) to the counts of one response: one statement per table (each
/// question appears once in a response, so no row is hit twice).
pub fn count_response(
    connection: &Conn,
    reports: &[StoredReport],
    groupings: &[StoredGrouping],
    change: i64,
) -> Result<(), AppError> {
    add_to_counts(connection, &REPORT_COUNTS, &report_keys(reports), change)?;
    add_to_counts(
        connection,
        &GROUPED_COUNTS,
        &grouped_keys(reports, groupings),
        change,
    )
}

/// Counts a newly stored response: with the rest of its group when the writer is summing
/// one ([`start_job_counts`]), at once otherwise.
pub fn count_with_group(
    connection: &Conn,
    reports: &[StoredReport],
    groupings: &[StoredGrouping],
) -> Result<(), AppError> {
    let summed = GROUP_SUMS.with(|sums| match sums.borrow_mut().as_mut() {
        Some(sums) => {
            sums.job.add(reports, groupings);
            true
        }
        None => false,
    });
    if summed {
        Ok(())
    } else {
        count_response(connection, reports, groupings, 1)
    }
}

fn report_keys(reports: &[StoredReport]) -> Vec<[i64; 2]> {
    reports
        .iter()
        .map(|report| [report.question_id.get(), i64::from(report.report)])
        .collect()
}

fn grouped_keys(reports: &[StoredReport], groupings: &[StoredGrouping]) -> Vec<[i64; 4]> {
    groupings
        .iter()
        .flat_map(|grouping| {
            reports.iter().map(move |report| {
                [
                    grouping.question_id.get(),
                    i64::from(grouping.answer),
                    report.question_id.get(),
                    i64::from(report.report),
                ]
            })
        })
        .collect()
}

/// Counts added by responses, per key, not yet written.
#[derive(Default)]
struct Sums {
    reports: BTreeMap<[i64; 2], i64>,
    grouped: BTreeMap<[i64; 4], i64>,
}

impl Sums {
    fn add(&mut self, reports: &[StoredReport], groupings: &[StoredGrouping]) {
        for key in report_keys(reports) {
            *self.reports.entry(key).or_default() += 1;
        }
        for key in grouped_keys(reports, groupings) {
            *self.grouped.entry(key).or_default() += 1;
        }
    }

    fn absorb(&mut self, other: Sums) {
        for (key, n) in other.reports {
            *self.reports.entry(key).or_default() += n;
        }
        for (key, n) in other.grouped {
            *self.grouped.entry(key).or_default() += n;
        }
    }
}

/// The group's sums, and the running job's apart until its savepoint is kept.
#[derive(Default)]
struct GroupSums {
    group: Sums,
    job: Sums,
}

thread_local! {
    /// On the writer's thread while it runs a group's submissions; `None` everywhere else,
    /// where responses are counted at once.
    static GROUP_SUMS: RefCell<Option<GroupSums>> = const { RefCell::new(None) };
}

/// The writer, before a submission's job: its counts join the group's sums (if it keeps
/// its changes, [`end_job_counts`]).
pub(super) fn start_job_counts() {
    GROUP_SUMS.with(|sums| {
        sums.borrow_mut().get_or_insert_with(GroupSums::default).job = Sums::default()
    });
}

/// The writer, after a job: a kept job's counts join the group's, a rolled-back job's go.
pub(super) fn end_job_counts(keep: bool) {
    GROUP_SUMS.with(|sums| {
        if let Some(sums) = sums.borrow_mut().as_mut() {
            let job = std::mem::take(&mut sums.job);
            if keep {
                sums.group.absorb(job);
            }
        }
    });
}

/// The writer, before the group's COMMIT and before any job that is not a submission (it
/// may read the counts): writes the group's sums so far, and counts at once again.
pub(super) fn flush_group_counts(connection: &Conn) -> Result<(), AppError> {
    let Some(sums) = GROUP_SUMS.with(|sums| sums.borrow_mut().take()) else {
        return Ok(());
    };
    add_sums(connection, &REPORT_COUNTS, &sums.group.reports)?;
    add_sums(connection, &GROUPED_COUNTS, &sums.group.grouped)
}

/// The writer, when the group rolls back: its sums go with it.
pub(super) fn discard_group_counts() {
    GROUP_SUMS.with(|sums| sums.borrow_mut().take());
}

/// Adds `change` to the `n` of the rows of `tally` with these `keys` in one multi-row
/// upsert — on PostgreSQL every statement is a round trip of the writer's group; a row not
/// there yet starts at `max(change, 0)`.
fn add_to_counts<const W: usize>(
    connection: &Conn,
    tally: &Tally,
    keys: &[[i64; W]],
    change: i64,
) -> Result<(), AppError> {
    if keys.is_empty() {
        return Ok(());
    }
    // ?1 is the change; each row's keys follow: (?2, ?3, …), (?2+W, …), ….
    let rows: Vec<String> = (0..keys.len())
        .map(|row| {
            let placeholders: Vec<String> = (0..W)
                .map(|column| format!("?{}", 2 + W * row + column))
                .collect();
            format!(
                "({}, CASE WHEN ?1 > 0 THEN ?1 ELSE 0 END)",
                placeholders.join(", ")
            )
        })
        .collect();
    let Tally { table, key_columns } = tally;
    let sql = format!(
        "INSERT INTO {table} ({key_columns}, n) VALUES {}
         ON CONFLICT ({key_columns}) DO UPDATE SET n = {table}.n + ?1",
        rows.join(", ")
    );
    let values: Vec<i64> = std::iter::once(change)
        .chain(keys.iter().flatten().copied())
        .collect();
    execute(connection, &sql, &values)
}

/// Adds each key's sum (positive: only new responses are summed) to its row of `tally`,
/// in upserts of up to [`SUMS_PER_STATEMENT`] rows.
fn add_sums<const W: usize>(
    connection: &Conn,
    tally: &Tally,
    sums: &BTreeMap<[i64; W], i64>,
) -> Result<(), AppError> {
    let Tally { table, key_columns } = tally;
    let sums: Vec<(&[i64; W], &i64)> = sums.iter().collect();
    for chunk in sums.chunks(SUMS_PER_STATEMENT) {
        let rows: Vec<String> = (0..chunk.len())
            .map(|row| {
                let placeholders: Vec<String> = (0..=W)
                    .map(|column| format!("?{}", 1 + (W + 1) * row + column))
                    .collect();
                format!("({})", placeholders.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO {table} ({key_columns}, n) VALUES {}
             ON CONFLICT ({key_columns}) DO UPDATE SET n = {table}.n + excluded.n",
            rows.join(", ")
        );
        let values: Vec<i64> = chunk
            .iter()
            .flat_map(|(key, n)| key.iter().chain(std::iter::once(*n)).copied())
            .collect();
        execute(connection, &sql, &values)?;
    }
    Ok(())
}

fn execute(connection: &Conn, sql: &str, values: &[i64]) -> Result<(), AppError> {
    let values: Vec<&dyn ToValue> = values.iter().map(|v| v as &dyn ToValue).collect();
    connection.prepare_cached(sql)?.execute(values.as_slice())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use randomized_response::PrivacyLevel;

    use super::super::writer::{AfterCommit, Writer};
    use super::*;
    use crate::domain::QuestionId;

    fn report(question: i64, report: u8) -> StoredReport {
        StoredReport {
            question_id: QuestionId::from_stored(question),
            level: PrivacyLevel::new(1.0).expect("a valid ε"),
            report,
        }
    }

    fn writer() -> (tempfile::TempDir, Writer) {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let connection =
            rusqlite::Connection::open(directory.path().join("counts.db")).expect("a database");
        connection
            .execute_batch(
                "CREATE TABLE report_counts (question_id INTEGER, report INTEGER, n INTEGER,
                                             PRIMARY KEY (question_id, report));
                 CREATE TABLE grouped_report_counts (grouping_id INTEGER, answer INTEGER,
                     question_id INTEGER, report INTEGER, n INTEGER,
                     PRIMARY KEY (grouping_id, answer, question_id, report));",
            )
            .expect("the tally tables");
        let writer =
            Writer::start(Conn::sqlite(connection), Duration::from_secs(3600)).expect("the writer");
        (directory, writer)
    }

    fn read_counts(connection: &Conn) -> Result<Vec<(i64, i64, i64)>, AppError> {
        let statement = connection
            .prepare_cached("SELECT question_id, report, n FROM report_counts ORDER BY 1, 2")?;
        statement
            .query_map((), |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .map(|row| row.map_err(AppError::from))
            .collect()
    }

    #[tokio::test]
    async fn a_group_sums_its_submissions_counts_and_any_other_job_reads_them_written() {
        let (_directory, writer) = writer();
        let grouping = [StoredGrouping {
            question_id: QuestionId::from_stored(9),
            answer: 2,
        }];
        // The first job holds the writer, so that the others queue and form one group.
        let blocker = writer.submit(AfterCommit::Nothing, |_| {
            std::thread::sleep(Duration::from_millis(200));
            Ok(())
        });
        let first = writer.submit_response(move |connection| {
            count_with_group(connection, &[report(1, 1), report(2, 0)], &grouping)?;
            // Not yet in the table: summed for the group.
            read_counts(connection)
        });
        let reader = writer.submit(AfterCommit::Nothing, read_counts);
        let failed = writer.submit_response(|connection| {
            count_with_group(connection, &[report(1, 1), report(2, 1)], &[])?;
            Err::<(), _>(AppError::conflict("test", "this job rolls back"))
        });
        let second = writer.submit_response(|connection| {
            count_with_group(connection, &[report(1, 1), report(2, 1)], &[])
        });
        let third = writer.submit_response(|connection| {
            count_with_group(connection, &[report(1, 0), report(2, 1)], &[])
        });
        let (blocked, first, reader, failed, second, third) =
            tokio::join!(blocker, first, reader, failed, second, third);
        blocked.expect("the blocker");
        assert_eq!(first.expect("the first submission"), vec![]);
        assert_eq!(
            reader.expect("the reading job"),
            vec![(1, 1, 1), (2, 0, 1)],
            "a job other than a submission reads the counts of the submissions before it"
        );
        assert!(failed.is_err());
        second.expect("the second submission");
        third.expect("the third submission");
        let after = writer
            .submit(AfterCommit::Nothing, |connection| {
                let grouped: Vec<(i64, i64)> = connection
                    .prepare_cached("SELECT question_id, n FROM grouped_report_counts ORDER BY 1")?
                    .query_map((), |row| Ok((row.get(0)?, row.get(1)?)))?
                    .collect::<Result<_, _>>()?;
                Ok((read_counts(connection)?, grouped))
            })
            .await
            .expect("the counts after the group");
        assert_eq!(
            after.0,
            vec![(1, 0, 1), (1, 1, 2), (2, 0, 1), (2, 1, 2)],
            "the kept submissions are counted once each, the rolled-back one not at all"
        );
        assert_eq!(after.1, vec![(1, 1), (2, 1)]);
    }

    #[test]
    fn outside_the_writers_group_a_response_is_counted_at_once() {
        let connection = Conn::sqlite(rusqlite::Connection::open_in_memory().expect("memory"));
        connection
            .execute_batch(
                "CREATE TABLE report_counts (question_id INTEGER, report INTEGER, n INTEGER,
                                             PRIMARY KEY (question_id, report));
                 CREATE TABLE grouped_report_counts (grouping_id INTEGER, answer INTEGER,
                     question_id INTEGER, report INTEGER, n INTEGER,
                     PRIMARY KEY (grouping_id, answer, question_id, report));",
            )
            .expect("the tally tables");
        count_with_group(&connection, &[report(1, 1)], &[]).expect("counted");
        assert_eq!(read_counts(&connection).expect("read"), vec![(1, 1, 1)]);
    }
}

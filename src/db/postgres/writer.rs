//! The writer of a node on PostgreSQL: group commit as on SQLite ([`super::super::sqlite::writer`]), one
//! transaction for every job waiting, a SAVEPOINT around each, answers only after COMMIT.
//!
//! Other nodes write to the same database at the same time; what must hold across them is
//! in the SQL (row locks, unique keys, advisory locks), not in this thread. There are no
//! compaction epochs on PostgreSQL (docs/design.md, "PostgreSQL"): an epoch asked for (the
//! graceful stop, a test) applies retention dates and closing times, as the timer does,
//! and reports the database's size.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::super::closing::ClosingClock;
use super::super::responses;
use super::super::sql::Conn;
use super::super::writer::{
    gather_group, group_failure, AfterCommit, EpochReport, Job, Message, Writer,
};
use crate::domain::RetentionDate;
use crate::error::{AppError, ErrorChain};

/// The pause before connecting again after the connection broke.
const RECONNECT_PAUSE: Duration = Duration::from_millis(500);

/// `tick`: how often an idle writer applies retention dates (`--compact-every`, whose
/// epochs on SQLite do that too).
pub(in crate::db) fn start(
    connection: Conn,
    url: String,
    tick: Duration,
) -> Result<Writer, AppError> {
    let (messages, queue) = mpsc::channel::<Message>();
    thread::Builder::new()
        .name("deniable-pg-writer".to_owned())
        .spawn(move || run(connection, &url, &queue, tick))
        .map_err(|error| AppError::internal_context("cannot start the writer", error))?;
    Ok(Writer { messages })
}

fn run(mut connection: Conn, url: &str, queue: &mpsc::Receiver<Message>, tick: Duration) {
    let mut closing = ClosingClock::default();
    tick_locked(&connection, &mut closing);
    let mut waiting = None;
    loop {
        if connection.is_broken() {
            match super::connection(url) {
                Ok(fresh) => connection = fresh,
                Err(error) => {
                    tracing::error!(%error, "the writer cannot reconnect to PostgreSQL");
                    // Answer what waits instead of holding it (a graceful stop drains the
                    // queue): the database is unreachable for now.
                    let next = match waiting.take() {
                        Some(message) => Ok(message),
                        None => queue.recv_timeout(RECONNECT_PAUSE),
                    };
                    let cause = group_failure("PostgreSQL is unreachable", error);
                    match next {
                        Ok(Message::Job(job)) => job.answer(Err(cause)),
                        Ok(Message::Compact(reply_to)) => {
                            let _ = reply_to.send(Err(AppError::internal(cause)));
                        }
                        Ok(Message::Stop(reply_to)) => {
                            let _ = reply_to.send(Err(AppError::internal(cause)));
                            return;
                        }
                        Err(RecvTimeoutError::Disconnected) => return,
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    continue;
                }
            }
        }
        let message = match waiting.take() {
            Some(message) => message,
            None => match queue.recv_timeout(closing.wait().map_or(tick, |w| w.min(tick))) {
                Ok(message) => message,
                Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => {
                    on_timer(&connection, &mut closing);
                    continue;
                }
            },
        };
        match message {
            Message::Compact(reply_to) => {
                // What an epoch does besides rewriting files: retention and closing times.
                let started = Instant::now();
                on_timer(&connection, &mut closing);
                let _ = reply_to.send(size_report(&connection, started));
            }
            Message::Stop(reply_to) => {
                let started = Instant::now();
                on_timer(&connection, &mut closing);
                let _ = reply_to.send(size_report(&connection, started));
                return;
            }
            Message::Job(first) => {
                let group = gather_group(first, queue, &mut waiting);
                commit_group(&connection, group);
                tick_locked(&connection, &mut closing);
            }
        }
    }
}

/// Closes the surveys whose closing time has come, in a transaction that holds the lock of
/// every node's writes (a close rewrites the survey's rows: [`super::rewrite`]).
fn tick_locked(connection: &Conn, closing: &mut ClosingClock) {
    locked(connection, || closing.tick(connection));
}

/// Runs `work` in a transaction that holds the lock of every node's writes.
fn locked(connection: &Conn, work: impl FnOnce()) {
    if connection
        .execute_batch(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({GROUP_LOCK})"
        ))
        .is_err()
    {
        let _ = connection.execute_batch("ROLLBACK");
        return;
    }
    work();
    if let Err(error) = connection.execute_batch("COMMIT") {
        tracing::error!(%error, "cannot commit the closing or deletion of surveys");
        let _ = connection.execute_batch("ROLLBACK");
    }
}

fn on_timer(connection: &Conn, closing: &mut ClosingClock) {
    tick_locked(connection, closing);
    // A deletion closes the survey first, and a close rewrites its rows: under the lock.
    locked(connection, || {
        match responses::delete_expired_surveys(connection, RetentionDate::today().as_str()) {
            Ok(deleted) if !deleted.is_empty() => tracing::info!(
                surveys = deleted.len(),
                "deleted surveys past their retention date"
            ),
            Ok(_) => {}
            Err(error) => tracing::error!(%error, "cannot apply retention dates"),
        }
    });
}

fn size_report(connection: &Conn, started: Instant) -> Result<EpochReport, AppError> {
    let bytes: i64 =
        connection.query_row("SELECT pg_database_size(current_database())", (), |row| {
            row.get(0)
        })?;
    Ok(EpochReport {
        duration: started.elapsed(),
        database_bytes: u64::try_from(bytes).unwrap_or(0),
        wal_kept: false,
    })
}

/// The advisory lock every node's group transaction holds until it commits: groups of
/// different nodes touch the same counter rows in different orders (one response counts
/// report 1 of a question, the next report 0), which would deadlock one against the other;
/// one group at a time across the nodes never does, and a group holds up to [`super::super::writer::MAX_GROUP`]
/// jobs, so the nodes still commit many submissions per transaction.
const GROUP_LOCK: i64 = 0x6465_6e69_6162_6c77;

fn commit_group(connection: &Conn, mut group: Vec<Box<dyn Job>>) {
    // The first job's savepoint goes with BEGIN and the lock: one round trip.
    if let Err(error) = connection.execute_batch(&format!(
        "BEGIN; SELECT pg_advisory_xact_lock({GROUP_LOCK}); SAVEPOINT job"
    )) {
        let _ = connection.execute_batch("ROLLBACK");
        let cause = group_failure("cannot begin a write transaction", error);
        for job in group {
            job.answer(Err(cause.clone()));
        }
        return;
    }
    run_in_savepoints(connection, &mut group);
    let commit = connection.execute_batch("COMMIT").map_err(|error| {
        let _ = connection.execute_batch("ROLLBACK");
        group_failure("cannot commit", error)
    });
    if let Err(cause) = &commit {
        let cause = ErrorChain(cause.as_ref());
        tracing::error!(%cause, jobs = group.len(), "group commit failed");
    }
    let deleted = commit.is_ok()
        && group
            .iter()
            .any(|job| job.after_commit() == AfterCommit::Compact);
    if deleted {
        // A survey was deleted: its dead rows' space is marked free now rather than at
        // autovacuum's leisure (the bytes may stay in the files until reused; the WAL and
        // its archives keep them: docs/design.md, "PostgreSQL").
        let tables: Vec<&str> = super::rewrite::RESPONDENT_TABLES
            .iter()
            .map(|(table, _)| *table)
            .chain(["invitations", "invitation_keys"])
            .collect();
        if let Err(error) = connection.execute_batch(&format!("VACUUM {}", tables.join(", "))) {
            tracing::error!(%error, "cannot vacuum after a survey's deletion");
        }
    }
    for job in group {
        job.answer(commit.clone());
    }
}

/// Runs each job in a savepoint of its own (the first one already open), so that a job
/// that fails undoes only its own changes. Ending one job's savepoint and opening the
/// next's is one round trip; a job after a savepoint that could not be ended or opened is
/// not run (it is answered "never run").
fn run_in_savepoints(connection: &Conn, group: &mut [Box<dyn Job>]) {
    let jobs = group.len();
    for (index, job) in group.iter_mut().enumerate() {
        let keep = catch_unwind(AssertUnwindSafe(|| job.run(connection))).unwrap_or(false);
        let end = if keep {
            "RELEASE job"
        } else {
            "ROLLBACK TO job; RELEASE job"
        };
        let last = index + 1 == jobs;
        let batch = if last {
            end.to_owned()
        } else {
            format!("{end}; SAVEPOINT job")
        };
        if let Err(error) = connection.execute_batch(&batch) {
            tracing::error!(%error, "cannot end a savepoint or open the next");
            return;
        }
    }
}

//! The only writer: a thread that owns the write connection, commits in groups, and runs
//! the compaction epochs.
//!
//! It blocks for one job, drains every job already waiting (up to [`MAX_GROUP`](super::super::writer::MAX_GROUP)), runs them
//! all in one `BEGIN IMMEDIATE … COMMIT` with a SAVEPOINT around each (so one failing job,
//! e.g. a submission to a closed survey, does not undo the others), and only after the
//! COMMIT answers each job. One fsync then acknowledges many submissions.
//!
//! Between groups it keeps the promise of docs/design.md, invariant 8: within
//! `compact_every` of any write (its own, or another process's such as the CLI) it runs an
//! epoch, which rewrites the database in key order (VACUUM, in place, under the write lock,
//! so other processes' writes wait and are never lost) and truncates the WAL, so that no
//! file orders what was stored before it by arrival; the read connections close for the
//! moment the epoch deletes the WAL's index. A job may also ask for the WAL to be truncated
//! (a withdrawal) or for a whole epoch (a survey deletion) before it is answered. At the
//! graceful stop it runs a last epoch and closes its connection after every other, so that
//! SQLite deletes the WAL and its index.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::super::closing::ClosingClock;
use super::super::readers::ReadPool;
use super::super::responses;
use super::super::sql::Conn;
use super::super::writer::{
    gather_group, group_failure, AfterCommit, EpochReport, Job, Message, Writer,
};
use super::compaction;
use crate::domain::RetentionDate;
use crate::error::{AppError, ErrorChain};

/// Starts the writer of a SQLite database; `readers` are closed around each epoch's
/// end.
pub(in crate::db) fn start(
    connection: Conn,
    compact_every: Duration,
    readers: Arc<ReadPool>,
) -> Result<Writer, AppError> {
    let (messages, queue) = mpsc::channel::<Message>();
    thread::Builder::new()
        .name("deniable-writer".to_owned())
        .spawn(move || {
            if let Some((reply_to, last_epoch)) = run(&connection, &queue, compact_every, &readers)
            {
                let _ = reply_to.send(close_last(connection, last_epoch));
            }
        })
        .map_err(|error| AppError::internal_context("cannot start the writer", error))?;
    Ok(Writer { messages })
}

/// When the next epoch is due: the first write since the last epoch starts the clock.
/// It also wakes the writer at the next closing time of an open survey ([`ClosingClock`]).
struct EpochClock {
    every: Duration,
    dirty_since: Option<Instant>,
    /// `PRAGMA data_version` after our last epoch: it moves when another process commits.
    others_version: i64,
    closing: ClosingClock,
    /// Tries in a row that found another process holding the database open, so that the
    /// WAL's index could not be deleted; retried on every wake until one succeeds.
    wal_kept_tries: u32,
}

impl EpochClock {
    fn wait(&self) -> Duration {
        let epoch = match self.dirty_since {
            Some(since) => (since + self.every).saturating_duration_since(Instant::now()),
            // Idle: wake now and then to notice other processes' writes and retention dates.
            None => self.every,
        };
        // A second's margin at most: closing times are whole seconds.
        self.closing
            .wait()
            .map_or(epoch, |closing| epoch.min(closing))
    }

    fn wrote(&mut self) {
        self.dirty_since.get_or_insert_with(Instant::now);
    }

    fn due(&self) -> bool {
        self.dirty_since
            .is_some_and(|since| since.elapsed() >= self.every)
    }
}

/// A graceful stop's reply and the outcome of its last epoch.
type Stopped = (
    oneshot::Sender<Result<EpochReport, AppError>>,
    Result<EpochReport, AppError>,
);

/// Ends at a graceful stop ([`Message::Stop`], returned with its last epoch) or when every
/// sender is gone (the server and all handles dropped).
fn run(
    connection: &Conn,
    queue: &mpsc::Receiver<Message>,
    compact_every: Duration,
    readers: &ReadPool,
) -> Option<Stopped> {
    let mut clock = EpochClock {
        every: compact_every,
        dirty_since: None,
        others_version: compaction::data_version(connection).unwrap_or(0),
        closing: ClosingClock::default(),
        wal_kept_tries: 0,
    };
    // A write left in the files by an earlier run (a crash) is compacted soon too.
    clock.wrote();
    tick_closing(connection, &mut clock);
    let mut waiting = None;
    loop {
        let message = match waiting.take() {
            Some(message) => message,
            None => match queue.recv_timeout(clock.wait()) {
                Ok(message) => message,
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    on_timer(connection, &mut clock, readers);
                    continue;
                }
            },
        };
        match message {
            Message::Compact(reply_to) => {
                let _ = reply_to.send(epoch(connection, &mut clock, readers));
            }
            Message::Stop(reply_to) => {
                let last_epoch = compaction::run_epoch(connection, readers);
                if let Err(error) = &last_epoch {
                    tracing::error!(%error, "the last compaction epoch failed");
                }
                return Some((reply_to, last_epoch));
            }
            Message::Job(first) => {
                let group = gather_group(first, queue, &mut waiting);
                let changes_before = connection.total_changes();
                if let Some(report) = commit_group(connection, group, readers) {
                    note_wal(&mut clock, report.wal_kept);
                    clock.dirty_since = None;
                    clock.others_version = compaction::data_version(connection).unwrap_or(0);
                } else if connection.total_changes() != changes_before {
                    clock.wrote();
                }
                // A group may have opened a survey with a closing time.
                tick_closing(connection, &mut clock);
                if clock.due() {
                    let _ = epoch(connection, &mut clock, readers);
                }
            }
        }
    }
}

/// Closes the surveys whose time has come; when that erased a key, truncates the WAL before
/// the tick ends, so no copy of the key stays in any file.
fn tick_closing(connection: &Conn, clock: &mut EpochClock) {
    clock.closing.tick(connection);
    if crate::db::redemptions::take_erased_key() {
        if let Err(error) = compaction::truncate_wal(connection) {
            tracing::error!(%error, "cannot truncate the WAL after closing surveys");
        }
    }
}

/// The writer woke without a job: delete surveys past their retention date, notice other
/// processes' commits, run the epoch when it is due, and try again to delete the WAL's
/// index if another process kept it at the last try.
fn on_timer(connection: &Conn, clock: &mut EpochClock, readers: &ReadPool) {
    tick_closing(connection, clock);
    match responses::delete_expired_surveys(connection, RetentionDate::today().as_str()) {
        Ok(deleted) if !deleted.is_empty() => {
            tracing::info!(
                surveys = deleted.len(),
                "deleted surveys past their retention date"
            );
            // Deleted data must not stay readable: compact at once.
            let _ = epoch(connection, clock, readers);
            return;
        }
        Ok(_) => {}
        Err(error) => tracing::error!(%error, "cannot apply retention dates"),
    }
    if let Ok(version) = compaction::data_version(connection) {
        if version != clock.others_version {
            clock.others_version = version;
            clock.wrote();
        }
    }
    if clock.due() {
        let _ = epoch(connection, clock, readers);
    } else if clock.wal_kept_tries > 0 && clock.dirty_since.is_none() {
        // Nothing written since: deleting the WAL and its index is all that is left to do
        // (with a write since, the coming epoch does it).
        match compaction::clear_wal(connection, readers) {
            Ok(removed) => note_wal(clock, !removed),
            Err(error) => tracing::error!(%error, "cannot delete the WAL's index"),
        }
    }
}

fn epoch(
    connection: &Conn,
    clock: &mut EpochClock,
    readers: &ReadPool,
) -> Result<EpochReport, AppError> {
    let outcome = compaction::run_epoch(connection, readers);
    match &outcome {
        Ok(report) => {
            clock.dirty_since = None;
            note_wal(clock, report.wal_kept);
        }
        Err(error) => tracing::error!(%error, "compaction epoch failed; retrying later"),
    }
    clock.others_version = compaction::data_version(connection).unwrap_or(clock.others_version);
    outcome
}

/// Counts and logs the tries that found another process holding the database open
/// (docs/design.md, invariant 8, names this exception).
fn note_wal(clock: &mut EpochClock, kept: bool) {
    if kept {
        clock.wal_kept_tries += 1;
        tracing::warn!(
            tries = clock.wal_kept_tries,
            "another process has the database open: SQLite keeps the WAL's index (-shm), \
             which lists the pages written before the last epoch in order; trying again at \
             the next wake"
        );
    } else if clock.wal_kept_tries > 0 {
        tracing::info!(
            tries = clock.wal_kept_tries,
            "the WAL and its index are deleted after all"
        );
        clock.wal_kept_tries = 0;
    }
}

/// The end of a graceful stop: the writer's connection closes after every read connection,
/// so SQLite checkpoints and deletes the WAL and its index — unless another process has
/// the database open, which the report says and the log repeats.
fn close_last(
    connection: Conn,
    last_epoch: Result<EpochReport, AppError>,
) -> Result<EpochReport, AppError> {
    let path = compaction::database_path(&connection);
    if let Err(error) = connection.close() {
        tracing::error!(%error, "cannot close the database");
    }
    let mut report = last_epoch?;
    report.wal_kept = path.is_some_and(|path| compaction::wal_files_exist(&path));
    if report.wal_kept {
        tracing::warn!(
            "another process has the database open: its WAL and index (-wal, -shm) stay \
             beside the database file until that process closes it"
        );
    }
    Ok(report)
}

/// Commits the group; returns the report of the whole epoch that ran after it, if one did.
fn commit_group(
    connection: &Conn,
    mut group: Vec<Box<dyn Job>>,
    readers: &ReadPool,
) -> Option<EpochReport> {
    // A stale flag from a failed group must not outlive it.
    let _ = crate::db::redemptions::take_erased_key();
    if let Err(error) = execute_cached(connection, "BEGIN IMMEDIATE") {
        let cause = group_failure("cannot begin a write transaction", error);
        for job in group {
            job.answer(Err(cause.clone()));
        }
        return None;
    }
    for job in &mut group {
        run_in_savepoint(connection, job.as_mut());
    }
    let commit = execute_cached(connection, "COMMIT").map_err(|error| {
        // Leave the connection usable for the next group.
        let _ = connection.execute_batch("ROLLBACK");
        group_failure("cannot commit", error)
    });
    if let Err(cause) = &commit {
        let cause = ErrorChain(cause.as_ref());
        tracing::error!(%cause, jobs = group.len(), "group commit failed");
        for job in group {
            job.answer(commit.clone());
        }
        return None;
    }
    // A group that closed an invitation survey (by its target) erased its key: no copy of
    // it may stay in the WAL once the answer goes out.
    let key_erased = if crate::db::redemptions::take_erased_key() {
        AfterCommit::TruncateWal
    } else {
        AfterCommit::Nothing
    };
    let wanted = group
        .iter()
        .map(|job| job.after_commit())
        .chain([key_erased])
        .max()
        .unwrap_or(AfterCommit::Nothing);
    let mut epoch = None;
    let after = match wanted {
        AfterCommit::Nothing => Ok(()),
        AfterCommit::TruncateWal => compaction::truncate_wal(connection)
            .map_err(|error| group_failure("cannot truncate the WAL", error)),
        AfterCommit::Compact => compaction::run_epoch(connection, readers)
            .map(|report| epoch = Some(report))
            .map_err(|error| group_failure("cannot run an epoch", error)),
    };
    if let Err(cause) = &after {
        let cause = ErrorChain(cause.as_ref());
        tracing::error!(%cause, "cannot clear the files after a withdrawal or deletion");
    }
    for job in group {
        // Committed either way; a job that needed the files cleared learns that they were not.
        let outcome = if job.after_commit() == AfterCommit::Nothing {
            Ok(())
        } else {
            after.clone()
        };
        job.answer(outcome);
    }
    epoch
}

fn run_in_savepoint(connection: &Conn, job: &mut dyn Job) {
    if execute_cached(connection, "SAVEPOINT job").is_err() {
        return; // The job is answered with "never run".
    }
    let keep = job.run(connection);
    let end = if keep {
        execute_cached(connection, "RELEASE job")
    } else {
        execute_cached(connection, "ROLLBACK TO job")
            .and_then(|()| execute_cached(connection, "RELEASE job"))
    };
    if let Err(error) = end {
        tracing::error!(%error, "cannot end a savepoint");
    }
}

/// Runs a statement the writer repeats for every job from the statement cache: parsing
/// it again each time was a measurable share of the writer's time.
fn execute_cached(connection: &Conn, sql: &str) -> Result<(), super::super::sql::Error> {
    connection.prepare_cached(sql)?.execute(()).map(drop)
}

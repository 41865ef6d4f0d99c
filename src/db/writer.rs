//! The only writer: a thread that owns the write connection and commits in groups.
//!
//! It blocks for one job, drains every job already waiting (up to [`MAX_GROUP`]), runs them
//! all in one `BEGIN IMMEDIATE … COMMIT` with a SAVEPOINT around each (so one failing job,
//! e.g. a submission to a closed survey, does not undo the others), and only after the
//! COMMIT answers each job. One fsync then acknowledges many submissions.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::thread;

use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::error::AppError;

const MAX_GROUP: usize = 512;

/// A write job with its result type erased, so jobs of any type share one channel.
trait Job: Send {
    /// Runs the job's SQL; `true` when it succeeded and its changes should be kept.
    fn run(&mut self, connection: &Connection) -> bool;
    /// Answers the waiting request; `commit` is the outcome of the group's COMMIT.
    fn answer(self: Box<Self>, commit: Result<(), String>);
}

struct TypedJob<T, F> {
    work: Option<F>,
    outcome: Option<Result<T, AppError>>,
    reply_to: oneshot::Sender<Result<T, AppError>>,
}

impl<T, F> Job for TypedJob<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> Result<T, AppError> + Send,
{
    fn run(&mut self, connection: &Connection) -> bool {
        let Some(work) = self.work.take() else {
            return false;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| work(connection)))
            .unwrap_or_else(|_| Err(AppError::internal("a write job panicked")));
        let succeeded = outcome.is_ok();
        self.outcome = Some(outcome);
        succeeded
    }

    fn answer(self: Box<Self>, commit: Result<(), String>) {
        let outcome = match (commit, self.outcome) {
            (Ok(()), Some(outcome)) => outcome,
            // A job that failed on its own reports its own error even if the group failed.
            (Err(_), Some(Err(error))) => Err(error),
            (Err(cause), _) => Err(AppError::internal(cause)),
            (Ok(()), None) => Err(AppError::internal("a write job was never run")),
        };
        // The requester may have gone away (client disconnected); nothing to do then.
        let _ = self.reply_to.send(outcome);
    }
}

#[derive(Clone)]
pub(super) struct Writer {
    jobs: mpsc::Sender<Box<dyn Job>>,
}

impl Writer {
    pub(super) fn start(connection: Connection) -> Result<Self, AppError> {
        let (jobs, queue) = mpsc::channel::<Box<dyn Job>>();
        thread::Builder::new()
            .name("deniable-writer".to_owned())
            .spawn(move || run(&connection, &queue))
            .map_err(|error| {
                AppError::internal(format_args!("cannot start the writer: {error}"))
            })?;
        Ok(Self { jobs })
    }

    pub(super) async fn submit<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, AppError> + Send + 'static,
    {
        let (reply_to, reply) = oneshot::channel();
        let job = TypedJob {
            work: Some(work),
            outcome: None,
            reply_to,
        };
        self.jobs
            .send(Box::new(job))
            .map_err(|_| AppError::internal("the writer thread has stopped"))?;
        reply
            .await
            .map_err(|_| AppError::internal("the writer thread dropped a job"))?
    }
}

/// Ends when every sender is gone (the server and all handles dropped).
fn run(connection: &Connection, queue: &mpsc::Receiver<Box<dyn Job>>) {
    while let Ok(first) = queue.recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        commit_group(connection, group);
    }
}

fn commit_group(connection: &Connection, mut group: Vec<Box<dyn Job>>) {
    if let Err(error) = execute_cached(connection, "BEGIN IMMEDIATE") {
        let cause = format!("cannot begin a write transaction: {error}");
        for job in group {
            job.answer(Err(cause.clone()));
        }
        return;
    }
    for job in &mut group {
        run_in_savepoint(connection, job.as_mut());
    }
    let commit = execute_cached(connection, "COMMIT").map_err(|error| {
        // Leave the connection usable for the next group.
        let _ = connection.execute_batch("ROLLBACK");
        format!("cannot commit: {error}")
    });
    if let Err(cause) = &commit {
        tracing::error!(%cause, jobs = group.len(), "group commit failed");
    }
    for job in group {
        job.answer(commit.clone());
    }
}

fn run_in_savepoint(connection: &Connection, job: &mut dyn Job) {
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
fn execute_cached(connection: &Connection, sql: &str) -> rusqlite::Result<()> {
    connection.prepare_cached(sql)?.execute([]).map(drop)
}

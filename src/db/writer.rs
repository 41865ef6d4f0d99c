//! The writer's handle and its jobs, shared by both engines: every write goes to one
//! thread per node through a queue ([`Writer`]), which commits them in groups; each
//! engine's loop lives beside its engine ([`super::sqlite::writer`],
//! [`super::postgres::writer`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use tokio::sync::oneshot;

use super::sql::Conn;
use crate::error::{AppError, Context};

/// What an epoch did (SQLite), or the database's size (PostgreSQL, at a stop).
#[derive(Debug, Clone, Copy)]
pub struct EpochReport {
    pub duration: Duration,
    /// The database file's size afterwards.
    pub database_bytes: u64,
    /// SQLite kept the WAL and its index (`-wal`, `-shm`) because another process has the
    /// database open: the index lists the page numbers of the frames written before this
    /// epoch until the writer tries again and succeeds ([`super::sqlite::compaction::remove_wal`]). Never on
    /// PostgreSQL, which has no such files.
    pub wal_kept: bool,
}

pub(super) const MAX_GROUP: usize = 512;

/// Why a group's transaction failed (it could not begin, or COMMIT failed) or what should
/// follow it did not happen: one failure answers every job of the group, so it is shared,
/// the database's typed error still its source.
pub(super) type GroupFailure = Arc<Context>;

/// `context` over `cause`, for every job of a group.
pub(super) fn group_failure(
    context: &'static str,
    cause: impl Into<crate::error::Cause>,
) -> GroupFailure {
    Arc::new(Context::new(context, cause))
}

/// What must happen after a job's commit and before it is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum AfterCommit {
    Nothing,
    /// Nothing of what the job removed may stay in the WAL (a withdrawal).
    TruncateWal,
    /// A whole epoch (a survey deletion: many rows and pages go).
    Compact,
}

/// A write job with its result type erased, so jobs of any type share one channel.
pub(super) trait Job: Send {
    /// Runs the job's SQL; `true` when it succeeded and its changes should be kept.
    fn run(&mut self, connection: &Conn) -> bool;
    fn after_commit(&self) -> AfterCommit;
    /// Answers the waiting request; `commit` is the outcome of the group's COMMIT (and of
    /// what the job asked to happen after it).
    fn answer(self: Box<Self>, commit: Result<(), GroupFailure>);
}

pub(super) struct TypedJob<T, F> {
    work: Option<F>,
    after_commit: AfterCommit,
    outcome: Option<Result<T, AppError>>,
    reply_to: oneshot::Sender<Result<T, AppError>>,
}

impl<T, F> Job for TypedJob<T, F>
where
    T: Send,
    F: FnOnce(&Conn) -> Result<T, AppError> + Send,
{
    fn run(&mut self, connection: &Conn) -> bool {
        let Some(work) = self.work.take() else {
            return false;
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| work(connection)))
            .unwrap_or_else(|_| Err(AppError::internal("a write job panicked")));
        let succeeded = outcome.is_ok();
        self.outcome = Some(outcome);
        succeeded
    }

    fn after_commit(&self) -> AfterCommit {
        match &self.outcome {
            Some(Ok(_)) => self.after_commit,
            _ => AfterCommit::Nothing,
        }
    }

    fn answer(self: Box<Self>, commit: Result<(), GroupFailure>) {
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

pub(super) enum Message {
    Job(Box<dyn Job>),
    /// Run an epoch now (tests, benchmarks).
    Compact(oneshot::Sender<Result<EpochReport, AppError>>),
    /// The graceful stop, after every job sent before it: a last epoch, then the
    /// connection closes (the read connections are closed already) and the writer ends.
    Stop(oneshot::Sender<Result<EpochReport, AppError>>),
}

#[derive(Clone)]
pub(super) struct Writer {
    pub(super) messages: mpsc::Sender<Message>,
}

impl Writer {
    pub(super) async fn submit<T, F>(
        &self,
        after_commit: AfterCommit,
        work: F,
    ) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, AppError> + Send + 'static,
    {
        let (reply_to, reply) = oneshot::channel();
        let job = TypedJob {
            work: Some(work),
            after_commit,
            outcome: None,
            reply_to,
        };
        self.messages
            .send(Message::Job(Box::new(job)))
            .map_err(|_| AppError::internal("the writer thread has stopped"))?;
        reply
            .await
            .map_err(|_| AppError::internal("the writer thread dropped a job"))?
    }

    pub(super) async fn compact(&self) -> Result<EpochReport, AppError> {
        self.ask(Message::Compact).await
    }

    /// The graceful stop's last epoch; the writer ends after it (see [`Message::Stop`]).
    pub(super) async fn stop(&self) -> Result<EpochReport, AppError> {
        self.ask(Message::Stop).await
    }

    async fn ask(
        &self,
        message: impl FnOnce(oneshot::Sender<Result<EpochReport, AppError>>) -> Message,
    ) -> Result<EpochReport, AppError> {
        let (reply_to, reply) = oneshot::channel();
        self.messages
            .send(message(reply_to))
            .map_err(|_| AppError::internal("the writer thread has stopped"))?;
        reply
            .await
            .map_err(|_| AppError::internal("the writer thread dropped an epoch"))?
    }
}

/// The group that starts with `first`: every job already waiting, up to [`MAX_GROUP`]. A
/// message that is not a job ends the group and is kept in `waiting` for the next turn.
pub(super) fn gather_group(
    first: Box<dyn Job>,
    queue: &mpsc::Receiver<Message>,
    waiting: &mut Option<Message>,
) -> Vec<Box<dyn Job>> {
    let mut group = vec![first];
    while group.len() < MAX_GROUP {
        match queue.try_recv() {
            Ok(Message::Job(job)) => group.push(job),
            Ok(other) => {
                *waiting = Some(other);
                break;
            }
            Err(_) => break,
        }
    }
    group
}

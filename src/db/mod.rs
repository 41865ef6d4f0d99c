//! Storage: one writer thread (group commit) and a small pool of read connections, on
//! SQLite (a file, the embedded default) or PostgreSQL (a URL, for several nodes).
//!
//! All SQL lives in [`queries`] and its neighbours, in synchronous functions taking
//! `&`[`Conn`], written once for both engines ([`sql`]); this module only decides which
//! connection runs them and where.

pub mod accounts;
mod closing;
pub mod counts;
pub mod live_state;
mod location;
mod migrations;
pub mod postgres;
pub mod queries;
mod readers;
pub mod redemptions;
pub mod released;
pub mod releases;
mod researchers;
mod respondents;
pub mod responses;
pub mod sql;
pub mod sqlite;
pub mod stored_format;
mod surveys;
mod writer;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

pub use location::DbLocation;
use readers::{ReadPool, Source};
use rusqlite::Connection;
pub use sql::Conn;

use crate::domain::{Slug, Survey, SurveyStatus, WithdrawalKey};
use crate::error::AppError;
pub use accounts::LoginFailures;
pub use migrations::LATEST_VERSION as SCHEMA_VERSION;
pub use researchers::NewSession;
pub use sqlite::backup;
pub use sqlite::compaction;
pub use surveys::{DraftEdits, Rearrangement};
pub use writer::EpochReport;
use writer::{AfterCommit, Writer};

const READ_CONNECTIONS: usize = 4;
/// Read connections to PostgreSQL: reads wait on the network, not on one file.
const POSTGRES_READ_CONNECTIONS: usize = 8;
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Page cache of the write connection, in KiB (negative in SQLite's PRAGMA): response ids
/// are random, so inserts touch random B-tree leaves; the default 2 MiB re-read them
/// from the OS for nearly every submission once a survey holds many responses. Public for
/// examples/sqlite_ceiling.rs, which commits under the writer's settings.
pub const WRITER_CACHE_KIB: i64 = 64 * 1024;
/// Pages the WAL may hold before the writer copies them back into the database file
/// (SQLite's default is 1 000). Random response ids dirty random B-tree leaves; a longer
/// interval rewrites each page once for many commits and fsyncs the database file less
/// often: 10 000 gave about 1.3 times the durable submissions per second of 1 000 in
/// `bench/`, 40 000 another 1.1 times (fresh servers, alternating, 4 rounds at 256
/// connections), for a WAL of about 160 MiB at most, emptied by every epoch. Public for
/// examples/sqlite_ceiling.rs.
pub const WAL_AUTOCHECKPOINT_PAGES: i64 = 40_000;
/// Open surveys whose definitions are kept in memory for the submission path.
const OPEN_SURVEY_CACHE_ENTRIES: usize = 1024;
/// The default of `--compact-every`: an epoch within five minutes of any write.
pub const DEFAULT_COMPACT_EVERY: Duration = Duration::from_secs(300);

/// A handle on the database; cheap to clone, shared by all HTTP workers.
#[derive(Clone)]
pub struct Database {
    writer: Writer,
    readers: Arc<ReadPool>,
    open_surveys: Arc<RwLock<HashMap<Slug, Arc<Survey>>>>,
    withdrawal_key: WithdrawalKey,
    /// The engine chosen at start-up, for what it does differently.
    rules: &'static dyn sql::EngineRules,
    /// Where the owner's live views keep their release state ([`live_state`]).
    live: Arc<dyn live_state::LiveState>,
}

impl Database {
    /// Opens (creating if needed) the database file, migrates it to this binary's schema,
    /// starts the writer with the default epoch interval.
    pub fn open(location: impl Into<DbLocation>) -> Result<Self, AppError> {
        Self::open_with(location, DEFAULT_COMPACT_EVERY)
    }

    /// [`Database::open`] with an epoch within `compact_every` of any write (SQLite).
    pub fn open_with(
        location: impl Into<DbLocation>,
        compact_every: Duration,
    ) -> Result<Self, AppError> {
        match location.into() {
            DbLocation::Sqlite(path) => Self::open_sqlite(&path, compact_every),
            DbLocation::Postgres(url) => Self::open_postgres(&url, compact_every),
        }
    }

    fn open_sqlite(path: &Path, compact_every: Duration) -> Result<Self, AppError> {
        let write_connection = Connection::open(path)?;
        configure(&write_connection)?;
        write_connection.pragma_update(None, "cache_size", -WRITER_CACHE_KIB)?;
        write_connection.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
        let write_connection = sqlite::connection(write_connection);
        migrations::migrate(&write_connection)?;
        // The snapshots of an earlier process are gone with its memory: withdrawals since the
        // last consideration take effect now (docs/design.md, "Releases").
        write_connection.execute_batch("BEGIN IMMEDIATE")?;
        match releases::apply_withdrawals_at_start(&write_connection) {
            Ok(()) => write_connection.execute_batch("COMMIT")?,
            Err(error) => {
                let _ = write_connection.execute_batch("ROLLBACK");
                return Err(error);
            }
        }
        let withdrawal_key = migrations::withdrawal_key(&write_connection)?;
        // Readers open after the writer so that the file and its WAL already exist.
        let readers = Arc::new(ReadPool::new(
            Source::Sqlite(path.to_owned()),
            READ_CONNECTIONS,
        ));
        readers.open_all()?;
        Ok(Self {
            writer: sqlite::writer::start(write_connection, compact_every, Arc::clone(&readers))?,
            readers,
            open_surveys: Arc::default(),
            withdrawal_key,
            rules: &sqlite::Sqlite,
            live: Arc::new(sqlite::live_state::InMemory::default()),
        })
    }

    /// PostgreSQL: the schema is migrated under an advisory lock; the writer commits groups
    /// on one connection, the readers use their own. The blocking client runs a runtime of
    /// its own, so connections are made on a thread outside the caller's async runtime.
    fn open_postgres(url: &str, tick: Duration) -> Result<Self, AppError> {
        let url = url.to_owned();
        std::thread::spawn(move || {
            let write_connection = postgres::connection(&url)?;
            migrations::migrate(&write_connection)?;
            let withdrawal_key = migrations::withdrawal_key(&write_connection)?;
            let readers = ReadPool::new(Source::Postgres(url.clone()), POSTGRES_READ_CONNECTIONS);
            readers.open_all()?;
            Ok(Self {
                writer: postgres::writer::start(write_connection, url, tick)?,
                readers: Arc::new(readers),
                open_surveys: Arc::default(),
                withdrawal_key,
                rules: &postgres::Postgres,
                live: Arc::new(postgres::live_state::InTables),
            })
        })
        .join()
        .map_err(|_| AppError::internal("connecting to PostgreSQL panicked"))?
    }

    /// What the server says once [`Database::close`] has returned `last_epoch`.
    pub fn stopped_message(&self, last_epoch: &EpochReport) -> String {
        self.rules.stopped_message(
            last_epoch.database_bytes,
            last_epoch.duration,
            last_epoch.wal_kept,
        )
    }

    /// The key of the tags that withdrawals leave (HMAC over the response id).
    pub fn withdrawal_key(&self) -> &WithdrawalKey {
        &self.withdrawal_key
    }

    /// The submission path forgets a survey it kept in memory (deleted, or closed).
    pub fn forget_survey(&self, slug: &Slug) {
        self.open_surveys
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(slug);
    }

    /// A survey by slug for the submission path, from memory once it has been seen open.
    ///
    /// An open survey's questions and ε are frozen, so its cached definition stays right;
    /// only its status can change later (to closed), and the writer checks the status
    /// again inside the transaction of every submission.
    pub async fn find_survey_for_submission(
        &self,
        slug: Slug,
    ) -> Result<Option<Arc<Survey>>, AppError> {
        let cached = self
            .open_surveys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&slug)
            .cloned();
        if cached.is_some() {
            return Ok(cached);
        }
        let Some(survey) = self
            .read(move |connection| queries::find_survey(connection, &slug))
            .await?
        else {
            return Ok(None);
        };
        let survey = Arc::new(survey);
        if survey.status == SurveyStatus::Open {
            let mut cache = self
                .open_surveys
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            if cache.len() >= OPEN_SURVEY_CACHE_ENTRIES {
                cache.clear();
            }
            cache.insert(survey.slug.clone(), Arc::clone(&survey));
        }
        Ok(Some(survey))
    }

    /// Runs `work` in the writer's next group transaction; resolves only after COMMIT.
    /// When `work` fails, its changes are rolled back and the rest of the group commits.
    pub async fn write<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, AppError> + Send + 'static,
    {
        self.writer.submit(AfterCommit::Nothing, work).await
    }

    /// [`Database::write`], then the WAL is truncated before this resolves: what `work`
    /// deleted survives in no file (a withdrawal).
    pub async fn write_then_truncate_wal<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, AppError> + Send + 'static,
    {
        self.writer.submit(AfterCommit::TruncateWal, work).await
    }

    /// [`Database::write`], then a whole compaction epoch before this resolves (a survey
    /// deletion: its pages are rebuilt away, not just emptied).
    pub async fn write_then_compact<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, AppError> + Send + 'static,
    {
        self.writer.submit(AfterCommit::Compact, work).await
    }

    /// Runs a compaction epoch now (after everything submitted before it).
    pub async fn compact(&self) -> Result<EpochReport, AppError> {
        self.writer.compact().await
    }

    /// Resolves once every write submitted before it has committed (the queue is FIFO):
    /// at shutdown, nothing acknowledged or in flight is left behind.
    pub async fn drain(&self) -> Result<(), AppError> {
        self.writer.submit(AfterCommit::Nothing, |_| Ok(())).await
    }

    /// The graceful stop: everything submitted before it is committed (the writer's queue
    /// is FIFO), the read connections close, one last epoch leaves the database file in key
    /// order, and the writer's connection closes last, so that SQLite deletes the WAL and
    /// its index: the database file alone holds everything — unless another process has it
    /// open ([`EpochReport::wal_kept`]). Reads and writes through any handle fail afterwards.
    pub async fn close(&self) -> Result<EpochReport, AppError> {
        let readers = Arc::clone(&self.readers);
        tokio::task::spawn_blocking(move || readers.close())
            .await
            .map_err(|error| AppError::internal_context("closing the readers failed", error))?;
        self.writer.stop().await
    }

    /// Runs `work` on a read-only connection on a blocking thread, off the async executor.
    pub async fn read<T, F>(&self, work: F) -> Result<T, AppError>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, AppError> + Send + 'static,
    {
        let readers = Arc::clone(&self.readers);
        tokio::task::spawn_blocking(move || readers.with_connection(work))
            .await
            .map_err(|error| AppError::internal_context("read task failed", error))?
    }
}

fn configure(connection: &Connection) -> Result<(), AppError> {
    connection.busy_timeout(BUSY_TIMEOUT)?;
    // WAL lets readers run while the writer commits; FULL makes each commit durable
    // before the writer acknowledges it.
    let mode: String = connection.query_row("PRAGMA journal_mode = WAL", (), |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(AppError::internal(format!(
            "the database refused WAL mode (got {mode})"
        )));
    }
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", true)?;
    // Deleted content (used invitations, withdrawn responses, erased keys) is overwritten, not left
    // readable in free pages of the file.
    connection.pragma_update(None, "secure_delete", true)?;
    Ok(())
}

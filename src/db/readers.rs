//! The read connections: a few, each used by one blocking thread at a time.
//!
//! On SQLite a compaction epoch closes them all for a moment ([`ReadPool::closed_while`]):
//! SQLite deletes the WAL and its index (`-wal`, `-shm`) only when the connection that
//! leaves WAL mode is the only one with the file open (docs/design.md, invariant 8). A read
//! that arrives meanwhile waits for its slot and then opens a fresh connection, so readers
//! never see the epoch. A slot is empty until its first read, after an epoch, or after its
//! connection broke (a PostgreSQL server restarted); the read that finds it so opens one.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OpenFlags};

use super::sql::Conn;
use super::BUSY_TIMEOUT;
use crate::error::AppError;

/// Where read connections come from.
pub(super) enum Source {
    /// The database file, opened read-only.
    Sqlite(PathBuf),
    /// The URL of the PostgreSQL database.
    Postgres(String),
}

impl Source {
    fn open(&self) -> Result<Conn, AppError> {
        match self {
            Source::Sqlite(path) => {
                let connection = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                connection.busy_timeout(BUSY_TIMEOUT)?;
                connection.pragma_update(None, "query_only", true)?;
                Ok(super::sqlite::connection(connection))
            }
            Source::Postgres(url) => Ok(super::postgres::connection(url)?),
        }
    }
}

pub(super) struct ReadPool {
    slots: Vec<Mutex<Option<Conn>>>,
    next: AtomicUsize,
    source: Source,
    /// Set at the graceful stop: no connection opens again.
    closed: AtomicBool,
}

impl ReadPool {
    /// A pool of `size` connections to `source`, opened as reads need them.
    pub(super) fn new(source: Source, size: usize) -> Self {
        Self {
            slots: (0..size).map(|_| Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
            source,
            closed: AtomicBool::new(false),
        }
    }

    /// Opens every connection now, so that a database that cannot be read fails at start-up
    /// rather than at the first request.
    pub(super) fn open_all(&self) -> Result<(), AppError> {
        for slot in &self.slots {
            *lock(slot) = Some(self.source.open()?);
        }
        Ok(())
    }

    /// Runs `work` on a free connection, or waits for one; opens it first if its slot is
    /// empty or its connection broke.
    pub(super) fn with_connection<T>(
        &self,
        work: impl FnOnce(&Conn) -> Result<T, AppError>,
    ) -> Result<T, AppError> {
        let start = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        let free = (0..self.slots.len())
            .map(|offset| &self.slots[(start + offset) % self.slots.len()])
            .find_map(|slot| slot.try_lock().ok());
        let mut slot = free.unwrap_or_else(|| lock(&self.slots[start]));
        if self.closed.load(Ordering::Acquire) {
            return Err(AppError::internal("the database is closed"));
        }
        let connection = match slot.take() {
            Some(connection) if !connection.is_broken() => connection,
            _ => self.source.open().inspect_err(|error| {
                tracing::error!(%error, "cannot open a read connection");
            })?,
        };
        work(slot.insert(connection))
    }

    /// Runs `work` while no connection of this pool is open: waits for the reads in
    /// flight, closes every connection, and holds back the reads that arrive meanwhile
    /// until `work` is done (they then open fresh connections).
    pub(super) fn closed_while<T>(&self, work: impl FnOnce() -> T) -> T {
        let mut held: Vec<MutexGuard<'_, Option<Conn>>> = self.slots.iter().map(lock).collect();
        for slot in &mut held {
            **slot = None;
        }
        work()
    }

    /// Closes every connection for good (the graceful stop, before the writer closes its
    /// own, last, so that SQLite deletes the WAL and its index): a read after this fails.
    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.closed_while(|| ());
    }
}

/// A slot, even if a read panicked while holding it (its connection is still usable).
fn lock(slot: &Mutex<Option<Conn>>) -> MutexGuard<'_, Option<Conn>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

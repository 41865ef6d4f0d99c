//! `deniable backup` and `deniable restore`.
//!
//! A backup is `VACUUM INTO` a new file: one read transaction, so a consistent snapshot
//! (WAL readers never block the server's writer), and the copy is rebuilt in key order —
//! a compaction epoch of its own (docs/design.md, invariant 8): the responses stored since
//! the last epoch merged with the others, no arrival order, no free pages, no journal. It
//! is written beside the destination, checked with `PRAGMA integrity_check`, and only then
//! renamed into place. A restore copies a backup
//! back page by page with SQLite's backup API while nothing else has the database open.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use crate::error::AppError;

/// Pages per step: 1 MiB at SQLite's default 4 KiB pages, so progress moves visibly.
const PAGES_PER_STEP: i32 = 256;
const RETRY_PAUSE: Duration = Duration::from_millis(20);

/// How far a copy has come, in pages.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub copied: u64,
    pub total: u64,
}

/// Copies the database at `source` to the new file `destination`, compacted, while it
/// stays in use.
pub fn backup(source: &Path, destination: &Path) -> Result<(), AppError> {
    if !source.is_file() {
        return Err(AppError::invalid(
            "no_database",
            format!("there is no database at {}", source.display()),
        ));
    }
    if destination.exists() {
        return Err(AppError::conflict(
            "destination_exists",
            format!(
                "{} exists; a backup never overwrites",
                destination.display()
            ),
        ));
    }
    let partial = partial_path(destination);
    let _ = std::fs::remove_file(&partial); // Left over from an interrupted backup.
    let result = (|| {
        let reader = Connection::open_with_flags(source, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        reader.busy_timeout(Duration::from_secs(10))?;
        let partial_name = partial.to_str().ok_or_else(|| {
            AppError::invalid(
                "invalid_path",
                format!("{} is not valid UTF-8", destination.display()),
            )
        })?;
        vacuum_into(&reader, partial_name)?;
        drop(reader);
        // The copy's own epoch: the responses stored since the live file's last epoch join
        // the others, and the copy is rebuilt once more, so nothing in it sets them apart.
        let merging = super::connection(Connection::open(&partial)?);
        merging.execute_batch("PRAGMA secure_delete = ON; PRAGMA journal_mode = MEMORY")?;
        super::compaction::merge_arriving(&merging)?;
        merging.execute_batch("VACUUM")?;
        drop(merging);
        let copy = Connection::open(&partial)?;
        check_integrity(&copy, &partial)?;
        drop(copy);
        std::fs::rename(&partial, destination)
            .map_err(|error| AppError::internal_context("cannot rename the finished backup", error))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// Replaces the database at `target` with the backup at `source`. Refuses while anything
/// (a running server) has the target open: stop the server, restore, start it again.
pub fn restore(
    source: &Path,
    target: &Path,
    mut progress: impl FnMut(Progress),
) -> Result<(), AppError> {
    let backup =
        Connection::open_with_flags(source, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|error| {
            AppError::invalid(
                "invalid_backup",
                format!("cannot open {}: {error}", source.display()),
            )
        })?;
    check_integrity(&backup, source)?;
    if !looks_like_deniable(&backup)? {
        return Err(AppError::invalid(
            "invalid_backup",
            format!("{} is not a Deniable database", source.display()),
        ));
    }
    let mut live = Connection::open(target)?;
    live.busy_timeout(Duration::from_secs(1))?;
    // An exclusive lock is only granted when no other connection has the file open; the
    // restore then holds it until it is done, so no server can start halfway.
    live.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
    if take_exclusive_lock(&live).is_err() {
        return Err(AppError::conflict(
            "database_in_use",
            format!(
                "{} is in use (is a server running on it?): stop the server, restore, start it",
                target.display()
            ),
        ));
    }
    copy_pages(&backup, &mut live, PAGES_PER_STEP, &mut progress)?;
    check_integrity(&live, target)
}

fn copy_pages(
    from: &Connection,
    to: &mut Connection,
    pages_per_step: i32,
    progress: &mut impl FnMut(Progress),
) -> Result<(), AppError> {
    let backup = Backup::new(from, to)?;
    loop {
        let step = backup.step(pages_per_step)?;
        let done = backup.progress();
        let total = u64::try_from(done.pagecount).unwrap_or(0);
        let remaining = u64::try_from(done.remaining).unwrap_or(0);
        progress(Progress {
            copied: total.saturating_sub(remaining),
            total,
        });
        match step {
            StepResult::Done => return Ok(()),
            StepResult::More => {}
            // Another connection holds a lock for a moment: wait and go on.
            _ => std::thread::sleep(RETRY_PAUSE),
        }
    }
}

fn check_integrity(connection: &Connection, path: &Path) -> Result<(), AppError> {
    match integrity_check(connection)? {
        verdict if verdict == "ok" => Ok(()),
        verdict => Err(AppError::internal(format!(
            "{} fails PRAGMA integrity_check: {verdict}",
            path.display()
        ))),
    }
}

fn partial_path(destination: &Path) -> PathBuf {
    let mut name = destination.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// `PRAGMA integrity_check`: "ok", or the first problems found.
fn integrity_check(connection: &Connection) -> Result<String, AppError> {
    let mut statement = connection.prepare("PRAGMA integrity_check")?;
    let lines = statement
        .query_map([], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(lines.join("; "))
}

/// A compacted, self-contained copy of the database in the new file `path` (one read
/// transaction: a consistent snapshot).
fn vacuum_into(connection: &Connection, path: &str) -> Result<(), AppError> {
    connection.execute("VACUUM INTO ?1", [path])?;
    Ok(())
}

fn take_exclusive_lock(connection: &Connection) -> Result<(), AppError> {
    connection.execute_batch("BEGIN EXCLUSIVE; COMMIT")?;
    Ok(())
}

/// Whether a file holds Deniable's tables (of any schema version; a restored older one is
/// migrated at the next start).
fn looks_like_deniable(connection: &Connection) -> Result<bool, AppError> {
    let tables: i64 = connection.query_row(
        "SELECT count(*) FROM sqlite_master
         WHERE type = 'table' AND name IN ('researchers', 'surveys', 'questions')",
        [],
        |row| row.get(0),
    )?;
    Ok(tables == 3)
}

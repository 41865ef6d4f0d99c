//! The ceiling that durability allows on this disk, for bench/run: a bare SQLite loop that
//! commits the rows a durable 3-question submission stores, in groups, with the server's
//! settings (WAL, `synchronous=FULL`, its page cache), and nothing else — no HTTP, no
//! parsing, no savepoints, no lookups.
//!
//! Each group is one `BEGIN IMMEDIATE … COMMIT`: `--group` rows into `stored_responses`
//! (random 32-byte record ids, the 52-byte reports value of three yes/no reports) and the
//! three `report_counts` rows changed once by the group's summed changes, as the writer
//! does. Prints one line:
//!
//! ```text
//! CEILING group=… seconds=… rows=… rows_per_s=…
//! ```
//!
//! Usage: `sqlite_ceiling --db PATH [--group 256] [--seconds 10] [--prefill 0]`
//! (the file must not exist; `--prefill` rows go in first, unmeasured, in groups of 10 000).

use std::time::{Duration, Instant};

use deniable::db::{WAL_AUTOCHECKPOINT_PAGES, WRITER_CACHE_KIB};
use rusqlite::{params, Connection};

const SCHEMA: &str = "
    CREATE TABLE stored_responses (
        survey_id INTEGER NOT NULL,
        record_id BLOB NOT NULL CHECK (length(record_id) = 32),
        reports   BLOB NOT NULL,
        PRIMARY KEY (survey_id, record_id)
    ) WITHOUT ROWID;
    CREATE TABLE report_counts (
        question_id INTEGER NOT NULL,
        report      INTEGER NOT NULL CHECK (report BETWEEN 0 AND 19),
        n           INTEGER NOT NULL CHECK (n >= 0),
        PRIMARY KEY (question_id, report)
    ) WITHOUT ROWID;";

/// splitmix64: record ids that are uniformly spread over the key space, as SHA-256 ones are.
struct Ids(u64);

impl Ids {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn record_id(&mut self) -> [u8; 32] {
        let mut id = [0; 32];
        for chunk in id.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        id
    }
}

/// Format 1 of src/db/responses.rs: version byte, then (question id, ε, report) × 3.
fn reports_value(reports: [u8; 3]) -> Vec<u8> {
    let mut bytes = vec![1];
    for (question, report) in (1_i64..).zip(reports) {
        bytes.extend_from_slice(&question.to_le_bytes());
        bytes.extend_from_slice(&1.0986_f64.to_le_bytes());
        bytes.push(report);
    }
    bytes
}

fn commit_group(connection: &Connection, ids: &mut Ids, rows: usize) -> rusqlite::Result<()> {
    connection.execute_batch("BEGIN IMMEDIATE")?;
    let mut insert = connection.prepare_cached(
        "INSERT INTO stored_responses (survey_id, record_id, reports) VALUES (1, ?1, ?2)",
    )?;
    let mut yes = [0_i64; 3];
    for _ in 0..rows {
        let bits = ids.next_u64();
        let reports = [0, 1, 2].map(|q| u8::from(bits >> q & 1 == 1));
        for (count, report) in yes.iter_mut().zip(reports) {
            *count += i64::from(report);
        }
        insert.execute(params![ids.record_id(), reports_value(reports)])?;
    }
    let mut count = connection.prepare_cached(
        "INSERT INTO report_counts (question_id, report, n) VALUES (?1, ?2, ?3)
         ON CONFLICT (question_id, report) DO UPDATE SET n = n + excluded.n",
    )?;
    let rows = i64::try_from(rows).unwrap_or(i64::MAX);
    for (question, yes) in (1_i64..).zip(yes) {
        count.execute(params![question, 1, yes])?;
        count.execute(params![question, 0, rows - yes])?;
    }
    connection.execute_batch("COMMIT")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut db = None;
    let (mut group, mut seconds, mut prefill) = (256_usize, 10_u64, 0_usize);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--db" => db = Some(value),
            "--group" => group = value.parse()?,
            "--seconds" => seconds = value.parse()?,
            "--prefill" => prefill = value.parse()?,
            _ => return Err(format!("unknown option {flag}").into()),
        }
    }
    let db = db.ok_or("--db PATH is required")?;
    if std::path::Path::new(&db).exists() {
        return Err(format!("{db} exists; the ceiling needs a fresh file").into());
    }
    let connection = Connection::open(&db)?;
    // The server's settings (src/db/mod.rs).
    connection.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "secure_delete", true)?;
    connection.pragma_update(None, "cache_size", -WRITER_CACHE_KIB)?;
    connection.pragma_update(None, "wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES)?;
    connection.execute_batch(SCHEMA)?;
    let mut ids = Ids(0x5EED);
    let mut left = prefill;
    while left > 0 {
        let rows = left.min(10_000);
        commit_group(&connection, &mut ids, rows)?;
        left -= rows;
    }
    let started = Instant::now();
    let mut rows = 0_usize;
    while started.elapsed() < Duration::from_secs(seconds) {
        commit_group(&connection, &mut ids, group)?;
        rows += group;
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "CEILING group={group} seconds={elapsed:.3} rows={rows} rows_per_s={:.1}",
        rows as f64 / elapsed
    );
    Ok(())
}

//! Start-up: open and migrate the database, make sure the demo exists, start serving.

use std::net::{SocketAddr, TcpListener};

use actix_web::dev::{Server, ServerHandle};

use crate::config::Settings;
use crate::db::{queries, Database, DbLocation};
use crate::error::AppError;
use crate::http;

/// Opens the database (creating and migrating it) and creates the demo survey if absent.
pub async fn prepare_database(location: impl Into<DbLocation>) -> Result<Database, AppError> {
    prepare_database_with(location, crate::db::DEFAULT_COMPACT_EVERY).await
}

/// [`prepare_database`] with an epoch within `compact_every` of any write.
pub async fn prepare_database_with(
    location: impl Into<DbLocation>,
    compact_every: std::time::Duration,
) -> Result<Database, AppError> {
    let db = Database::open_with(location, compact_every)?;
    if db.write(queries::ensure_demo_survey).await? {
        tracing::info!("created the demo survey");
    }
    Ok(db)
}

/// A server listening on its port, not yet awaited.
pub struct Listening {
    pub addr: SocketAddr,
    pub server: Server,
}

impl Listening {
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }
}

/// Listens on `settings.addr` and builds the server on it.
pub fn listen(db: Database, settings: Settings) -> Result<Listening, AppError> {
    let addr = &settings.addr;
    let listener = TcpListener::bind(addr)
        .map_err(|error| AppError::internal_context(format!("cannot listen on {addr}"), error))?;
    let addr = listener.local_addr().map_err(AppError::internal)?;
    let server = http::server(listener, db, settings).map_err(AppError::internal)?;
    Ok(Listening { addr, server })
}

/// Raises the open-file soft limit to the hard limit: every connection, slow ones included,
/// holds a descriptor, and a low soft limit (often 1 024) turns many of them into refused
/// connections and failed database opens. Failure only leaves the limit as it was.
pub fn raise_open_file_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::debug!(limit, "open-file soft limit raised to the hard limit"),
        Err(error) => tracing::warn!(%error, "cannot raise the open-file limit"),
    }
}

//! How the server runs, in one place: `serve`'s flags (each with its environment variable)
//! and the [`Settings`] they make, which the start-up and the HTTP layer read.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::cli::DatabaseArgs;
use crate::db::{DbLocation, DEFAULT_COMPACT_EVERY};
use crate::http::{PublicUrl, BODY_READ_TIMEOUT};

/// Where `serve` listens unless told otherwise.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// The database `serve` opens unless told otherwise (a SQLite file in the working directory).
pub const DEFAULT_DB: &str = "deniable.db";

/// How the server is run: the CLI makes it from `serve`'s flags and the environment
/// ([`Settings::from_args`]); tests start from [`Settings::new`].
#[derive(Debug, Clone)]
pub struct Settings {
    /// Address to listen on, HOST:PORT (port 0: any free port).
    pub addr: String,
    /// The database: a SQLite file or a PostgreSQL URL.
    pub database: DbLocation,
    /// A compaction epoch runs within this long of any write (SQLite); on PostgreSQL, how
    /// often an idle node applies retention dates.
    pub compact_every: Duration,
    /// For development only: serve `/static/` from this directory instead of the files
    /// built into the binary. `None` (the default): the built-in files.
    pub static_dir: Option<PathBuf>,
    pub workers: usize,
    /// Send `Strict-Transport-Security`: only for deployments behind HTTPS.
    pub hsts: bool,
    /// Submissions per minute and client address (a burst of that many); `None`: unlimited.
    pub submissions_per_minute: Option<NonZeroU32>,
    /// Sign-in attempts per minute and client address (a burst of that many); `None`:
    /// unlimited.
    pub logins_per_minute: Option<NonZeroU32>,
    /// Behind a reverse proxy, the client is the last `X-Forwarded-For` address.
    pub trust_forwarded_for: bool,
    /// Where browsers reach this server: absolute links and the secure context come from
    /// it. `None`: from the request's own `Host` and this connection's scheme.
    pub public_url: Option<PublicUrl>,
    /// How long a request body may take to arrive ([`BODY_READ_TIMEOUT`]).
    pub body_read_timeout: Duration,
}

impl Settings {
    /// The defaults with `workers` workers: [`DEFAULT_ADDR`], [`DEFAULT_DB`], the built-in
    /// static files, no HSTS, no rate limit, no public URL.
    pub fn new(workers: usize) -> Self {
        Self {
            addr: DEFAULT_ADDR.to_owned(),
            database: DbLocation::Sqlite(PathBuf::from(DEFAULT_DB)),
            compact_every: DEFAULT_COMPACT_EVERY,
            static_dir: None,
            workers,
            hsts: false,
            submissions_per_minute: None,
            logins_per_minute: None,
            trust_forwarded_for: false,
            public_url: None,
            body_read_timeout: BODY_READ_TIMEOUT,
        }
    }

    /// The settings `serve`'s flags and environment ask for; an unset worker count is one
    /// per CPU, and a rate of 0 is no limit.
    pub fn from_args(args: ServeArgs) -> Self {
        let workers = args
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
        Self {
            addr: args.addr,
            database: args.database.db,
            compact_every: Duration::from_secs(args.compact_every),
            static_dir: args.static_dir,
            workers,
            hsts: args.hsts,
            submissions_per_minute: NonZeroU32::new(args.submissions_per_minute),
            logins_per_minute: NonZeroU32::new(args.logins_per_minute),
            trust_forwarded_for: args.trust_forwarded_for,
            public_url: args.public_url,
            body_read_timeout: BODY_READ_TIMEOUT,
        }
    }
}

/// `serve`'s flags: every one has an environment variable, and [`Settings::from_args`]
/// turns them into [`Settings`].
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on, HOST:PORT.
    #[arg(long, env = "DENIABLE_ADDR", default_value = DEFAULT_ADDR)]
    addr: String,
    #[command(flatten)]
    pub(crate) database: DatabaseArgs,
    /// For development only: serve /static/ (form.js, form.css, randomized_response.wasm,
    /// the workspace's files) from this directory instead of the copies built into the
    /// binary, so edits show without a rebuild.
    #[arg(long, env = "DENIABLE_STATIC_DIR")]
    static_dir: Option<PathBuf>,
    /// HTTP worker threads (default: one per CPU).
    #[arg(long, env = "DENIABLE_WORKERS")]
    workers: Option<usize>,
    /// Send Strict-Transport-Security: only when Deniable is reached over HTTPS (behind a
    /// TLS-terminating proxy); browsers then refuse plain HTTP to this host for two years.
    #[arg(long, env = "DENIABLE_HSTS")]
    hsts: bool,
    /// Submissions per minute from one client address (IPv6: one /64), as a burst refilled
    /// evenly; then 429 with Retry-After. Held in memory only, so per node: several nodes
    /// on one PostgreSQL database each allow this much. 0 turns the limit off (load tests
    /// with `simulate` come from one address).
    #[arg(long, env = "DENIABLE_SUBMISSIONS_PER_MINUTE", default_value_t = 300)]
    submissions_per_minute: u32,
    /// Sign-in attempts per minute from one client address (IPv6: one /64), right or
    /// wrong, as a burst refilled evenly; then 429 with Retry-After. Held in memory only;
    /// on top of the per-account slow-down (after 5 wrong passwords an hour, a wait of 1 s
    /// doubling per failure up to 15 min). 0 turns the limit off.
    #[arg(long, env = "DENIABLE_LOGINS_PER_MINUTE", default_value_t = 10)]
    logins_per_minute: u32,
    /// Seconds within which, after any write, a compaction epoch rewrites the database in
    /// key order and empties its WAL, so that the files no longer order what was stored by
    /// arrival (also at every graceful stop and in every backup). Responses stored since
    /// the last epoch may still be partly ordered in the files until the next one. On
    /// PostgreSQL (no epochs): how often an idle node applies retention dates.
    #[arg(long, env = "DENIABLE_COMPACT_EVERY", default_value_t = DEFAULT_COMPACT_EVERY.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    compact_every: u64,
    /// Take the client address from the last X-Forwarded-For entry. Only behind a reverse
    /// proxy that appends it (else clients could pick their address); behind a proxy
    /// without it, every client shares the proxy's allowance.
    #[arg(long, env = "DENIABLE_TRUST_FORWARDED_FOR")]
    trust_forwarded_for: bool,
    /// The address browsers reach Deniable at, e.g. https://surveys.example.org (http or
    /// https, a host, an optional port; no path). Respondent links, QR codes, sign-up links
    /// and invitation CSVs use it, and https makes cookies Secure with `__Host-` names.
    /// Without it they follow each request's own Host header and plain HTTP: set it behind
    /// a TLS-terminating proxy (X-Forwarded-Host/-Proto and Forwarded are never believed).
    #[arg(long, env = "DENIABLE_PUBLIC_URL", value_name = "URL")]
    public_url: Option<PublicUrl>,
}

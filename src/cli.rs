//! The command line: `deniable [serve]`, `researcher add`, `token create`, `survey create`,
//! `survey open`, `survey close`, `invitations create`, `backup`, `restore`, `simulate`,
//! `verify`.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use crate::config::{ServeArgs, Settings};
use crate::db::{backup, DbLocation};
use crate::domain::{
    Email, InvitationCount, Password, Slug, Survey, SurveyDefinition, SurveyDefinitionInput,
    SurveyStatus,
};
use crate::error::AppError;
use crate::http::PublicUrl;
use crate::serve;
use crate::services::{accounts, invitations, surveys};
use crate::simulate::{simulate_on, SimulationPlan, SimulationTarget, Truth};
use crate::verify;

#[derive(Debug, Parser)]
#[command(
    name = "deniable",
    version,
    about = "Surveys on sensitive questions (yes/no, choice, ordinal, number), randomized on \
             the respondent's device",
    long_about = "Deniable serves surveys whose answers are randomized on each respondent's \
                  device before anything is sent, so the server only holds deniable reports; \
                  researchers get debiased estimates with confidence intervals.\n\n\
                  Without a subcommand, `deniable` serves (on 127.0.0.1:8080 with ./deniable.db \
                  unless told otherwise): `deniable --addr 0.0.0.0:8080` is \
                  `deniable serve --addr 0.0.0.0:8080`.\n\n\
                  The database (--db, or DENIABLE_DB, for every command) is a SQLite file \
                  path (the embedded default; `serve` and `researcher add` create it, the other \
                  commands need it to exist), or a PostgreSQL URL \
                  (postgres://USER@HOST/DATABASE, or \
                  postgresql:///DATABASE?host=/run/postgresql) for several `serve` nodes on one \
                  database; its schema is created and migrated at start. On PostgreSQL privacy \
                  at rest is weaker: rows keep their order of arrival and the id of the \
                  transaction that wrote them, and the WAL, its archives and replicas keep \
                  history (docs/design.md, \"PostgreSQL\").",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// `serve`'s options, taken without the word `serve` too.
    #[command(flatten, next_help_heading = "Options of serve, the default command")]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the web application (the default).
    Serve(ServeArgs),
    /// Manage researcher accounts.
    #[command(subcommand)]
    Researcher(ResearcherCommand),
    /// Manage API tokens for scripts (`Authorization: Bearer <token>`).
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage surveys.
    #[command(subcommand)]
    Survey(SurveyCommand),
    /// Single-use invitations for surveys that require them.
    #[command(subcommand)]
    Invitations(InvitationsCommand),
    /// Copy the database to a new file PATH while the server keeps serving (SQLite's online
    /// backup: one consistent snapshot, checked with PRAGMA integrity_check).
    Backup {
        /// The backup file to create (never overwritten).
        path: PathBuf,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Replace the database with a backup. Stop the server first (restore refuses while
    /// the database is open), restore, then start the server again.
    Restore {
        /// The backup file to restore from.
        path: PathBuf,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Act as N respondents' devices against a running server, with known true answers for
    /// every question type, then compare the estimates and intervals with the truths. The
    /// demo and the load generator.
    Simulate(SimulateArgs),
    /// Check that a running survey serves this binary's page and code, as a browser would
    /// run them: render the form from the survey's public definition and require the served
    /// page byte for byte, with the headers that confine it (Content-Security-Policy,
    /// X-Content-Type-Options, Referrer-Policy, X-Frame-Options), fetched as Chrome fetches
    /// it, once as a page and once in a frame; then compare every script, style and
    /// WebAssembly module it loads with the copy built into this binary, printing each
    /// SHA-256 (ok or DIFFERENT). Exits non-zero with the reason on any difference. It
    /// checks what was served to these requests, not what others are served: check from
    /// the respondents' network, and more than once.
    Verify(VerifyArgs),
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// A survey link (https://host/s/SLUG or http://host:port/s/SLUG), or the server's base
    /// URL with --survey.
    #[arg(required_unless_present = "print_hashes")]
    url: Option<String>,
    /// The survey's slug, when URL is the server's base URL.
    #[arg(long)]
    survey: Option<String>,
    /// A PEM file of certificate authorities to trust besides the usual web roots, for an
    /// https server whose certificate a private authority signed.
    #[arg(long, value_name = "PATH")]
    ca_file: Option<PathBuf>,
    /// Print the SHA-256 of every file built into this binary (what a release publishes),
    /// and fetch nothing.
    #[arg(long, conflicts_with_all = ["url", "survey", "ca_file"])]
    print_hashes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DatabaseArgs {
    /// The database: a SQLite file path or a PostgreSQL URL (postgres://USER@HOST/DATABASE),
    /// the one the server uses; `deniable --help` says more.
    #[arg(
        long,
        env = "DENIABLE_DB",
        default_value = crate::config::DEFAULT_DB,
        value_name = "PATH|URL"
    )]
    pub(crate) db: DbLocation,
}

impl DatabaseArgs {
    /// Opens the database for a command that only changes what is in it: a mistyped path
    /// is refused instead of becoming a new, empty database the server never reads.
    fn open_existing(&self) -> Result<crate::db::Database, Box<dyn std::error::Error>> {
        if let DbLocation::Sqlite(path) = &self.db {
            if !path.is_file() {
                return Err(format!(
                    "no database at {path}: give --db (or DENIABLE_DB) the file the server \
                     uses; `deniable serve --db {path}` or `deniable researcher add` creates one",
                    path = path.display()
                )
                .into());
            }
        }
        Ok(crate::db::Database::open(&self.db)?)
    }

    /// The SQLite file of `backup` and `restore`; PostgreSQL has its own tools for both.
    fn sqlite_file(&self, command: &str) -> Result<PathBuf, Box<dyn std::error::Error>> {
        match &self.db {
            DbLocation::Sqlite(path) => Ok(path.clone()),
            DbLocation::Postgres(_) => Err(format!(
                "{command}: use pg_dump and pg_restore (or your PostgreSQL's backups) on \
                 PostgreSQL; `deniable {command}` copies SQLite files only"
            )
            .into()),
        }
    }
}

#[derive(Debug, Subcommand)]
enum ResearcherCommand {
    /// Add a researcher. The password (at least 12 characters) is asked for on the
    /// terminal, or read from the first line of standard input when it is not a terminal.
    Add {
        /// The researcher's e-mail address (their login).
        email: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
enum TokenCommand {
    /// Create an API token for a researcher and print it once; only its hash is stored.
    Create {
        /// The researcher's e-mail address.
        email: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
enum SurveyCommand {
    /// Create a draft survey from a JSON definition (the body `POST /api/surveys` takes):
    /// {"title": "...", "description": "...", "planned_respondents": 1000,
    ///  "requires_invitation": false,
    ///  "questions": [{"text": "...", "epsilon": 1.0}]}
    /// A survey fixed in advance adds "target_responses": 2000 and/or
    /// "closes_at": "2027-01-31T23:59:00Z" (UTC): its estimates are blinded until that rule
    /// closes it, then its exact interval is primary. Without either it is watched live.
    /// Inside a larger study (docs/embedding.md): "completion_url":
    /// "https://app.prolific.com/submissions/complete?cc=CODE" is where the form's Continue
    /// leads once a response is stored ({name} placeholders in its query or fragment are
    /// filled from the survey link's fragment), and "embed_origins":
    /// ["https://survey.example.org"] the sites that may show the form in a frame.
    Create {
        /// The owner's e-mail address.
        #[arg(long)]
        owner: String,
        /// The JSON definition file.
        #[arg(long)]
        file: PathBuf,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Open a draft survey: respondents can answer at /s/SLUG, and its questions and ε can
    /// no longer change. A running server on the same database shows it at once.
    Open {
        /// The survey's slug.
        slug: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Close an open survey for good: it takes no more responses, its invitation key is
    /// erased, and its releases are considered a last time (a survey with grouping
    /// questions or invitations withholds what never made a cell of min_cell new
    /// responses). A running server on the same database shows it at once.
    Close {
        /// The survey's slug.
        slug: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
enum InvitationsCommand {
    /// Create N single-use invitations and print them as CSV (invitation,link,key_fingerprint)
    /// for a mail merge: the code, the respondent's link, and the fingerprint of the survey
    /// key every link pins. The codes are printed only now; the database keeps their hashes.
    Create {
        /// The survey's slug (it must have been created with "requires_invitation": true).
        #[arg(long)]
        survey: String,
        /// How many invitations.
        #[arg(long)]
        count: u32,
        /// The public address respondents reach the server at, for the links (as the
        /// server's --public-url).
        #[arg(
            long,
            env = "DENIABLE_PUBLIC_URL",
            default_value = "http://127.0.0.1:8080",
            value_name = "URL"
        )]
        url: PublicUrl,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

/// The true answers' grammar, shown by `deniable simulate --help`.
const SIMULATE_HELP: &str = "\
TRUTHS (one per question, in question order, separated by commas):
  yes/no          the share whose true answer is yes: 0.3
  choice, ordinal each option's share in option order, separated by '/', adding up to 1:
                  0.5/0.3/0.2
  number          value:share pairs separated by '/', adding up to 1: 0:0.3/4:0.5/30:0.2

Exactly that many respondents (rounded; the spare ones to the largest remainders) hold each
truth, shuffled by --seed. Each device fetches the definition (a fresh nonce), randomizes
its answers with the question's design as the browser does, and posts only the reports.
With --token, each target (a yes share, every option's share, an ordinal question's mean
level on 1..k, a number's mean) is printed with its truth, estimate and intervals, and
whether each covers the truth. Each interval holds for its own target at --confidence; for
k targets at once, ask for 1 - (1 - confidence)/k (Bonferroni).

WHERE THE RESPONSES GO: simulated responses cannot be told from real ones, and only deleting
their survey removes them, so simulate answers only the demo survey (the default) or a new
survey it creates and opens with --token: --new-survey --definition FILE, or
--new-survey --from-survey SLUG for a copy of a survey's questions. Any other survey is
refused before anything is sent. If an error stops a run, it says how many responses were
stored, and in which survey. Question numbers (Q1, Q2, ...) are the form's, grouping
questions included.

Run the server with --submissions-per-minute 0: the devices all come from one address.

Examples: the demo survey's three yes/no questions; then a copy of survey SLUG with a
forced-response yes/no question, a choice of 4, an ordinal scale of 5 and a number from 0
to 30:
  deniable simulate --respondents 1000 --truth 0.3,0.2,0.1
  deniable simulate --new-survey --from-survey SLUG --respondents 10000 --token TOKEN \\
    --truth 0.3,0.4/0.3/0.2/0.1,0.1/0.2/0.3/0.25/0.15,0:0.3/5:0.4/30:0.3";

#[derive(Debug, Args)]
#[command(after_long_help = SIMULATE_HELP)]
struct SimulateArgs {
    /// Base URL of the running server.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// The survey to answer: only `demo`, the built-in demo survey. Simulated responses
    /// cannot be told from real ones, so any other survey is refused: simulate on a copy of
    /// its questions with --new-survey --from-survey SLUG.
    #[arg(long, value_name = "demo", conflicts_with = "new_survey")]
    survey: Option<String>,
    /// Create a new survey, open it and simulate on it (needs --token): from a definition
    /// file (--definition) or with a copy of an open or closed survey's questions
    /// (--from-survey). If it requires invitations, one is created per respondent.
    #[arg(long, requires = "new_survey_source")]
    new_survey: bool,
    /// With --new-survey: the JSON definition of the survey to create (the body
    /// `POST /api/surveys` and `survey create --file` take).
    #[arg(
        long,
        value_name = "FILE",
        group = "new_survey_source",
        requires = "new_survey"
    )]
    definition: Option<PathBuf>,
    /// With --new-survey: copy the questions (and language, invitations, min_cell) of this
    /// open or closed survey into the new one; the original is not touched.
    #[arg(
        long,
        value_name = "SLUG",
        group = "new_survey_source",
        requires = "new_survey"
    )]
    from_survey: Option<String>,
    /// How many respondents to simulate.
    #[arg(long, default_value_t = 1000)]
    respondents: usize,
    /// The true answers, one per question, separated by commas: a yes share (0.3), option
    /// shares (0.5/0.3/0.2) or a number's value:share pairs (0:0.3/4:0.7); more in --help.
    #[arg(long, value_delimiter = ',', required = true, value_name = "TRUTH,...")]
    truth: Vec<Truth>,
    /// Simultaneous requests in flight.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Seed of the shuffle that decides which respondents hold which truth (and, with
    /// --reproducible, of the devices' coins).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Derive every device's coins from --seed instead of the operating system, so the
    /// same seed gives the same reports (each device picks its bytes as its seed XOR the
    /// server's nonce). For tests and demos only: a real device's bytes are secret.
    #[arg(long)]
    reproducible: bool,
    /// Confidence level of the intervals compared with the truths.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// The survey owner's API token: with it, estimates are printed next to the truths.
    #[arg(long, env = "DENIABLE_TOKEN", hide_env_values = true)]
    token: Option<String>,
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    match cli.command {
        None => serve_command(cli.serve).await,
        Some(Command::Serve(args)) => serve_command(args).await,
        Some(Command::Researcher(ResearcherCommand::Add { email, database })) => {
            let email = Email::parse(&email)?;
            let password = Password::parse(read_password()?)?;
            let db = crate::db::Database::open(&database.db)?;
            accounts::add_researcher(&db, email.clone(), password).await?;
            println!("Added researcher {email}.");
            Ok(())
        }
        Some(Command::Token(TokenCommand::Create { email, database })) => {
            let db = database.open_existing()?;
            let token = accounts::create_token(&db, Email::parse(&email)?).await?;
            eprintln!(
                "A new API token (shown only now; send it as `Authorization: Bearer <token>`):"
            );
            println!("{}", token.expose());
            Ok(())
        }
        Some(Command::Survey(SurveyCommand::Create {
            owner,
            file,
            database,
        })) => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let input: SurveyDefinitionInput = serde_json::from_str(&text)
                .map_err(|e| format!("{} is not a survey definition: {e}", file.display()))?;
            let definition = SurveyDefinition::parse(input)?;
            let db = database.open_existing()?;
            let survey = surveys::create_draft_for(&db, Email::parse(&owner)?, definition)
                .await
                .map_err(AppError::from)?;
            println!(
                "Created draft survey {slug}; open it with `deniable survey open {slug}`. \
                 Respondents will answer at /s/{slug}",
                slug = survey.slug
            );
            Ok(())
        }
        Some(Command::Survey(SurveyCommand::Open { slug, database })) => {
            let survey =
                change_status(&database, &slug, SurveyStatus::Draft, SurveyStatus::Open).await?;
            println!(
                "Opened survey {slug}: respondents answer at /s/{slug}.",
                slug = survey.slug
            );
            Ok(())
        }
        Some(Command::Survey(SurveyCommand::Close { slug, database })) => {
            let survey =
                change_status(&database, &slug, SurveyStatus::Open, SurveyStatus::Closed).await?;
            println!(
                "Closed survey {slug}: it takes no more responses; its results are final.",
                slug = survey.slug
            );
            Ok(())
        }
        Some(Command::Invitations(InvitationsCommand::Create {
            survey,
            count,
            url,
            database,
        })) => {
            let slug = Slug::parse(&survey)?;
            let count = InvitationCount::parse(count)?;
            let db = database.open_existing()?;
            let survey = db
                .find_survey(slug.clone())
                .await?
                .ok_or(AppError::NotFound("survey"))?;
            let created = invitations::create(&db, &survey, count)
                .await
                .map_err(AppError::from)?;
            print!("{}", invitations::csv(url.origin(), &slug, &created));
            eprintln!(
                "{} invitations created for {slug}; every link pins the survey key {}.",
                created.codes.len(),
                created.fingerprint
            );
            Ok(())
        }
        Some(Command::Backup { path, database }) => {
            let source = database.sqlite_file("backup")?;
            let target = path.clone();
            eprintln!("backup: writing a compacted copy…");
            tokio::task::spawn_blocking(move || backup::backup(&source, &target)).await??;
            println!(
                "Backed up {} to {} (one self-contained file, compacted).",
                database.db,
                path.display()
            );
            Ok(())
        }
        Some(Command::Restore { path, database }) => {
            let (source, target) = (path.clone(), database.sqlite_file("restore")?);
            tokio::task::spawn_blocking(move || {
                backup::restore(&source, &target, print_progress("restore"))
            })
            .await??;
            println!("Restored {} from {}.", database.db, path.display());
            Ok(())
        }
        Some(Command::Simulate(args)) => simulate_command(args).await,
        Some(Command::Verify(args)) => verify_command(args).await,
    }
}

/// `survey open` and `survey close`: the change, with the errors a newcomer can act on.
async fn change_status(
    database: &DatabaseArgs,
    slug: &str,
    from: SurveyStatus,
    to: SurveyStatus,
) -> Result<Survey, Box<dyn std::error::Error>> {
    let slug = Slug::parse(slug)?;
    let db = database.open_existing()?;
    match surveys::change_status_as_operator(&db, slug.clone(), from, to)
        .await
        .map_err(AppError::from)
    {
        Err(AppError::NotFound(_)) => Err(format!(
            "no survey {slug} in {}; `deniable survey create` makes one",
            database.db
        )
        .into()),
        Err(AppError::Conflict { message, .. }) => Err(format!("survey {slug}: {message}").into()),
        other => Ok(other?),
    }
}

async fn verify_command(args: VerifyArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.print_hashes {
        println!(
            "# SHA-256 of the files built into deniable {}",
            env!("CARGO_PKG_VERSION")
        );
        for (name, hash) in verify::built_in_hashes() {
            println!("{hash}  {name}");
        }
        return Ok(());
    }
    let url = args.url.as_deref().unwrap_or_default();
    let (page, slug) = verify::form_page(url, args.survey.as_deref())?;
    println!(
        "Checking what {page} serves against deniable {}, asking as Chrome {} does:",
        env!("CARGO_PKG_VERSION"),
        verify::CHROME_MAJOR
    );
    let report = verify::verify(&page, &slug, args.ca_file.as_deref()).await?;
    for check in &report.checks {
        println!("{check}");
    }
    let checks = &report.checks;
    let different = checks.iter().filter(|check| !check.ok()).count();
    if different > 0 {
        return Err(format!(
            "{different} of {} checks differ from this binary's page, headers and files: this \
             server does not serve the code of this release to this request",
            checks.len()
        )
        .into());
    }
    println!(
        "The page (as a page and in a frame), its headers and all {} files are this binary's, \
         byte for byte. This checks what was served to these requests, not what others are \
         served.",
        report.files
    );
    Ok(())
}

async fn serve_command(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let settings = Settings::from_args(args);
    serve::raise_open_file_limit();
    let db = serve::prepare_database_with(&settings.database, settings.compact_every).await?;
    if settings.hsts && settings.public_url.is_none() {
        tracing::warn!(
            "--hsts without --public-url: links and cookies follow plain HTTP and the \
             request's Host; give --public-url https://… behind a TLS proxy"
        );
    }
    let public_url = settings.public_url.clone();
    let listening = serve::listen(db.clone(), settings)?;
    println!("Deniable is serving on http://{}", listening.addr);
    let public = public_url.map_or_else(
        || format!("http://{}", listening.addr),
        |url| url.to_string(),
    );
    println!("Demo survey for respondents: {public}/s/demo");
    if let Some(link) = accounts::prepare_setup_link(&db).await? {
        println!(
            "Create the first researcher account (one-time link): {public}/setup/{}",
            link.expose()
        );
    } else {
        println!("Researchers sign in at {public}/login");
    }
    let handle = listening.handle();
    actix_web::rt::spawn(async move {
        match shutdown_signal().await {
            Ok(signal) => {
                tracing::info!(signal, "stopping: no new connections, finishing requests")
            }
            Err(error) => tracing::error!(%error, "cannot listen for signals; stopping"),
        }
        // Graceful: stop accepting, let every request in flight get its answer.
        handle.stop(true).await;
    });
    listening.server.await?;
    let epoch = db.close().await?;
    println!("{}", db.stopped_message(&epoch));
    Ok(())
}

/// SIGTERM (service managers, `kill`) or Ctrl-C, whichever comes first.
#[cfg(unix)]
async fn shutdown_signal() -> std::io::Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate())?;
    tokio::select! {
        _ = terminate.recv() => Ok("SIGTERM"),
        interrupted = tokio::signal::ctrl_c() => interrupted.map(|()| "SIGINT"),
    }
}

#[cfg(not(unix))]
async fn shutdown_signal() -> std::io::Result<&'static str> {
    tokio::signal::ctrl_c().await.map(|()| "Ctrl-C")
}

/// Prints "copied/total pages" to standard error whenever the percentage moves.
fn print_progress(what: &'static str) -> impl FnMut(backup::Progress) {
    let mut last_percent = None;
    move |progress| {
        let percent = (progress.copied * 100)
            .checked_div(progress.total)
            .unwrap_or(100);
        if last_percent != Some(percent) {
            eprintln!(
                "{what}: {}/{} pages ({percent} %)",
                progress.copied, progress.total
            );
            last_percent = Some(percent);
        }
    }
}

fn read_password() -> Result<String, AppError> {
    let password = if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password("Password (at least 12 characters): ")
            .map_err(AppError::internal)?;
        let again =
            rpassword::prompt_password("Same password again: ").map_err(AppError::internal)?;
        if first != again {
            return Err(AppError::invalid(
                "password_mismatch",
                "the passwords differ",
            ));
        }
        first
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(AppError::internal)?;
        line.trim_end_matches(['\r', '\n']).to_owned()
    };
    Ok(password)
}

async fn simulate_command(args: SimulateArgs) -> Result<(), Box<dyn std::error::Error>> {
    // Refused before anything is sent: only the demo, or a survey created for this run.
    let target = match (&args.survey, &args.definition, &args.from_survey) {
        (_, Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--definition: cannot read {}: {e}", path.display()))?;
            SimulationTarget::NewSurvey(
                serde_json::from_str(&text)
                    .map_err(|e| format!("--definition: {} is not JSON: {e}", path.display()))?,
            )
        }
        (_, None, Some(slug)) => SimulationTarget::CopyOf(slug.clone()),
        (Some(slug), None, None) => SimulationTarget::existing(slug)?,
        (None, None, None) => SimulationTarget::Demo,
    };
    let plan = SimulationPlan {
        base_url: args.url,
        survey: String::new(),
        respondents: args.respondents,
        truths: args.truth,
        concurrency: args.concurrency,
        seed: args.seed,
        reproducible: args.reproducible,
        confidence: args.confidence,
        token: args.token,
        invitations: None,
    };
    let progress = ProgressBar::new(plan.respondents as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} respondents {per_sec} eta {eta}")
            .map_err(|e| e.to_string())?,
    );
    let started = Instant::now();
    let (slug, outcome) = simulate_on(&target, &plan, &progress).await?;
    let seconds = started.elapsed().as_secs_f64();
    let place = match target {
        SimulationTarget::Demo => "the demo survey".to_owned(),
        _ => format!("survey {slug}, created and opened for this run"),
    };
    println!(
        "{} responses submitted to {place} in {seconds:.1} s ({:.0}/s)",
        outcome.submitted,
        outcome.submitted as f64 / seconds
    );
    let checks = outcome.checks();
    // The truths are this run's; the estimates are the survey's, over every response it
    // holds (earlier runs and real respondents too): say so, and warn when they differ.
    // A question's n: the responses its figures count (the released ones).
    let held = |id: i64| {
        outcome
            .results
            .as_ref()
            .and_then(|results| results.questions.iter().find(|q| q.id == id))
            .map(|q| q.n)
    };
    if let Some(results) = &outcome.results {
        println!(
            "Truths: this run's {} respondents. Estimates and intervals: the survey's \
             results, over all the responses it holds (n below).",
            outcome.submitted
        );
        let before = results.responses.saturating_sub(outcome.submitted as u64);
        if before > 0 {
            println!(
                "The survey held up to {before} responses before this run: its estimates \
                 mix them in, so they need not match this run's truths. Simulate on a fresh \
                 survey to check the intervals."
            );
        }
    } else {
        println!("Truths: this run's {} respondents.", outcome.submitted);
    }
    for question in &outcome.questions {
        println!(
            "Q{} (id {}, {}, {}): {}",
            question.number,
            question.id,
            question.question_type.as_str(),
            question.design.as_str(),
            question.text
        );
        for target in &question.targets {
            let check = checks
                .iter()
                .find(|c| c.question_id == question.id && c.target == target.name);
            let Some(check) = check.filter(|c| c.estimate.is_some()) else {
                println!("    {}: this run's truth {:.4}", target.name, target.truth);
                continue;
            };
            let intervals: Vec<String> = check
                .intervals
                .iter()
                .map(|(name, bounds)| {
                    let verdict = if bounds.contains(check.truth) {
                        "covers"
                    } else {
                        "MISSES"
                    };
                    match bounds.range() {
                        Some((low, high)) => format!("{name} [{low:.4}, {high:.4}] {verdict}"),
                        None => format!("{name} empty {verdict}"),
                    }
                })
                .collect();
            println!(
                "    {}: this run's truth {:.4}, survey estimate {:.4} (n = {}); {}",
                target.name,
                target.truth,
                check.estimate.unwrap_or(f64::NAN),
                held(question.id).unwrap_or(0),
                intervals.join("; ")
            );
        }
    }
    if outcome.results.is_none() {
        println!("(Give --token or DENIABLE_TOKEN, the owner's API token, to see the estimates.)");
    } else {
        let intervals: usize = checks.iter().map(|c| c.intervals.len()).sum();
        let misses: usize = checks.iter().map(|c| c.misses().len()).sum();
        println!(
            "{} of {intervals} intervals cover this run's truth, each at {} % for its own \
             target ({} targets).",
            intervals - misses,
            plan.confidence * 100.0,
            checks.len()
        );
    }
    Ok(())
}

//! Benchmark helper for `bench/run` (see BENCHMARKS.md), two subcommands:
//!
//! `prefill fill --db PATH --responses N [--batch 5000]`
//!   Brings the demo survey of a database to N stored responses, without HTTP: batches of
//!   responses go through `Database::write` and `responses::store_response`, exactly the
//!   rows the submission route stores (random response id → record id and withdrawal tag,
//!   three random reports, reports counted). No server may run on the file meanwhile. Then
//!   `Database::close` runs one compaction epoch, as a graceful stop does, and the line
//!   `PREFILL stored=… added=… insert_s=… epoch_ms=… database_bytes=…` reports it.
//!
//! `prefill probe --url URL --log SERVER_LOG [--rate 200] [--seconds 25] [--guard 1] [--base N]`
//!   An open-loop load on a running server: `rate` submissions a second, each sent on
//!   schedule whatever the earlier ones are doing (as respondents do), with a
//!   `response_id` like the form's, for `seconds`. Each one's latency is counted from the
//!   moment it was due, so a submission that waited behind an epoch shows the whole wait.
//!   Afterwards it reads the server's log for `compaction epoch` lines (the end time and
//!   `duration_ms` give each epoch's interval) and compares the submissions in flight
//!   while an epoch ran with those that neither overlapped one nor started within `guard`
//!   seconds after one (the backlog's commit). Prints `EPOCH …` per epoch (with `stored`:
//!   `--base`, the responses stored before the probe, plus the probe's acknowledged before
//!   the epoch began) and one `PROBE …` line.
//!
//! All traffic goes to the given URL, which `bench/run` always sets to 127.0.0.1; the
//! run's length and the number of requests are bounded by `--seconds` and `--rate`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use deniable::db::{queries, responses, Database};
use deniable::domain::{ResponseId, Slug, Submission, SubmissionInput, SurveyId};
use rand::Rng;
use serde_json::{json, Map, Value};

type Failure = Box<dyn std::error::Error>;

fn usage() -> &'static str {
    "usage: prefill fill --db PATH --responses N [--batch 5000] [--slug demo]\n       \
     prefill probe --url http://127.0.0.1:PORT --log SERVER_LOG [--rate 200] [--seconds 25] \
     [--guard 1] [--base 0] [--slug demo]"
}

/// `--name value` pairs after the subcommand.
fn flags(args: &[String]) -> Result<Vec<(String, String)>, String> {
    if args.len() % 2 != 0 {
        return Err(format!("every option takes a value: {args:?}"));
    }
    args.chunks(2)
        .map(|pair| {
            let name = pair[0]
                .strip_prefix("--")
                .ok_or_else(|| format!("expected an option, got {:?}", pair[0]))?;
            Ok((name.to_owned(), pair[1].clone()))
        })
        .collect()
}

fn parsed<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("--{name}: cannot read {value:?}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("fill") => match fill_options(&args[1..]) {
            Ok(options) => fill(options).await,
            Err(message) => Err(message.into()),
        },
        Some("probe") => match probe_options(&args[1..]) {
            Ok(options) => probe(options).await,
            Err(message) => Err(message.into()),
        },
        _ => Err(usage().into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("prefill: {error}");
            ExitCode::FAILURE
        }
    }
}

// --- fill ------------------------------------------------------------------------------

struct FillOptions {
    db: PathBuf,
    responses: u64,
    batch: usize,
    /// An open survey of the file (default: the demo); every question gets 0 or 1, which a
    /// grouping question takes as its first or second option.
    slug: String,
}

fn fill_options(args: &[String]) -> Result<FillOptions, String> {
    let mut options = FillOptions {
        db: PathBuf::new(),
        responses: 0,
        batch: 5_000,
        slug: "demo".to_owned(),
    };
    for (name, value) in flags(args)? {
        match name.as_str() {
            "db" => options.db = PathBuf::from(value),
            "responses" => options.responses = parsed(&name, &value)?,
            "batch" => options.batch = parsed(&name, &value)?,
            "slug" => options.slug = value,
            _ => return Err(format!("unknown option --{name}\n{}", usage())),
        }
    }
    if options.db.as_os_str().is_empty() || !(1..=100_000).contains(&options.batch) {
        return Err(format!(
            "--db is required and --batch must be 1..=100000\n{}",
            usage()
        ));
    }
    Ok(options)
}

fn random_response_id(rng: &mut impl Rng) -> ResponseId {
    ResponseId::parse(&hex::encode(rng.random::<[u8; 32]>())).expect("64 lowercase hex digits")
}

/// Random reports for every question, as a device would send them.
fn random_answers(question_ids: &[i64], rng: &mut impl Rng) -> Map<String, Value> {
    question_ids
        .iter()
        .map(|id| (id.to_string(), json!(u8::from(rng.random_bool(0.5)))))
        .collect()
}

async fn stored_responses(db: &Database, survey_id: SurveyId) -> Result<u64, Failure> {
    let count = db
        .read(move |connection| {
            Ok(connection.query_row(
                "SELECT count(*) FROM all_responses WHERE survey_id = ?1",
                [survey_id.get()],
                |row| row.get::<_, i64>(0),
            )?)
        })
        .await?;
    Ok(u64::try_from(count).unwrap_or(0))
}

async fn fill(options: FillOptions) -> Result<(), Failure> {
    // No timer epoch while filling: the one epoch is the closing one, measured below.
    let db = Database::open_with(&options.db, Duration::from_secs(7 * 24 * 3600))?;
    db.write(queries::ensure_demo_survey).await?;
    let slug = Slug::parse(&options.slug)?;
    let survey = db
        .read(move |connection| queries::find_survey(connection, &slug))
        .await?
        .ok_or_else(|| format!("no survey {} in the file", options.slug))?;
    let survey = Arc::new(survey);
    // Randomized and grouping questions alike take 0 or 1.
    let question_ids: Vec<i64> = survey
        .questions
        .iter()
        .map(|q| q.id.get())
        .chain(survey.groupings.iter().map(|g| g.id.get()))
        .collect();
    let before = stored_responses(&db, survey.id).await?;
    let mut stored = before;
    let mut rng = rand::rng();
    let started = Instant::now();
    let mut next_progress = before;
    while stored < options.responses {
        let count = usize::try_from(options.responses - stored)
            .unwrap_or(usize::MAX)
            .min(options.batch);
        let mut batch = Vec::with_capacity(count);
        for _ in 0..count {
            let response_id = random_response_id(&mut rng);
            let input: SubmissionInput = serde_json::from_value(json!({
                "answers": random_answers(&question_ids, &mut rng),
                "response_id": response_id.as_str(),
            }))?;
            let submission = Submission::parse(input, &survey)?;
            batch.push((
                response_id.record_id(),
                db.withdrawal_key().tag(&response_id),
                submission,
            ));
        }
        let survey_id = survey.id;
        db.write(move |connection| {
            for (record_id, tag, submission) in &batch {
                // Prefilled surveys need no invitations (the demo and bench surveys).
                let outcome = responses::store_response(
                    connection,
                    survey_id,
                    record_id,
                    tag,
                    submission,
                    responses::TokenCheck::NotRequired,
                )?;
                if outcome != responses::Stored::Created {
                    return Err(deniable::error::AppError::internal(
                        "a random response id was already stored",
                    ));
                }
            }
            Ok(())
        })
        .await?;
        stored += count as u64;
        if stored >= next_progress {
            eprintln!(
                "prefill: {stored} / {} stored, {:.1} s",
                options.responses,
                started.elapsed().as_secs_f64()
            );
            next_progress = stored + (options.responses / 10).max(1);
        }
    }
    let insert_seconds = started.elapsed().as_secs_f64();
    let counted = stored_responses(&db, survey.id).await?;
    if counted != stored.max(before) {
        return Err(format!("expected {stored} stored responses, counted {counted}").into());
    }
    let epoch = db.close().await?;
    println!(
        "PREFILL stored={counted} added={} insert_s={insert_seconds:.2} epoch_ms={:.1} \
         database_bytes={}",
        counted - before,
        epoch.duration.as_secs_f64() * 1e3,
        epoch.database_bytes
    );
    Ok(())
}

// --- probe -----------------------------------------------------------------------------

struct ProbeOptions {
    url: String,
    log: PathBuf,
    slug: String,
    rate: f64,
    seconds: f64,
    guard: f64,
    base: u64,
}

fn probe_options(args: &[String]) -> Result<ProbeOptions, String> {
    let mut options = ProbeOptions {
        url: String::new(),
        log: PathBuf::new(),
        slug: "demo".to_owned(),
        rate: 200.0,
        seconds: 25.0,
        guard: 1.0,
        base: 0,
    };
    for (name, value) in flags(args)? {
        match name.as_str() {
            "url" => options.url = value.trim_end_matches('/').to_owned(),
            "log" => options.log = PathBuf::from(value),
            "slug" => options.slug = value,
            "rate" => options.rate = parsed(&name, &value)?,
            "seconds" => options.seconds = parsed(&name, &value)?,
            "guard" => options.guard = parsed(&name, &value)?,
            "base" => options.base = parsed(&name, &value)?,
            _ => return Err(format!("unknown option --{name}\n{}", usage())),
        }
    }
    if !options.url.starts_with("http://127.0.0.1:") {
        return Err("--url must be http://127.0.0.1:PORT (the benchmark stays on loopback)".into());
    }
    let bounded = (1.0..=5_000.0).contains(&options.rate)
        && (1.0..=600.0).contains(&options.seconds)
        && (0.0..=60.0).contains(&options.guard);
    if options.log.as_os_str().is_empty() || !bounded {
        return Err(format!(
            "--log is required; --rate 1..=5000, --seconds 1..=600, --guard 0..=60\n{}",
            usage()
        ));
    }
    Ok(options)
}

/// One submission: when it was due (Unix seconds), how long until its answer, its status.
struct Sample {
    due: f64,
    latency: f64,
    status: Result<u16, String>,
}

impl Sample {
    fn end(&self) -> f64 {
        self.due + self.latency
    }
}

/// An epoch from the server's log: [start, end] in Unix seconds.
struct Epoch {
    start: f64,
    end: f64,
    duration_ms: f64,
    database_bytes: u64,
}

async fn probe(options: ProbeOptions) -> Result<(), Failure> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        // Below the server's keep-alive (actix: 5 s), so that the pool never sends on a
        // connection the server is closing as idle (a client-side race, not a refusal).
        .pool_idle_timeout(Duration::from_secs(2))
        .build()?;
    let definition: Value = client
        .get(format!("{}/api/surveys/{}", options.url, options.slug))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let question_ids: Vec<i64> = definition["questions"]
        .as_array()
        .ok_or("the survey definition has no questions")?
        .iter()
        .filter_map(|q| q["id"].as_i64())
        .collect();
    let submit_url = format!("{}/api/surveys/{}/responses", options.url, options.slug);
    let total = (options.rate * options.seconds).round() as usize;
    let interval = Duration::from_secs_f64(1.0 / options.rate);
    let started = Instant::now();
    let started_unix = unix_now();
    let mut rng = rand::rng();
    let mut tasks = Vec::with_capacity(total);
    for i in 0..total {
        let due = started + interval * u32::try_from(i)?;
        tokio::time::sleep_until(due.into()).await;
        let body = json!({
            "answers": random_answers(&question_ids, &mut rng),
            "response_id": random_response_id(&mut rng).as_str(),
        });
        let (client, url) = (client.clone(), submit_url.clone());
        let due_unix = started_unix + (due - started).as_secs_f64();
        tasks.push(tokio::spawn(async move {
            let status = match client.post(&url).json(&body).send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    // The whole answer, as a device reads it.
                    match response.bytes().await {
                        Ok(_) => Ok(status),
                        Err(error) => Err(format!("reading the answer: {error}")),
                    }
                }
                Err(error) => Err(error_chain(&error)),
            };
            Sample {
                due: due_unix,
                latency: due.elapsed().as_secs_f64(),
                status,
            }
        }));
    }
    let mut samples = Vec::with_capacity(total);
    for task in tasks {
        samples.push(task.await?);
    }
    let sent_for = started.elapsed().as_secs_f64();
    // The epoch that ends last may be logged a moment after its last submission's answer.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let window_start = started_unix;
    let window_end = samples.iter().map(Sample::end).fold(window_start, f64::max);
    let epochs: Vec<Epoch> = read_epochs(&options.log)?
        .into_iter()
        .filter(|epoch| epoch.end >= window_start && epoch.start <= window_end)
        .collect();

    let mut failed = 0;
    let mut last_failure = "-".to_owned();
    for sample in &samples {
        match &sample.status {
            Ok(201) => {}
            Ok(other) => {
                failed += 1;
                last_failure = other.to_string();
            }
            Err(error) => {
                failed += 1;
                last_failure = format!("{:?}", error.replace(' ', "_"));
            }
        }
    }
    let overlaps = |sample: &Sample, epoch: &Epoch, tail: f64| {
        sample.due <= epoch.end + tail && sample.end() >= epoch.start
    };
    let mut during = Vec::new();
    let mut outside = Vec::new();
    for sample in &samples {
        if epochs.iter().any(|epoch| overlaps(sample, epoch, 0.0)) {
            during.push(sample.latency);
        } else if !epochs
            .iter()
            .any(|epoch| overlaps(sample, epoch, options.guard))
        {
            outside.push(sample.latency);
        }
    }
    for epoch in &epochs {
        let mut caught: Vec<f64> = samples
            .iter()
            .filter(|sample| overlaps(sample, epoch, 0.0))
            .map(|sample| sample.latency)
            .collect();
        let stats = Stats::of(&mut caught);
        let acknowledged_before = samples
            .iter()
            .filter(|sample| sample.status == Ok(201) && sample.end() < epoch.start)
            .count() as u64;
        println!(
            "EPOCH at_s={:.2} duration_ms={:.1} database_bytes={} stored={} in_flight={} \
             p50_ms={:.1} p99_ms={:.1} max_ms={:.1}",
            epoch.start - window_start,
            epoch.duration_ms,
            epoch.database_bytes,
            options.base + acknowledged_before,
            stats.n,
            stats.p50,
            stats.p99,
            stats.max
        );
    }
    let during = Stats::of(&mut during);
    let outside = Stats::of(&mut outside);
    let durations: Vec<String> = epochs
        .iter()
        .map(|epoch| format!("{:.1}", epoch.duration_ms))
        .collect();
    println!(
        "PROBE requests={} failed={failed} last_failure={last_failure} rate={} sent_s={sent_for:.1} \
         epochs={} epoch_ms={} database_bytes={} \
         during_n={} during_p50_ms={:.2} during_p99_ms={:.2} during_max_ms={:.2} \
         outside_n={} outside_p50_ms={:.2} outside_p99_ms={:.2} outside_max_ms={:.2}",
        samples.len(),
        options.rate,
        epochs.len(),
        if durations.is_empty() {
            "-".to_owned()
        } else {
            durations.join(",")
        },
        epochs.last().map_or(0, |epoch| epoch.database_bytes),
        during.n,
        during.p50,
        during.p99,
        during.max,
        outside.n,
        outside.p50,
        outside.p99,
        outside.max,
    );
    Ok(())
}

/// Latencies in milliseconds: count, nearest-rank percentiles, maximum (zeros when empty).
struct Stats {
    n: usize,
    p50: f64,
    p99: f64,
    max: f64,
}

impl Stats {
    fn of(seconds: &mut [f64]) -> Self {
        seconds.sort_by(f64::total_cmp);
        let rank = |p: f64| {
            if seconds.is_empty() {
                0.0
            } else {
                let k = ((p * seconds.len() as f64).ceil() as usize).clamp(1, seconds.len());
                seconds[k - 1] * 1e3
            }
        };
        Self {
            n: seconds.len(),
            p50: rank(0.50),
            p99: rank(0.99),
            max: seconds.last().map_or(0.0, |s| s * 1e3),
        }
    }
}

/// An error with its causes, `a: b: c`.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The `compaction epoch` lines of a server log (tracing's default format, colours or not):
/// `2026-11-23T15:06:58.343711Z  INFO deniable::db::compaction: compaction epoch
/// duration_ms=5.5 database_bytes=77824`. The timestamp is the epoch's end.
fn read_epochs(log: &std::path::Path) -> Result<Vec<Epoch>, Failure> {
    let text = std::fs::read(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let text = String::from_utf8_lossy(&text);
    let mut epochs = Vec::new();
    for line in text
        .lines()
        .filter(|line| line.contains("compaction epoch"))
    {
        let line = strip_ansi(line);
        let field = |key: &str| {
            line.split_whitespace()
                .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_owned)
        };
        let (Some(end), Some(duration_ms), Some(bytes)) = (
            line.split_whitespace().next().and_then(parse_rfc3339_utc),
            field("duration_ms").and_then(|v| v.parse::<f64>().ok()),
            field("database_bytes").and_then(|v| v.parse::<u64>().ok()),
        ) else {
            return Err(format!("cannot read the epoch line {line:?}").into());
        };
        epochs.push(Epoch {
            start: end - duration_ms / 1e3,
            end,
            duration_ms,
            database_bytes: bytes,
        });
    }
    Ok(epochs)
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte (a letter).
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `YYYY-MM-DDTHH:MM:SS(.fraction)Z` to Unix seconds.
fn parse_rfc3339_utc(text: &str) -> Option<f64> {
    let text = text.strip_suffix('Z')?;
    let (date, time) = text.split_once('T')?;
    let mut date = date.split('-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let mut time = time.splitn(3, ':');
    let hour: i64 = time.next()?.parse().ok()?;
    let minute: i64 = time.next()?.parse().ok()?;
    let second: f64 = time.next()?.parse().ok()?;
    // Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + hour * 3_600 + minute * 60) as f64 + second)
}

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

#[actix_web::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, never in a file or a journal.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    match deniable::cli::run(deniable::cli::Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

//! Where the data lives: a SQLite file (a path: the embedded default) or a PostgreSQL
//! database (a `postgres://` or `postgresql://` URL), as `--db` and `DENIABLE_DB` say.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbLocation {
    Sqlite(PathBuf),
    Postgres(String),
}

impl DbLocation {
    pub fn is_postgres(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// The SQLite file, if that is the engine.
    pub fn sqlite_path(&self) -> Option<&Path> {
        match self {
            Self::Sqlite(path) => Some(path),
            Self::Postgres(_) => None,
        }
    }
}

impl FromStr for DbLocation {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            // The client parses it for good when it connects; refuse the obviously broken here.
            postgres::Config::from_str(text)
                .map_err(|error| format!("not a PostgreSQL connection URL: {error}"))?;
            Ok(Self::Postgres(text.to_owned()))
        } else if text.is_empty() {
            Err("give a SQLite file path or a postgres:// URL".to_owned())
        } else {
            Ok(Self::Sqlite(PathBuf::from(text)))
        }
    }
}

/// Shown in messages: the path, or the URL without its password.
impl fmt::Display for DbLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "{}", path.display()),
            Self::Postgres(url) => match url::Url::parse(url) {
                Ok(mut parsed) if parsed.password().is_some() => {
                    let _ = parsed.set_password(Some("***"));
                    write!(f, "{parsed}")
                }
                _ => f.write_str(url),
            },
        }
    }
}

impl From<PathBuf> for DbLocation {
    fn from(path: PathBuf) -> Self {
        Self::Sqlite(path)
    }
}

impl From<&PathBuf> for DbLocation {
    fn from(path: &PathBuf) -> Self {
        Self::Sqlite(path.clone())
    }
}

impl From<&Path> for DbLocation {
    fn from(path: &Path) -> Self {
        Self::Sqlite(path.to_owned())
    }
}

impl From<&DbLocation> for DbLocation {
    fn from(location: &DbLocation) -> Self {
        location.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_choose_postgres_and_anything_else_is_a_sqlite_file() {
        assert!("postgres://u@localhost/db"
            .parse::<DbLocation>()
            .unwrap()
            .is_postgres());
        assert!("postgresql:///db?host=/tmp"
            .parse::<DbLocation>()
            .unwrap()
            .is_postgres());
        assert_eq!(
            "data/deniable.db".parse::<DbLocation>().unwrap(),
            DbLocation::Sqlite(PathBuf::from("data/deniable.db"))
        );
        let shown = "postgres://u:secret@db.example/deniable"
            .parse::<DbLocation>()
            .unwrap()
            .to_string();
        assert!(!shown.contains("secret"), "{shown}");
    }
}

//! One connection type for both engines: [`Conn`] runs the same SQL text on SQLite or on
//! PostgreSQL, so every query function of `src/db` is written once and handlers never
//! learn which engine serves them.
//!
//! The query text is written for SQLite with `?N` placeholders (SQLite and PostgreSQL
//! share `ON CONFLICT … DO …`, `RETURNING`, `->>` on JSON and the rest of what Deniable
//! uses); on PostgreSQL each `?N` becomes `$N` once, when the statement is first prepared,
//! and the prepared statement is kept per connection. Parameters are [`Value`]s and
//! columns are read through [`FromValue`]: one integer type, one real, text and bytes, as
//! SQLite stores them, converted on PostgreSQL to whatever the column or parameter is
//! (`integer`, `bigint`, `boolean`, `numeric` of an aggregate, `json`, …). The few places
//! where the engines differ in meaning ask [`Conn::rules`] ([`EngineRules`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use crate::domain::SurveyId;
use crate::error::AppError;

/// A parameter value, borrowed from the caller for the length of one statement.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// A value read from a row, borrowed from it.
#[derive(Debug, Clone, Copy)]
pub enum ValueRef<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// What can be bound as a parameter.
pub trait ToValue {
    fn to_value(&self) -> Value<'_>;
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value<'_> {
        (**self).to_value()
    }
}

impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value<'_> {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

macro_rules! integer_to_value {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            fn to_value(&self) -> Value<'_> {
                Value::Int(i64::from(*self))
            }
        }
    )*};
}
integer_to_value!(i64, i32, i16, i8, u32, u16, u8, bool);

impl ToValue for f64 {
    fn to_value(&self) -> Value<'_> {
        Value::Real(*self)
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToValue for String {
    fn to_value(&self) -> Value<'_> {
        Value::Text(self)
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl ToValue for Vec<u8> {
    fn to_value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

impl<const N: usize> ToValue for [u8; N] {
    fn to_value(&self) -> Value<'_> {
        Value::Blob(self)
    }
}

/// A statement's parameters: `()`, an array of one type, or [`params!`]'s mixed slice.
pub trait Params {
    fn values(&self) -> Vec<Value<'_>>;
}

impl Params for () {
    fn values(&self) -> Vec<Value<'_>> {
        Vec::new()
    }
}

impl<T: ToValue, const N: usize> Params for [T; N] {
    fn values(&self) -> Vec<Value<'_>> {
        self.iter().map(ToValue::to_value).collect()
    }
}

impl Params for &[&dyn ToValue] {
    fn values(&self) -> Vec<Value<'_>> {
        self.iter().map(|value| value.to_value()).collect()
    }
}

/// Parameters of mixed types, as rusqlite's macro of the same name.
#[macro_export]
macro_rules! sql_params {
    () => { () };
    ($($param:expr),+ $(,)?) => {
        &[$(&$param as &dyn $crate::db::sql::ToValue),+] as &[&dyn $crate::db::sql::ToValue]
    };
}
pub use crate::sql_params as params;

/// What can be read from a column.
pub trait FromValue: Sized {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error>;
}

fn type_error(wanted: &str, got: ValueRef<'_>) -> Error {
    Error::Decode(format!("expected {wanted}, the column holds {got:?}"))
}

impl FromValue for i64 {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Int(v) => Ok(v),
            other => Err(type_error("an integer", other)),
        }
    }
}

macro_rules! integer_from_value {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
                let wide = i64::from_value(value)?;
                <$t>::try_from(wide).map_err(|_| {
                    Error::Decode(format!("{wide} is out of range of {}", stringify!($t)))
                })
            }
        }
    )*};
}
integer_from_value!(i32, u32, u8, u16, u64, usize);

impl FromValue for bool {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
        Ok(i64::from_value(value)? != 0)
    }
}

impl FromValue for f64 {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Real(v) => Ok(v),
            // SQLite hands back a REAL column's whole values as such.
            #[allow(clippy::cast_precision_loss)]
            ValueRef::Int(v) => Ok(v as f64),
            other => Err(type_error("a real number", other)),
        }
    }
}

impl FromValue for String {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Text(text) => Ok(text.to_owned()),
            other => Err(type_error("text", other)),
        }
    }
}

impl FromValue for Vec<u8> {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Blob(bytes) => Ok(bytes.to_vec()),
            other => Err(type_error("bytes", other)),
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: ValueRef<'_>) -> Result<Self, Error> {
        match value {
            ValueRef::Null => Ok(None),
            other => T::from_value(other).map(Some),
        }
    }
}

/// A column's position (rusqlite's `row.get::<_, T>(0)` shape, kept).
pub trait ColumnIndex {
    fn position(self) -> usize;
}

impl ColumnIndex for usize {
    fn position(self) -> usize {
        self
    }
}

/// One row of a result.
pub struct Row<'a> {
    inner: RowInner<'a>,
}

enum RowInner<'a> {
    Sqlite(&'a rusqlite::Row<'a>),
    Postgres(&'a postgres::Row),
}

impl Row<'_> {
    pub fn get<I: ColumnIndex, T: FromValue>(&self, index: I) -> Result<T, Error> {
        let index = index.position();
        match &self.inner {
            RowInner::Sqlite(row) => {
                let value = match row.get_ref(index)? {
                    rusqlite::types::ValueRef::Null => ValueRef::Null,
                    rusqlite::types::ValueRef::Integer(v) => ValueRef::Int(v),
                    rusqlite::types::ValueRef::Real(v) => ValueRef::Real(v),
                    rusqlite::types::ValueRef::Text(bytes) => ValueRef::Text(
                        std::str::from_utf8(bytes)
                            .map_err(|error| Error::Decode(error.to_string()))?,
                    ),
                    rusqlite::types::ValueRef::Blob(bytes) => ValueRef::Blob(bytes),
                };
                T::from_value(value)
            }
            RowInner::Postgres(row) => {
                let raw: pg::Raw<'_> = row.try_get(index)?;
                T::from_value(pg::decode(row.columns()[index].type_(), raw.0)?)
            }
        }
    }
}

/// A database error, with the two kinds callers tell apart.
#[derive(Debug)]
pub enum Error {
    /// `query_row` found no row (see [`OptionalExtension`]).
    NoRows,
    Sqlite(rusqlite::Error),
    Postgres(postgres::Error),
    Decode(String),
}

impl Error {
    /// A UNIQUE or PRIMARY KEY constraint refused the row.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            Self::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::ConstraintViolation
                    && matches!(
                        e.extended_code,
                        rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                            | rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                    )
            }
            Self::Postgres(error) => {
                error.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION)
            }
            _ => false,
        }
    }

    /// SQLite: another connection holds a lock this statement needs (`SQLITE_BUSY`).
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Self::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoRows => f.write_str("the query returned no rows"),
            Self::Sqlite(error) => write!(f, "{error}"),
            Self::Postgres(error) => match error.as_db_error() {
                Some(db) => write!(f, "{}: {}", db.code().code(), db.message()),
                None => write!(f, "{error}"),
            },
            Self::Decode(cause) => f.write_str(cause),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Sqlite(error) => Some(error),
            Self::Postgres(error) => Some(error),
            Self::NoRows | Self::Decode(_) => None,
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(error: rusqlite::Error) -> Self {
        match error {
            rusqlite::Error::QueryReturnedNoRows => Self::NoRows,
            other => Self::Sqlite(other),
        }
    }
}

impl From<postgres::Error> for Error {
    fn from(error: postgres::Error) -> Self {
        Self::Postgres(error)
    }
}

impl From<Error> for AppError {
    fn from(error: Error) -> Self {
        Self::internal_context("database", error)
    }
}

/// `query_row(…).optional()`: no row is `None`, not an error.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>, Error>;
}

impl<T> OptionalExtension<T> for Result<T, Error> {
    fn optional(self) -> Result<Option<T>, Error> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::NoRows) => Ok(None),
            Err(error) => Err(error),
        }
    }
}

/// A connection to either engine. Used by one thread at a time (the writer, or a reader
/// on a blocking thread), so the PostgreSQL client sits in a `RefCell`.
pub struct Conn {
    inner: ConnInner,
    rules: &'static dyn EngineRules,
}

enum ConnInner {
    Sqlite(rusqlite::Connection),
    Postgres(Box<pg::Client>),
}

impl Conn {
    /// A SQLite connection with its engine's rules (`sqlite::connection` pairs them).
    pub fn sqlite(connection: rusqlite::Connection, rules: &'static dyn EngineRules) -> Self {
        // Every statement goes through the statement cache; Deniable has about a hundred.
        connection.set_prepared_statement_cache_capacity(256);
        Self {
            inner: ConnInner::Sqlite(connection),
            rules,
        }
    }

    /// Connects to a PostgreSQL URL (`postgres://…`, `postgresql://…`). Not from an async
    /// task: the blocking client runs a runtime of its own.
    pub fn postgres(url: &str, rules: &'static dyn EngineRules) -> Result<Self, Error> {
        Ok(Self {
            inner: ConnInner::Postgres(Box::new(pg::Client::connect(url)?)),
            rules,
        })
    }

    /// What this connection's engine does differently ([`EngineRules`]).
    pub fn rules(&self) -> &'static dyn EngineRules {
        self.rules
    }

    /// The SQLite connection itself, for what only SQLite has (PRAGMAs, backup, VACUUM).
    pub fn as_sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.inner {
            ConnInner::Sqlite(connection) => Some(connection),
            ConnInner::Postgres(_) => None,
        }
    }

    /// Whether the connection is gone (a PostgreSQL server restarted or dropped it).
    pub fn is_broken(&self) -> bool {
        match &self.inner {
            ConnInner::Sqlite(_) => false,
            ConnInner::Postgres(client) => client.is_closed(),
        }
    }

    /// Rows changed through this connection since it opened (SQLite: `total_changes()`).
    pub fn total_changes(&self) -> u64 {
        match &self.inner {
            ConnInner::Sqlite(connection) => connection.total_changes(),
            ConnInner::Postgres(client) => client.changes.get(),
        }
    }

    /// Closes the connection and reports what SQLite says (dropping it ignores that).
    pub fn close(self) -> Result<(), Error> {
        match self.inner {
            ConnInner::Sqlite(connection) => connection.close().map_err(|(_, error)| error.into()),
            ConnInner::Postgres(_) => Ok(()),
        }
    }

    /// Runs statements without parameters, separated by semicolons.
    pub fn execute_batch(&self, sql: &str) -> Result<(), Error> {
        match &self.inner {
            ConnInner::Sqlite(connection) => Ok(connection.execute_batch(sql)?),
            ConnInner::Postgres(client) => client.batch_execute(sql),
        }
    }

    pub fn execute<P: Params>(&self, sql: &str, params: P) -> Result<usize, Error> {
        self.prepare_cached(sql)?.execute(params)
    }

    pub fn query_row<T, P: Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&Row<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    /// A statement; the text is prepared when it first runs and kept for the next time.
    pub fn prepare<'a>(&'a self, sql: &'a str) -> Result<Statement<'a>, Error> {
        Ok(Statement { conn: self, sql })
    }

    /// The same as [`Conn::prepare`]: every statement is cached on both engines.
    pub fn prepare_cached<'a>(&'a self, sql: &'a str) -> Result<Statement<'a>, Error> {
        self.prepare(sql)
    }
}

/// A statement of a connection.
pub struct Statement<'a> {
    conn: &'a Conn,
    sql: &'a str,
}

impl Statement<'_> {
    pub fn execute<P: Params>(&self, params: P) -> Result<usize, Error> {
        let values = params.values();
        match &self.conn.inner {
            ConnInner::Sqlite(connection) => Ok(connection
                .prepare_cached(self.sql)?
                .execute(rusqlite::params_from_iter(values.iter()))?),
            ConnInner::Postgres(client) => client.execute(self.sql, &values),
        }
    }

    /// The first row's `f`; [`Error::NoRows`] without one.
    pub fn query_row<T, P: Params>(
        &self,
        params: P,
        f: impl FnOnce(&Row<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut f = Some(f);
        let mut found = None;
        self.for_each_row::<Error>(params, |row| {
            if let Some(f) = f.take() {
                found = Some(f(row)?);
            }
            Ok(())
        })?;
        found.ok_or(Error::NoRows)
    }

    /// Whether the query returns any row.
    pub fn exists<P: Params>(&self, params: P) -> Result<bool, Error> {
        self.query_row(params, |_| Ok(()))
            .optional()
            .map(|found| found.is_some())
    }

    /// Every row's `f`, in order.
    pub fn query_map<T, P: Params>(
        &self,
        params: P,
        mut f: impl FnMut(&Row<'_>) -> Result<T, Error>,
    ) -> Result<std::vec::IntoIter<Result<T, Error>>, Error> {
        let mut rows = Vec::new();
        self.for_each_row::<Error>(params, |row| {
            rows.push(Ok(f(row)?));
            Ok(())
        })?;
        Ok(rows.into_iter())
    }

    /// Runs `f` on every row as it is read (SQLite steps the statement; PostgreSQL streams
    /// the rows), so a scan of many rows holds one at a time. `f` must not use the
    /// connection.
    pub fn for_each_row<E: From<Error>>(
        &self,
        params: impl Params,
        mut f: impl FnMut(&Row<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let values = params.values();
        match &self.conn.inner {
            ConnInner::Sqlite(connection) => {
                let mut statement = connection.prepare_cached(self.sql).map_err(Error::from)?;
                let mut rows = statement
                    .query(rusqlite::params_from_iter(values.iter()))
                    .map_err(Error::from)?;
                while let Some(row) = rows.next().map_err(Error::from)? {
                    f(&Row {
                        inner: RowInner::Sqlite(row),
                    })?;
                }
                Ok(())
            }
            ConnInner::Postgres(client) => client.for_each_row(self.sql, &values, |row| {
                f(&Row {
                    inner: RowInner::Postgres(row),
                })
            }),
        }
    }
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef as Sqlite};
        Ok(ToSqlOutput::Borrowed(match *self {
            Value::Null => Sqlite::Null,
            Value::Int(v) => Sqlite::Integer(v),
            Value::Real(v) => Sqlite::Real(v),
            Value::Text(text) => Sqlite::Text(text.as_bytes()),
            Value::Blob(bytes) => Sqlite::Blob(bytes),
        }))
    }
}

/// The PostgreSQL side: the blocking `postgres` client, statements prepared once per
/// connection, and the conversions between [`Value`] and PostgreSQL's binary formats.
mod pg {
    use super::{Cell, Error, HashMap, RefCell, Value, ValueRef};
    use postgres::types::{FromSql, IsNull, ToSql, Type};
    use postgres::{fallible_iterator::FallibleIterator, NoTls};

    pub(super) struct Client {
        /// Always `Some` until dropped (see the `Drop` below).
        client: RefCell<Option<postgres::Client>>,
        statements: RefCell<HashMap<String, postgres::Statement>>,
        pub(super) changes: Cell<u64>,
    }

    impl Client {
        pub(super) fn connect(url: &str) -> Result<Self, Error> {
            Ok(Self {
                client: RefCell::new(Some(postgres::Client::connect(url, NoTls)?)),
                statements: RefCell::default(),
                changes: Cell::new(0),
            })
        }

        pub(super) fn is_closed(&self) -> bool {
            self.client
                .borrow()
                .as_ref()
                .is_none_or(postgres::Client::is_closed)
        }

        /// The client, for one call.
        fn with<T>(
            &self,
            work: impl FnOnce(&mut postgres::Client) -> Result<T, Error>,
        ) -> Result<T, Error> {
            match self.client.borrow_mut().as_mut() {
                Some(client) => work(client),
                None => Err(Error::Decode("the connection is closed".to_owned())),
            }
        }

        pub(super) fn batch_execute(&self, sql: &str) -> Result<(), Error> {
            self.with(|client| Ok(client.batch_execute(sql)?))
        }

        fn statement(&self, sql: &str) -> Result<postgres::Statement, Error> {
            if let Some(statement) = self.statements.borrow().get(sql) {
                return Ok(statement.clone());
            }
            let statement = self.with(|client| Ok(client.prepare(&dollar_placeholders(sql))?))?;
            self.statements
                .borrow_mut()
                .insert(sql.to_owned(), statement.clone());
            Ok(statement)
        }

        pub(super) fn execute(&self, sql: &str, values: &[Value<'_>]) -> Result<usize, Error> {
            let statement = self.statement(sql)?;
            let params: Vec<&(dyn ToSql + Sync)> =
                values.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
            let changed = self.with(|client| Ok(client.execute(&statement, &params)?))?;
            self.changes.set(self.changes.get() + changed);
            usize::try_from(changed).map_err(|_| Error::Decode("too many rows".to_owned()))
        }

        pub(super) fn for_each_row<E: From<Error>>(
            &self,
            sql: &str,
            values: &[Value<'_>],
            mut f: impl FnMut(&postgres::Row) -> Result<(), E>,
        ) -> Result<(), E> {
            let statement = self.statement(sql)?;
            let mut client = self.client.borrow_mut();
            let client = client
                .as_mut()
                .ok_or_else(|| Error::Decode("the connection is closed".to_owned()))?;
            let mut rows = client
                .query_raw(&statement, values.iter())
                .map_err(Error::from)?;
            while let Some(row) = rows.next().map_err(Error::from)? {
                f(&row)?;
            }
            if let Some(changed) = rows.rows_affected() {
                self.changes.set(self.changes.get() + changed);
            }
            Ok(())
        }
    }

    /// The blocking client closes its connection on a runtime of its own, which cannot
    /// start on a thread that drives async tasks (a `Database` dropped by a request or a
    /// test): it is closed on a thread of its own.
    impl Drop for Client {
        fn drop(&mut self) {
            if let Some(client) = self.client.get_mut().take() {
                if tokio::runtime::Handle::try_current().is_ok() {
                    let _ = std::thread::Builder::new()
                        .name("deniable-pg-close".to_owned())
                        .spawn(move || drop(client));
                } else {
                    drop(client);
                }
            }
        }
    }

    /// `?N` → `$N` outside string literals (Deniable's SQL numbers every placeholder).
    pub(super) fn dollar_placeholders(sql: &str) -> String {
        let mut out = String::with_capacity(sql.len());
        let mut in_literal = false;
        for c in sql.chars() {
            match c {
                '\'' => in_literal = !in_literal,
                '?' if !in_literal => {
                    out.push('$');
                    continue;
                }
                _ => {}
            }
            out.push(c);
        }
        out
    }

    /// Any column's bytes in the binary format, decoded by [`decode`].
    pub(super) struct Raw<'a>(pub(super) Option<&'a [u8]>);

    impl<'a> FromSql<'a> for Raw<'a> {
        fn from_sql(
            _: &Type,
            raw: &'a [u8],
        ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
            Ok(Self(Some(raw)))
        }

        fn from_sql_null(_: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
            Ok(Self(None))
        }

        fn accepts(_: &Type) -> bool {
            true
        }
    }

    fn wrong(ty: &Type) -> Error {
        Error::Decode(format!("a column of type {ty} has an unexpected length"))
    }

    pub(super) fn decode<'a>(ty: &Type, raw: Option<&'a [u8]>) -> Result<ValueRef<'a>, Error> {
        let Some(raw) = raw else {
            return Ok(ValueRef::Null);
        };
        Ok(match *ty {
            Type::BOOL => ValueRef::Int(i64::from(raw.first().copied().unwrap_or(0) != 0)),
            Type::INT2 => ValueRef::Int(i64::from(i16::from_be_bytes(
                raw.try_into().map_err(|_| wrong(ty))?,
            ))),
            Type::INT4 => ValueRef::Int(i64::from(i32::from_be_bytes(
                raw.try_into().map_err(|_| wrong(ty))?,
            ))),
            Type::INT8 => ValueRef::Int(i64::from_be_bytes(raw.try_into().map_err(|_| wrong(ty))?)),
            Type::FLOAT4 => ValueRef::Real(f64::from(f32::from_be_bytes(
                raw.try_into().map_err(|_| wrong(ty))?,
            ))),
            Type::FLOAT8 => {
                ValueRef::Real(f64::from_be_bytes(raw.try_into().map_err(|_| wrong(ty))?))
            }
            Type::NUMERIC => numeric(raw)?,
            Type::BYTEA => ValueRef::Blob(raw),
            Type::JSONB => ValueRef::Text(
                std::str::from_utf8(raw.get(1..).ok_or_else(|| wrong(ty))?)
                    .map_err(|e| Error::Decode(e.to_string()))?,
            ),
            _ => {
                ValueRef::Text(std::str::from_utf8(raw).map_err(|e| Error::Decode(e.to_string()))?)
            }
        })
    }

    /// A `numeric` (what `sum` of integers returns): whole values as integers.
    fn numeric(raw: &[u8]) -> Result<ValueRef<'static>, Error> {
        let word = |at: usize| -> Result<i16, Error> {
            raw.get(at..at + 2)
                .map(|b| i16::from_be_bytes([b[0], b[1]]))
                .ok_or_else(|| Error::Decode("a truncated numeric".to_owned()))
        };
        let digits = usize::try_from(word(0)?).unwrap_or(0);
        let weight = i32::from(word(2)?);
        let sign = word(4)?;
        if sign == i16::from_be_bytes([0xC0, 0]) {
            return Ok(ValueRef::Real(f64::NAN));
        }
        let negative = sign == 0x4000;
        let (mut whole, mut real, mut fractional) = (0_i128, 0_f64, false);
        for i in 0..digits {
            let digit = i128::from(word(8 + 2 * i)?);
            let power = weight - i32::try_from(i).unwrap_or(i32::MAX);
            #[allow(clippy::cast_precision_loss)]
            {
                real += digit as f64 * 10_000_f64.powi(power);
            }
            if power >= 0 {
                whole = u32::try_from(power)
                    .ok()
                    .and_then(|power| 10_000_i128.checked_pow(power))
                    .and_then(|scale| whole.checked_add(digit * scale))
                    .ok_or_else(|| Error::Decode("a numeric out of range".to_owned()))?;
            } else if digit != 0 {
                fractional = true;
            }
        }
        if fractional {
            return Ok(ValueRef::Real(if negative { -real } else { real }));
        }
        let whole = if negative { -whole } else { whole };
        i64::try_from(whole)
            .map(ValueRef::Int)
            .map_err(|_| Error::Decode("a numeric out of range".to_owned()))
    }

    impl ToSql for Value<'_> {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut bytes::BytesMut,
        ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
            match *self {
                Value::Null => return Ok(IsNull::Yes),
                Value::Int(v) => match *ty {
                    Type::INT8 => out.extend_from_slice(&v.to_be_bytes()),
                    Type::INT4 => out.extend_from_slice(&i32::try_from(v)?.to_be_bytes()),
                    Type::INT2 => out.extend_from_slice(&i16::try_from(v)?.to_be_bytes()),
                    Type::BOOL => out.extend_from_slice(&[u8::from(v != 0)]),
                    #[allow(clippy::cast_precision_loss)]
                    Type::FLOAT8 => out.extend_from_slice(&(v as f64).to_be_bytes()),
                    Type::TEXT | Type::VARCHAR => out.extend_from_slice(v.to_string().as_bytes()),
                    _ => return Err(format!("an integer cannot be a {ty}").into()),
                },
                Value::Real(v) => match *ty {
                    Type::FLOAT8 => out.extend_from_slice(&v.to_be_bytes()),
                    #[allow(clippy::cast_possible_truncation)]
                    Type::FLOAT4 => out.extend_from_slice(&(v as f32).to_be_bytes()),
                    _ => return Err(format!("a real number cannot be a {ty}").into()),
                },
                Value::Text(text) => match *ty {
                    Type::JSONB => {
                        out.extend_from_slice(&[1]);
                        out.extend_from_slice(text.as_bytes());
                    }
                    Type::BYTEA => return Err("text cannot be bytea".into()),
                    _ => out.extend_from_slice(text.as_bytes()),
                },
                Value::Blob(bytes) => match *ty {
                    Type::BYTEA => out.extend_from_slice(bytes),
                    _ => return Err(format!("bytes cannot be a {ty}").into()),
                },
            }
            Ok(IsNull::No)
        }

        fn accepts(_: &Type) -> bool {
            true
        }

        postgres::types::to_sql_checked!();
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn placeholders_are_numbered_for_postgres_outside_literals() {
            assert_eq!(
                dollar_placeholders("SELECT '?1' WHERE a = ?1 AND b = ?12"),
                "SELECT '?1' WHERE a = $1 AND b = $12"
            );
        }

        #[test]
        fn whole_numerics_decode_as_integers() {
            // 123456789 = 1·10000² + 2345·10000 + 6789, weight 2.
            let raw = [0, 3, 0, 2, 0, 0, 0, 0, 0, 1, 0x09, 0x29, 0x1A, 0x85];
            assert!(matches!(numeric(&raw), Ok(ValueRef::Int(123_456_789))));
            let zero = [0, 0, 0, 0, 0, 0, 0, 0];
            assert!(matches!(numeric(&zero), Ok(ValueRef::Int(0))));
        }
    }
}

/// What the engines do differently in meaning, not in dialect (which [`Conn`] hides): each
/// engine folder implements it once (`sqlite::Sqlite`, `postgres::Postgres`), the start-up
/// hands it to every connection it opens, and the shared SQL asks [`Conn::rules`] instead
/// of asking which engine it talks to. A new engine is a new implementation, not new
/// branches. (Here, beside [`Conn`], so that no storage module imports another in a circle.)
pub trait EngineRules: Sync {
    /// The statement that opens the migration's transaction.
    fn begin_migration(&self) -> &'static str;
    /// The schema version stored now; on PostgreSQL after taking the start-up lock, so
    /// nodes starting at once apply each step once.
    fn schema_version(&self, connection: &Conn) -> Result<u32, AppError>;
    /// Records that the schema is at `version` (in the migration's transaction).
    fn set_schema_version(&self, connection: &Conn, version: u32) -> Result<(), AppError>;
    /// A migration step's SQL for this engine, of the step's two texts.
    fn migration_sql(&self, sqlite: &'static str, postgres: &'static str) -> &'static str;
    /// Whether a database of this engine can hold the first release's tables (SQLite only:
    /// PostgreSQL starts at schema 2).
    fn may_hold_first_release(&self) -> bool;
    /// Serializes start-up work (migrations, the demo survey, the first sign-up link)
    /// across nodes until the transaction ends; nothing where one writer already does.
    fn startup_lock(&self, connection: &Conn) -> Result<(), AppError>;
    /// The status of a survey with a target, read so that the response that reaches the
    /// target sees every response before it (`status` as read before, where one writer
    /// already guarantees that).
    fn status_for_target(
        &self,
        connection: &Conn,
        survey_id: SurveyId,
        status: String,
    ) -> Result<String, AppError>;
    /// The statement that inserts a new response (`?1` survey id, `?2` record id, `?3` its
    /// packed reports): a constant, as it runs once per submission.
    fn insert_response(&self) -> &'static str;
    /// Every table a stored response may be in, newest first.
    fn response_tables(&self) -> &'static [&'static str];
    /// After a consideration: what every node must see of it while the survey is open.
    fn share_consideration(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError>;
    /// The statement that opens a consistent read of a survey's release state.
    fn begin_snapshot(&self) -> &'static str;
    /// The end of the close step: the survey's rows in key order where the next epoch
    /// does not rewrite the whole file.
    fn after_close(&self, connection: &Conn, survey_id: SurveyId) -> Result<(), AppError>;
    /// What the server says when it has stopped, given its last epoch: the database's
    /// size, how long the epoch took, and whether another process kept the WAL.
    fn stopped_message(&self, database_bytes: u64, took: Duration, wal_kept: bool) -> String;
}

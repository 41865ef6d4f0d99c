//! Deniable: surveys on sensitive yes/no questions, with randomized response on the
//! respondent's device. The server only ever holds deniable reports.

pub mod breakdown;
pub mod cli;
pub mod codebook;
pub mod config;
pub mod crypto;
pub mod db;
pub mod domain;
pub mod error;
pub mod explain;
pub mod export;
pub mod http;
pub mod i18n;
pub mod joint;
pub mod results;
pub mod serve;
pub mod services;
pub mod simulate;
pub mod verify;

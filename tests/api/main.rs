//! The one integration test binary: every module below links the server once.
//! (`tests/request_log.rs` stays apart: it captures the process-wide log.)

mod common;
mod routes;
mod sweep;
mod workspace;

mod analyses;
mod at_rest;
mod backup;
mod bad_input;
mod breakdown;
mod builder_form;
mod cli;
mod contract;
mod csv_safety;
mod demo;
mod designs;
mod disclosure;
mod embedding;
mod grouping;
mod hardening;
mod headers;
mod invitations;
mod languages;
mod lifecycle;
mod openapi;
mod poisoning;
mod present_mode;
mod privacy;
mod rate_limit;
mod respondent_pages;
mod shutdown;
mod simulate;
mod sqlite_files;
mod static_files;
mod stopping_rules;
mod storage;
mod submissions;
mod survey_intro;
mod timing;
mod unlinkability;
mod verify;
mod workspace_pages;
mod workspace_security;

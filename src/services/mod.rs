//! What the API, the pages and the command line share: operations over storage that carry
//! a rule of their own (who owns a survey, when results may be shown, what an export or an
//! invitation needs). Handlers parse and render; these decide.

pub mod accounts;
pub mod exports;
pub mod invitations;
pub mod releases;
pub mod responses;
pub mod results;
pub mod surveys;

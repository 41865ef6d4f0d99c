//! The WAL's index, the `-shm` file, as an attacker reads it (SQLite's "WAL-index format",
//! <https://sqlite.org/walformat.html>): a 136-byte header (two copies of the index header,
//! whose `mxFrame` counts the frames of the current WAL, then the checkpoint information)
//! shared with the first of a series of 32 KiB hash tables. Each table starts with the page
//! numbers of the frames it indexes, in frame order — 4 062 in the first table, after the
//! header, 4 096 in every later one — followed by 8 192 two-byte hash slots. Integers are in
//! the byte order of the machine that wrote them.
//!
//! SQLite clears a table only when it writes the first frame that table indexes; a
//! checkpoint that starts the WAL again only sets `mxFrame` to 0. So every page number
//! beyond `mxFrame` was left by frames written before the WAL last started again, and the
//! page numbers read in order are the sequence of pages each commit wrote.

const HEADER_BYTES: usize = 136;
const TABLE_BYTES: usize = 32_768;
const FIRST_TABLE_PAGES: usize = 4_062;
const TABLE_PAGES: usize = 4_096;
/// `iVersion` of the index header.
const VERSION: u32 = 3_007_000;

pub(crate) struct WalIndex {
    /// Frames of the current WAL (the header's `mxFrame`; 0 when the header is not valid).
    pub(crate) valid_frames: usize,
    /// Per frame slot, frame 1 first: the page number written there, 0 when none.
    pub(crate) page_numbers: Vec<u32>,
}

impl WalIndex {
    /// Every page-number slot of every table present in the file, whatever the header says.
    pub(crate) fn read(bytes: &[u8]) -> Self {
        let word = |at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
        let valid_frames = if bytes.len() >= HEADER_BYTES && word(0) == VERSION {
            usize::try_from(word(16)).unwrap()
        } else {
            0
        };
        let mut page_numbers = Vec::new();
        for table in 0..bytes.len().div_ceil(TABLE_BYTES) {
            let (first, slots) = if table == 0 {
                (HEADER_BYTES, FIRST_TABLE_PAGES)
            } else {
                (table * TABLE_BYTES, TABLE_PAGES)
            };
            for slot in 0..slots {
                let at = first + 4 * slot;
                if at + 4 > bytes.len() {
                    break;
                }
                page_numbers.push(word(at));
            }
        }
        Self {
            valid_frames,
            page_numbers,
        }
    }

    /// Page numbers beyond the current WAL: left by frames written before it last started
    /// again.
    pub(super) fn stale_entries(&self) -> usize {
        self.page_numbers
            .iter()
            .skip(self.valid_frames)
            .filter(|&&page| page != 0)
            .count()
    }

    /// Every page number listed, valid or stale, in frame order.
    pub(crate) fn entries(&self) -> Vec<u32> {
        self.page_numbers
            .iter()
            .copied()
            .filter(|&page| page != 0)
            .collect()
    }
}

/// What a commit did, as far as its pages tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CommitKind {
    /// A redemption: an invitation exchanged for a blind token.
    Redemption,
    /// A response (which spends its token and counts its reports).
    Response,
}

/// The commits an attacker recovers from a list of page numbers in frame order: SQLite
/// writes the pages of one commit in increasing page order, so a commit ends where the
/// page number stops increasing. Every response updates the report counts of its survey,
/// a table of a few rows whose one page is its root, `counts_page`: a commit that writes it
/// is a response, any other a redemption (in this scenario nothing else writes while
/// serving). `VACUUM` gives every table the same root page again, so the database file
/// after an epoch names the root of the epoch before.
pub(super) fn recover_commits(pages: &[u32], counts_page: u32) -> Vec<CommitKind> {
    let mut commits: Vec<Vec<u32>> = Vec::new();
    for &page in pages {
        match commits.last_mut() {
            Some(commit) if commit.last().is_some_and(|&last| last < page) => commit.push(page),
            _ => commits.push(vec![page]),
        }
    }
    commits
        .iter()
        .map(|commit| {
            if commit.contains(&counts_page) {
                CommitKind::Response
            } else {
                CommitKind::Redemption
            }
        })
        .collect()
}

/// How many commits of `truth` (in time order) the attacker's `recovered` sequence names
/// rightly at the same place, counting back from the end of the epoch: the epoch's own two
/// commits (the merge of the arriving responses and `VACUUM`) come last and are left out.
pub(super) fn positions_recovered(recovered: &[CommitKind], truth: &[CommitKind]) -> usize {
    let before_epoch = recovered.len().saturating_sub(2);
    recovered[..before_epoch]
        .iter()
        .rev()
        .zip(truth.iter().rev())
        .filter(|(found, true_kind)| found == true_kind)
        .count()
}

//! How the attacker cuts a file into pages: the SQLite database header, WAL frames and
//! their commits ranked in time, B-tree leaf pages.

use std::cmp::Reverse;

const WAL_HEADER_BYTES: usize = 32;
const WAL_FRAME_HEADER_BYTES: usize = 24;

/// How a file is cut into pages, as far as the attacker can tell from its header.
pub(super) enum Layout {
    Database {
        page_size: usize,
    },
    Wal {
        page_size: usize,
        frames: Vec<WalFrame>,
        /// Per frame: the time rank of the commit it belongs to.
        commit_of_frame: Vec<usize>,
    },
    Other,
}

pub(super) struct WalFrame {
    pub(super) page_number: u32,
}

/// Where an offset falls: which page (by number), where that page's bytes start in the
/// file, and which WAL frame holds it.
pub(super) struct PageSpot {
    pub(super) page_number: u32,
    pub(super) page_start: usize,
    pub(super) frame: Option<usize>,
}

fn be_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

impl Layout {
    pub(super) fn of(name: &str, bytes: &[u8]) -> Self {
        if name.ends_with("-wal") {
            return Self::wal(bytes).unwrap_or(Layout::Other);
        }
        if bytes.len() >= 100 && bytes.starts_with(b"SQLite format 3\0") {
            let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
                1 => 65_536,
                size => usize::from(size),
            };
            return Layout::Database { page_size };
        }
        Layout::Other
    }

    /// Every frame physically present, valid or stale (an attacker reads them all), and
    /// each frame's commit ranked in time: frames of an older WAL generation (a smaller
    /// salt-1: SQLite adds one at each restart of the WAL) first, then file order inside
    /// a generation. A commit ends with a frame whose "database size after commit" is not
    /// zero; frames after the last such frame form one uncommitted group.
    fn wal(bytes: &[u8]) -> Option<Self> {
        if bytes.len() < WAL_HEADER_BYTES || be_u32(bytes, 0) & !1 != 0x377f_0682 {
            return None;
        }
        let page_size = usize::try_from(be_u32(bytes, 8)).ok()?;
        let header_salt = be_u32(bytes, 16);
        let frame_bytes = WAL_FRAME_HEADER_BYTES + page_size;
        let count = (bytes.len() - WAL_HEADER_BYTES) / frame_bytes;
        let frames = (0..count)
            .map(|index| WalFrame {
                page_number: be_u32(bytes, WAL_HEADER_BYTES + index * frame_bytes),
            })
            .collect();
        let commit_of_frame = rank_commits(bytes, count, frame_bytes, header_salt);
        Some(Layout::Wal {
            page_size,
            frames,
            commit_of_frame,
        })
    }

    pub(super) fn spot(&self, offset: usize) -> Option<PageSpot> {
        match self {
            Layout::Database { page_size } => Some(PageSpot {
                page_number: u32::try_from(offset / page_size + 1).unwrap(),
                page_start: offset - offset % page_size,
                frame: None,
            }),
            Layout::Wal {
                page_size, frames, ..
            } => {
                let frame_bytes = WAL_FRAME_HEADER_BYTES + page_size;
                let inside = offset.checked_sub(WAL_HEADER_BYTES)?;
                let frame = inside / frame_bytes;
                let frame_start = WAL_HEADER_BYTES + frame * frame_bytes;
                let page_start = frame_start + WAL_FRAME_HEADER_BYTES;
                (frame < frames.len() && offset >= page_start).then(|| PageSpot {
                    page_number: frames[frame].page_number,
                    page_start,
                    frame: Some(frame),
                })
            }
            Layout::Other => None,
        }
    }
}

/// The page number of every frame physically in a WAL, in file order.
pub(super) fn wal_page_numbers(bytes: &[u8]) -> Vec<u32> {
    match Layout::wal(bytes) {
        Some(Layout::Wal { frames, .. }) => frames.iter().map(|frame| frame.page_number).collect(),
        _ => Vec::new(),
    }
}

/// Per frame, the time rank of its commit (see [`Layout::wal`]).
fn rank_commits(
    bytes: &[u8],
    frame_count: usize,
    frame_bytes: usize,
    header_salt: u32,
) -> Vec<usize> {
    let mut physical_commit_of_frame = Vec::with_capacity(frame_count);
    // Per physical commit: the age of its generation, from its first frame.
    let mut commit_ages: Vec<u32> = Vec::new();
    let mut starts_commit = true;
    for index in 0..frame_count {
        let at = WAL_HEADER_BYTES + index * frame_bytes;
        if starts_commit {
            commit_ages.push(header_salt.wrapping_sub(be_u32(bytes, at + 8)));
        }
        physical_commit_of_frame.push(commit_ages.len() - 1);
        starts_commit = be_u32(bytes, at + 4) != 0;
    }
    let mut in_time_order: Vec<usize> = (0..commit_ages.len()).collect();
    in_time_order.sort_by_key(|&commit| (Reverse(commit_ages[commit]), commit));
    let mut rank = vec![0; commit_ages.len()];
    for (time, &commit) in in_time_order.iter().enumerate() {
        rank[commit] = time;
    }
    physical_commit_of_frame
        .iter()
        .map(|&commit| rank[commit])
        .collect()
}

/// B-tree leaf pages: index leaf (WITHOUT ROWID tables) or table leaf. Page 1 starts with
/// the 100-byte database header.
pub(super) fn is_leaf_page(bytes: &[u8], spot: &PageSpot) -> bool {
    let header = spot.page_start + if spot.page_number == 1 { 100 } else { 0 };
    matches!(bytes.get(header), Some(0x0a | 0x0d))
}

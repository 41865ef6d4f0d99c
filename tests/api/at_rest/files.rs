//! The analysis of the files: what an attacker searches for (every form of a response's
//! identity, the used invitations' hashes) and what each file of a snapshot gives away.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use super::layout::{is_leaf_page, Layout};
use super::report::{FileReport, OrderFigure, SnapshotReport, WalIndexFigures};
use super::statistics::{cells_out_of_key_order, chance_bound, spearman, within_page_correlation};
use super::wal_index::WalIndex;

/// One acknowledged submission, in arrival order, with every form of its identity.
#[derive(Debug, Clone)]
pub struct Arrival {
    /// The 43 base64url characters the respondent keeps.
    pub receipt: String,
    /// Lowercase hex SHA-256 of the receipt's text.
    pub response_id: String,
    /// SHA-256 of the response id's hex text, raw.
    pub record_id: [u8; 32],
    /// SHA-256 of the invitation code's text, as the invitations and redemptions tables
    /// hold it.
    pub invitation_hash: [u8; 32],
    /// SHA-256 of the blind token's input, as `spent_tokens` holds it (issue 20; none for
    /// the binary before it, which spent the invitation with the response).
    pub spent_hash: Option<[u8; 32]>,
    pub withdrawn: bool,
}

impl Arrival {
    pub fn new(receipt: String, invitation_hash: [u8; 32], spent_hash: Option<[u8; 32]>) -> Self {
        let response_id = hex::encode(sha256(receipt.as_bytes()));
        let record_id = sha256(response_id.as_bytes());
        Self {
            receipt,
            response_id,
            record_id,
            invitation_hash,
            spent_hash,
            withdrawn: false,
        }
    }

    pub(super) fn form(&self, form: IdForm) -> Vec<u8> {
        match form {
            IdForm::Receipt => self.receipt.as_bytes().to_vec(),
            IdForm::ResponseIdText => self.response_id.as_bytes().to_vec(),
            IdForm::ResponseIdRaw => hex::decode(&self.response_id).unwrap(),
            IdForm::RecordId => self.record_id.to_vec(),
        }
    }
}

pub(super) fn sha256(bytes: &[u8]) -> [u8; 32] {
    ring::digest::digest(&ring::digest::SHA256, bytes)
        .as_ref()
        .try_into()
        .unwrap()
}

/// The forms in which a response's identity could be written to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdForm {
    Receipt,
    ResponseIdText,
    ResponseIdRaw,
    RecordId,
}

impl IdForm {
    const ALL: [IdForm; 4] = [
        IdForm::Receipt,
        IdForm::ResponseIdText,
        IdForm::ResponseIdRaw,
        IdForm::RecordId,
    ];
}

/// Which side of the last epoch a response was stored on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Epoch {
    /// Covered by the promise: asserted.
    BeforeLast,
    /// Stored since the last epoch: may be partly ordered; reported.
    Current,
    /// The snapshot was taken when epochs ran during the submissions: reported.
    Unknown,
}

impl Epoch {
    const ALL: [Epoch; 3] = [Epoch::BeforeLast, Epoch::Current, Epoch::Unknown];

    fn of(arrival: usize, stored_before_last_epoch: Option<usize>) -> Self {
        match stored_before_last_epoch {
            None => Epoch::Unknown,
            Some(boundary) if arrival < boundary => Epoch::BeforeLast,
            Some(_) => Epoch::Current,
        }
    }
}

impl fmt::Display for Epoch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Epoch::BeforeLast => "before",
            Epoch::Current => "current",
            Epoch::Unknown => "unknown",
        })
    }
}

/// How an attacker orders the responses found in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// (a) The first WAL commit (replayed in time order) whose frames hold the response.
    WalFirstCommit,
    /// (b) The byte offset of the response's first occurrence in the file.
    ByteOffset,
    /// (b) The byte offset of the first occurrence of the hash of the invitation the
    /// response's device redeemed (the redemptions, in the order of the responses).
    RedemptionByteOffset,
    /// (b) The byte offset of the first occurrence of the hash of the token the response
    /// spent.
    SpentTokenByteOffset,
    /// (b) Its cell's offset inside its leaf page (SQLite fills a page's cell area from
    /// the end, so a page that only grew keeps its newest cells lowest).
    CellOffset,
    /// (b) The same, compared only among the cells of one page (pooled over pages):
    /// pages fill to different depths, which blurs the offsets of different pages.
    CellOrderWithinPage,
    /// (b) Whether a cell lies out of key order in its page. A page built in one go (by
    /// VACUUM, or when a B-tree page splits) lays its cells out in key order from the end
    /// of the page; a cell inserted later goes wherever there is room. Cells off the
    /// longest key-ordered run were therefore written after the page was built: recent.
    /// After a checkpoint without VACUUM this finds arrival order at z ≈ 10–12 over 1 000
    /// responses (measured while writing this test); after VACUUM, chance.
    CellOutOfKeyOrder,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::WalFirstCommit => "WAL first commit",
            Method::ByteOffset => "byte offset",
            Method::RedemptionByteOffset => "redemption byte offset",
            Method::SpentTokenByteOffset => "spent token byte offset",
            Method::CellOffset => "cell offset in page",
            Method::CellOrderWithinPage => "cell order per page",
            Method::CellOutOfKeyOrder => "cell out of key order",
        })
    }
}

/// What an attacker looks for.
#[derive(Debug, Clone, Copy)]
enum Needle {
    /// The key by which the database stores the still-stored response at this arrival
    /// position: where it is found gives an order.
    Key(usize),
    /// A form of the identity of the response at this position that no file may hold
    /// (for a withdrawn response: every form, the key included).
    Forbidden(usize, IdForm),
    /// The hash of the invitation the response at this position used.
    Invitation(usize),
    /// The hash of the token the response at this position spent.
    Spent(usize),
}

/// Every needle, indexed by its first eight bytes so a file is searched in one pass.
struct NeedleIndex {
    needles: Vec<(Vec<u8>, Needle)>,
    by_prefix: HashMap<[u8; 8], Vec<usize>>,
    /// One bit per possible first three bytes: most offsets are rejected here, before
    /// any hashing.
    first_three_bytes: Vec<u64>,
}

impl NeedleIndex {
    fn new(arrivals: &[Arrival], keyed_by: IdForm) -> Self {
        let mut needles = Vec::new();
        for (position, arrival) in arrivals.iter().enumerate() {
            for form in IdForm::ALL {
                let needle = if form == keyed_by && !arrival.withdrawn {
                    Needle::Key(position)
                } else {
                    Needle::Forbidden(position, form)
                };
                needles.push((arrival.form(form), needle));
            }
            needles.push((
                arrival.invitation_hash.to_vec(),
                Needle::Invitation(position),
            ));
            if let Some(spent) = arrival.spent_hash {
                needles.push((spent.to_vec(), Needle::Spent(position)));
            }
        }
        let mut by_prefix: HashMap<[u8; 8], Vec<usize>> = HashMap::new();
        let mut first_three_bytes = vec![0u64; (1 << 24) / 64];
        for (index, (bytes, _)) in needles.iter().enumerate() {
            by_prefix
                .entry(bytes[..8].try_into().unwrap())
                .or_default()
                .push(index);
            let three = three_byte_prefix(bytes);
            first_three_bytes[three / 64] |= 1 << (three % 64);
        }
        Self {
            needles,
            by_prefix,
            first_three_bytes,
        }
    }

    /// Every occurrence of every needle, by increasing offset.
    fn scan(&self, data: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        for offset in 0..data.len().saturating_sub(7) {
            let rest = &data[offset..];
            let three = three_byte_prefix(rest);
            if self.first_three_bytes[three / 64] & (1 << (three % 64)) == 0 {
                continue;
            }
            let Some(candidates) = self.by_prefix.get(&rest[..8]) else {
                continue;
            };
            for &index in candidates {
                let (bytes, needle) = &self.needles[index];
                if rest.starts_with(bytes) {
                    hits.push(Hit {
                        offset,
                        needle: *needle,
                    });
                }
            }
        }
        hits
    }
}

fn three_byte_prefix(bytes: &[u8]) -> usize {
    (usize::from(bytes[0]) << 16) | (usize::from(bytes[1]) << 8) | usize::from(bytes[2])
}

#[derive(Debug, Clone, Copy)]
struct Hit {
    offset: usize,
    needle: Needle,
}

/// The attack on one directory of files: every file is searched for every form of every
/// arrival's identity and for the used invitations' hashes; WAL files are replayed over
/// the database file of the same name; orders are scored against the true arrival order.
/// `stored_before_last_epoch`: how many of the first arrivals the last epoch covers.
pub fn analyse_directory(
    directory: &Path,
    label: &str,
    arrivals: &[Arrival],
    keyed_by: IdForm,
    stored_before_last_epoch: Option<usize>,
) -> SnapshotReport {
    let index = NeedleIndex::new(arrivals, keyed_by);
    let truth = Truth {
        arrivals,
        keyed_by,
        stored_before_last_epoch,
    };
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let files: Vec<(String, Vec<u8>)> = names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(directory.join(&name)).unwrap();
            (name, bytes)
        })
        .collect();
    let scanned: Vec<(Layout, Vec<Hit>)> = files
        .iter()
        .map(|(name, bytes)| (Layout::of(name, bytes), index.scan(bytes)))
        .collect();
    let reports = files
        .iter()
        .zip(&scanned)
        .map(|((name, bytes), (layout, hits))| {
            // A WAL is replayed over its database: the pages it does not rewrite.
            let base = name.strip_suffix("-wal").and_then(|database| {
                files
                    .iter()
                    .position(|(other, _)| other == database)
                    .map(|at| (&scanned[at].0, scanned[at].1.as_slice()))
            });
            analyse_file(name, bytes, layout, hits, base, &truth)
        })
        .collect();
    SnapshotReport {
        label: label.to_owned(),
        stored_before_last_epoch,
        arrivals: arrivals.len(),
        withdrawn: arrivals.iter().filter(|a| a.withdrawn).count(),
        files: reports,
    }
}

/// What the findings are scored against.
struct Truth<'a> {
    /// Every acknowledged submission, in arrival order.
    arrivals: &'a [Arrival],
    /// The form by which the database keys a stored response.
    keyed_by: IdForm,
    /// How many of the first arrivals the last epoch covers (`None`: not known).
    stored_before_last_epoch: Option<usize>,
}

fn analyse_file(
    name: &str,
    bytes: &[u8],
    layout: &Layout,
    hits: &[Hit],
    base: Option<(&Layout, &[Hit])>,
    truth: &Truth,
) -> FileReport {
    let Truth {
        arrivals,
        keyed_by,
        stored_before_last_epoch,
    } = *truth;
    let mut first_offset: HashMap<usize, usize> = HashMap::new();
    // Per response: where its leaf page starts in the file, and its cell's offset there.
    let mut cell: HashMap<usize, (usize, usize)> = HashMap::new();
    let mut first_commit: HashMap<usize, usize> = HashMap::new();
    let mut withdrawn: HashSet<usize> = HashSet::new();
    let mut withdrawn_occurrences = 0;
    let mut secrets: HashSet<usize> = HashSet::new();
    let mut forms_found: Vec<IdForm> = Vec::new();
    let mut invitations: HashSet<usize> = HashSet::new();
    let mut invitation_offset: HashMap<usize, usize> = HashMap::new();
    let mut spent_offset: HashMap<usize, usize> = HashMap::new();
    for hit in hits {
        match hit.needle {
            Needle::Key(position) => {
                first_offset.entry(position).or_insert(hit.offset);
                if let Some(spot) = layout.spot(hit.offset) {
                    // The cell's place in a leaf page: where rows live, but for the few
                    // that an index B-tree (a WITHOUT ROWID table) keeps in its interior
                    // pages, placed below.
                    if is_leaf_page(bytes, &spot) {
                        cell.entry(position)
                            .or_insert((spot.page_start, hit.offset - spot.page_start));
                    }
                    if let (
                        Some(frame),
                        Layout::Wal {
                            commit_of_frame, ..
                        },
                    ) = (spot.frame, layout)
                    {
                        let commit = commit_of_frame[frame];
                        let first = first_commit.entry(position).or_insert(commit);
                        *first = (*first).min(commit);
                    }
                }
            }
            Needle::Forbidden(position, form) => {
                if arrivals[position].withdrawn {
                    withdrawn.insert(position);
                    withdrawn_occurrences += 1;
                } else {
                    secrets.insert(position);
                }
                if !forms_found.contains(&form) {
                    forms_found.push(form);
                }
            }
            Needle::Invitation(position) => {
                invitations.insert(position);
                invitation_offset.entry(position).or_insert(hit.offset);
            }
            Needle::Spent(position) => {
                spent_offset.entry(position).or_insert(hit.offset);
            }
        }
    }
    // A response found in no leaf page (a row in an interior page) has its cell where it
    // was first found.
    for (&position, &offset) in &first_offset {
        if let Some(spot) = layout.spot(offset) {
            cell.entry(position)
                .or_insert((spot.page_start, offset - spot.page_start));
        }
    }
    let deletions = match (layout, base) {
        (Layout::Wal { .. }, Some((base_layout, base_hits))) => {
            invitation_deletions(layout, hits, base_layout, base_hits)
        }
        (Layout::Wal { .. }, None) => invitation_deletions(layout, hits, &Layout::Other, &[]),
        _ => HashMap::new(),
    };
    let epoch_of = |position: usize| Epoch::of(position, stored_before_last_epoch);
    let cell_offset: HashMap<usize, usize> = cell
        .iter()
        .map(|(&position, &(_, offset))| (position, offset))
        .collect();
    let mut methods = Vec::new();
    if matches!(layout, Layout::Wal { .. }) {
        methods.push((Method::WalFirstCommit, &first_commit));
    }
    methods.push((Method::ByteOffset, &first_offset));
    methods.push((Method::RedemptionByteOffset, &invitation_offset));
    methods.push((Method::SpentTokenByteOffset, &spent_offset));
    if !matches!(layout, Layout::Other) {
        methods.push((Method::CellOffset, &cell_offset));
    }
    let reported_epochs: Vec<Epoch> = Epoch::ALL
        .into_iter()
        .filter(|&epoch| (epoch == Epoch::Unknown) == stored_before_last_epoch.is_none())
        .collect();
    let mut orders = Vec::new();
    for (method, recovered) in methods {
        for &epoch in &reported_epochs {
            let pairs: Vec<(f64, f64)> = recovered
                .iter()
                .filter(|(&position, _)| epoch_of(position) == epoch)
                .map(|(&position, &value)| (position as f64, value as f64))
                .collect();
            let rho = spearman(&pairs);
            orders.push(OrderFigure {
                method,
                epoch,
                n: pairs.len(),
                rho,
                bound: rho.map(|_| chance_bound(pairs.len())),
            });
        }
    }
    if !matches!(layout, Layout::Other) {
        let out_of_key_order = cells_out_of_key_order(&cell, arrivals, keyed_by);
        let per_page_scores = [
            (Method::CellOrderWithinPage, &cell_offset),
            (Method::CellOutOfKeyOrder, &out_of_key_order),
        ];
        for (method, scores) in per_page_scores {
            for &epoch in &reported_epochs {
                let cells: Vec<(usize, usize, f64)> = scores
                    .iter()
                    .filter(|(&position, _)| epoch_of(position) == epoch)
                    .map(|(&position, &score)| (cell[&position].0, position, score as f64))
                    .collect();
                let (n, rho, null_sd) = within_page_correlation(&cells);
                orders.push(OrderFigure {
                    method,
                    epoch,
                    n,
                    rho,
                    bound: null_sd.map(|sd| 5.0 * sd),
                });
            }
        }
    }
    let count_by_epoch = |positions: Vec<usize>| -> Vec<(Epoch, usize)> {
        Epoch::ALL
            .iter()
            .map(|&epoch| {
                let count = positions.iter().filter(|&&p| epoch_of(p) == epoch).count();
                (epoch, count)
            })
            .collect()
    };
    let invitations_found = count_by_epoch(invitations.into_iter().collect());
    let links = count_by_epoch(
        first_commit
            .iter()
            .filter(|(position, commit)| deletions.get(position) == Some(commit))
            .map(|(&position, _)| position)
            .collect(),
    );
    FileReport {
        name: name.to_owned(),
        bytes: bytes.len(),
        wal_commits: match layout {
            Layout::Wal {
                commit_of_frame, ..
            } => Some(commit_of_frame.iter().max().map_or(0, |last| last + 1)),
            _ => None,
        },
        orders,
        withdrawn_found: withdrawn.len(),
        withdrawn_occurrences,
        secrets_found: secrets.len(),
        forms_found,
        invitations_found,
        links,
        wal_index: name.ends_with("-shm").then(|| {
            let index = WalIndex::read(bytes);
            WalIndexFigures {
                valid_frames: index.valid_frames,
                entries: index.entries().len(),
                stale: index.stale_entries(),
            }
        }),
    }
}

/// (a) For each used invitation (by the arrival position of its response), the time rank
/// of the WAL commit that deleted it: replaying the commits in time order over the pages
/// of the database file, the first commit after which no page holds its hash any more.
fn invitation_deletions(
    wal: &Layout,
    wal_hits: &[Hit],
    base: &Layout,
    base_hits: &[Hit],
) -> HashMap<usize, usize> {
    let Layout::Wal {
        frames,
        commit_of_frame,
        ..
    } = wal
    else {
        return HashMap::new();
    };
    let mut page_holds: HashMap<u32, HashSet<usize>> = HashMap::new();
    let mut held_by: HashMap<usize, HashSet<u32>> = HashMap::new();
    for hit in base_hits {
        if let (Needle::Invitation(position), Some(spot)) = (hit.needle, base.spot(hit.offset)) {
            page_holds
                .entry(spot.page_number)
                .or_default()
                .insert(position);
            held_by
                .entry(position)
                .or_default()
                .insert(spot.page_number);
        }
    }
    let mut in_frame: HashMap<usize, HashSet<usize>> = HashMap::new();
    for hit in wal_hits {
        if let (Needle::Invitation(position), Some(spot)) = (hit.needle, wal.spot(hit.offset)) {
            in_frame
                .entry(spot.frame.unwrap())
                .or_default()
                .insert(position);
        }
    }
    let mut frames_in_time_order: Vec<usize> = (0..frames.len()).collect();
    frames_in_time_order.sort_by_key(|&frame| (commit_of_frame[frame], frame));
    let mut deleted_at = HashMap::new();
    let mut touched: HashSet<usize> = HashSet::new();
    let mut in_time_order = frames_in_time_order.iter().peekable();
    while let Some(&frame) = in_time_order.next() {
        let page = frames[frame].page_number;
        let now_held = in_frame.remove(&frame).unwrap_or_default();
        for position in page_holds.remove(&page).unwrap_or_default() {
            if let Some(pages) = held_by.get_mut(&position) {
                pages.remove(&page);
            }
            touched.insert(position);
        }
        for &position in &now_held {
            held_by.entry(position).or_default().insert(page);
        }
        page_holds.insert(page, now_held);
        let commit = commit_of_frame[frame];
        let commit_ends = in_time_order
            .peek()
            .is_none_or(|&&next| commit_of_frame[next] != commit);
        if commit_ends {
            for position in touched.drain() {
                if held_by.get(&position).is_none_or(HashSet::is_empty) {
                    deleted_at.entry(position).or_insert(commit);
                }
            }
        }
    }
    deleted_at
}

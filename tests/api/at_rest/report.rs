//! The reports: what each file and each snapshot gives away, what the promise forbids,
//! and the table printed for the closing note.

use super::files::{Epoch, IdForm, Method};

/// What one file gives away.
#[derive(Debug)]
pub struct FileReport {
    pub name: String,
    pub bytes: usize,
    pub wal_commits: Option<usize>,
    pub(super) orders: Vec<OrderFigure>,
    /// Withdrawn responses with any form of their identity in the file, and occurrences.
    pub withdrawn_found: usize,
    pub withdrawn_occurrences: usize,
    /// Stored responses whose receipt or response id (any form but the key) is in the file.
    pub secrets_found: usize,
    /// Which forms of an identity were found, withdrawn or stored (e.g. the key of a
    /// withdrawn response, or a stored response's receipt).
    pub(super) forms_found: Vec<IdForm>,
    /// Used invitations whose hash is in the file, and how many of them a WAL replay links
    /// to their response (the commit that deletes the invitation is the first to hold the
    /// response), per epoch of the response.
    pub(super) invitations_found: Vec<(Epoch, usize)>,
    pub(super) links: Vec<(Epoch, usize)>,
    /// For a WAL's index (`-shm`): what it lists.
    pub wal_index: Option<WalIndexFigures>,
}

/// What a WAL's index (`-shm`) lists.
#[derive(Debug, Clone, Copy)]
pub struct WalIndexFigures {
    /// Frames of the current WAL (the header's `mxFrame`).
    pub valid_frames: usize,
    /// Page numbers listed, of valid or stale frames.
    pub entries: usize,
    /// Page numbers beyond the current WAL: of frames written before it last started again.
    pub stale: usize,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct OrderFigure {
    pub(super) method: Method,
    pub(super) epoch: Epoch,
    pub(super) n: usize,
    pub(super) rho: Option<f64>,
    /// Five standard deviations of `rho` under no correlation.
    pub(super) bound: Option<f64>,
}

/// What one snapshot gives away, file by file.
#[derive(Debug)]
pub struct SnapshotReport {
    pub label: String,
    /// Responses stored before the last epoch, in arrival order (`None`: not known).
    pub stored_before_last_epoch: Option<usize>,
    pub arrivals: usize,
    pub withdrawn: usize,
    pub files: Vec<FileReport>,
}

impl SnapshotReport {
    /// What the promise forbids: for responses before the last epoch, an order beyond
    /// chance (of the responses, of their redemptions or of their spent tokens), a link, or
    /// a WAL's index that lists frames from before the WAL last started again (in these
    /// snapshots, the last epoch: nothing resets the WAL after it, no withdrawal follows
    /// it); in any snapshot (all are taken after the withdrawals' 204), a withdrawn
    /// response or a stored response's receipt or response id.
    pub(super) fn violations(&self) -> Vec<String> {
        let mut found = Vec::new();
        for file in &self.files {
            let at = format!("snapshot {:?}, {}", self.label, file.name);
            for figure in &file.orders {
                if let (Epoch::BeforeLast, Some(rho), Some(bound)) =
                    (figure.epoch, figure.rho, figure.bound)
                {
                    if rho.abs() >= bound {
                        found.push(format!(
                            "{at}: {} orders {} responses stored before the last epoch, \
                             Spearman ρ = {rho:+.3} (chance bound {bound:.3})",
                            figure.method, figure.n
                        ));
                    }
                }
            }
            if file.withdrawn_found > 0 {
                found.push(format!(
                    "{at}: {} withdrawn responses found ({} occurrences)",
                    file.withdrawn_found, file.withdrawn_occurrences
                ));
            }
            if file.secrets_found > 0 {
                found.push(format!(
                    "{at}: the receipt or response id of {} stored responses",
                    file.secrets_found
                ));
            }
            if let (Some(_), Some(index)) = (self.stored_before_last_epoch, file.wal_index) {
                if index.stale > 0 {
                    found.push(format!(
                        "{at}: the WAL's index keeps the page numbers of {} frames written \
                         up to the end of the last epoch, in order: which pages each commit \
                         wrote",
                        index.stale
                    ));
                }
            }
            // Used invitations' hashes are stored by design since issue 20 (the redemptions:
            // who took part, not which response is theirs), so they are reported, not
            // forbidden; the order in which they were redeemed is scored above.
            for (epoch, count) in &file.links {
                if *epoch == Epoch::BeforeLast && *count > 0 {
                    found.push(format!(
                        "{at}: {count} responses stored before the last epoch linked to \
                         their invitation by the WAL"
                    ));
                }
            }
        }
        found
    }
}

/// The table for the closing note: every ρ per snapshot, file and method, and the counts.
pub(super) fn print_reports(reports: &[SnapshotReport]) {
    for report in reports {
        eprintln!();
        eprintln!(
            "== snapshot {}: {} arrivals, {} withdrawn, {}",
            report.label,
            report.arrivals,
            report.withdrawn,
            match report.stored_before_last_epoch {
                Some(boundary) => format!(
                    "arrivals 0..{boundary} before the last epoch, {boundary}..{} in the current one",
                    report.arrivals
                ),
                None => "epoch boundary not known (epochs ran during the submissions)".to_owned(),
            }
        );
        eprintln!(
            "   {:<22} {:>9}  {:<22} {:<8} {:>5} {:>8} {:>7}  verdict",
            "file", "bytes", "method", "epoch", "n", "rho", "bound"
        );
        for file in &report.files {
            for figure in file.orders.iter().filter(|figure| figure.n > 0) {
                let bound = figure.bound;
                let verdict = match (figure.epoch, figure.rho, bound) {
                    (_, None, _) | (_, _, None) => "n/a",
                    (Epoch::BeforeLast, Some(rho), Some(bound)) if rho.abs() >= bound => "FAIL",
                    (Epoch::BeforeLast, _, _) => "ok",
                    (_, Some(rho), Some(bound)) if rho.abs() >= bound => "ordered (reported)",
                    _ => "chance (reported)",
                };
                eprintln!(
                    "   {:<22} {:>9}  {:<22} {:<8} {:>5} {:>8} {:>7}  {verdict}",
                    file.name,
                    file.bytes,
                    figure.method.to_string(),
                    figure.epoch.to_string(),
                    figure.n,
                    figure
                        .rho
                        .map_or("-".to_owned(), |rho| format!("{rho:+.4}")),
                    bound.map_or("-".to_owned(), |bound| format!("{bound:.4}")),
                );
            }
            let per_epoch = |counts: &[(Epoch, usize)]| {
                counts
                    .iter()
                    .filter(|(epoch, _)| {
                        report.stored_before_last_epoch.is_some() != (*epoch == Epoch::Unknown)
                    })
                    .map(|(epoch, count)| format!("{epoch} {count}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            eprintln!(
                "   {:<22} {:>9}  withdrawn found {} ({} occurrences); receipts/response ids of \
                 stored responses {}{}; used-invitation hashes: {}; WAL links: {}{}",
                file.name,
                file.bytes,
                file.withdrawn_found,
                file.withdrawn_occurrences,
                file.secrets_found,
                if file.forms_found.is_empty() {
                    String::new()
                } else {
                    format!(" (forms found: {:?})", file.forms_found)
                },
                per_epoch(&file.invitations_found),
                per_epoch(&file.links),
                file.wal_commits
                    .map_or(String::new(), |commits| format!("; {commits} WAL commits")),
            );
            if let Some(index) = file.wal_index {
                eprintln!(
                    "   {:<22} {:>9}  WAL index: {} page numbers listed, {} frames in the \
                     current WAL, {} left from before it started again",
                    file.name, file.bytes, index.entries, index.valid_frames, index.stale
                );
            }
        }
    }
}

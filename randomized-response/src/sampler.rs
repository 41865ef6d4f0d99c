use core::borrow::Borrow;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::{Answer, DesignError, Mechanism, PrivacyLevel};

/// Bytes of device randomness, of server nonce, and of the ChaCha20 seed.
pub const SEED_BYTES: usize = 32;

/// Randomized response: the true answer with probability p, its opposite with q = 1 − p.
///
/// Sampled exactly: one uniform 64-bit draw `u` from `rng`, truth iff
/// `u < level.threshold()`, so the realized truth probability is `T / 2^64 ≤ p` and the
/// realized privacy never exceeds ε. No floating-point uniform is compared with p.
///
/// Privacy: ε-local differential privacy, `P[report | truth] / P[report | ¬truth] ≤ e^ε`
/// for both reports (Warner 1965).
pub fn respond<R: RngCore + ?Sized>(truth: bool, level: PrivacyLevel, rng: &mut R) -> bool {
    let reports_truth = rng.next_u64() < level.threshold();
    if reports_truth {
        truth
    } else {
        !truth
    }
}

/// The per-response unbiased value `z = (report − q) / r`.
///
/// `E[report] = q + r·truth`, so `E[z] = truth`; the mean of z over respondents is the
/// unbiased estimate of the true "yes" proportion. z takes the two values
/// `−q/r` and `p/r`, an interval of width 1/r.
pub fn unbiased_value(report: bool, level: PrivacyLevel) -> f64 {
    let report = if report { 1.0 } else { 0.0 };
    (report - level.lie_probability()) / level.signal()
}

/// The ChaCha20 generator of one submission, seeded with `device_bytes XOR server_nonce`.
///
/// The server never sees the device's bytes, so it cannot recompute the coins; a weak
/// device generator is still mixed with fresh server entropy.
pub fn submission_rng(
    device_bytes: &[u8; SEED_BYTES],
    server_nonce: &[u8; SEED_BYTES],
) -> ChaCha20Rng {
    let mut seed = [0u8; SEED_BYTES];
    for (seed_byte, (device, nonce)) in seed
        .iter_mut()
        .zip(device_bytes.iter().zip(server_nonce.iter()))
    {
        *seed_byte = device ^ nonce;
    }
    ChaCha20Rng::from_seed(seed)
}

/// The reports of one submission: question k (in question order) is randomized with the
/// k-th 64-bit draw of [`submission_rng`]. Browser and server produce identical reports
/// from identical inputs (pinned by the committed test vectors).
pub fn randomize_submission(
    device_bytes: &[u8; SEED_BYTES],
    server_nonce: &[u8; SEED_BYTES],
    answers: impl IntoIterator<Item = (bool, PrivacyLevel)>,
) -> impl Iterator<Item = bool> {
    let mut rng = submission_rng(device_bytes, server_nonce);
    answers
        .into_iter()
        .map(move |(truth, level)| respond(truth, level, &mut rng))
}

/// The reports of one submission whatever its questions' types and designs: the true
/// answers `questions[k].1`, in question order, each randomized by its mechanism
/// `questions[k].0` with [`Mechanism::respond`] on the ChaCha20 stream of
/// [`submission_rng`], written to `reports[k]`.
///
/// Question k takes [`Mechanism::draws`] consecutive 64-bit draws (one for a square design,
/// two for a number, rounding first) after those of the questions before it, so a survey of
/// mirrored yes/no questions gets exactly the reports of [`randomize_submission`] for the
/// same seed ([`crate::Design::mirrored`] reports what [`respond`] reports for every draw).
///
/// Every answer is checked ([`Mechanism::check_answer`]) before anything is drawn or
/// written: on an error `reports` is unchanged. `reports` needs one entry per question
/// ([`DesignError::ReportsLength`] otherwise). Nothing is allocated, for `no_std`.
pub fn randomize_answers(
    device_bytes: &[u8; SEED_BYTES],
    server_nonce: &[u8; SEED_BYTES],
    questions: &[(Mechanism, Answer)],
    reports: &mut [usize],
) -> Result<(), DesignError> {
    if reports.len() != questions.len() {
        return Err(DesignError::ReportsLength {
            questions: questions.len(),
            reports: reports.len(),
        });
    }
    randomize_questions(
        device_bytes,
        server_nonce,
        |index| {
            let (mechanism, answer) = &questions[index];
            Ok::<_, DesignError>((mechanism, *answer))
        },
        reports,
    )
}

/// The one loop behind [`randomize_answers`] and the WebAssembly buffer: `question(k)` gives
/// question k's mechanism and true answer for `k < reports.len()`. It is called twice per
/// question: a first pass checks every question (its construction and its answer) and
/// writes nothing; the second draws and writes `reports[k]`.
pub(crate) fn randomize_questions<M, E>(
    device_bytes: &[u8; SEED_BYTES],
    server_nonce: &[u8; SEED_BYTES],
    question: impl Fn(usize) -> Result<(M, Answer), E>,
    reports: &mut [usize],
) -> Result<(), E>
where
    M: Borrow<Mechanism>,
    E: From<DesignError>,
{
    for index in 0..reports.len() {
        let (mechanism, answer) = question(index)?;
        mechanism.borrow().check_answer(answer)?;
    }
    let mut rng = submission_rng(device_bytes, server_nonce);
    for (index, report) in reports.iter_mut().enumerate() {
        let (mechanism, answer) = question(index)?;
        *report = mechanism.borrow().respond(answer, &mut rng)?;
    }
    Ok(())
}

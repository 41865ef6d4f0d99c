//! The byte-buffer interface of the WebAssembly module, usable natively for tests.
//!
//! Layout (little-endian), as documented in the crate's README:
//! * `[0, 32)`: the device's 32 random bytes;
//! * `[32, 64)`: the server nonce;
//! * question i at `64 + 16·i`: ε as an f64 at `+0`, the truth (0 or 1) at `+8`, and,
//!   after a successful call, the report (0 or 1) at `+9`.

use crate::{randomize_submission, PrivacyLevel, SEED_BYTES};

/// The most questions one call randomizes.
pub const MAX_QUESTIONS: usize = 100;
/// Where the first question's record starts.
pub const REPORTS_OFFSET: usize = 2 * SEED_BYTES;
/// Bytes per question record.
pub const QUESTION_STRIDE: usize = 16;
/// Bytes of the whole buffer the module exports.
pub const BUFFER_BYTES: usize = REPORTS_OFFSET + QUESTION_STRIDE * MAX_QUESTIONS;

const TRUTH_AT: usize = 8;
const REPORT_AT: usize = 9;

/// Why a buffer was refused; nothing is written then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbiError {
    /// The count is not in 1..=[`MAX_QUESTIONS`], or the buffer is too short for it.
    QuestionCount,
    /// Some ε is not an accepted privacy level.
    Epsilon,
    /// Some truth byte is neither 0 nor 1.
    Truth,
}

impl AbiError {
    /// The negative code `rr_randomize` returns.
    pub fn code(self) -> i32 {
        match self {
            Self::QuestionCount => -1,
            Self::Epsilon => -2,
            Self::Truth => -3,
        }
    }
}

/// Reads the inputs of `count` questions from `buffer`, randomizes them with
/// [`randomize_submission`] and writes each report next to its question.
pub fn randomize_buffer(buffer: &mut [u8], count: i32) -> Result<usize, AbiError> {
    let count = usize::try_from(count).map_err(|_| AbiError::QuestionCount)?;
    if count == 0
        || count > MAX_QUESTIONS
        || buffer.len() < REPORTS_OFFSET + QUESTION_STRIDE * count
    {
        return Err(AbiError::QuestionCount);
    }
    let mut device_bytes = [0u8; SEED_BYTES];
    let mut server_nonce = [0u8; SEED_BYTES];
    device_bytes.copy_from_slice(&buffer[..SEED_BYTES]);
    server_nonce.copy_from_slice(&buffer[SEED_BYTES..REPORTS_OFFSET]);

    // Validate everything before writing anything.
    let mut answers = [(false, PrivacyLevel::warner()); MAX_QUESTIONS];
    for (index, answer) in answers.iter_mut().take(count).enumerate() {
        let record = &buffer[REPORTS_OFFSET + QUESTION_STRIDE * index..][..QUESTION_STRIDE];
        let mut epsilon_bytes = [0u8; 8];
        epsilon_bytes.copy_from_slice(&record[..8]);
        let level =
            PrivacyLevel::new(f64::from_le_bytes(epsilon_bytes)).map_err(|_| AbiError::Epsilon)?;
        let truth = match record[TRUTH_AT] {
            0 => false,
            1 => true,
            _ => return Err(AbiError::Truth),
        };
        *answer = (truth, level);
    }

    let reports = randomize_submission(
        &device_bytes,
        &server_nonce,
        answers[..count].iter().copied(),
    );
    for (index, report) in reports.enumerate() {
        buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + REPORT_AT] = u8::from(report);
    }
    // The seed material has done its work; leave no copy of it on the stack.
    device_bytes.fill(0);
    Ok(count)
}

//! The byte-buffer interface of the WebAssembly module, usable natively for tests.
//!
//! Layout (little-endian), as documented in the crate's README:
//! * `[0, 32)`: the device's 32 random bytes;
//! * `[32, 64)`: the server nonce;
//! * question i at `64 + 16·i`: ε as an f64 at `+0`, the truth (0 or 1) at `+8`, and,
//!   after a successful call, the report (0 or 1) at `+9`.
//!
//! The same buffer also carries a message to hash: [`sha256_buffer`] reads its first
//! `length` bytes and writes their SHA-256 digest over `[0, 32)`. The browser needs it for
//! the response id (the hash of the receipt), and `crypto.subtle` is missing on plain HTTP.

use sha2::{Digest, Sha256};

use crate::{randomize_submission, PrivacyLevel, SEED_BYTES};

/// The most questions one call randomizes.
pub const MAX_QUESTIONS: usize = 100;
/// Where the first question's record starts.
pub const REPORTS_OFFSET: usize = 2 * SEED_BYTES;
/// Bytes per question record.
pub const QUESTION_STRIDE: usize = 16;
/// Bytes of the whole buffer the module exports.
pub const BUFFER_BYTES: usize = REPORTS_OFFSET + QUESTION_STRIDE * MAX_QUESTIONS;
/// Bytes of a SHA-256 digest, written at the start of the buffer by [`sha256_buffer`].
pub const DIGEST_BYTES: usize = 32;

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
    /// The message to hash is longer than the buffer (or the length is negative).
    MessageLength,
}

impl AbiError {
    /// The negative code `rr_randomize` returns.
    pub fn code(self) -> i32 {
        match self {
            Self::QuestionCount => -1,
            Self::Epsilon => -2,
            Self::Truth => -3,
            Self::MessageLength => -4,
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

/// Hashes the first `length` bytes of `buffer` with SHA-256 and writes the digest over
/// `buffer[..32]`; returns the digest's length, 32. The message may be empty, but it must fit
/// in the buffer, and the buffer must hold at least a digest.
pub fn sha256_buffer(buffer: &mut [u8], length: i32) -> Result<usize, AbiError> {
    let length = usize::try_from(length).map_err(|_| AbiError::MessageLength)?;
    if length > buffer.len() || buffer.len() < DIGEST_BYTES {
        return Err(AbiError::MessageLength);
    }
    let digest = Sha256::digest(&buffer[..length]);
    buffer[..DIGEST_BYTES].copy_from_slice(&digest);
    Ok(DIGEST_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|byte| format!("{byte:02x}")).collect()
    }

    fn digest_of(message: &[u8]) -> String {
        let mut buffer = [0u8; BUFFER_BYTES];
        buffer[..message.len()].copy_from_slice(message);
        let length = i32::try_from(message.len()).unwrap();
        assert_eq!(sha256_buffer(&mut buffer, length), Ok(DIGEST_BYTES));
        hex(&buffer[..DIGEST_BYTES])
    }

    // Known values from FIPS 180-2 (appendix B) and `printf %s … | sha256sum`.
    #[test]
    fn the_digest_matches_published_sha256_values() {
        assert_eq!(
            digest_of(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            digest_of(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            digest_of(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
    }

    #[test]
    fn a_receipt_hashes_to_its_response_id() {
        // A receipt as the form draws it: 43 characters of base64url.
        assert_eq!(
            digest_of(b"q2w3e4r5t6y7u8i9o0pAzSxDcFvGbHnJmK-_L1a2b3c"),
            "4d3fc4963c18d5f0e9c97fd263ae143b53db20bdb6571b3fab96ee76cb12a335"
        );
    }

    #[test]
    fn the_whole_buffer_can_be_hashed_and_no_more() {
        let mut buffer = [0u8; BUFFER_BYTES];
        let whole = i32::try_from(BUFFER_BYTES).unwrap();
        assert_eq!(sha256_buffer(&mut buffer, whole), Ok(DIGEST_BYTES));
        // `head -c 1664 /dev/zero | sha256sum`: many blocks, and the padding of a full one.
        assert_eq!(
            hex(&buffer[..DIGEST_BYTES]),
            "755ba9519eb08efb2d4c68ccfee9d69ceb372301b3a701ad6a3ac309ba37edb6"
        );
        assert_eq!(
            sha256_buffer(&mut buffer, whole + 1),
            Err(AbiError::MessageLength)
        );
        assert_eq!(sha256_buffer(&mut buffer, -1), Err(AbiError::MessageLength));
        assert_eq!(AbiError::MessageLength.code(), -4);
    }
}

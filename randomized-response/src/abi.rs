//! The byte-buffer interface of the WebAssembly module, usable natively for tests.
//!
//! Layout (little-endian), as documented in the crate's README:
//! * `[0, 32)`: the device's 32 random bytes;
//! * `[32, 64)`: the server nonce;
//! * question i's record, [`QUESTION_STRIDE`] = 40 bytes at `64 + 40·i`:
//!
//! | bytes | field |
//! |---|---|
//! | `+0` | [`KIND_AT`]: the design, [`KIND_MIRRORED`] (0), [`KIND_FORCED_RESPONSE`] (1), [`KIND_UNRELATED_QUESTION`] (2), [`KIND_K_ARY`] (3) or [`KIND_NUMBER`] (4) |
//! | `+1` | [`OPTIONS_AT`]: k-ary only, the number of options k, 2 to 20 |
//! | `+2` | [`TRUTH_AT`]: the true answer's index: 0 = No, 1 = Yes; the option for k-ary |
//! | `+3` | [`REPORT_AT`]: written by a successful call, the report (an index, or 0 = min and 1 = max for a number); not read |
//! | `+4..+8` | reserved |
//! | `+8` | [`PARAMETERS_AT`], f64: ε (mirrored, k-ary, number) or `answer_truthfully` p (forced response, unrelated question) |
//! | `+16` | f64: `forced_yes` p1, `innocuous_yes` q, or the number's `min` |
//! | `+24` | f64: `forced_no` p0, or the number's `max` |
//! | `+32` | [`VALUE_AT`], f64: the number's true value |
//!
//! Every byte a kind does not use (reserved, the options byte except for k-ary, the truth
//! byte of a number, unused f64s) must be zero. So a record written in the 16-byte layout of
//! version 1 (an f64 ε at `+0`, whose exponent lands in the reserved bytes) is always
//! refused, never misread.
//!
//! [`randomize_buffer`] checks every record before it draws or writes anything and returns
//! the first failure as an [`AbiError`], whose [`AbiError::code`] the export returns.
//!
//! The same buffer also carries a message to hash: [`sha256_buffer`] reads its first
//! `length` bytes and writes their SHA-256 digest over `[0, 32)`. The browser needs it for
//! the response id (the hash of the receipt), and `crypto.subtle` is missing on plain HTTP.

use sha2::{Digest, Sha256};

use crate::sampler::randomize_questions;
use crate::{
    Answer, Design, DesignError, Mechanism, NumberDesign, PrivacyLevel, MAX_OPTIONS, SEED_BYTES,
};

/// The most questions one call randomizes.
pub const MAX_QUESTIONS: usize = 100;
/// Where the first question's record starts.
pub const REPORTS_OFFSET: usize = 2 * SEED_BYTES;
/// Bytes per question record.
pub const QUESTION_STRIDE: usize = 40;
/// Bytes of the whole buffer the module exports: 4 064.
pub const BUFFER_BYTES: usize = REPORTS_OFFSET + QUESTION_STRIDE * MAX_QUESTIONS;
/// Bytes of a SHA-256 digest, written at the start of the buffer by [`sha256_buffer`].
pub const DIGEST_BYTES: usize = 32;

/// One question's record.
type Record = [u8; QUESTION_STRIDE];

/// Offset in a record of its kind byte.
pub const KIND_AT: usize = 0;
/// Offset in a record of the number of options (k-ary only).
pub const OPTIONS_AT: usize = 1;
/// Offset in a record of the true answer's index (square designs only).
pub const TRUTH_AT: usize = 2;
/// Offset in a record of the report, written by a successful call.
pub const REPORT_AT: usize = 3;
/// Offset in a record of its first f64 parameter; the second and third follow, 8 bytes apart.
pub const PARAMETERS_AT: usize = 8;
/// Offset in a record of a number's true value, an f64.
pub const VALUE_AT: usize = 32;

/// Kind byte: yes/no, [`Design::mirrored`] at ε (Warner 1965).
pub const KIND_MIRRORED: u8 = 0;
/// Kind byte: yes/no, [`Design::forced_response`] with p, p1, p0 (Boruch 1971).
pub const KIND_FORCED_RESPONSE: u8 = 1;
/// Kind byte: yes/no, [`Design::unrelated_question`] with p, q (Greenberg et al. 1969).
pub const KIND_UNRELATED_QUESTION: u8 = 2;
/// Kind byte: choice or ordinal, [`Design::k_ary`] with k options at ε (Wang et al. 2017).
pub const KIND_K_ARY: u8 = 3;
/// Kind byte: a bounded number, [`NumberDesign::new`] on `[min, max]` at ε (Duchi, Jordan
/// & Wainwright 2018); two draws.
pub const KIND_NUMBER: u8 = 4;

/// Why a buffer was refused; nothing is written then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbiError {
    /// The count is not in 1..=[`MAX_QUESTIONS`], or the buffer is too short for it.
    QuestionCount,
    /// Some record's design parameters are refused by its constructor: an ε outside
    /// [0.01, 20] or not a number, probabilities that are not a design, options outside
    /// 2..=20, bounds that are not finite with min < max.
    Design,
    /// Some true answer's index is not one of its design's answers (0 or 1 for yes/no,
    /// below k for k-ary).
    Truth,
    /// The message to hash is longer than the buffer (or the length is negative).
    MessageLength,
    /// Some number's true value is outside its bounds, or not a number.
    Value,
    /// Some record has an unknown kind byte, or a byte its kind does not use is not zero.
    Record,
}

impl AbiError {
    /// The negative code `rr_randomize` and `rr_sha256` return.
    pub fn code(self) -> i32 {
        match self {
            Self::QuestionCount => -1,
            Self::Design => -2,
            Self::Truth => -3,
            Self::MessageLength => -4,
            Self::Value => -5,
            Self::Record => -6,
        }
    }
}

impl From<DesignError> for AbiError {
    /// An answer out of range is the truth's or the value's fault; every other refusal is
    /// the design's.
    fn from(error: DesignError) -> Self {
        match error {
            DesignError::AnswerOutOfRange { .. } => Self::Truth,
            DesignError::ValueOutOfBounds { .. } => Self::Value,
            _ => Self::Design,
        }
    }
}

/// The little-endian f64 at `at` in a record.
fn f64_at(record: &Record, at: usize) -> f64 {
    f64::from_le_bytes(core::array::from_fn(|byte| record[at + byte]))
}

/// The bytes `[from, to)` of a record, as a mask of bits.
const fn bytes(from: usize, to: usize) -> u64 {
    (1 << to) - (1 << from)
}

/// The bytes a record of `kind` may set (its kind, truth or options, parameters, value, and
/// the report byte, which is only written); `None` for an unknown kind.
fn bytes_read(kind: u8) -> Option<u64> {
    let always = bytes(KIND_AT, KIND_AT + 1) | bytes(REPORT_AT, REPORT_AT + 1);
    let truth = bytes(TRUTH_AT, TRUTH_AT + 1);
    let parameters = |count: usize| bytes(PARAMETERS_AT, PARAMETERS_AT + 8 * count);
    let read = match kind {
        KIND_MIRRORED => truth | parameters(1),
        KIND_FORCED_RESPONSE => truth | parameters(3),
        KIND_UNRELATED_QUESTION => truth | parameters(2),
        KIND_K_ARY => bytes(OPTIONS_AT, OPTIONS_AT + 1) | truth | parameters(1),
        KIND_NUMBER => parameters(3) | bytes(VALUE_AT, VALUE_AT + 8),
        _ => return None,
    };
    Some(always | read)
}

/// One record's mechanism and true answer, refused as [`AbiError::Record`] before its
/// design is built, then as its constructor refuses it.
fn read_question(record: &[u8]) -> Result<(Mechanism, Answer), AbiError> {
    let record: &Record = record.try_into().map_err(|_| AbiError::QuestionCount)?;
    let read = bytes_read(record[KIND_AT]).ok_or(AbiError::Record)?;
    let unused_are_zero = record
        .iter()
        .enumerate()
        .all(|(at, &byte)| byte == 0 || read & (1 << at) != 0);
    if !unused_are_zero {
        return Err(AbiError::Record);
    }
    let [first, second, third] =
        [0, 1, 2].map(|parameter| f64_at(record, PARAMETERS_AT + 8 * parameter));
    // ε for the kinds that take one; refused below only for those.
    let level = PrivacyLevel::new(first).map_err(DesignError::from);
    if record[KIND_AT] == KIND_NUMBER {
        let number = NumberDesign::new(second, third, level?)?;
        let value = f64_at(record, VALUE_AT);
        return Ok((Mechanism::Number(number), Answer::Value(value)));
    }
    let design = match record[KIND_AT] {
        KIND_MIRRORED => level.map(Design::mirrored),
        KIND_FORCED_RESPONSE => Design::forced_response(first, second, third),
        KIND_UNRELATED_QUESTION => Design::unrelated_question(first, second),
        _ => level.and_then(|level| Design::k_ary(usize::from(record[OPTIONS_AT]), level)),
    }?;
    Ok((
        Mechanism::Square(design),
        Answer::Index(usize::from(record[TRUTH_AT])),
    ))
}

/// Reads `count` question records from `buffer`, randomizes them in question order with
/// the stream of [`crate::submission_rng`] (as [`crate::randomize_answers`] does: one draw
/// per square design, two per number) and writes each report into its record. Returns
/// `count`; on an error nothing is written.
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

    // Checks every record before drawing, then draws; the reports land here first.
    let mut reports = [0usize; MAX_QUESTIONS];
    let records = &buffer[REPORTS_OFFSET..];
    let outcome = randomize_questions(
        &device_bytes,
        &server_nonce,
        |index| read_question(&records[QUESTION_STRIDE * index..][..QUESTION_STRIDE]),
        &mut reports[..count],
    );
    // The seed material has done its work; leave no copy of it on the stack.
    device_bytes.fill(0);
    outcome?;
    for (index, &report) in reports[..count].iter().enumerate() {
        // A report is below MAX_OPTIONS = 20, so it fits in its byte.
        debug_assert!(report < MAX_OPTIONS);
        buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + REPORT_AT] = report as u8;
    }
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
        // `head -c 4064 /dev/zero | sha256sum`: 63 full blocks and a half-full last one.
        assert_eq!(BUFFER_BYTES, 4064);
        assert_eq!(
            hex(&buffer[..DIGEST_BYTES]),
            "81ac48a9d4a78ebed4628374539dbb2fc163379c3940995e8b8f7b31614b8cde"
        );
        assert_eq!(
            sha256_buffer(&mut buffer, whole + 1),
            Err(AbiError::MessageLength)
        );
        assert_eq!(sha256_buffer(&mut buffer, -1), Err(AbiError::MessageLength));
        assert_eq!(AbiError::MessageLength.code(), -4);
    }
}

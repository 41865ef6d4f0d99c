//! # Randomized response, exactly
//!
//! The mechanism and every statistic Deniable needs, with no I/O and no server
//! dependencies. The same code runs natively (server, tests) and, compiled to
//! `wasm32-unknown-unknown` as `no_std`, in the respondent's browser.
//!
//! Notation, used throughout: ε > 0 is the privacy level of a question;
//! `p = e^ε / (1 + e^ε)` is the probability that the device reports the true answer;
//! `q = 1 − p`; `r = 2p − 1 = tanh(ε/2)`.
//!
//! * [`PrivacyLevel`]: a validated ε with p, q, r and the integer sampling threshold.
//! * [`respond`]: ε-locally differentially private randomized response (Warner 1965),
//!   sampled exactly from a uniform 64-bit integer.
//! * [`randomize_submission`]: the ChaCha20 stream seeded with device bytes XOR server nonce.
//! * [`Tally`]: mergeable counts per (question, ε).
//! * Estimators: [`unbiased_estimate`], [`chernoff_interval`], [`exact_interval`],
//!   [`anytime_interval`], [`respondents_needed`], [`posterior_after_yes`],
//!   [`posterior_after_no`], [`total_epsilon`] and [`summarize`].
//!
//! References:
//! * S. L. Warner, "Randomized response: a survey technique for eliminating evasive answer
//!   bias", JASA 60(309), 1965.
//! * Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR", CCS 2014 (randomized response as
//!   local differential privacy).
//! * W. Hoeffding, "Probability inequalities for sums of bounded random variables",
//!   JASA 58(301), 1963.
//! * C. J. Clopper, E. S. Pearson, "The use of confidence or fiducial limits illustrated
//!   in the case of the binomial", Biometrika 26(4), 1934.
//! * S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, "Time-uniform, nonparametric,
//!   nonasymptotic confidence sequences", Annals of Statistics 49(2), 2021.
#![cfg_attr(target_arch = "wasm32", no_std)]
#![warn(missing_docs)]

mod abi;
mod beta;
mod error;
mod estimate;
mod level;
mod sampler;
mod tally;

pub use abi::{
    randomize_buffer, sha256_buffer, AbiError, BUFFER_BYTES, DIGEST_BYTES, MAX_QUESTIONS,
    QUESTION_STRIDE, REPORTS_OFFSET,
};
pub use error::MechanismError;
pub use estimate::{
    anytime_interval, anytime_mixture_scale, chernoff_interval, exact_interval, posterior_after_no,
    posterior_after_yes, respondents_needed, summarize, total_epsilon, unbiased_estimate,
    Confidence, Interval, Summary,
};
pub use level::PrivacyLevel;
pub use sampler::{randomize_submission, respond, submission_rng, unbiased_value, SEED_BYTES};
pub use tally::Tally;

/// The WebAssembly exports: a static buffer and two functions. See the crate's README.
#[cfg(all(target_arch = "wasm32", not(test)))]
mod wasm_exports {
    use crate::abi::{randomize_buffer, sha256_buffer, BUFFER_BYTES};

    static mut BUFFER: [u8; BUFFER_BYTES] = [0; BUFFER_BYTES];

    /// Address of the input/output buffer in the module's linear memory.
    #[no_mangle]
    pub extern "C" fn rr_buffer() -> *mut u8 {
        core::ptr::addr_of_mut!(BUFFER).cast::<u8>()
    }

    /// Randomizes `count` questions in place; returns `count`, or a negative error code.
    #[no_mangle]
    pub extern "C" fn rr_randomize(count: i32) -> i32 {
        // SAFETY: wasm32-unknown-unknown is single-threaded and the buffer is only
        // reached through this call, so no other reference to it is alive.
        let buffer = unsafe { &mut *core::ptr::addr_of_mut!(BUFFER) };
        match randomize_buffer(buffer, count) {
            Ok(written) => written as i32,
            Err(error) => error.code(),
        }
    }

    /// Writes the SHA-256 digest of the buffer's first `length` bytes over its first 32;
    /// returns 32, or a negative error code.
    #[no_mangle]
    pub extern "C" fn rr_sha256(length: i32) -> i32 {
        // SAFETY: as in `rr_randomize`, the only reference to the buffer is this one.
        let buffer = unsafe { &mut *core::ptr::addr_of_mut!(BUFFER) };
        match sha256_buffer(buffer, length) {
            Ok(written) => written as i32,
            Err(error) => error.code(),
        }
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}

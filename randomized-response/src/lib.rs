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
//! * [`randomize_answers`]: the same stream for a submission of questions of any design
//!   ([`Mechanism`], [`Answer`]), one draw per square design and two per number.
//! * Module [`abi`]: the byte buffer of the WebAssembly module, whose records carry each
//!   question's design ([`randomize_buffer`], [`sha256_buffer`]).
//! * [`Tally`]: mergeable counts per (question, ε).
//! * Estimators: [`unbiased_estimate`], [`chernoff_interval`], [`exact_interval`],
//!   [`anytime_interval`], [`respondents_needed`], [`posterior_after_yes`],
//!   [`posterior_after_no`], [`total_epsilon`] and [`summarize`].
//!
//! Every design as one matrix (module [`design`]):
//!
//! * [`Design`]: a square row-stochastic matrix `P[t][r]` held as exact integer sampling
//!   thresholds over 2^64, with its realized ε, one-draw sampler and posterior:
//!   [`Design::mirrored`] (Warner 1965), [`Design::forced_response`] (Boruch 1971;
//!   Fox & Tracy 1986), [`Design::unrelated_question`] (Greenberg et al. 1969) and
//!   [`Design::k_ary`] for choice and ordinal questions (Wang, Blocki, Li & Jha 2017).
//! * [`NumberDesign`]: a bounded number rounded at random to an end, then mirrored
//!   randomized response (Duchi, Jordan & Wainwright 2018); two draws.
//! * [`PerRecordEstimator`]: one code path for every target (an option's share, an ordinal
//!   mean, a number's mean): the unbiased estimate `P^{-T} f̂` as the mean of a bounded
//!   per-record value, with its Chernoff, exact and anytime intervals and planner; its
//!   one-sided bounds ([`PerRecordEstimator::one_sided`], [`Side`]); tests of `θ = θ0`
//!   ([`PerRecordEstimator::anytime_p_value`], [`PerRecordEstimator::exact_p_value`]); and
//!   the difference between two groups ([`PerRecordEstimator::difference`], [`Group`]).
//! * [`Design::consistency`]: an anytime-valid e-value of the reports against the design,
//!   flagged past `1/`[`CONSISTENCY_ALPHA`].
//! * [`JointDesign`]: the cross-tabulation of two questions as the product design, each
//!   cell's share ([`JointCell`]) and conditional proportions ([`Conditional`]).
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
//! * B. G. Greenberg, A.-L. A. Abul-Ela, W. R. Simmons, D. G. Horvitz, "The unrelated
//!   question randomized response model: theoretical framework", JASA 64(326), 1969.
//! * R. F. Boruch, "Assuring confidentiality of responses in social research: a note on
//!   strategies", The American Sociologist 6(4), 1971; J. A. Fox, P. E. Tracy,
//!   *Randomized Response: A Method for Sensitive Surveys*, Sage, 1986.
//! * G. Blair, K. Imai, Y.-Y. Zhou, "Design and analysis of the randomized response
//!   technique", JASA 110(511), 2015 (R package `rr`).
//! * T. Wang, J. Blocki, N. Li, S. Jha, "Locally differentially private protocols for
//!   frequency estimation", USENIX Security 2017.
//! * J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal procedures for locally
//!   private estimation", JASA 113(521), 2018.
//! * J. Ville, *Étude critique de la notion de collectif*, Gauthier-Villars, 1939; H. Robbins,
//!   "Statistical methods related to the law of the iterated logarithm", Annals of
//!   Mathematical Statistics 41(5), 1970; T. L. Lai, "On confidence sequences", Annals of
//!   Statistics 4(2), 1976 (mixture martingales and their crossing probability).
//! * A. Ramdas, P. Grünwald, V. Vovk, G. Shafer, "Game-theoretic statistics and safe
//!   anytime-valid inference", Statistical Science 38(4), 2023 (e-values, anytime-valid
//!   p-values).
//! * R. A. Fisher, *The Design of Experiments*, 1935 (the exact test of a 2×2 table);
//!   C. Loader, "Fast and accurate computation of binomial probabilities", 2000 (R's
//!   `dbinom`).
#![cfg_attr(target_arch = "wasm32", no_std)]
#![warn(missing_docs)]

pub mod abi;
mod beta;
mod binomial;
pub mod consistency;
pub mod design;
mod design_error;
mod error;
mod estimate;
mod interval;
pub mod joint;
mod level;
mod mechanism;
mod mixture;
mod number;
mod per_record;
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
    Confidence, Summary,
};
pub use interval::{Bound, Interval};
pub use level::PrivacyLevel;
pub use sampler::{
    randomize_answers, randomize_submission, respond, submission_rng, unbiased_value, SEED_BYTES,
};
pub use tally::Tally;

pub use consistency::{Consistency, CONSISTENCY_ALPHA};
pub use design::{Design, DesignKind, Shares, MAX_OPTIONS, MIN_OPTIONS};
pub use design_error::DesignError;
pub use joint::{Conditional, ConditionalSummary, JointCell, JointDesign};
pub use mechanism::{Answer, Mechanism};
pub use number::NumberDesign;
pub use per_record::{
    Bounds, DifferenceSummary, Group, OneSidedSummary, PerRecordEstimator, Side, TargetSummary,
};

/// The WebAssembly exports: a static buffer and two functions. See module [`abi`] and the
/// crate's README.
#[cfg(all(target_arch = "wasm32", not(test)))]
mod wasm_exports {
    use crate::abi::{randomize_buffer, sha256_buffer, BUFFER_BYTES};

    static mut BUFFER: [u8; BUFFER_BYTES] = [0; BUFFER_BYTES];

    /// Address of the input/output buffer in the module's linear memory.
    #[no_mangle]
    pub extern "C" fn rr_buffer() -> *mut u8 {
        core::ptr::addr_of_mut!(BUFFER).cast::<u8>()
    }

    /// Randomizes the `count` question records of the buffer (module `abi`: 40 bytes each,
    /// any design) in place; returns `count`, or a negative error code.
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

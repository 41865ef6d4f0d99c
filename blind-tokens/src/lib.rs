//! # Blind invitation tokens
//!
//! An invitation buys a token whose value the server never sees until it is spent, and a
//! spent token cannot be matched to the invitation that bought it (issue 20). The building
//! block is a verifiable oblivious PRF, RFC 9497 in its VOPRF mode with the
//! ristretto255-SHA512 suite, as the `voprf` crate implements it; this crate only fixes the
//! suite, the byte formats and the errors. No group arithmetic, hash-to-curve or proof is
//! written here.
//!
//! 1. The client picks an input (32 random bytes in practice) and [`blind`]s it: it keeps a
//!    [`ClientState`] and sends the 32-byte blinded element.
//! 2. The server [`evaluate`]s the blinded element with its [`PrivateKey`]: an evaluated
//!    element and a proof that it used the key behind the public key.
//! 3. The client [`finalize`]s with the public key it pinned: the proof is checked, the
//!    64-byte output computed. `(input, output)` is the token.
//! 4. The server, given a token, [`verify_token`]s it: it recomputes the PRF on the input
//!    and compares in constant time. It never saw the input or output before.
//!
//! The server side (key pair, evaluation, verification, [`fingerprint`], base64url) needs
//! `std`; the client side is `no_std` without allocation and is what the browser's module
//! (`static/blind_tokens.wasm`, the buffer interface in the README) runs. Every random
//! function takes its generator (`rand_core` 0.9, cryptographic) as an argument.
//!
//! # Citations
//! * A. Davidson, A. Faz-Hernandez, N. Sullivan, C. A. Wood, "Oblivious Pseudorandom
//!   Functions (OPRFs) Using Prime-Order Groups", RFC 9497, December 2023 (the protocol,
//!   section 3; the vectors of appendix A.1.2 are this crate's tests).
//! * H. de Valence, J. Grigg, M. Hamburg, I. Lovecruft, G. Tankersley, F. Valsorda,
//!   "The ristretto255 and decaf448 Groups", RFC 9496, December 2023.
//! * S. Celi, A. Davidson, S. Valdez, C. A. Wood, "Privacy Pass Issuance Protocols",
//!   RFC 9578, June 2024 (the same construction for privately verifiable tokens).
//!
//! # Runtime
//! One [`evaluate`] is a scalar multiplication plus a DLEQ proof (about four more and two
//! hashes); [`verify_token`] is a hash to the group and one scalar multiplication;
//! [`finalize`] checks the proof (four multiplications) and unblinds (one inversion, one
//! multiplication). Timings are in the README.
#![cfg_attr(target_arch = "wasm32", no_std)]
#![warn(missing_docs)]

pub mod abi;
#[cfg(not(target_arch = "wasm32"))]
mod base64url;
mod client;
mod error;
mod public_key;
mod rng;
#[cfg(not(target_arch = "wasm32"))]
mod server;

#[cfg(not(target_arch = "wasm32"))]
pub use base64url::{from_base64url, to_base64url};
pub use client::{blind, finalize, ClientState};
pub use error::TokenError;
#[cfg(not(target_arch = "wasm32"))]
pub use public_key::fingerprint;
pub use public_key::PublicKey;
/// The generator traits every random function here takes (`rand_core` 0.9).
pub use rand_core;
#[cfg(not(target_arch = "wasm32"))]
pub use server::{
    check_blinded, evaluate, prf_output, verify_token, Evaluated, PrivateKey, KEY_SEED_BYTES,
};

/// The suite: ristretto255 with SHA-512 (RFC 9497, section 4.1), identifier
/// `ristretto255-SHA512`.
pub(crate) type Suite = voprf::Ristretto255;

/// The longest PRF input accepted, on both sides (RFC 9497 allows up to 2^16 − 1 bytes;
/// a token's input is 32 random bytes). The shortest is 1 byte.
pub const INPUT_MAX_BYTES: usize = 256;
/// Bytes of a serialized private key, `SerializeScalar(skS)`.
pub const PRIVATE_KEY_BYTES: usize = 32;
/// Bytes of a serialized public key, `SerializeElement(pkS)`.
pub const PUBLIC_KEY_BYTES: usize = 32;
/// Bytes of a blinded element.
pub const BLINDED_BYTES: usize = 32;
/// Bytes of an evaluated element.
pub const EVALUATION_BYTES: usize = 32;
/// Bytes of a proof: two scalars, `c ‖ s`.
pub const PROOF_BYTES: usize = 64;
/// Bytes of the PRF output: a SHA-512 digest.
pub const OUTPUT_BYTES: usize = 64;
/// Bytes of a client state before its input: the blind and the blinded element.
pub const STATE_HEADER_BYTES: usize = 64;
/// Bytes of the longest client state.
pub const STATE_MAX_BYTES: usize = STATE_HEADER_BYTES + INPUT_MAX_BYTES;

/// The WebAssembly exports: a static buffer and two functions. See the crate's README.
#[cfg(all(target_arch = "wasm32", not(test)))]
mod wasm_exports {
    use crate::abi::{blind_buffer, code, finalize_buffer, BUFFER_BYTES};

    static mut BUFFER: [u8; BUFFER_BYTES] = [0; BUFFER_BYTES];

    fn status(result: Result<usize, crate::TokenError>) -> i32 {
        match result {
            // At most BUFFER_BYTES, far below i32::MAX.
            Ok(written) => written as i32,
            Err(error) => code(error),
        }
    }

    /// Address of the input/output buffer in the module's linear memory.
    #[no_mangle]
    pub extern "C" fn bt_buffer() -> *mut u8 {
        core::ptr::addr_of_mut!(BUFFER).cast::<u8>()
    }

    /// Blinds the input of `input_len` bytes; returns the state's length, or a negative code.
    #[no_mangle]
    pub extern "C" fn bt_blind(input_len: i32) -> i32 {
        // SAFETY: wasm32-unknown-unknown is single-threaded and the buffer is only
        // reached through these calls, so no other reference to it is alive.
        let buffer = unsafe { &mut *core::ptr::addr_of_mut!(BUFFER) };
        status(blind_buffer(buffer, input_len))
    }

    /// Finalizes the state of `state_len` bytes; returns 64, or a negative code.
    #[no_mangle]
    pub extern "C" fn bt_finalize(state_len: i32) -> i32 {
        // SAFETY: as in `bt_blind`, the only reference to the buffer is this one.
        let buffer = unsafe { &mut *core::ptr::addr_of_mut!(BUFFER) };
        status(finalize_buffer(buffer, state_len))
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}

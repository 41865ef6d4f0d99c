//! The byte-buffer interface of the WebAssembly module, usable natively for tests.
//!
//! One static buffer of [`BUFFER_BYTES`]; offsets as documented in the crate's README:
//!
//! | bytes        | what                                   | written by          |
//! |--------------|----------------------------------------|---------------------|
//! | `[0, 32)`    | seed: 32 bytes of `getRandomValues`    | page; zeroed by `bt_blind` |
//! | `[32, 64)`   | blinded element                        | `bt_blind`          |
//! | `[64, 96)`   | evaluated element                      | page                |
//! | `[96, 160)`  | proof                                  | page                |
//! | `[160, 192)` | public key                             | page                |
//! | `[192, 256)` | output                                 | `bt_finalize`       |
//! | `[256, 576)` | state: blind ‖ blinded element ‖ input, the input at `[320, 320 + n)` | both |
//!
//! Each function returns the number of bytes it wrote (the state's length, the output's), or
//! a negative code ([`code`]); on an error nothing is written but the seed's zeroing.
//!
//! The page checks the key's fingerprint with the other module's `rr_sha256`: one SHA-256
//! in the page, not two.

use zeroize::Zeroize;

use crate::client::blind_with;
use crate::rng::SeededChaCha20;
use crate::{
    finalize, ClientState, PublicKey, TokenError, BLINDED_BYTES, EVALUATION_BYTES, OUTPUT_BYTES,
    PROOF_BYTES, PUBLIC_KEY_BYTES, STATE_HEADER_BYTES, STATE_MAX_BYTES,
};

/// Bytes of the seed the page draws with `crypto.getRandomValues` for each blind.
pub const SEED_BYTES: usize = 32;
/// Where the seed is.
pub const SEED_AT: usize = 0;
/// Where `bt_blind` writes the blinded element.
pub const BLINDED_AT: usize = SEED_AT + SEED_BYTES;
/// Where the page writes the evaluated element for `bt_finalize`.
pub const EVALUATION_AT: usize = BLINDED_AT + BLINDED_BYTES;
/// Where the page writes the proof for `bt_finalize`.
pub const PROOF_AT: usize = EVALUATION_AT + EVALUATION_BYTES;
/// Where the page writes the public key for `bt_finalize`.
pub const PUBLIC_KEY_AT: usize = PROOF_AT + PROOF_BYTES;
/// Where `bt_finalize` writes the output.
pub const OUTPUT_AT: usize = PUBLIC_KEY_AT + PUBLIC_KEY_BYTES;
/// Where the state starts: written by `bt_blind`, read by `bt_finalize`.
pub const STATE_AT: usize = OUTPUT_AT + OUTPUT_BYTES;
/// Where the page writes the input for `bt_blind`: inside the state, after its header.
pub const INPUT_AT: usize = STATE_AT + STATE_HEADER_BYTES;
/// Bytes of the whole buffer the module exports.
pub const BUFFER_BYTES: usize = STATE_AT + STATE_MAX_BYTES;

/// The negative code a buffer function returns for `error`.
pub fn code(error: TokenError) -> i32 {
    match error {
        TokenError::InputLength => -1,
        TokenError::MalformedState => -2,
        TokenError::MalformedEvaluation => -3,
        TokenError::MalformedProof => -4,
        TokenError::MalformedPublicKey => -5,
        TokenError::ProofRejected => -6,
        TokenError::Randomness => -7,
        TokenError::MalformedPrivateKey => -8,
        TokenError::MalformedBlinded => -9,
        TokenError::Base64 => -10,
        TokenError::KeyGeneration => -11,
    }
}

/// Blinds the `input_len` bytes at [`INPUT_AT`] with a ChaCha20 stream seeded from the
/// [`SEED_BYTES`] at [`SEED_AT`]; writes the blinded element at [`BLINDED_AT`] and the state
/// at [`STATE_AT`] (the input stays where it is, as the state's tail) and returns the
/// state's length. The seed is zeroed whatever happens, and an all-zero seed is refused
/// ([`TokenError::Randomness`]): a page that forgot to draw one cannot blind twice with the
/// same blind.
pub fn blind_buffer(buffer: &mut [u8; BUFFER_BYTES], input_len: i32) -> Result<usize, TokenError> {
    let mut seed = [0u8; SEED_BYTES];
    seed.copy_from_slice(&buffer[SEED_AT..SEED_AT + SEED_BYTES]);
    buffer[SEED_AT..SEED_AT + SEED_BYTES].zeroize();
    let result = blind_seeded(buffer, &seed, input_len);
    seed.zeroize();
    result
}

fn blind_seeded(
    buffer: &mut [u8; BUFFER_BYTES],
    seed: &[u8; SEED_BYTES],
    input_len: i32,
) -> Result<usize, TokenError> {
    let input_len = usize::try_from(input_len).map_err(|_| TokenError::InputLength)?;
    if input_len > STATE_MAX_BYTES - STATE_HEADER_BYTES {
        return Err(TokenError::InputLength);
    }
    if seed.iter().all(|&byte| byte == 0) {
        return Err(TokenError::Randomness);
    }
    let mut rng = SeededChaCha20::from_seed(*seed);
    let (state, blinded) = blind_with(&buffer[INPUT_AT..INPUT_AT + input_len], &mut rng)?;
    buffer[BLINDED_AT..BLINDED_AT + BLINDED_BYTES].copy_from_slice(&blinded);
    let state = state.as_bytes();
    buffer[STATE_AT..STATE_AT + state.len()].copy_from_slice(state);
    Ok(state.len())
}

/// Finalizes the state of `state_len` bytes at [`STATE_AT`] with the evaluated element,
/// proof and public key at their offsets; writes the output at [`OUTPUT_AT`] and returns
/// its length, [`OUTPUT_BYTES`].
pub fn finalize_buffer(
    buffer: &mut [u8; BUFFER_BYTES],
    state_len: i32,
) -> Result<usize, TokenError> {
    let state_len = usize::try_from(state_len).map_err(|_| TokenError::MalformedState)?;
    if state_len > STATE_MAX_BYTES {
        return Err(TokenError::MalformedState);
    }
    let state = ClientState::from_bytes(&buffer[STATE_AT..STATE_AT + state_len])?;
    let public_key =
        PublicKey::from_bytes(&buffer[PUBLIC_KEY_AT..PUBLIC_KEY_AT + PUBLIC_KEY_BYTES])?;
    let output = finalize(
        &state,
        &buffer[EVALUATION_AT..EVALUATION_AT + EVALUATION_BYTES],
        &buffer[PROOF_AT..PROOF_AT + PROOF_BYTES],
        &public_key,
    )?;
    buffer[OUTPUT_AT..OUTPUT_AT + OUTPUT_BYTES].copy_from_slice(&output);
    Ok(OUTPUT_BYTES)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::{evaluate, verify_token, PrivateKey};

    /// A generator for the server's side in these tests.
    struct Counter(u64);

    impl rand_core::RngCore for Counter {
        fn next_u32(&mut self) -> u32 {
            self.next_u64() as u32
        }
        fn next_u64(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            for byte in dest {
                *byte = (self.next_u64() >> 56) as u8;
            }
        }
    }

    // Test-only: the server's randomness does not matter to what is checked here.
    impl rand_core::CryptoRng for Counter {}

    fn blind_in(
        buffer: &mut [u8; BUFFER_BYTES],
        seed: u8,
        input: &[u8],
    ) -> Result<usize, TokenError> {
        buffer[SEED_AT..SEED_AT + SEED_BYTES].fill(seed);
        buffer[INPUT_AT..INPUT_AT + input.len()].copy_from_slice(input);
        blind_buffer(buffer, i32::try_from(input.len()).unwrap())
    }

    #[test]
    fn the_buffer_round_trip_gives_a_token_the_server_accepts() {
        let key = PrivateKey::generate(&mut Counter(1)).unwrap();
        let mut buffer = [0u8; BUFFER_BYTES];
        let input = [42u8; 32];
        assert_eq!(
            blind_in(&mut buffer, 9, &input),
            Ok(STATE_HEADER_BYTES + 32)
        );
        assert_eq!(
            buffer[SEED_AT..SEED_AT + SEED_BYTES],
            [0; SEED_BYTES],
            "seed zeroed"
        );
        let evaluated = evaluate(&key, &buffer[BLINDED_AT..BLINDED_AT + 32], &mut Counter(2));
        let evaluated = evaluated.unwrap();
        buffer[EVALUATION_AT..EVALUATION_AT + 32].copy_from_slice(&evaluated.evaluation);
        buffer[PROOF_AT..PROOF_AT + 64].copy_from_slice(&evaluated.proof);
        buffer[PUBLIC_KEY_AT..PUBLIC_KEY_AT + 32].copy_from_slice(&key.public_key().to_bytes());
        assert_eq!(finalize_buffer(&mut buffer, 96), Ok(OUTPUT_BYTES));
        assert!(verify_token(
            &key,
            &input,
            &buffer[OUTPUT_AT..OUTPUT_AT + 64]
        ));
    }

    #[test]
    fn the_same_seed_blinds_the_same_way_and_another_does_not() {
        let mut first = [0u8; BUFFER_BYTES];
        let mut again = [0u8; BUFFER_BYTES];
        let mut other = [0u8; BUFFER_BYTES];
        blind_in(&mut first, 1, b"input").unwrap();
        blind_in(&mut again, 1, b"input").unwrap();
        blind_in(&mut other, 2, b"input").unwrap();
        assert_eq!(first, again);
        assert_ne!(
            first[BLINDED_AT..BLINDED_AT + 32],
            other[BLINDED_AT..BLINDED_AT + 32]
        );
    }

    #[test]
    fn a_missing_seed_or_a_bad_length_is_refused_with_its_code() {
        let mut buffer = [0u8; BUFFER_BYTES];
        // A page that forgot to draw the seed (or calls twice) finds it zeroed: refused.
        assert_eq!(
            blind_in(&mut buffer, 0, b"input"),
            Err(TokenError::Randomness)
        );
        assert_eq!(blind_in(&mut buffer, 3, b""), Err(TokenError::InputLength));
        for length in [-1, 257, i32::MAX, i32::MIN] {
            buffer[..SEED_BYTES].fill(3);
            assert_eq!(
                blind_buffer(&mut buffer, length),
                Err(TokenError::InputLength)
            );
            assert_eq!(
                buffer[..SEED_BYTES],
                [0; SEED_BYTES],
                "seed zeroed on error too"
            );
        }
        // Nothing but the page's input is in the buffer: no blinded element, no state.
        assert_eq!(buffer[BLINDED_AT..INPUT_AT], [0; INPUT_AT - BLINDED_AT]);
        for length in [-1, 0, 64, 321, i32::MAX] {
            assert_eq!(
                finalize_buffer(&mut buffer, length),
                Err(TokenError::MalformedState)
            );
        }
        let codes = [
            TokenError::InputLength,
            TokenError::MalformedState,
            TokenError::MalformedEvaluation,
            TokenError::MalformedProof,
            TokenError::MalformedPublicKey,
            TokenError::ProofRejected,
            TokenError::Randomness,
            TokenError::MalformedPrivateKey,
            TokenError::MalformedBlinded,
            TokenError::Base64,
            TokenError::KeyGeneration,
        ]
        .map(code);
        assert_eq!(codes, [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11]);
    }

    #[test]
    fn the_layout_fits_its_constants() {
        assert_eq!(
            [
                SEED_AT,
                BLINDED_AT,
                EVALUATION_AT,
                PROOF_AT,
                PUBLIC_KEY_AT,
                OUTPUT_AT,
                STATE_AT,
                INPUT_AT
            ],
            [0, 32, 64, 96, 160, 192, 256, 320]
        );
        assert_eq!(BUFFER_BYTES, 576);
    }
}

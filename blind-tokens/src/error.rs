//! Why a token operation was refused. Every malformed byte string is one of these, never a
//! panic: the server runs [`crate::evaluate`] and [`crate::verify_token`] on bytes an
//! attacker chooses.

use core::fmt;

/// Why bytes were refused or a token step failed; nothing is written then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenError {
    /// The PRF input is empty or longer than [`crate::INPUT_MAX_BYTES`].
    InputLength,
    /// Not 32 bytes of a canonical, non-zero ristretto255 scalar.
    MalformedPrivateKey,
    /// Not 32 bytes of a canonical ristretto255 element other than the identity.
    MalformedPublicKey,
    /// The blinded element is not 32 bytes of a canonical, non-identity element.
    MalformedBlinded,
    /// The evaluated element is not 32 bytes of a canonical, non-identity element.
    MalformedEvaluation,
    /// The proof is not 64 bytes of two canonical, non-zero scalars.
    MalformedProof,
    /// The client state is not a blind, its blinded element and an input of an accepted
    /// length.
    MalformedState,
    /// The proof does not show that the evaluation was made with the private key of the
    /// given public key (RFC 9497, section 2.2.2, `VerifyProof`): refuse the evaluation.
    ProofRejected,
    /// The text is not base64url without padding (RFC 4648, section 5).
    Base64,
    /// Key derivation found no non-zero scalar in 256 attempts (RFC 9497, section 3.2.1);
    /// the probability is below 2^-250 per key, so this is a broken generator in practice.
    KeyGeneration,
    /// The generator failed or a seed of the buffer interface was missing (all zero).
    Randomness,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InputLength => "the token input is empty or too long",
            Self::MalformedPrivateKey => "the bytes are not a private key",
            Self::MalformedPublicKey => "the bytes are not a public key",
            Self::MalformedBlinded => "the bytes are not a blinded element",
            Self::MalformedEvaluation => "the bytes are not an evaluated element",
            Self::MalformedProof => "the bytes are not a proof",
            Self::MalformedState => "the bytes are not a client state",
            Self::ProofRejected => "the proof does not match the public key",
            Self::Base64 => "the text is not base64url without padding",
            Self::KeyGeneration => "no key could be derived from the generator's seed",
            Self::Randomness => "the random seed is missing",
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl std::error::Error for TokenError {}

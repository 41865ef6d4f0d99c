//! The server's side (RFC 9497, section 3.3.2, verifiable mode): its key pair, `BlindEvaluate`
//! with its proof, and `Evaluate`, the PRF itself, to check a spent token.
//!
//! Every operation on the private key runs on bytes an attacker chooses; curve25519-dalek's
//! scalar multiplication is constant time, and the comparison of outputs here is too.

use subtle::ConstantTimeEq;
use voprf::{BlindedElement, VoprfServer};

use crate::rng::Compat;
use crate::{
    PublicKey, Suite, TokenError, BLINDED_BYTES, EVALUATION_BYTES, INPUT_MAX_BYTES, OUTPUT_BYTES,
    PRIVATE_KEY_BYTES, PROOF_BYTES,
};

/// Bytes of the seed [`PrivateKey::generate`] draws (`Ns`, RFC 9497, section 3.2).
pub const KEY_SEED_BYTES: usize = 32;

/// The server's private key `skS`, a non-zero ristretto255 scalar, with its public key.
///
/// `Debug` shows the public key only; voprf wipes the scalar when it is dropped.
pub struct PrivateKey(VoprfServer<Suite>);

impl PrivateKey {
    /// A fresh key pair: [`KEY_SEED_BYTES`] drawn from `rng`, then [`PrivateKey::derive`]
    /// with an empty `info`, as voprf's `VoprfServer::new` does.
    ///
    /// # Errors
    /// [`TokenError::KeyGeneration`] with probability below 2^-250.
    pub fn generate<R: rand_core::CryptoRng + ?Sized>(rng: &mut R) -> Result<Self, TokenError> {
        let mut seed = [0u8; KEY_SEED_BYTES];
        rng.fill_bytes(&mut seed);
        let key = Self::derive(&seed, &[]);
        zeroize::Zeroize::zeroize(&mut seed);
        key
    }

    /// `DeriveKeyPair(seed, info)` (RFC 9497, section 3.2.1): the same seed and info always
    /// give the same key. [`PrivateKey::generate`] is this with a random seed.
    ///
    /// # Errors
    /// [`TokenError::KeyGeneration`] when `info` is longer than `u16::MAX − 3 − 32` bytes, or
    /// with probability below 2^-250.
    pub fn derive(seed: &[u8; KEY_SEED_BYTES], info: &[u8]) -> Result<Self, TokenError> {
        VoprfServer::<Suite>::new_from_seed(seed, info)
            .map(Self)
            .map_err(|_| TokenError::KeyGeneration)
    }

    /// Parses `SerializeScalar(skS)`: exactly 32 bytes of a canonical, non-zero scalar.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TokenError> {
        if bytes.len() != PRIVATE_KEY_BYTES {
            return Err(TokenError::MalformedPrivateKey);
        }
        VoprfServer::<Suite>::new_with_key(bytes)
            .map(Self)
            .map_err(|_| TokenError::MalformedPrivateKey)
    }

    /// `SerializeScalar(skS)`, to store; secret.
    pub fn to_bytes(&self) -> [u8; PRIVATE_KEY_BYTES] {
        // voprf serializes the pair as `skS ‖ pkS`.
        let pair = self.0.serialize();
        let mut bytes = [0u8; PRIVATE_KEY_BYTES];
        bytes.copy_from_slice(&pair[..PRIVATE_KEY_BYTES]);
        bytes
    }

    /// `pkS = skS·G`.
    pub fn public_key(&self) -> PublicKey {
        PublicKey::from_element(self.0.get_public_key())
    }
}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PrivateKey")
            .field("public_key", &self.public_key())
            .finish_non_exhaustive()
    }
}

/// The server's answer to a blinded element: `evaluatedElement = skS·blindedElement` and
/// the proof that the same `skS` is behind the public key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evaluated {
    /// `SerializeElement(evaluatedElement)`.
    pub evaluation: [u8; EVALUATION_BYTES],
    /// `c ‖ s`, the DLEQ proof (RFC 9497, section 2.2.1).
    pub proof: [u8; PROOF_BYTES],
}

/// Whether `blinded` is a blinded element [`evaluate`] accepts: exactly 32 bytes of a
/// canonical element other than the identity. A server checks it before it looks at the
/// invitation, so that a malformed element is refused the same way whatever the
/// invitation's state.
///
/// # Errors
/// [`TokenError::MalformedBlinded`] when it is not.
pub fn check_blinded(blinded: &[u8]) -> Result<(), TokenError> {
    if blinded.len() != BLINDED_BYTES {
        return Err(TokenError::MalformedBlinded);
    }
    BlindedElement::<Suite>::deserialize(blinded)
        .map(drop)
        .map_err(|_| TokenError::MalformedBlinded)
}

/// `BlindEvaluate(skS, pkS, blindedElement)` (RFC 9497, section 3.3.2): the evaluation and
/// a proof whose random scalar is drawn from `rng`. The evaluation depends on the key and
/// the blinded element only; the proof differs at each call, so a server that must answer
/// a retry identically stores its first answer.
///
/// # Errors
/// [`TokenError::MalformedBlinded`] unless `blinded` is exactly 32 bytes of a canonical
/// element other than the identity.
pub fn evaluate<R: rand_core::CryptoRng + ?Sized>(
    private_key: &PrivateKey,
    blinded: &[u8],
    rng: &mut R,
) -> Result<Evaluated, TokenError> {
    // voprf reads a prefix of the given slice: the exact length is checked here.
    if blinded.len() != BLINDED_BYTES {
        return Err(TokenError::MalformedBlinded);
    }
    let blinded =
        BlindedElement::<Suite>::deserialize(blinded).map_err(|_| TokenError::MalformedBlinded)?;
    let result = private_key.0.blind_evaluate(&mut Compat(rng), &blinded);
    let mut evaluated = Evaluated {
        evaluation: [0; EVALUATION_BYTES],
        proof: [0; PROOF_BYTES],
    };
    evaluated
        .evaluation
        .copy_from_slice(&result.message.serialize());
    evaluated.proof.copy_from_slice(&result.proof.serialize());
    Ok(evaluated)
}

/// `Evaluate(skS, input)` (RFC 9497, section 3.3.2): the PRF output the client's
/// [`crate::finalize`] arrives at for the same input, computed directly.
///
/// # Errors
/// [`TokenError::InputLength`] unless `1 ≤ input.len() ≤` [`INPUT_MAX_BYTES`] (and, with
/// probability about 2^-252, for an input that hashes to the identity).
pub fn prf_output(
    private_key: &PrivateKey,
    input: &[u8],
) -> Result<[u8; OUTPUT_BYTES], TokenError> {
    if input.is_empty() || input.len() > INPUT_MAX_BYTES {
        return Err(TokenError::InputLength);
    }
    let output = private_key
        .0
        .evaluate(input)
        .map_err(|_| TokenError::InputLength)?;
    let mut bytes = [0u8; OUTPUT_BYTES];
    bytes.copy_from_slice(&output);
    Ok(bytes)
}

/// Whether `(input, output)` is a token of this key: recomputes [`prf_output`] and compares
/// in constant time. False for an input of a refused length or an output of another length.
pub fn verify_token(private_key: &PrivateKey, input: &[u8], output: &[u8]) -> bool {
    match prf_output(private_key, input) {
        Ok(expected) => bool::from(expected[..].ct_eq(output)),
        Err(_) => false,
    }
}

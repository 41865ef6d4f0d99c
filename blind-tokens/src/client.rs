//! The client's two steps (RFC 9497, section 3.3.2): `Blind` before the request, `Finalize`
//! after the answer, with the proof checked against the pinned public key. `no_std`, no
//! allocation: this is what the browser's WebAssembly module runs.

use voprf::{EvaluationElement, Proof, VoprfClient};
use zeroize::Zeroize;

use crate::rng::Compat;
use crate::{
    PublicKey, Suite, TokenError, BLINDED_BYTES, EVALUATION_BYTES, INPUT_MAX_BYTES, OUTPUT_BYTES,
    PROOF_BYTES, STATE_HEADER_BYTES, STATE_MAX_BYTES,
};

/// What the client keeps between its request and the answer: the blind, the blinded element
/// and the input, as bytes (`blind ‖ blinded element ‖ input`, 64 + 1…256 bytes).
///
/// Secret to the device: whoever holds it and saw the request can link the token to it.
/// Wiped when dropped; `Debug` prints nothing of it.
pub struct ClientState {
    bytes: [u8; STATE_MAX_BYTES],
    len: usize,
}

impl ClientState {
    /// Checks the layout: a canonical non-zero scalar, a canonical non-identity element and
    /// an input of 1 to [`INPUT_MAX_BYTES`] bytes. (That the element is the blind times the
    /// input's hash is not checked: a state made by [`blind`] always is.)
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TokenError> {
        if bytes.len() <= STATE_HEADER_BYTES || bytes.len() > STATE_MAX_BYTES {
            return Err(TokenError::MalformedState);
        }
        VoprfClient::<Suite>::deserialize(&bytes[..STATE_HEADER_BYTES])
            .map_err(|_| TokenError::MalformedState)?;
        let mut state = Self {
            bytes: [0; STATE_MAX_BYTES],
            len: bytes.len(),
        };
        state.bytes[..bytes.len()].copy_from_slice(bytes);
        Ok(state)
    }

    /// The bytes to keep, for [`ClientState::from_bytes`].
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The PRF input this state was made for: the token's `input`.
    pub fn input(&self) -> &[u8] {
        &self.bytes[STATE_HEADER_BYTES..self.len]
    }

    fn client(&self) -> Result<VoprfClient<Suite>, TokenError> {
        VoprfClient::<Suite>::deserialize(&self.bytes[..STATE_HEADER_BYTES])
            .map_err(|_| TokenError::MalformedState)
    }
}

impl Drop for ClientState {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl core::fmt::Debug for ClientState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ClientState(..)")
    }
}

/// `Blind(input)` (RFC 9497, section 3.3.2): draws the blind `r` from `rng` and returns the
/// state to keep and `blindedElement = r·H(input)` to send.
///
/// # Errors
/// [`TokenError::InputLength`] unless `1 ≤ input.len() ≤` [`INPUT_MAX_BYTES`].
pub fn blind<R: rand_core::CryptoRng + ?Sized>(
    input: &[u8],
    rng: &mut R,
) -> Result<(ClientState, [u8; BLINDED_BYTES]), TokenError> {
    blind_with(input, &mut Compat(rng))
}

/// [`blind`] with a generator of voprf's `rand_core` (0.6).
pub(crate) fn blind_with<R: rand_core_06::RngCore + rand_core_06::CryptoRng>(
    input: &[u8],
    rng: &mut R,
) -> Result<(ClientState, [u8; BLINDED_BYTES]), TokenError> {
    if input.is_empty() || input.len() > INPUT_MAX_BYTES {
        return Err(TokenError::InputLength);
    }
    let result = VoprfClient::<Suite>::blind(input, rng).map_err(|_| TokenError::InputLength)?;
    let mut blinded = [0u8; BLINDED_BYTES];
    blinded.copy_from_slice(&result.message.serialize());
    let mut state = ClientState {
        bytes: [0; STATE_MAX_BYTES],
        len: STATE_HEADER_BYTES + input.len(),
    };
    state.bytes[..STATE_HEADER_BYTES].copy_from_slice(&result.state.serialize());
    state.bytes[STATE_HEADER_BYTES..state.len].copy_from_slice(input);
    Ok((state, blinded))
}

/// `Finalize(input, blind, evaluatedElement, blindedElement, pkS, proof)` (RFC 9497,
/// section 3.3.2): checks the proof that the evaluation used the private key of
/// `public_key`, unblinds and hashes, giving the 64-byte PRF output, the token's `output`.
///
/// # Errors
/// [`TokenError::MalformedEvaluation`] or [`TokenError::MalformedProof`] for bytes that are
/// not an element or a proof (trailing bytes included), [`TokenError::ProofRejected`] when
/// the proof does not verify.
pub fn finalize(
    state: &ClientState,
    evaluation: &[u8],
    proof: &[u8],
    public_key: &PublicKey,
) -> Result<[u8; OUTPUT_BYTES], TokenError> {
    // voprf reads a prefix of the given slice: the exact length is checked here.
    if evaluation.len() != EVALUATION_BYTES {
        return Err(TokenError::MalformedEvaluation);
    }
    if proof.len() != PROOF_BYTES {
        return Err(TokenError::MalformedProof);
    }
    let evaluation = EvaluationElement::<Suite>::deserialize(evaluation)
        .map_err(|_| TokenError::MalformedEvaluation)?;
    let proof = Proof::<Suite>::deserialize(proof).map_err(|_| TokenError::MalformedProof)?;
    let output = state
        .client()?
        .finalize(state.input(), &evaluation, &proof, public_key.element)
        .map_err(|error| match error {
            voprf::Error::ProofVerification => TokenError::ProofRejected,
            _ => TokenError::MalformedState,
        })?;
    let mut bytes = [0u8; OUTPUT_BYTES];
    bytes.copy_from_slice(&output);
    Ok(bytes)
}

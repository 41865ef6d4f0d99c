//! RFC 9497, appendix A.1.2 (ristretto255-SHA512, VOPRF mode): the published vectors, step by
//! step, through this crate's API. `tests/rfc9497.json` holds them (Node.js checks the same
//! file against the WebAssembly module).
//!
//! The vectors fix the blind and the proof's random scalar. voprf 0.5 draws a scalar as
//! curve25519-dalek's `Scalar::random` does, 64 bytes reduced mod ℓ, so a generator that
//! replays the scalar's 32 bytes and then 32 zero bytes makes it draw exactly that scalar.
//! Should voprf draw differently, the replay is refused (it checks it was read exactly once)
//! and these tests fail: they cannot pass by accident.

use blind_tokens::{
    blind, evaluate, finalize, fingerprint, prf_output, verify_token, ClientState, PrivateKey,
    PublicKey, TokenError,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Rfc {
    seed: String,
    key_info: String,
    sk_sm: String,
    pk_sm: String,
    pk_sm_fingerprint: String,
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
struct Vector {
    name: String,
    input: String,
    blind: String,
    blinded_element: String,
    evaluation_element: String,
    proof: String,
    proof_random_scalar: String,
    output: String,
}

fn rfc() -> Rfc {
    serde_json::from_str(include_str!("rfc9497.json")).expect("rfc9497.json parses")
}

fn bytes(hex_text: &str) -> Vec<u8> {
    hex::decode(hex_text).expect("hex")
}

/// Replays one scalar as voprf 0.5 draws it (64 bytes, reduced mod ℓ), once.
struct ReplayScalar {
    bytes: [u8; 64],
    read: usize,
}

impl ReplayScalar {
    fn new(scalar_hex: &str) -> Self {
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice(&self::bytes(scalar_hex));
        Self { bytes, read: 0 }
    }

    fn assert_drawn_once(&self) {
        assert_eq!(
            self.read, 64,
            "voprf drew {} bytes, not one 64-byte scalar",
            self.read
        );
    }
}

impl blind_tokens::rand_core::RngCore for ReplayScalar {
    fn next_u32(&mut self) -> u32 {
        panic!("voprf 0.5 draws scalars with fill_bytes");
    }

    fn next_u64(&mut self) -> u64 {
        panic!("voprf 0.5 draws scalars with fill_bytes");
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        let end = self.read + dest.len();
        assert!(end <= 64, "voprf asked for more than one scalar");
        dest.copy_from_slice(&self.bytes[self.read..end]);
        self.read = end;
    }
}

impl blind_tokens::rand_core::CryptoRng for ReplayScalar {}

#[test]
fn the_key_pair_is_the_vectors() {
    let rfc = rfc();
    let seed: [u8; 32] = bytes(&rfc.seed).try_into().unwrap();
    let derived = PrivateKey::derive(&seed, &bytes(&rfc.key_info)).unwrap();
    assert_eq!(hex::encode(derived.to_bytes()), rfc.sk_sm);
    assert_eq!(hex::encode(derived.public_key().to_bytes()), rfc.pk_sm);

    let parsed = PrivateKey::from_bytes(&bytes(&rfc.sk_sm)).unwrap();
    assert_eq!(hex::encode(parsed.public_key().to_bytes()), rfc.pk_sm);
    let public_key = PublicKey::from_bytes(&bytes(&rfc.pk_sm)).unwrap();
    assert_eq!(public_key, parsed.public_key());
    // `printf c803…ad4e | xxd -r -p | sha256sum`
    assert_eq!(fingerprint(&public_key), rfc.pk_sm_fingerprint);
}

#[test]
fn blind_gives_the_vectors_blinded_elements() {
    for vector in rfc().vectors {
        let mut rng = ReplayScalar::new(&vector.blind);
        let (state, blinded) = blind(&bytes(&vector.input), &mut rng).unwrap();
        rng.assert_drawn_once();
        assert_eq!(
            hex::encode(blinded),
            vector.blinded_element,
            "{}",
            vector.name
        );
        // The state is the blind, the blinded element and the input, in that order.
        let expected_state = [
            bytes(&vector.blind),
            bytes(&vector.blinded_element),
            bytes(&vector.input),
        ]
        .concat();
        assert_eq!(state.as_bytes(), &expected_state[..], "{}", vector.name);
        assert_eq!(state.input(), &bytes(&vector.input)[..]);
    }
}

#[test]
fn evaluate_gives_the_vectors_evaluations_and_proofs() {
    let rfc = rfc();
    let key = PrivateKey::from_bytes(&bytes(&rfc.sk_sm)).unwrap();
    for vector in rfc.vectors {
        let mut rng = ReplayScalar::new(&vector.proof_random_scalar);
        let evaluated = evaluate(&key, &bytes(&vector.blinded_element), &mut rng).unwrap();
        rng.assert_drawn_once();
        assert_eq!(
            hex::encode(evaluated.evaluation),
            vector.evaluation_element,
            "{}",
            vector.name
        );
        assert_eq!(
            hex::encode(evaluated.proof),
            vector.proof,
            "{}",
            vector.name
        );
    }
}

#[test]
fn finalize_checks_the_vectors_proofs_and_gives_their_outputs() {
    let rfc = rfc();
    let public_key = PublicKey::from_bytes(&bytes(&rfc.pk_sm)).unwrap();
    for vector in rfc.vectors {
        let state = ClientState::from_bytes(
            &[
                bytes(&vector.blind),
                bytes(&vector.blinded_element),
                bytes(&vector.input),
            ]
            .concat(),
        )
        .unwrap();
        let output = finalize(
            &state,
            &bytes(&vector.evaluation_element),
            &bytes(&vector.proof),
            &public_key,
        )
        .unwrap();
        assert_eq!(hex::encode(output), vector.output, "{}", vector.name);
    }
}

#[test]
fn the_server_computes_and_accepts_the_vectors_outputs() {
    let rfc = rfc();
    let key = PrivateKey::from_bytes(&bytes(&rfc.sk_sm)).unwrap();
    for vector in rfc.vectors {
        let input = bytes(&vector.input);
        let output = bytes(&vector.output);
        assert_eq!(prf_output(&key, &input).unwrap().to_vec(), output);
        assert!(verify_token(&key, &input, &output), "{}", vector.name);
    }
}

#[test]
fn the_vectors_proofs_fail_for_the_other_vectors_evaluation() {
    // Vector 1's proof is about vector 1's elements: with vector 2's evaluation it fails.
    let rfc = rfc();
    let public_key = PublicKey::from_bytes(&bytes(&rfc.pk_sm)).unwrap();
    let [first, second] = &rfc.vectors[..] else {
        panic!("two vectors")
    };
    let state = ClientState::from_bytes(
        &[
            bytes(&first.blind),
            bytes(&first.blinded_element),
            bytes(&first.input),
        ]
        .concat(),
    )
    .unwrap();
    assert_eq!(
        finalize(
            &state,
            &bytes(&second.evaluation_element),
            &bytes(&first.proof),
            &public_key
        ),
        Err(TokenError::ProofRejected)
    );
}

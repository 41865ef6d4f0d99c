//! The token's life with random keys, and everything that must be refused: another key's
//! proof, a wrong output, malformed bytes (errors, never panics).

use blind_tokens::{
    blind, evaluate, finalize, fingerprint, from_base64url, prf_output, to_base64url, verify_token,
    ClientState, PrivateKey, PublicKey, TokenError, INPUT_MAX_BYTES, OUTPUT_BYTES,
};
use proptest::prelude::*;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A key, an input of 32 random bytes, and the whole exchange up to the token.
fn token(key: &PrivateKey, rng: &mut ChaCha20Rng) -> ([u8; 32], [u8; OUTPUT_BYTES]) {
    let mut input = [0u8; 32];
    rng.fill_bytes(&mut input);
    let (state, blinded) = blind(&input, rng).unwrap();
    let evaluated = evaluate(key, &blinded, rng).unwrap();
    let output = finalize(
        &state,
        &evaluated.evaluation,
        &evaluated.proof,
        &key.public_key(),
    )
    .unwrap();
    (input, output)
}

#[test]
fn a_token_round_trips_and_is_the_prf_of_its_input() {
    let mut rng = rng(1);
    for _ in 0..8 {
        let key = PrivateKey::generate(&mut rng).unwrap();
        let (input, output) = token(&key, &mut rng);
        assert_eq!(prf_output(&key, &input).unwrap(), output);
        assert!(verify_token(&key, &input, &output));
    }
}

#[test]
fn keys_round_trip_through_their_bytes() {
    let mut rng = rng(2);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let again = PrivateKey::from_bytes(&key.to_bytes()).unwrap();
    assert_eq!(again.to_bytes(), key.to_bytes());
    assert_eq!(again.public_key(), key.public_key());
    let public_key = PublicKey::from_bytes(&key.public_key().to_bytes()).unwrap();
    assert_eq!(public_key, key.public_key());
    let text = fingerprint(&public_key);
    assert_eq!(text.len(), 64);
    assert!(text
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
}

#[test]
fn generate_is_derive_with_the_drawn_seed_and_no_info() {
    let mut seed = [0u8; 32];
    rng(3).fill_bytes(&mut seed);
    let generated = PrivateKey::generate(&mut rng(3)).unwrap();
    let derived = PrivateKey::derive(&seed, &[]).unwrap();
    assert_eq!(generated.to_bytes(), derived.to_bytes());
    // Another generator state, another key.
    let other = PrivateKey::generate(&mut rng(4)).unwrap();
    assert_ne!(other.to_bytes(), generated.to_bytes());
}

#[test]
fn the_same_blinded_element_gets_the_same_evaluation_and_a_fresh_valid_proof() {
    let mut rng = rng(5);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let (state, blinded) = blind(b"one input", &mut rng).unwrap();
    let first = evaluate(&key, &blinded, &mut rng).unwrap();
    let second = evaluate(&key, &blinded, &mut rng).unwrap();
    assert_eq!(first.evaluation, second.evaluation);
    assert_ne!(first.proof, second.proof);
    let public_key = key.public_key();
    assert_eq!(
        finalize(&state, &first.evaluation, &first.proof, &public_key),
        finalize(&state, &second.evaluation, &second.proof, &public_key)
    );
}

#[test]
fn two_blinds_of_one_input_look_unrelated_and_give_the_same_token() {
    let mut rng = rng(6);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let (first_state, first) = blind(b"same input", &mut rng).unwrap();
    let (second_state, second) = blind(b"same input", &mut rng).unwrap();
    assert_ne!(
        first, second,
        "the server sees a fresh blinded element each time"
    );
    let outputs: Vec<_> = [(first_state, first), (second_state, second)]
        .iter()
        .map(|(state, blinded)| {
            let evaluated = evaluate(&key, blinded, &mut rng).unwrap();
            finalize(
                state,
                &evaluated.evaluation,
                &evaluated.proof,
                &key.public_key(),
            )
            .unwrap()
        })
        .collect();
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn a_proof_by_another_key_is_refused() {
    let mut rng = rng(7);
    let pinned = PrivateKey::generate(&mut rng).unwrap();
    let other = PrivateKey::generate(&mut rng).unwrap();
    let (state, blinded) = blind(b"input", &mut rng).unwrap();
    let by_other = evaluate(&other, &blinded, &mut rng).unwrap();
    let by_pinned = evaluate(&pinned, &blinded, &mut rng).unwrap();
    let public_key = pinned.public_key();
    // Another key's evaluation with its own, valid proof: not for the pinned key.
    assert_eq!(
        finalize(&state, &by_other.evaluation, &by_other.proof, &public_key),
        Err(TokenError::ProofRejected)
    );
    // The pinned key's evaluation with another key's proof, and the reverse.
    assert_eq!(
        finalize(&state, &by_pinned.evaluation, &by_other.proof, &public_key),
        Err(TokenError::ProofRejected)
    );
    assert_eq!(
        finalize(&state, &by_other.evaluation, &by_pinned.proof, &public_key),
        Err(TokenError::ProofRejected)
    );
    // A proof for another blinded element.
    let (_, elsewhere) = blind(b"input", &mut rng).unwrap();
    let for_elsewhere = evaluate(&pinned, &elsewhere, &mut rng).unwrap();
    assert_eq!(
        finalize(
            &state,
            &by_pinned.evaluation,
            &for_elsewhere.proof,
            &public_key
        ),
        Err(TokenError::ProofRejected)
    );
    // Checked against the other key's public key, the other key's answer is fine.
    assert!(finalize(
        &state,
        &by_other.evaluation,
        &by_other.proof,
        &other.public_key()
    )
    .is_ok());
}

#[test]
fn a_wrong_output_is_refused() {
    let mut rng = rng(8);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let other = PrivateKey::generate(&mut rng).unwrap();
    let (input, output) = token(&key, &mut rng);
    assert!(verify_token(&key, &input, &output));
    for bit in [0, 7, 255, 511] {
        let mut flipped = output;
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert!(!verify_token(&key, &input, &flipped), "bit {bit}");
    }
    assert!(
        !verify_token(&other, &input, &output),
        "another key's token"
    );
    assert!(!verify_token(&key, &input[1..], &output), "another input");
    assert!(
        !verify_token(&key, &input, &output[..63]),
        "a truncated output"
    );
    assert!(!verify_token(
        &key,
        &input,
        &[output.as_slice(), &[0]].concat()
    ));
    assert!(!verify_token(&key, &input, &[]));
    assert!(!verify_token(&key, &[], &output), "an empty input");
    assert!(!verify_token(&key, &[0; INPUT_MAX_BYTES + 1], &output));
}

#[test]
fn input_lengths_are_1_to_256_bytes_on_both_sides() {
    let mut rng = rng(9);
    let key = PrivateKey::generate(&mut rng).unwrap();
    assert_eq!(blind(&[], &mut rng).unwrap_err(), TokenError::InputLength);
    assert_eq!(
        blind(&[7; INPUT_MAX_BYTES + 1], &mut rng).unwrap_err(),
        TokenError::InputLength
    );
    assert_eq!(prf_output(&key, &[]), Err(TokenError::InputLength));
    for input in [&[7u8][..], &[7; INPUT_MAX_BYTES]] {
        let (state, blinded) = blind(input, &mut rng).unwrap();
        let evaluated = evaluate(&key, &blinded, &mut rng).unwrap();
        let output = finalize(
            &state,
            &evaluated.evaluation,
            &evaluated.proof,
            &key.public_key(),
        )
        .unwrap();
        assert!(verify_token(&key, input, &output));
    }
}

// ℓ, the order of ristretto255, little-endian: the smallest non-canonical scalar.
const ELL: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

#[test]
fn malformed_keys_are_refused() {
    let mut rng = rng(10);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let good = key.to_bytes();
    for bad in [
        &[0u8; 32][..],
        &ELL,
        &[0xff; 32],
        &good[..31],
        &[&good[..], &[0]].concat(),
        &[],
    ] {
        assert_eq!(
            PrivateKey::from_bytes(bad).unwrap_err(),
            TokenError::MalformedPrivateKey,
            "{bad:02x?}"
        );
    }
    let good = key.public_key().to_bytes();
    // All zeros encode the identity; 0xff… is not a canonical field element; an odd first
    // byte is a negative field element, never a canonical encoding (RFC 9496, 4.3.1).
    let mut negative = good;
    negative[0] |= 1;
    for bad in [
        &[0u8; 32][..],
        &[0xff; 32],
        &negative,
        &good[..31],
        &[&good[..], &[0]].concat(),
    ] {
        assert_eq!(
            PublicKey::from_bytes(bad).unwrap_err(),
            TokenError::MalformedPublicKey,
            "{bad:02x?}"
        );
    }
}

#[test]
fn malformed_exchange_bytes_are_refused() {
    let mut rng = rng(11);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let (state, blinded) = blind(b"input", &mut rng).unwrap();
    let evaluated = evaluate(&key, &blinded, &mut rng).unwrap();
    let public_key = key.public_key();

    // The identity, a non-canonical encoding, a short and a long element: voprf alone would
    // read the first 32 bytes of a longer slice, so trailing bytes are refused here.
    let long = [&blinded[..], &[0]].concat();
    for bad in [&[0u8; 32][..], &[0xff; 32], &blinded[..31], &long, &[]] {
        assert_eq!(
            evaluate(&key, bad, &mut rng).unwrap_err(),
            TokenError::MalformedBlinded
        );
        assert_eq!(
            finalize(&state, bad, &evaluated.proof, &public_key).unwrap_err(),
            TokenError::MalformedEvaluation
        );
    }
    let mut zero_c = evaluated.proof;
    zero_c[..32].fill(0);
    let mut ell_s = evaluated.proof;
    ell_s[32..].copy_from_slice(&ELL);
    let long_proof = [&evaluated.proof[..], &[0]].concat();
    for bad in [
        &zero_c[..],
        &ell_s,
        &evaluated.proof[..63],
        &long_proof,
        &[],
    ] {
        assert_eq!(
            finalize(&state, &evaluated.evaluation, bad, &public_key).unwrap_err(),
            TokenError::MalformedProof
        );
    }

    let good = state.as_bytes().to_vec();
    let mut zero_blind = good.clone();
    zero_blind[..32].fill(0);
    let mut identity_element = good.clone();
    identity_element[32..64].fill(0);
    for bad in [
        &good[..64],
        &[&good[..], &[0; INPUT_MAX_BYTES]].concat()[..],
        &zero_blind,
        &identity_element,
        &[],
    ] {
        assert_eq!(
            ClientState::from_bytes(bad).unwrap_err(),
            TokenError::MalformedState
        );
    }
    assert_eq!(
        ClientState::from_bytes(&good).unwrap().as_bytes(),
        &good[..]
    );
}

#[test]
fn debug_shows_no_secret() {
    let mut rng = rng(12);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let secret = hex::encode(key.to_bytes());
    let shown = format!("{key:?}");
    assert!(!shown.contains(&secret), "{shown}");
    assert!(shown.contains(&hex::encode(key.public_key().to_bytes())));
    let (state, _) = blind(b"input", &mut rng).unwrap();
    assert_eq!(format!("{state:?}"), "ClientState(..)");
}

#[test]
fn token_bytes_cross_http_as_base64url() {
    let mut rng = rng(13);
    let key = PrivateKey::generate(&mut rng).unwrap();
    let (input, output) = token(&key, &mut rng);
    let (input_text, output_text) = (to_base64url(&input), to_base64url(&output));
    assert_eq!((input_text.len(), output_text.len()), (43, 86));
    let public_key_text = to_base64url(&key.public_key().to_bytes());
    assert_eq!(
        PublicKey::from_bytes(&from_base64url(&public_key_text).unwrap()).unwrap(),
        key.public_key()
    );
    assert!(verify_token(
        &key,
        &from_base64url(&input_text).unwrap(),
        &from_base64url(&output_text).unwrap()
    ));
    assert_eq!(from_base64url("not base64!"), Err(TokenError::Base64));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Whatever bytes arrive, the server answers with a value or an error, never a panic.
    #[test]
    fn the_server_never_panics_on_arbitrary_bytes(
        blinded in proptest::collection::vec(any::<u8>(), 0..40),
        input in proptest::collection::vec(any::<u8>(), 0..300),
        output in proptest::collection::vec(any::<u8>(), 0..70),
        key_bytes in proptest::collection::vec(any::<u8>(), 0..40),
        seed in any::<u64>(),
    ) {
        let mut rng = rng(seed);
        let key = PrivateKey::generate(&mut rng).unwrap();
        if let Ok(evaluated) = evaluate(&key, &blinded, &mut rng) {
            prop_assert_eq!(blinded.len(), 32);
            prop_assert_ne!(evaluated.evaluation, [0; 32]);
        }
        // A guessed output passes with probability 2^-512.
        prop_assert!(!verify_token(&key, &input, &output));
        let _ = prf_output(&key, &input);
        let _ = PrivateKey::from_bytes(&key_bytes);
        let _ = PublicKey::from_bytes(&key_bytes);
    }

    /// Whatever the server answers, the client finalizes or refuses, never panics; and no
    /// answer made without the key passes the proof.
    #[test]
    fn the_client_never_panics_and_accepts_no_forged_answer(
        evaluation in proptest::collection::vec(any::<u8>(), 0..40),
        proof in proptest::collection::vec(any::<u8>(), 0..70),
        state_tail in proptest::collection::vec(any::<u8>(), 0..80),
        seed in any::<u64>(),
    ) {
        let mut rng = rng(seed);
        let key = PrivateKey::generate(&mut rng).unwrap();
        let (state, _) = blind(b"input", &mut rng).unwrap();
        prop_assert!(finalize(&state, &evaluation, &proof, &key.public_key()).is_err());
        let _ = ClientState::from_bytes(&[&state.as_bytes()[..40], &state_tail[..]].concat());
    }

    #[test]
    fn every_input_length_round_trips(length in 1..=INPUT_MAX_BYTES, seed in any::<u64>()) {
        let mut rng = rng(seed);
        let key = PrivateKey::generate(&mut rng).unwrap();
        let mut input = vec![0u8; length];
        rng.fill_bytes(&mut input);
        let (state, blinded) = blind(&input, &mut rng).unwrap();
        let evaluated = evaluate(&key, &blinded, &mut rng).unwrap();
        let output = finalize(&state, &evaluated.evaluation, &evaluated.proof, &key.public_key())
            .unwrap();
        prop_assert!(verify_token(&key, &input, &output));
        let restored = ClientState::from_bytes(state.as_bytes()).unwrap();
        prop_assert_eq!(restored.input(), &input[..]);
    }
}

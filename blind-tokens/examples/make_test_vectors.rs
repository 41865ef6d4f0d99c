//! Writes the committed native test vectors: `cargo run -p blind-tokens --example
//! make_test_vectors > blind-tokens/tests/vectors.json`.
//!
//! Keys, inputs and seeds come from a fixed-seed ChaCha20 stream, so the file is
//! reproducible; blinded elements and states from the buffer interface (`abi`, the code the
//! WebAssembly module runs), evaluations and proofs from the server's `evaluate`, outputs
//! from `finalize`. Once committed, the vectors pin the native code, the WebAssembly module
//! and the browser wrapper to identical bytes (`tests/vectors.rs`, `tests/wasm_vectors.test.mjs`).

use blind_tokens::abi::{
    blind_buffer, finalize_buffer, BLINDED_AT, BUFFER_BYTES, EVALUATION_AT, INPUT_AT, OUTPUT_AT,
    PROOF_AT, PUBLIC_KEY_AT, SEED_AT, STATE_AT,
};
use blind_tokens::{evaluate, fingerprint, PrivateKey, BLINDED_BYTES, OUTPUT_BYTES};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::json;

fn main() {
    let mut stream = ChaCha20Rng::seed_from_u64(20_261_123);
    // One key for the first half of the cases, then a key per case; the shortest, the
    // RFC's, the usual (32) and the longest input length.
    let shared = PrivateKey::generate(&mut stream).expect("a key");
    let lengths = [32, 32, 1, 17, 32, 255, 256, 32, 2, 64, 32, 100];
    let mut cases = Vec::new();
    for (index, length) in lengths.into_iter().enumerate() {
        let own;
        let key = if index < lengths.len() / 2 {
            &shared
        } else {
            own = PrivateKey::generate(&mut stream).expect("a key");
            &own
        };
        let mut input = vec![0u8; length];
        stream.fill_bytes(&mut input);
        let mut seed = [0u8; 32];
        stream.fill_bytes(&mut seed);

        let mut buffer = [0u8; BUFFER_BYTES];
        buffer[SEED_AT..SEED_AT + 32].copy_from_slice(&seed);
        buffer[INPUT_AT..INPUT_AT + length].copy_from_slice(&input);
        let state_len = blind_buffer(&mut buffer, length as i32).expect("blinds");
        let blinded = buffer[BLINDED_AT..BLINDED_AT + BLINDED_BYTES].to_vec();
        let state = buffer[STATE_AT..STATE_AT + state_len].to_vec();

        let evaluated = evaluate(key, &blinded, &mut stream).expect("evaluates");
        let public_key = key.public_key();
        buffer[EVALUATION_AT..EVALUATION_AT + 32].copy_from_slice(&evaluated.evaluation);
        buffer[PROOF_AT..PROOF_AT + 64].copy_from_slice(&evaluated.proof);
        buffer[PUBLIC_KEY_AT..PUBLIC_KEY_AT + 32].copy_from_slice(&public_key.to_bytes());
        finalize_buffer(&mut buffer, state_len as i32).expect("finalizes");
        let output = &buffer[OUTPUT_AT..OUTPUT_AT + OUTPUT_BYTES];

        cases.push(json!({
            "private_key": hex::encode(key.to_bytes()),
            "public_key": hex::encode(public_key.to_bytes()),
            "fingerprint": fingerprint(&public_key),
            "input": hex::encode(&input),
            "seed": hex::encode(seed),
            "blinded": hex::encode(&blinded),
            "state": hex::encode(&state),
            "evaluation": hex::encode(evaluated.evaluation),
            "proof": hex::encode(evaluated.proof),
            "output": hex::encode(output),
        }));
    }
    let document = json!({
        "about": "Native blind-token cases (cargo run -p blind-tokens --example make_test_vectors): the WebAssembly module must blind and finalize to the same bytes.",
        "cases": cases,
    });
    println!("{}", serde_json::to_string_pretty(&document).unwrap());
}

//! The committed native cases hold (Node.js checks the same file against the committed
//! WebAssembly module and the browser wrapper): the buffer interface blinds each input
//! with its seed to the recorded bytes and finalizes the recorded answer to the recorded
//! output, which the server recomputes and accepts.

use blind_tokens::abi::{
    blind_buffer, finalize_buffer, BLINDED_AT, BUFFER_BYTES, EVALUATION_AT, INPUT_AT, OUTPUT_AT,
    PROOF_AT, PUBLIC_KEY_AT, SEED_AT, STATE_AT,
};
use blind_tokens::{fingerprint, prf_output, verify_token, PrivateKey, INPUT_MAX_BYTES};
use serde::Deserialize;

#[derive(Deserialize)]
struct Vectors {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    private_key: String,
    public_key: String,
    fingerprint: String,
    input: String,
    seed: String,
    blinded: String,
    state: String,
    evaluation: String,
    proof: String,
    output: String,
}

fn bytes(hex_text: &str) -> Vec<u8> {
    hex::decode(hex_text).unwrap()
}

#[test]
fn the_committed_cases_reproduce_natively() {
    let vectors: Vectors =
        serde_json::from_str(include_str!("vectors.json")).expect("vectors.json parses");
    assert!(vectors.cases.len() >= 12);
    let mut lengths = Vec::new();
    for (index, case) in vectors.cases.iter().enumerate() {
        let key = PrivateKey::from_bytes(&bytes(&case.private_key)).unwrap();
        let public_key = key.public_key();
        assert_eq!(
            hex::encode(public_key.to_bytes()),
            case.public_key,
            "case {index}"
        );
        assert_eq!(fingerprint(&public_key), case.fingerprint, "case {index}");

        let input = bytes(&case.input);
        let mut buffer = [0u8; BUFFER_BYTES];
        buffer[SEED_AT..SEED_AT + 32].copy_from_slice(&bytes(&case.seed));
        buffer[INPUT_AT..INPUT_AT + input.len()].copy_from_slice(&input);
        let state_len = blind_buffer(&mut buffer, input.len() as i32).unwrap();
        assert_eq!(
            hex::encode(&buffer[BLINDED_AT..BLINDED_AT + 32]),
            case.blinded
        );
        assert_eq!(
            hex::encode(&buffer[STATE_AT..STATE_AT + state_len]),
            case.state
        );

        buffer[EVALUATION_AT..EVALUATION_AT + 32].copy_from_slice(&bytes(&case.evaluation));
        buffer[PROOF_AT..PROOF_AT + 64].copy_from_slice(&bytes(&case.proof));
        buffer[PUBLIC_KEY_AT..PUBLIC_KEY_AT + 32].copy_from_slice(&public_key.to_bytes());
        finalize_buffer(&mut buffer, state_len as i32).unwrap();
        let output = &buffer[OUTPUT_AT..OUTPUT_AT + 64];
        assert_eq!(hex::encode(output), case.output, "case {index}");
        assert_eq!(prf_output(&key, &input).unwrap(), output, "case {index}");
        assert!(verify_token(&key, &input, output), "case {index}");
        lengths.push(input.len());
    }
    // The shortest, the RFC's, the usual and the longest inputs.
    for length in [1, 17, 32, INPUT_MAX_BYTES] {
        assert!(lengths.contains(&length), "no input of {length} bytes");
    }
}

//! Writes the committed test vectors: `cargo run -p randomized-response --example
//! make_test_vectors > randomized-response/tests/vectors.json`.
//!
//! Inputs come from a fixed-seed ChaCha20 stream so the file is reproducible; outputs come
//! from `randomize_submission`. Once committed, the vectors pin the native code, the
//! WebAssembly module and the browser code to identical reports.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::{randomize_submission, PrivacyLevel};
use serde_json::json;

fn main() {
    let mut inputs = ChaCha20Rng::seed_from_u64(20_261_122);
    let edge_levels = [
        PrivacyLevel::MIN_EPSILON,
        PrivacyLevel::MAX_EPSILON,
        PrivacyLevel::warner().epsilon(),
        0.5,
        1.0,
        2.0,
        5.0,
        10.0,
    ];
    let mut cases = Vec::new();
    let question_counts = (1..=20).chain([1, 3, 7, 20]);
    for (case, question_count) in question_counts.enumerate() {
        let mut device_bytes = [0u8; 32];
        let mut server_nonce = [0u8; 32];
        inputs.fill_bytes(&mut device_bytes);
        inputs.fill_bytes(&mut server_nonce);
        let questions: Vec<(bool, PrivacyLevel)> = (0..question_count)
            .map(|question| {
                let truth = inputs.next_u32() % 2 == 1;
                // Cycle through the edges of the range, then arbitrary accepted values.
                let epsilon = if (case + question) % 3 != 2 {
                    edge_levels[(case + question) % edge_levels.len()]
                } else {
                    let unit = (inputs.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    PrivacyLevel::MIN_EPSILON
                        + unit * (PrivacyLevel::MAX_EPSILON - PrivacyLevel::MIN_EPSILON)
                };
                (
                    truth,
                    PrivacyLevel::new(epsilon).expect("generated ε is in range"),
                )
            })
            .collect();
        let reports: Vec<bool> =
            randomize_submission(&device_bytes, &server_nonce, questions.iter().copied()).collect();
        cases.push(json!({
            "device_bytes": hex::encode(device_bytes),
            "server_nonce": hex::encode(server_nonce),
            "questions": questions
                .iter()
                .map(|(truth, level)| json!({"truth": truth, "epsilon": level.epsilon()}))
                .collect::<Vec<_>>(),
            "reports": reports,
        }));
    }
    let document = json!({
        "description": "Randomized-response test vectors: seed = device_bytes XOR server_nonce (ChaCha20, rand_chacha); question k uses the k-th 64-bit draw and reports the truth iff the draw is below PrivacyLevel::threshold(epsilon).",
        "cases": cases,
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&document).expect("JSON serializes")
    );
}

//! The committed test vectors hold natively (Node.js checks the same file against the
//! committed WebAssembly module, and the browser code uses that module).

use randomized_response::{randomize_submission, PrivacyLevel};
use serde::Deserialize;

#[derive(Deserialize)]
struct Vectors {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    device_bytes: String,
    server_nonce: String,
    questions: Vec<Question>,
    reports: Vec<bool>,
}

#[derive(Deserialize)]
struct Question {
    truth: bool,
    epsilon: f64,
}

fn seed(hex_text: &str) -> [u8; 32] {
    hex::decode(hex_text).unwrap().try_into().unwrap()
}

#[test]
fn the_committed_test_vectors_reproduce_natively() {
    let vectors: Vectors =
        serde_json::from_str(include_str!("vectors.json")).expect("vectors.json parses");
    assert!(vectors.cases.len() >= 20);
    let mut question_counts = Vec::new();
    let mut epsilons = Vec::new();
    for (index, case) in vectors.cases.iter().enumerate() {
        let answers = case
            .questions
            .iter()
            .map(|q| (q.truth, PrivacyLevel::new(q.epsilon).unwrap()));
        let reports: Vec<bool> = randomize_submission(
            &seed(&case.device_bytes),
            &seed(&case.server_nonce),
            answers,
        )
        .collect();
        assert_eq!(reports, case.reports, "case {index}");
        question_counts.push(case.questions.len());
        epsilons.extend(case.questions.iter().map(|q| q.epsilon));
    }
    // The file covers surveys of 1 to 20 questions and ε at both ends of the range.
    assert_eq!(question_counts.iter().min(), Some(&1));
    assert_eq!(question_counts.iter().max(), Some(&20));
    assert!(epsilons.contains(&PrivacyLevel::MIN_EPSILON));
    assert!(epsilons.contains(&PrivacyLevel::MAX_EPSILON));
}

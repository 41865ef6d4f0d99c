//! Writes the committed test vectors: `cargo run -p randomized-response --example
//! make_test_vectors > randomized-response/tests/vectors.json`.
//!
//! Inputs come from fixed-seed ChaCha20 streams so the file is reproducible; reports come
//! from `randomize_answers` (and the WebAssembly buffer, `randomize_buffer`, must agree).
//! Once committed, the vectors pin the native code, the WebAssembly module and the browser
//! code (static/form-core.js) to identical records and reports.
//!
//! Each question is written as the public survey definition gives it to the device (`type`,
//! `design` and the design's parameters), with its `truth` (an answer's index, or the
//! number) and its `record`: the 40 bytes of the module's buffer, in hex.
//!
//! The first 24 cases are the mirrored yes/no cases of the first version of this file, drawn
//! from the same stream: their reports have not changed.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use randomized_response::abi::{
    KIND_FORCED_RESPONSE, KIND_K_ARY, KIND_MIRRORED, KIND_NUMBER, KIND_UNRELATED_QUESTION,
    OPTIONS_AT, PARAMETERS_AT, TRUTH_AT, VALUE_AT,
};
use randomized_response::{
    randomize_answers, randomize_buffer, Answer, Design, Mechanism, NumberDesign, PrivacyLevel,
    MAX_QUESTIONS, QUESTION_STRIDE, REPORTS_OFFSET,
};
use serde_json::{json, Value};

/// One question of a case with its true answer: an answered question.
#[derive(Clone, Copy)]
enum Answered {
    Mirrored {
        epsilon: f64,
        truth: usize,
    },
    ForcedResponse {
        answer_truthfully: f64,
        forced_yes: f64,
        forced_no: f64,
        truth: usize,
    },
    UnrelatedQuestion {
        answer_truthfully: f64,
        innocuous_yes: f64,
        truth: usize,
    },
    KAry {
        ordinal: bool,
        options: usize,
        epsilon: f64,
        truth: usize,
    },
    Number {
        min: f64,
        max: f64,
        epsilon: f64,
        value: f64,
    },
}

use Answered::{ForcedResponse, KAry, Mirrored, Number, UnrelatedQuestion};

fn level(epsilon: f64) -> PrivacyLevel {
    PrivacyLevel::new(epsilon).expect("generated ε is in range")
}

impl Answered {
    fn mechanism(self) -> (Mechanism, Answer) {
        match self {
            Mirrored { epsilon, truth } => (
                Mechanism::Square(Design::mirrored(level(epsilon))),
                Answer::Index(truth),
            ),
            ForcedResponse {
                answer_truthfully,
                forced_yes,
                forced_no,
                truth,
            } => (
                Mechanism::Square(
                    Design::forced_response(answer_truthfully, forced_yes, forced_no)
                        .expect("generated forced response is accepted"),
                ),
                Answer::Index(truth),
            ),
            UnrelatedQuestion {
                answer_truthfully,
                innocuous_yes,
                truth,
            } => (
                Mechanism::Square(
                    Design::unrelated_question(answer_truthfully, innocuous_yes)
                        .expect("generated unrelated question is accepted"),
                ),
                Answer::Index(truth),
            ),
            KAry {
                options,
                epsilon,
                truth,
                ..
            } => (
                Mechanism::Square(Design::k_ary(options, level(epsilon)).unwrap()),
                Answer::Index(truth),
            ),
            Number {
                min,
                max,
                epsilon,
                value,
            } => (
                Mechanism::Number(NumberDesign::new(min, max, level(epsilon)).unwrap()),
                Answer::Value(value),
            ),
        }
    }

    /// The question's 40-byte record in the module's buffer (module `abi`).
    fn record(self) -> [u8; QUESTION_STRIDE] {
        let mut record = [0u8; QUESTION_STRIDE];
        let (kind, parameters): (u8, &[f64]) = match self {
            Mirrored { epsilon, truth } => {
                record[TRUTH_AT] = truth as u8;
                (KIND_MIRRORED, &[epsilon])
            }
            ForcedResponse {
                answer_truthfully,
                forced_yes,
                forced_no,
                truth,
            } => {
                record[TRUTH_AT] = truth as u8;
                (
                    KIND_FORCED_RESPONSE,
                    &[answer_truthfully, forced_yes, forced_no],
                )
            }
            UnrelatedQuestion {
                answer_truthfully,
                innocuous_yes,
                truth,
            } => {
                record[TRUTH_AT] = truth as u8;
                (KIND_UNRELATED_QUESTION, &[answer_truthfully, innocuous_yes])
            }
            KAry {
                options,
                epsilon,
                truth,
                ..
            } => {
                record[OPTIONS_AT] = options as u8;
                record[TRUTH_AT] = truth as u8;
                (KIND_K_ARY, &[epsilon])
            }
            Number {
                min,
                max,
                epsilon,
                value,
            } => {
                record[VALUE_AT..VALUE_AT + 8].copy_from_slice(&value.to_le_bytes());
                (KIND_NUMBER, &[epsilon, min, max])
            }
        };
        record[0] = kind;
        for (slot, parameter) in parameters.iter().enumerate() {
            let at = PARAMETERS_AT + 8 * slot;
            record[at..at + 8].copy_from_slice(&parameter.to_le_bytes());
        }
        record
    }

    /// As the public definition gives the question, with its truth and its record.
    fn json(self) -> Value {
        let mut question = match self {
            Mirrored { epsilon, truth } => json!({
                "type": "yes_no", "design": "mirrored", "epsilon": epsilon, "truth": truth,
            }),
            ForcedResponse {
                answer_truthfully,
                forced_yes,
                forced_no,
                truth,
            } => json!({
                "type": "yes_no", "design": "forced_response",
                "answer_truthfully": answer_truthfully, "forced_yes": forced_yes,
                "forced_no": forced_no, "truth": truth,
            }),
            UnrelatedQuestion {
                answer_truthfully,
                innocuous_yes,
                truth,
            } => json!({
                "type": "yes_no", "design": "unrelated_question",
                "answer_truthfully": answer_truthfully, "innocuous_yes": innocuous_yes,
                "truth": truth,
            }),
            KAry {
                ordinal,
                options,
                epsilon,
                truth,
            } => json!({
                "type": if ordinal { "ordinal" } else { "choice" }, "design": "k_ary",
                "options": (1..=options).map(|option| format!("Option {option}")).collect::<Vec<_>>(),
                "epsilon": epsilon, "truth": truth,
            }),
            Number {
                min,
                max,
                epsilon,
                value,
            } => json!({
                "type": "number", "design": "two_ends", "min": min, "max": max,
                "epsilon": epsilon, "truth": value,
            }),
        };
        question["record"] = json!(hex::encode(self.record()));
        question
    }
}

/// A uniform f64 in [0, 1) from 53 random bits.
fn unit(inputs: &mut ChaCha20Rng) -> f64 {
    (inputs.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn seed_pair(inputs: &mut ChaCha20Rng) -> ([u8; 32], [u8; 32]) {
    let mut device_bytes = [0u8; 32];
    let mut server_nonce = [0u8; 32];
    inputs.fill_bytes(&mut device_bytes);
    inputs.fill_bytes(&mut server_nonce);
    (device_bytes, server_nonce)
}

fn case(device_bytes: [u8; 32], server_nonce: [u8; 32], questions: &[Answered]) -> Value {
    let answers: Vec<(Mechanism, Answer)> = questions.iter().map(|q| q.mechanism()).collect();
    let mut reports = vec![0; questions.len()];
    randomize_answers(&device_bytes, &server_nonce, &answers, &mut reports)
        .expect("generated answers are accepted");

    // The WebAssembly buffer gives the same reports from the same records.
    let mut buffer = vec![0u8; REPORTS_OFFSET + QUESTION_STRIDE * questions.len()];
    buffer[..32].copy_from_slice(&device_bytes);
    buffer[32..64].copy_from_slice(&server_nonce);
    for (index, question) in questions.iter().enumerate() {
        let at = REPORTS_OFFSET + QUESTION_STRIDE * index;
        buffer[at..at + QUESTION_STRIDE].copy_from_slice(&question.record());
    }
    let count = i32::try_from(questions.len()).unwrap();
    assert_eq!(randomize_buffer(&mut buffer, count), Ok(questions.len()));
    for (index, report) in reports.iter().enumerate() {
        assert_eq!(
            usize::from(buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + 3]),
            *report
        );
    }

    json!({
        "device_bytes": hex::encode(device_bytes),
        "server_nonce": hex::encode(server_nonce),
        "questions": questions.iter().map(|q| q.json()).collect::<Vec<_>>(),
        "reports": reports,
    })
}

/// The 24 mirrored cases of the first version, from its stream and in its order.
fn mirrored_cases(cases: &mut Vec<Value>) {
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
    let question_counts = (1..=20).chain([1, 3, 7, 20]);
    for (case_index, question_count) in question_counts.enumerate() {
        let (device_bytes, server_nonce) = seed_pair(&mut inputs);
        let questions: Vec<Answered> = (0..question_count)
            .map(|question| {
                let truth = usize::from(inputs.next_u32() % 2 == 1);
                // Cycle through the edges of the range, then arbitrary accepted values.
                let epsilon = if (case_index + question) % 3 != 2 {
                    edge_levels[(case_index + question) % edge_levels.len()]
                } else {
                    PrivacyLevel::MIN_EPSILON
                        + unit(&mut inputs)
                            * (PrivacyLevel::MAX_EPSILON - PrivacyLevel::MIN_EPSILON)
                };
                Mirrored { epsilon, truth }
            })
            .collect();
        cases.push(case(device_bytes, server_nonce, &questions));
    }
}

/// Every design at its accepted extremes, each with every truth, one case per design.
fn design_cases(inputs: &mut ChaCha20Rng, cases: &mut Vec<Value>) {
    let (min_epsilon, max_epsilon) = (PrivacyLevel::MIN_EPSILON, PrivacyLevel::MAX_EPSILON);
    let yes_no = |make: &dyn Fn(usize) -> Answered| [make(0), make(1)];
    let mut groups: Vec<Vec<Answered>> = Vec::new();
    // Forced response: the example of the docs, asymmetric, and ε near 0.01 and near 20.
    for (p, p1, p0) in [
        (0.67, 0.165, 0.165),
        (0.8, 0.15, 0.05),
        (0.9, 0.0999, 0.0001),
        (0.006, 0.497, 0.497),
        (1.0 - 4.2e-9, 2.1e-9, 2.1e-9),
    ] {
        groups.push(
            yes_no(&|truth| ForcedResponse {
                answer_truthfully: p,
                forced_yes: p1,
                forced_no: p0,
                truth,
            })
            .to_vec(),
        );
    }
    // Unrelated question: the docs' example, small and large p, q near 0 and near 1.
    for (p, q) in [
        (0.7, 0.5),
        (0.02, 0.5),
        (0.999, 0.5),
        (0.5, 0.001),
        (0.5, 0.999),
    ] {
        groups.push(
            yes_no(&|truth| UnrelatedQuestion {
                answer_truthfully: p,
                innocuous_yes: q,
                truth,
            })
            .to_vec(),
        );
    }
    // Mirrored at both ends of ε.
    for epsilon in [min_epsilon, max_epsilon] {
        groups.push(yes_no(&|truth| Mirrored { epsilon, truth }).to_vec());
    }
    // Choice with 2, 3 and 20 options and ordinal with 5, at ε = 1.5 and both ends: every
    // option as the truth.
    for (ordinal, options) in [(false, 2), (false, 3), (false, 20), (true, 5), (true, 20)] {
        for epsilon in [1.5, min_epsilon, max_epsilon] {
            groups.push(
                (0..options)
                    .map(|truth| KAry {
                        ordinal,
                        options,
                        epsilon,
                        truth,
                    })
                    .collect(),
            );
        }
    }
    // Numbers: both bounds, interior values, non-integer and negative bounds, wide and
    // narrow ranges, at ε = 1 and both ends.
    for (min, max) in [
        (0.0, 30.0),
        (-2.5, 7.25),
        (0.1, 0.2),
        (-1e6, 1e6),
        (1.5, 1.5000000000000002),
    ] {
        for epsilon in [1.0, min_epsilon, max_epsilon] {
            let interior = min + (max - min) * unit(inputs);
            let values = [
                min,
                max,
                interior,
                min + (max - min) / 3.0,
                0.5 * (min + max),
            ];
            groups.push(
                values
                    .iter()
                    .map(|&value| Number {
                        min,
                        max,
                        epsilon,
                        value: value.clamp(min, max),
                    })
                    .collect(),
            );
        }
    }
    for questions in groups {
        let (device_bytes, server_nonce) = seed_pair(inputs);
        cases.push(case(device_bytes, server_nonce, &questions));
    }
}

/// An arbitrary accepted question of any type and design.
fn any_question(inputs: &mut ChaCha20Rng) -> Answered {
    let epsilon = |inputs: &mut ChaCha20Rng| match inputs.next_u32() % 4 {
        0 => PrivacyLevel::MIN_EPSILON,
        1 => PrivacyLevel::MAX_EPSILON,
        _ => 0.05 + 9.95 * unit(inputs),
    };
    match inputs.next_u32() % 6 {
        0 => Mirrored {
            epsilon: epsilon(inputs),
            truth: (inputs.next_u32() % 2) as usize,
        },
        1 => {
            // p in [0.3, 0.9], the rest split between the forced answers.
            let p = 0.3 + 0.6 * unit(inputs);
            let p1 = (1.0 - p) * (0.1 + 0.8 * unit(inputs));
            ForcedResponse {
                answer_truthfully: p,
                forced_yes: p1,
                forced_no: 1.0 - p - p1,
                truth: (inputs.next_u32() % 2) as usize,
            }
        }
        2 => UnrelatedQuestion {
            answer_truthfully: 0.3 + 0.6 * unit(inputs),
            innocuous_yes: 0.05 + 0.9 * unit(inputs),
            truth: (inputs.next_u32() % 2) as usize,
        },
        3 | 4 => {
            let options = 2 + (inputs.next_u32() % 19) as usize;
            KAry {
                ordinal: inputs.next_u32() % 2 == 1,
                options,
                epsilon: epsilon(inputs),
                truth: inputs.next_u32() as usize % options,
            }
        }
        _ => {
            let min = (-100.0 + 200.0 * unit(inputs)).round() / 4.0;
            let max = min + 0.25 + 100.0 * unit(inputs);
            let value = match inputs.next_u32() % 4 {
                0 => min,
                1 => max,
                _ => min + (max - min) * unit(inputs),
            };
            Number {
                min,
                max,
                epsilon: epsilon(inputs),
                value,
            }
        }
    }
}

/// Mixed surveys of every type: 2 to 12 questions, and one of the most questions a call
/// takes.
fn mixed_cases(inputs: &mut ChaCha20Rng, cases: &mut Vec<Value>) {
    let counts = (2..=12).chain([MAX_QUESTIONS]);
    for count in counts {
        let (device_bytes, server_nonce) = seed_pair(inputs);
        let questions: Vec<Answered> = (0..count).map(|_| any_question(inputs)).collect();
        cases.push(case(device_bytes, server_nonce, &questions));
    }
}

fn main() {
    let mut cases = Vec::new();
    mirrored_cases(&mut cases);
    let mut inputs = ChaCha20Rng::seed_from_u64(20_260_117);
    design_cases(&mut inputs, &mut cases);
    mixed_cases(&mut inputs, &mut cases);
    let description = "Randomized-response test vectors. seed = device_bytes XOR server_nonce (ChaCha20, rand_chacha); the questions take 64-bit draws in order, one per yes/no, choice or ordinal question and two per number (rounding first). Each question is given as the public definition gives it, with its truth and its 40-byte WebAssembly record in hex; reports are integers (yes/no: 0 = No, 1 = Yes; choice and ordinal: the option's index; number: 0 = min end, 1 = max end).";
    // JSON with one line per question, so that a diff shows which question changed.
    let compact = |value: &Value| serde_json::to_string(value).expect("JSON serializes");
    println!("{{");
    println!("  \"description\": {},", compact(&json!(description)));
    println!("  \"cases\": [");
    for (index, case) in cases.iter().enumerate() {
        println!("    {{");
        for field in ["device_bytes", "server_nonce", "reports"] {
            println!("      \"{field}\": {},", compact(&case[field]));
        }
        println!("      \"questions\": [");
        let questions = case["questions"].as_array().expect("questions");
        for (at, question) in questions.iter().enumerate() {
            let comma = if at + 1 < questions.len() { "," } else { "" };
            println!("        {}{comma}", compact(question));
        }
        println!("      ]");
        println!("    }}{}", if index + 1 < cases.len() { "," } else { "" });
    }
    println!("  ]");
    println!("}}");
}

//! The WebAssembly buffer, natively: records of every design give the reports of
//! `randomize_answers`, and every invalid record is refused with its code and leaves the
//! buffer as it was.

use randomized_response::abi::{
    KIND_AT, KIND_FORCED_RESPONSE, KIND_K_ARY, KIND_MIRRORED, KIND_NUMBER, KIND_UNRELATED_QUESTION,
    OPTIONS_AT, PARAMETERS_AT, REPORT_AT, TRUTH_AT, VALUE_AT,
};
use randomized_response::{
    randomize_answers, randomize_buffer, randomize_submission, AbiError, Answer, Design, Mechanism,
    NumberDesign, PrivacyLevel, BUFFER_BYTES, MAX_QUESTIONS, QUESTION_STRIDE, REPORTS_OFFSET,
};

const DEVICE: [u8; 32] = [0x5c; 32];
const NONCE: [u8; 32] = [0xa3; 32];

/// A question as its record says it: the kind byte, the options byte, the truth byte and the
/// four f64 slots.
#[derive(Clone, Copy, Debug)]
struct Record {
    kind: u8,
    options: u8,
    truth: u8,
    parameters: [f64; 3],
    value: f64,
}

fn mirrored(epsilon: f64, truth: u8) -> Record {
    Record {
        kind: KIND_MIRRORED,
        options: 0,
        truth,
        parameters: [epsilon, 0.0, 0.0],
        value: 0.0,
    }
}

fn forced_response(p: f64, p1: f64, p0: f64, truth: u8) -> Record {
    Record {
        kind: KIND_FORCED_RESPONSE,
        parameters: [p, p1, p0],
        ..mirrored(0.0, truth)
    }
}

fn unrelated_question(p: f64, q: f64, truth: u8) -> Record {
    Record {
        kind: KIND_UNRELATED_QUESTION,
        parameters: [p, q, 0.0],
        ..mirrored(0.0, truth)
    }
}

fn k_ary(options: u8, epsilon: f64, truth: u8) -> Record {
    Record {
        kind: KIND_K_ARY,
        options,
        ..mirrored(epsilon, truth)
    }
}

fn number(min: f64, max: f64, epsilon: f64, value: f64) -> Record {
    Record {
        kind: KIND_NUMBER,
        options: 0,
        truth: 0,
        parameters: [epsilon, min, max],
        value,
    }
}

/// The record's mechanism and answer, built with the crate's constructors.
fn mechanism(record: &Record) -> (Mechanism, Answer) {
    let [first, second, third] = record.parameters;
    let level = || PrivacyLevel::new(first).unwrap();
    let truth = Answer::Index(usize::from(record.truth));
    match record.kind {
        KIND_MIRRORED => (Mechanism::Square(Design::mirrored(level())), truth),
        KIND_FORCED_RESPONSE => (
            Mechanism::Square(Design::forced_response(first, second, third).unwrap()),
            truth,
        ),
        KIND_UNRELATED_QUESTION => (
            Mechanism::Square(Design::unrelated_question(first, second).unwrap()),
            truth,
        ),
        KIND_K_ARY => (
            Mechanism::Square(Design::k_ary(usize::from(record.options), level()).unwrap()),
            truth,
        ),
        _ => (
            Mechanism::Number(NumberDesign::new(second, third, level()).unwrap()),
            Answer::Value(record.value),
        ),
    }
}

/// The whole buffer with the seed and `records` written in, the rest zero.
fn buffer_with(records: &[Record]) -> Vec<u8> {
    let mut buffer = vec![0u8; BUFFER_BYTES];
    buffer[..32].copy_from_slice(&DEVICE);
    buffer[32..64].copy_from_slice(&NONCE);
    for (index, record) in records.iter().enumerate() {
        let at = REPORTS_OFFSET + QUESTION_STRIDE * index;
        let bytes = &mut buffer[at..at + QUESTION_STRIDE];
        bytes[KIND_AT] = record.kind;
        bytes[OPTIONS_AT] = record.options;
        bytes[TRUTH_AT] = record.truth;
        for (slot, parameter) in record.parameters.iter().enumerate() {
            let at = PARAMETERS_AT + 8 * slot;
            bytes[at..at + 8].copy_from_slice(&parameter.to_le_bytes());
        }
        bytes[VALUE_AT..VALUE_AT + 8].copy_from_slice(&record.value.to_le_bytes());
    }
    buffer
}

fn reports_in(buffer: &[u8], count: usize) -> Vec<usize> {
    (0..count)
        .map(|index| usize::from(buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + REPORT_AT]))
        .collect()
}

/// Randomizes `records` through the buffer: the reports, or the error with the buffer
/// checked unchanged.
fn through_buffer(records: &[Record]) -> Result<Vec<usize>, AbiError> {
    let mut buffer = buffer_with(records);
    let before = buffer.clone();
    let count = i32::try_from(records.len()).unwrap();
    match randomize_buffer(&mut buffer, count) {
        Ok(written) => {
            assert_eq!(written, records.len());
            Ok(reports_in(&buffer, records.len()))
        }
        Err(error) => {
            assert_eq!(buffer, before, "{error:?} wrote into the buffer");
            Err(error)
        }
    }
}

fn every_design() -> Vec<Record> {
    vec![
        mirrored(1.1, 1),
        mirrored(0.01, 0),
        mirrored(20.0, 1),
        forced_response(0.67, 0.165, 0.165, 0),
        forced_response(0.8, 0.15, 0.05, 1),
        unrelated_question(0.7, 0.5, 1),
        unrelated_question(0.5, 0.2, 0),
        k_ary(2, 1.0, 1),
        k_ary(3, 1.5, 2),
        k_ary(20, 2.0, 19),
        k_ary(20, 0.01, 0),
        number(0.0, 30.0, 1.0, 0.0),
        number(0.0, 30.0, 1.0, 30.0),
        number(0.0, 30.0, 1.0, 12.5),
        number(-2.5, 7.25, 20.0, 3.1),
    ]
}

#[test]
fn records_of_every_design_give_the_reports_of_randomize_answers() {
    let records = every_design();
    let questions: Vec<(Mechanism, Answer)> = records.iter().map(mechanism).collect();
    let mut expected = vec![0; records.len()];
    randomize_answers(&DEVICE, &NONCE, &questions, &mut expected).unwrap();
    assert_eq!(through_buffer(&records), Ok(expected));
}

#[test]
fn mirrored_records_give_the_reports_of_randomize_submission() {
    let records: Vec<Record> = (0..MAX_QUESTIONS)
        .map(|index| mirrored(0.01 + 0.2 * index as f64, (index % 3 == 0).into()))
        .collect();
    let expected: Vec<usize> = randomize_submission(
        &DEVICE,
        &NONCE,
        records.iter().map(|record| {
            (
                record.truth == 1,
                PrivacyLevel::new(record.parameters[0]).unwrap(),
            )
        }),
    )
    .map(usize::from)
    .collect();
    assert_eq!(through_buffer(&records), Ok(expected));
}

#[test]
fn a_successful_call_writes_the_report_bytes_and_nothing_else() {
    let records = every_design();
    let mut buffer = buffer_with(&records);
    let before = buffer.clone();
    randomize_buffer(&mut buffer, records.len() as i32).unwrap();
    for (at, (now, was)) in buffer.iter().zip(&before).enumerate() {
        let in_record = at
            .checked_sub(REPORTS_OFFSET)
            .map(|at| at % QUESTION_STRIDE);
        if now != was {
            assert_eq!(in_record, Some(REPORT_AT), "byte {at} changed");
        }
    }
}

/// A valid survey of three questions with `bad` as the last, so that the refusal comes
/// after records that would have been drawn.
fn refused(bad: Record) -> AbiError {
    let records = [mirrored(1.0, 1), number(0.0, 10.0, 1.0, 4.0), bad];
    through_buffer(&records).unwrap_err()
}

#[test]
fn design_parameters_their_constructor_refuses_give_code_minus_2() {
    let bad_designs = [
        mirrored(0.0, 1),
        mirrored(0.009_999, 1),
        mirrored(20.000_001, 1),
        mirrored(f64::NAN, 1),
        mirrored(f64::INFINITY, 1),
        forced_response(0.5, 0.25, 0.2, 1), // adds up to 0.95
        forced_response(0.8, 0.2, 0.0, 1),  // a report of No proves No
        forced_response(0.8, 0.0, 0.2, 1),  // a report of Yes proves Yes
        forced_response(0.0, 0.5, 0.5, 1),  // reports ignore the truth
        forced_response(f64::NAN, 0.5, 0.5, 1),
        unrelated_question(0.7, 0.0, 1),
        unrelated_question(0.7, 1.0, 1),
        unrelated_question(1.0, 0.5, 1),
        unrelated_question(0.0, 0.5, 1),
        unrelated_question(1e-9, 0.5, 1), // ε below 0.01
        k_ary(1, 1.0, 0),
        k_ary(21, 1.0, 0),
        k_ary(0, 1.0, 0),
        k_ary(3, 0.0, 0),
        number(5.0, 5.0, 1.0, 5.0),
        number(10.0, 0.0, 1.0, 5.0),
        number(f64::NEG_INFINITY, 0.0, 1.0, -1.0),
        number(0.0, f64::NAN, 1.0, 0.0),
        number(0.0, 30.0, 25.0, 3.0),
    ];
    for bad in bad_designs {
        assert_eq!(refused(bad), AbiError::Design, "{bad:?}");
    }
    assert_eq!(AbiError::Design.code(), -2);
}

#[test]
fn a_truth_that_is_not_one_of_the_answers_gives_code_minus_3() {
    for bad in [
        mirrored(1.0, 2),
        mirrored(1.0, 255),
        forced_response(0.67, 0.165, 0.165, 2),
        unrelated_question(0.7, 0.5, 2),
        k_ary(3, 1.0, 3),
        k_ary(20, 1.0, 20),
    ] {
        assert_eq!(refused(bad), AbiError::Truth, "{bad:?}");
    }
    assert_eq!(AbiError::Truth.code(), -3);
}

#[test]
fn a_value_outside_its_bounds_gives_code_minus_5() {
    for value in [
        30.000_000_001,
        -0.5,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
    ] {
        let bad = number(0.0, 30.0, 1.0, value);
        assert_eq!(refused(bad), AbiError::Value, "{bad:?}");
    }
    assert_eq!(AbiError::Value.code(), -5);
}

#[test]
fn an_unknown_kind_or_a_byte_the_kind_does_not_read_gives_code_minus_6() {
    let unknown = |kind| Record {
        kind,
        ..mirrored(1.0, 1)
    };
    let with_options = Record {
        options: 2,
        ..mirrored(1.0, 1)
    };
    let mirrored_with_second = Record {
        parameters: [1.0, 0.5, 0.0],
        ..mirrored(1.0, 1)
    };
    let unrelated_with_third = Record {
        parameters: [0.7, 0.5, 0.1],
        ..unrelated_question(0.7, 0.5, 1)
    };
    let k_ary_with_value = Record {
        value: 1.0,
        ..k_ary(3, 1.0, 1)
    };
    let number_with_truth = Record {
        truth: 1,
        ..number(0.0, 30.0, 1.0, 3.0)
    };
    let number_with_options = Record {
        options: 2,
        ..number(0.0, 30.0, 1.0, 3.0)
    };
    let negative_zero = Record {
        parameters: [1.0, -0.0, 0.0],
        ..mirrored(1.0, 1)
    };
    for bad in [
        unknown(5),
        unknown(255),
        with_options,
        mirrored_with_second,
        unrelated_with_third,
        k_ary_with_value,
        number_with_truth,
        number_with_options,
        negative_zero,
    ] {
        assert_eq!(refused(bad), AbiError::Record, "{bad:?}");
    }
    // Each reserved byte, +4 to +7, on its own.
    for reserved in 4..PARAMETERS_AT {
        let mut buffer = buffer_with(&[mirrored(1.0, 1)]);
        buffer[REPORTS_OFFSET + reserved] = 1;
        let before = buffer.clone();
        assert_eq!(randomize_buffer(&mut buffer, 1), Err(AbiError::Record));
        assert_eq!(buffer, before);
    }
    assert_eq!(AbiError::Record.code(), -6);
}

#[test]
fn a_record_in_the_sixteen_byte_layout_of_version_1_is_refused_not_misread() {
    // Version 1: ε as an f64 at +0, the truth at +8. Whatever ε in [0.01, 20], its sign and
    // exponent bytes (+6, +7) land in the reserved bytes of version 2.
    for epsilon in [0.01, 0.5, 1.0, 1.1, 2.0, 5.0, 19.9, 20.0] {
        for truth in [0, 1] {
            let mut buffer = buffer_with(&[]);
            for question in 0..2 {
                let at = REPORTS_OFFSET + 16 * question;
                buffer[at..at + 8].copy_from_slice(&f64::to_le_bytes(epsilon));
                buffer[at + 8] = truth;
            }
            let before = buffer.clone();
            for count in [1, 2] {
                assert_eq!(
                    randomize_buffer(&mut buffer, count),
                    Err(AbiError::Record),
                    "ε = {epsilon}"
                );
                assert_eq!(buffer, before);
            }
        }
    }
}

#[test]
fn a_count_outside_one_to_a_hundred_or_beyond_the_buffer_gives_code_minus_1() {
    let mut buffer = buffer_with(&[mirrored(1.0, 1)]);
    let before = buffer.clone();
    for count in [0, -1, -4, i32::MIN, 101, i32::MAX] {
        assert_eq!(
            randomize_buffer(&mut buffer, count),
            Err(AbiError::QuestionCount),
            "{count}"
        );
    }
    assert_eq!(buffer, before);
    // A buffer one byte short of its last record.
    let mut short = buffer_with(&[mirrored(1.0, 1), mirrored(1.0, 0)]);
    short.truncate(REPORTS_OFFSET + 2 * QUESTION_STRIDE - 1);
    assert_eq!(
        randomize_buffer(&mut short, 2),
        Err(AbiError::QuestionCount)
    );
    assert_eq!(randomize_buffer(&mut short, 1), Ok(1));
    assert_eq!(AbiError::QuestionCount.code(), -1);
}

#[test]
fn the_six_refusals_have_six_distinct_negative_codes() {
    let codes = [
        AbiError::QuestionCount,
        AbiError::Design,
        AbiError::Truth,
        AbiError::MessageLength,
        AbiError::Value,
        AbiError::Record,
    ]
    .map(AbiError::code);
    assert_eq!(codes, [-1, -2, -3, -4, -5, -6]);
}

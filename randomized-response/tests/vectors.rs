//! The committed test vectors hold natively: each case's questions, built from their public
//! definition, give its reports through `randomize_answers`; each question's committed
//! record is what its definition encodes to; and the WebAssembly buffer gives the same
//! reports from those records. Node.js checks the same file against the committed module and
//! static/form-core.js (tests/wasm_vectors.test.mjs), byte for byte from the definitions.
//!
//! The numbers: serde_json without its `float_roundtrip` feature (which the workspace does
//! not enable) may read a decimal as a neighbouring f64, where JavaScript's `JSON.parse` is
//! exact. So each parameter is taken, exactly, from the question's record, after checking
//! that it is the JSON number within one ulp; Node.js checks the records exactly.

use std::collections::BTreeSet;

use randomized_response::abi::{
    KIND_FORCED_RESPONSE, KIND_K_ARY, KIND_MIRRORED, KIND_NUMBER, KIND_UNRELATED_QUESTION,
    OPTIONS_AT, PARAMETERS_AT, REPORT_AT, TRUTH_AT, VALUE_AT,
};
use randomized_response::{
    randomize_answers, randomize_buffer, randomize_submission, Answer, Design, Mechanism,
    NumberDesign, PrivacyLevel, MAX_QUESTIONS, QUESTION_STRIDE, REPORTS_OFFSET,
};
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
    reports: Vec<usize>,
}

/// A question as the public definition gives it, with the case's truth and record.
#[derive(Clone, Deserialize)]
struct Question {
    #[serde(rename = "type")]
    kind: String,
    design: String,
    epsilon: Option<f64>,
    answer_truthfully: Option<f64>,
    forced_yes: Option<f64>,
    forced_no: Option<f64>,
    innocuous_yes: Option<f64>,
    options: Option<Vec<String>>,
    min: Option<f64>,
    max: Option<f64>,
    /// An answer's index, or the number.
    truth: f64,
    record: String,
}

/// The f64 at `at` in a record.
fn f64_at(record: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(record[at..at + 8].try_into().unwrap())
}

/// `exact`, after checking that serde_json read it as `parsed` within one ulp.
fn within_an_ulp(parsed: Option<f64>, exact: f64) -> Option<f64> {
    let parsed = parsed.expect("the field is in the definition");
    let ulps = (parsed.to_bits() as i64 - exact.to_bits() as i64).abs();
    assert!(ulps <= 1 || parsed == exact, "{parsed} against {exact}");
    Some(exact)
}

impl Question {
    /// The question with every number as its record holds it (see the module doc).
    fn exact(&self) -> Self {
        let record = hex::decode(&self.record).unwrap();
        let [first, second, third] =
            [0, 1, 2].map(|slot| f64_at(&record, PARAMETERS_AT + 8 * slot));
        let mut exact = self.clone();
        match self.design.as_str() {
            "mirrored" | "k_ary" => exact.epsilon = within_an_ulp(self.epsilon, first),
            "forced_response" => {
                exact.answer_truthfully = within_an_ulp(self.answer_truthfully, first);
                exact.forced_yes = within_an_ulp(self.forced_yes, second);
                exact.forced_no = within_an_ulp(self.forced_no, third);
            }
            "unrelated_question" => {
                exact.answer_truthfully = within_an_ulp(self.answer_truthfully, first);
                exact.innocuous_yes = within_an_ulp(self.innocuous_yes, second);
            }
            _ => {
                exact.epsilon = within_an_ulp(self.epsilon, first);
                exact.min = within_an_ulp(self.min, second);
                exact.max = within_an_ulp(self.max, third);
                exact.truth = within_an_ulp(Some(self.truth), f64_at(&record, VALUE_AT)).unwrap();
            }
        }
        exact
    }

    fn is(&self, kind: &str, design: &str) -> bool {
        self.kind == kind && self.design == design
    }

    fn index(&self) -> usize {
        assert!(self.truth.fract() == 0.0 && self.truth >= 0.0, "an index");
        self.truth as usize
    }

    fn level(&self) -> PrivacyLevel {
        PrivacyLevel::new(self.epsilon.unwrap()).unwrap()
    }

    fn mechanism(&self) -> (Mechanism, Answer) {
        let square = |design: Design| (Mechanism::Square(design), Answer::Index(self.index()));
        match (self.kind.as_str(), self.design.as_str()) {
            ("yes_no", "mirrored") => square(Design::mirrored(self.level())),
            ("yes_no", "forced_response") => square(
                Design::forced_response(
                    self.answer_truthfully.unwrap(),
                    self.forced_yes.unwrap(),
                    self.forced_no.unwrap(),
                )
                .unwrap(),
            ),
            ("yes_no", "unrelated_question") => square(
                Design::unrelated_question(
                    self.answer_truthfully.unwrap(),
                    self.innocuous_yes.unwrap(),
                )
                .unwrap(),
            ),
            ("choice" | "ordinal", "k_ary") => {
                let options = self.options.as_ref().unwrap().len();
                square(Design::k_ary(options, self.level()).unwrap())
            }
            ("number", "two_ends") => (
                Mechanism::Number(
                    NumberDesign::new(self.min.unwrap(), self.max.unwrap(), self.level()).unwrap(),
                ),
                Answer::Value(self.truth),
            ),
            (kind, design) => panic!("unknown question: {kind} {design}"),
        }
    }

    /// The record as the crate's README lays it out, written here independently of the
    /// generator.
    fn encoded(&self) -> Vec<u8> {
        let mut record = vec![0u8; QUESTION_STRIDE];
        let (kind, parameters) = match (self.kind.as_str(), self.design.as_str()) {
            ("yes_no", "mirrored") => (KIND_MIRRORED, vec![self.epsilon]),
            ("yes_no", "forced_response") => (
                KIND_FORCED_RESPONSE,
                vec![self.answer_truthfully, self.forced_yes, self.forced_no],
            ),
            ("yes_no", "unrelated_question") => (
                KIND_UNRELATED_QUESTION,
                vec![self.answer_truthfully, self.innocuous_yes],
            ),
            ("choice" | "ordinal", "k_ary") => {
                record[OPTIONS_AT] = u8::try_from(self.options.as_ref().unwrap().len()).unwrap();
                (KIND_K_ARY, vec![self.epsilon])
            }
            _ => {
                record[VALUE_AT..VALUE_AT + 8].copy_from_slice(&self.truth.to_le_bytes());
                (KIND_NUMBER, vec![self.epsilon, self.min, self.max])
            }
        };
        record[0] = kind;
        if kind != KIND_NUMBER {
            record[TRUTH_AT] = u8::try_from(self.index()).unwrap();
        }
        for (slot, parameter) in parameters.into_iter().enumerate() {
            let at = PARAMETERS_AT + 8 * slot;
            record[at..at + 8].copy_from_slice(&parameter.unwrap().to_le_bytes());
        }
        record
    }
}

fn seed(hex_text: &str) -> [u8; 32] {
    hex::decode(hex_text).unwrap().try_into().unwrap()
}

fn vectors() -> Vectors {
    serde_json::from_str(include_str!("vectors.json")).expect("vectors.json parses")
}

#[test]
fn every_case_gives_its_reports_through_randomize_answers() {
    for (index, case) in vectors().cases.iter().enumerate() {
        let questions: Vec<(Mechanism, Answer)> = case
            .questions
            .iter()
            .map(|question| question.exact().mechanism())
            .collect();
        let mut reports = vec![usize::MAX; questions.len()];
        randomize_answers(
            &seed(&case.device_bytes),
            &seed(&case.server_nonce),
            &questions,
            &mut reports,
        )
        .unwrap();
        assert_eq!(reports, case.reports, "case {index}");
    }
}

#[test]
fn every_record_is_its_question_encoded_and_the_buffer_gives_the_same_reports() {
    for (index, case) in vectors().cases.iter().enumerate() {
        let mut buffer = seed(&case.device_bytes).to_vec();
        buffer.extend(seed(&case.server_nonce));
        for (at, question) in case.questions.iter().enumerate() {
            let record = hex::decode(&question.record).unwrap();
            assert_eq!(
                record,
                question.exact().encoded(),
                "case {index}, question {at}"
            );
            buffer.extend(record);
        }
        let count = i32::try_from(case.questions.len()).unwrap();
        assert_eq!(
            randomize_buffer(&mut buffer, count),
            Ok(case.questions.len())
        );
        let reports: Vec<usize> = (0..case.questions.len())
            .map(|at| usize::from(buffer[REPORTS_OFFSET + QUESTION_STRIDE * at + REPORT_AT]))
            .collect();
        assert_eq!(reports, case.reports, "case {index}");
    }
}

#[test]
fn surveys_of_mirrored_questions_keep_the_reports_of_randomize_submission() {
    let vectors = vectors();
    let mirrored_only: Vec<&Case> = vectors
        .cases
        .iter()
        .filter(|case| case.questions.iter().all(|q| q.is("yes_no", "mirrored")))
        .collect();
    // The 24 cases of the first version of the file, and the yes/no cases at both ends of ε.
    assert!(mirrored_only.len() >= 26);
    for case in mirrored_only {
        let answers = case
            .questions
            .iter()
            .map(|q| (q.index() == Design::YES, q.exact().level()));
        let reports: Vec<usize> = randomize_submission(
            &seed(&case.device_bytes),
            &seed(&case.server_nonce),
            answers,
        )
        .map(usize::from)
        .collect();
        assert_eq!(reports, case.reports);
    }
}

#[test]
fn the_cases_cover_every_design_its_extremes_and_mixed_surveys() {
    let vectors = vectors();
    let questions: Vec<&Question> = vectors.cases.iter().flat_map(|c| &c.questions).collect();
    let any = |test: &dyn Fn(&Question) -> bool| questions.iter().any(|q| test(q));

    // Every type and design, and every truth of a yes/no design.
    for (kind, design) in [
        ("yes_no", "mirrored"),
        ("yes_no", "forced_response"),
        ("yes_no", "unrelated_question"),
        ("choice", "k_ary"),
        ("ordinal", "k_ary"),
        ("number", "two_ends"),
    ] {
        assert!(any(&|q| q.is(kind, design)), "{kind} {design}");
    }
    for design in ["mirrored", "forced_response", "unrelated_question"] {
        for truth in [0.0, 1.0] {
            assert!(any(&|q| q.is("yes_no", design) && q.truth == truth));
        }
    }
    // Choice with 2, 3 and 20 options, each option as the truth.
    for options in [2, 3, 20] {
        for truth in 0..options {
            assert!(any(&|q| q.is("choice", "k_ary")
                && q.options.as_ref().unwrap().len() == options
                && q.index() == truth));
        }
    }
    // ε at both ends for every design given by its ε.
    for (kind, design) in [
        ("yes_no", "mirrored"),
        ("choice", "k_ary"),
        ("ordinal", "k_ary"),
        ("number", "two_ends"),
    ] {
        for epsilon in [PrivacyLevel::MIN_EPSILON, PrivacyLevel::MAX_EPSILON] {
            assert!(any(&|q| q.is(kind, design) && q.epsilon == Some(epsilon)));
        }
    }
    // Forced response and unrelated question near both ends of their accepted ε.
    let realized = |q: &Question| q.mechanism().0.epsilon();
    for design in ["forced_response", "unrelated_question"] {
        assert!(
            any(&|q| q.is("yes_no", design) && realized(q) < 0.05),
            "{design}"
        );
        assert!(
            any(&|q| q.is("yes_no", design) && realized(q) > 6.0),
            "{design}"
        );
    }
    assert!(any(
        &|q| q.is("yes_no", "forced_response") && realized(q) > 19.9
    ));
    assert!(any(
        &|q| q.is("yes_no", "forced_response") && q.forced_yes != q.forced_no
    ));
    assert!(any(
        &|q| q.is("yes_no", "unrelated_question") && q.innocuous_yes < Some(0.01)
    ));
    assert!(any(
        &|q| q.is("yes_no", "unrelated_question") && q.innocuous_yes > Some(0.99)
    ));
    // Numbers at both bounds, inside, with non-integer and negative bounds.
    let number = |test: &dyn Fn(f64, f64, f64) -> bool| {
        any(&|q| q.is("number", "two_ends") && test(q.min.unwrap(), q.max.unwrap(), q.truth))
    };
    assert!(number(&|min, _, value| value == min));
    assert!(number(&|_, max, value| value == max));
    assert!(number(&|min, max, value| min < value
        && value < max
        && value.fract() != 0.0));
    assert!(number(
        &|min, max, _| min.fract() != 0.0 && max.fract() != 0.0
    ));
    assert!(number(&|min, _, _| min < 0.0));

    // Surveys of 1 and of the most questions, and surveys mixing at least four designs.
    let sizes: BTreeSet<usize> = vectors.cases.iter().map(|c| c.questions.len()).collect();
    assert_eq!(sizes.first(), Some(&1));
    assert_eq!(sizes.last(), Some(&MAX_QUESTIONS));
    let mixed = vectors.cases.iter().filter(|case| {
        let designs: BTreeSet<(&str, &str)> = case
            .questions
            .iter()
            .map(|q| (q.kind.as_str(), q.design.as_str()))
            .collect();
        designs.len() >= 4
    });
    assert!(mixed.count() >= 5);
}

//! The survey-definition parser: any bytes an owner can POST to `/api/surveys` or give to
//! `deniable survey create`. It may refuse, never panic; what it accepts is within bounds.
#![no_main]

use deniable::domain::{
    DefinedQuestion, SurveyDefinition, SurveyDefinitionInput, MAX_QUESTIONS, MAX_QUESTION_CHARS,
    MAX_TITLE_CHARS,
};
use libfuzzer_sys::fuzz_target;
use randomized_response::{MAX_OPTIONS, MIN_OPTIONS};

fuzz_target!(|data: &[u8]| {
    let Ok(input) = serde_json::from_slice::<SurveyDefinitionInput>(data) else {
        return;
    };
    if let Ok(definition) = SurveyDefinition::parse(input) {
        let title = definition.title().chars().count();
        assert!((1..=MAX_TITLE_CHARS).contains(&title));
        assert!((1..=MAX_QUESTIONS).contains(&definition.questions().len()));
        for question in definition.questions() {
            match question {
                DefinedQuestion::Randomized(question) => {
                    assert!(question.text().chars().count() <= MAX_QUESTION_CHARS);
                    let design = question.design();
                    // Every accepted design has a finite ε in range, never above its promise.
                    assert!((0.01..=20.0).contains(&design.epsilon()));
                    assert!(design.mechanism().realized_epsilon() <= design.epsilon());
                }
                DefinedQuestion::Grouping(grouping) => {
                    assert!(grouping.text().chars().count() <= MAX_QUESTION_CHARS);
                    assert!((MIN_OPTIONS..=MAX_OPTIONS).contains(&grouping.options().len()));
                }
            }
        }
    }
});

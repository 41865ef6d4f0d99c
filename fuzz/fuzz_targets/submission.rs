//! The submission decoder: any bytes a device (or an attacker) can POST to
//! `/api/surveys/{slug}/responses`, decoded and validated against a survey. It may refuse,
//! never panic; what it accepts has one report per answered question, in question order.
#![no_main]

use deniable::domain::{
    Question, QuestionId, Slug, Submission, SubmissionInput, Survey, SurveyId, SurveyStatus,
};
use libfuzzer_sys::fuzz_target;
use randomized_response::PrivacyLevel;

fn survey(requires_invitation: bool) -> Survey {
    let question = |id: i64, epsilon: f64, required: bool| Question {
        id: QuestionId::from_stored(id),
        position: (id - 1) as u32,
        text: format!("Question {id}?"),
        level: PrivacyLevel::new(epsilon).unwrap(),
        required,
    };
    Survey {
        id: SurveyId::from_stored(1),
        slug: Slug::demo(),
        title: "Fuzz".to_owned(),
        description: String::new(),
        status: SurveyStatus::Open,
        planned_respondents: 1000,
        requires_invitation,
        questions: vec![
            question(1, 0.5, true),
            question(2, 1.0, true),
            question(3, 2.0, false),
        ],
    }
}

fuzz_target!(|data: &[u8]| {
    for requires_invitation in [false, true] {
        let Ok(input) = serde_json::from_slice::<SubmissionInput>(data) else {
            return;
        };
        if let Ok(submission) = Submission::parse(input, &survey(requires_invitation)) {
            let ids: Vec<i64> = submission
                .reports()
                .iter()
                .map(|r| r.question_id.get())
                .collect();
            assert!(
                ids.windows(2).all(|pair| pair[0] < pair[1]),
                "question order"
            );
            assert!(
                ids.contains(&1) && ids.contains(&2),
                "required questions answered"
            );
            assert_eq!(submission.token().is_some(), requires_invitation);
        }
    }
});

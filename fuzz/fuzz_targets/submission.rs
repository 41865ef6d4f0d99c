//! The submission decoder: any bytes a device (or an attacker) can POST to
//! `/api/surveys/{slug}/responses`, decoded and validated against a survey. It may refuse,
//! never panic; what it accepts has one report per question, in question order, in range.
#![no_main]

use deniable::domain::{
    DesignFields, MinCell, Question, QuestionDesign, QuestionId, Slug, StoppingRule, Submission,
    SubmissionInput, Survey, SurveyId, SurveyIntro, SurveyStatus,
};
use libfuzzer_sys::fuzz_target;

/// A survey of three questions: yes/no, a choice of three options, a number from 0 to 30.
fn survey(requires_invitation: bool) -> Survey {
    let question = |id: i64, design: &str| Question {
        id: QuestionId::from_stored(id),
        position: (id - 1) as u32,
        text: format!("Question {id}?"),
        design: QuestionDesign::parse(
            "fuzz",
            &serde_json::from_str::<DesignFields>(design).unwrap(),
        )
        .unwrap(),
    };
    Survey {
        id: SurveyId::from_stored(1),
        slug: Slug::demo(),
        title: "Fuzz".to_owned(),
        description: String::new(),
        status: SurveyStatus::Open,
        planned_respondents: 1000,
        requires_invitation,
        delete_after: None,
        min_cell: MinCell::default(),
        intro: SurveyIntro::default(),
        stopping_rule: StoppingRule::NONE,
        unblinded_at: None,
        questions: vec![
            question(1, r#"{"epsilon": 0.5}"#),
            question(
                2,
                r#"{"type": "choice", "epsilon": 1, "options": ["a", "b", "c"]}"#,
            ),
            question(
                3,
                r#"{"type": "number", "epsilon": 2, "min": 0, "max": 30}"#,
            ),
        ],
        groupings: Vec::new(),
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
            assert_eq!(ids, [1, 2, 3], "every question answered, once, in order");
            let reports: Vec<u8> = submission.reports().iter().map(|r| r.report).collect();
            assert!(
                reports[0] <= 1 && reports[1] <= 2 && reports[2] <= 1,
                "reports in range"
            );
            assert_eq!(submission.token().is_some(), requires_invitation);
        }
    }
});

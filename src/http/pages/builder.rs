//! The builder: a draft's details and questions (text, type, design), preview, opening,
//! closing and deletion. A refused question form comes back on the builder's page with its
//! reason beside it and everything typed kept.

use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::design::{DesignEditor, DesignForm, PLANNING_CONFIDENCE};
use super::draft_form::{Place, TypedDraft};
use super::refusal::{plain_refusal, researcher_language, Field, PlainRefusal};
use super::{html, see_other, Nav, Page};
use crate::db::Database;
use crate::domain::{DesignName, Language, QuestionDesign, QuestionType, Slug, SurveyStatus};
use crate::error::AppError;
use crate::http::auth::Session;
use crate::http::extract::{CsrfForm, SignedIn};
use crate::results::{planning_interval, survey_planned_sizes, PlannedSizes, PLANNING_HALF_WIDTH};
use crate::services::surveys::{self, find_owned};
use randomized_response::Confidence;

/// A question's type and design in words: "Yes/no, forced response".
pub(super) fn design_label(design: &QuestionDesign) -> String {
    let kind = match design.question_type() {
        QuestionType::YesNo => "Yes/no",
        QuestionType::Choice => "Choice",
        QuestionType::Ordinal => "Ordinal scale",
        QuestionType::Number => "Number",
    };
    let name = match design.design_name() {
        DesignName::Mirrored => "mirrored",
        DesignName::ForcedResponse => "forced response",
        DesignName::UnrelatedQuestion => "unrelated question",
        DesignName::KAry => "k-ary randomized response",
        DesignName::TwoEnds => "rounded to an end, then mirrored",
    };
    match design.question_type() {
        QuestionType::Number => format!(
            "{kind} from {} to {}, {name}",
            design.fields().min.unwrap_or_default(),
            design.fields().max.unwrap_or_default()
        ),
        QuestionType::Choice => format!(
            "{kind} of {} options, {name}",
            design.options().map_or(0, <[String]>::len)
        ),
        QuestionType::Ordinal => format!(
            "{kind} of {} levels, {name}",
            design.options().map_or(0, <[String]>::len)
        ),
        QuestionType::YesNo => format!("{kind}, {name}"),
    }
}

/// One question on the builder's page (and on the confirmation before opening).
struct BuilderQuestion {
    id: i64,
    /// Its place in the builder's one form: its fields are `q{index}-…`.
    index: usize,
    number: u32,
    text: String,
    label: String,
    options: Vec<String>,
    editor: DesignEditor,
    /// Why the last save of this question was refused (its inputs are shown as typed).
    error: Option<String>,
    /// A refusal of its text, in plain words, under the text.
    text_error: Option<String>,
    first: bool,
    last: bool,
}

/// The add-a-question form: empty, or as typed when it was refused.
struct NewQuestion {
    text: String,
    editor: DesignEditor,
    error: Option<String>,
    text_error: Option<String>,
}

#[derive(Template)]
#[template(path = "workspace/builder.html")]
struct BuilderPage {
    nav: Option<Nav>,
    csrf: String,
    slug: String,
    title: String,
    description: String,
    planned_respondents: String,
    requires_invitation: bool,
    results_after_close: bool,
    /// What respondents are told first, as the form shows it.
    researcher: String,
    contact: String,
    consent: String,
    language: String,
    /// Where "Continue" leads after sending, and the sites that may frame the form (one
    /// origin per line).
    completion_url: String,
    embed_origins: String,
    study_error: Option<String>,
    /// The form languages: code and own name.
    languages: Vec<(&'static str, &'static str)>,
    /// Why the last save was refused, beside the details or the introduction.
    details_error: Option<String>,
    intro_error: Option<String>,
    /// The stopping rule as the form shows it: blank, or the target and the closing time
    /// (`datetime-local`'s `YYYY-MM-DDTHH:MM:SS`, UTC).
    target_responses: String,
    closes_at: String,
    /// The rule in words, for a survey that is no longer a draft.
    rule_text: String,
    /// Respondents for ±5 % at 95 % by each way's primary interval (the largest over the
    /// questions), and Chernoff's guarantee: the planner that sets the target.
    sizes: PlannedSizes,
    status: &'static str,
    editable: bool,
    total_epsilon: String,
    questions: Vec<BuilderQuestion>,
    new_question: NewQuestion,
}

/// The builder's one form as the server refused it: everything as typed, to show again,
/// and where its reason goes.
struct Refused<'a> {
    draft: &'a TypedDraft,
    place: Place,
    error: AppError,
    /// The researcher's browser language, for the plain sentence beside a field.
    language: Language,
}

/// The page's own fields: the survey's, or the refused form's as typed.
struct TypedFields {
    title: String,
    description: String,
    planned_respondents: String,
    requires_invitation: bool,
    results_after_close: bool,
    target_responses: String,
    closes_at: String,
    researcher: String,
    contact: String,
    consent: String,
    language: String,
    completion_url: String,
    embed_origins: String,
    details_error: Option<String>,
    intro_error: Option<String>,
    study_error: Option<String>,
}

/// A question's refusal, once: in plain words beside its field when it concerns one,
/// else its message at the top of the question.
fn show_refusal(
    plain: Option<PlainRefusal>,
    message: Option<String>,
    error: &mut Option<String>,
    text_error: &mut Option<String>,
    editor: &mut DesignEditor,
) {
    match plain {
        Some(PlainRefusal {
            field: Field::Text,
            sentence,
        }) => *text_error = Some(sentence),
        Some(PlainRefusal {
            field: Field::Epsilon,
            sentence,
        }) => editor.refuse_epsilon(sentence),
        None => *error = message,
    }
}

async fn builder_page(
    db: &Database,
    session: &Session,
    slug: &str,
    refused: Option<Refused<'_>>,
) -> Page {
    let survey = find_owned(db, slug, session.researcher).await?;
    let editable = survey.status == SurveyStatus::Draft;
    if !editable {
        // Nothing to show the form again in: the refusal itself is the answer.
        if let Some(refused) = refused {
            return Err(refused.error.into());
        }
    }
    let count = survey.questions.len() + survey.groupings.len();
    // The design planner sizes the interval the survey's way of running leads with.
    let interval = planning_interval(&survey);
    let mut new_question = NewQuestion {
        text: String::new(),
        editor: DesignEditor::sized_for("new".to_owned(), DesignForm::default_values(), interval)?
            .named(),
        error: None,
        text_error: None,
    };
    let mut questions = survey
        .questions
        .iter()
        .map(|question| {
            Ok(BuilderQuestion {
                id: question.id.get(),
                number: question.position + 1,
                text: question.text.clone(),
                label: design_label(&question.design),
                options: question.design.options().unwrap_or_default().to_vec(),
                editor: DesignEditor::of(String::new(), &question.design, interval)?,
                error: None,
                text_error: None,
                first: false,
                last: false,
                index: 0,
            })
        })
        .chain(survey.groupings.iter().map(|grouping| {
            Ok(BuilderQuestion {
                id: grouping.id.get(),
                number: grouping.position + 1,
                text: grouping.text.clone(),
                label: format!(
                    "Grouping, not randomized: one of {} options",
                    grouping.options.len()
                ),
                options: grouping.options.clone(),
                editor: DesignEditor::new(
                    String::new(),
                    DesignForm::of_grouping(&grouping.options),
                )?,
                error: None,
                text_error: None,
                first: false,
                last: false,
                index: 0,
            })
        }))
        .collect::<Result<Vec<_>, AppError>>()?;
    questions.sort_by_key(|question| question.number);
    for (index, question) in questions.iter_mut().enumerate() {
        question.first = index == 0;
        question.last = index + 1 == count;
        question.index = index;
        question.editor.prefix = format!("q{index}");
        question.editor.name_prefix = format!("q{index}-");
    }
    let status = refused
        .as_ref()
        .map_or(StatusCode::OK, |_| StatusCode::BAD_REQUEST);
    let intro = &survey.intro;
    let mut typed = TypedFields {
        title: survey.title.clone(),
        description: survey.description.clone(),
        planned_respondents: survey.planned_respondents.to_string(),
        requires_invitation: survey.requires_invitation,
        results_after_close: survey.results_after_close,
        target_responses: survey
            .stopping_rule
            .target_responses()
            .map_or_else(String::new, |target| target.to_string()),
        closes_at: survey
            .stopping_rule
            .closes_at()
            .map_or_else(String::new, |at| {
                at.to_string().trim_end_matches('Z').to_owned()
            }),
        researcher: intro.researcher().to_owned(),
        contact: intro.contact_text().to_owned(),
        consent: intro.consent().unwrap_or_default().to_owned(),
        language: intro.language().as_str().to_owned(),
        completion_url: survey
            .completion_url
            .as_ref()
            .map_or_else(String::new, |link| link.as_str().to_owned()),
        embed_origins: survey.embed_origins.as_slice().join("\n"),
        details_error: None,
        intro_error: None,
        study_error: None,
    };
    if let Some(Refused {
        draft,
        place,
        error,
        language,
    }) = refused
    {
        typed = TypedFields {
            title: draft.title.clone(),
            description: draft.description.clone(),
            planned_respondents: draft.planned_respondents.clone(),
            requires_invitation: draft.requires_invitation,
            results_after_close: draft.results_after_close,
            target_responses: draft.target_responses.clone(),
            closes_at: draft.closes_at.clone(),
            researcher: draft.researcher.clone(),
            contact: draft.contact.clone(),
            consent: draft.consent.clone(),
            language: draft.language.clone(),
            completion_url: draft.completion_url.clone(),
            embed_origins: draft.embed_origins.clone(),
            details_error: None,
            intro_error: None,
            study_error: None,
        };
        // Every question as typed (matched by id: the page may be older than the survey).
        for typed_question in &draft.questions {
            if let Some(question) = questions
                .iter_mut()
                .find(|question| question.id == typed_question.id.get())
            {
                question.text = typed_question.text.clone();
                let editor = DesignEditor::sized_for(
                    question.editor.prefix.clone(),
                    typed_question.design.clone(),
                    interval,
                )?;
                question.editor = editor.named();
            }
        }
        new_question.text = draft.new_text.clone();
        new_question.editor =
            DesignEditor::sized_for("new".to_owned(), draft.new_design.clone(), interval)?.named();
        let message = Some(error.public_message());
        match place {
            Place::Details => typed.details_error = message,
            Place::Intro => typed.intro_error = message,
            Place::Study => typed.study_error = message,
            Place::New => {
                let plain =
                    plain_refusal(&error, &draft.new_text, &draft.new_design.epsilon, language);
                show_refusal(
                    plain,
                    message,
                    &mut new_question.error,
                    &mut new_question.text_error,
                    &mut new_question.editor,
                );
            }
            Place::Question(id) => {
                let typed_question = draft.questions.iter().find(|typed| typed.id == id);
                if let Some(question) = questions
                    .iter_mut()
                    .find(|question| question.id == id.get())
                {
                    let plain = typed_question.and_then(|typed| {
                        plain_refusal(&error, &typed.text, &typed.design.epsilon, language)
                    });
                    show_refusal(
                        plain,
                        message,
                        &mut question.error,
                        &mut question.text_error,
                        &mut question.editor,
                    );
                } else {
                    typed.details_error = message;
                }
            }
        }
    }
    let confidence = Confidence::new(PLANNING_CONFIDENCE).map_err(AppError::internal)?;
    let sizes = survey_planned_sizes(&survey, PLANNING_HALF_WIDTH, confidence)?;
    let mut response = html(&BuilderPage {
        sizes,
        nav: Some(Nav::of(session)),
        csrf: session.csrf.as_str().to_owned(),
        slug: survey.slug.to_string(),
        total_epsilon: format!("{:.2}", survey.total_epsilon()),
        status: survey.status.as_str(),
        editable,
        title: typed.title,
        description: typed.description,
        planned_respondents: typed.planned_respondents,
        requires_invitation: typed.requires_invitation,
        results_after_close: typed.results_after_close,
        target_responses: typed.target_responses,
        closes_at: typed.closes_at,
        researcher: typed.researcher,
        contact: typed.contact,
        consent: typed.consent,
        language: typed.language,
        completion_url: typed.completion_url,
        embed_origins: typed.embed_origins,
        study_error: typed.study_error,
        languages: Language::ALL
            .iter()
            .map(|language| (language.as_str(), language.name()))
            .collect(),
        details_error: typed.details_error,
        intro_error: typed.intro_error,
        rule_text: match (
            survey.stopping_rule.target_responses(),
            survey.stopping_rule.closes_at(),
        ) {
            (None, None) => "Watched live: no stopping rule.".to_owned(),
            (target, at) => format!(
                "Fixed in advance: closes{}{}{}.",
                target.map_or_else(String::new, |t| format!(" at {t} responses")),
                if target.is_some() && at.is_some() {
                    " or"
                } else {
                    ""
                },
                at.map_or_else(String::new, |at| format!(" at {at}"))
            ),
        },
        questions,
        new_question,
    })?;
    *response.status_mut() = status;
    Ok(response)
}

/// GET /surveys/{slug}/edit
pub async fn builder(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    builder_page(&db, &signed_in.0, &slug, None).await
}

/// POST /surveys/{slug}/edit: the builder's one form. Everything typed — details, what
/// respondents are told first, the stopping rule and every question — is saved in one
/// transaction, then the pressed button's action (add, delete or move a question) applies.
/// A refusal shows the page again, 400, with everything as typed and the reason beside
/// the part it concerns; nothing is saved then.
pub async fn save_draft(
    request: HttpRequest,
    db: web::Data<Database>,
    slug: web::Path<String>,
    CsrfForm { session, form }: CsrfForm<Vec<(String, String)>>,
) -> Page {
    let draft = TypedDraft::read(form)?;
    let slug = Slug::parse(&slug)?;
    let edits = match draft.check() {
        Ok(edits) => edits,
        Err((place, error @ AppError::Invalid { .. })) => {
            let refused = Refused {
                draft: &draft,
                place,
                error,
                language: researcher_language(&request),
            };
            return builder_page(&db, &session, slug.as_str(), Some(refused)).await;
        }
        Err((_, error)) => return Err(error.into()),
    };
    let anchor = draft.action.anchor();
    db.save_draft(slug.clone(), session.researcher, edits)
        .await?;
    Ok(see_other(&format!("/surveys/{slug}/edit{anchor}")))
}

/// GET /surveys/{slug}/preview: the respondent's form, sending disabled.
pub async fn preview(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    let survey = find_owned(&db, &slug, signed_in.0.researcher).await?;
    let definition = crate::http::public_definition::served(&db, &survey).await?;
    let body = super::form::preview_html(&definition)?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body))
}

#[derive(Template)]
#[template(path = "workspace/open.html")]
struct OpenPage {
    nav: Option<Nav>,
    csrf: String,
    slug: String,
    title: String,
    total_epsilon: String,
    questions: Vec<BuilderQuestion>,
}

/// GET /surveys/{slug}/open: the confirmation that ε is frozen from then on.
pub async fn confirm_open(
    db: web::Data<Database>,
    signed_in: SignedIn,
    slug: web::Path<String>,
) -> Page {
    let survey = find_owned(&db, &slug, signed_in.0.researcher).await?;
    if survey.status != SurveyStatus::Draft {
        return Err(AppError::conflict("not_a_draft", "only a draft survey can be opened").into());
    }
    let questions = survey
        .questions
        .iter()
        .map(|question| {
            Ok(BuilderQuestion {
                id: question.id.get(),
                number: question.position + 1,
                text: question.text.clone(),
                label: design_label(&question.design),
                options: Vec::new(),
                editor: DesignEditor::of(
                    format!("q{}", question.id.get()),
                    &question.design,
                    planning_interval(&survey),
                )?,
                error: None,
                text_error: None,
                first: false,
                last: false,
                index: 0,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    html(&OpenPage {
        nav: Some(Nav::of(&signed_in.0)),
        csrf: signed_in.0.csrf.as_str().to_owned(),
        slug: survey.slug.to_string(),
        total_epsilon: format!("{:.2}", survey.total_epsilon()),
        title: survey.title,
        questions,
    })
}

/// POST /surveys/{slug}/open
pub async fn open(
    db: web::Data<Database>,
    slug: web::Path<String>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    let survey = surveys::open(&db, &slug, session.researcher).await?;
    Ok(see_other(&format!("/surveys/{}/results", survey.slug)))
}

/// POST /surveys/{slug}/close
pub async fn close(
    db: web::Data<Database>,
    slug: web::Path<String>,
    CsrfForm { session, .. }: CsrfForm,
) -> Page {
    let survey = surveys::close(&db, &slug, session.researcher).await?;
    Ok(see_other(&format!("/surveys/{}/results", survey.slug)))
}

#[derive(Deserialize)]
pub struct DeleteSurveyForm {
    /// The survey's slug, typed again: deleting destroys every response for good.
    #[serde(default)]
    confirm: String,
}

/// POST /surveys/{slug}/delete: deletes a survey of any status with all its responses and
/// invitations (ethics boards ask for data to be destroyed once a study ends), only with
/// its slug typed as confirmation. Gone from every file before the redirect.
pub async fn delete_survey(
    db: web::Data<Database>,
    slug: web::Path<String>,
    CsrfForm { session, form }: CsrfForm<DeleteSurveyForm>,
) -> Page {
    // Still 404 for someone else's survey, before saying anything about it.
    let survey = find_owned(&db, &slug, session.researcher).await?;
    if form.confirm.trim() != survey.slug.as_str() {
        return Err(AppError::invalid(
            "unconfirmed",
            format!(
                "type the survey's name {} to confirm that it and all its responses should be \
                 deleted",
                survey.slug
            ),
        )
        .into());
    }
    surveys::delete(&db, survey.slug, session.researcher).await?;
    Ok(see_other("/surveys"))
}

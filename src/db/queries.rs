//! Surveys: their definitions, drafts, stopping rules, owners and lists, results' inputs and
//! exports. Synchronous, parameterized, one connection argument; owner checks are part of
//! the queries themselves, so a non-owner sees nothing at all. (Accounts are in
//! [`super::accounts`], responses in [`super::responses`].)

use super::sql::{params, Conn, OptionalExtension};

use crate::domain::{
    stored_grouping, ClosingTime, CompletionUrl, DefinedQuestion, Email, EmbedOrigins,
    GroupingQuestion, MinCell, Question, QuestionDesign, QuestionId, ResearcherId, RetentionDate,
    Slug, StoppingRule, Survey, SurveyDefinition, SurveyDetails, SurveyId, SurveyIntro,
    SurveyStatus,
};
use crate::domain::{Refusal, GROUPING_TYPE};
use crate::error::AppError;

/// The lock of start-up work on PostgreSQL (migrations, the demo survey, the first
/// sign-up link), held until the end of the transaction: several nodes starting at once
/// do that work one after the other, and each finds what the one before did. Nothing on
/// SQLite, where the writer's `BEGIN IMMEDIATE` already serializes it.
pub fn startup_lock(connection: &Conn) -> Result<(), AppError> {
    connection.rules().startup_lock(connection)
}

// SQLite integers are i64; counts in the domain are u64.
fn count_to_sql(count: u64) -> Result<i64, AppError> {
    i64::try_from(count).map_err(|_| AppError::internal(format!("count {count} too large")))
}

fn count_from_sql(count: i64) -> Result<u64, AppError> {
    u64::try_from(count).map_err(|_| AppError::internal(format!("negative count {count}")))
}

// --- surveys ------------------------------------------------------------------------------

pub fn insert_survey(
    connection: &Conn,
    owner_id: ResearcherId,
    slug: &Slug,
    definition: &SurveyDefinition,
    status: SurveyStatus,
) -> Result<SurveyId, AppError> {
    let survey_id: i64 = connection
        .query_row(
            "INSERT INTO surveys
                 (slug, owner_id, title, description, status, planned_respondents,
                  requires_invitation, delete_after, min_cell,
                  researcher, contact, consent, language, target_responses, closes_at,
                  results_after_close, completion_url, embed_origins)
             VALUES (?1, ?2, ?3, ?4, 'draft', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                     ?16, ?17)
             RETURNING id",
            params![
                slug.as_str(),
                owner_id.get(),
                definition.title(),
                definition.description(),
                count_to_sql(definition.planned_respondents())?,
                definition.requires_invitation(),
                definition.delete_after().map(RetentionDate::as_str),
                definition.min_cell().get(),
                definition.intro().researcher(),
                definition.intro().contact_text(),
                definition.intro().consent(),
                definition.intro().language().as_str(),
                definition
                    .stopping_rule()
                    .target_responses()
                    .map(count_to_sql)
                    .transpose()?,
                definition
                    .stopping_rule()
                    .closes_at()
                    .map(ClosingTime::unix),
                definition.results_after_close(),
                definition.completion_url().map(CompletionUrl::as_str),
                definition.embed_origins().to_stored(),
            ],
            |row| row.get(0),
        )
        .map_err(|error| -> AppError {
            if error.is_unique_violation() {
                Refusal::SlugTaken {
                    slug: slug.to_string(),
                }
                .into()
            } else {
                error.into()
            }
        })?;
    if definition.requires_invitation() {
        super::redemptions::ensure_key(connection, SurveyId::from_stored(survey_id))?;
    }
    let insert_question = connection.prepare(
        "INSERT INTO questions (survey_id, position, text, epsilon, design)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (position, question) in (0_i64..).zip(definition.questions()) {
        let (text, epsilon, design) = stored_question(question);
        insert_question.execute(params![survey_id, position, text, epsilon, design])?;
    }
    // Questions go in while it is a draft: afterwards a trigger refuses any change to them.
    if status != SurveyStatus::Draft {
        connection.execute(
            "UPDATE surveys SET status = ?1 WHERE id = ?2",
            params![status.as_str(), survey_id],
        )?;
    }
    Ok(SurveyId::from_stored(survey_id))
}

/// A question's columns as stored: text, ε and design. A grouping question has no ε: its
/// `epsilon` column, NOT NULL since 0001, holds [`GROUPING_EPSILON_PLACEHOLDER`], which
/// nothing reads (migrations/sqlite/0006_analyses.sql).
fn stored_question(question: &DefinedQuestion) -> (&str, f64, String) {
    match question {
        DefinedQuestion::Randomized(question) => (
            question.text(),
            question.design().epsilon(),
            question.design().to_stored(),
        ),
        DefinedQuestion::Grouping(grouping) => (
            grouping.text(),
            GROUPING_EPSILON_PLACEHOLDER,
            grouping.to_stored(),
        ),
    }
}

/// The `epsilon` column of a grouping question's row (see [`stored_question`]).
const GROUPING_EPSILON_PLACEHOLDER: f64 = 1.0;

/// Stores a new draft and reads it back as its owner will see it.
pub fn insert_draft(
    connection: &Conn,
    owner_id: ResearcherId,
    slug: &Slug,
    definition: &SurveyDefinition,
) -> Result<Survey, AppError> {
    insert_survey(connection, owner_id, slug, definition, SurveyStatus::Draft)?;
    find_survey(connection, slug)?
        .ok_or_else(|| AppError::internal("a survey vanished right after its creation"))
}

/// Creates the demo owner (no password: it can never log in) and the open demo survey,
/// unless they exist, and hands the demo to the first researcher account if there is one
/// ([`adopt_demo_survey`]). Returns whether the survey was created.
pub fn ensure_demo_survey(connection: &Conn) -> Result<bool, AppError> {
    startup_lock(connection)?;
    if find_survey(connection, &Slug::demo())?.is_some() {
        adopt_demo_survey(connection)?;
        return Ok(false);
    }
    connection.execute(
        "INSERT INTO researchers (email) VALUES (?1) ON CONFLICT DO NOTHING",
        [Email::demo_owner().as_str()],
    )?;
    let owner_id = super::accounts::researcher_id(connection, &Email::demo_owner())?
        .map(ResearcherId::from_stored)
        .ok_or_else(|| AppError::internal("the demo owner was not created"))?;
    insert_survey(
        connection,
        owner_id,
        &Slug::demo(),
        &SurveyDefinition::demo(),
        SurveyStatus::Open,
    )?;
    adopt_demo_survey(connection)?;
    Ok(true)
}

/// Hands the demo survey from the built-in demo owner to the first researcher account (the
/// oldest that can sign in), so a newcomer finds it in the workspace with its results.
/// Does nothing once the demo has left the demo owner, or while nobody can sign in; called
/// whenever an account is made and when the server starts. Returns whether it moved.
pub fn adopt_demo_survey(connection: &Conn) -> Result<bool, AppError> {
    let moved = connection.execute(
        "UPDATE surveys
         SET owner_id = (SELECT min(id) FROM researchers WHERE password_hash IS NOT NULL)
         WHERE slug = ?1
           AND owner_id = (SELECT id FROM researchers WHERE email = ?2)
           AND EXISTS (SELECT 1 FROM researchers WHERE password_hash IS NOT NULL)",
        params![Slug::demo().as_str(), Email::demo_owner().as_str()],
    )?;
    Ok(moved == 1)
}

/// Any survey by slug: what respondents may see.
pub fn find_survey(connection: &Conn, slug: &Slug) -> Result<Option<Survey>, AppError> {
    load_survey(connection, slug, None)
}

/// A survey by slug, only if this researcher owns it.
pub fn find_owned_survey(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
) -> Result<Option<Survey>, AppError> {
    load_survey(connection, slug, Some(owner))
}

fn load_survey(
    connection: &Conn,
    slug: &Slug,
    owner: Option<ResearcherId>,
) -> Result<Option<Survey>, AppError> {
    let found = connection
        .query_row(
            "SELECT id, title, description, status, planned_respondents, requires_invitation,
                    delete_after, min_cell, researcher, contact, consent, language,
                    target_responses, closes_at, unblinded_at_responses, results_after_close,
                    completion_url, embed_origins
             FROM surveys
             WHERE slug = ?1 AND owner_id = coalesce(?2, owner_id)",
            params![slug.as_str(), owner.map(ResearcherId::get)],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, bool>(5)?,
                    row.get::<_, Option<String>>(6)?,
                    row.get::<_, u32>(7)?,
                    (
                        row.get::<_, String>(8)?,
                        row.get::<_, String>(9)?,
                        row.get::<_, Option<String>>(10)?,
                        row.get::<_, String>(11)?,
                    ),
                    (
                        row.get::<_, Option<i64>>(12)?,
                        row.get::<_, Option<i64>>(13)?,
                        row.get::<_, Option<i64>>(14)?,
                    ),
                    row.get::<_, bool>(15)?,
                    (row.get::<_, Option<String>>(16)?, row.get::<_, String>(17)?),
                ))
            },
        )
        .optional()?;
    let Some((
        id,
        title,
        description,
        status,
        planned_respondents,
        requires_invitation,
        delete_after,
        min_cell,
        (researcher, contact, consent, language),
        (target_responses, closes_at, unblinded_at),
        results_after_close,
        (completion_url, embed_origins),
    )) = found
    else {
        return Ok(None);
    };
    let stopping_rule =
        StoppingRule::from_stored(target_responses.map(count_from_sql).transpose()?, closes_at);
    let unblinded_at = unblinded_at.map(count_from_sql).transpose()?;
    let intro = SurveyIntro::from_stored(researcher, &contact, consent, &language)?;
    let completion_url = CompletionUrl::from_stored(completion_url)?;
    let embed_origins = EmbedOrigins::from_stored(&embed_origins)?;
    let delete_after = delete_after
        .as_deref()
        .map(RetentionDate::parse)
        .transpose()
        .map_err(|_| AppError::internal("a stored retention date is malformed"))?;
    let min_cell = MinCell::from_stored(min_cell);
    let planned_respondents = count_from_sql(planned_respondents)?;
    let statement = connection.prepare(
        "SELECT id, position, text, epsilon, design FROM questions
         WHERE survey_id = ?1 ORDER BY position",
    )?;
    let rows = statement
        .query_map([id], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, u32>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, f64>(3)?,
                row.get::<_, Option<String>>(4)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let (mut questions, mut groupings) = (Vec::new(), Vec::new());
    for (id, position, text, epsilon, design) in rows {
        let id = QuestionId::from_stored(id);
        match stored_grouping(design.as_deref())? {
            Some(options) => groupings.push(GroupingQuestion {
                id,
                position,
                text,
                options,
            }),
            None => questions.push(Question {
                id,
                position,
                text,
                design: QuestionDesign::from_stored(design.as_deref(), epsilon)?,
            }),
        }
    }
    Ok(Some(Survey {
        id: SurveyId::from_stored(id),
        slug: slug.clone(),
        title,
        description,
        status: SurveyStatus::from_stored(&status)?,
        planned_respondents,
        requires_invitation,
        delete_after,
        min_cell,
        results_after_close,
        stopping_rule,
        completion_url,
        embed_origins,
        unblinded_at,
        intro,
        questions,
        groupings,
    }))
}

/// Unblinds an open survey fixed in advance before its rule closes it, recording for good
/// how many responses it had: its anytime interval becomes primary for good. Returns that
/// count (again, unchanged, when it was unblinded before). 404 when not owned; 409
/// `not_blinded` for a survey watched live or already closed, `not_open` for a draft.
pub fn unblind(connection: &Conn, slug: &Slug, owner: ResearcherId) -> Result<u64, AppError> {
    let survey = find_owned_survey(connection, slug, owner)?.ok_or(AppError::NotFound("survey"))?;
    if let Some(responses) = survey.unblinded_at {
        return Ok(responses);
    }
    if !survey.stopping_rule.is_fixed() {
        return Err(Refusal::NothingBlinded.into());
    }
    match survey.status {
        SurveyStatus::Draft => return Err(Refusal::UnblindDraft.into()),
        SurveyStatus::Closed => return Err(Refusal::UnblindClosed.into()),
        SurveyStatus::Open => {}
    }
    // What its owner could see: for a survey that requires invitations, the count as of the
    // last consideration (docs/design.md, invariant 11), not the one since.
    let responses: i64 = connection.query_row(
        "SELECT CASE WHEN requires_invitation = 1 THEN considered_responses
                ELSE (SELECT count(*) FROM all_responses WHERE survey_id = ?1) END
         FROM surveys WHERE id = ?1",
        [survey.id.get()],
        |row| row.get(0),
    )?;
    connection.execute(
        "UPDATE surveys SET unblinded_at_responses = ?2 WHERE id = ?1",
        params![survey.id.get(), responses],
    )?;
    count_from_sql(responses)
}

/// A draft's stopping rule (the builder): none, a target, a closing time, or both.
pub fn update_stopping_rule(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    rule: StoppingRule,
) -> Result<(), AppError> {
    let survey_id = owned_draft(connection, slug, owner)?;
    connection.execute(
        "UPDATE surveys SET target_responses = ?2, closes_at = ?3 WHERE id = ?1",
        params![
            survey_id.get(),
            rule.target_responses().map(count_to_sql).transpose()?,
            rule.closes_at().map(ClosingTime::unix)
        ],
    )?;
    Ok(())
}

/// The earliest closing time of an open survey, if any (when the writer must wake next).
pub fn next_closing_time(connection: &Conn) -> Result<Option<ClosingTime>, AppError> {
    let next: Option<i64> = connection
        .prepare_cached(
            "SELECT min(closes_at) FROM surveys WHERE status = 'open' AND closes_at IS NOT NULL",
        )?
        .query_row((), |row| row.get(0))?;
    Ok(next.map(ClosingTime::from_unix))
}

// --- the researcher's workspace: surveys --------------------------------------------------

/// One line of the surveys list.
pub struct SurveySummary {
    pub slug: Slug,
    pub title: String,
    pub status: SurveyStatus,
    /// Responses stored; for an open survey that requires invitations, as of its last
    /// consideration of releases (docs/design.md, invariant 11).
    pub responses: u64,
}

pub fn list_owned_surveys(
    connection: &Conn,
    owner: ResearcherId,
) -> Result<Vec<SurveySummary>, AppError> {
    let statement = connection.prepare(
        "SELECT slug, title, status,
                CASE WHEN requires_invitation = 1 AND status = 'open' THEN considered_responses
                ELSE (SELECT count(*) FROM all_responses
                      WHERE all_responses.survey_id = surveys.id)
                END
         FROM surveys WHERE owner_id = ?1 ORDER BY id DESC",
    )?;
    let surveys = statement
        .query_map([owner.get()], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, i64>(3)?,
            ))
        })?
        .map(|row| {
            let (slug, title, status, responses) = row?;
            Ok(SurveySummary {
                slug: Slug::parse(&slug)
                    .map_err(|_| AppError::internal(format!("stored slug {slug:?}")))?,
                title,
                status: SurveyStatus::from_stored(&status)?,
                responses: count_from_sql(responses)?,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    Ok(surveys)
}

/// The id of an owned draft: 404 when not owned, 409 when no longer a draft.
fn owned_draft(connection: &Conn, slug: &Slug, owner: ResearcherId) -> Result<SurveyId, AppError> {
    let found = connection
        .query_row(
            "SELECT id, status FROM surveys WHERE slug = ?1 AND owner_id = ?2",
            params![slug.as_str(), owner.get()],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
        )
        .optional()?
        .ok_or(AppError::NotFound("survey"))?;
    let (id, status) = found;
    if SurveyStatus::from_stored(&status)? != SurveyStatus::Draft {
        return Err(Refusal::NotADraft { status }.into());
    }
    Ok(SurveyId::from_stored(id))
}

/// A draft's title, description, planned respondents, whether responses need an
/// invitation and whether its results wait for its close. Turning invitations on turns
/// `results_after_close` on with them (its default for a survey that requires invitations).
pub fn update_survey_details(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    details: &SurveyDetails,
    requires_invitation: bool,
    results_after_close: bool,
) -> Result<(), AppError> {
    let survey_id = owned_draft(connection, slug, owner)?;
    let required_before: bool = connection.query_row(
        "SELECT requires_invitation FROM surveys WHERE id = ?1",
        [survey_id.get()],
        |row| row.get(0),
    )?;
    let results_after_close = results_after_close || (requires_invitation && !required_before);
    connection.execute(
        "UPDATE surveys SET title = ?2, description = ?3, planned_respondents = ?4,
                            requires_invitation = ?6, results_after_close = ?7
         WHERE id = ?1 AND owner_id = ?5",
        params![
            survey_id.get(),
            details.title(),
            details.description(),
            count_to_sql(details.planned_respondents())?,
            owner.get(),
            requires_invitation,
            results_after_close
        ],
    )?;
    // Enabling invitations draws the survey's key pair (kept if they are disabled again,
    // so that links already made stay right should they be enabled once more).
    if requires_invitation {
        super::redemptions::ensure_key(connection, survey_id)?;
    }
    Ok(())
}

/// A draft's researcher, contact, consent text and language (what respondents are told
/// before the questions). Like the questions, they are fixed once the survey opens: a
/// respondent agrees to the consent text the survey had when they answered.
pub fn update_survey_intro(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    intro: &SurveyIntro,
) -> Result<(), AppError> {
    let survey_id = owned_draft(connection, slug, owner)?;
    connection.execute(
        "UPDATE surveys SET researcher = ?2, contact = ?3, consent = ?4, language = ?5
         WHERE id = ?1",
        params![
            survey_id.get(),
            intro.researcher(),
            intro.contact_text(),
            intro.consent(),
            intro.language().as_str(),
        ],
    )?;
    Ok(())
}

/// A draft's completion link and the sites that may frame its form: part of what
/// respondents answer, so frozen once the survey opens (a trigger refuses later changes).
pub fn update_survey_study_links(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    completion_url: Option<&CompletionUrl>,
    embed_origins: &EmbedOrigins,
) -> Result<(), AppError> {
    let survey_id = owned_draft(connection, slug, owner)?;
    connection.execute(
        "UPDATE surveys SET completion_url = ?2, embed_origins = ?3 WHERE id = ?1",
        params![
            survey_id.get(),
            completion_url.map(CompletionUrl::as_str),
            embed_origins.to_stored(),
        ],
    )?;
    Ok(())
}

pub fn add_question(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    question: &DefinedQuestion,
) -> Result<(), AppError> {
    let survey_id = owned_draft(connection, slug, owner)?;
    let count: i64 = connection.query_row(
        "SELECT count(*) FROM questions WHERE survey_id = ?1",
        [survey_id.get()],
        |row| row.get(0),
    )?;
    if count_from_sql(count)? >= crate::domain::MAX_QUESTIONS as u64 {
        return Err(Refusal::TooManyQuestions.into());
    }
    let (text, epsilon, design) = stored_question(question);
    connection.execute(
        "INSERT INTO questions (survey_id, position, text, epsilon, design)
         VALUES (?1, (SELECT coalesce(max(position) + 1, 0) FROM questions WHERE survey_id = ?1),
                 ?2, ?3, ?4)",
        params![survey_id.get(), text, epsilon, design],
    )?;
    Ok(())
}

/// A draft keeps at least one randomized question (grouping questions only describe the
/// respondents); checked after a change, whose transaction it then rolls back.
fn keep_a_randomized_question(connection: &Conn, survey_id: SurveyId) -> Result<(), AppError> {
    let randomized: i64 = connection.query_row(
        "SELECT count(*) FROM questions
         WHERE survey_id = ?1 AND coalesce(design ->> 'type', 'yes_no') <> ?2",
        params![survey_id.get(), GROUPING_TYPE],
        |row| row.get(0),
    )?;
    if randomized == 0 {
        return Err(Refusal::LastRandomizedQuestion.into());
    }
    Ok(())
}

/// The position of a question of an owned draft; 404 when it is not one.
fn draft_question_position(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    question: QuestionId,
) -> Result<(SurveyId, i64), AppError> {
    let survey_id = owned_draft(connection, slug, owner)?;
    let position = connection
        .query_row(
            "SELECT position FROM questions WHERE id = ?1 AND survey_id = ?2",
            params![question.get(), survey_id.get()],
            |row| row.get(0),
        )
        .optional()?
        .ok_or(AppError::NotFound("question"))?;
    Ok((survey_id, position))
}

pub fn update_question(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    question: QuestionId,
    definition: &DefinedQuestion,
) -> Result<(), AppError> {
    let (survey_id, _) = draft_question_position(connection, slug, owner, question)?;
    let (text, epsilon, design) = stored_question(definition);
    connection.execute(
        "UPDATE questions SET text = ?3, epsilon = ?4, design = ?5
         WHERE id = ?1 AND survey_id = ?2",
        params![question.get(), survey_id.get(), text, epsilon, design],
    )?;
    keep_a_randomized_question(connection, survey_id)
}

/// Swaps a question with its neighbour above (`up`) or below; at either end, nothing moves.
pub fn move_question(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    question: QuestionId,
    up: bool,
) -> Result<(), AppError> {
    let (survey_id, position) = draft_question_position(connection, slug, owner, question)?;
    let neighbour: Option<(i64, i64)> = connection
        .query_row(
            if up {
                "SELECT id, position FROM questions WHERE survey_id = ?1 AND position < ?2
                 ORDER BY position DESC LIMIT 1"
            } else {
                "SELECT id, position FROM questions WHERE survey_id = ?1 AND position > ?2
                 ORDER BY position LIMIT 1"
            },
            params![survey_id.get(), position],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let Some((neighbour_id, neighbour_position)) = neighbour else {
        return Ok(());
    };
    // UNIQUE (survey_id, position): park one question at -1 while the other moves.
    let set_position = connection.prepare("UPDATE questions SET position = ?2 WHERE id = ?1")?;
    set_position.execute(params![question.get(), -1])?;
    set_position.execute(params![neighbour_id, position])?;
    set_position.execute(params![question.get(), neighbour_position])?;
    Ok(())
}

pub fn delete_question(
    connection: &Conn,
    slug: &Slug,
    owner: ResearcherId,
    question: QuestionId,
) -> Result<(), AppError> {
    let (survey_id, position) = draft_question_position(connection, slug, owner, question)?;
    let count: i64 = connection.query_row(
        "SELECT count(*) FROM questions WHERE survey_id = ?1",
        [survey_id.get()],
        |row| row.get(0),
    )?;
    if count <= 1 {
        return Err(Refusal::LastQuestion.into());
    }
    connection.execute(
        "DELETE FROM questions WHERE id = ?1 AND survey_id = ?2",
        params![question.get(), survey_id.get()],
    )?;
    keep_a_randomized_question(connection, survey_id)?;
    // Close the gap in two steps, so UNIQUE (survey_id, position) holds after each row.
    connection.execute(
        "UPDATE questions SET position = -position WHERE survey_id = ?1 AND position > ?2",
        params![survey_id.get(), position],
    )?;
    connection.execute(
        "UPDATE questions SET position = -position - 1 WHERE survey_id = ?1 AND position < 0",
        [survey_id.get()],
    )?;
    Ok(())
}

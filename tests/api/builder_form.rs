//! The builder's one form (issue 19): details, what respondents are told first (researcher,
//! contact, consent, language) and every question saved by one POST; a refusal shows the
//! page again, 400, with everything as typed and nothing saved; adding, moving and deleting
//! a question are buttons of the same form, so they keep the edits typed elsewhere.

use crate::common::spawn_app;
use crate::workspace::{question_ids, signed_in, Browser};

/// The builder's form as the page sends it: the details, the introduction and the
/// questions by index (`q0-id`, `q0-text`, `q0-epsilon`), plus `extra` fields.
fn draft_form(
    ids: &[i64],
    texts: &[&str],
    epsilons: &[&str],
    extra: &[(&str, &str)],
) -> Vec<(String, String)> {
    let mut form: Vec<(String, String)> = [
        ("title", "Campus habits"),
        ("description", "For tests."),
        ("planned_respondents", "500"),
        ("target_responses", ""),
        ("closes_at", ""),
        ("researcher", "Dr. Ada Lovelace, Psychology"),
        ("contact", "ethics@uni.example"),
        ("consent", "You may stop at any time."),
        ("language", "de"),
    ]
    .iter()
    .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
    .collect();
    for (index, id) in ids.iter().enumerate() {
        form.push((format!("q{index}-id"), id.to_string()));
        form.push((format!("q{index}-text"), texts[index].to_owned()));
        form.push((format!("q{index}-type"), "yes_no".to_owned()));
        form.push((format!("q{index}-design"), "mirrored".to_owned()));
        form.push((format!("q{index}-epsilon"), epsilons[index].to_owned()));
    }
    for (name, value) in extra {
        // A later field of the same name replaces an earlier one.
        form.retain(|(existing, _)| existing != name);
        form.push(((*name).to_owned(), (*value).to_owned()));
    }
    form
}

async fn post_draft(
    browser: &mut Browser,
    slug: &str,
    form: &[(String, String)],
) -> reqwest::Response {
    let csrf = browser.csrf().await;
    let mut fields: Vec<(&str, &str)> = vec![("csrf", csrf.as_str())];
    fields.extend(
        form.iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
    );
    browser
        .post_form(&format!("/surveys/{slug}/edit"), &fields)
        .await
}

/// A draft with two yes/no questions, made through the builder; its slug and ids.
async fn two_question_draft(
    researcher: &mut Browser,
    app: &crate::common::TestApp,
) -> (String, Vec<i64>) {
    let slug = researcher.create_draft("Campus habits", "First?").await;
    let ids = question_ids(app, &slug).await;
    let form = draft_form(
        &ids,
        &["First?"],
        &["1"],
        &[
            ("new-text", "Second?"),
            ("new-epsilon", "1"),
            ("action", "add"),
        ],
    );
    let added = post_draft(researcher, &slug, &form).await;
    assert_eq!(added.status(), 303);
    let ids = question_ids(app, &slug).await;
    assert_eq!(ids.len(), 2);
    (slug, ids)
}

#[tokio::test]
async fn one_post_saves_edits_to_two_questions_and_the_introduction() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut researcher, &app).await;

    let form = draft_form(
        &ids,
        &["First, edited?", "Second, edited?"],
        &["2", "0.5"],
        &[("action", "save")],
    );
    let saved = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(saved.status(), 303);
    assert_eq!(
        saved.headers()["location"],
        format!("/surveys/{slug}/edit").as_str()
    );

    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(
        builder.contains(">First, edited?</textarea>"),
        "question 1 kept"
    );
    assert!(
        builder.contains(">Second, edited?</textarea>"),
        "question 2 kept"
    );
    assert!(builder.contains(">2.50</output>"), "total ε = 2 + 0.5");
    assert!(builder.contains("value=\"Dr. Ada Lovelace, Psychology\""));
    assert!(builder.contains("value=\"ethics@uni.example\""));
    assert!(builder.contains(">You may stop at any time.</textarea>"));
    assert!(builder.contains("<option value=\"de\" selected>Deutsch</option>"));
    assert!(builder.contains("value=\"500\""), "planned respondents");
    // One form: one Save for everything, and no per-question save.
    assert_eq!(
        builder.matches("action=\"/surveys/").count(),
        2,
        "the draft's form and the deletion's"
    );
    assert!(!builder.contains("Save question"));

    // The form respondents will see says who runs it, in German, with the consent.
    let preview = researcher
        .get_html(&format!("/surveys/{slug}/preview"))
        .await;
    assert!(preview.contains("<html lang=\"de\">"));
    assert!(preview.contains("Dr. Ada Lovelace, Psychology"));
    assert!(preview.contains("mailto:ethics@uni.example"));
    assert!(preview.contains("You may stop at any time."));
}

#[tokio::test]
async fn an_invalid_contact_or_language_is_refused_with_everything_typed_kept_and_nothing_saved() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut researcher, &app).await;

    let form = draft_form(
        &ids,
        &["First, edited?", "Second, edited?"],
        &["2", "0.5"],
        &[("contact", "call me maybe"), ("title", "Typed title")],
    );
    let refused = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    assert!(
        page.contains("id=\"error-intro\""),
        "the reason beside the introduction"
    );
    assert!(page.contains("<details class=\"card\" id=\"intro\" open>"));
    assert!(
        page.contains("value=\"call me maybe\""),
        "the contact as typed"
    );
    assert!(page.contains("value=\"Typed title\""));
    assert!(
        page.contains(">First, edited?</textarea>") && page.contains(">Second, edited?</textarea>")
    );
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains(">First?</textarea>"), "nothing saved");
    assert!(!builder.contains("Typed title"));

    let form = draft_form(
        &ids,
        &["First?", "Second?"],
        &["1", "1"],
        &[("language", "xx")],
    );
    let refused = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    assert!(page.contains("id=\"error-intro\""));
    assert!(page.contains("language"), "{page}");

    // A refused question shows its reason beside it, and keeps the other's edit.
    let form = draft_form(&ids, &["First, kept?", "Second?"], &["1", "50"], &[]);
    let refused = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    assert!(page.contains("-epsilon-error\">Privacy level ε must be between"));
    assert!(page.contains(">First, kept?</textarea>"));
}

/// The page's text between the ε input of the question at `index` in the form (its inputs
/// are `q{index}-…`) and the next input.
fn beside_epsilon_of(page: &str, index: usize) -> &str {
    let input = format!("id=\"q{index}-epsilon\"");
    let start = page.find(&input).expect("the question's ε input");
    let rest = &page[start..];
    let end = rest[input.len()..]
        .find("<input")
        .map_or(rest.len(), |i| i + input.len());
    &rest[..end]
}

#[tokio::test]
async fn a_refused_epsilon_is_one_plain_sentence_beside_its_field_in_the_researchers_language() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut researcher, &app).await;
    let form = draft_form(&ids, &["First?", "Second?"], &["1", "50"], &[]);
    for (language, sentence) in [
        (
            "en-GB,en;q=0.8",
            "Privacy level ε must be between 0.01 and 20; you entered 50.",
        ),
        (
            "de-DE,de;q=0.9",
            "Die Privatsphäre-Stufe ε muss zwischen 0,01 und 20 liegen; Sie haben 50 eingegeben.",
        ),
    ] {
        let csrf = researcher.csrf().await;
        let mut fields: Vec<(&str, &str)> = vec![("csrf", csrf.as_str())];
        fields.extend(form.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        let request = researcher
            .request("POST", &format!("/surveys/{slug}/edit"))
            .header("Accept-Language", language)
            .form(&fields);
        let refused = researcher.send(request).await;
        assert_eq!(refused.status(), 400);
        let page = refused.text().await.unwrap();
        assert_eq!(page.matches(sentence).count(), 1, "{language}: {page}");
        assert!(
            beside_epsilon_of(&page, 1).contains(sentence),
            "{language}: under the ε input"
        );
        assert!(
            !page.contains("epsilon must be"),
            "{language}: no field path"
        );
        assert!(page.contains("aria-invalid=\"true\""), "{language}");
    }
}

#[tokio::test]
async fn a_question_text_too_long_says_so_under_the_text() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut researcher, &app).await;
    let long = "x".repeat(1001);
    let form = draft_form(&ids, &["First?", &long], &["1", "1"], &[]);
    let refused = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(refused.status(), 400);
    let page = refused.text().await.unwrap();
    let sentence = "The text of the question must have between 1 and 1000 characters; it has 1001.";
    assert_eq!(page.matches(sentence).count(), 1, "{page}");
    assert!(!page.contains(".text must have"), "{page}");
}

#[tokio::test]
async fn add_move_and_delete_are_buttons_of_the_same_form_and_keep_unsaved_edits() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut researcher, &app).await;

    // Move question 2 up while question 1's text was edited: both happen.
    let up = format!("up-{}", ids[1]);
    let form = draft_form(
        &ids,
        &["First, edited?", "Second?"],
        &["1", "1"],
        &[("action", &up)],
    );
    let moved = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(moved.status(), 303);
    assert_eq!(question_ids(&app, &slug).await, [ids[1], ids[0]]);
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains(">First, edited?</textarea>"));

    // Delete one while the other is edited: the edit stays.
    let order = [ids[1], ids[0]];
    let delete = format!("delete-{}", ids[0]);
    let form = draft_form(
        &order,
        &["Second, edited?", "ignored, it goes"],
        &["1", "1"],
        &[("action", &delete)],
    );
    let deleted = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(deleted.status(), 303);
    assert_eq!(question_ids(&app, &slug).await, [ids[1]]);
    let builder = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(builder.contains(">Second, edited?</textarea>"));

    // A question typed into the add form and then "Save" is added, not lost.
    let form = draft_form(
        &[ids[1]],
        &["Second, edited?"],
        &["1"],
        &[("new-text", "Third?"), ("new-epsilon", "1")],
    );
    assert_eq!(
        post_draft(&mut researcher, &slug, &form).await.status(),
        303
    );
    assert_eq!(question_ids(&app, &slug).await.len(), 2);

    // An unknown action is a 400, not a save.
    let form = draft_form(
        &[ids[1]],
        &["Changed?"],
        &["1"],
        &[("action", "sideways-1")],
    );
    assert_eq!(
        post_draft(&mut researcher, &slug, &form).await.status(),
        400
    );
}

#[tokio::test]
async fn the_one_form_needs_the_session_token_and_the_owner() {
    let app = spawn_app().await;
    let mut owner = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut owner, &app).await;
    let form = draft_form(&ids, &["Hijacked?", "Hijacked?"], &["1", "1"], &[]);

    let fields: Vec<(&str, &str)> = form.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let without_token = owner
        .post_form(&format!("/surveys/{slug}/edit"), &fields)
        .await;
    assert_eq!(without_token.status(), 403);

    let mut other = signed_in(&app, "other@example.org").await;
    let foreign = post_draft(&mut other, &slug, &form).await;
    assert_eq!(foreign.status(), 404);
    let builder = owner.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(!builder.contains("Hijacked?"));
}

#[tokio::test]
async fn an_open_survey_shows_its_introduction_read_only() {
    let app = spawn_app().await;
    let mut researcher = signed_in(&app, "owner@example.org").await;
    let (slug, ids) = two_question_draft(&mut researcher, &app).await;
    let form = draft_form(&ids, &["First?", "Second?"], &["1", "1"], &[]);
    assert_eq!(
        post_draft(&mut researcher, &slug, &form).await.status(),
        303
    );
    let opened = researcher
        .post_with_csrf(&format!("/surveys/{slug}/open"), &[])
        .await;
    assert_eq!(opened.status(), 303);

    let page = researcher.get_html(&format!("/surveys/{slug}/edit")).await;
    assert!(page.contains("<dd>Dr. Ada Lovelace, Psychology</dd>"));
    assert!(page.contains("<dd>ethics@uni.example</dd>"));
    assert!(page.contains("<dd>Deutsch</dd>"));
    assert!(!page.contains("name=\"contact\""), "no longer editable");
    // And saving the form now is refused: the introduction is frozen with the questions.
    let refused = post_draft(&mut researcher, &slug, &form).await;
    assert_eq!(refused.status(), 409);
}

//! What the columns of the file can hold (docs/design.md, invariant 3).

use crate::common::spawn_app;
use crate::privacy::column_names;
#[tokio::test]
async fn a_stored_response_is_only_its_survey_its_hashed_id_and_per_question_epsilon_and_report() {
    let app = spawn_app().await;
    let connection = app.inspect();
    // The record id (a hash of the response id) and the reports: per question its id,
    // ε and report, packed in one value (migrations/sqlite/0002_privacy_at_rest.sql).
    assert_eq!(
        column_names(&connection, "stored_responses"),
        ["survey_id", "record_id", "reports"]
    );
    assert_eq!(
        column_names(&connection, "arriving_responses"),
        ["survey_id", "record_id", "reports"],
        "the responses since the last epoch wait in a table of the same shape"
    );
    assert_eq!(
        column_names(&connection, "withdrawn_responses"),
        ["survey_id", "tag"]
    );
    let tables: Vec<String> = connection
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let telling = [
        "ip",
        "addr",
        "address",
        "agent",
        "time",
        "timestamp",
        "date",
        "created",
        "seq",
        "cookie",
    ];
    for table in &tables {
        for column in column_names(&connection, table) {
            assert!(
                !column.split('_').any(|word| telling.contains(&word)),
                "{table}.{column} could identify a respondent or the arrival order"
            );
        }
    }
    // Storage order is the hash order, not the arrival order: no rowid to sort by.
    let without_rowid: i64 = connection
        .query_row(
            "SELECT count(*) FROM sqlite_schema
             WHERE name IN ('stored_responses', 'arriving_responses', 'withdrawn_responses',
                            'invitations')
             AND sql LIKE '%WITHOUT ROWID%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(without_rowid, 4);
}

#[tokio::test]
async fn no_column_joins_an_invitation_or_a_redemption_to_a_response() {
    let app = spawn_app().await;
    let connection = app.inspect();
    let columns = |table: &str| -> Vec<String> {
        connection
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(columns("invitations"), ["code_hash", "survey_id"]);
    assert_eq!(
        columns("redemptions"),
        ["survey_id", "code_hash", "blinded", "evaluation", "proof"]
    );
    assert_eq!(columns("spent_tokens"), ["survey_id", "input_hash"]);
    for table in ["stored_responses", "arriving_responses", "report_counts"] {
        assert!(
            columns(table)
                .iter()
                .all(|c| !c.contains("invitation") && !c.contains("token")),
            "{table}: {:?}",
            columns(table)
        );
    }
    for table in [
        "invitations",
        "redemptions",
        "spent_tokens",
        "invitation_keys",
    ] {
        let foreign_keys: i64 = connection
            .query_row(
                &format!(
                    "SELECT count(*) FROM pragma_foreign_key_list('{table}') \
                     WHERE \"table\" != 'surveys'"
                ),
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(foreign_keys, 0, "{table} refers to its survey only");
    }
}

/// Where each released response's release is kept (issue 41): in the clear, as docs/design.md
/// amends invariant 8 — which responses entered the figures in the same step, under a random
/// id per release, in record-id order; no order of arrival within a release or across them.
#[tokio::test]
async fn a_copy_of_the_files_shows_each_release_by_a_random_id_in_key_order_and_nothing_finer() {
    let app = spawn_app().await;
    let token = app.researcher_with_token("owner@example.org").await;
    let slug = app
        .open_definition(
            &token,
            &serde_json::json!({"title": "Batches", "min_cell": 5, "results_after_close": false,
                                "questions": [{"text": "Have you?", "epsilon": 1.0}]}),
        )
        .await;
    let question = app.results(&token, &slug).await["questions"][0]["id"]
        .as_i64()
        .unwrap()
        .to_string();
    // Two releases: ten at the consideration at 10, ten more at 20.
    for i in 0..20 {
        app.submit_ok(&slug, serde_json::json!({ &question: i % 2 }))
            .await;
    }
    app.db.compact().await.unwrap();
    let connection = app.inspect();
    assert_eq!(
        column_names(&connection, "release_members"),
        ["survey_id", "record_id", "release_id"]
    );
    assert_eq!(
        column_names(&connection, "cell_releases"),
        [
            "survey_id",
            "release_id",
            "cell",
            "members",
            "remaining",
            "withheld"
        ]
    );
    let releases: Vec<(i64, i64)> = connection
        .prepare("SELECT release_id, members FROM cell_releases")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(releases.len(), 2, "{releases:?}");
    assert!(releases.iter().all(|(_, members)| *members == 10));
    // Random ids: neither a counter nor a time (a counter would order the releases).
    assert!(
        releases.iter().all(|(id, _)| id.unsigned_abs() > 1 << 32),
        "{releases:?}"
    );
    // Members in the order of their record ids, the table's key (no rowid to sort by).
    let without_rowid: i64 = connection
        .query_row(
            "SELECT count(*) FROM sqlite_schema
             WHERE name IN ('release_members', 'cell_releases') AND sql LIKE '%WITHOUT ROWID%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(without_rowid, 2);
    let members: Vec<Vec<u8>> = connection
        .prepare("SELECT record_id FROM release_members")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(members.len(), 20);
    assert!(members.windows(2).all(|pair| pair[0] < pair[1]));
}

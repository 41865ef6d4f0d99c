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

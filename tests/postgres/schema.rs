//! The PostgreSQL schema distributes by survey on Citus (docs/operators.md, "PostgreSQL"): every
//! primary and unique key of a respondent table includes `survey_id`. Read from the
//! catalog of a database this binary migrated; run in the PostgreSQL pass of scripts/test.

use deniable::db::DbLocation;

/// The per-survey tables that Citus distributes by `survey_id` (docs/operators.md's commands).
pub const DISTRIBUTED: [&str; 13] = [
    "stored_responses",
    "cell_releases",
    "release_members",
    "released_pairs",
    "considered_pairs",
    "unreleased_responses",
    "released_cells",
    "considered_cells",
    "withdrawn_responses",
    "invitations",
    "invitation_keys",
    "redemptions",
    "spent_tokens",
];

/// Tables that have a `survey_id` column but stay on the coordinator: keyed by question
/// id, or the surveys' own children with their own id (docs/operators.md, "PostgreSQL").
pub const ON_THE_COORDINATOR: [&str; 1] = ["questions"];

/// Every unique index (primary keys included) of the tables in the current schema: table,
/// index and its columns.
pub fn unique_keys(client: &mut postgres::Client) -> Vec<(String, String, Vec<String>)> {
    client
        .query(
            "SELECT t.relname::text, i.relname::text,
                    array_agg(a.attname::text ORDER BY k.ordinality)
             FROM pg_index x
             JOIN pg_class t ON t.oid = x.indrelid
             JOIN pg_class i ON i.oid = x.indexrelid
             JOIN pg_namespace n ON n.oid = t.relnamespace
             CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ordinality)
             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
             WHERE x.indisunique AND n.nspname = current_schema()
             GROUP BY t.relname, i.relname",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect()
}

/// The tables of the current schema with a `survey_id` column (views, such as
/// `all_responses`, read the distributed tables and are not distributed themselves).
pub fn tables_with_survey_id(client: &mut postgres::Client) -> Vec<String> {
    client
        .query(
            "SELECT c.table_name::text FROM information_schema.columns AS c
             JOIN information_schema.tables AS t
               ON t.table_schema = c.table_schema AND t.table_name = c.table_name
             WHERE c.table_schema = current_schema() AND c.column_name = 'survey_id'
               AND t.table_type = 'BASE TABLE'
             ORDER BY c.table_name",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

pub fn check(url: String) {
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut per_survey = tables_with_survey_id(&mut client);
        per_survey.retain(|table| !ON_THE_COORDINATOR.contains(&table.as_str()));
        let mut distributed = DISTRIBUTED.to_vec();
        distributed.sort_unstable();
        assert_eq!(
            per_survey, distributed,
            "every table with a survey_id is distributed, or listed as on the coordinator"
        );
        let keys = unique_keys(&mut client);
        for table in DISTRIBUTED {
            let of_table: Vec<_> = keys.iter().filter(|(t, _, _)| t == table).collect();
            assert!(!of_table.is_empty(), "{table} has a primary key");
            for (_, index, columns) in of_table {
                assert!(
                    columns.iter().any(|column| column == "survey_id"),
                    "{table}'s unique key {index} ({columns:?}) includes survey_id"
                );
            }
        }
    })
    .join()
    .unwrap();
}

#[tokio::test]
async fn every_unique_key_of_a_distributed_table_includes_survey_id() {
    let app = crate::common::spawn_app().await;
    let DbLocation::Postgres(url) = app.db_location.clone() else {
        panic!("the PostgreSQL pass of scripts/test runs this test");
    };
    check(url);
}

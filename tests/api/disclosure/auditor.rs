//! The auditor: it knows every response it sent (its cell, its reports), reads every figure
//! of the owner's views after every event, and fails on any figure it cannot match to a
//! set of responses whose sums it verifies; it then partitions the responses ever released
//! by their membership across every set matched so far and requires each class to hold at
//! least k (docs/design.md, invariant 11). It knows no attack: a figure computed from
//! anything but whole released cells either matches no set, or matches one that splits a
//! class below k.
//!
//! Matching: for a view, each candidate set S (the responses released now, those released
//! at any read since the last consideration, every response stored now) is turned into the
//! view the library would compute from S's reports alone (`results::compute_released`,
//! `breakdown::compute`, `joint::compute`), and the whole JSON must be equal; an export is
//! its own set. A withdrawn response belongs only to the sets whose views included it, so
//! "alike" includes "left the figures at the same step"; every class holding a response that
//! has not withdrawn must hold k (withdrawn members count), and classes of withdrawn
//! responses only are exempt (the documented exception).

use std::collections::{BTreeMap, BTreeSet};

use deniable::db::counts::QuestionCounts;
use deniable::db::released::Released;
use deniable::db::releases::{PairTables, ReleasedCell};
use deniable::domain::{QuestionId, Survey};
use deniable::results::{Asked, ReleaseSummary};
use randomized_response::Confidence;
use serde_json::Value;

/// One response as the auditor knows it: it sent it.
#[derive(Debug, Clone)]
pub struct Known {
    pub record_id: String,
    pub receipt: String,
    /// One byte per grouping question, in position order.
    pub cell: Vec<u8>,
    /// (question id, report), in question order.
    pub reports: Vec<(i64, u8)>,
    /// Acknowledged and not withdrawn.
    pub stored: bool,
    pub withdrawn: bool,
    /// In the responses released at some read while it was stored.
    pub ever_released: bool,
}

/// Which responses a set's figures describe: all of its responses, or those whose answer
/// to one grouping question (by its byte in the cell) is one option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    All,
    Answer { byte: usize, option: u8 },
}

impl Condition {
    fn holds(self, response: &Known) -> bool {
        match self {
            Self::All => true,
            Self::Answer { byte, option } => response.cell.get(byte) == Some(&option),
        }
    }
}

pub type Set = BTreeSet<usize>;

/// A cell's responses and, per question id, its count of each report.
type CellTally = (u64, BTreeMap<i64, Vec<u64>>);

#[derive(Default)]
pub struct Auditor {
    pub k: usize,
    pub responses: Vec<Known>,
    /// Every set matched so far, as the partition counts it.
    sets: Vec<Set>,
    /// The responses released at each read since the last consideration (what a server that
    /// keeps its snapshot in memory may show).
    since_consideration: Vec<Set>,
    /// The responses released at the first read after the last consideration, which follows
    /// it at once (what PostgreSQL's stored snapshot shows, restarts or not).
    at_consideration: Set,
    considered_at: Option<u64>,
    /// The smallest class seen, for the report.
    pub smallest_class: Option<usize>,
}

impl Auditor {
    pub fn new(k: usize) -> Self {
        Self {
            k,
            ..Self::default()
        }
    }

    pub fn index_of(&self, record_id: &str) -> Option<usize> {
        self.responses.iter().position(|r| r.record_id == record_id)
    }

    pub fn stored(&self) -> Set {
        (0..self.responses.len())
            .filter(|&i| self.responses[i].stored)
            .collect()
    }

    /// A new read begins: `in_figures` are the record ids the storage holds in the figures
    /// now, `considered_at` the results' counter. Returns the released set now.
    pub fn begin_read(&mut self, in_figures: &BTreeSet<String>, considered_at: u64) -> Set {
        let released: Set = self
            .stored()
            .into_iter()
            .filter(|&i| in_figures.contains(&self.responses[i].record_id))
            .collect();
        for &i in &released {
            self.responses[i].ever_released = true;
        }
        if self.considered_at != Some(considered_at) {
            self.at_consideration = released.clone();
            self.since_consideration.clear();
            self.considered_at = Some(considered_at);
        }
        if !self.since_consideration.contains(&released) {
            self.since_consideration.push(released.clone());
        }
        released
    }

    /// A restart: what an earlier process kept in memory is no longer a candidate.
    pub fn restarted(&mut self) {
        self.since_consideration.clear();
    }

    /// The candidate sets of a read, best first, named for the failure message.
    fn candidates(&self, released: &Set) -> Vec<(&'static str, Set)> {
        let mut candidates = vec![
            ("released now", released.clone()),
            (
                "released at the last consideration",
                self.at_consideration.clone(),
            ),
        ];
        for earlier in self.since_consideration.iter().rev() {
            candidates.push((
                "released at a read since the last consideration",
                earlier.clone(),
            ));
        }
        candidates.push(("stored now", self.stored()));
        candidates
    }

    /// The released cells of a set, as the storage would hold them.
    pub fn cells_of(&self, survey: &Survey, set: &Set) -> Vec<ReleasedCell> {
        let mut cells: BTreeMap<Vec<u8>, CellTally> = BTreeMap::new();
        for &i in set {
            let response = &self.responses[i];
            let (n, counts) = cells.entry(response.cell.clone()).or_default();
            *n += 1;
            for &(question, report) in &response.reports {
                let reports = survey
                    .questions
                    .iter()
                    .find(|q| q.id.get() == question)
                    .map_or(2, |q| q.design.reports());
                let counts = counts.entry(question).or_insert_with(|| vec![0; reports]);
                counts[usize::from(report)] += 1;
            }
        }
        cells
            .into_iter()
            .map(|(cell, (n, counts))| ReleasedCell {
                cell,
                n,
                counts: counts
                    .into_iter()
                    .map(|(id, counts)| QuestionCounts {
                        question_id: QuestionId::from_stored(id),
                        counts,
                    })
                    .collect(),
            })
            .collect()
    }

    fn released_from(
        &self,
        survey: &Survey,
        set: &Set,
        summary: ReleaseSummary,
        responses: u64,
        next: Option<u64>,
    ) -> Released {
        let reports: Vec<Vec<deniable::domain::StoredReport>> = set
            .iter()
            .map(|&i| self.stored_reports(survey, i))
            .collect();
        Released::for_audit(
            survey,
            self.cells_of(survey, set),
            PairTables::of(reports.iter().map(Vec::as_slice)),
            summary,
            responses,
            next,
        )
    }

    /// A response's reports as storage holds them (at ε 1: the auditor's surveys ask every
    /// question at ε 1).
    fn stored_reports(&self, survey: &Survey, i: usize) -> Vec<deniable::domain::StoredReport> {
        let _ = survey;
        self.responses[i]
            .reports
            .iter()
            .map(|&(question, report)| deniable::domain::StoredReport {
                question_id: QuestionId::from_stored(question),
                level: randomized_response::PrivacyLevel::new(1.0).unwrap(),
                report,
            })
            .collect()
    }

    /// Records a matched set with condition `condition`, as the partition counts it: a
    /// withdrawn response belongs only to the sets whose views included it.
    fn record(&mut self, set: &Set, condition: Condition) {
        let recorded: Set = set
            .iter()
            .copied()
            .filter(|&i| condition.holds(&self.responses[i]))
            .collect();
        if !recorded.is_empty() && !self.sets.contains(&recorded) {
            self.sets.push(recorded);
        }
    }

    /// The overall results: must equal what the library computes from one candidate set.
    pub fn match_results(
        &mut self,
        survey: &Survey,
        released: &Set,
        actual: &Value,
    ) -> Result<(), String> {
        self.match_results_as_asked(survey, released, actual, Asked::at(confidence()))
    }

    /// The overall results as asked with `?null=` or `?simultaneous=`.
    pub fn match_results_as_asked(
        &mut self,
        survey: &Survey,
        released: &Set,
        actual: &Value,
        asked: Asked,
    ) -> Result<(), String> {
        let summary: ReleaseSummary = serde_json::from_value(actual["release"].clone())
            .map_err(|e| format!("no release in the results: {e}: {actual}"))?;
        let responses = actual["responses"].as_u64().ok_or("no responses")?;
        let mut differences = Vec::new();
        for (name, candidate) in self.candidates(released) {
            let view = self.released_from(survey, &candidate, summary, responses, None);
            let expected = deniable::results::compute_released(survey, &view, asked)
                .map_err(|e| format!("{e:?}"))?;
            let expected = as_served(&expected);
            match first_difference(&expected, actual, "") {
                None => {
                    self.record(&candidate, Condition::All);
                    return Ok(());
                }
                Some(difference) => differences.push(format!("{name} {candidate:?}: {difference}")),
            }
        }
        Err(format!(
            "the results match no set of responses ({}): {actual}",
            differences.join("; ")
        ))
    }

    /// A breakdown by the grouping question at `byte` of the cell.
    pub fn match_breakdown(
        &mut self,
        survey: &Survey,
        byte: usize,
        released: &Set,
        summary: ReleaseSummary,
        actual: &Value,
    ) -> Result<(), String> {
        let grouping = &survey.groupings[byte];
        let next = actual["next_release_at"].as_u64();
        for (_, candidate) in self.candidates(released) {
            let view = self.released_from(survey, &candidate, summary, 0, next);
            let expected =
                deniable::breakdown::compute(survey, grouping, &view, confidence_level())
                    .map_err(|e| format!("{e:?}"))?;
            if as_served(&expected) == *actual {
                for option in 0..grouping.options.len() {
                    let option = u8::try_from(option).unwrap();
                    self.record(&candidate, Condition::Answer { byte, option });
                }
                return Ok(());
            }
        }
        Err(format!(
            "the breakdown by {} matches no set of responses (released: {released:?}): {actual}",
            grouping.text
        ))
    }

    /// A cross-tabulation of two questions.
    pub fn match_joint(
        &mut self,
        survey: &Survey,
        (first, second): (i64, i64),
        released: &Set,
        actual: &Value,
    ) -> Result<(), String> {
        let (one, two) =
            deniable::joint::questions(survey, first, second).map_err(|e| format!("{e:?}"))?;
        let mut differences = Vec::new();
        for (name, candidate) in self.candidates(released) {
            let view = self.released_from(survey, &candidate, summary_placeholder(), 0, None);
            let expected = deniable::joint::compute(survey, &one, &two, &view, confidence_level())
                .map_err(|e| format!("{e:?}"))?;
            let expected = as_served(&expected);
            match first_difference(&expected, actual, "") {
                None => {
                    self.record(&candidate, Condition::All);
                    return Ok(());
                }
                Some(difference) => differences.push(format!("{name} {candidate:?}: {difference}")),
            }
        }
        Err(format!(
            "the cross-tabulation matches no set of responses ({}): {actual}",
            differences.join("; ")
        ))
    }

    /// An export (CSV): every row must be a report of a response the auditor sent, with
    /// its cell's labels; the rows' responses are a set, and so is each label's.
    pub fn match_export(&mut self, survey: &Survey, csv: &str) -> Result<Set, String> {
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().ok_or("an empty export")?.split(',').collect();
        let group_columns: Vec<usize> = (0..header.len())
            .filter(|&c| header[c].starts_with("group_"))
            .collect();
        let mut exported = Set::new();
        for line in lines {
            let fields: Vec<&str> = line.split(',').collect();
            let index = self
                .index_of(fields[0])
                .ok_or_else(|| format!("an exported record the auditor never sent: {line}"))?;
            let response = &self.responses[index];
            let question: i64 = fields[1].parse().map_err(|_| line.to_owned())?;
            let report: u8 = fields[4].parse().map_err(|_| line.to_owned())?;
            if !response.reports.contains(&(question, report)) {
                return Err(format!(
                    "an exported report the response never sent: {line}"
                ));
            }
            for (byte, &column) in group_columns.iter().enumerate() {
                let label = survey.groupings[byte].label(response.cell[byte]);
                if fields[column] != label {
                    return Err(format!("an exported label not the response's: {line}"));
                }
            }
            exported.insert(index);
        }
        self.record(&exported, Condition::All);
        for (byte, grouping) in survey.groupings.iter().enumerate() {
            for option in 0..grouping.options.len() {
                let option = u8::try_from(option).unwrap();
                self.record(&exported, Condition::Answer { byte, option });
            }
        }
        Ok(exported)
    }

    /// Every nonempty class of alike responses holds at least k.
    pub fn check_classes(&mut self) -> Result<(), String> {
        let mut classes: BTreeMap<Vec<bool>, Vec<usize>> = BTreeMap::new();
        for i in 0..self.responses.len() {
            let signature: Vec<bool> = self.sets.iter().map(|set| set.contains(&i)).collect();
            if signature.iter().any(|&member| member) {
                classes.entry(signature).or_default().push(i);
            }
        }
        for members in classes.values() {
            // Classes of withdrawn responses only are the documented exception: a withdrawn
            // response's own reports may become computable.
            if members.iter().all(|&i| self.responses[i].withdrawn) {
                continue;
            }
            self.smallest_class = Some(
                self.smallest_class
                    .map_or(members.len(), |smallest| smallest.min(members.len())),
            );
            if members.len() < self.k {
                return Err(format!(
                    "a class of {} alike responses (k = {}): {members:?}, across {} released sets",
                    members.len(),
                    self.k,
                    self.sets.len()
                ));
            }
        }
        Ok(())
    }
}

/// A value as the HTTP client reads it: written as text and parsed back (the parser's
/// rounding of a float's last bit is then the same on both sides).
fn as_served(value: &impl serde::Serialize) -> Value {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

/// The first path at which two JSON values differ, for failure messages.
pub fn first_difference(expected: &Value, actual: &Value, path: &str) -> Option<String> {
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys()) {
                let (x, y) = (
                    a.get(key).unwrap_or(&Value::Null),
                    b.get(key).unwrap_or(&Value::Null),
                );
                if let Some(found) = first_difference(x, y, &format!("{path}.{key}")) {
                    return Some(found);
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]"))),
        _ if expected == actual => None,
        _ => Some(format!("{path}: expected {expected}, got {actual}")),
    }
}

fn summary_placeholder() -> ReleaseSummary {
    ReleaseSummary {
        considered_at: 0,
        released_responses: None,
        withheld_responses: None,
        reason: deniable::domain::ReleaseReason::Waiting,
    }
}

pub fn confidence() -> Confidence {
    Confidence::new(0.95).unwrap()
}

fn confidence_level() -> Confidence {
    confidence()
}

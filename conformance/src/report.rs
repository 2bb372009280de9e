//! Outcomes, counts, and the printed report.

use std::collections::BTreeMap;
use std::fmt;

use gpu_xor::Operator;

/// The operators of the seeds, listed first in every report, with or without cases.
const SEEDS: [Operator; 3] = [Operator::BitXor, Operator::LogicalXor, Operator::BitwiseXor];

/// The `op` names of every operator of the table, in the order reports list them: the seeds'
/// XOR operators first, then the others in the table's order.
pub fn operators() -> impl Iterator<Item = &'static str> {
    SEEDS
        .into_iter()
        .chain(Operator::ALL.into_iter().filter(|op| !SEEDS.contains(op)))
        .map(Operator::conformance_name)
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every check held.
    Passed,
    /// A check failed; the reason names it with the values.
    Failed(String),
    /// Not run, for a tag of [`SKIPPED_TAGS`](crate::SKIPPED_TAGS); the reason says why.
    Skipped(String),
}

/// One case's id, operator, tags and outcome.
#[derive(Clone, Debug)]
pub struct CaseReport {
    /// The case's `id` (`#N` when it has none).
    pub id: String,
    /// The case's `op` (`?` when it has none).
    pub op: String,
    /// The case's `tags`.
    pub tags: Vec<String>,
    /// What happened.
    pub outcome: Outcome,
}

/// Passed, failed and skipped counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases that were skipped.
    pub skipped: usize,
}

impl Counts {
    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed(_) => self.failed += 1,
            Outcome::Skipped(_) => self.skipped += 1,
        }
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

/// The outcomes of a run, in case order.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One entry per case.
    pub cases: Vec<CaseReport>,
}

impl Report {
    /// The counts over every case.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for case in &self.cases {
            counts.add(&case.outcome);
        }
        counts
    }

    /// The counts per operator, in the order of [`operators`]: the seeds' XOR operators
    /// (always listed), then the other operators of the table that have cases, then any other
    /// `op` met, in name order.
    pub fn counts_by_op(&self) -> Vec<(String, Counts)> {
        let names: Vec<&str> = operators().collect();
        let mut others: BTreeMap<String, Counts> = BTreeMap::new();
        let mut known = vec![None::<Counts>; names.len()];
        for slot in &mut known[..SEEDS.len()] {
            *slot = Some(Counts::default());
        }
        for case in &self.cases {
            match names.iter().position(|&op| op == case.op) {
                Some(i) => known[i].get_or_insert_default().add(&case.outcome),
                None => others
                    .entry(case.op.clone())
                    .or_default()
                    .add(&case.outcome),
            }
        }
        names
            .into_iter()
            .zip(known)
            .filter_map(|(op, counts)| Some((op.to_string(), counts?)))
            .chain(others)
            .collect()
    }

    /// The cases that failed.
    pub fn failures(&self) -> impl Iterator<Item = &CaseReport> {
        self.cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Failed(_)))
    }

    /// The cases that were skipped.
    pub fn skips(&self) -> impl Iterator<Item = &CaseReport> {
        self.cases
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Skipped(_)))
    }

    /// The outcome of the case with this id.
    pub fn outcome(&self, id: &str) -> Option<&Outcome> {
        self.cases.iter().find(|c| c.id == id).map(|c| &c.outcome)
    }

    /// Appends another report's cases.
    pub fn extend(&mut self, other: Report) {
        self.cases.extend(other.cases);
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary_line(&self) -> String {
        self.counts().to_string()
    }

    /// The report as printed: one line per failed or skipped case, the counts per operator,
    /// and the summary line last.
    pub fn render(&self) -> String {
        let mut text = String::new();
        for case in self.failures().chain(self.skips()) {
            match &case.outcome {
                Outcome::Passed => {}
                Outcome::Failed(reason) => text += &format!("FAILED  {}: {reason}\n", case.id),
                Outcome::Skipped(reason) => text += &format!("SKIPPED {}: {reason}\n", case.id),
            }
        }
        for (op, counts) in self.counts_by_op() {
            text += &format!("{op}: {counts}\n");
        }
        text += &self.summary_line();
        text.push('\n');
        text
    }
}

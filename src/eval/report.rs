//! The eval's figures: pass^k overall, per language and per class, and the
//! failing cases with why, as text for a person and as JSON for a program.

use std::collections::BTreeMap;

use serde::Serialize;

use super::corpus::Case;

/// The outcome of one case over its k runs.
#[derive(Debug, Clone)]
pub(crate) struct CaseResult {
    pub(crate) case: Case,
    /// Per run: why it failed (empty: it passed).
    pub(crate) runs: Vec<Vec<String>>,
    /// The answers of the first failing run (of the first run when all passed).
    pub(crate) answers: Vec<String>,
}

impl CaseResult {
    /// Passed all k runs.
    pub(crate) fn passed(&self) -> bool {
        self.runs.iter().all(Vec::is_empty)
    }
}

/// Cases and those that passed all k runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tally {
    pub(crate) cases: usize,
    pub(crate) passed: usize,
    /// `passed / cases`: the share of cases that passed all k runs.
    pub pass_k: f64,
    /// Runs that passed, of `cases × k`.
    pub(crate) runs_passed: usize,
}

impl Tally {
    fn add(&mut self, result: &CaseResult) {
        self.cases += 1;
        self.passed += usize::from(result.passed());
        self.runs_passed += result.runs.iter().filter(|r| r.is_empty()).count();
        self.pass_k = if self.cases == 0 { 0.0 } else { self.passed as f64 / self.cases as f64 };
    }
}

/// A case that failed at least one run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Failure {
    pub(crate) id: String,
    pub(crate) lang: &'static str,
    pub(crate) class: String,
    /// `file:line`.
    pub(crate) origin: String,
    /// Runs failed, of k.
    pub(crate) runs_failed: usize,
    /// What the shopper typed.
    pub(crate) turns: Vec<String>,
    /// Why the first failing run failed.
    pub(crate) reasons: Vec<String>,
    /// What the shopper read in that run, per line.
    pub(crate) answers: Vec<String>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// What was measured: `offline` or the model.
    pub(crate) model: String,
    pub(crate) corpus: String,
    pub k: usize,
    pub overall: Tally,
    pub(crate) by_lang: BTreeMap<&'static str, Tally>,
    pub(crate) by_class: BTreeMap<String, Tally>,
    pub(crate) failures: Vec<Failure>,
}

impl Report {
    /// Tallies `results` (in corpus order).
    pub(crate) fn new(model: String, corpus: String, k: usize, results: &[CaseResult]) -> Report {
        let mut overall = Tally::default();
        let mut by_lang: BTreeMap<&'static str, Tally> = BTreeMap::new();
        let mut by_class: BTreeMap<String, Tally> = BTreeMap::new();
        let mut failures = Vec::new();
        for result in results {
            overall.add(result);
            by_lang.entry(result.case.lang.code()).or_default().add(result);
            by_class.entry(result.case.class.clone()).or_default().add(result);
            if !result.passed() {
                let failed: Vec<&Vec<String>> = result.runs.iter().filter(|r| !r.is_empty()).collect();
                failures.push(Failure {
                    id: result.case.id.clone(),
                    lang: result.case.lang.code(),
                    class: result.case.class.clone(),
                    origin: result.case.origin.clone(),
                    runs_failed: failed.len(),
                    turns: result.case.turns.iter().map(|t| t.say.clone()).collect(),
                    reasons: failed.first().map(|r| (*r).clone()).unwrap_or_default(),
                    answers: result.answers.clone(),
                });
            }
        }
        Report { model, corpus, k, overall, by_lang, by_class, failures }
    }

    /// The report for a person.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let k = self.k;
        out.push_str(&format!(
            "mallbot eval: {} on {} ({} cases, k = {k})\n\n",
            self.model, self.corpus, self.overall.cases
        ));
        out.push_str(&format!("pass^{k}  {}\n", figure(&self.overall)));
        out.push_str("\nby language\n");
        for (lang, tally) in &self.by_lang {
            out.push_str(&format!("  {lang:<22} {}\n", figure(tally)));
        }
        out.push_str("\nby class\n");
        for (class, tally) in &self.by_class {
            out.push_str(&format!("  {class:<22} {}\n", figure(tally)));
        }
        if self.failures.is_empty() {
            out.push_str("\nevery case passed\n");
            return out;
        }
        out.push_str(&format!("\nfailing cases ({})\n", self.failures.len()));
        for failure in &self.failures {
            out.push_str(&format!(
                "\n{} [{}, {}] {} — failed {} of {k} run(s)\n",
                failure.id, failure.lang, failure.class, failure.origin, failure.runs_failed
            ));
            for (line, said) in failure.turns.iter().enumerate() {
                out.push_str(&format!("  you> {said}\n"));
                if let Some(answer) = failure.answers.get(line) {
                    out.push_str(&format!("  bot> {}\n", shorten(answer).replace('\n', "\n       ")));
                }
            }
            for reason in &failure.reasons {
                out.push_str(&format!("  ✗ {reason}\n"));
            }
        }
        out
    }
}

/// `52.0 %  (78/150)`.
fn figure(tally: &Tally) -> String {
    format!("{:>5.1} %  ({}/{})", tally.pass_k * 100.0, tally.passed, tally.cases)
}

/// An answer cut to its first 6 lines and 400 characters.
fn shorten(answer: &str) -> String {
    let lines: Vec<&str> = answer.lines().collect();
    let mut text = lines.iter().take(6).copied().collect::<Vec<_>>().join("\n");
    if text.chars().count() > 400 {
        text = text.chars().take(400).collect();
        text.push('…');
    } else if lines.len() > 6 {
        text.push_str("\n…");
    }
    text
}

//! `mallbot eval`: measures the configured model (or the offline planner) on
//! the configured mall with a corpus of conversations (docs/eval.md).
//!
//! Each case is a conversation with what must hold after it (`corpus.rs`);
//! each is run k times, every run on a fresh mall state and a fresh state
//! store, typed into the terminal chat (`drive.rs`); a run passes when
//! everything the case states holds (`check.rs`: the answers' facts and
//! script, the tools called, the cart, orders and alerts at the end). A case
//! passes when all its k runs pass: pass^k, per language, per class and
//! overall (`report.rs`).

pub(crate) mod check;
pub(crate) mod corpus;
pub(crate) mod drive;
pub(crate) mod report;
pub(crate) mod script;

use std::path::{Path, PathBuf};

use futures::StreamExt as _;

use crate::infra::config::Config;
use corpus::CaseLang;
use report::{CaseResult, Report};

/// The corpus used when none is given: the demo mall's.
pub const DEFAULT_CORPUS: &str = "eval/demo";

/// How `mallbot eval` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// A `.jsonl` file or a folder of them.
    pub corpus: PathBuf,
    /// Runs of each case.
    pub k: usize,
    /// Conversations run at once.
    pub jobs: usize,
}

/// Reads the corpus and runs it; the report, or why it could not run.
pub async fn run(config: Config, options: &Options) -> anyhow::Result<Report> {
    if options.k == 0 {
        anyhow::bail!("-k: at least 1 run of each case");
    }
    let cases = corpus::read(&options.corpus).map_err(|mistakes| {
        anyhow::anyhow!("the corpus has {} mistake(s):\n  {}", mistakes.len(), mistakes.join("\n  "))
    })?;
    let bench = drive::Bench::new(config)?;
    let k = options.k;
    let jobs = options.jobs.max(1);
    let total = cases.len() * k;
    let runs =
        futures::stream::iter(cases.iter().enumerate().flat_map(|(i, case)| (0..k).map(move |_| (i, case))))
            .map(|(i, case)| {
                let bench = bench.clone();
                async move {
                    let lines: Vec<String> = case.turns.iter().map(|t| t.say.clone()).collect();
                    let transcript = bench.run(&lines, case.app.map(CaseLang::lang)).await;
                    let why = check::reasons(case, &transcript);
                    (i, why, transcript.answers)
                }
            })
            .buffered(jobs);
    tokio::pin!(runs);
    let mut results: Vec<CaseResult> = cases
        .iter()
        .map(|case| CaseResult { case: case.clone(), runs: Vec::new(), answers: Vec::new() })
        .collect();
    let mut done = 0usize;
    while let Some((i, why, answers)) = runs.next().await {
        done += 1;
        let result = &mut results[i];
        let first_failure = !why.is_empty() && result.runs.iter().all(Vec::is_empty);
        if result.runs.is_empty() || first_failure {
            result.answers = answers;
        }
        result.runs.push(why);
        if done.is_multiple_of(25) || done == total {
            tracing::info!(done, total, "eval runs");
        }
    }
    Ok(Report::new(bench.model_name(), shown_path(&options.corpus), k, &results))
}

/// `--min`: a share (`0.5`) or a percentage (`50`, `50%`).
pub fn parse_rate(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let (number, percent) = match trimmed.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (trimmed, false),
    };
    let value: f64 = number.parse().map_err(|_| format!("{text:?} is not a number (0.5, 50 or 50%)"))?;
    let share = if percent || value > 1.0 { value / 100.0 } else { value };
    if !(0.0..=1.0).contains(&share) || share.is_nan() {
        return Err(format!("{text:?} is not between 0 and 100 %"));
    }
    Ok(share)
}

fn shown_path(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_floor_is_a_share_or_a_percentage() {
        assert_eq!(parse_rate("0.5"), Ok(0.5));
        assert_eq!(parse_rate("50"), Ok(0.5));
        assert_eq!(parse_rate("42.5%"), Ok(0.425));
        assert_eq!(parse_rate("1"), Ok(1.0));
        assert!(parse_rate("150").is_err());
        assert!(parse_rate("half").is_err());
    }
}

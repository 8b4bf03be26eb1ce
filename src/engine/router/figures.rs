//! The day's figures for `/stats`, from the counters every instance shares.

use std::fmt::Write as _;
use std::time::Duration;

use handlers::Lang;

use super::desk::StaffDesk;
use super::scope::today;
use crate::infra::state::keys;

impl StaffDesk {
    /// Today's figures (UTC), shared by every instance: messages, shoppers,
    /// tokens, orders, the tools used most, errors.
    pub(super) async fn day_stats(&self, lang: Lang) -> String {
        let counts = match self.state.counts(&keys::stats(today())).await {
            Ok(counts) => counts,
            Err(e) => {
                return format!("{}: {e}", lang.texts().turn.stats_unreadable);
            }
        };
        let get = |field: &str| counts.get(field).copied().unwrap_or(0);
        let shoppers = counts.keys().filter(|k| k.starts_with("u:")).count();
        let mut tools: Vec<(&str, i64)> =
            counts.iter().filter_map(|(k, v)| k.strip_prefix("tool:").map(|t| (t, *v))).collect();
        tools.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let top: Vec<String> = tools.iter().take(5).map(|(t, n)| format!("{t} {n}")).collect();
        let [title, messages, shoppers_label, tokens, orders, top_tools, errors, voice] =
            lang.texts().turn.stats_labels;
        let mut out = String::new();
        let _ = writeln!(out, "{title} ({})", civil_date(today()));
        let _ = writeln!(out, "{messages}: {}", get("messages"));
        let _ = writeln!(out, "{shoppers_label}: {shoppers}");
        let _ = writeln!(
            out,
            "{}: {} in ({} cached), {} out",
            tokens,
            get("tokens_in"),
            get("tokens_cached"),
            get("tokens_out")
        );
        let _ = writeln!(
            out,
            "{voice}: {}, {:.1} s",
            get("transcriptions"),
            get("transcription_ms") as f64 / 1000.0
        );
        let _ = writeln!(out, "{orders}: {}", get("confirmed:create_order"));
        let _ =
            writeln!(out, "{top_tools}: {}", if top.is_empty() { "—".to_owned() } else { top.join(", ") });
        let _ = write!(out, "{errors}: {}", get("errors"));
        let ledger = crate::engine::payments::Ledger::new(
            self.state.clone(),
            self.mall.clone(),
            Duration::from_secs(5),
        );
        let refused = ledger.refused().await;
        if !refused.is_empty() {
            let orders: Vec<String> = refused
                .iter()
                .map(|r| {
                    format!(
                        "{} {}",
                        r.order_id,
                        crate::engine::payments::amount_text(r.amount_cents, &r.currency)
                    )
                })
                .collect();
            let _ = write!(
                out,
                "\n{}",
                (lang.texts().pay.stats_refunds)(refused.len(), &orders.join(lang.texts().format.list_sep))
            );
        }
        out
    }
}

/// `YYYY-MM-DD` of a day counted from the Unix epoch.
fn civil_date(days: i64) -> String {
    services::rfc3339(days * 86_400).chars().take(10).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_416), "2025-11-24");
        assert_eq!(civil_date(11_016), "2000-02-29");
    }
}

//! Stock and price alerts as the tools see them: the [`Alert`] a shopper
//! agrees to, what it waits for ([`Want`]), and the [`AlertBook`] the bot
//! keeps them in (its state store; the tool only asks to add one).

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

/// What an alert waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Want {
    /// The product back in stock: in this size (its label), or in any.
    Restock {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<String>,
    },
    /// The product's price at or under `at_most_cents`, or (none) under
    /// `was_cents`, its price when the alert was set.
    Price {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_most_cents: Option<i64>,
        was_cents: i64,
    },
}

/// One shopper's alert on one product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alert {
    /// Short and random; what `/alerts` removes it by.
    pub id: String,
    /// The shopper, `<platform>:<id>`.
    pub user: String,
    /// The language code the shopper was answered in when it was set.
    pub lang: String,
    pub product_id: String,
    /// The product's name as the shopper saw it.
    pub product_name: String,
    /// The store that sells it (for the way there).
    pub store_id: String,
    pub want: Want,
    /// Unix milliseconds (the order `/alerts` lists them in).
    pub created: i64,
    /// Unix seconds; after it the alert ends with one last word.
    pub expires: i64,
}

impl Alert {
    /// Whether a restock of `sizes` (labels; none for a product without
    /// sizes) wakes it.
    pub fn woken_by_restock(&self, sizes: &[String]) -> bool {
        match &self.want {
            Want::Restock { size: Some(size) } => sizes.iter().any(|s| same_size(s, size)),
            Want::Restock { size: None } => true,
            Want::Price { .. } => false,
        }
    }

    /// Whether the price `cents` wakes it.
    pub fn woken_by_price(&self, cents: i64) -> bool {
        match self.want {
            Want::Price { at_most_cents: Some(at_most), .. } => cents <= at_most,
            Want::Price { at_most_cents: None, was_cents } => cents < was_cents,
            Want::Restock { .. } => false,
        }
    }
}

/// Whether a size label and what a shopper or model wrote mean the same
/// size: case, spaces, "size", "码" and "碼" aside.
pub fn same_size(label: &str, wanted: &str) -> bool {
    let key = |s: &str| {
        let s = s.to_lowercase().replace("size", "").replace(['码', '碼'], "");
        s.split_whitespace().collect::<String>()
    };
    let label = key(label);
    !label.is_empty() && label == key(wanted)
}

/// Why an alert could not be added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlertError {
    /// The shopper has this many alerts already, the most allowed.
    Full(u32),
    /// The store could not keep it.
    Store(String),
}

/// Where the bot keeps alerts.
pub trait AlertBook: Send + Sync {
    /// How many days an alert lasts.
    fn ttl_days(&self) -> u32;
    /// How many alerts one shopper may have at once.
    fn max_per_user(&self) -> u32;
    /// Adds `alert` (its `id`, `created` and `expires` are set here) and
    /// answers it as kept.
    fn subscribe(&self, alert: Alert) -> BoxFuture<'_, Result<Alert, AlertError>>;
    /// The shopper's alerts (`<platform>:<id>`), oldest first.
    fn alerts_of<'a>(&'a self, user: &'a str) -> BoxFuture<'a, Result<Vec<Alert>, AlertError>>;
}

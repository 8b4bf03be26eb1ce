//! [`Reply`]: what the bot answers, independent of the transport that shows it.
//!
//! A reply carries its text, the suggestions, a confirmation prompt, an image
//! URL and pictures, a hand-off to the private chat, the order to pay now
//! (`invoice`) and the unpaid orders it shows (`payable`), the store to show
//! on the Mini App's map, a hand-off to the service desk, what a 👍/👎 on it is
//! about, and the trace its delivery continues. The transport decides how
//! each shows; a press is checked through [`ConfirmationPress`] and answered
//! with a [`PressCheck`].

use handlers::Level;

/// The bot's answer to one message or button press.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// The text, plain (transports escape it).
    pub text: String,
    /// Follow-up requests offered as buttons; pressing one sends it as the
    /// shopper's next message.
    pub suggestions: Vec<String>,
    /// A risky action waiting for the shopper's decision.
    pub confirmation: Option<ConfirmationPrompt>,
    /// A picture to show, if any (a URL).
    pub image: Option<String>,
    /// Pictures drawn for the shopper (floor plans with the route), in order.
    pub pictures: Vec<handlers::Picture>,
    /// In a group, a private-only request: the text to carry over to the
    /// private chat (Telegram shows a button opening it).
    pub open_private: Option<String>,
    /// An order just placed: transports that take payments send its invoice.
    pub invoice: Option<String>,
    /// A parking fee just confirmed: transports that take payments send its invoice.
    pub(crate) parking_bill: Option<ParkingBill>,
    /// Unpaid orders the answer shows: transports that take payments offer
    /// a pay button for each (a new invoice for the same order).
    pub payable: Vec<String>,
    /// The store an answer shows the way to or describes: transports with
    /// the Mini App offer its map ("🗺 在地图上看").
    pub map_store: Option<String>,
    /// The conversation goes to a person at the service desk, for this
    /// reason: transports with a desk open the shopper's topic after the text.
    pub handoff: Option<String>,
    /// The question this answers and the tools that ran for it: kept with
    /// the answer's message so that a 👍/👎 on it can be counted.
    pub rated: Option<Rated>,
    /// The W3C `traceparent` of the turn that answered, when traced: the
    /// transport's sends of this reply join that trace.
    pub trace: Option<String>,
}

/// A confirmed parking fee to pay: the plate, the fee due at ✅, the minutes to leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParkingBill {
    pub(crate) plate: String,
    pub(crate) amount_cents: i64,
    pub(crate) grace_minutes: u32,
}

impl Reply {
    /// A text-only reply.
    pub fn text(text: impl Into<String>) -> Self {
        Reply { text: text.into(), ..Default::default() }
    }

    /// The reply as it leaves in `lang`, the one place every turn's answer
    /// passes: in 繁體, its text, suggestions and confirmation in Traditional
    /// characters (whatever wrote them: a table, a tool, the model, the mall's
    /// data), the shopper's own words of `said` echoed as written
    /// ([`handlers::texts::zh_hant::traditional_answer`]).
    pub(crate) fn written_in(mut self, lang: handlers::Lang, said: &str) -> Reply {
        if lang != handlers::Lang::ZhHant {
            return self;
        }
        let traditional = |text: &str| handlers::texts::zh_hant::traditional_answer(text, said);
        self.text = traditional(&self.text);
        for suggestion in &mut self.suggestions {
            *suggestion = traditional(suggestion);
        }
        if let Some(confirmation) = &mut self.confirmation {
            confirmation.summary = traditional(&confirmation.summary);
        }
        if let Some(request) = &mut self.open_private {
            *request = traditional(request);
        }
        self
    }
}

/// What a reaction to an answer is about.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Rated {
    /// The shopper's question (its words only).
    pub(crate) question: String,
    /// The tools that ran for the answer.
    pub(crate) tools: Vec<String>,
}

/// The unpaid orders in a tool's result: `{"order": {…}}` or `{"orders": […]}`
/// items whose status is `PENDING_PAYMENT`, by id.
pub(crate) fn payable_orders(data: &serde_json::Value) -> Vec<String> {
    let unpaid = |order: &serde_json::Value| {
        (order["status"].as_str() == Some("PENDING_PAYMENT"))
            .then(|| order["order_id"].as_str().map(str::to_owned))
            .flatten()
    };
    let mut ids: Vec<String> = data.get("order").and_then(unpaid).into_iter().collect();
    if let Some(orders) = data.get("orders").and_then(|o| o.as_array()) {
        ids.extend(orders.iter().filter_map(unpaid));
    }
    ids
}

/// The store a tool's result shows on the map: directions to it
/// (`navigate_to_store`) or its details (`get_store_info`).
pub(crate) fn map_store(data: &serde_json::Value) -> Option<String> {
    let shows_store = data.get("steps").is_some() || data["info_type"].as_str() == Some("basic");
    shows_store.then(|| data["store"]["store_id"].as_str().map(str::to_owned)).flatten()
}

/// A pending confirm/critical action shown to the shopper.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationPrompt {
    /// Short random token: the button's `callback_data` carries it.
    pub token: String,
    /// Confirm or critical.
    pub level: Level,
    /// What will happen (for an order: items, sizes, quantities, total, pickup store).
    pub summary: String,
    /// When the shopper must also type back a one-time code (critical only).
    pub needs_code: bool,
}

/// A press of a confirmation button.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationPress {
    /// The token from the button.
    pub token: String,
    /// Who pressed.
    pub user_id: i64,
    /// In which chat.
    pub chat_id: i64,
    /// Confirm (`true`) or Cancel (`false`).
    pub approve: bool,
}

/// What a press leads to at once, before any slow work: transports answer the
/// button with this, then call [`crate::engine::router::FunctionCallRouter::finish`].
#[derive(Debug, Clone, PartialEq)]
pub enum PressCheck {
    /// The press is valid and now owned by the caller; `outcome` is the line to
    /// show in place of the buttons ("✅ 已确认…" / "已取消").
    Accepted { claim: Box<crate::engine::pending::Claim>, outcome: String },
    /// Pressed by someone other than the shopper who asked: an alert, nothing done.
    NotYours { alert: String },
    /// Pressed again after it was handled.
    AlreadyDone { alert: String },
    /// Pressed after the confirmation expired (or unknown token).
    Expired { alert: String },
    /// A critical action with `safety.critical_code`: the shopper must now type the code.
    CodeRequired { message: String },
    /// The press could not be checked (the state store is down): nothing was
    /// done, the shopper may press again.
    Failed { alert: String },
}

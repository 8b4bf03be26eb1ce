//! Everything the bot says to shoppers and operators, one table per language:
//! [`zh_hans`] (Simplified Chinese), [`zh_hant`] (Traditional Chinese) and
//! [`en`] (English), each one `static TEXTS: Texts`. [`crate::Lang::texts`]
//! picks the table; code reads a field (`lang.texts().commands.reset_done`)
//! or calls one for texts with values (`(lang.texts().format.floor)(3)`).
//!
//! Adding a language is one more file here, filling every field (the
//! compiler names any it misses), and one variant of [`crate::Lang`].
//!
//! Lines a tool declares itself (its `/help` line, its status line, its
//! basic-mode answer) stay with the tool, written in Chinese and English; a
//! table says how its language gets them ([`Texts::tool_lang`],
//! [`Texts::tool_text`], [`Texts::tool_line`]).
//!
//! The bot's code reads these tables and writes no line of its own; a press
//! whose action cannot be read, so whose language is unknown, gets the
//! Chinese and the English line joined. The Mini App's page words are the
//! bot's `transports/webapp/texts.rs`. [`zh_hant`] also converts between the
//! scripts with OpenCC's dictionaries (`ferrous-opencc`, `s2tw` and `t2s`,
//! each built once): tools' lines and the mall's names shown in Traditional
//! characters, shoppers' words read in Simplified ones.

use std::borrow::Cow;

use services::OrderStatus;

use crate::context::Lang;

pub mod alerts;
pub(crate) mod en;
#[cfg(test)]
mod grammar_tests;
pub mod guide;
mod lang;
pub use lang::Said;
pub mod mall;
pub(crate) mod zh_hans;
pub mod zh_hant;

/// What a tool (or a group of tools sharing the line) can do for a shopper,
/// as `/help` lists it: declared with `#[tool_function(help = LINE)]`.
#[derive(Debug)]
pub struct HelpLine {
    /// In Chinese: "🧭 找路：「Nike 店怎么走？」".
    pub zh: &'static str,
    /// In English: "🧭 Directions: \"How do I get to Nike?\"".
    pub en: &'static str,
}

/// The text table of one language.
#[derive(Debug)]
pub struct Texts {
    /// The language as the model is told to answer in it ("Simplified Chinese").
    pub model_language: &'static str,
    /// The language a tool's own lines are asked for in (tools write Chinese and English).
    pub tool_lang: Lang,
    /// A line a tool wrote in [`Texts::tool_lang`], in this language.
    pub tool_text: fn(String) -> String,
    /// A tool's `/help` line in this language.
    pub tool_line: fn(&'static HelpLine) -> Cow<'static, str>,
    /// Prices, floors, places, lists and cart lines.
    pub format: Format,
    /// Commands, the greeting, `/help`, buttons: what every transport says.
    pub commands: Commands,
    /// The steps of a turn: limits, hand-offs, notes, `/stats`.
    pub turn: Turn,
    /// Confirmations: asking, pressing, codes.
    pub confirm: Confirm,
    /// Small talk when the model cannot be reached.
    pub small_talk: SmallTalk,
    /// Basic mode's answers, written from the tools' results.
    pub answers: Answers,
    /// What tools add to their results: previews and suggestion buttons.
    pub tools: Tools,
    /// Directions steps and floor-plan words.
    pub map: maps::MapWords,
    /// The mall's facilities (restrooms, nursing rooms, ATMs…) and the way to the nearest.
    pub facilities: Facilities,
    /// Voice messages and photos.
    pub media: Media,
    /// Paying for orders, hearing back about them, and the staff's commands.
    pub pay: Pay,
    /// What the MCP side says to a person: an assistant's user, a shopper
    /// watching the status line.
    pub mcp: Mcp,
    /// The mall's own information, its events and the offers across it.
    pub mall: mall::MallTexts,
    /// Stock and price alerts.
    pub alerts: alerts::AlertTexts,
    /// Places to eat, gift ideas, names read past a typo.
    pub guide: guide::GuideTexts,
    /// A person at the service desk: the hand-off, what staff read, the report.
    pub support: Support,
}

/// How prices, floors, places and cart lines read.
#[derive(Debug)]
pub struct Format {
    /// A floor above ground: `3楼`, `3F`.
    pub floor: fn(i32) -> String,
    /// A floor (as [`Format::floor`] wrote it) and a unit: `3楼 L3-01`, `3F, unit L3-01`.
    pub floor_unit: fn(&str, &str) -> String,
    /// A remark in brackets: `（42）`, ` (42)`.
    pub paren: fn(&str) -> String,
    /// Between list items: `、`, `, `.
    pub list_sep: &'static str,
    /// Between parts of a line: `，`, `, `.
    pub comma: &'static str,
    /// Whether names are shown in English when the mall has an English name.
    pub english_names: bool,
    /// A Chinese name or line of the mall's (a store, a floor, an area, a
    /// product, a place on the map) as this language shows it: in
    /// Traditional characters for Traditional Chinese, as written elsewhere.
    /// For display only: the mall is searched by the names it has.
    pub mall_text: fn(&str) -> Cow<'_, str>,
    /// A line with a size: (name, size, quantity, amount).
    pub item_sized: fn(&str, &str, u32) -> String,
    /// A line with another SKU label (a colour…): (name, label, quantity, amount).
    pub item_labelled: fn(&str, &str, u32) -> String,
    /// A line of a product with one SKU: (name, quantity, amount).
    pub item_plain: fn(&str, u32) -> String,
    /// Before a total: `合计：`.
    pub total: &'static str,
    /// The suggestion button asking the way to a store.
    pub navigate_suggestion: fn(&str) -> String,
    /// A closing time on the next day, in opening hours: `次日02:00`, `02:00 (next day)`.
    pub next_day: fn(&str) -> String,
}

/// Commands, the greeting, `/help` and buttons.
#[derive(Debug)]
pub struct Commands {
    /// The `/start` greeting.
    pub greeting: &'static str,
    /// The first line of `/help`.
    pub help_intro: &'static str,
    /// After a `/help` line of a tool that works only in private chats, in a group.
    pub help_private_note: &'static str,
    /// The commands line of `/help`.
    pub help_commands: &'static str,
    /// The last line of `/help` in groups.
    pub help_group: &'static str,
    /// The command menu's descriptions, in the order of `Command::MENU`.
    pub menu: [&'static str; 9],
    /// A command the bot does not know.
    pub unknown_command: &'static str,
    /// A sticker, voice message, file… in a private chat.
    pub please_write: &'static str,
    /// The short apology when something broke inside.
    pub apology: &'static str,
    /// The answer to `/reset`.
    pub reset_done: &'static str,
    /// The answer to `/lang` with this language.
    pub lang_set: &'static str,
    /// The answer to `/lang` without a known language.
    pub lang_usage: &'static str,
    /// `/health` asked in a group.
    pub health_private_only: &'static str,
    /// `/stats` from an operator in a group.
    pub stats_private_only: &'static str,
    /// The Confirm button.
    pub confirm_button: &'static str,
    /// The Cancel button.
    pub cancel_button: &'static str,
    /// The button that opens the private chat.
    pub open_private: &'static str,
    /// Shown in place of the buttons when a typed code is needed.
    pub code_needed: &'static str,
    /// The alert for a suggestion button whose message is too old to read.
    pub button_expired: &'static str,
    /// `/health`: privacy mode is off.
    pub privacy_off: &'static str,
    /// `/health`: privacy mode is on, and how to turn it off.
    pub privacy_on: &'static str,
    /// The terminal chat's confirmation question.
    pub console_confirm: &'static str,
    /// The terminal chat after answering something else while a
    /// confirmation waits: it still does (what it confirms).
    pub console_still_waiting: fn(&str) -> String,
    /// The terminal chat's opening lines: (the shopper's id, examples from the mall's own data).
    pub console_banner: fn(i64, &str) -> String,
}

/// The steps of a turn.
#[derive(Debug)]
pub struct Turn {
    /// A message with no text.
    pub words_please: &'static str,
    /// Too many messages in a minute.
    pub rate_limited: &'static str,
    /// Too many messages waiting in one chat: the newest are skipped.
    pub too_many_waiting: &'static str,
    /// Not an allowed user or chat.
    pub refused: &'static str,
    /// The model ended the turn with no text.
    pub done: &'static str,
    /// The tool loop ran out of steps.
    pub gave_up: &'static str,
    /// After an answer, when today's model allowance is used up.
    pub over_budget: &'static str,
    /// After an answer in basic mode.
    pub basic_mode: &'static str,
    /// A group asked for the cart or orders.
    pub private_only: &'static str,
    /// `/cart` or `/orders` failed.
    pub lookup_failed: &'static str,
    /// A group turn handed to the private chat.
    pub group_handoff: &'static str,
    /// `/stats`: the store could not be read (before the error).
    pub stats_unreadable: &'static str,
    /// `/stats`: title, messages, shoppers, model tokens, orders, top tools, errors.
    pub stats_labels: [&'static str; 8],
}

/// Confirmations.
#[derive(Debug)]
pub struct Confirm {
    /// Asking to confirm an order: (the summary).
    pub check_order: fn(&str) -> String,
    /// Asking to confirm a change: (the summary).
    pub please_confirm: fn(&str) -> String,
    /// Before the name and arguments of a tool with no preview.
    pub run: &'static str,
    /// The pending action could not be stored.
    pub cannot_hold: &'static str,
    /// Someone else pressed the button.
    pub not_yours: &'static str,
    /// Before the summary of a confirmed action.
    pub confirmed: &'static str,
    /// Before the summary of a cancelled action.
    pub cancelled: &'static str,
    /// The press is being carried out.
    pub in_progress: &'static str,
    /// The press could not be read.
    pub press_again: &'static str,
    /// An order changed and the new confirmation could not be stored.
    pub order_changed_unsaved: &'static str,
    /// An order changed: confirm again.
    pub order_changed: &'static str,
    /// A typed code that does not match.
    pub wrong_code: &'static str,
    /// Before what a press already did.
    pub already_done_as: &'static str,
    /// A press already handled.
    pub already_done: &'static str,
    /// Kept with a cancelled action.
    pub outcome_cancelled: &'static str,
    /// Before an order id kept with a confirmed order.
    pub outcome_order: &'static str,
    /// Kept with an action that failed.
    pub outcome_failed: &'static str,
    /// Asking for the typed code: (the code).
    pub code_request: fn(&str) -> String,
    /// A press on a confirmation that expired (or is no longer known).
    pub expired: &'static str,
    /// An order needing the one-time code (`safety.critical_code`) asked for
    /// where no code can be typed (the Mini App, an MCP client): refused
    /// there, to be placed in the chat with the bot.
    pub code_in_chat: &'static str,
    /// A change whose details are too long to keep for confirmation.
    pub too_large: &'static str,
}

/// Voice messages and photos.
#[derive(Debug)]
pub struct Media {
    /// The status while a voice message is transcribed.
    pub listening: &'static str,
    /// The status while a photo is fetched for the model.
    pub looking: &'static str,
    /// A voice message when no transcription is set up: typing works.
    pub voice_off: &'static str,
    /// A voice message longer than `stt.max_seconds` (the limit in seconds).
    pub too_long: fn(u32) -> String,
    /// A file over the Bot API's download limit.
    pub too_big: &'static str,
    /// The transcription service is down, too slow, or answered nonsense.
    pub transcription_failed: &'static str,
    /// The transcript was empty.
    pub nothing_heard: &'static str,
    /// A voice message over today's token budget: not transcribed.
    pub voice_over_budget: &'static str,
    /// The voice message or photo could not be fetched.
    pub fetch_failed: &'static str,
    /// What the model is asked when a photo comes without a caption.
    pub photo_default_ask: &'static str,
    /// A photo without a caption when the model does not read photos.
    pub photo_unseen: &'static str,
    /// `/voice` or `/photo` typed in a chat: send the thing itself.
    pub send_it_instead: &'static str,
    /// `/voice` or `/photo` in the terminal without a file.
    pub console_usage: &'static str,
    /// A file the terminal chat could not read (path, why).
    pub console_unreadable: fn(&str, &str) -> String,
}

/// Small talk when the model cannot be reached.
#[derive(Debug)]
pub struct SmallTalk {
    /// To thanks.
    pub thanks: &'static str,
    /// To goodbye.
    pub bye: &'static str,
    /// To "who are you".
    pub who: &'static str,
    /// To hello.
    pub hello: &'static str,
    /// To anything else.
    pub other: &'static str,
    /// An example request for a product the mall sells: (its name).
    pub find_example: fn(&str) -> String,
    /// An example request for the way to a store of the mall: (its name).
    pub where_example: fn(&str) -> String,
    /// An example request for a store's offers: (its name).
    pub offers_example: fn(&str) -> String,
    /// An example request any mall answers (the cart).
    pub cart_example: &'static str,
}

/// Basic mode's answers.
#[derive(Debug)]
pub struct Answers {
    /// A tool's result with nothing more to say.
    pub done: &'static str,
    /// Products found: (total, cheapest first).
    pub found_products: fn(u64, bool) -> String,
    /// Before a rating.
    pub rated: &'static str,
    /// Before the store of a product.
    pub at: &'static str,
    /// After a product list.
    pub reply_first: &'static str,
    /// A price range: (min, max).
    pub price_between: fn(&str, &str) -> String,
    /// A price limit: (max).
    pub price_under: fn(&str) -> String,
    /// A price floor: (min).
    pub price_over: fn(&str) -> String,
    /// No product matched: (keyword, price range).
    pub no_products: fn(&str, &str) -> String,
    /// After a product's detail: (how many more were found).
    pub more_products: fn(usize) -> String,
    /// The product is out of stock.
    pub out_of_stock: &'static str,
    /// Add the product with one SKU?
    pub add_it: &'static str,
    /// Which size: (the sizes).
    pub which_size: fn(&str) -> String,
    /// Which variant: (the variants).
    pub which_one: fn(&str) -> String,
    /// A size not in stock: (size, sizes in stock).
    pub size_unavailable: fn(&str, &str) -> String,
    /// A refinement with no search yet.
    pub what_to_search: &'static str,
    /// An ordinal with no list.
    pub nothing_listed: &'static str,
    /// An ordinal beyond the list: (its length).
    pub no_such_item: fn(usize) -> String,
    /// No store matched.
    pub no_stores: &'static str,
    /// Stores found: (total).
    pub found_stores: fn(u64) -> String,
    /// Before opening hours in a store list.
    pub open_hours: &'static str,
    /// After a store list.
    pub which_store: &'static str,
    /// A store with no reviews: (name).
    pub no_reviews: fn(&str) -> String,
    /// Reviews of a store: (name, average rating).
    pub reviews: fn(&str, &str) -> String,
    /// A store's basics: (name, place, hours, phone).
    pub store_basic: fn(&str, &str, &str, &str) -> String,
    /// A store with no promotions: (name).
    pub no_promotions: fn(&str) -> String,
    /// A store's promotions: (name).
    pub promotions: fn(&str) -> String,
    /// One promotion: (title, description or empty, valid until).
    pub promotion: fn(&str, &str, &str) -> String,
    /// The title of an offer the mall wrote in no words of this language.
    pub untranslated_offer: &'static str,
    /// The title of an event the mall wrote in no words of this language.
    pub untranslated_event: &'static str,
    /// No store by that name: (the name, close names).
    pub store_not_found: fn(&str, &str) -> String,
    /// Where directions start by default.
    pub main_entrance: &'static str,
    /// Directions to a store shown on the plan: (name, place, from, metres, minutes).
    pub route_here: fn(&str, &str, &str, u32, u32) -> String,
    /// Directions to a store: (name, from, metres, minutes).
    pub route_to: fn(&str, &str, u32, u32) -> String,
    /// Directions without a walk measured (no map): (name, place, from).
    pub route_here_unmeasured: fn(&str, &str, &str) -> String,
    /// Directions without a walk measured (no map): (name, from).
    pub route_to_unmeasured: fn(&str, &str) -> String,
    /// An area: (name, floor, description or empty).
    pub area: fn(&str, &str, &str) -> String,
    /// Before the stores of an area.
    pub stores_here: &'static str,
    /// After `add_to_cart`: (name, quantity, cart total).
    pub added: fn(&str, u64, &str) -> String,
    /// Before the cart's lines.
    pub cart_title: &'static str,
    /// After the cart's lines: (total).
    pub cart_total: fn(&str) -> String,
    /// After `remove_from_cart`, nothing left.
    pub removed_empty: &'static str,
    /// After `remove_from_cart`, before what is left.
    pub removed_title: &'static str,
    /// After what is left: (total).
    pub removed_total: fn(&str) -> String,
    /// The cart is empty.
    pub cart_empty: &'static str,
    /// After `clear_cart`.
    pub cart_cleared: &'static str,
    /// Which cart line to remove.
    pub which_cart_item: &'static str,
    /// "Add to cart" with no product shown.
    pub which_product: &'static str,
    /// An order status.
    pub status: fn(OrderStatus) -> &'static str,
    /// Where to pick an order up: (store, place in brackets).
    pub pickup: fn(&str, &str) -> String,
    /// After `create_order`: (id, status, total, pickup).
    pub order_created: fn(&str, &str, &str, &str) -> String,
    /// An order: (id, status, total, date, pickup).
    pub order_status: fn(&str, &str, &str, &str, &str) -> String,
    /// After `cancel_order`: (id, total).
    pub order_cancelled: fn(&str, &str) -> String,
    /// After cancelling a paid order, as the mall answered, following
    /// [`Answers::order_cancelled`] (English begins with a space, as every
    /// sentence that follows another): the refund is under way: (amount).
    pub refund_pending: fn(&str) -> String,
    /// After cancelling a paid order: the money is back already: (amount).
    pub refund_done: fn(&str) -> String,
    /// Before the list of orders.
    pub orders_title: &'static str,
    /// One order in the list: (number, id, status, total, items, date).
    pub order_line: fn(usize, &str, &str, &str, u32, &str) -> String,
    /// No orders at all.
    pub no_orders: &'static str,
    /// No order that can be cancelled (unpaid, or paid and not ready).
    pub no_pending_orders: &'static str,
    /// No order waits for payment.
    pub no_unpaid_orders: &'static str,
    /// How an order is paid ("how do I pay?").
    pub how_to_pay: &'static str,
    /// The shopper pressed Cancel.
    pub declined: &'static str,
    /// A tool only for private chats, asked in a group.
    pub private_only: &'static str,
    /// A tool not offered here.
    pub cannot_here: &'static str,
    /// The order can no longer be cancelled.
    pub not_cancellable: &'static str,
    /// Prices changed before the order.
    pub price_changed: &'static str,
    /// Arguments the mall refused.
    pub invalid: &'static str,
    /// The mall does not answer.
    pub mall_down: &'static str,
    /// Not enough stock.
    pub no_stock: &'static str,
    /// After [`Answers::no_stock`]: (sizes in stock).
    pub other_sizes: fn(&str) -> String,
    /// After [`Answers::no_stock`] with no other size.
    pub fewer: &'static str,
    /// No such store.
    pub store_missing: &'static str,
    /// No such area.
    pub area_missing: &'static str,
    /// No such product.
    pub product_missing: &'static str,
    /// No such order.
    pub order_missing: &'static str,
    /// Nothing found.
    pub nothing_found: &'static str,
}

/// What tools add to their results.
#[derive(Debug)]
pub struct Tools {
    /// The status line of a tool that declares none.
    pub working: &'static str,
    /// The suggestion to add a product to the cart.
    pub add_to_cart: &'static str,
    /// The suggestion to look at the first product found.
    pub show_first: &'static str,
    /// The suggestions after adding to the cart.
    pub after_add: [&'static str; 2],
    /// The suggestion to look at a store's promotions: (store).
    pub promotions_of: fn(&str) -> String,
    /// Before the line added to the cart.
    pub add_preview: &'static str,
    /// Before the line removed from the cart.
    pub remove_preview: &'static str,
    /// Before the cart about to be emptied.
    pub clear_preview: &'static str,
    /// Before the order about to be placed.
    pub order_preview: &'static str,
    /// Before the pickup store of that order.
    pub pickup: &'static str,
    /// Before the order about to be cancelled: (id).
    pub cancel_preview: fn(&str) -> String,
    /// Under a paid order about to be cancelled: (amount paid).
    pub cancel_refund: fn(&str) -> String,
    /// The button under directions and store answers that opens the Mini App's map.
    pub map_button: &'static str,
    /// The chat's menu button that opens the Mini App.
    pub menu_button: &'static str,
}

/// Paying for orders in chat, what the shopper hears about them later, and
/// the admins' order commands.
#[derive(Debug)]
pub struct Pay {
    /// The button that sends an unpaid order's invoice.
    pub button: &'static str,
    /// The button that asks the way to the pickup store.
    pub directions_button: &'static str,
    /// What the directions button sends: (store).
    pub directions_request: fn(&str) -> String,
    /// The invoice's title: (store).
    pub invoice_title: fn(&str) -> String,
    /// The invoice's description: (order id, minutes to pay).
    pub invoice_description: fn(&str, u64) -> String,
    /// The one line of an invoice whose order took a coupon's discount: (order id).
    pub invoice_discounted_line: fn(&str) -> String,
    /// A coupon's discount on an invoice and its receipt: (subtotal, discount, total).
    pub discount_summary: fn(&str, &str, &str) -> String,
    /// After an order placed with payments on: (minutes to pay).
    pub pay_in_chat: fn(u64) -> String,
    /// After an order placed with payments off.
    pub pay_at_store: &'static str,
    /// The invoice could not be sent: (order id).
    pub invoice_failed: fn(&str) -> String,
    /// The pay button of an order that can no longer be paid: (order id, status).
    pub not_payable: fn(&str, &str) -> String,
    /// Pre-checkout refusals: a payload that is not the bot's.
    pub refuse_forged: &'static str,
    /// Pre-checkout: the order is someone else's.
    pub refuse_not_yours: &'static str,
    /// Pre-checkout: the order was cancelled.
    pub refuse_cancelled: &'static str,
    /// Pre-checkout: expired, or about to.
    pub refuse_expired: &'static str,
    /// Pre-checkout: paid already.
    pub refuse_paid: &'static str,
    /// Pre-checkout: the amount or currency is not the order's.
    pub refuse_mismatch: &'static str,
    /// Pre-checkout: the mall does not answer.
    pub refuse_unavailable: &'static str,
    /// The payment is recorded: (order id, total, store, place).
    pub paid: fn(&str, &str, &str, &str) -> String,
    /// The money arrived but the mall could not be told yet: (order id).
    pub paid_pending: fn(&str) -> String,
    /// The money arrived for an order the mall no longer takes: (order id).
    pub refund_due: fn(&str) -> String,
    /// Event: the order was paid (elsewhere): (order id).
    pub event_paid: fn(&str) -> String,
    /// Event: ready for pickup: (order id, store, place).
    pub event_ready: fn(&str, &str, &str) -> String,
    /// Event: picked up: (order id).
    pub event_completed: fn(&str) -> String,
    /// Event: expired unpaid: (order id).
    pub event_expired: fn(&str) -> String,
    /// Event: cancelled by the mall or the store: (order id).
    pub event_cancelled: fn(&str) -> String,
    /// Event: the refund was paid out: (order id).
    pub event_refunded: fn(&str) -> String,
    /// `/ready` or `/pickedup` without an order id.
    pub staff_usage: &'static str,
    /// `/ready` or `/pickedup` done: (order id, new status).
    pub staff_done: fn(&str, &str) -> String,
    /// `/ready` or `/pickedup` refused by the mall: (order id, why).
    pub staff_failed: fn(&str, &str) -> String,
    /// `/stats`: payments the mall refused, to refund: (how many, the orders).
    pub stats_refunds: fn(usize, &str) -> String,
    /// The terminal's invoice line: (order id, total).
    pub console_invoice: fn(&str, &str) -> String,
    /// The terminal's `/pay` with no invoice shown.
    pub console_no_invoice: &'static str,
    /// The terminal's `/pay`: a test payment was made.
    pub console_test_paid: &'static str,
}

/// What the MCP side says to a person: the status line of a tool lent by an
/// MCP server, and the answers of `mallbot mcp` about confirmations.
#[derive(Debug)]
pub struct Mcp {
    /// The status line while a tool lent by an MCP server runs: (the server).
    pub remote_progress: fn(&str) -> String,
    /// A risky call from a client that cannot ask its user: (the tool).
    pub needs_elicitation: fn(&str) -> String,
    /// The person declined or dismissed the confirmation.
    pub declined: &'static str,
    /// The order's figures kept changing while the person confirmed.
    pub kept_changing: &'static str,
    /// The confirmation could not be asked (the client failed).
    pub could_not_ask: &'static str,
    /// Something failed inside (the mall, the state store): (the error's id in the log).
    pub failed: fn(&str) -> String,
}

/// The mall's facilities and the way to the nearest one (`find_facility`).
#[derive(Debug)]
pub struct Facilities {
    /// A kind's name by its IMDF key (`restroom` → "洗手间", "restroom");
    /// `None` for a key this table does not name.
    pub kind: fn(&str) -> Option<&'static str>,
    /// The status line while the nearest is looked up: (the kind's name).
    pub progress: fn(&str) -> String,
    /// The nearest found: (its name, its floor, where the walk starts, metres, minutes).
    pub nearest: fn(&str, &str, &str, u32, u32) -> String,
    /// The mall has none of a kind: (the kind asked, the kinds it has).
    pub missing: fn(&str, &str) -> String,
    /// The mall has no indoor map to find facilities on.
    pub no_map: &'static str,
    /// The place the shopper said they are at is not on the map.
    pub unknown_start: &'static str,
    /// A suggestion button asking for the nearest of a kind: (the kind's name).
    pub ask_nearest: fn(&str) -> String,
}

/// A person at the mall's service desk: what the shopper is told about the
/// hand-off, what staff read in the desk's topic, and the misses report.
#[derive(Debug)]
pub struct Support {
    /// The button offered after two answers in a row that did not help;
    /// pressing it sends it as a message, which asks for a person.
    pub button: &'static str,
    /// Asking for a person: the desk is being reached.
    pub connecting: &'static str,
    /// The first message from staff: a person is with the shopper now (said once).
    pub joined: &'static str,
    /// Staff ended the conversation: the bot answers again.
    pub closed: &'static str,
    /// There is no desk in Telegram (or it could not be reached), and the mall's
    /// information says nothing of its service desk: no place, no phone.
    pub no_desk: &'static str,
    /// There is no desk in Telegram: the mall's own service desk section
    /// (its title, its text), which says where it is, when, its phone.
    pub no_desk_at: fn(&str, &str) -> String,
    /// Outside `support.hours`: (when the desk opens, `HH:MM`).
    pub after_hours: fn(&str) -> String,
    /// Nobody answered within `support.answer_within_mins`.
    pub no_answer_yet: &'static str,
    /// The button: keep waiting for a person.
    pub keep_waiting: &'static str,
    /// The button: go on with the bot.
    pub back_to_bot: &'static str,
    /// After "keep waiting".
    pub waiting: &'static str,
    /// After "go on with the bot".
    pub back: &'static str,
    /// The reason recorded when the shopper asked for a person in words.
    pub asked_reason: &'static str,
    /// The desk's card: (shopper's name, language, reason, recent lines, cart and orders).
    pub card: fn(&str, &str, &str, &str, &str) -> String,
    /// The card's button that ends the conversation.
    pub close_button: &'static str,
    /// In the topic: the conversation was ended; the shopper was told.
    pub closed_note: &'static str,
    /// In the topic: the shopper blocked the bot; nothing reaches them.
    pub blocked_note: &'static str,
    /// In the topic: the shopper chose to go on with the bot.
    pub went_back_note: &'static str,
    /// The press of a close button on a conversation already ended.
    pub already_closed: &'static str,
    /// `/report` outside a private chat.
    pub report_private_only: &'static str,
}

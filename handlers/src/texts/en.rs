//! English.

use std::borrow::Cow;

use services::OrderStatus;

use super::{
    Answers, Commands, Confirm, Facilities, Format, Mcp, Media, Pay, SmallTalk, Support, Texts, Tools, Turn,
};
use crate::context::Lang;

pub(crate) static TEXTS: Texts = Texts {
    model_language: "English",
    tool_lang: Lang::En,
    tool_text: |line| line,
    tool_line: |line| Cow::Borrowed(line.en),
    format: Format {
        floor: |n| format!("{n}F"),
        floor_unit: |floor, unit| format!("{floor}, unit {unit}"),
        paren: |inner| format!(" ({inner})"),
        list_sep: ", ",
        comma: ", ",
        english_names: true,
        mall_text: |text| Cow::Borrowed(text),
        item_sized: |name, size, quantity| format!("{name} (size {size}) × {quantity}"),
        item_labelled: |name, label, quantity| format!("{name} ({label}) × {quantity}"),
        item_plain: |name, quantity| format!("{name} × {quantity}"),
        total: "Total: ",
        navigate_suggestion: |name| format!("Take me to {name}"),
        next_day: |time| format!("{time} (next day)"),
    },
    commands: Commands {
        greeting: "Hello! I'm the mall's shopping guide 🛍️\n\nJust tell me in words what you're looking for: stores, \
                   products, prices, your cart, orders for pickup. Tap an example below to try, or send /help to see \
                   everything I can do.",
        help_intro: "I can help with:",
        help_private_note: " (private chat)",
        help_commands: "Commands: /cart your cart · /orders your orders · /car your car (/car ABC123 saves a plate) · /points your points · /coupons your coupons · /reset start over · /lang zh|zh-hant|en language",
        help_group: "In groups, @mention me or reply to my message.",
        menu: [
            "Get started",
            "What I can do",
            "Show my cart",
            "My orders",
            "My car: parking status; /car ABC123 saves a plate",
            "My points and their latest changes",
            "My coupons and the ones to claim",
            "Start the conversation over",
            "Switch language: /lang zh, /lang zh-hant or /lang en",
        ],
        unknown_command: "I don't know that command. Just tell me in words what you're looking for, or send /help to see what I can do.",
        please_write: "I can only read text 🙂 Please write to me what you're looking for, e.g. \"Where is the Nike store?\"",
        apology: "Sorry, something went wrong on my side. Please try again in a moment.",
        reset_done: "Done — I've forgotten our conversation. Let's start over.",
        lang_set: "OK, I'll answer in English from now on.",
        lang_usage: "Usage: /lang en (English), /lang zh (简体中文) or /lang zh-hant (繁體中文)",
        health_private_only: "Please use /health in a private chat.",
        stats_private_only: "Please use /stats in a private chat.",
        confirm_button: "✅ Confirm",
        cancel_button: "✖️ Cancel",
        open_private: "💬 Continue in private chat",
        code_needed: "🔐 Type the code to finish confirming.",
        button_expired: "This button has expired; please type your request.",
        privacy_off: "Privacy mode: off (mentions in groups reach the bot)",
        privacy_on: "Privacy mode: ON ⚠️ in groups the bot only sees commands and replies to it, not @mentions.\n  Fix: in @BotFather send /setprivacy → pick this bot → Disable, or make the bot a group admin.",
        console_confirm: "Confirm? (y/n) ",
        console_still_waiting: |summary| {
            format!("Still waiting for your confirmation: {summary}\nType y to confirm or n to cancel.")
        },
        console_banner: |user, examples| {
            format!(
                "mallbot — mall shopping guide. You are shopper {user}.\n\
                 Ask in Chinese or English, e.g. {examples}.\n\
                 Commands: /help /cart /orders /car /points /coupons /reset /lang zh|zh-hant|en /health /stats /quit. A number picks a \
                 suggestion.\n\
                 /voice FILE sends a recording as a voice message, /photo FILE [caption] a picture as a photo.\n\
                 An order shows its invoice as a line; /pay makes a test payment of the last one."
            )
        },
    },
    turn: Turn {
        words_please: "Please tell me in words what you are looking for.",
        rate_limited: "You're sending messages a little fast — please wait a minute and try again.",
        too_many_waiting: "I'm still working through your earlier messages, so I skipped the newest ones — please send them again once I've answered.",
        refused: "Sorry, this shopping guide is only open to invited shoppers for now.",
        done: "Done.",
        gave_up: "Sorry, I couldn't finish that within my step limit. Could you rephrase it or ask one thing at a time?",
        over_budget: "(You've used today's allowance of the smart assistant, so for the rest of the day I'm answering in basic mode.)",
        basic_mode: "(Basic mode: the assistant can't be reached right now, so I'm answering in a simpler way.)",
        private_only: "Please check your cart and orders in a private chat.",
        lookup_failed: "Sorry, I can't look that up right now. Please try again shortly.",
        group_handoff: "Carts and orders are handled in a private chat — tap the button below and we'll continue there.",
        stats_unreadable: "cannot read today's figures",
        stats_labels: [
            "Today",
            "messages",
            "shoppers",
            "model tokens",
            "orders",
            "top tools",
            "errors",
            "voice messages transcribed",
        ],
    },
    confirm: Confirm {
        check_order: |summary| format!("Please check your order and confirm:\n{summary}"),
        please_confirm: |summary| format!("Please confirm:\n{summary}"),
        run: "Run: ",
        cannot_hold: "Sorry, I couldn't hold that action for confirmation right now. Please try again shortly.",
        not_yours: "This confirmation belongs to another shopper; only they can press it.",
        confirmed: "Confirmed: ",
        cancelled: "Cancelled: ",
        in_progress: "This is being carried out right now — the result is on its way.",
        press_again: "Something went wrong — please press again in a moment.",
        order_changed_unsaved: "Your order changed, and I couldn't hold a new confirmation — please place the order again.",
        order_changed: "The price or stock changed — please confirm the updated order.",
        wrong_code: "That code doesn't match — please type it again.",
        already_done_as: "Already done: ",
        already_done: "This has already been handled.",
        outcome_cancelled: "cancelled",
        outcome_order: "order ",
        outcome_failed: "it could not be done",
        code_request: |code| format!("For your safety, type the code {code} to place the order."),
        expired: "This confirmation has expired — please ask again.",
        code_in_chat: "This order needs the one-time code, which can only be typed in the chat with the bot: nothing was done here — please place the order in the chat.",
        too_large: "This request is too long to keep for confirmation; nothing was done.",
    },
    small_talk: SmallTalk {
        thanks: "You're welcome! Anything else I can find for you?",
        bye: "Bye — enjoy your shopping!",
        who: "I'm the mall's shopping guide: I can find products and stores, show you the way, check deals and \
              reviews, and handle your cart and orders.",
        hello: "Hello! I'm the mall's shopping guide — looking for something to buy, or a store?",
        other: "I'm not sure about that 😅 I'm best at shopping in the mall: products, stores, directions, your cart \
                and orders.",
        find_example: |product| format!("Find {product}"),
        where_example: |store| format!("Where is {store}?"),
        offers_example: |store| format!("Any deals at {store}?"),
        cart_example: "Show my cart",
    },
    answers: Answers {
        done: "Done.",
        found_products: |total, cheap| {
            let products = if total == 1 { "product" } else { "products" };
            format!("I found {total} {products}{}:", if cheap { " (cheapest first)" } else { "" })
        },
        rated: "rated ",
        at: "at ",
        reply_first: "Reply \"the first one\" to see details.",
        price_between: |min, max| format!(" between {min} and {max}"),
        price_under: |max| format!(" under {max}"),
        price_over: |min| format!(" over {min}"),
        no_products: |keyword, range| {
            format!(
                "Nothing matched \"{keyword}\"{range}. Try loosening the filters — a higher price limit or another keyword."
            )
        },
        more_products: |others| {
            if others == 1 {
                "There is 1 more; reply \"the second one\" to see it.".to_owned()
            } else {
                format!("There are {others} more; reply \"the second one\" to see the next.")
            }
        },
        out_of_stock: "Sorry, this item is out of stock right now.",
        add_it: "Shall I add it to your cart? Just say \"add to cart\".",
        which_size: |listed| format!("Sizes in stock: {listed}. Which size would you like?"),
        which_one: |listed| format!("In stock: {listed}. Which one would you like?"),
        size_unavailable: |size, sizes| {
            format!("Sorry, size {size} is not in stock. Sizes in stock: {sizes}. Which would you like?")
        },
        what_to_search: "What are you looking for? E.g. \"Nike running shoes under 500\".",
        nothing_listed: "There is no list to pick from yet — tell me what you are looking for.",
        no_such_item: |len| {
            if len == 1 {
                "The last list had only 1 product; say \"the first one\" to pick it.".to_owned()
            } else {
                format!("The last list had {len} products; pick a number from 1 to {len}.")
            }
        },
        no_stores: "I found no such store. Try another keyword?",
        found_stores: |total| format!("I found {total} {}:", if total == 1 { "store" } else { "stores" }),
        open_hours: ", open ",
        which_store: "Tell me which one and I'll show you the way.",
        no_reviews: |name| format!("{name} has no reviews yet."),
        reviews: |name, average| format!("{name} is rated {average} on average. Recent reviews:"),
        store_basic: |name, place, hours, phone| {
            let hours = if hours.is_empty() { String::new() } else { format!(", open {hours}") };
            let phone = if phone.is_empty() { String::new() } else { format!(", phone {phone}") };
            format!("{name} is on {place}{hours}{phone}.")
        },
        no_promotions: |name| format!("{name} has no promotions right now."),
        promotions: |name| format!("Current deals at {name}:"),
        promotion: |title, description, until| match description {
            "" => format!("{title} (until {until})"),
            _ => format!("{title}: {description} (until {until})"),
        },
        untranslated_offer: "An offer (described in Chinese only)",
        untranslated_event: "An event (described in Chinese only)",
        store_not_found: |name, closest| {
            format!(
                "I couldn't find a store called \"{name}\". Stores with close names: {closest}. Tap one below for directions."
            )
        },
        main_entrance: "the main entrance",
        route_here: |name, place, from, distance, eta| {
            format!("{name} is on {place}. From {from} it is about {distance} m, {eta} min on foot:")
        },
        route_to: |name, from, distance, eta| {
            format!("To {name}: from {from} it is about {distance} m, {eta} min on foot:")
        },
        route_here_unmeasured: |name, place, from| format!("{name} is on {place}. From {from}:"),
        route_to_unmeasured: |name, from| format!("To {name}: from {from}:"),
        area: |name, floor, description| format!("{name} is on {floor}. {description}").trim_end().to_owned(),
        stores_here: "Stores here: ",
        added: |name, quantity, total| {
            format!(
                "Added to your cart: {name} × {quantity}. Cart total: {total}. Shall I place the order now?"
            )
        },
        cart_title: "Your cart:",
        cart_total: |total| format!("Total: {total}. Shall I place the order?"),
        removed_empty: "Removed. Your cart is now empty.",
        removed_title: "Removed. Still in your cart:",
        removed_total: |total| format!("Total: {total}."),
        cart_empty: "Your cart is empty — pick something first.",
        cart_cleared: "Your cart is now empty.",
        which_cart_item: "Which item should I remove? E.g. \"remove the first item\":",
        which_product: "Which product should I add? Tell me what you are looking for first.",
        status: |status| match status {
            OrderStatus::PendingPayment => "pending payment",
            OrderStatus::Paid => "paid",
            OrderStatus::Cancelled => "cancelled",
            OrderStatus::Completed => "completed",
            OrderStatus::Ready => "ready for pickup",
            OrderStatus::Expired => "expired",
        },
        pickup: |name, at| format!(" Pick up at {name}{at}."),
        order_created: |id, status, total, pickup| {
            format!("Order placed! Order {id} — status: {status}, total {total}.{pickup}")
        },
        order_status: |id, status, total, created, pickup| {
            format!("Order {id}: {status}, total {total}, placed on {created}.{pickup}")
        },
        order_cancelled: |id, total| format!("Order {id} ({total}) has been cancelled."),
        refund_pending: |amount| {
            format!(
                " The {amount} you paid will be refunded: the mall is processing it, and you will hear when it is done."
            )
        },
        refund_done: |amount| format!(" The {amount} you paid has been refunded."),
        orders_title: "Your orders:",
        order_line: |i, id, status, total, count, created| {
            let items = if count == 1 { "item" } else { "items" };
            format!("{i}. {id} — {status}, {total}, {count} {items}, {created}")
        },
        no_orders: "You have no orders yet.",
        no_pending_orders: "You have no order that can be cancelled (only unpaid orders, and paid ones not yet ready, can be).",
        no_unpaid_orders: "You have no order waiting for payment: every order is paid or closed.",
        how_to_pay: "Put what you want in your cart and say \"checkout\": I place the order for pickup at the store. If an invoice comes with the order, pay it right here in the chat (💳 Pay under /orders too); otherwise you pay at the pickup store when you collect it.",
        declined: "OK, cancelled — nothing was changed.",
        private_only: "The cart and orders are only available in a private chat — please message me directly.",
        cannot_here: "Sorry, I can't do that here.",
        not_cancellable: "That order can no longer be cancelled: only unpaid orders, and paid ones not yet ready, can be.",
        price_changed: "Prices have changed, so no order was placed. Please check your cart's new total and order again.",
        invalid: "Sorry, I couldn't handle that request. Could you rephrase it?",
        mall_down: "Sorry, the mall's system isn't responding right now. Please try again in a minute.",
        no_stock: "Sorry, there isn't enough stock for that.",
        other_sizes: |sizes| format!(" Sizes in stock: {sizes}. Would another size do?"),
        fewer: " Try a smaller quantity or another product.",
        store_missing: "I couldn't find that store. Try a search such as \"find a coffee shop\".",
        area_missing: "I couldn't find that area. Could you say it another way?",
        product_missing: "I couldn't find that product. Let's search again.",
        order_missing: "I couldn't find that order. Say \"my orders\" to see them all.",
        nothing_found: "I couldn't find that. Try a search?",
    },
    tools: Tools {
        working: "⏳ Working on it…",
        add_to_cart: "Add to cart",
        show_first: "Show the first one",
        after_add: ["View cart", "Place the order"],
        promotions_of: |name| format!("Promotions at {name}"),
        add_preview: "Add to cart: ",
        remove_preview: "Remove from cart: ",
        clear_preview: "Empty the cart:",
        order_preview: "Place this order:",
        pickup: "Pickup: ",
        cancel_preview: |id| format!("Cancel order {id}:"),
        cancel_refund: |amount| {
            format!("💰 This order is paid ({amount}): cancelling asks the mall to refund it.")
        },
        map_button: "🗺 See on the map",
        menu_button: "🛍 Mall",
    },
    map: maps::MapWords::ENGLISH,
    facilities: Facilities {
        kind: |key| {
            Some(match key {
                "restroom" => "restroom",
                "restroom.wheelchair" => "accessible restroom",
                "restroom.family" => "family restroom",
                "mothersroom" => "nursing room",
                "babychanging" => "baby changing room",
                "information" => "service desk",
                "atm" => "ATM",
                "firstaid" => "first aid room",
                "powerchargingstation" => "phone charging station",
                "coinlocker" => "lockers",
                "drinkingfountain" => "drinking water",
                "smokingarea" => "smoking area",
                "elevator" => "lift",
                "escalator" => "escalator",
                "stairs" => "stairs",
                "parking" => "car park entrance",
                _ => return None,
            })
        },
        progress: |kind| format!("🚻 Finding the nearest {kind}…"),
        nearest: |name, floor, from, m, min| {
            format!("Nearest: {name} on {floor}, about {m} m from {from}, a {min} min walk:")
        },
        missing: |kind, kinds| format!("Sorry, the mall's map has no {kind}. It has: {kinds}."),
        no_map: "Sorry, this mall has no indoor map yet, so I can't find its facilities. The service desk can help.",
        unknown_start: "Sorry, I can't find where you said you are on the map. Tell me a store, an entrance or a floor (\"I'm on 3F\") and I'll look again.",
        ask_nearest: |kind| format!("Nearest {kind}"),
    },
    media: Media {
        listening: "🎤 Listening to your voice message…",
        looking: "🖼️ Looking at your photo…",
        voice_off: "Sorry, I can't listen to voice messages here 🙂 Typing works: tell me what you're looking for, \
                    e.g. \"Where is the Nike store?\"",
        too_long: |max| {
            format!(
                "That voice message is too long: I can listen to {max} seconds at most. \
                 Please send a shorter one, or type your request."
            )
        },
        too_big: "That file is too big for me to fetch (over 20 MB). Please send a shorter voice message, \
                  or type your request.",
        transcription_failed: "Sorry, I couldn't transcribe your voice message just now. Please try again in a moment, \
                               or type your request.",
        nothing_heard: "I couldn't hear anything, please try again or type.",
        voice_over_budget: "You've used today's allowance of the smart assistant, so I can't listen to voice messages \
                            until tomorrow. Typing works: tell me what you're looking for.",
        fetch_failed: "Sorry, I couldn't fetch what you sent. Please send it again, or type your request.",
        photo_default_ask: "Find this in the mall.",
        photo_unseen: "Sorry, I can't look at photos here 🙂 Please describe in words what you're looking for, \
                       e.g. \"white Nike running shoes\", or send the photo again with a caption.",
        send_it_instead: "Just send me the voice message or photo itself; no command needed.",
        console_usage: "Usage: /voice FILE (ogg, mp3, m4a, wav…) or /photo FILE [caption] (jpg, png)",
        console_unreadable: |path, why| format!("Cannot read {path}: {why}"),
    },
    pay: Pay {
        button: "💳 Pay",
        directions_button: "🧭 How to get there",
        directions_request: |store| format!("Take me to {store}"),
        invoice_title: |store| format!("Order at {store}"),
        invoice_description: |id, mins| {
            format!("Order {id}, for pickup in store. Please pay within {mins} minutes.")
        },
        invoice_discounted_line: |id| format!("Order {id} (coupon applied)"),
        discount_summary: |subtotal, off, total| {
            format!("Subtotal {subtotal} − coupon {off} = {total} to pay")
        },
        pay_in_chat: |mins| {
            format!(
                "💳 Please pay with the invoice below (valid {mins} minutes; then the order is cancelled and the stock released)."
            )
        },
        pay_at_store: "Please pay at the pickup store when you collect it.",
        invoice_failed: |id| {
            format!(
                "The invoice could not be sent just now; press 💳 Pay under your orders later (order {id})."
            )
        },
        not_payable: |id, status| format!("Order {id} is {status} now and cannot be paid."),
        refuse_forged: "This invoice cannot be verified; press 💳 Pay under your orders again",
        refuse_not_yours: "This is not your order",
        refuse_cancelled: "This order was cancelled",
        refuse_expired: "The order has expired; please order again",
        refuse_paid: "This order is paid already",
        refuse_mismatch: "The order's amount changed; press 💳 Pay under your orders again",
        refuse_unavailable: "The mall's system is unavailable; please try again later",
        paid: |id, total, store, place| {
            format!(
                "✅ Paid! Order {id}, {total}.\nPick it up at {store}{place}. I will tell you when it is ready."
            )
        },
        paid_pending: |id| {
            format!(
                "✅ Your payment arrived (order {id}). The mall is recording it; I will tell you when it has, and you are not charged twice."
            )
        },
        refund_due: |id| {
            format!(
                "Your payment arrived, but the order is no longer valid; it will be refunded in full (order {id})."
            )
        },
        event_paid: |id| format!("✅ Order {id} is paid."),
        event_ready: |id, store, place| format!("🛍️ Order {id} is ready for pickup at {store}{place}."),
        event_completed: |id| format!("📦 Order {id} was picked up. Thank you!"),
        event_expired: |id| {
            format!(
                "⌛ Order {id} was not paid in time and has been cancelled; the stock is released. You can order again."
            )
        },
        event_cancelled: |id| format!("Order {id} was cancelled."),
        event_refunded: |id| format!("💰 The refund of order {id} is done."),
        staff_usage: "Usage: /ready ORDER or /pickedup ORDER",
        staff_done: |id, status| format!("Order {id} is now {status}; the shopper is told."),
        staff_failed: |id, why| format!("Order {id} was not updated: {why}"),
        stats_refunds: |n, orders| format!("⚠️ To refund (payments the mall refused): {n} ({orders})"),
        console_invoice: |id, total| {
            format!("🧾 Invoice: order {id}, {total} (test: type /pay to make a test payment)")
        },
        console_no_invoice: "No invoice yet: place an order first.",
        console_test_paid: "🧪 Test payment (no real money)",
    },
    mcp: Mcp {
        remote_progress: |server| format!("⏳ Asking {server}…"),
        needs_elicitation: |tool| {
            format!(
                "`{tool}` changes your cart or orders and needs your confirmation first, but this client does not \
                 support MCP elicitation, so nothing was done. Use a client that supports elicitation, or finish \
                 this step with the bot in Telegram."
            )
        },
        declined: "You declined; nothing was done.",
        kept_changing: "The order kept changing while you confirmed, so nothing was done — please try again shortly.",
        could_not_ask: "Your confirmation could not be asked for, so nothing was done.",
        failed: |id| {
            format!(
                "Something went wrong on our side, so nothing was done (error {id}). Please try again later."
            )
        },
    },
    mall: super::mall::EN,
    alerts: super::alerts::EN,
    guide: super::guide::EN,
    support: Support {
        button: "👤 Talk to a person",
        connecting: "👤 Connecting you to the service desk — one moment. You can describe what happened here; the staff will see it.",
        joined: "👤 A member of the mall's staff has joined; you are talking to a person now.",
        closed: "The service desk has ended this conversation. I (the shopping guide) will answer again; say \"human\" any time you need a person.",
        no_desk: "Sorry, I cannot reach a person from here. Please ask at the mall's service desk.",
        no_desk_at: |title, text| {
            format!("Sorry, I cannot reach a person from here. Please ask the mall's staff:\n{title}: {text}")
        },
        after_hours: |opens| {
            format!(
                "The service desk is closed now and opens at {opens}. Until then I can find stores and products and check your orders; for anything urgent, please ask at the mall's service desk."
            )
        },
        no_answer_yet: "The staff are all busy and nobody has answered yet. You can keep waiting, or let me (the shopping guide) help meanwhile.",
        keep_waiting: "⏳ Keep waiting",
        back_to_bot: "🤖 Ask the guide",
        waiting: "All right — the staff's answer will appear here.",
        back: "All right, I (the shopping guide) am back. Say \"human\" any time you need a person.",
        asked_reason: "the shopper asked for a person",
        card: |name, lang, reason, recent, shopping| {
            format!(
                "🆕 Request for a person\nShopper: {name} ({lang})\nReason: {reason}\n\nRecent messages:\n{recent}\n\nCart and orders:\n{shopping}\n\nReply in this topic to write to the shopper; send /close or press the button to end."
            )
        },
        close_button: "✅ End conversation",
        closed_note: "✅ Conversation ended; the shopper was told.",
        blocked_note: "⛔ The shopper blocked the bot; nothing reaches them.",
        went_back_note: "↩️ The shopper chose to go on with the guide; conversation ended.",
        already_closed: "This conversation has already ended.",
        report_private_only: "/report works only in a private chat with me.",
    },
};

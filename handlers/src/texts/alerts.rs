//! What the bot says about stock and price alerts, in each language:
//! [`AlertTexts`], one value per table ([`ZH_HANS`], [`ZH_HANT`], [`EN`]).

/// Stock and price alerts.
#[derive(Debug)]
pub struct AlertTexts {
    /// The status line while an alert is set.
    pub progress: &'static str,
    /// What an alert waits for, back in stock: (product, size or ""); a
    /// phrase without a verb ("Nike Pegasus back in stock in size 42"), as lists and
    /// the lines around it read it.
    pub restock: fn(&str, &str) -> String,
    /// What an alert waits for, a price at or under: (product, price).
    pub price_at_most: fn(&str, &str) -> String,
    /// What an alert waits for, any drop: (product, price now).
    pub price_drop: fn(&str, &str) -> String,
    /// The confirmation: (what it waits for, days it lasts).
    pub preview: fn(&str, u32) -> String,
    /// Set: (what it waits for, days).
    pub set: fn(&str, u32) -> String,
    /// The cap reached: (the most one shopper may have).
    pub full: fn(u32) -> String,
    /// The size asked for is in stock now: (product, size or "").
    pub in_stock_now: fn(&str, &str) -> String,
    /// The price is at or under the figure already: (product, price now).
    pub price_already: fn(&str, &str) -> String,
    /// Told: back in stock: (product, sizes, price).
    pub told_restock: fn(&str, &str, &str) -> String,
    /// Told: cheaper: (product, old price, new price).
    pub told_price: fn(&str, &str, &str) -> String,
    /// The last word of an alert that ran out: (what it waited for).
    pub expired: fn(&str) -> String,
    /// `/alerts` heading: (how many).
    pub list_title: fn(usize) -> String,
    /// `/alerts` with none.
    pub list_empty: &'static str,
    /// One line of `/alerts`: (number, what it waits for, until date).
    pub list_line: fn(usize, &str, &str) -> String,
    /// The button removing alert number n.
    pub remove_button: fn(usize) -> String,
    /// Removed: (what it waited for).
    pub removed: fn(&str) -> String,
    /// A remove press for an alert already gone (fired, expired, removed).
    pub gone: &'static str,
    /// An alert asked for with no product named or shown.
    pub which_product: &'static str,
    /// The "add to cart" button under a told alert.
    pub cart_button: &'static str,
    /// Alerts are for private chats.
    pub private_only: &'static str,
}

/// Simplified Chinese.
pub const ZH_HANS: AlertTexts = AlertTexts {
    progress: "🔔 正在设置提醒…",
    restock: |product, size| {
        if size.is_empty() { format!("{product} 到货") } else { format!("{product}（{size}码）到货") }
    },
    price_at_most: |product, price| format!("{product} 降到 {price} 或以下"),
    price_drop: |product, price| format!("{product} 降价（现价 {price}）"),
    preview: |what, days| format!("🔔 设置提醒：{what}时私信告诉您（{days} 天内有效，只提醒一次）"),
    set: |what, days| format!("🔔 好的，{what}时我会告诉您（{days} 天内有效）。发 /alerts 查看或取消。"),
    full: |max| format!("您已有 {max} 个提醒，已到上限。发 /alerts 取消一个再设新的吧。"),
    in_stock_now: |product, size| {
        if size.is_empty() {
            format!("{product} 现在就有货，不用等提醒～")
        } else {
            format!("{product}（{size}码）现在就有货，不用等提醒～")
        }
    },
    price_already: |product, price| format!("{product} 现价 {price}，已经在您说的价格以下了。"),
    told_restock: |product, sizes, price| {
        if sizes.is_empty() {
            format!("🔔 到货啦：{product} 又有货了，{price}。")
        } else {
            format!("🔔 到货啦：{product} {sizes}码 又有货了，{price}。")
        }
    },
    told_price: |product, old, new| format!("🔔 降价啦：{product} {old} → {new}。"),
    expired: |what| format!("⏰ 您的提醒已到期：{what}。还想等的话，再跟我说一声就好。"),
    list_title: |n| format!("🔔 您的提醒（{n} 个）："),
    list_empty: "您还没有提醒。看中的商品缺货或嫌贵时，跟我说「到货告诉我」或「降到 400 以下告诉我」就行。",
    list_line: |n, what, until| format!("{n}. {what}（有效至 {until}）"),
    remove_button: |n| format!("❌ 取消 {n}"),
    removed: |what| format!("已取消提醒：{what}"),
    gone: "这个提醒已经不在了（已提醒、已到期或已取消）。",
    which_product: "您想等哪件商品到货或降价？告诉我商品名，比如「Nike Pegasus 41 42码到货告诉我」。",
    cart_button: "🛒 加入购物车",
    private_only: "提醒只能在私聊里设置哦。",
};

/// Traditional Chinese.
pub const ZH_HANT: AlertTexts = AlertTexts {
    progress: "🔔 正在設定提醒…",
    restock: |product, size| {
        if size.is_empty() { format!("{product} 到貨") } else { format!("{product}（{size}碼）到貨") }
    },
    price_at_most: |product, price| format!("{product} 降到 {price} 或以下"),
    price_drop: |product, price| format!("{product} 降價（現價 {price}）"),
    preview: |what, days| format!("🔔 設定提醒：{what}時私訊告訴您（{days} 天內有效，只提醒一次）"),
    set: |what, days| format!("🔔 好的，{what}時我會告訴您（{days} 天內有效）。傳 /alerts 查看或取消。"),
    full: |max| format!("您已有 {max} 個提醒，已達上限。傳 /alerts 取消一個再設新的吧。"),
    in_stock_now: |product, size| {
        if size.is_empty() {
            format!("{product} 現在就有貨，不用等提醒～")
        } else {
            format!("{product}（{size}碼）現在就有貨，不用等提醒～")
        }
    },
    price_already: |product, price| format!("{product} 現價 {price}，已經在您說的價格以下了。"),
    told_restock: |product, sizes, price| {
        if sizes.is_empty() {
            format!("🔔 到貨囉：{product} 又有貨了，{price}。")
        } else {
            format!("🔔 到貨囉：{product} {sizes}碼 又有貨了，{price}。")
        }
    },
    told_price: |product, old, new| format!("🔔 降價囉：{product} {old} → {new}。"),
    expired: |what| format!("⏰ 您的提醒已到期：{what}。還想等的話，再跟我說一聲就好。"),
    list_title: |n| format!("🔔 您的提醒（{n} 個）："),
    list_empty: "您還沒有提醒。看中的商品缺貨或嫌貴時，跟我說「到貨告訴我」或「降到 400 以下告訴我」就行。",
    list_line: |n, what, until| format!("{n}. {what}（有效至 {until}）"),
    remove_button: |n| format!("❌ 取消 {n}"),
    removed: |what| format!("已取消提醒：{what}"),
    gone: "這個提醒已經不在了（已提醒、已到期或已取消）。",
    which_product: "您想等哪件商品到貨或降價？告訴我商品名，比如「Nike Pegasus 41 42號到貨通知我」。",
    cart_button: "🛒 加入購物車",
    private_only: "提醒只能在私訊裡設定喔。",
};

/// English.
pub const EN: AlertTexts = AlertTexts {
    progress: "🔔 Setting your alert…",
    restock: |product, size| {
        if size.is_empty() {
            format!("{product} back in stock")
        } else {
            format!("{product} back in stock in size {size}")
        }
    },
    price_at_most: |product, price| format!("{product} at {price} or less"),
    price_drop: |product, price| format!("{product} cheaper than {price}"),
    preview: |what, days| {
        format!(
            "🔔 Set an alert: {what}. I'll message you when it happens (lasts {days} days, tells you once)."
        )
    },
    set: |what, days| {
        format!(
            "🔔 Alert set: {what}. I'll tell you when it happens (for {days} days). Send /alerts to see or cancel it."
        )
    },
    full: |max| {
        format!("You have {max} alerts, the most I keep. Send /alerts and cancel one to set a new one.")
    },
    in_stock_now: |product, size| {
        if size.is_empty() {
            format!("{product} is in stock right now, no need to wait.")
        } else {
            format!("{product} in size {size} is in stock right now, no need to wait.")
        }
    },
    price_already: |product, price| format!("{product} is {price} now, already at or under your figure."),
    told_restock: |product, sizes, price| {
        if sizes.is_empty() {
            format!("🔔 Back in stock: {product}, {price}.")
        } else {
            format!("🔔 Back in stock: {product} in size {sizes}, {price}.")
        }
    },
    told_price: |product, old, new| format!("🔔 Price drop: {product} {old} → {new}."),
    expired: |what| format!("⏰ Your alert ran out: {what}. Tell me again if you'd like to keep waiting."),
    list_title: |n| format!("🔔 Your alerts ({n}):"),
    list_empty: "You have no alerts. When something is sold out or too dear, say \"tell me when it's back in 42\" \
                 or \"let me know when it's under 400\".",
    list_line: |n, what, until| format!("{n}. {what} (until {until})"),
    remove_button: |n| format!("❌ Cancel {n}"),
    removed: |what| format!("Alert cancelled: {what}"),
    gone: "That alert is no longer there (told, run out or cancelled).",
    which_product: "Which product should I watch? Name it, e.g. \"tell me when the Nike Pegasus 41 is back in 42\".",
    cart_button: "🛒 Add to cart",
    private_only: "Alerts are set in a private chat with me.",
};

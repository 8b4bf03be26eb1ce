//! Chinese, Traditional characters (Taiwan and Hong Kong usage), and the
//! Simplified → Traditional conversion of the lines tools write in Chinese.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use maps::words::chinese_arrival;
use maps::{MapWords, UnitKind};
use services::OrderStatus;

use super::{Answers, Commands, Confirm, Format, Mcp, Media, Pay, SmallTalk, Texts, Tools, Turn};
use crate::context::Lang;

pub(crate) static TEXTS: Texts = Texts {
    model_language: "Traditional Chinese",
    tool_lang: Lang::Zh,
    tool_text: |line| to_traditional(&line),
    tool_line: |line| Cow::Owned(to_traditional(line.zh)),
    format: Format {
        floor: |n| format!("{n}樓"),
        floor_unit: |floor, unit| format!("{floor} {unit}"),
        paren: |inner| format!("（{inner}）"),
        list_sep: "、",
        comma: "，",
        english_names: false,
        item_sized: |name, size, quantity| format!("{name}（{size} 碼）× {quantity}"),
        item_labelled: |name, label, quantity| format!("{name}（{label}）× {quantity}"),
        item_plain: |name, quantity| format!("{name} × {quantity}"),
        total: "合計：",
        navigate_suggestion: |name| format!("帶我去{name}"),
    },
    commands: Commands {
        greeting: "您好！我是商場導購助手 🛍️\n\n直接用文字告訴我您想找什麼：找店、找商品、比價格、加購物車、下單取貨都可以。\
                   下面是幾個例子，點一下就能試試。傳送 /help 查看我能做的全部事情。",
        examples: ["Nike 店在哪裡？", "幫我找 500 元以內的跑鞋", "有哪些餐廳？", "看看我的購物車"],
        help_intro: "我能幫您：",
        help_private_note: "（私訊）",
        help_commands: "指令：/cart 購物車 · /orders 我的訂單 · /reset 重新開始 · /lang zh|zh-hant|en 切換語言",
        help_group: "在群組裡請 @我 或回覆我的訊息。",
        menu: [
            "開始使用",
            "我能做什麼",
            "查看購物車",
            "我的訂單",
            "重新開始對話",
            "切換語言：/lang zh、/lang zh-hant 或 /lang en",
        ],
        unknown_command: "我不認識這個指令。直接用文字告訴我您想找什麼，或傳送 /help 看看我能做什麼。",
        please_write: "我只看得懂文字哦 🙂 請用文字告訴我您想找什麼，比如「Nike 店在哪裡？」",
        apology: "抱歉，剛才出了點問題，請稍後再試一次。",
        reset_done: "好的，之前的對話我已經忘掉了，我們重新開始吧。",
        lang_set: "好的，之後我用繁體中文回答您。",
        lang_usage: "用法：/lang zh（簡體中文）、/lang zh-hant（繁體中文）或 /lang en（English）",
        health_private_only: "請在私訊裡使用 /health。",
        stats_private_only: "請在私訊裡使用 /stats。",
        confirm_button: "✅ 確認",
        cancel_button: "✖️ 取消",
        open_private: "💬 去私訊繼續",
        code_needed: "🔐 請輸入驗證碼完成確認。",
        button_expired: "這個按鈕已過期，請直接用文字告訴我。",
        privacy_off: "隱私模式：已關閉（群組裡的 @提及 都能收到）",
        privacy_on: "隱私模式：開啟 ⚠️ 群組裡只能收到指令和對我的回覆，@提及 收不到。\n  處理：在 @BotFather 傳送 /setprivacy → 選擇本機器人 → Disable，或把機器人設為群管理員。",
        console_confirm: "確認嗎？(y/n) ",
        console_banner: |user| {
            format!(
                "mallbot — 商場導購。您是顧客 {user}。\n\
                 用中文或英文提問，例如「幫我買一雙 Nike 跑鞋，500 以內的」或「where is Uniqlo?」。\n\
                 指令：/help /cart /orders /reset /lang zh|zh-hant|en /health /stats /quit。輸入數字選擇建議。\n\
                 /voice 檔案 把錄音當作語音訊息傳送，/photo 檔案 [說明] 把圖片當作照片傳送。\n\
                 下單後會顯示一行帳單；/pay 為最近一張帳單做一次測試付款。"
            )
        },
    },
    turn: Turn {
        words_please: "請用文字告訴我您想找什麼。",
        rate_limited: "您發訊息有點快，請稍等一分鐘再試。",
        too_many_waiting: "我還在處理您之前的訊息，最新的幾則先略過了，等我回覆後請再傳一次。",
        refused: "抱歉，這個導購助手目前只對指定的顧客開放。",
        done: "好的，已經處理好了。",
        gave_up: "抱歉，這個問題我沒能在限定步驟內處理完。可以換個說法，或者把需求拆開一點嗎？",
        over_budget: "（您今天的智能助手額度已用完，今天餘下的時間我用基礎模式為您服務。）",
        basic_mode: "（基礎模式：智能助手暫時連接不上，我先用簡化方式為您服務。）",
        private_only: "購物車和訂單請在私訊裡查看。",
        lookup_failed: "抱歉，暫時查不到，請稍後再試。",
        group_handoff: "購物車和訂單只能在私訊裡處理，點下面的按鈕，我們私訊繼續。",
        stats_unreadable: "讀不到今天的統計",
        stats_labels: ["今日統計", "訊息", "顧客", "模型 tokens", "訂單", "常用工具", "錯誤", "語音轉寫"],
    },
    confirm: Confirm {
        check_order: |summary| format!("請核對訂單後確認：\n{summary}"),
        please_confirm: |summary| format!("請確認：\n{summary}"),
        run: "執行：",
        cannot_hold: "抱歉，系統暫時無法儲存這個操作，請稍後再試。",
        not_yours: "這是其他顧客的確認，只有發起請求的人才能操作。",
        confirmed: "已確認：",
        cancelled: "已取消：",
        in_progress: "正在處理中，請稍候，結果馬上發給您。",
        press_again: "系統繁忙，請稍後再按一次。",
        order_changed_unsaved: "訂單資訊有變化，但系統暫時無法儲存新的確認，請重新下單。",
        order_changed: "價格或庫存有變化，請按最新資訊重新確認。",
        wrong_code: "確認碼不正確，請再輸入一次。",
        already_done_as: "已經處理過了：",
        already_done: "這個操作已經處理過了。",
        outcome_cancelled: "已取消",
        outcome_order: "訂單 ",
        outcome_failed: "未能完成",
        code_request: |code| format!("為了安全，請輸入確認碼 {code} 來完成下單。"),
        expired: "這個確認已過期，請重新提問。",
    },
    small_talk: SmallTalk {
        thanks: "不客氣！還需要幫您找點什麼嗎？",
        bye: "再見，祝您購物愉快！",
        who: "我是商場的導購助手：可以幫您找商品和店鋪、告訴您怎麼走、查看優惠和評價，還能管理購物車和訂單。",
        hello: "您好！我是商場導購助手，想買點什麼，還是找哪家店？",
        other: "這個我不太懂😅 我擅長幫您在商場購物：找商品、找店鋪、帶路、管理購物車和訂單。",
        examples: ["幫我找 500 以內的 Nike 跑鞋", "優衣庫在哪", "星巴克有什麼優惠"],
    },
    answers: Answers {
        done: "好的，已完成。",
        found_products: |total, cheap| {
            format!("為您找到 {total} 件商品{}：", if cheap { "（價格從低到高）" } else { "" })
        },
        rated: "評分 ",
        at: "",
        reply_first: "回覆「第一個」查看詳情。",
        price_between: |min, max| format!(" {min}–{} ", max.trim_start_matches('¥')),
        price_under: |max| format!(" {max} 以內"),
        price_over: |min| format!(" {min} 以上"),
        no_products: |keyword, range| {
            format!("沒有找到{range}的「{keyword}」。可以放寬條件試試，比如提高價格上限或換個關鍵字。")
        },
        more_products: |others| format!("另外還有 {others} 款，回覆「第二個」可以看下一款。"),
        out_of_stock: "很抱歉，這件商品目前缺貨。",
        add_it: "要加入購物車嗎？回覆「加入購物車」即可。",
        which_size: |listed| format!("有 {listed} 碼，您要哪個尺碼？"),
        which_one: |listed| format!("可選：{listed}，您要哪一款？"),
        size_unavailable: |size, sizes| {
            format!("抱歉，{size} 碼沒有貨了。目前有貨的尺碼：{sizes}，您要哪個？")
        },
        what_to_search: "您想找什麼商品？比如「Nike 跑鞋 500 以內」。",
        nothing_listed: "還沒有可選的商品，先告訴我您想找什麼吧。",
        no_such_item: |len| format!("上次只列出了 {len} 件商品，請選 1 到 {len} 之間的序號。"),
        no_stores: "沒有找到相關的店鋪，換個關鍵字試試？",
        found_stores: |total| format!("找到 {total} 家店："),
        open_hours: "，營業時間 ",
        which_store: "想去哪家？告訴我店名，我帶您過去。",
        no_reviews: |name| format!("{name}還沒有評價。"),
        reviews: |name, average| format!("{name}平均評分 {average}，最近的評價："),
        store_basic: |name, place, hours, phone| format!("{name}在{place}，營業時間 {hours}，電話 {phone}。"),
        no_promotions: |name| format!("{name}目前沒有優惠活動。"),
        promotions: |name| format!("{name}當前的優惠："),
        promotion: |title, description, until| format!("{title}：{description}（有效期至 {until}）"),
        store_not_found: |name, closest| {
            format!("沒有找到「{name}」這家店。名字相近的有：{closest}。點下面的按鈕帶您過去。")
        },
        main_entrance: "正門",
        route_here: |name, place, from, distance, eta| {
            format!("{name}在{place}。從{from}出發約 {distance} 公尺，步行約 {eta} 分鐘：")
        },
        route_to: |name, from, distance, eta| {
            format!("去{name}：從{from}出發約 {distance} 公尺，步行約 {eta} 分鐘：")
        },
        area: |name, floor, description| format!("{name}在{floor}。{description}"),
        stores_here: "這裡有：",
        added: |name, quantity, total| {
            format!("已加入購物車：{name} × {quantity}，購物車合計 {total}。要現在下單嗎？")
        },
        cart_title: "購物車裡有：",
        cart_total: |total| format!("合計 {total}。要下單嗎？"),
        removed_empty: "已刪除，購物車現在是空的。",
        removed_title: "已刪除。購物車裡還有：",
        removed_total: |total| format!("合計 {total}。"),
        cart_empty: "購物車是空的，先挑幾件商品吧。",
        cart_cleared: "購物車已清空。",
        which_cart_item: "要刪除哪一件？比如「刪掉第一件」：",
        which_product: "您想加購哪件商品？先告訴我您想找什麼吧。",
        status: |status| match status {
            OrderStatus::PendingPayment => "待付款",
            OrderStatus::Paid => "已付款",
            OrderStatus::Cancelled => "已取消",
            OrderStatus::Completed => "已完成",
            OrderStatus::Ready => "待取貨",
            OrderStatus::Expired => "已過期",
        },
        pickup: |name, at| format!("取貨門市：{name}{at}。"),
        order_created: |id, status, total, pickup| {
            format!("下單成功！訂單編號 {id}，狀態：{status}，合計 {total}。{pickup}")
        },
        order_status: |id, status, total, created, pickup| {
            format!("訂單 {id}：{status}，合計 {total}，下單日期 {created}。{pickup}")
        },
        order_cancelled: |id, total| format!("訂單 {id} 已取消（{total}），商品已退回庫存。"),
        refund_pending: |amount| format!("已付的 {amount} 將退回：商場正在辦理退款，完成後會通知您。"),
        refund_done: |amount| format!("已付的 {amount} 已退回。"),
        orders_title: "您的訂單：",
        order_line: |i, id, status, total, count, created| {
            format!("{i}. {id} — {status}，{total}，{count} 件，{created}")
        },
        no_orders: "您還沒有訂單。",
        no_pending_orders: "您沒有可以取消的訂單（只有待付款或已付款、尚未備好的訂單可以取消）。",
        no_unpaid_orders: "您沒有待付款的訂單，所有訂單都已付款或已結束。",
        declined: "好的，已取消，沒有做任何更改。",
        private_only: "購物車和訂單只能在私訊中使用，請私訊我繼續。",
        cannot_here: "抱歉，這裡暫時不能做這件事。",
        not_cancellable: "這個訂單已經不能取消了：只有待付款或已付款、尚未備好的訂單可以取消。",
        price_changed: "商品價格有變動，訂單沒有建立。請先看看購物車裡的最新價格再下單。",
        invalid: "抱歉，我沒能處理這個請求，換個說法試試？",
        mall_down: "抱歉，商場系統暫時沒有回應，請稍後再試。",
        no_stock: "抱歉，庫存不足，沒能加入購物車。",
        other_sizes: |sizes| format!("目前有貨的尺碼：{sizes}，換一個試試？"),
        fewer: "可以少買幾件，或者看看別的商品。",
        store_missing: "沒有找到這家店。可以說「找一家咖啡店」這樣搜尋店鋪。",
        area_missing: "沒有找到這個區域，換個說法試試？",
        product_missing: "沒有找到這件商品，重新搜尋一下吧。",
        order_missing: "沒有找到這個訂單。說「我的訂單」可以查看全部訂單。",
        nothing_found: "沒有找到相關內容，搜尋一下試試？",
    },
    tools: Tools {
        working: "⏳ 正在處理…",
        add_to_cart: "加入購物車",
        show_first: "看看第一個",
        after_add: ["查看購物車", "下單"],
        promotions_of: |name| format!("{name}有什麼優惠"),
        add_preview: "加入購物車：",
        remove_preview: "從購物車移除：",
        clear_preview: "清空購物車：",
        order_preview: "確認下單：",
        pickup: "取貨：",
        cancel_preview: |id| format!("取消訂單 {id}："),
        cancel_refund: |amount| format!("💰 此訂單已付款 {amount}：取消後由商場辦理退款。"),
        map_button: "🗺 在地圖上看",
        menu_button: "🛍 商場",
    },
    map: MapWords {
        name: |labels| &labels.zh,
        enter_by: |from| format!("從{from}進入"),
        start_at: |from| format!("從{from}出發"),
        already_at: |to| format!("您已在{to}"),
        compass: ["東", "西", "北", "南"],
        walk_along: |walkway, dir, m| format!("沿{walkway}向{dir}走約 {m} 公尺"),
        walk: |dir, m| format!("向{dir}走約 {m} 公尺"),
        ride: |kind, name, up, label| {
            let what = name.unwrap_or(match kind {
                UnitKind::Escalator => "手扶梯",
                UnitKind::Elevator => "電梯",
                _ => "樓梯",
            });
            let verb = if kind == UnitKind::Stairs { "走" } else { "搭" };
            let dir = if up { "上" } else { "下" };
            format!("{verb}{what}{dir}到 {label}")
        },
        arrive: |to, unit, side| {
            chinese_arrival(to, &to.zh, unit, side, ["到達", "門牌", "，在左手邊", "，在右手邊"])
        },
        summary: |m, min| format!("約 {m} 公尺，步行約 {min} 分鐘"),
        route_title: |sign, level, to, count| format!("{sign} {level} · 前往 {to}{count}"),
        next_level: |sign| format!("到 {sign}"),
        unit_label: |kind| match kind {
            UnitKind::Escalator => Some("手扶梯"),
            UnitKind::Elevator => Some("電梯"),
            UnitKind::Stairs => Some("樓梯"),
            UnitKind::Restroom => Some("洗手間"),
            _ => None,
        },
        legend: ["路線", "起點", "目的地", "手扶梯", "電梯", "樓梯", "洗手間"],
        north: "北",
    },
    media: Media {
        listening: "🎤 正在聽您的語音…",
        looking: "🖼️ 正在看您的照片…",
        voice_off: "抱歉，我這裡還聽不了語音訊息 🙂 打字就可以：告訴我您想找什麼，例如「Nike 店在哪裡？」",
        too_long: |max| {
            format!("這則語音太長了，我只能聽 {max} 秒以內的。請說短一點再傳一次，或者直接打字。")
        },
        too_big: "這個檔案太大了（超過 20 MB），我取不下來。請傳一則短一點的語音，或者直接打字。",
        transcription_failed: "抱歉，語音轉文字暫時出了問題，這則語音我沒能聽懂。請稍後再傳一次，或者直接打字告訴我。",
        nothing_heard: "我沒聽到內容，請再說一次，或者直接打字。",
        voice_over_budget: "今天的智慧助理額度已用完，明天之前我聽不了語音了。直接打字告訴我你想找什麼就好。",
        fetch_failed: "抱歉，我沒能取得您傳的檔案，請再傳一次，或者直接打字。",
        photo_default_ask: "幫我在商場裡找找照片裡的這個東西。",
        photo_unseen: "抱歉，我這裡還看不了圖片 🙂 請用文字描述一下您要找的東西，例如「白色 Nike 跑鞋」，\
                       或者在照片下面加一句說明再傳。",
        send_it_instead: "直接傳語音或照片給我就行，不需要指令。",
        console_usage: "用法：/voice 檔案（ogg、mp3、m4a、wav…）或 /photo 檔案 [說明]（jpg、png）",
        console_unreadable: |path, why| format!("讀不了檔案 {path}：{why}"),
    },
    pay: Pay {
        button: "💳 付款",
        directions_button: "🧭 怎麼走",
        directions_request: |store| format!("帶我去{store}"),
        invoice_title: |store| format!("{store} 訂單"),
        invoice_description: |id, mins| format!("訂單 {id}，到店取貨。請在 {mins} 分鐘內付款。"),
        pay_in_chat: |mins| {
            format!("💳 請在下方的帳單裡付款（{mins} 分鐘內有效，逾時訂單自動取消、庫存釋放）。")
        },
        pay_at_store: "請到取貨門市付款取貨。",
        invoice_failed: |id| format!("帳單暫時發不出來，請稍後在「我的訂單」裡點 💳 付款（訂單 {id}）。"),
        not_payable: |id, status| format!("訂單 {id} 現在是「{status}」，不能再付款。"),
        refuse_forged: "這張帳單無法核對，請在「我的訂單」裡重新點 💳 付款",
        refuse_not_yours: "這不是您的訂單，無法付款",
        refuse_cancelled: "這筆訂單已取消",
        refuse_expired: "訂單已過期，請重新下單",
        refuse_paid: "這筆訂單已經付過款了",
        refuse_mismatch: "訂單金額有變化，請在「我的訂單」裡重新點 💳 付款",
        refuse_unavailable: "商場系統暫時無法使用，請稍後再試",
        paid: |id, total, store, place| {
            format!("✅ 付款成功！訂單 {id}，已付 {total}。\n取貨：{store}{place}。備好後我會通知您。")
        },
        paid_pending: |id| {
            format!("✅ 已收到您的付款（訂單 {id}）。商場系統正在登記，登記好後我會告訴您，不會重複扣款。")
        },
        refund_due: |id| format!("已收到付款，訂單已失效，將全額退款（訂單 {id}）。"),
        event_paid: |id| format!("✅ 訂單 {id} 已付款。"),
        event_ready: |id, store, place| format!("🛍️ 訂單 {id} 已備好，可以到{store}{place}取貨了。"),
        event_completed: |id| format!("📦 訂單 {id} 已取貨，謝謝光臨！"),
        event_expired: |id| {
            format!("⌛ 訂單 {id} 未在時限內付款，已自動取消，庫存已釋放。需要的話可以重新下單。")
        },
        event_cancelled: |id| format!("訂單 {id} 已取消。"),
        event_refunded: |id| format!("💰 訂單 {id} 的退款已完成。"),
        staff_usage: "用法：/ready 訂單號 或 /pickedup 訂單號",
        staff_done: |id, status| format!("訂單 {id} 現在是「{status}」，已通知顧客。"),
        staff_failed: |id, why| format!("訂單 {id} 未能更新：{why}"),
        stats_refunds: |n, orders| format!("⚠️ 待退款（商場未接受的付款）：{n}（{orders}）"),
        console_invoice: |id, total| format!("🧾 帳單：訂單 {id}，{total}（測試：輸入 /pay 完成測試付款）"),
        console_no_invoice: "還沒有帳單：先下單。",
        console_test_paid: "🧪 測試付款（不是真實付款）",
    },
    mcp: Mcp {
        remote_progress: |server| format!("⏳ 正在詢問 {server}…"),
        needs_elicitation: |tool| {
            format!(
                "「{tool}」會更動購物車或訂單，必須先徵得您的確認，但這個用戶端不支援 MCP 確認請求（elicitation），所以什麼也沒做。\
                 請換用支援確認請求的用戶端，或在 Telegram 裡和機器人完成這一步。"
            )
        },
        declined: "您取消了這個操作，什麼也沒做。",
        kept_changing: "訂單資訊一直在變化，這次沒有下單，請稍後再試。",
        could_not_ask: "無法向您請求確認，所以什麼也沒做。",
    },
};

/// `text` (Simplified Chinese) in Traditional characters and Taiwan/Hong Kong
/// wording, as far as [`WORDS`] and the character tables know it; other
/// characters are kept.
pub fn to_traditional(text: &str) -> String {
    let table = characters();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((from, to)) = WORDS.iter().find(|(from, _)| rest.starts_with(from)) {
            out.push_str(to);
            rest = &rest[from.len()..];
            continue;
        }
        out.push(table.get(&c).copied().unwrap_or(c));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `text` (Traditional Chinese) in Simplified characters and mainland
/// wording, as far as the tables know it: the reverse of [`to_traditional`],
/// so that code reading shoppers' words (basic mode) knows one script.
pub fn to_simplified(text: &str) -> String {
    static TABLE: OnceLock<HashMap<char, char>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let pairs = SIMPLIFIED.chars().zip(TRADITIONAL.chars()).chain(SHARED.iter().copied());
        pairs.filter(|(_, t)| !IN_BOTH.contains(*t)).map(|(s, t)| (t, s)).collect()
    });
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((from, to)) = WORDS.iter().find(|(_, to)| rest.starts_with(to)) {
            out.push_str(from);
            rest = &rest[to.len()..];
            continue;
        }
        out.push(table.get(&c).copied().unwrap_or(c));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Whether only Simplified Chinese writes `c` (`这`, `们`).
pub fn is_simplified_only(c: char) -> bool {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| SIMPLIFIED.chars().collect()).contains(&c)
}

/// Whether only Traditional Chinese writes `c` (`這`, `們`).
pub fn is_traditional_only(c: char) -> bool {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| {
        TRADITIONAL.chars().chain(SHARED.iter().map(|(_, t)| *t)).filter(|t| !IN_BOTH.contains(*t)).collect()
    })
    .contains(&c)
}

/// Simplified → Traditional, one character at a time.
fn characters() -> &'static HashMap<char, char> {
    static TABLE: OnceLock<HashMap<char, char>> = OnceLock::new();
    TABLE.get_or_init(|| SIMPLIFIED.chars().zip(TRADITIONAL.chars()).chain(SHARED.iter().copied()).collect())
}

/// Traditional forms in [`TRADITIONAL`] that Simplified Chinese writes too (`著名`).
const IN_BOTH: &str = "著";

// ---- Simplified → Traditional: the characters and words the tables and the tools' lines use ----

/// Characters written only in Simplified Chinese, each above its Traditional form in [`TRADITIONAL`].
const SIMPLIFIED: &str = "与专业丛东丝丢两严丧个丰临为丽举么义乌乐乔习乡书买乱争亏云亚产亩亲亿仅从仑仓仪们\
    价众优会伞伟传伤伦伪体佣侠侣侦侧侨俭债倾偿储儿兑党兰关兴兹养兽内冈册写军农冯决况\
    冻净凉减凑凤凭凯击凿刘则刚创删别刹剂剑剧劝办务动励劲劳势勋匀区医华协单卖卢卫却厂\
    厅历厉压厌厕县参双发变叙叠叶号叹吓吕吗启吴员呜咏响哑唤啰喷嘱团园围国图圆圣场坏块\
    坚坛坝坞坟坠垒垫埚堕墙壮声壳处备复够头夹夺奋奖妆妇妈娱娄婴孙学宁宝实宠审宪宫宽宾\
    寝对寻导寿将尔尘尝尧尸层屉届属岁岂岗岛岭峡币帅师帐带帮广庄庆库应庙废开异弃张弯弹\
    归当录彦彻径忆忧怀态怜总恋恶恳悦悬惊惧惨惩惯愤愿懒戏战户执扩扫扬扰抚抛抢护报担拟\
    拢拣拥拦拨择挂挡挤挥捡损换捣据掷掳揽搀摄摆摇摊撑撵敌数斋断无旧时旷昙显晒晓晕暂术\
    机杀杂权条来杨极构枪柜标栋栏树样桥档梦检椭楼槛欢欧歼残毁毕毡气汇汉汤沟没沪泪泼泽\
    洁洒浅浇浊测济浏浓涂涛润涨渐渔湾湿溃滚满滤滥滨灭灯灵灾灿炉炖炼点烂烟烛烦烧烫热焕\
    爱爷牵牺状犹狭独猎猪献玛环现琐电画畅疗疯皱盏盐监盖盘着睁矿码砖础硕确礼祸离种积称\
    税稳穷窃竞笔笼筛签简篮类粮紧纠红约级纪纯纱纳纵纷纸纹纺线练组细织终绍经绑结绕绘给\
    络绝统绢绣继绩绪续绳维绵综绿缓编缘缝缠缩网罗罚罢职联聪肃肠肤肿胁胆胜脑脚脸舰舱艰\
    艺节芦苏苹茧荐荣药获莱营萝蓝虑虾虽补装袄袜裤见观规视览觉触誉计订认讨让训议讯记讲\
    许论讼设访证评识诉诊词译试诗诚话询该详语误说请诸读课谁调谅谈谢谱贝负贡财责败货质\
    贩贫购贯贱贴贵贸费贺资赏赔赖赚赛赞赠赢赵赶趋跃践踪车轨转轮软轰轴轻载较辅辆辉输辑\
    辞辩边达迁过迈运还这进远违连迟适选递逻遗邮邻郑释鉴针钉钓钟钢钥钮钱钻铁铃铅铜铺链\
    销锁锅错键锦镜长门闪闭问闯闲间闷闹闻阅阔队阳阴阵阶际陆陈险随隐隶难雾静韩页顶项顺\
    须顾顿预领颇频颗题颜额风飞饥饭饮饰饱饺饼馆馈驶驾驻验骑骗骤鱼鲜鸟鸡鸭鹰麦黄齐齿龙\
    龟马吨剥卤咸鲁凛屿";
/// The Traditional forms of [`SIMPLIFIED`], character for character.
const TRADITIONAL: &str = "與專業叢東絲丟兩嚴喪個豐臨為麗舉麼義烏樂喬習鄉書買亂爭虧雲亞產畝親億僅從侖倉儀們\
    價眾優會傘偉傳傷倫偽體傭俠侶偵側僑儉債傾償儲兒兌黨蘭關興茲養獸內岡冊寫軍農馮決況\
    凍淨涼減湊鳳憑凱擊鑿劉則剛創刪別剎劑劍劇勸辦務動勵勁勞勢勳勻區醫華協單賣盧衛卻廠\
    廳歷厲壓厭廁縣參雙發變敘疊葉號嘆嚇呂嗎啟吳員嗚詠響啞喚囉噴囑團園圍國圖圓聖場壞塊\
    堅壇壩塢墳墜壘墊堝墮牆壯聲殼處備復夠頭夾奪奮獎妝婦媽娛婁嬰孫學寧寶實寵審憲宮寬賓\
    寢對尋導壽將爾塵嘗堯屍層屜屆屬歲豈崗島嶺峽幣帥師帳帶幫廣莊慶庫應廟廢開異棄張彎彈\
    歸當錄彥徹徑憶憂懷態憐總戀惡懇悅懸驚懼慘懲慣憤願懶戲戰戶執擴掃揚擾撫拋搶護報擔擬\
    攏揀擁攔撥擇掛擋擠揮撿損換搗據擲擄攬攙攝擺搖攤撐攆敵數齋斷無舊時曠曇顯曬曉暈暫術\
    機殺雜權條來楊極構槍櫃標棟欄樹樣橋檔夢檢橢樓檻歡歐殲殘毀畢氈氣匯漢湯溝沒滬淚潑澤\
    潔灑淺澆濁測濟瀏濃塗濤潤漲漸漁灣濕潰滾滿濾濫濱滅燈靈災燦爐燉煉點爛煙燭煩燒燙熱煥\
    愛爺牽犧狀猶狹獨獵豬獻瑪環現瑣電畫暢療瘋皺盞鹽監蓋盤著睜礦碼磚礎碩確禮禍離種積稱\
    稅穩窮竊競筆籠篩簽簡籃類糧緊糾紅約級紀純紗納縱紛紙紋紡線練組細織終紹經綁結繞繪給\
    絡絕統絹繡繼績緒續繩維綿綜綠緩編緣縫纏縮網羅罰罷職聯聰肅腸膚腫脅膽勝腦腳臉艦艙艱\
    藝節蘆蘇蘋繭薦榮藥獲萊營蘿藍慮蝦雖補裝襖襪褲見觀規視覽覺觸譽計訂認討讓訓議訊記講\
    許論訟設訪證評識訴診詞譯試詩誠話詢該詳語誤說請諸讀課誰調諒談謝譜貝負貢財責敗貨質\
    販貧購貫賤貼貴貿費賀資賞賠賴賺賽贊贈贏趙趕趨躍踐蹤車軌轉輪軟轟軸輕載較輔輛輝輸輯\
    辭辯邊達遷過邁運還這進遠違連遲適選遞邏遺郵鄰鄭釋鑑針釘釣鐘鋼鑰鈕錢鑽鐵鈴鉛銅鋪鏈\
    銷鎖鍋錯鍵錦鏡長門閃閉問闖閒間悶鬧聞閱闊隊陽陰陣階際陸陳險隨隱隸難霧靜韓頁頂項順\
    須顧頓預領頗頻顆題顏額風飛飢飯飲飾飽餃餅館饋駛駕駐驗騎騙驟魚鮮鳥雞鴨鷹麥黃齊齒龍\
    龜馬噸剝滷鹹魯凜嶼";
/// Characters both scripts write, which mostly stand for the Traditional one given.
const SHARED: &[(char, char)] =
    &[('后', '後'), ('里', '裡'), ('余', '餘'), ('几', '幾'), ('准', '準'), ('范', '範'), ('冲', '衝')];
/// Words converted as a whole before characters: Taiwan and Hong Kong usage, and words
/// where a character has another Traditional form (or none) than on its own.
const WORDS: &[(&str, &str)] = &[
    ("订单号", "訂單編號"),
    ("消息", "訊息"),
    ("搜索", "搜尋"),
    ("创建", "建立"),
    ("响应", "回應"),
    ("门店", "門市"),
    ("发送", "傳送"),
    ("保存", "儲存"),
    ("命令", "指令"),
    ("“", "「"),
    ("”", "」"),
    ("公里", "公里"),
    ("里程", "里程"),
    ("皇后", "皇后"),
    ("头发", "頭髮"),
    ("理发", "理髮"),
    ("发型", "髮型"),
    ("回复", "回覆"),
    ("答复", "答覆"),
    ("复制", "複製"),
    ("重复", "重複"),
    ("复杂", "複雜"),
    ("干净", "乾淨"),
    ("饼干", "餅乾"),
    ("干洗", "乾洗"),
    ("日历", "日曆"),
    ("制作", "製作"),
    ("制造", "製造"),
    ("战斗", "戰鬥"),
    ("一只", "一隻"),
    ("面条", "麵條"),
    ("面包", "麵包"),
    ("拉面", "拉麵"),
    ("信息", "資訊"),
    ("关键词", "關鍵字"),
    ("私聊", "私訊"),
    ("群里", "群組裡"),
    ("待支付", "待付款"),
    ("已支付", "已付款"),
    ("支付", "付款"),
    ("视频", "影片"),
    ("默认", "預設"),
    ("菜单", "選單"),
    ("网络", "網路"),
    ("质量", "品質"),
    ("软件", "軟體"),
    ("打印", "列印"),
    ("屏幕", "螢幕"),
    ("出租车", "計程車"),
    ("账号", "帳號"),
    ("账户", "帳戶"),
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn simplified_in(text: &str) -> String {
        text.chars().filter(|c| is_simplified_only(*c)).collect()
    }

    #[test]
    fn the_character_tables_line_up() {
        assert_eq!(SIMPLIFIED.chars().count(), TRADITIONAL.chars().count());
        for (s, t) in SIMPLIFIED.chars().zip(TRADITIONAL.chars()) {
            assert_ne!(s, t, "{s} is the same in both scripts");
            assert_eq!(SIMPLIFIED.matches(s).count(), 1, "{s} twice");
            assert!(!TRADITIONAL.contains(s), "{s} is written in Traditional too");
        }
    }

    #[test]
    fn this_table_has_no_simplified_character() {
        let table = include_str!("zh_hant.rs");
        let texts = &table[..table.find("// ---- Simplified").unwrap_or(table.len())];
        let body = &texts[texts.find("pub(crate) static TEXTS").unwrap_or(0)
            ..texts.find("/// `text` (Simplified").unwrap_or(texts.len())];
        assert_eq!(simplified_in(body), "");
    }

    #[test]
    fn words_and_characters_convert_both_ways() {
        assert_eq!(to_traditional("这里的后门，请回复“第一个”"), "這裡的後門，請回覆「第一個」");
        assert_eq!(to_traditional("公里"), "公里", "a word kept as a whole");
        assert_eq!(to_simplified("這裡的後門，請回覆「第一個」"), "这里的后门，请回复“第一个”");
        assert_eq!(to_simplified("著名"), "著名", "a character both scripts write");
    }

    #[test]
    fn every_tool_line_converts_with_no_simplified_character_left() {
        let args = json!({
            "keyword": "Nike", "brand": "Nike", "max_price": 500, "store_name": "Nike", "store_id": "Nike",
            "area_name": "Food court", "order_id": "o-1", "info_type": "promotions", "product_id": "p-1",
            "quantity": 1,
        });
        let working = TEXTS.tools.working;
        let mut worded = 0;
        for tool in crate::all() {
            if let Some(line) = tool.help_line(Lang::ZhHant) {
                assert_eq!(simplified_in(&line), "", "{}: {line}", tool.name);
            }
            let line = tool.progress_line(Lang::ZhHant, &args);
            assert_eq!(simplified_in(&line), "", "{}: {line}", tool.name);
            if line != working {
                assert_eq!(line, to_traditional(&tool.progress_line(Lang::Zh, &args)));
                worded += 1;
            }
        }
        assert!(worded >= 5, "the tools' own status lines were converted, not only the generic one");
    }
}

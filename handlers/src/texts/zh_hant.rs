//! Chinese, Traditional characters (Taiwan and Hong Kong usage), and the
//! conversion between the scripts through OpenCC's dictionaries: the lines
//! tools write in Chinese and the mall's names are shown in Traditional
//! characters, and what a shopper writes in them is read and searched in
//! Simplified ones.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use ferrous_opencc::OpenCC;
use ferrous_opencc::config::BuiltinConfig;

use maps::words::chinese_arrival;
use maps::{MapWords, UnitKind};
use services::OrderStatus;

use super::{
    Answers, Commands, Confirm, Facilities, Format, Mcp, Media, Pay, SmallTalk, Support, Texts, Tools, Turn,
};
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
        mall_text: traditional,
        item_sized: |name, size, quantity| format!("{name}（{size} 碼）× {quantity}"),
        item_labelled: |name, label, quantity| format!("{name}（{label}）× {quantity}"),
        item_plain: |name, quantity| format!("{name} × {quantity}"),
        total: "合計：",
        navigate_suggestion: |name| format!("帶我去{name}"),
        next_day: |time| format!("次日{time}"),
    },
    commands: Commands {
        greeting: "您好！我是商場導購助手 🛍️\n\n直接用文字告訴我您想找什麼：找店、找商品、比價格、加購物車、下單取貨都可以。\
                   下面是幾個例子，點一下就能試試。傳送 /help 查看我能做的全部事情。",
        help_intro: "我能幫您：",
        help_private_note: "（私訊）",
        help_commands: "指令：/cart 購物車 · /orders 我的訂單 · /car 我的車（/car 滬A12345 儲存車牌）· /points 積分 · /coupons 優惠券 · /reset 重新開始 · /lang zh|zh-hant|en 切換語言",
        help_group: "在群組裡請 @我 或回覆我的訊息。",
        menu: [
            "開始使用",
            "我能做什麼",
            "查看購物車",
            "我的訂單",
            "我的車：停車狀態，/car 滬A12345 儲存車牌",
            "我的積分和最近變動",
            "我的優惠券和可領的券",
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
        console_still_waiting: |summary| format!("還在等您確認：{summary}\n確認請輸入 y，取消請輸入 n。"),
        console_banner: |user, examples| {
            format!(
                "mallbot — 商場導購。您是顧客 {user}。\n\
                 用中文或英文提問，例如{examples}。\n\
                 指令：/help /cart /orders /car /points /coupons /reset /lang zh|zh-hant|en /health /stats /quit。輸入數字選擇建議。\n\
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
        code_in_chat: "這個訂單需要輸入一次性驗證碼，只能在與機器人的聊天中輸入：這裡什麼也沒做，請在聊天中下單。",
        too_large: "這個請求太長，無法保留以待確認；什麼也沒做。",
    },
    small_talk: SmallTalk {
        thanks: "不客氣！還需要幫您找點什麼嗎？",
        bye: "再見，祝您購物愉快！",
        who: "我是商場的導購助手：可以幫您找商品和店鋪、告訴您怎麼走、查看優惠和評價，還能管理購物車和訂單。",
        hello: "您好！我是商場導購助手，想買點什麼，還是找哪家店？",
        other: "這個我不太懂😅 我擅長幫您在商場購物：找商品、找店鋪、帶路、管理購物車和訂單。",
        find_example: |product| format!("幫我找{product}"),
        where_example: |store| format!("{store}在哪"),
        offers_example: |store| format!("{store}有什麼優惠"),
        cart_example: "看看我的購物車",
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
            let of = if range.is_empty() { "" } else { "的" };
            format!("沒有找到{range}{of}「{keyword}」。可以放寬條件試試，比如提高價格上限或換個關鍵字。")
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
        store_basic: |name, place, hours, phone| {
            let hours = if hours.is_empty() { String::new() } else { format!("，營業時間 {hours}") };
            let phone = if phone.is_empty() { String::new() } else { format!("，電話 {phone}") };
            format!("{name}在{place}{hours}{phone}。")
        },
        no_promotions: |name| format!("{name}目前沒有優惠活動。"),
        promotions: |name| format!("{name}當前的優惠："),
        promotion: |title, description, until| match description {
            "" => format!("{title}（有效期至 {until}）"),
            _ => format!("{title}：{description}（有效期至 {until}）"),
        },
        untranslated_offer: "優惠活動",
        untranslated_event: "商場活動",
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
        route_here_unmeasured: |name, place, from| format!("{name}在{place}。從{from}出發："),
        route_to_unmeasured: |name, from| format!("去{name}：從{from}出發："),
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
        how_to_pay: "把想買的加入購物車，說「下單」，我就幫您下單，到門市取貨。下單後如果附有帳單，直接在聊天裡付款就行（/orders 裡的訂單下也有「💳 付款」）；沒有帳單的話，到取貨門市付款取貨。",
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
        name: |labels| traditional(&labels.zh),
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
            chinese_arrival(
                to,
                &traditional(&to.zh),
                unit,
                side,
                ["到達", "門牌", "，在左手邊", "，在右手邊"],
            )
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
    facilities: Facilities {
        kind: |key| {
            Some(match key {
                "restroom" => "洗手間",
                "restroom.wheelchair" => "無障礙洗手間",
                "restroom.family" => "親子洗手間",
                "mothersroom" => "哺乳室",
                "babychanging" => "嬰兒換尿布區",
                "information" => "服務中心",
                "atm" => "提款機（ATM）",
                "firstaid" => "醫務室",
                "powerchargingstation" => "手機充電站",
                "coinlocker" => "置物櫃",
                "drinkingfountain" => "飲水機",
                "smokingarea" => "吸菸區",
                "elevator" => "電梯",
                "escalator" => "手扶梯",
                "stairs" => "樓梯",
                "parking" => "停車場入口",
                _ => return None,
            })
        },
        progress: |kind| format!("🚻 正在找最近的{kind}…"),
        nearest: |name, floor, from, m, min| {
            format!("最近的{name}在 {floor}，從{from}步行約 {m} 公尺，約 {min} 分鐘：")
        },
        missing: |kind, kinds| format!("抱歉，商場地圖上沒有{kind}。這裡有：{kinds}。"),
        no_map: "抱歉，這個商場還沒有室內地圖，我找不到設施的位置。可以問問服務中心。",
        unknown_start: "抱歉，我在地圖上找不到您說的位置。告訴我您在哪家店、哪個入口或幾樓（如「我在3樓」），我再幫您找。",
        ask_nearest: |kind| format!("最近的{kind}"),
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
        invoice_discounted_line: |id| format!("訂單 {id}（已折抵優惠券）"),
        discount_summary: |subtotal, off, total| format!("商品小計 {subtotal} − 優惠券 {off} = 實付 {total}"),
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
        failed: |id| format!("我們這邊出了問題，什麼也沒做（錯誤編號 {id}），請稍後再試。"),
    },
    mall: super::mall::ZH_HANT,
    alerts: super::alerts::ZH_HANT,
    guide: super::guide::ZH_HANT,
    support: Support {
        button: "👤 人工",
        connecting: "👤 正在為您轉接人工客服，請稍候。您可以直接在這裡說明情況，客服會看到。",
        joined: "👤 客服已接入，現在和您對話的是商場工作人員。",
        closed: "客服已結束本次對話。接下來由我（智慧導購）繼續為您服務，需要時隨時說「人工」。",
        no_desk: "抱歉，我這裡暫時接不了人工客服。請到商場的服務台找工作人員。",
        no_desk_at: |title, text| {
            format!("抱歉，我這裡暫時接不了人工客服。請找商場的工作人員：\n【{title}】{text}")
        },
        after_hours: |opens| {
            format!(
                "人工客服現在不在班，{opens} 開始上班。在那之前我可以幫您找店、找商品、查訂單；急事請到商場的服務台。"
            )
        },
        no_answer_yet: "客服暫時都在忙，還沒有人回覆。您可以繼續等，也可以先讓我（智慧導購）幫您。",
        keep_waiting: "⏳ 繼續等",
        back_to_bot: "🤖 先問導購",
        waiting: "好的，客服一回覆就會出現在這裡。",
        back: "好的，我（智慧導購）繼續為您服務。需要時隨時說「人工」。",
        asked_reason: "顧客要求人工",
        card: |name, lang, reason, recent, shopping| {
            format!(
                "🆕 人工請求\n顧客：{name}（{lang}）\n原因：{reason}\n\n最近的對話：\n{recent}\n\n購物車和訂單：\n{shopping}\n\n在本話題裡回覆即可發給顧客；發 /close 或點下面的按鈕結束。"
            )
        },
        close_button: "✅ 結束對話",
        closed_note: "✅ 對話已結束，顧客已收到通知。",
        blocked_note: "⛔ 顧客已封鎖機器人，訊息無法送達。",
        went_back_note: "↩️ 顧客選擇先問智慧導購，對話已結束。",
        already_closed: "這個對話已經結束了。",
        report_private_only: "/report 只能在和我的私聊裡用。",
    },
};

// ---- Simplified ↔ Traditional: OpenCC's dictionaries (ferrous-opencc) ----

/// The Simplified → Traditional converter, built once. OpenCC's `s2tw`
/// configuration: its phrase and character dictionaries (规划 → 規劃, 头发 →
/// 頭髮, 干涉 kept), then Taiwan's standard character forms (為, 眾, 裡, 啟,
/// 著), the forms this table is written in. Not `s2t`, whose OpenCC forms
/// (爲, 衆, 裏, 啓) differ from this table and read as dated in Taiwan; not
/// `s2hk`, whose Hong Kong forms (着, 裏) differ from it too; and not
/// `s2twp`, whose Taiwan phrases would reword the mall's names (a store's or
/// a product's name is converted character for character, for display).
fn to_hant() -> Option<&'static OpenCC> {
    static CONVERTER: OnceLock<Option<OpenCC>> = OnceLock::new();
    CONVERTER.get_or_init(|| built(BuiltinConfig::S2tw)).as_ref()
}

/// The Traditional → Simplified converter, built once: OpenCC's `t2s`, which
/// reads OpenCC's, Taiwan's and Hong Kong's character forms alike (裡, 裏 →
/// 里), for reading shoppers' words and searching the mall's names.
fn to_hans() -> Option<&'static OpenCC> {
    static CONVERTER: OnceLock<Option<OpenCC>> = OnceLock::new();
    CONVERTER.get_or_init(|| built(BuiltinConfig::T2s)).as_ref()
}

/// A converter from the dictionaries compiled into the crate; `None` (text
/// left as it is, logged) if they cannot be read.
fn built(config: BuiltinConfig) -> Option<OpenCC> {
    OpenCC::from_config(config)
        .inspect_err(|e| tracing::error!(error = %e, "the Chinese script converter could not be built"))
        .ok()
}

/// Builds both converters now rather than at the first Chinese text (opening
/// the compiled dictionaries takes milliseconds; see `docs/performance.md`);
/// the bot calls it on a thread of its own as it starts.
pub fn warm_up() {
    to_hant();
    to_hans();
}

/// `text` (Simplified Chinese, or a mix) in Traditional characters, Taiwan's
/// standard forms; characters of no Chinese script are kept.
pub fn to_traditional(text: &str) -> String {
    match to_hant() {
        Some(converter) if !text.is_ascii() => everyday_tai(text, converter.convert(text)),
        _ => text.to_owned(),
    }
}

/// `converted` (the dictionaries' Traditional of `text`) with 台 kept where
/// `text` wrote it and the dictionaries made it 臺 or 檯: everyday writing in
/// Taiwan and Hong Kong alike writes 台 (台灣, 服務台, 櫃台, 舞台), the
/// dictionaries' forms are the formal ones (服務檯, 臺灣). 颱 (颱風) is kept,
/// and so is a 臺 or 檯 the text wrote itself.
fn everyday_tai(text: &str, converted: String) -> String {
    if !text.contains('台') {
        return converted;
    }
    let formal = |c: char| c == '臺' || c == '檯';
    if converted.chars().count() == text.chars().count() {
        return text
            .chars()
            .zip(converted.chars())
            .map(|(s, t)| if s == '台' && formal(t) { s } else { t })
            .collect();
    }
    // The dictionaries changed the length (rare): every 臺 and 檯 of theirs, when the text wrote none.
    match text.chars().any(formal) {
        true => converted,
        false => converted.chars().map(|c| if formal(c) { '台' } else { c }).collect(),
    }
}

/// `text` in Traditional characters: borrowed when nothing changes.
pub fn traditional(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let converted = to_traditional(text);
    if converted == text { Cow::Borrowed(text) } else { Cow::Owned(converted) }
}

/// A 繁體 answer: `text` in Traditional characters ([`to_traditional`]),
/// where the shopper's own words of `said` — read in Simplified and
/// converted back, which may change a form they wrote (Hong Kong's 裏 comes
/// back as 裡) — are echoed as they wrote them.
pub fn traditional_answer(text: &str, said: &str) -> String {
    let mut answer = to_traditional(text);
    let said = said.trim();
    let pieces = said.split(|c: char| {
        c.is_whitespace() || (!c.is_alphanumeric() && c.is_ascii()) || "，。、？！：；「」“”（）".contains(c)
    });
    for piece in std::iter::once(said).chain(pieces) {
        if piece.chars().count() < 2 || piece.is_ascii() || !simplified_left(piece).is_empty() {
            continue;
        }
        let back = to_traditional(&to_simplified(piece));
        if back != piece && answer.contains(&back) {
            answer = answer.replace(&back, piece);
        }
    }
    answer
}

/// `text` (Traditional Chinese, or a mix) in Simplified characters, so that
/// code reading shoppers' words (basic mode) and searching the mall's names
/// knows one script.
pub fn to_simplified(text: &str) -> String {
    match to_hans() {
        Some(converter) if !text.is_ascii() => converter.convert(text),
        _ => text.to_owned(),
    }
}

/// Whether only Simplified Chinese writes `c` (`这`, `们`): Simplified →
/// Traditional changes it and Traditional → Simplified keeps it. A few
/// characters both scripts write are among them (`干` of 干涉, `后` of 皇后),
/// since on its own the dictionaries give their Traditional form; see
/// [`simplified_left`] for a whole text.
pub fn is_simplified_only(c: char) -> bool {
    script_of(c).simplified_only
}

/// Whether only Traditional Chinese writes `c` (`這`, `們`, `裡`):
/// Traditional → Simplified changes it.
pub fn is_traditional_only(c: char) -> bool {
    script_of(c).traditional_only
}

/// Which script writes a character, as the dictionaries say of it alone.
#[derive(Debug, Clone, Copy)]
struct Script {
    simplified_only: bool,
    traditional_only: bool,
}

/// Characters the dictionaries turn into another Traditional form that
/// Traditional writing uses every day all the same: 台 (台灣, 服務台, 櫃台; the
/// dictionaries write 臺 or 檯, which [`to_traditional`] takes back, but 颱 of
/// 颱風 it keeps).
const WRITTEN_IN_BOTH: &str = "台";

/// [`Script`] of `c`: converted once per character, then remembered (every
/// message's language is told from its characters, and a character's
/// conversion costs more than a lookup).
fn script_of(c: char) -> Script {
    static KNOWN: OnceLock<RwLock<HashMap<char, Script>>> = OnceLock::new();
    if c.is_ascii() {
        return Script { simplified_only: false, traditional_only: false };
    }
    let known = KNOWN.get_or_init(RwLock::default);
    if let Some(script) = known.read().unwrap_or_else(|e| e.into_inner()).get(&c) {
        return *script;
    }
    let mut buf = [0u8; 4];
    let text = &*c.encode_utf8(&mut buf);
    let simplified = to_simplified(text);
    let script = Script {
        simplified_only: to_traditional(text) != text && simplified == text && !WRITTEN_IN_BOTH.contains(c),
        traditional_only: simplified != text,
    };
    known.write().unwrap_or_else(|e| e.into_inner()).insert(c, script);
    script
}

/// The characters of `text` only Simplified Chinese writes
/// ([`is_simplified_only`]) that Simplified → Traditional changes where they
/// stand: `""` for a text wholly in Traditional characters ("干涉" and
/// "皇后" included, which the dictionaries keep as they are).
pub fn simplified_left(text: &str) -> String {
    if text.is_ascii() {
        return String::new();
    }
    let converted = to_traditional(text);
    if converted == text {
        return String::new();
    }
    if converted.chars().count() == text.chars().count() {
        text.chars()
            .zip(converted.chars())
            .filter(|(s, t)| s != t && is_simplified_only(*s))
            .map(|(s, _)| s)
            .collect()
    } else {
        text.chars().filter(|c| is_simplified_only(*c) && !converted.contains(*c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every character of the CJK blocks that only Simplified Chinese writes,
    /// as the OpenCC dictionaries say ([`is_simplified_only`]).
    fn simplified_only_set() -> Vec<char> {
        let blocks = ['\u{3400}'..='\u{4dbf}', '\u{4e00}'..='\u{9fff}'];
        blocks.into_iter().flatten().filter(|c| is_simplified_only(*c)).collect()
    }

    fn simplified_in(text: &str) -> String {
        text.chars().filter(|c| is_simplified_only(*c)).collect()
    }

    #[test]
    fn the_simplified_only_characters_come_from_the_dictionaries() {
        let set = simplified_only_set();
        assert!(set.len() > 2_000, "OpenCC knows thousands: {}", set.len());
        for c in "这们规划侧东门进从优库运动".chars() {
            assert!(set.contains(&c), "{c} is written only in Simplified Chinese");
        }
        for c in "這們規劃側東門進從優衣庫運動鞋的在一".chars() {
            assert!(!set.contains(&c), "{c} is written in Traditional Chinese");
        }
    }

    #[test]
    fn every_line_of_this_table_is_in_traditional_characters() {
        let source = include_str!("zh_hant.rs");
        let table = &source[source.find("pub(crate) static TEXTS").unwrap_or(0)
            ..source.find("// ---- Simplified ↔ Traditional").unwrap_or(source.len())];
        let lines: Vec<&str> = table.lines().filter(|l| l.chars().any(|c| c > '\u{2e80}')).collect();
        assert!(lines.len() > 150, "the table's lines are read: {}", lines.len());
        for line in lines {
            assert_eq!(simplified_in(line), "", "Simplified characters in: {line}");
        }
    }

    #[test]
    fn the_dictionaries_convert_words_in_context_both_ways() {
        assert_eq!(to_traditional("正在规划路线"), "正在規劃路線");
        assert_eq!(to_traditional("从正门（南门）进入，沿东侧走廊"), "從正門（南門）進入，沿東側走廊");
        assert_eq!(to_traditional("这里的后门，头发，面包，干涉"), "這裡的後門，頭髮，麵包，干涉");
        assert_eq!(to_traditional("Nike 3F-01 ¥699"), "Nike 3F-01 ¥699", "nothing else changes");
        assert_eq!(
            to_traditional("服务台，收银台，台湾，舞台，台风"),
            "服務台，收銀台，台灣，舞台，颱風",
            "everyday 台"
        );
        assert_eq!(to_traditional("臺北的服務檯"), "臺北的服務檯", "a formal form the text wrote is kept");
        assert_eq!(to_simplified("這裡的後門，規劃"), "这里的后门，规划");
        assert_eq!(to_simplified("這裏"), "这里", "Hong Kong's forms are read too");
        assert_eq!(simplified_left("這裡的後門"), "");
        assert_eq!(simplified_left("正在規划"), "划", "the old table's miss is caught");
        assert_eq!(simplified_left("干涉和皇后"), "", "what the dictionaries keep in context");
        assert!(matches!(traditional("Nike"), Cow::Borrowed(_)));
    }

    #[test]
    fn an_answer_is_traditional_and_echoes_the_shoppers_own_forms() {
        let said = "哪裏有賣滑板";
        let read = to_simplified(said);
        assert_eq!(read, "哪里有卖滑板");
        let answer = format!("没有找到“{read}”相关的商品，换个说法试试？");
        let shown = traditional_answer(&answer, said);
        assert_eq!(shown, "沒有找到“哪裏有賣滑板”相關的商品，換個說法試試？", "the shopper's 裏, not 裡");
        assert_eq!(simplified_in(&shown), "");
        let plain = traditional_answer("最近的服务台在 1楼", "服務台在哪裡");
        assert_eq!(plain, "最近的服務台在 1樓", "the everyday form, not the dictionaries' 服務檯");
        assert_eq!(simplified_left("服務台在哪裡"), "", "台 is written in Traditional too");
        let simplified_said = traditional_answer("没有找到“这里”", "这里");
        assert_eq!(simplified_said, "沒有找到“這裡”", "Simplified words are not kept in a 繁體 answer");
    }

    #[test]
    fn every_tool_line_converts_with_no_simplified_character_left() {
        let args = json!({
            "keyword": "运动鞋", "brand": "Nike", "max_price": 500, "store_name": "优衣库", "store_id": "优衣库",
            "area_name": "美食广场", "order_id": "o-1", "info_type": "promotions", "product_id": "p-1",
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

//! Chinese, Simplified characters.

use std::borrow::Cow;

use services::OrderStatus;

use super::{
    Answers, Commands, Confirm, Facilities, Format, Mcp, Media, Pay, SmallTalk, Support, Texts, Tools, Turn,
};
use crate::context::Lang;

pub(crate) static TEXTS: Texts = Texts {
    model_language: "Simplified Chinese",
    tool_lang: Lang::Zh,
    tool_text: |line| line,
    tool_line: |line| Cow::Borrowed(line.zh),
    format: Format {
        floor: |n| format!("{n}楼"),
        floor_unit: |floor, unit| format!("{floor} {unit}"),
        paren: |inner| format!("（{inner}）"),
        list_sep: "、",
        comma: "，",
        english_names: false,
        mall_text: |text| Cow::Borrowed(text),
        item_sized: |name, size, quantity| format!("{name}（{size} 码）× {quantity}"),
        item_labelled: |name, label, quantity| format!("{name}（{label}）× {quantity}"),
        item_plain: |name, quantity| format!("{name} × {quantity}"),
        total: "合计：",
        navigate_suggestion: |name| format!("带我去{name}"),
        next_day: |time| format!("次日{time}"),
    },
    commands: Commands {
        greeting: "您好！我是商场导购助手 🛍️\n\n直接用文字告诉我您想找什么：找店、找商品、比价格、加购物车、下单取货都可以。\
                   下面是几个例子，点一下就能试试。发送 /help 查看我能做的全部事情。",
        help_intro: "我能帮您：",
        help_private_note: "（私聊）",
        help_commands: "命令：/cart 购物车 · /orders 我的订单 · /car 我的车（/car 沪A12345 保存车牌）· /points 积分 · /coupons 优惠券 · /reset 重新开始 · /lang zh|zh-hant|en 切换语言",
        help_group: "在群里请 @我 或回复我的消息。",
        menu: [
            "开始使用",
            "我能做什么",
            "查看购物车",
            "我的订单",
            "我的车：停车状态，/car 沪A12345 保存车牌",
            "我的积分和最近变动",
            "我的优惠券和可领的券",
            "重新开始对话",
            "切换语言：/lang zh、/lang zh-hant 或 /lang en",
        ],
        unknown_command: "我不认识这个命令。直接用文字告诉我您想找什么，或发送 /help 看看我能做什么。",
        please_write: "我只看得懂文字哦 🙂 请用文字告诉我您想找什么，比如「Nike 店在哪里？」",
        apology: "抱歉，刚才出了点问题，请稍后再试一次。",
        reset_done: "好的，之前的对话我已经忘掉了，我们重新开始吧。",
        lang_set: "好的，之后我用中文回答您。",
        lang_usage: "用法：/lang zh（简体中文）、/lang zh-hant（繁體中文）或 /lang en（English）",
        health_private_only: "请在私聊里使用 /health。",
        stats_private_only: "请在私聊里使用 /stats。",
        confirm_button: "✅ 确认",
        cancel_button: "✖️ 取消",
        open_private: "💬 去私聊继续",
        code_needed: "🔐 请输入验证码完成确认。",
        button_expired: "这个按钮已过期，请直接用文字告诉我。",
        privacy_off: "隐私模式：已关闭（群里的 @提及 都能收到）",
        privacy_on: "隐私模式：开启 ⚠️ 群里只能收到命令和对我的回复，@提及 收不到。\n  处理：在 @BotFather 发送 /setprivacy → 选择本机器人 → Disable，或把机器人设为群管理员。",
        console_confirm: "确认吗？(y/n) ",
        console_still_waiting: |summary| format!("还在等您确认：{summary}\n确认请输入 y，取消请输入 n。"),
        console_banner: |user, examples| {
            format!(
                "mallbot — 商场导购。您是顾客 {user}。\n\
                 用中文或英文提问，例如{examples}。\n\
                 命令：/help /cart /orders /car /points /coupons /reset /lang zh|zh-hant|en /health /stats /quit。输入数字选择建议。\n\
                 /voice 文件 把录音当作语音消息发送，/photo 文件 [说明] 把图片当作照片发送。\n\
                 下单后会显示一行账单；/pay 为最近一张账单做一次测试付款。"
            )
        },
    },
    turn: Turn {
        words_please: "请用文字告诉我您想找什么。",
        rate_limited: "您发消息有点快，请稍等一分钟再试。",
        too_many_waiting: "我还在处理您之前的消息，最新的几条先跳过了，等我回复后请再发一次。",
        refused: "抱歉，这个导购助手目前只对指定的顾客开放。",
        done: "好的，已经处理好了。",
        gave_up: "抱歉，这个问题我没能在限定步骤内处理完。可以换个说法，或者把需求拆开一点吗？",
        over_budget: "（您今天的智能助手额度已用完，今天余下的时间我用基础模式为您服务。）",
        basic_mode: "（基础模式：智能助手暂时连接不上，我先用简化方式为您服务。）",
        private_only: "购物车和订单请在私聊里查看。",
        lookup_failed: "抱歉，暂时查不到，请稍后再试。",
        group_handoff: "购物车和订单只能在私聊里处理，点下面的按钮，我们私聊继续。",
        stats_unreadable: "读不到今天的统计",
        stats_labels: ["今日统计", "消息", "顾客", "模型 tokens", "订单", "常用工具", "错误", "语音转写"],
    },
    confirm: Confirm {
        check_order: |summary| format!("请核对订单后确认：\n{summary}"),
        please_confirm: |summary| format!("请确认：\n{summary}"),
        run: "执行：",
        cannot_hold: "抱歉，系统暂时无法保存这个操作，请稍后再试。",
        not_yours: "这是其他顾客的确认，只有发起请求的人才能操作。",
        confirmed: "已确认：",
        cancelled: "已取消：",
        in_progress: "正在处理中，请稍候，结果马上发给您。",
        press_again: "系统繁忙，请稍后再按一次。",
        order_changed_unsaved: "订单信息有变化，但系统暂时无法保存新的确认，请重新下单。",
        order_changed: "价格或库存有变化，请按最新信息重新确认。",
        wrong_code: "确认码不正确，请再输入一次。",
        already_done_as: "已经处理过了：",
        already_done: "这个操作已经处理过了。",
        outcome_cancelled: "已取消",
        outcome_order: "订单 ",
        outcome_failed: "未能完成",
        code_request: |code| format!("为了安全，请输入确认码 {code} 来完成下单。"),
        expired: "这个确认已过期，请重新提问。",
        code_in_chat: "这个订单需要输入一次性验证码，只能在与机器人的聊天中输入：这里什么也没做，请在聊天中下单。",
        too_large: "这个请求太长，无法保留以待确认；什么也没做。",
    },
    small_talk: SmallTalk {
        thanks: "不客气！还需要帮您找点什么吗？",
        bye: "再见，祝您购物愉快！",
        who: "我是商场的导购助手：可以帮您找商品和店铺、告诉您怎么走、查看优惠和评价，还能管理购物车和订单。",
        hello: "您好！我是商场导购助手，想买点什么，还是找哪家店？",
        other: "这个我不太懂😅 我擅长帮您在商场购物：找商品、找店铺、带路、管理购物车和订单。",
        find_example: |product| format!("帮我找{product}"),
        where_example: |store| format!("{store}在哪"),
        offers_example: |store| format!("{store}有什么优惠"),
        cart_example: "看看我的购物车",
    },
    answers: Answers {
        done: "好的，已完成。",
        found_products: |total, cheap| {
            format!("为您找到 {total} 件商品{}：", if cheap { "（价格从低到高）" } else { "" })
        },
        rated: "评分 ",
        at: "",
        reply_first: "回复“第一个”查看详情。",
        price_between: |min, max| format!(" {min}–{} ", max.trim_start_matches('¥')),
        price_under: |max| format!(" {max} 以内"),
        price_over: |min| format!(" {min} 以上"),
        no_products: |keyword, range| {
            let of = if range.is_empty() { "" } else { "的" };
            format!("没有找到{range}{of}“{keyword}”。可以放宽条件试试，比如提高价格上限或换个关键词。")
        },
        more_products: |others| format!("另外还有 {others} 款，回复“第二个”可以看下一款。"),
        out_of_stock: "很抱歉，这件商品目前缺货。",
        add_it: "要加入购物车吗？回复“加入购物车”即可。",
        which_size: |listed| format!("有 {listed} 码，您要哪个尺码？"),
        which_one: |listed| format!("可选：{listed}，您要哪一款？"),
        size_unavailable: |size, sizes| {
            format!("抱歉，{size} 码没有货了。目前有货的尺码：{sizes}，您要哪个？")
        },
        what_to_search: "您想找什么商品？比如“Nike 跑鞋 500 以内”。",
        nothing_listed: "还没有可选的商品，先告诉我您想找什么吧。",
        no_such_item: |len| format!("上次只列出了 {len} 件商品，请选 1 到 {len} 之间的序号。"),
        no_stores: "没有找到相关的店铺，换个关键词试试？",
        found_stores: |total| format!("找到 {total} 家店："),
        open_hours: "，营业时间 ",
        which_store: "想去哪家？告诉我店名，我带您过去。",
        no_reviews: |name| format!("{name}还没有评价。"),
        reviews: |name, average| format!("{name}平均评分 {average}，最近的评价："),
        store_basic: |name, place, hours, phone| {
            let hours = if hours.is_empty() { String::new() } else { format!("，营业时间 {hours}") };
            let phone = if phone.is_empty() { String::new() } else { format!("，电话 {phone}") };
            format!("{name}在{place}{hours}{phone}。")
        },
        no_promotions: |name| format!("{name}目前没有优惠活动。"),
        promotions: |name| format!("{name}当前的优惠："),
        promotion: |title, description, until| match description {
            "" => format!("{title}（有效期至 {until}）"),
            _ => format!("{title}：{description}（有效期至 {until}）"),
        },
        untranslated_offer: "优惠活动",
        untranslated_event: "商场活动",
        store_not_found: |name, closest| {
            format!("没有找到“{name}”这家店。名字相近的有：{closest}。点下面的按钮带您过去。")
        },
        main_entrance: "正门",
        route_here: |name, place, from, distance, eta| {
            format!("{name}在{place}。从{from}出发约 {distance} 米，步行约 {eta} 分钟：")
        },
        route_to: |name, from, distance, eta| {
            format!("去{name}：从{from}出发约 {distance} 米，步行约 {eta} 分钟：")
        },
        route_here_unmeasured: |name, place, from| format!("{name}在{place}。从{from}出发："),
        route_to_unmeasured: |name, from| format!("去{name}：从{from}出发："),
        area: |name, floor, description| format!("{name}在{floor}。{description}"),
        stores_here: "这里有：",
        added: |name, quantity, total| {
            format!("已加入购物车：{name} × {quantity}，购物车合计 {total}。要现在下单吗？")
        },
        cart_title: "购物车里有：",
        cart_total: |total| format!("合计 {total}。要下单吗？"),
        removed_empty: "已删除，购物车现在是空的。",
        removed_title: "已删除。购物车里还有：",
        removed_total: |total| format!("合计 {total}。"),
        cart_empty: "购物车是空的，先挑几件商品吧。",
        cart_cleared: "购物车已清空。",
        which_cart_item: "要删除哪一件？比如“删掉第一件”：",
        which_product: "您想加购哪件商品？先告诉我您想找什么吧。",
        status: |status| match status {
            OrderStatus::PendingPayment => "待支付",
            OrderStatus::Paid => "已支付",
            OrderStatus::Cancelled => "已取消",
            OrderStatus::Completed => "已完成",
            OrderStatus::Ready => "待取货",
            OrderStatus::Expired => "已过期",
        },
        pickup: |name, at| format!("取货门店：{name}{at}。"),
        order_created: |id, status, total, pickup| {
            format!("下单成功！订单号 {id}，状态：{status}，合计 {total}。{pickup}")
        },
        order_status: |id, status, total, created, pickup| {
            format!("订单 {id}：{status}，合计 {total}，下单日期 {created}。{pickup}")
        },
        order_cancelled: |id, total| format!("订单 {id} 已取消（{total}），商品已退回库存。"),
        refund_pending: |amount| format!("已付的 {amount} 将退回：商场正在办理退款，完成后会通知您。"),
        refund_done: |amount| format!("已付的 {amount} 已退回。"),
        orders_title: "您的订单：",
        order_line: |i, id, status, total, count, created| {
            format!("{i}. {id} — {status}，{total}，{count} 件，{created}")
        },
        no_orders: "您还没有订单。",
        no_pending_orders: "您没有可以取消的订单（只有待支付或已付款、尚未备好的订单可以取消）。",
        no_unpaid_orders: "您没有待支付的订单，所有订单都已付款或已结束。",
        how_to_pay: "把想买的加入购物车，说「下单」，我就帮您下单，到门店取货。下单后如果附有账单，直接在聊天里支付就行（/orders 里的订单下也有「💳 支付」）；没有账单的话，到取货门店付款取货。",
        declined: "好的，已取消，没有做任何更改。",
        private_only: "购物车和订单只能在私聊中使用，请私聊我继续。",
        cannot_here: "抱歉，这里暂时不能做这件事。",
        not_cancellable: "这个订单已经不能取消了：只有待支付或已付款、尚未备好的订单可以取消。",
        price_changed: "商品价格有变动，订单没有创建。请先看看购物车里的最新价格再下单。",
        invalid: "抱歉，我没能处理这个请求，换个说法试试？",
        mall_down: "抱歉，商场系统暂时没有响应，请稍后再试。",
        no_stock: "抱歉，库存不足，没能加入购物车。",
        other_sizes: |sizes| format!("目前有货的尺码：{sizes}，换一个试试？"),
        fewer: "可以少买几件，或者看看别的商品。",
        store_missing: "没有找到这家店。可以说“找一家咖啡店”这样搜索店铺。",
        area_missing: "没有找到这个区域，换个说法试试？",
        product_missing: "没有找到这件商品，重新搜索一下吧。",
        order_missing: "没有找到这个订单。说“我的订单”可以查看全部订单。",
        nothing_found: "没有找到相关内容，搜索一下试试？",
    },
    tools: Tools {
        working: "⏳ 正在处理…",
        add_to_cart: "加入购物车",
        show_first: "看看第一个",
        after_add: ["查看购物车", "下单"],
        promotions_of: |name| format!("{name}有什么优惠"),
        add_preview: "加入购物车：",
        remove_preview: "从购物车移除：",
        clear_preview: "清空购物车：",
        order_preview: "确认下单：",
        pickup: "取货：",
        cancel_preview: |id| format!("取消订单 {id}："),
        cancel_refund: |amount| format!("💰 此订单已付款 {amount}：取消后由商场办理退款。"),
        map_button: "🗺 在地图上看",
        menu_button: "🛍 商场",
    },
    map: maps::MapWords::CHINESE,
    facilities: Facilities {
        kind: |key| {
            Some(match key {
                "restroom" => "洗手间",
                "restroom.wheelchair" => "无障碍洗手间",
                "restroom.family" => "家庭洗手间",
                "mothersroom" => "母婴室",
                "babychanging" => "婴儿换尿布台",
                "information" => "服务台",
                "atm" => "自动取款机（ATM）",
                "firstaid" => "医务室",
                "powerchargingstation" => "手机充电站",
                "coinlocker" => "储物柜",
                "drinkingfountain" => "饮水机",
                "smokingarea" => "吸烟区",
                "elevator" => "电梯",
                "escalator" => "扶梯",
                "stairs" => "楼梯",
                "parking" => "停车场入口",
                _ => return None,
            })
        },
        progress: |kind| format!("🚻 正在找最近的{kind}…"),
        nearest: |name, floor, from, m, min| {
            format!("最近的{name}在 {floor}，从{from}步行约 {m} 米，约 {min} 分钟：")
        },
        missing: |kind, kinds| format!("抱歉，商场地图上没有{kind}。这里有：{kinds}。"),
        no_map: "抱歉，这个商场还没有室内地图，我找不到设施的位置。可以问问服务台。",
        unknown_start: "抱歉，我在地图上找不到您说的位置。告诉我您在哪家店、哪个入口或几楼（如「我在3楼」），我再帮您找。",
        ask_nearest: |kind| format!("最近的{kind}"),
    },
    media: Media {
        listening: "🎤 正在听您的语音…",
        looking: "🖼️ 正在看您的照片…",
        voice_off: "抱歉，我这里还听不了语音消息 🙂 打字就可以：告诉我您想找什么，比如「Nike 店在哪里？」",
        too_long: |max| {
            format!("这条语音太长了，我只能听 {max} 秒以内的。请说短一点再发一次，或者直接打字。")
        },
        too_big: "这个文件太大了（超过 20 MB），我取不下来。请发一条短一点的语音，或者直接打字。",
        transcription_failed: "抱歉，语音转文字暂时出了问题，这条语音我没能听懂。请稍后再发一次，或者直接打字告诉我。",
        nothing_heard: "我没听到内容，请再说一次，或者直接打字。",
        voice_over_budget: "今天的智能助手额度已用完，明天之前我听不了语音了。直接打字告诉我你想找什么就好。",
        fetch_failed: "抱歉，我没能取到您发的文件，请再发一次，或者直接打字。",
        photo_default_ask: "帮我在商场里找找照片里的这个东西。",
        photo_unseen: "抱歉，我这里还看不了图片 🙂 请用文字描述一下您要找的东西，比如「白色 Nike 跑鞋」，\
                       或者在照片下面加一句说明再发。",
        send_it_instead: "直接发语音或照片给我就行，不需要命令。",
        console_usage: "用法：/voice 文件（ogg、mp3、m4a、wav…）或 /photo 文件 [说明]（jpg、png）",
        console_unreadable: |path, why| format!("读不了文件 {path}：{why}"),
    },
    pay: Pay {
        button: "💳 支付",
        directions_button: "🧭 怎么走",
        directions_request: |store| format!("带我去{store}"),
        invoice_title: |store| format!("{store} 订单"),
        invoice_description: |id, mins| format!("订单 {id}，到店取货。请在 {mins} 分钟内支付。"),
        invoice_discounted_line: |id| format!("订单 {id}（已减优惠券）"),
        discount_summary: |subtotal, off, total| format!("商品小计 {subtotal} − 优惠券 {off} = 实付 {total}"),
        pay_in_chat: |mins| {
            format!("💳 请在下方的账单里支付（{mins} 分钟内有效，过时订单自动取消、库存释放）。")
        },
        pay_at_store: "请到取货门店付款取货。",
        invoice_failed: |id| format!("账单暂时发不出来，请稍后在「我的订单」里点 💳 支付（订单 {id}）。"),
        not_payable: |id, status| format!("订单 {id} 现在是「{status}」，不能再支付。"),
        refuse_forged: "这张账单无法核对，请在「我的订单」里重新点 💳 支付",
        refuse_not_yours: "这不是您的订单，无法支付",
        refuse_cancelled: "这笔订单已取消",
        refuse_expired: "订单已过期，请重新下单",
        refuse_paid: "这笔订单已经支付过了",
        refuse_mismatch: "订单金额有变化，请在「我的订单」里重新点 💳 支付",
        refuse_unavailable: "商场系统暂时不可用，请稍后再试",
        paid: |id, total, store, place| {
            format!("✅ 支付成功！订单 {id}，已付 {total}。\n取货：{store}{place}。备好后我会通知您。")
        },
        paid_pending: |id| {
            format!("✅ 已收到您的付款（订单 {id}）。商场系统正在登记，登记好后我会告诉您，不会重复扣款。")
        },
        refund_due: |id| format!("已收到付款，订单已失效，将全额退款（订单 {id}）。"),
        event_paid: |id| format!("✅ 订单 {id} 已支付。"),
        event_ready: |id, store, place| format!("🛍️ 订单 {id} 已备好，可以到{store}{place}取货了。"),
        event_completed: |id| format!("📦 订单 {id} 已取货，谢谢光临！"),
        event_expired: |id| {
            format!("⌛ 订单 {id} 未在时限内支付，已自动取消，库存已释放。需要的话可以重新下单。")
        },
        event_cancelled: |id| format!("订单 {id} 已取消。"),
        event_refunded: |id| format!("💰 订单 {id} 的退款已完成。"),
        staff_usage: "用法：/ready 订单号 或 /pickedup 订单号",
        staff_done: |id, status| format!("订单 {id} 现在是「{status}」，已通知顾客。"),
        staff_failed: |id, why| format!("订单 {id} 未能更新：{why}"),
        stats_refunds: |n, orders| format!("⚠️ 待退款（商场未接受的付款）：{n}（{orders}）"),
        console_invoice: |id, total| format!("🧾 账单：订单 {id}，{total}（测试：输入 /pay 完成测试支付）"),
        console_no_invoice: "还没有账单：先下单。",
        console_test_paid: "🧪 测试支付（不是真实付款）",
    },
    mcp: Mcp {
        remote_progress: |server| format!("⏳ 正在询问 {server}…"),
        needs_elicitation: |tool| {
            format!(
                "「{tool}」会改动购物车或订单，必须先征得您的确认，但这个客户端不支持 MCP 确认请求（elicitation），所以什么也没做。\
                 请换用支持确认请求的客户端，或在 Telegram 里和机器人完成这一步。"
            )
        },
        declined: "您取消了这个操作，什么也没做。",
        kept_changing: "订单信息一直在变化，这次没有下单，请稍后再试。",
        could_not_ask: "无法向您请求确认，所以什么也没做。",
        failed: |id| format!("我们这边出了问题，什么也没做（错误编号 {id}），请稍后再试。"),
    },
    mall: super::mall::ZH_HANS,
    alerts: super::alerts::ZH_HANS,
    guide: super::guide::ZH_HANS,
    support: Support {
        button: "👤 人工",
        connecting: "👤 正在为您转接人工客服，请稍候。您可以直接在这里说明情况，客服会看到。",
        joined: "👤 客服已接入，现在和您对话的是商场工作人员。",
        closed: "客服已结束本次对话。接下来由我（智能导购）继续为您服务，需要时随时说「人工」。",
        no_desk: "抱歉，我这里暂时接不了人工客服。请到商场的服务台找工作人员。",
        no_desk_at: |title, text| {
            format!("抱歉，我这里暂时接不了人工客服。请找商场的工作人员：\n【{title}】{text}")
        },
        after_hours: |opens| {
            format!(
                "人工客服现在不在班，{opens} 开始上班。在那之前我可以帮您找店、找商品、查订单；急事请到商场的服务台。"
            )
        },
        no_answer_yet: "客服暂时都在忙，还没有人回复。您可以继续等，也可以先让我（智能导购）帮您。",
        keep_waiting: "⏳ 继续等",
        back_to_bot: "🤖 先问导购",
        waiting: "好的，客服一回复就会出现在这里。",
        back: "好的，我（智能导购）继续为您服务。需要时随时说「人工」。",
        asked_reason: "顾客要求人工",
        card: |name, lang, reason, recent, shopping| {
            format!(
                "🆕 人工请求\n顾客：{name}（{lang}）\n原因：{reason}\n\n最近的对话：\n{recent}\n\n购物车和订单：\n{shopping}\n\n在本话题里回复即可发给顾客；发 /close 或点下面的按钮结束。"
            )
        },
        close_button: "✅ 结束对话",
        closed_note: "✅ 对话已结束，顾客已收到通知。",
        blocked_note: "⛔ 顾客已屏蔽机器人，消息无法送达。",
        went_back_note: "↩️ 顾客选择先问智能导购，对话已结束。",
        already_closed: "这个对话已经结束了。",
        report_private_only: "/report 只能在和我的私聊里用。",
    },
};

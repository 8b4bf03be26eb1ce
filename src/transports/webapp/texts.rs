//! What the Mini App's pages and API say, in each language. The page gets
//! its table from `/webapp/api/texts`; the API's errors come from here too.

use handlers::Lang;
use serde::Serialize;

/// The Mini App's words in one language.
#[derive(Debug, Serialize)]
pub(crate) struct WebTexts {
    pub(crate) title: &'static str,
    pub(crate) tab_map: &'static str,
    pub(crate) tab_directory: &'static str,
    pub(crate) tab_cart: &'static str,
    pub(crate) search: &'static str,
    pub(crate) all_floors: &'static str,
    pub(crate) all_categories: &'static str,
    pub(crate) floor: &'static str,
    pub(crate) route_here: &'static str,
    pub(crate) from: &'static str,
    pub(crate) avoid_stairs: &'static str,
    pub(crate) hours: &'static str,
    pub(crate) phone: &'static str,
    pub(crate) promotions: &'static str,
    pub(crate) reviews: &'static str,
    pub(crate) none: &'static str,
    pub(crate) metres: &'static str,
    pub(crate) minutes: &'static str,
    pub(crate) cart: &'static str,
    pub(crate) cart_empty: &'static str,
    pub(crate) total: &'static str,
    pub(crate) remove: &'static str,
    pub(crate) one_more: &'static str,
    pub(crate) order: &'static str,
    pub(crate) orders: &'static str,
    pub(crate) no_orders: &'static str,
    pub(crate) pay: &'static str,
    pub(crate) cancel_order: &'static str,
    pub(crate) confirm: &'static str,
    pub(crate) cancel: &'static str,
    pub(crate) check_order: &'static str,
    pub(crate) paid: &'static str,
    pub(crate) open_in_telegram: &'static str,
    pub(crate) loading: &'static str,
    pub(crate) invalid: &'static str,
    pub(crate) not_found: &'static str,
    pub(crate) refused: &'static str,
    pub(crate) mall_down: &'static str,
    pub(crate) no_map: &'static str,
    pub(crate) expired: &'static str,
    pub(crate) not_yours: &'static str,
    pub(crate) changed: &'static str,
    pub(crate) pay_at_store: &'static str,
    pub(crate) not_payable: &'static str,
    /// The facility filter: every facility shown.
    pub(crate) facilities_all: &'static str,
    /// The facility filter: none shown.
    pub(crate) facilities_none: &'static str,
    /// Before the kind picker on a store's card.
    pub(crate) nearest_facility: &'static str,
    /// The button that draws the way to the nearest facility of that kind.
    pub(crate) facility_go: &'static str,
}

/// The table of `lang`.
pub(crate) fn of(lang: Lang) -> &'static WebTexts {
    match lang {
        Lang::Zh => &ZH_HANS,
        Lang::ZhHant => &ZH_HANT,
        Lang::En => &EN,
    }
}

static ZH_HANS: WebTexts = WebTexts {
    title: "商场导购",
    tab_map: "🗺 地图",
    tab_directory: "🏬 店铺",
    tab_cart: "🛒 购物车",
    search: "搜索店铺、品牌或类别",
    all_floors: "全部楼层",
    all_categories: "全部类别",
    floor: "楼层",
    route_here: "🧭 到这里",
    from: "从",
    avoid_stairs: "不走楼梯",
    hours: "营业时间",
    phone: "电话",
    promotions: "优惠活动",
    reviews: "评价",
    none: "暂无",
    metres: "米",
    minutes: "分钟",
    cart: "购物车",
    cart_empty: "购物车是空的。",
    total: "合计",
    remove: "移除",
    one_more: "再加一件",
    order: "📦 下单到店取货",
    orders: "我的订单",
    no_orders: "还没有订单。",
    pay: "💳 支付",
    cancel_order: "取消订单",
    confirm: "✅ 确认",
    cancel: "✖️ 取消",
    check_order: "请核对订单：",
    paid: "支付成功！",
    open_in_telegram: "购物车和订单请在 Telegram 里打开本页查看。",
    loading: "加载中…",
    invalid: "这个请求无法处理。",
    not_found: "没有找到。",
    refused: "商场没有接受这个操作。",
    mall_down: "商场系统暂时不可用，请稍后再试。",
    no_map: "这个商场还没有室内地图。",
    expired: "这个确认已过期或已处理，请重新操作。",
    not_yours: "这不是您的操作。",
    changed: "价格或库存有变化，请再核对一次。",
    pay_at_store: "请到取货门店付款。",
    not_payable: "这个订单现在不能支付。",
    facilities_all: "🚻 全部设施",
    facilities_none: "隐藏设施",
    nearest_facility: "离这里最近的",
    facility_go: "🚻 带我去",
};

static ZH_HANT: WebTexts = WebTexts {
    title: "商場導購",
    tab_map: "🗺 地圖",
    tab_directory: "🏬 店鋪",
    tab_cart: "🛒 購物車",
    search: "搜尋店鋪、品牌或類別",
    all_floors: "全部樓層",
    all_categories: "全部類別",
    floor: "樓層",
    route_here: "🧭 到這裡",
    from: "從",
    avoid_stairs: "不走樓梯",
    hours: "營業時間",
    phone: "電話",
    promotions: "優惠活動",
    reviews: "評價",
    none: "暫無",
    metres: "公尺",
    minutes: "分鐘",
    cart: "購物車",
    cart_empty: "購物車是空的。",
    total: "合計",
    remove: "移除",
    one_more: "再加一件",
    order: "📦 下單到店取貨",
    orders: "我的訂單",
    no_orders: "還沒有訂單。",
    pay: "💳 付款",
    cancel_order: "取消訂單",
    confirm: "✅ 確認",
    cancel: "✖️ 取消",
    check_order: "請核對訂單：",
    paid: "付款成功！",
    open_in_telegram: "購物車和訂單請在 Telegram 裡開啟本頁查看。",
    loading: "載入中…",
    invalid: "這個請求無法處理。",
    not_found: "沒有找到。",
    refused: "商場沒有接受這個操作。",
    mall_down: "商場系統暫時無法使用，請稍後再試。",
    no_map: "這個商場還沒有室內地圖。",
    expired: "這個確認已過期或已處理，請重新操作。",
    not_yours: "這不是您的操作。",
    changed: "價格或庫存有變化，請再核對一次。",
    pay_at_store: "請到取貨門市付款。",
    not_payable: "這個訂單現在無法付款。",
    facilities_all: "🚻 全部設施",
    facilities_none: "隱藏設施",
    nearest_facility: "離這裡最近的",
    facility_go: "🚻 帶我去",
};

static EN: WebTexts = WebTexts {
    title: "Mall guide",
    tab_map: "🗺 Map",
    tab_directory: "🏬 Stores",
    tab_cart: "🛒 Cart",
    search: "Search stores, brands or categories",
    all_floors: "All floors",
    all_categories: "All categories",
    floor: "Floor",
    route_here: "🧭 Route here",
    from: "From",
    avoid_stairs: "Avoid stairs",
    hours: "Hours",
    phone: "Phone",
    promotions: "Promotions",
    reviews: "Reviews",
    none: "None yet",
    metres: "m",
    minutes: "min",
    cart: "Cart",
    cart_empty: "Your cart is empty.",
    total: "Total",
    remove: "Remove",
    one_more: "One more",
    order: "📦 Order for pickup",
    orders: "My orders",
    no_orders: "No orders yet.",
    pay: "💳 Pay",
    cancel_order: "Cancel order",
    confirm: "✅ Confirm",
    cancel: "✖️ Cancel",
    check_order: "Please check your order:",
    paid: "Paid!",
    open_in_telegram: "Open this page in Telegram to see your cart and orders.",
    loading: "Loading…",
    invalid: "That request cannot be handled.",
    not_found: "Not found.",
    refused: "The mall did not accept that.",
    mall_down: "The mall's system is unavailable; please try again later.",
    no_map: "This mall has no indoor map yet.",
    expired: "This confirmation expired or was already handled; please try again.",
    not_yours: "This is not your action.",
    changed: "Prices or stock changed; please check again.",
    pay_at_store: "Please pay at the pickup store.",
    not_payable: "This order cannot be paid now.",
    facilities_all: "🚻 All facilities",
    facilities_none: "Hide facilities",
    nearest_facility: "Nearest from here",
    facility_go: "🚻 Take me there",
};

#[cfg(test)]
mod tests {
    use handlers::texts::zh_hant::is_simplified_only;

    use super::*;

    #[test]
    fn every_traditional_line_of_the_page_is_in_traditional_characters() {
        let lines = serde_json::to_value(of(Lang::ZhHant)).unwrap_or_default();
        let lines = lines.as_object().map(|o| o.values().filter_map(|v| v.as_str()).collect::<Vec<_>>());
        let lines = lines.unwrap_or_default();
        assert!(lines.len() > 40, "every line is read: {}", lines.len());
        for line in lines {
            let simplified: String = line.chars().filter(|c| is_simplified_only(*c)).collect();
            assert_eq!(simplified, "", "Simplified characters in: {line}");
        }
    }
}

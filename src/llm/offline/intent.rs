//! What a shopper's message asks for: [`parse_intent`] turns one Chinese or
//! English message into an [`Intent`], without looking at the conversation.

use super::extract::{self, Pick, PriceBounds};
use super::lexicon::{BROWSE, BUY, CHEAP, CLASSIFIERS, EN_FILLER, GREETINGS, Lexicon, ZH_FILLER};
use super::text::{Scratch, has_cjk, numbers};

/// A product search as the shopper phrased it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProductQuery {
    /// The meaningful words (brand first, canonical spelling); empty when the
    /// message only refines the previous search ("300 以下的呢", "便宜点的").
    pub keyword: String,
    /// The canonical brand, when one was named.
    pub brand: Option<String>,
    /// Price bounds in yuan.
    pub price: PriceBounds,
    /// The shopper asked for cheaper goods.
    pub cheap: bool,
    /// The shopper wants to buy, not only browse.
    pub buy: bool,
    /// How many the shopper wants ("买两双…").
    pub quantity: Option<u32>,
}

/// Which kind of store information is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoKind {
    /// Opening hours, place and phone.
    Basic,
    /// Current promotions.
    Promotions,
    /// Shoppers' reviews.
    Reviews,
}

impl InfoKind {
    /// The `info_type` argument of `get_store_info`.
    pub fn as_str(self) -> &'static str {
        match self {
            InfoKind::Basic => "basic",
            InfoKind::Promotions => "promotions",
            InfoKind::Reviews => "reviews",
        }
    }
}

/// Which cart line the shopper means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CartTarget {
    /// By position in the cart.
    Pick(Pick),
    /// By (part of) the product name.
    Name(String),
    /// Not said.
    Unspecified,
}

/// What a message asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// Find products (and, when buying, open the best match).
    SearchProducts(ProductQuery),
    /// Open one of the products listed last.
    ShowProduct(Pick),
    /// Put the product shown last into the cart.
    AddToCart {
        size: Option<String>,
        quantity: Option<u32>,
        /// "加入购物车" / "add to cart" was said (not only a size or quantity).
        explicit: bool,
    },
    /// Directions to a store.
    NavigateToStore {
        store: String,
    },
    /// An area of the mall and its stores.
    NavigateToArea {
        area: String,
    },
    /// Hours, promotions or reviews of a store.
    StoreInfo {
        store: String,
        info: InfoKind,
    },
    /// Find stores of a kind.
    SearchStores {
        keyword: String,
    },
    ViewCart,
    ClearCart,
    RemoveFromCart(CartTarget),
    /// Place an order from the cart.
    Checkout,
    ListOrders,
    /// Status of an order (the latest when no id is given).
    OrderStatus {
        order_id: Option<String>,
    },
    /// Cancel an order (the newest one that can be cancelled when no id is given).
    CancelOrder {
        order_id: Option<String>,
    },
    /// Pay an order: shows it with its pay button (the newest unpaid one
    /// when no id is given).
    PayOrder {
        order_id: Option<String>,
    },
    /// A tool that declares how basic mode recognises it
    /// ([`handlers::OfflineHook`]) asked for by the message.
    Declared {
        tool: &'static str,
        arguments: serde_json::Value,
    },
    /// "好的", "yes": agrees to what the assistant just offered.
    Affirm,
    /// Nothing the planner knows: small talk, greetings, gibberish.
    None,
}

/// What the message asks for, with the names of the mall in `lexicon`.
pub fn parse_intent(text: &str, lexicon: &Lexicon) -> Intent {
    let mut s = Scratch::new(text);
    s.remove_all(GREETINGS);
    if s.residual().is_empty() {
        return Intent::None;
    }
    let detectors: [fn(&Scratch, &Lexicon) -> Option<Intent>; 10] = [
        declared_intent,
        order_intent,
        cart_intent,
        store_info_intent,
        place_intent,
        store_search_intent,
        ordinal_intent,
        sku_intent,
        product_intent,
        affirm_intent,
    ];
    detectors.iter().find_map(|detect| detect(&s, lexicon)).unwrap_or(Intent::None)
}

/// The first registered tool whose own offline hook recognises the message.
fn declared_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    handlers::all().iter().find_map(|spec| {
        let hook = spec.offline?;
        (hook.recognise)(s.orig()).map(|arguments| Intent::Declared { tool: spec.name, arguments })
    })
}

const ORDER: &[&str] = &["订单", "order", "orders"];
const CANCEL: &[&str] = &["取消", "撤销", "cancel"];
const PAY: &[&str] = &["支付", "付款", "付钱", "pay"];
#[rustfmt::skip]
const CHECKOUT: &[&str] = &[
    "下单", "结账", "结算", "买单", "去支付", "去付款", "提交订单", "checkout", "check out",
    "place the order", "place an order", "place order", "place my order", "pay now",
];
#[rustfmt::skip]
const ORDER_STATUS: &[&str] = &[
    "到哪", "状态", "进度", "怎么样了", "发货", "status", "where is", "where's", "track", "progress",
];

fn order_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    let has_order = s.contains_any(ORDER);
    let cancel = s.contains_any(CANCEL);
    let order_id = if has_order || cancel { extract::find_order_id(s.orig()) } else { None };
    if cancel && (has_order || order_id.is_some()) {
        return Some(Intent::CancelOrder { order_id });
    }
    if has_order && s.contains_any(PAY) {
        return Some(Intent::PayOrder { order_id });
    }
    if s.contains_any(CHECKOUT) {
        return Some(Intent::Checkout);
    }
    if has_order && (order_id.is_some() || s.contains_any(ORDER_STATUS)) {
        return Some(Intent::OrderStatus { order_id });
    }
    has_order.then_some(Intent::ListOrders)
}

const CART: &[&str] = &["购物车", "cart", "basket"];
#[rustfmt::skip]
const ADD: &[&str] = &[
    "加入购物车", "加到购物车", "放进购物车", "放入购物车", "加购物车", "加购", "add to cart",
    "add to my cart", "add it to", "add them to", "put it in",
];
const CLEAR: &[&str] = &["清空", "empty", "clear"];
#[rustfmt::skip]
const REMOVE: &[&str] = &[
    "删掉", "删除", "删了", "去掉", "移除", "拿掉", "remove", "delete", "take out", "drop",
];
#[rustfmt::skip]
const CART_FILLER: &[&str] = &[
    "购物车", "把", "从", "里", "中", "的", "件", "商品", "cart", "basket", "item", "from", "my", "the", "in",
    "one", "it", "of", "please",
];

fn cart_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    if s.contains_any(ADD) {
        let mut rest = s.clone();
        rest.remove_all(ADD);
        let size = extract::take_size(&mut rest);
        let quantity = extract::take_quantity(&mut rest);
        return Some(Intent::AddToCart { size, quantity, explicit: true });
    }
    let cart = s.contains_any(CART);
    if s.contains_any(CLEAR) && (cart || s.contains_any(&["清空"])) {
        return Some(Intent::ClearCart);
    }
    if s.contains_any(REMOVE) {
        let mut rest = s.clone();
        rest.remove_all(REMOVE);
        if let Some(pick) = extract::take_ordinal(&mut rest) {
            return Some(Intent::RemoveFromCart(CartTarget::Pick(pick)));
        }
        rest.remove_all(CART_FILLER);
        let name = rest.residual();
        let target = if name.is_empty() { CartTarget::Unspecified } else { CartTarget::Name(name) };
        return Some(Intent::RemoveFromCart(target));
    }
    cart.then_some(Intent::ViewCart)
}

#[rustfmt::skip]
const REVIEWS: &[&str] = &[
    "评价", "评论", "口碑", "好吃吗", "好不好吃", "reviews", "review", "ratings", "rating",
];
#[rustfmt::skip]
const PROMOTIONS: &[&str] = &[
    "优惠", "活动", "打折", "折扣", "促销", "deals", "deal", "promotions", "promotion", "discounts",
    "discount", "offers", "sales", "sale", "coupons",
];
#[rustfmt::skip]
const HOURS: &[&str] = &[
    "营业时间", "几点", "开门", "关门", "营业", "opening hours", "hours", "open", "opens", "close", "closes",
];
#[rustfmt::skip]
const INFO_FILLER: &[&str] = &[
    "怎么样", "如何", "好不好", "好吃吗", "有什么", "有没有", "现在", "今天", "是", "什么", "时间", "到",
    "几", "吗", "呢", "的", "有", "what", "what's", "when", "does", "do", "is", "are", "the", "of", "at",
    "any", "there", "for", "how", "time", "today", "now", "people", "say", "about", "have", "has", "good",
    "it", "its", "show", "me",
];

fn store_info_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    let kinds = [(REVIEWS, InfoKind::Reviews), (PROMOTIONS, InfoKind::Promotions), (HOURS, InfoKind::Basic)];
    let (words, info) = kinds.into_iter().find(|(words, _)| s.contains_any(words))?;
    let mut rest = s.clone();
    rest.remove_all(words);
    rest.remove_all(INFO_FILLER);
    let store = rest.residual();
    (!store.is_empty()).then_some(Intent::StoreInfo { store, info })
}

#[rustfmt::skip]
const NAVIGATE: &[&str] = &[
    "在哪里", "在哪儿", "在哪", "在几楼", "几楼", "怎么走", "怎么去", "怎么过去", "怎么到", "带我去",
    "导航到", "导航去", "我想去", "where can i find", "where is", "where's", "where are", "how do i get to",
    "how can i get to", "how to get to", "how do i go to", "take me to", "directions to", "navigate to",
    "the way to", "guide me to",
];
#[rustfmt::skip]
const LIST_STORES: &[&str] = &[
    "有哪些店", "有什么店", "有哪些商店", "有哪些餐厅", "有什么好吃的", "有什么吃的", "what stores",
    "which stores", "what shops", "which shops", "stores in", "shops in", "restaurants in", "what's in",
];
#[rustfmt::skip]
const PLACE_FILLER: &[&str] = &[
    "the", "me", "i", "to", "are", "is", "there", "in", "请问", "我", "的", "附近",
];

fn place_intent(s: &Scratch, lexicon: &Lexicon) -> Option<Intent> {
    let navigate = s.contains_any(NAVIGATE);
    let list = s.contains_any(LIST_STORES);
    if !navigate && !list {
        return None;
    }
    let mut rest = s.clone();
    rest.remove_all(NAVIGATE);
    rest.remove_all(LIST_STORES);
    rest.remove_all(PLACE_FILLER);
    let place = rest.residual();
    if place.is_empty() {
        return None;
    }
    if lexicon.is_area(&place) {
        return Some(Intent::NavigateToArea { area: place });
    }
    if let Some(keyword) = lexicon.store_type_keyword(&place)
        && (!navigate || lexicon.is_kind(&keyword))
    {
        return Some(Intent::SearchStores { keyword });
    }
    if lexicon.find_brand(&rest).is_none() && !lexicon.names_store(&rest) && lexicon.has_category(&rest) {
        return None;
    }
    navigate.then_some(Intent::NavigateToStore { store: place })
}

#[rustfmt::skip]
const FIND_STORE: &[&str] = &[
    "找一家", "找家", "找个", "哪里有", "哪儿有", "哪有", "有没有", "推荐一家", "推荐", "找", "find",
    "looking for", "any", "recommend", "search", "is there", "are there",
];

#[rustfmt::skip]
const EAT: &[&str] = &[
    "吃饭的地方", "吃饭", "吃东西", "吃的地方", "place to eat", "where to eat", "something to eat", "get food",
];

fn store_search_intent(s: &Scratch, lexicon: &Lexicon) -> Option<Intent> {
    if s.contains_any(EAT) {
        let keyword = if has_cjk(s.orig()) { "餐厅" } else { "restaurant" };
        return Some(Intent::SearchStores { keyword: keyword.to_owned() });
    }
    let mut rest = s.clone();
    rest.remove_all(FIND_STORE);
    rest.remove_all(&["a", "an", "the", "me", "some", "good", "nearby", "一个", "的", "吗", "?"]);
    let place = rest.residual();
    lexicon.store_type_keyword(&place).map(|keyword| Intent::SearchStores { keyword })
}

#[rustfmt::skip]
const VIEW_FILLER: &[&str] = &[
    "看看", "看下", "看一下", "查看", "详情", "介绍一下", "介绍", "我要", "要", "选", "就", "吧", "这个",
    "那个", "的", "个", "show", "me", "the", "one", "details", "detail", "of", "about", "tell", "more",
    "open", "see", "let's", "let", "look", "at", "i'll", "take", "i", "want", "product", "item",
];

fn ordinal_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    let mut rest = s.clone();
    let pick = extract::take_ordinal(&mut rest)?;
    rest.remove_all(VIEW_FILLER);
    rest.residual().is_empty().then_some(Intent::ShowProduct(pick))
}

#[rustfmt::skip]
const SKU_FILLER: &[&str] = &[
    "我要", "要", "就", "吧", "好", "的", "给我", "来", "拿", "买", "尺码", "码数", "码", "号", "i'll",
    "take", "i", "want", "ok", "okay", "yes", "size", "please", "in", "give", "me",
];

#[rustfmt::skip]
const THIS_ONE: &[&str] = &[
    "就这个", "这个", "这款", "这双", "这件", "就它", "this one", "that one", "take it", "take this",
];

fn sku_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    let mut rest = s.clone();
    let mut size = extract::take_size(&mut rest);
    let quantity = extract::take_quantity(&mut rest);
    let this_one = rest.remove_all(THIS_ONE);
    rest.remove_all(SKU_FILLER);
    let left = rest.residual();
    if this_one && left.is_empty() {
        return Some(Intent::AddToCart { size, quantity, explicit: false });
    }
    if size.is_none() && quantity.is_none() {
        let digits = left.starts_with(|c: char| c.is_ascii_digit());
        let bare = numbers(&left).into_iter().find(|n| digits && n.range == (0..left.len()))?;
        size = Some(bare.text);
    } else if !left.is_empty() {
        return None;
    }
    Some(Intent::AddToCart { size, quantity, explicit: false })
}

fn product_intent(s: &Scratch, lexicon: &Lexicon) -> Option<Intent> {
    let mut rest = s.clone();
    let price = extract::take_price_bounds(&mut rest);
    let brand = lexicon.find_brand(&rest);
    if let Some((_, range)) = &brand {
        rest.remove_range(range.clone());
    }
    let buy = rest.contains_any(BUY);
    let browse = rest.contains_any(BROWSE);
    let cheap = rest.remove_all(CHEAP);
    let category = lexicon.has_category(&rest);
    extract::take_size(&mut rest);
    let quantity = extract::take_quantity(&mut rest);
    remove_counted_classifiers(&mut rest);
    rest.remove_all(ZH_FILLER);
    let words = rest.residual_without(EN_FILLER);
    let known = brand.is_some() || category || !price.is_empty() || cheap;
    if !known && (!(buy || browse) || words.is_empty()) {
        return None;
    }
    let brand = brand.map(|(name, _)| name);
    let keyword = [brand.clone().unwrap_or_default(), words].join(" ").trim().to_owned();
    Some(Intent::SearchProducts(ProductQuery { keyword, brand, price, cheap, buy, quantity }))
}

#[rustfmt::skip]
const AFFIRM: &[&str] = &[
    "好的", "好啊", "好", "可以", "行", "是的", "是", "对", "嗯", "要", "没问题", "确定", "yes", "yeah", "yep",
    "ok", "okay", "sure", "go ahead", "please do", "do it", "of course",
];

fn affirm_intent(s: &Scratch, _lexicon: &Lexicon) -> Option<Intent> {
    let mut rest = s.clone();
    rest.remove_all(AFFIRM).then_some(())?;
    rest.remove_all(&["吧", "的", "呀", "啊", "please"]);
    rest.residual().is_empty().then_some(Intent::Affirm)
}

/// Strikes out `一双`, `两件`, `几款`, `买个`: a numeral (or `几`, `买`…) and a classifier.
fn remove_counted_classifiers(s: &mut Scratch) {
    let lower = s.lower().to_owned();
    let spans: Vec<_> = lower
        .char_indices()
        .filter(|(_, c)| CLASSIFIERS.contains(*c))
        .filter_map(|(at, c)| {
            let head = lower[..at].chars().last()?;
            let counted = "几这那买要来一二两三四五六七八九十".contains(head);
            counted.then(|| at - head.len_utf8()..at + c.len_utf8())
        })
        .collect();
    spans.into_iter().for_each(|r| s.remove_range(r));
}

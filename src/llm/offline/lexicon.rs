//! The words the offline planner knows: brands, product categories, areas of
//! the mall, store types, and the cue and filler phrases of each intent.
//! All entries are lowercase.

use super::text::Scratch;

/// Known brands: the canonical name and the ways shoppers write it.
pub(crate) const BRANDS: &[(&str, &[&str])] = &[
    ("Nike", &["nike", "耐克"]),
    ("Adidas", &["adidas", "阿迪达斯", "阿迪"]),
    ("Uniqlo", &["uniqlo", "优衣库"]),
    ("Apple", &["apple", "苹果"]),
    ("Huawei", &["huawei", "华为"]),
    ("Xiaomi", &["xiaomi", "小米"]),
    ("Li-Ning", &["li-ning", "li ning", "lining", "李宁"]),
    ("Anta", &["anta", "安踏"]),
    ("Starbucks", &["starbucks", "星巴克"]),
    ("Zara", &["zara"]),
    ("H&M", &["h&m"]),
    ("Muji", &["muji", "无印良品"]),
    ("LEGO", &["lego", "乐高"]),
    ("Sony", &["sony", "索尼"]),
    ("Samsung", &["samsung", "三星"]),
    ("Puma", &["puma", "彪马"]),
    ("New Balance", &["new balance", "新百伦"]),
    ("Converse", &["converse", "匡威"]),
    ("Skechers", &["skechers", "斯凯奇"]),
    ("Dyson", &["dyson", "戴森"]),
    ("Haidilao", &["haidilao", "海底捞"]),
    ("Luckin", &["luckin", "瑞幸"]),
    ("HeyTea", &["heytea", "喜茶"]),
    ("Sephora", &["sephora", "丝芙兰"]),
];

/// Product category words (kept in the search keyword as written).
#[rustfmt::skip]
pub(crate) const CATEGORIES: &[&str] = &[
    "跑鞋", "跑步鞋", "运动鞋", "球鞋", "篮球鞋", "板鞋", "鞋", "t恤", "短袖", "外套", "夹克", "羽绒服",
    "卫衣", "衬衫", "裤", "裙", "手机", "耳机", "电脑", "笔记本", "平板", "手表", "手环", "咖啡", "奶茶",
    "茶", "玩具", "积木", "背包", "包", "帽", "袜", "口红", "香水", "护肤", "化妆品", "running shoes",
    "shoes", "shoe", "sneakers", "trainers", "t-shirt", "t-shirts", "tee", "shirt", "jacket", "coat",
    "hoodie", "jeans", "pants", "trousers", "dress", "skirt", "phone", "phones", "smartphone", "headphones",
    "earbuds", "earphones", "laptop", "tablet", "watch", "coffee", "latte", "tea", "toy", "toys", "bag",
    "backpack", "hat", "cap", "socks", "lipstick", "perfume", "iphone", "ipad", "macbook",
    "airpods",
];

/// Named areas of the mall.
#[rustfmt::skip]
pub(crate) const AREAS: &[&str] = &[
    "美食广场", "美食街", "美食区", "餐饮区", "运动区", "儿童区", "亲子区", "休闲区", "数码区", "服装区",
    "停车场", "电影院", "影院", "food court", "sports zone", "sports area", "kids zone", "kids area",
    "parking", "cinema",
];

/// Endings that make a place an area rather than a store.
pub(crate) const AREA_ENDINGS: &[&str] = &["区", "广场", "美食街", "zone", "area", "court", "plaza"];

/// Words that make a place a kind of store rather than a named one.
#[rustfmt::skip]
pub(crate) const STORE_TYPES: &[&str] = &[
    "餐厅", "饭店", "餐馆", "馆", "厅", "店", "shops", "shop", "stores", "store", "restaurants", "restaurant",
    "cafe", "café",
];

/// Greetings and politeness, struck out before anything else.
#[rustfmt::skip]
pub(crate) const GREETINGS: &[&str] = &[
    "你好", "您好", "嗨", "哈喽", "请问", "麻烦", "谢谢", "hello", "hi", "hey", "please", "thanks",
    "thank you",
];

/// Phrases that mean the shopper wants to buy.
#[rustfmt::skip]
pub(crate) const BUY: &[&str] = &[
    "买", "购买", "想要", "我要", "buy", "purchase", "i want", "i'd like", "i would like", "i need", "get me",
];

/// Phrases that mean the shopper is browsing.
#[rustfmt::skip]
pub(crate) const BROWSE: &[&str] = &[
    "有什么", "有没有", "有哪些", "有啥", "推荐", "找", "搜", "看看", "show me", "find", "search",
    "looking for", "recommend", "do you have", "do you sell", "any",
];

/// Phrases that ask for cheaper goods.
#[rustfmt::skip]
pub(crate) const CHEAP: &[&str] = &[
    "便宜点", "便宜一点", "便宜些", "便宜的", "便宜", "实惠", "cheaper", "cheapest", "cheap", "affordable",
    "budget",
];

/// Chinese filler struck out of a product keyword.
#[rustfmt::skip]
pub(crate) const ZH_FILLER: &[&str] = &[
    "帮我", "给我", "我想要", "我想", "我要", "想要", "想买", "购买", "搜一下", "搜索", "查一下", "找一下",
    "找找", "看一下", "看看", "推荐一下", "推荐", "有什么", "有没有", "有哪些", "有啥", "什么", "哪些",
    "一些", "一下", "一点", "商品", "东西", "价格", "左右", "元", "块钱", "块", "的", "吗", "呢", "吧", "啊",
    "呀", "买", "要", "有", "卖", "找", "搜", "我", "在", "款", "哪里", "哪儿", "哪",
];

/// English words struck out of a keyword.
#[rustfmt::skip]
pub(crate) const EN_FILLER: &[&str] = &[
    "i", "i'd", "i'm", "want", "wanna", "to", "buy", "would", "like", "find", "me", "show", "search", "for",
    "looking", "look", "some", "any", "a", "an", "the", "pair", "pairs", "of", "can", "could", "you", "do",
    "does", "have", "has", "get", "need", "something", "help", "recommend", "what", "what's", "whats", "are",
    "there", "is", "which", "with", "good", "nice", "best", "got", "purchase", "it", "them", "your", "my",
    "mall", "sell", "sells", "yuan", "rmb", "price", "priced", "please", "options", "in", "here", "new",
    "one", "ones", "where", "see", "let", "let's",
];

/// Chinese numerals and classifiers such as `一双`, `两件`: struck out of keywords.
pub(crate) const CLASSIFIERS: &str = "双件个款台部副杯条顶只套瓶支盒份";

/// The brand mentioned in the text: its canonical name and where it is written.
pub(crate) fn find_brand(s: &Scratch) -> Option<(&'static str, std::ops::Range<usize>)> {
    BRANDS.iter().find_map(|(name, aliases)| aliases.iter().find_map(|a| s.find(a)).map(|r| (*name, r)))
}

/// Whether the text names a product category.
pub(crate) fn has_category(s: &Scratch) -> bool {
    s.contains_any(CATEGORIES)
}

/// Whether a place name is an area of the mall.
pub(crate) fn is_area(place: &str) -> bool {
    let place = place.to_lowercase();
    AREAS.iter().any(|a| place.contains(a)) || AREA_ENDINGS.iter().any(|e| place.ends_with(e))
}

/// The kind of store a place name asks for (`咖啡店` → `咖啡`, `coffee shop` →
/// `coffee`), when it is a store type rather than a named store.
pub(crate) fn store_type_keyword(place: &str) -> Option<String> {
    let scratch = Scratch::new(place);
    if find_brand(&scratch).is_some() {
        return None;
    }
    let lower = place.to_lowercase();
    let ending = STORE_TYPES.iter().find(|t| lower.ends_with(*t))?;
    let mut rest = Scratch::new(place);
    rest.remove_all(&[
        ending, "一家", "家", "有", "吗", "a", "an", "the", "some", "any", "nearby", "附近", "的",
    ]);
    let keyword = rest.residual();
    if keyword.is_empty() {
        let bare = ending.trim_end_matches('s');
        Some(if bare == "店" { "商店".to_owned() } else { bare.to_owned() })
    } else {
        Some(keyword)
    }
}

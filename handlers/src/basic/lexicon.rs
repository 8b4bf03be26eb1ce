//! The names basic mode knows: kinds of products and stores in both
//! languages (all lowercase), and the [`Lexicon`] of the mall it serves —
//! brands, stores, areas and categories, learned from the mall rather than
//! listed here.

use std::collections::{BTreeMap, BTreeSet};

use std::sync::Arc;

use handlers::general::{name_key, nearest_names};
use handlers::texts::zh_hant::to_simplified;
use services::{
    Area, EventQuery, InfoIndex, InfoSection, MallApi, MallEvent, PageRequest, ProductBrief, ProductQuery,
    ServiceError, Store, StoreQuery,
};

use super::text::Scratch;

/// Words for kinds of products in either language (kept in the search
/// keyword as written); the mall's own categories are learned on top.
#[rustfmt::skip]
pub const PRODUCT_WORDS: &[&str] = &[
    "跑鞋", "跑步鞋", "运动鞋", "球鞋", "篮球鞋", "板鞋", "鞋", "t恤", "短袖", "外套", "夹克", "羽绒服",
    "卫衣", "衬衫", "裤", "裙", "手机", "耳机", "电脑", "笔记本", "平板", "手表", "手环", "咖啡", "奶茶",
    "茶", "玩具", "积木", "背包", "包", "帽", "袜", "口红", "香水", "护肤", "化妆品", "running shoes",
    "shoes", "shoe", "sneakers", "trainers", "t-shirt", "t-shirts", "tee", "shirt", "jacket", "coat",
    "hoodie", "jeans", "pants", "trousers", "dress", "skirt", "phone", "phones", "smartphone", "headphones",
    "earbuds", "earphones", "laptop", "tablet", "watch", "coffee", "latte", "tea", "toy", "toys", "bag",
    "backpack", "hat", "cap", "socks", "lipstick", "perfume", "iphone", "ipad", "macbook",
    "airpods",
];

/// Endings that make a place an area rather than a store.
pub const AREA_ENDINGS: &[&str] = &["区", "广场", "美食街", "zone", "area", "court", "plaza"];

/// Words that make a place a kind of store rather than a named one.
#[rustfmt::skip]
pub const STORE_TYPES: &[&str] = &[
    "餐厅", "饭店", "餐馆", "馆", "厅", "店", "shops", "shop", "stores", "store", "restaurants", "restaurant",
    "cafe", "café",
];

/// Words that ask for somewhere to eat, in either language (read in
/// Simplified characters); what is left of the message names the dish or
/// cuisine, which the mall's own categories, tags and menus find.
#[rustfmt::skip]
pub const EAT: &[&str] = &[
    "吃饭的地方", "吃东西", "吃饭", "好吃的", "好吃", "吃的", "能吃", "可以吃", "想吃", "去吃", "吃点", "吃",
    "餐厅", "饭店", "餐馆", "饭馆", "美食", "饿了", "饿", "午饭", "晚饭", "午餐", "晚餐", "早餐", "早饭", "宵夜",
    "用餐", "就餐", "somewhere to eat", "place to eat", "places to eat", "where to eat", "something to eat",
    "eat", "eating", "food", "restaurants", "restaurant", "dining", "dine", "hungry", "lunch", "dinner",
    "breakfast", "meal", "meals",
];

/// The mall's category for places to eat, as its search knows it ("food"
/// is the category every other kind of restaurant sits under).
pub const FOOD_CATEGORY: &str = "food";

/// The mall's category for places to drink (cafés, tea shops): searched
/// before [`FOOD_CATEGORY`] for a dish, so that coffee is a café's before a
/// burger bar's that also sells it.
pub const DRINK_CATEGORY: &str = "drinks";

/// Dishes, drinks and cuisines people ask for without a word of eating
/// ("炸鸡哪里有", "bubble tea?", "I need coffee", "any good dumpling place
/// here"): with a place word, or alone, they ask where to get them (read in
/// Simplified characters, lowercase).
#[rustfmt::skip]
pub const DISHES: &[&str] = &[
    "咖啡", "拿铁", "美式", "奶茶", "珍珠奶茶", "果茶", "茶饮", "饮料", "果汁", "甜品", "甜点", "蛋糕", "冰淇淋",
    "面条", "拉面", "米线", "米粉", "饺子", "包子", "小笼包", "火锅", "烧烤", "烤肉", "炸鸡", "汉堡", "披萨",
    "寿司", "日料", "韩餐", "西餐", "中餐", "川菜", "粤菜", "湘菜", "快餐", "小吃", "酸菜鱼", "麻辣烫", "早点",
    "coffee", "latte", "espresso", "cappuccino", "tea", "bubble tea", "milk tea", "boba", "juice", "dessert",
    "desserts", "cake", "ice cream", "noodles", "noodle", "ramen", "dumplings", "dumpling", "xiaolongbao",
    "hotpot", "hot pot", "bbq", "barbecue", "fried chicken", "burger", "burgers", "pizza", "sushi",
    "chinese food", "sichuan", "fast food", "snack", "snacks",
];

/// The dishes of [`DISHES`] that are drinks: looked for where people drink
/// first ([`DRINK_CATEGORY`]), the others where people eat first.
#[rustfmt::skip]
pub const DRINKS: &[&str] = &[
    "咖啡", "拿铁", "美式", "奶茶", "果茶", "茶饮", "饮料", "果汁", "coffee", "latte", "espresso", "cappuccino",
    "tea", "boba", "juice",
];

/// Words that ask where to get something ("哪里有", "where can I get"), or
/// that want it now ("想喝", "I need"): with a dish, somewhere to eat.
#[rustfmt::skip]
pub const WHERE_TO_GET: &[&str] = &[
    "哪里有", "哪有", "哪里", "哪儿", "在哪", "哪家", "想喝", "喝点", "喝杯", "来杯", "来一杯", "想要", "需要",
    "where", "place", "places", "spot", "somewhere", "need", "craving", "fancy", "grab", "want",
];

/// Words that ask for a gift, in either language (read in Simplified characters).
#[rustfmt::skip]
pub const GIFT: &[&str] = &[
    "礼物", "礼品", "送礼", "生日礼", "伴手礼", "present", "presents", "gift", "gifts", "birthday",
];

/// Who a gift is for: a key (named to the shopper by the text tables) and the
/// words for them; a number of years ("5岁", "5-year-old") is a child too.
#[rustfmt::skip]
pub const RECIPIENTS: &[(&str, &[&str])] = &[
    ("mum", &["妈妈", "老妈", "母亲", "婆婆", "岳母", "丈母娘", "我妈", "妈", "mum", "mom", "mother", "mommy", "mummy"]),
    ("dad", &["爸爸", "老爸", "父亲", "公公", "岳父", "我爸", "爸", "dad", "father", "daddy"]),
    ("partner_f", &["女朋友", "女友", "老婆", "妻子", "太太", "媳妇", "girlfriend", "wife"]),
    ("partner_m", &["男朋友", "男友", "老公", "丈夫", "先生", "boyfriend", "husband"]),
    ("child", &[
        "孩子", "小孩", "儿子", "女儿", "宝宝", "小朋友", "侄子", "侄女", "外甥", "儿童", "child", "children", "kid",
        "kids", "son", "daughter", "nephew", "niece", "toddler", "baby",
    ]),
    ("elder", &["爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷", "老人", "长辈", "grandma", "grandpa", "grandmother", "grandfather", "grandparents"]),
    ("colleague", &["同事", "领导", "老板", "客户", "老师", "colleague", "coworker", "co-worker", "boss", "teacher", "client"]),
    ("friend", &["朋友", "闺蜜", "同学", "兄弟", "friend", "friends", "classmate"]),
];

/// Kinds of gifts for each recipient, most fitting first: keys of
/// [`GIFT_IDEAS`].
#[rustfmt::skip]
pub const GIFTS_FOR: &[(&str, &[&str])] = &[
    ("mum", &["skincare", "fragrance", "home_fragrance", "drinkware"]),
    ("dad", &["wearables", "headphones", "drinkware", "sneakers"]),
    ("partner_f", &["fragrance", "makeup", "skincare", "blind_boxes"]),
    ("partner_m", &["headphones", "wearables", "sneakers", "fragrance"]),
    ("child", &["building_blocks", "toys", "dolls", "kids_clothing"]),
    ("elder", &["drinkware", "home_textiles", "wearables", "skincare"]),
    ("colleague", &["drinkware", "home_fragrance", "blind_boxes", "snacks"]),
    ("friend", &["blind_boxes", "fragrance", "drinkware", "home_fragrance"]),
];

/// A kind of gift and the words the mall's search is asked with, in Chinese
/// and in English (its categories' own words find it: "护肤" is skincare in
/// any mall that says so).
#[rustfmt::skip]
pub const GIFT_IDEAS: &[(&str, &str, &str)] = &[
    ("skincare", "护肤", "skincare"), ("fragrance", "香水", "perfume"), ("makeup", "彩妆", "makeup"),
    ("home_fragrance", "香薰", "diffuser"), ("drinkware", "杯子", "mug"), ("headphones", "耳机", "headphones"),
    ("wearables", "智能手表", "smartwatch"), ("sneakers", "运动鞋", "sneakers"),
    ("building_blocks", "积木", "building blocks"), ("toys", "玩具", "toys"), ("dolls", "娃娃", "plush"),
    ("kids_clothing", "童装", "kids clothing"), ("blind_boxes", "盲盒", "blind box"), ("snacks", "零食", "snacks"),
    ("home_textiles", "家纺", "bedding"),
];

/// What basic mode knows of the mall it serves, learned from the mall
/// itself ([`Lexicon::learn`]): its brands and the ways shoppers write them,
/// its stores, areas and product categories. Everything else it knows is
/// the words of the two languages, in the lists above and in the tools'
/// hooks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lexicon {
    /// Brands: the mall's spelling and the lowercase ways to write it.
    brands: Vec<(String, Vec<String>)>,
    /// Store names in either language, lowercase.
    stores: Vec<String>,
    /// Area names in either language, lowercase.
    areas: Vec<String>,
    /// The mall's product and store categories, lowercase.
    categories: Vec<String>,
    /// Example requests made of the mall's own names (greeting buttons, banner).
    pub examples: handlers::mall_examples::MallExamples,
    /// The mall's own information: its sections' titles and an index of them.
    info: InfoTopics,
    /// The titles of the mall's events in either language (Simplified, lowercase).
    events: Vec<String>,
}

/// The sections of the mall's own information, as basic mode recognises a
/// question about them: their titles in either language (Simplified,
/// lowercase) and the index that finds the section answering a question.
#[derive(Debug, Clone, Default)]
pub struct InfoTopics {
    titles: Vec<String>,
    index: Option<Arc<InfoIndex>>,
}

impl PartialEq for InfoTopics {
    fn eq(&self, other: &Self) -> bool {
        self.titles == other.titles
    }
}

impl InfoTopics {
    /// The topics of these sections.
    pub fn new(sections: &[InfoSection]) -> Self {
        if sections.is_empty() {
            return InfoTopics::default();
        }
        let texts: Vec<(String, String)> = sections
            .iter()
            .map(|s| {
                (
                    to_simplified(&format!("{}\n{}", s.title, s.title_en)),
                    to_simplified(&format!("{}\n{}", s.body, s.body_en)),
                )
            })
            .collect();
        let index = InfoIndex::new(texts.iter().map(|(t, b)| (t.as_str(), b.as_str())));
        let titles = sections
            .iter()
            .flat_map(|s| [to_simplified(&s.title).to_lowercase(), s.title_en.to_lowercase()])
            .map(|t| t.trim().to_owned())
            .filter(|t| usable_alias(t))
            .collect();
        InfoTopics { titles, index: Some(Arc::new(index)) }
    }
}

/// The titles of events, each once, as [`Lexicon::names_event`] reads them.
fn event_titles(events: &[MallEvent]) -> Vec<String> {
    let titles: BTreeSet<String> = events
        .iter()
        .flat_map(|e| [to_simplified(&e.title).to_lowercase(), e.title_en.to_lowercase()])
        .map(|t| t.trim().to_owned())
        .filter(|t| usable_alias(t))
        .collect();
    titles.into_iter().collect()
}

/// Products read per page while learning.
const PAGE: u32 = PageRequest::MAX_LIMIT;
/// At most this many products are read while learning (brands repeat).
const MAX_PRODUCTS: u32 = 5_000;

impl Lexicon {
    /// Reads the mall's stores, areas and products and learns their names.
    pub async fn learn(mall: &dyn MallApi) -> Result<Lexicon, ServiceError> {
        let stores =
            all_pages(
                |page| async move { mall.search_stores(&StoreQuery { page, ..Default::default() }).await },
            )
            .await?;
        let areas = mall.list_areas().await?.items;
        let products = all_pages(|page| async move {
            mall.search_products(&ProductQuery { page, ..Default::default() }).await
        })
        .await?;
        // A mall without information sections (or that cannot give them now) still has names.
        let sections = mall.mall_info().await.map(|page| page.items).unwrap_or_default();
        // Nor without events.
        let events =
            mall.mall_events(&EventQuery::default()).await.map(|page| page.items).unwrap_or_default();
        let mut lexicon = Lexicon {
            info: InfoTopics::new(&sections),
            events: event_titles(&events),
            ..Lexicon::from_catalog(&stores, &areas, &products)
        };
        lexicon.examples = handlers::mall_examples::MallExamples::learn(mall, &stores, &products).await;
        Ok(lexicon)
    }

    /// The names of a catalog: a brand is written as the mall writes it, in
    /// lowercase, and by the names of the stores that carry its name.
    pub fn from_catalog(stores: &[Store], areas: &[Area], products: &[ProductBrief]) -> Lexicon {
        let mut brands: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
        let store_by_id: BTreeMap<&str, &Store> = stores.iter().map(|s| (s.id.as_str(), s)).collect();
        for product in products {
            let brand = product.brand.trim();
            let key = name_key(brand);
            if key.is_empty() {
                continue;
            }
            let entry = brands.entry(key.clone()).or_insert_with(|| (brand.to_owned(), BTreeSet::new()));
            entry.1.insert(brand.to_lowercase());
            if let Some(store) = store_by_id.get(product.store_id.as_str())
                && [&store.name_en, &store.name].iter().any(|n| name_key(n) == key)
            {
                entry.1.extend([store.name.to_lowercase(), store.name_en.to_lowercase()]);
            }
        }
        let brands = brands
            .into_values()
            .map(|(name, aliases)| {
                let mut aliases: Vec<String> = aliases.into_iter().filter(|a| usable_alias(a)).collect();
                aliases.sort_by_key(|a| std::cmp::Reverse(a.len()));
                (name, aliases)
            })
            .filter(|(_, aliases)| !aliases.is_empty())
            .collect();
        let names = |pairs: Vec<&String>| -> Vec<String> {
            let set: BTreeSet<String> =
                pairs.into_iter().map(|n| n.trim().to_lowercase()).filter(|n| usable_alias(n)).collect();
            set.into_iter().collect()
        };
        Lexicon {
            brands,
            stores: names(stores.iter().flat_map(|s| [&s.name, &s.name_en]).collect()),
            areas: names(areas.iter().flat_map(|a| [&a.name, &a.name_en]).collect()),
            categories: names(
                products.iter().map(|p| &p.category).chain(stores.iter().map(|s| &s.category)).collect(),
            )
            .into_iter()
            .map(|c| c.replace('_', " "))
            .collect(),
            examples: Default::default(),
            info: InfoTopics::default(),
            events: Vec::new(),
        }
    }

    /// The same names, knowing the mall's information `sections` too.
    pub fn with_info(self, sections: &[InfoSection]) -> Lexicon {
        Lexicon { info: InfoTopics::new(sections), ..self }
    }

    /// Whether the text names one of the mall's events by its title or the
    /// end of it ("灯光秀" of 中庭灯光秀, "the light show" of "Atrium light
    /// show"): at least two Chinese characters of a title of four or more
    /// (three of a shorter one), or two English words.
    pub fn names_event(&self, s: &Scratch) -> bool {
        // An end of a title longer than the message cannot be in it: a mall's long title costs nothing.
        let (message_chars, message_words) =
            (s.lower().chars().count(), s.lower().split_whitespace().count());
        self.events.iter().any(|title| {
            if super::text::has_cjk(title) {
                let chars: Vec<char> = title.chars().filter(|c| !c.is_whitespace()).collect();
                // Two characters of a longer title are enough ("夜跑" of 周六滨江夜跑).
                let shortest = if chars.len() >= 4 { 2 } else { 3 };
                let first = chars.len().saturating_sub(message_chars);
                (first..=chars.len().saturating_sub(shortest))
                    .any(|start| s.find(&chars[start..].iter().collect::<String>()).is_some())
            } else {
                let words: Vec<&str> = title.split_whitespace().collect();
                let first = words.len().saturating_sub(message_words);
                (first..words.len().saturating_sub(1))
                    .any(|start| s.find(&words[start..].join(" ")).is_some())
            }
        })
    }

    /// Whether the text names a section of the mall's information by its title ("失物招领", "Gift wrapping").
    pub fn names_info_section(&self, s: &Scratch) -> bool {
        self.info.titles.iter().any(|t| s.find(t).is_some())
    }

    /// Whether what is left of the text around a section's title begins a store's name
    /// ("海底捞营业时间": 海底捞, of 海底捞火锅): then the title is the store's, not the mall's.
    pub fn names_store_around_section(&self, s: &Scratch) -> bool {
        let mut rest = s.clone();
        let titles: Vec<&str> = self.info.titles.iter().map(String::as_str).collect();
        rest.remove_all(&titles);
        self.begins_store_name(&rest.residual())
    }

    /// Whether a section of the mall's information answers the text (read in Simplified characters).
    pub fn info_answers(&self, text: &str) -> bool {
        self.info.index.as_ref().is_some_and(|index| !index.search(text, 1).is_empty())
    }

    /// The store a name is a typo of ("优衣裤", "starbuks", "uniqo"): the
    /// one store within [`crate::general::typo_allowance`], closer than
    /// any other; `None` when no store is that near or two are as near.
    pub fn near_store(&self, name: &str) -> Option<&str> {
        let near = nearest_names(name, self.stores.iter().map(String::as_str));
        match near.as_slice() {
            [(_, only)] => Some(only),
            [(d, first), (d2, _), ..] if d < d2 => Some(first),
            _ => None,
        }
    }

    /// Whether a store's name begins with `name` (two characters or more: "海底捞" of 海底捞火锅).
    pub fn begins_store_name(&self, name: &str) -> bool {
        let name = to_simplified(name.trim()).to_lowercase();
        name.chars().count() >= 2 && self.stores.iter().any(|store| store.starts_with(&name))
    }

    /// How many brands, stores and areas it knows (for the log).
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.brands.len(), self.stores.len(), self.areas.len())
    }

    /// The brand mentioned in the text: its name as the mall writes it and
    /// where it is written (the longest way of writing one that is there).
    pub fn find_brand(&self, s: &Scratch) -> Option<(String, std::ops::Range<usize>)> {
        self.brands
            .iter()
            .filter_map(|(name, aliases)| aliases.iter().find_map(|a| s.find(a)).map(|r| (name, r)))
            .max_by_key(|(_, r)| (r.len(), std::cmp::Reverse(r.start)))
            .map(|(name, r)| (name.clone(), r))
    }

    /// Whether the text names a kind of product.
    pub fn has_category(&self, s: &Scratch) -> bool {
        s.contains_any(PRODUCT_WORDS) || self.categories.iter().any(|c| s.find(c).is_some())
    }

    /// Whether a word is a kind of product or store ("咖啡", "coffee"),
    /// not a name.
    pub fn is_kind(&self, word: &str) -> bool {
        let word = word.trim().to_lowercase();
        word == "商店" || self.has_category(&Scratch::new(&word)) || STORE_TYPES.iter().any(|t| word == *t)
    }

    /// The mall's store names in either language, lowercase.
    pub fn store_names(&self) -> impl Iterator<Item = &str> {
        self.stores.iter().map(String::as_str)
    }

    /// The mall's area names in either language, lowercase.
    pub fn area_names(&self) -> impl Iterator<Item = &str> {
        self.areas.iter().map(String::as_str)
    }

    /// Whether the Latin words of `text` are only the mall's names — its
    /// brands' and stores' ("labubu", "nike?", "heytea 42") —, which say no
    /// language of their own even in small letters.
    pub fn only_names(&self, text: &str) -> bool {
        let mut s = Scratch::new(text);
        let brands: Vec<&str> =
            self.brands.iter().flat_map(|(_, aliases)| aliases.iter().map(String::as_str)).collect();
        let stores: Vec<&str> = self.stores.iter().map(String::as_str).filter(|n| n.is_ascii()).collect();
        let named = s.remove_all(&brands) | s.remove_all(&stores);
        named && !s.residual().chars().any(|c| c.is_alphabetic())
    }

    /// Whether the text names one of the mall's stores.
    pub fn names_store(&self, s: &Scratch) -> bool {
        self.stores.iter().any(|n| s.find(n).is_some())
    }

    /// Whether a place name is an area of the mall.
    pub fn is_area(&self, place: &str) -> bool {
        // Letters and digits only: "Kids Toys" (a message's "&" is not kept) is "Kids & Toys".
        let key = |s: &str| s.to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect::<String>();
        let (lower, compact) = (place.to_lowercase(), key(place));
        self.areas.iter().any(|a| compact.contains(&key(a)))
            || AREA_ENDINGS.iter().any(|e| lower.ends_with(e))
    }

    /// The kind of store a place name asks for (`咖啡店` → `咖啡`, `coffee
    /// shop` → `coffee`), when it is a store type rather than a named store.
    pub fn store_type_keyword(&self, place: &str) -> Option<String> {
        let scratch = Scratch::new(place);
        if self.find_brand(&scratch).is_some() || self.names_store(&scratch) {
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
}

/// A way of writing a name that is safe to look for in a message: two
/// characters of Chinese, three letters of anything else.
fn usable_alias(alias: &str) -> bool {
    let count = alias.chars().count();
    if alias.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) { count >= 2 } else { count >= 3 }
}

/// Every page of a list, up to [`MAX_PRODUCTS`] items.
async fn all_pages<T, F, Fut>(mut fetch: F) -> Result<Vec<T>, ServiceError>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<services::Page<T>, ServiceError>>,
{
    let mut items = Vec::new();
    loop {
        let offset = items.len() as u32;
        let page = fetch(PageRequest { limit: Some(PAGE), offset: Some(offset) }).await?;
        let got = page.items.len() as u32;
        items.extend(page.items);
        let total = u32::try_from(page.total).unwrap_or(u32::MAX);
        if got < PAGE || items.len() as u32 >= total.min(MAX_PRODUCTS) {
            return Ok(items);
        }
    }
}

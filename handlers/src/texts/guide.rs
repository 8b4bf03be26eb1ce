//! What basic mode says when it guides a shopper by what they want rather
//! than by a name: places to eat (by dish or cuisine, or all of them by
//! floor), gift ideas for someone, and a store name it read past a typo —
//! in each language: [`GuideTexts`], one value per table ([`ZH_HANS`],
//! [`ZH_HANT`], [`EN`]).

/// Food, gifts and near names.
#[derive(Debug)]
pub struct GuideTexts {
    /// Before the places that serve a dish or cuisine: (what).
    pub food_for: fn(&str) -> String,
    /// Before every place to eat, by floor.
    pub food_all: &'static str,
    /// One floor's places to eat: (floor, the places).
    pub food_floor: fn(&str, &str) -> String,
    /// No place lists the dish asked for; the places to eat follow: (what).
    pub food_none: fn(&str) -> String,
    /// The mall lists no place to eat at all.
    pub food_nowhere: &'static str,
    /// Before the way to the first place listed.
    pub food_way: &'static str,
    /// Before gift ideas: (for whom, the budget words or empty, the kinds of gifts).
    pub gift_ideas: fn(&str, &str, &str) -> String,
    /// The budget as the ideas are headed: (the amount).
    pub gift_budget: fn(&str) -> String,
    /// Nothing was within the budget: the kinds stand alone, and a wider budget is suggested.
    pub gift_over_budget: &'static str,
    /// After the ideas.
    pub gift_more: &'static str,
    /// Who a gift is for, by the key of [`crate::basic::lexicon::RECIPIENTS`].
    pub recipient: fn(&str) -> &'static str,
    /// A kind of gift, by the key of [`crate::basic::lexicon::GIFT_IDEAS`].
    pub gift_kind: fn(&str) -> &'static str,
    /// A store read past a typo: (what the shopper wrote, the store).
    pub read_as: fn(&str, &str) -> String,
}

/// Simplified Chinese.
pub const ZH_HANS: GuideTexts = GuideTexts {
    food_for: |what| format!("有{what}的地方："),
    food_all: "商场里吃饭的地方（按楼层）：",
    food_floor: |floor, places| format!("{floor}：{places}"),
    food_none: |what| format!("商场里暂时没有专门做{what}的店，这些地方可以吃饭："),
    food_nowhere: "商场里暂时没有登记的餐厅，可以到服务台问问。",
    food_way: "去第一家：",
    gift_ideas: |whom, budget, kinds| format!("送{whom}的礼物{budget}，可以看看{kinds}。几个点子："),
    gift_budget: |amount| format!("（{amount} 以内）"),
    gift_over_budget: "这个预算内暂时挑不出来，放宽一点预算再看看？这几类都可以逛逛：",
    gift_more: "想看哪一件，把名字告诉我；也可以说“换个预算”。",
    recipient: |key| match key {
        "mum" => "妈妈",
        "dad" => "爸爸",
        "partner_f" => "女朋友",
        "partner_m" => "男朋友",
        "child" => "孩子",
        "elder" => "长辈",
        "colleague" => "同事",
        _ => "朋友",
    },
    gift_kind: |key| match key {
        "skincare" => "护肤品",
        "fragrance" => "香水",
        "makeup" => "彩妆",
        "home_fragrance" => "香薰",
        "drinkware" => "保温杯",
        "headphones" => "耳机",
        "wearables" => "智能手表",
        "sneakers" => "运动鞋",
        "building_blocks" => "积木",
        "toys" => "玩具",
        "dolls" => "毛绒玩具",
        "kids_clothing" => "童装",
        "blind_boxes" => "盲盒",
        "snacks" => "零食礼盒",
        "home_textiles" => "家纺",
        _ => "小礼物",
    },
    read_as: |wrote, store| format!("（“{wrote}”按{store}理解）"),
};

/// Traditional Chinese.
pub const ZH_HANT: GuideTexts = GuideTexts {
    food_for: |what| format!("有{what}的地方："),
    food_all: "商場裡吃飯的地方（按樓層）：",
    food_floor: |floor, places| format!("{floor}：{places}"),
    food_none: |what| format!("商場裡暫時沒有專門做{what}的店，這些地方可以吃飯："),
    food_nowhere: "商場裡暫時沒有登記的餐廳，可以到服務台問問。",
    food_way: "去第一家：",
    gift_ideas: |whom, budget, kinds| format!("送{whom}的禮物{budget}，可以看看{kinds}。幾個點子："),
    gift_budget: |amount| format!("（{amount} 以內）"),
    gift_over_budget: "這個預算內暫時挑不出來，放寬一點預算再看看？這幾類都可以逛逛：",
    gift_more: "想看哪一件，把名字告訴我；也可以說「換個預算」。",
    recipient: |key| match key {
        "mum" => "媽媽",
        "dad" => "爸爸",
        "partner_f" => "女朋友",
        "partner_m" => "男朋友",
        "child" => "孩子",
        "elder" => "長輩",
        "colleague" => "同事",
        _ => "朋友",
    },
    gift_kind: |key| match key {
        "skincare" => "護膚品",
        "fragrance" => "香水",
        "makeup" => "彩妝",
        "home_fragrance" => "香薰",
        "drinkware" => "保溫杯",
        "headphones" => "耳機",
        "wearables" => "智慧手錶",
        "sneakers" => "運動鞋",
        "building_blocks" => "積木",
        "toys" => "玩具",
        "dolls" => "絨毛玩具",
        "kids_clothing" => "童裝",
        "blind_boxes" => "盲盒",
        "snacks" => "零食禮盒",
        "home_textiles" => "家紡",
        _ => "小禮物",
    },
    read_as: |wrote, store| format!("（「{wrote}」按{store}理解）"),
};

/// English.
pub const EN: GuideTexts = GuideTexts {
    food_for: |what| format!("Places for {what}:"),
    food_all: "Places to eat in the mall, by floor:",
    food_floor: |floor, places| format!("{floor}: {places}"),
    food_none: |what| format!("No place here lists {what}; these are the places to eat:"),
    food_nowhere: "The mall lists no restaurants yet; the service desk can help.",
    food_way: "The way to the first one:",
    gift_ideas: |whom, budget, kinds| {
        format!("Gift ideas for {whom}{budget}: have a look at {kinds}. A few ideas:")
    },
    gift_budget: |amount| format!(" (up to {amount})"),
    gift_over_budget: "Nothing fits that budget yet; could you stretch it a little? These are worth a look:",
    gift_more: "Tell me the name of the one you like, or give me another budget.",
    recipient: |key| match key {
        "mum" => "your mum",
        "dad" => "your dad",
        "partner_f" => "your girlfriend",
        "partner_m" => "your boyfriend",
        "child" => "a child",
        "elder" => "a grandparent",
        "colleague" => "a colleague",
        _ => "a friend",
    },
    gift_kind: |key| match key {
        "skincare" => "skincare",
        "fragrance" => "perfume",
        "makeup" => "makeup",
        "home_fragrance" => "home fragrance",
        "drinkware" => "mugs and tumblers",
        "headphones" => "headphones",
        "wearables" => "smartwatches",
        "sneakers" => "sneakers",
        "building_blocks" => "building blocks",
        "toys" => "toys",
        "dolls" => "plush toys",
        "kids_clothing" => "kids' clothing",
        "blind_boxes" => "blind boxes",
        "snacks" => "snack gift boxes",
        "home_textiles" => "home textiles",
        _ => "small gifts",
    },
    read_as: |wrote, store| format!("(reading \"{wrote}\" as {store})"),
};

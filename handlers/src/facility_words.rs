//! The words shoppers use for the mall's facilities, in Chinese (read in
//! Simplified characters) and English, and the kind of facility a text names:
//! what the facility tool and the routes from a facility both read.

use maps::FacilityKind;
use maps::facility;

use crate::basic::text::Scratch;
use crate::texts::zh_hant::to_simplified;

/// The kind named by an IMDF key (`atm`, `restroom.female`) or by the words
/// shoppers use ("洗手间", "廁所", "nursing room"); `None` when neither.
pub fn kind_named(text: &str) -> Option<&'static FacilityKind> {
    facility::kind(text).or_else(|| kind_in(&Scratch::new(&to_simplified(text))))
}

/// The kind a message asks for by the words shoppers use, the most
/// particular first ("无障碍洗手间" is an accessible restroom, not any).
pub fn kind_in(s: &Scratch) -> Option<&'static FacilityKind> {
    WORDS.iter().find(|(_, words)| s.contains_any(words)).and_then(|(key, _)| facility::kind(key))
}

/// The words shoppers use for each kind (Chinese in Simplified characters:
/// Traditional messages are read converted), the most particular first.
#[rustfmt::skip]
pub(crate) const WORDS: &[(&str, &[&str])] = &[
    ("restroom.wheelchair", &[
        "无障碍洗手间", "无障碍厕所", "无障碍卫生间", "残疾人厕所", "残疾人洗手间", "残障厕所", "残障洗手间",
        "轮椅厕所", "无障碍化妆室", "accessible restroom", "accessible toilet", "accessible bathroom",
        "wheelchair restroom", "wheelchair toilet", "wheelchair accessible toilet", "disabled toilet",
        "disabled restroom",
    ]),
    ("restroom.family", &[
        "家庭洗手间", "家庭厕所", "家庭卫生间", "亲子洗手间", "亲子厕所", "亲子卫生间", "第三卫生间",
        "family restroom", "family toilet", "family bathroom",
    ]),
    ("babychanging", &[
        "换尿布", "尿布台", "换尿片", "尿片台", "尿不湿", "尿布", "尿片", "baby changing", "changing table",
        "change a nappy", "change a diaper", "diaper", "diapers", "nappy", "nappies",
    ]),
    ("mothersroom", &[
        "母婴室", "哺乳室", "育婴室", "母婴间", "喂奶", "哺乳", "nursing room", "mothers room", "mother's room",
        "mothers' room", "baby room", "breastfeeding", "breast feeding", "feeding room", "parents room",
        "parent room",
    ]),
    ("restroom", &[
        "洗手间", "卫生间", "厕所", "化妆室", "盥洗室", "茅房", "wc", "toilet", "toilets", "restroom", "restrooms",
        "bathroom", "bathrooms", "washroom", "washrooms", "lavatory", "loo", "ladies room", "mens room",
    ]),
    ("information", &[
        "服务台", "服务中心", "咨询台", "问讯处", "询问处", "客服中心", "客服台", "顾客服务", "游客中心",
        "service desk", "service counter", "information desk", "info desk", "information counter",
        "customer service", "guest services", "help desk", "concierge",
    ]),
    ("atm", &[
        "atm", "取款机", "提款机", "自动柜员机", "柜员机", "取钱", "取现", "提款", "cash machine", "cashpoint",
        "withdraw cash", "get cash",
    ]),
    ("firstaid", &[
        "医务室", "急救", "医疗站", "医护室", "aed", "first aid", "first-aid", "medical room", "defibrillator",
    ]),
    ("powerchargingstation", &[
        "充电站", "手机充电", "充电的地方", "哪里充电", "哪里可以充电", "可以充电", "能充电", "充个电", "充下电",
        "手机没电", "charging station", "phone charging", "charge my phone", "charge a phone", "charging point",
        "charge phone", "charge it", "charge my", "phone is dying", "phone died", "battery is low", "low battery",
        "battery is dead", "battery died",
    ]),
    ("coinlocker", &[
        "储物柜", "寄存柜", "寄物柜", "置物柜", "行李寄存", "寄存", "存包", "locker", "lockers", "left luggage",
        "luggage storage", "bag storage", "store my bag",
    ]),
    ("drinkingfountain", &[
        "饮水机", "饮水处", "直饮水", "喝水", "drinking water", "water fountain", "drinking fountain",
        "water dispenser",
    ]),
    ("smokingarea", &[
        "吸烟区", "吸烟室", "抽烟", "吸烟", "吸菸", "smoking area", "smoking room", "smoke", "smoking",
    ]),
    ("escalator", &["手扶电梯", "扶手电梯", "自动扶手电梯", "手扶梯", "自动扶梯", "扶梯", "escalator", "escalators"]),
    ("elevator", &["电梯", "直梯", "升降梯", "lift", "lifts", "elevator", "elevators"]),
    ("stairs", &["楼梯", "stairs", "staircase", "stairway"]),
    ("parking", &[
        "停车场入口", "停车场的入口", "车库入口", "停车场", "停车库", "地下车库", "车库", "停车", "car park entrance", "parking entrance",
        "car park", "parking", "parking lot", "parking garage",
    ]),
];

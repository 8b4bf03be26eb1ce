//! Answers about products, stores, areas and directions.

use handlers::Lang;
use serde_json::Value;

use super::{clip, date, floor, join, list, paren, pick, place, rating, store_name, text, yuan};

const LISTED: usize = 5;

/// A numbered list of products, or "nothing matched".
pub(crate) fn product_list(args: &Value, data: &Value, cheap: bool, lang: Lang) -> String {
    let mut products: Vec<&Value> = list(data, "products").iter().collect();
    if products.is_empty() {
        return no_products(args, lang);
    }
    if cheap {
        let price = |p: &Value| p.get("price_yuan").and_then(Value::as_f64).unwrap_or(f64::MAX);
        products.sort_by(|a, b| price(a).total_cmp(&price(b)));
    }
    let total = data.get("total").and_then(Value::as_u64).unwrap_or(products.len() as u64);
    let mut lines = vec![match lang {
        Lang::Zh => format!("为您找到 {total} 件商品{}：", if cheap { "（价格从低到高）" } else { "" }),
        Lang::En => format!("I found {total} products{}:", if cheap { " (cheapest first)" } else { "" }),
    }];
    for (i, p) in products.iter().take(LISTED).enumerate() {
        let mut parts = vec![format!("¥{}", yuan(p.get("price_yuan")))];
        if let Some(r) = rating(p) {
            parts.push(lang.pick("评分 ", "rated ").to_owned() + &r);
        }
        let store = match (lang, text(p, "store_name_en")) {
            (Lang::En, en) if !en.is_empty() => en,
            _ => text(p, "store_name"),
        };
        let floor = floor(p.get("floor"), lang);
        parts.push(format!("{store}{}", paren(&floor, lang)));
        lines.push(format!("{}. {} — {}", i + 1, text(p, "name"), parts.join(lang.pick("，", ", "))));
    }
    lines.push(pick(lang, "回复“第一个”查看详情。", "Reply \"the first one\" to see details."));
    lines.join("\n")
}

fn no_products(args: &Value, lang: Lang) -> String {
    let keyword = text(args, "keyword");
    let (min, max) = (args.get("min_price"), args.get("max_price"));
    let range = match (min, max, lang) {
        (Some(a), Some(b), Lang::Zh) => format!(" ¥{}–{} ", yuan(Some(a)), yuan(Some(b))),
        (None, Some(b), Lang::Zh) => format!(" ¥{} 以内", yuan(Some(b))),
        (Some(a), None, Lang::Zh) => format!(" ¥{} 以上", yuan(Some(a))),
        (Some(a), Some(b), Lang::En) => format!(" between ¥{} and ¥{}", yuan(Some(a)), yuan(Some(b))),
        (None, Some(b), Lang::En) => format!(" under ¥{}", yuan(Some(b))),
        (Some(a), None, Lang::En) => format!(" over ¥{}", yuan(Some(a))),
        (None, None, _) => String::new(),
    };
    match lang {
        Lang::Zh => format!("没有找到{range}的“{keyword}”。可以放宽条件试试，比如提高价格上限或换个关键词。"),
        Lang::En => format!(
            "Nothing matched \"{keyword}\"{range}. Try loosening the filters — a higher price limit or another keyword."
        ),
    }
}

/// A product: name, price, rating, store and floor, then the sizes question.
pub(crate) fn product_detail(detail: &Value, lang: Lang, others: usize) -> String {
    let store = detail.get("store").cloned().unwrap_or(Value::Null);
    let mut parts = vec![format!("¥{}", yuan(detail.get("price_yuan")))];
    if let Some(r) = rating(detail) {
        parts.push(lang.pick("评分 ", "rated ").to_owned() + &r);
    }
    let at = format!("{}{}", store_name(&store, lang), paren(&place(&store, lang), lang));
    parts.push(lang.pick("", "at ").to_owned() + &at);
    let mut lines = vec![format!("{} — {}", text(detail, "name"), parts.join(lang.pick("，", ", ")))];
    let description = text(detail, "description");
    if !description.is_empty() {
        lines.push(clip(description, 80));
    }
    lines.push(ask_size(detail, lang));
    if others > 0 {
        lines.push(match lang {
            Lang::Zh => format!("另外还有 {others} 款，回复“第二个”可以看下一款。"),
            Lang::En => format!("There are {others} more; reply \"the second one\" to see the next."),
        });
    }
    lines.join("\n")
}

/// The sizes in stock and the question which one, or "add it?" for a single SKU.
pub(crate) fn ask_size(detail: &Value, lang: Lang) -> String {
    let sizes = sizes_in_stock(detail);
    let sold_out = detail.get("in_stock").and_then(Value::as_bool) == Some(false);
    let has_skus = !list(detail, "skus").is_empty();
    if sold_out || (has_skus && sizes.is_empty()) {
        return pick(lang, "很抱歉，这件商品目前缺货。", "Sorry, this item is out of stock right now.");
    }
    if sizes.len() <= 1 {
        return pick(
            lang,
            "要加入购物车吗？回复“加入购物车”即可。",
            "Shall I add it to your cart? Just say \"add to cart\".",
        );
    }
    let listed = join(&sizes, lang);
    let sized = sizes.iter().all(|s| looks_like_size(s));
    match (lang, sized) {
        (Lang::Zh, true) => format!("有 {listed} 码，您要哪个尺码？"),
        (Lang::Zh, false) => format!("可选：{listed}，您要哪一款？"),
        (Lang::En, true) => format!("Sizes in stock: {listed}. Which size would you like?"),
        (Lang::En, false) => format!("In stock: {listed}. Which one would you like?"),
    }
}

/// A size the product does not have in stock: the sizes it has.
pub(crate) fn size_unavailable(size: &str, detail: &Value, lang: Lang) -> String {
    let sizes = join(&sizes_in_stock(detail), lang);
    match (lang, sizes.is_empty()) {
        (Lang::Zh, false) => format!("抱歉，{size} 码没有货了。目前有货的尺码：{sizes}，您要哪个？"),
        (Lang::En, false) => {
            format!("Sorry, size {size} is not in stock. Sizes in stock: {sizes}. Which would you like?")
        }
        (_, true) => pick(lang, "很抱歉，这件商品目前缺货。", "Sorry, this item is out of stock right now."),
    }
}

/// Labels of the SKUs in stock (the product's `sizes`, else its SKUs with stock).
pub(crate) fn sizes_in_stock(detail: &Value) -> Vec<String> {
    let sizes: Vec<String> =
        list(detail, "sizes").iter().filter_map(Value::as_str).map(str::to_owned).collect();
    if !sizes.is_empty() {
        return sizes;
    }
    list(detail, "skus")
        .iter()
        .filter(|s| s.get("stock").and_then(Value::as_i64).is_none_or(|n| n > 0))
        .map(|s| text(s, "label").to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

fn looks_like_size(label: &str) -> bool {
    const LETTERS: [&str; 9] = ["XS", "S", "M", "L", "XL", "XXL", "XXXL", "2XL", "3XL"];
    let label = label.trim().trim_end_matches(['码', '号']);
    label.parse::<f64>().is_ok() || LETTERS.contains(&label.to_ascii_uppercase().as_str())
}

/// The shopper refined a search that does not exist yet.
pub(crate) fn ask_what_to_search(lang: Lang) -> String {
    pick(
        lang,
        "您想找什么商品？比如“Nike 跑鞋 500 以内”。",
        "What are you looking for? E.g. \"Nike running shoes under 500\".",
    )
}

/// An ordinal with no list to pick from.
pub(crate) fn nothing_listed(lang: Lang) -> String {
    pick(
        lang,
        "还没有可选的商品，先告诉我您想找什么吧。",
        "There is no list to pick from yet — tell me what you are looking for.",
    )
}

/// An ordinal beyond the list.
pub(crate) fn no_such_item(len: usize, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("上次只列出了 {len} 件商品，请选 1 到 {len} 之间的序号。"),
        Lang::En => format!("The last list had {len} products; pick a number from 1 to {len}."),
    }
}

/// Stores found by a store search.
pub(crate) fn store_list(data: &Value, lang: Lang) -> String {
    let stores = list(data, "stores");
    if stores.is_empty() {
        return pick(
            lang,
            "没有找到相关的店铺，换个关键词试试？",
            "I found no such store. Try another keyword?",
        );
    }
    let total = data.get("total").and_then(Value::as_u64).unwrap_or(stores.len() as u64);
    let mut lines = vec![match lang {
        Lang::Zh => format!("找到 {total} 家店："),
        Lang::En => format!("I found {total} stores:"),
    }];
    for (i, s) in stores.iter().take(LISTED).enumerate() {
        let hours = text(s, "open_hours");
        let hours = if hours.is_empty() {
            String::new()
        } else {
            lang.pick("，营业时间 ", ", open ").to_owned() + hours
        };
        lines.push(format!("{}. {} — {}{hours}", i + 1, store_name(s, lang), place(s, lang)));
    }
    lines.push(pick(
        lang,
        "想去哪家？告诉我店名，我带您过去。",
        "Tell me which one and I'll show you the way.",
    ));
    lines.join("\n")
}

/// Hours, promotions or reviews of a store.
pub(crate) fn store_info(data: &Value, lang: Lang) -> String {
    let store = data.get("store").cloned().unwrap_or(Value::Null);
    let name = store_name(&store, lang);
    match text(data, "info_type") {
        "promotions" => promotions(&name, list(data, "promotions"), lang),
        "reviews" => reviews(&name, data, lang),
        _ => match lang {
            Lang::Zh => format!(
                "{name}在{}，营业时间 {}，电话 {}。",
                place(&store, lang),
                text(&store, "open_hours"),
                text(&store, "phone")
            ),
            Lang::En => format!(
                "{name} is on {}, open {}, phone {}.",
                place(&store, lang),
                text(&store, "open_hours"),
                text(&store, "phone")
            ),
        },
    }
}

fn promotions(name: &str, promotions: &[Value], lang: Lang) -> String {
    if promotions.is_empty() {
        return match lang {
            Lang::Zh => format!("{name}目前没有优惠活动。"),
            Lang::En => format!("{name} has no promotions right now."),
        };
    }
    let mut lines = vec![match lang {
        Lang::Zh => format!("{name}当前的优惠："),
        Lang::En => format!("Current deals at {name}:"),
    }];
    for (i, p) in promotions.iter().enumerate() {
        let until = date(p, "valid_until");
        let until = match lang {
            Lang::Zh => format!("（有效期至 {until}）"),
            Lang::En => format!(" (until {until})"),
        };
        lines.push(format!("{}. {}：{}{until}", i + 1, text(p, "title"), text(p, "description")));
    }
    let text = lines.join("\n");
    if lang == Lang::En { text.replace('：', ": ") } else { text }
}

fn reviews(name: &str, data: &Value, lang: Lang) -> String {
    let reviews = list(data, "reviews");
    let average = rating(data).unwrap_or_else(|| "?".to_owned());
    if reviews.is_empty() {
        return match lang {
            Lang::Zh => format!("{name}还没有评价。"),
            Lang::En => format!("{name} has no reviews yet."),
        };
    }
    let mut lines = vec![match lang {
        Lang::Zh => format!("{name}平均评分 {average}，最近的评价："),
        Lang::En => format!("{name} is rated {average} on average. Recent reviews:"),
    }];
    for r in reviews.iter().take(3) {
        let stars = rating(r).unwrap_or_default();
        lines.push(format!("★{stars} “{}” — {}", clip(text(r, "text"), 60), text(r, "author")));
    }
    lines.join("\n")
}

/// Directions to a store.
pub(crate) fn route(data: &Value, lang: Lang) -> String {
    let store = data.get("store").cloned().unwrap_or(Value::Null);
    let from = match (text(data, "from"), lang) {
        ("" | "main_entrance", Lang::Zh) => "正门".to_owned(),
        ("" | "main_entrance", Lang::En) => "the main entrance".to_owned(),
        (other, _) => other.replace('_', " "),
    };
    let distance = yuan(data.get("distance_m"));
    let eta = yuan(data.get("eta_minutes"));
    let mut lines = vec![match lang {
        Lang::Zh => format!(
            "{}在{}。从{from}出发约 {distance} 米，步行约 {eta} 分钟：",
            store_name(&store, lang),
            place(&store, lang)
        ),
        Lang::En => format!(
            "{} is on {}. From {from} it is about {distance} m, {eta} min on foot:",
            store_name(&store, lang),
            place(&store, lang)
        ),
    }];
    for (i, step) in list(data, "steps").iter().enumerate() {
        let step = step.as_str().map(str::to_owned).unwrap_or_else(|| {
            ["text", "instruction", "description"]
                .iter()
                .map(|k| text(step, k))
                .find(|t| !t.is_empty())
                .unwrap_or("")
                .to_owned()
        });
        lines.push(format!("{}. {step}", i + 1));
    }
    lines.join("\n")
}

/// An area of the mall and its stores.
pub(crate) fn area(data: &Value, lang: Lang) -> String {
    let area = data.get("area").cloned().unwrap_or(Value::Null);
    let name = store_name(&area, lang);
    let where_ = floor(area.get("floor"), lang);
    let mut lines = vec![match lang {
        Lang::Zh => format!("{name}在{where_}。{}", text(&area, "description")),
        Lang::En => format!("{name} is on {where_}. {}", text(&area, "description")),
    }];
    let stores: Vec<String> = list(data, "stores")
        .iter()
        .map(|s| format!("{}{}", text(s, "name"), paren(text(s, "unit"), lang)))
        .collect();
    if !stores.is_empty() {
        lines.push(lang.pick("这里有：", "Stores here: ").to_owned() + &join(&stores, lang));
    }
    lines.join("\n").trim().to_owned()
}

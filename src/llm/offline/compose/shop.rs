//! Answers about products, stores, areas and directions.

use handlers::Lang;
use handlers::format::{floor, floor_and_unit, join, local_name, paren};
use handlers::info::{ProductDetail, PromotionLine, StoreInfoResult};
use handlers::navigation::{NavigateToAreaResult, NavigateToStoreResult};
use handlers::records::Yuan;
use handlers::search::{SearchProductsArgs, SearchProductsResult, SearchStoresResult};

use super::{clip, date, pick, rating};

const LISTED: usize = 5;

/// A price the planner wrote in yuan, for people: `¥300`.
fn money(yuan: f64) -> String {
    Yuan((yuan * 100.0).round() as i64).money()
}

/// A numbered list of products, or "nothing matched".
pub(crate) fn product_list(
    args: Option<&SearchProductsArgs>,
    result: &SearchProductsResult,
    cheap: bool,
    lang: Lang,
) -> String {
    let mut products: Vec<_> = result.products.iter().collect();
    if products.is_empty() {
        return no_products(args, lang);
    }
    if cheap {
        products.sort_by_key(|p| p.price_yuan);
    }
    let total = result.total.max(products.len() as u64);
    let mut lines = vec![match lang {
        Lang::Zh => format!("为您找到 {total} 件商品{}：", if cheap { "（价格从低到高）" } else { "" }),
        Lang::En => format!("I found {total} products{}:", if cheap { " (cheapest first)" } else { "" }),
    }];
    for (i, p) in products.iter().take(LISTED).enumerate() {
        let mut parts = vec![p.price_yuan.money()];
        if let Some(r) = p.rating {
            parts.push(lang.pick("评分 ", "rated ").to_owned() + &rating(r));
        }
        let floor = p.floor.map(|n| floor(lang, n)).unwrap_or_default();
        parts.push(format!("{}{}", p.local_store_name(lang), paren(lang, &floor)));
        lines.push(format!("{}. {} — {}", i + 1, p.name, parts.join(lang.pick("，", ", "))));
    }
    lines.push(pick(lang, "回复“第一个”查看详情。", "Reply \"the first one\" to see details."));
    lines.join("\n")
}

fn no_products(args: Option<&SearchProductsArgs>, lang: Lang) -> String {
    let keyword = args.map_or("", |a| a.keyword.as_str());
    let (min, max) = (args.and_then(|a| a.min_price), args.and_then(|a| a.max_price));
    let range = match (min.map(money), max.map(money), lang) {
        (Some(a), Some(b), Lang::Zh) => format!(" {a}–{} ", b.trim_start_matches('¥')),
        (None, Some(b), Lang::Zh) => format!(" {b} 以内"),
        (Some(a), None, Lang::Zh) => format!(" {a} 以上"),
        (Some(a), Some(b), Lang::En) => format!(" between {a} and {b}"),
        (None, Some(b), Lang::En) => format!(" under {b}"),
        (Some(a), None, Lang::En) => format!(" over {a}"),
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
pub(crate) fn product_detail(detail: &ProductDetail, lang: Lang, others: usize) -> String {
    let mut parts = vec![detail.price_yuan.money()];
    if let Some(r) = detail.rating {
        parts.push(lang.pick("评分 ", "rated ").to_owned() + &rating(r));
    }
    let at = format!("{}{}", detail.store.local_name(lang), paren(lang, &detail.store.place(lang)));
    parts.push(lang.pick("", "at ").to_owned() + &at);
    let mut lines = vec![format!("{} — {}", detail.name, parts.join(lang.pick("，", ", ")))];
    if !detail.description.is_empty() {
        lines.push(clip(&detail.description, 80));
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
pub(crate) fn ask_size(detail: &ProductDetail, lang: Lang) -> String {
    let sizes = sizes_in_stock(detail);
    if !detail.in_stock || (!detail.skus.is_empty() && sizes.is_empty()) {
        return pick(lang, "很抱歉，这件商品目前缺货。", "Sorry, this item is out of stock right now.");
    }
    if sizes.len() <= 1 {
        return pick(
            lang,
            "要加入购物车吗？回复“加入购物车”即可。",
            "Shall I add it to your cart? Just say \"add to cart\".",
        );
    }
    let listed = join(lang, &sizes);
    let sized = sizes.iter().all(|s| looks_like_size(s));
    match (lang, sized) {
        (Lang::Zh, true) => format!("有 {listed} 码，您要哪个尺码？"),
        (Lang::Zh, false) => format!("可选：{listed}，您要哪一款？"),
        (Lang::En, true) => format!("Sizes in stock: {listed}. Which size would you like?"),
        (Lang::En, false) => format!("In stock: {listed}. Which one would you like?"),
    }
}

/// A size the product does not have in stock: the sizes it has.
pub(crate) fn size_unavailable(size: &str, detail: &ProductDetail, lang: Lang) -> String {
    let sizes = join(lang, &sizes_in_stock(detail));
    match (lang, sizes.is_empty()) {
        (Lang::Zh, false) => format!("抱歉，{size} 码没有货了。目前有货的尺码：{sizes}，您要哪个？"),
        (Lang::En, false) => {
            format!("Sorry, size {size} is not in stock. Sizes in stock: {sizes}. Which would you like?")
        }
        (_, true) => pick(lang, "很抱歉，这件商品目前缺货。", "Sorry, this item is out of stock right now."),
    }
}

/// Labels of the SKUs in stock (the product's `sizes`, else its SKUs with stock).
pub(crate) fn sizes_in_stock(detail: &ProductDetail) -> Vec<String> {
    if !detail.sizes.is_empty() {
        return detail.sizes.clone();
    }
    detail.skus.iter().filter(|s| s.stock > 0 && !s.label.is_empty()).map(|s| s.label.clone()).collect()
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
pub(crate) fn store_list(result: &SearchStoresResult, lang: Lang) -> String {
    if result.stores.is_empty() {
        return pick(
            lang,
            "没有找到相关的店铺，换个关键词试试？",
            "I found no such store. Try another keyword?",
        );
    }
    let total = result.total.max(result.stores.len() as u64);
    let mut lines = vec![match lang {
        Lang::Zh => format!("找到 {total} 家店："),
        Lang::En => format!("I found {total} stores:"),
    }];
    for (i, s) in result.stores.iter().take(LISTED).enumerate() {
        let hours = match s.open_hours.as_str() {
            "" => String::new(),
            hours => lang.pick("，营业时间 ", ", open ").to_owned() + hours,
        };
        let name = local_name(lang, &s.name, Some(&s.name_en));
        lines.push(format!("{}. {name} — {}{hours}", i + 1, floor_and_unit(lang, Some(s.floor), &s.unit)));
    }
    lines.push(pick(
        lang,
        "想去哪家？告诉我店名，我带您过去。",
        "Tell me which one and I'll show you the way.",
    ));
    lines.join("\n")
}

/// Hours, promotions or reviews of a store.
pub(crate) fn store_info(result: &StoreInfoResult, lang: Lang) -> String {
    match result {
        StoreInfoResult::Promotions { store, promotions: list } => {
            promotions(store.local_name(lang), list, lang)
        }
        StoreInfoResult::Reviews { store, average_rating, reviews: list } => {
            let name = store.local_name(lang);
            if list.is_empty() {
                return match lang {
                    Lang::Zh => format!("{name}还没有评价。"),
                    Lang::En => format!("{name} has no reviews yet."),
                };
            }
            let average = average_rating.map(rating).unwrap_or_else(|| "?".to_owned());
            let mut lines = vec![match lang {
                Lang::Zh => format!("{name}平均评分 {average}，最近的评价："),
                Lang::En => format!("{name} is rated {average} on average. Recent reviews:"),
            }];
            for r in list.iter().take(3) {
                lines.push(format!("★{} “{}” — {}", rating(r.rating), clip(&r.text, 60), r.author));
            }
            lines.join("\n")
        }
        StoreInfoResult::Basic { store } => {
            let name = local_name(lang, &store.name, Some(&store.name_en));
            let place = floor_and_unit(lang, Some(store.floor), &store.unit);
            match lang {
                Lang::Zh => format!("{name}在{place}，营业时间 {}，电话 {}。", store.open_hours, store.phone),
                Lang::En => {
                    format!("{name} is on {place}, open {}, phone {}.", store.open_hours, store.phone)
                }
            }
        }
    }
}

fn promotions(name: &str, promotions: &[PromotionLine], lang: Lang) -> String {
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
        let until = date(&p.valid_until);
        lines.push(match lang {
            Lang::Zh => format!("{}. {}：{}（有效期至 {until}）", i + 1, p.title, p.description),
            Lang::En => format!("{}. {}: {} (until {until})", i + 1, p.title, p.description),
        });
    }
    lines.join("\n")
}

/// Directions to a store, or the closest names when no store has the name.
pub(crate) fn route(result: &NavigateToStoreResult, lang: Lang) -> String {
    let directions = match result {
        NavigateToStoreResult::Route(directions) => directions,
        NavigateToStoreResult::NotFound(missing) => {
            let names: Vec<String> = missing
                .closest
                .iter()
                .map(|s| s.local_name(lang).to_owned())
                .filter(|n| !n.is_empty())
                .collect();
            return match lang {
                Lang::Zh => format!(
                    "没有找到“{}”这家店。名字相近的有：{}。点下面的按钮带您过去。",
                    missing.not_found,
                    join(lang, &names)
                ),
                Lang::En => format!(
                    "I couldn't find a store called \"{}\". Stores with close names: {}. Tap one below for directions.",
                    missing.not_found,
                    join(lang, &names)
                ),
            };
        }
    };
    let from = match (directions.from.as_str(), lang) {
        ("" | "main_entrance", Lang::Zh) => "正门".to_owned(),
        ("" | "main_entrance", Lang::En) => "the main entrance".to_owned(),
        (other, _) => other.replace('_', " "),
    };
    let (distance, eta) = (directions.distance_m, directions.eta_minutes);
    let name = directions.store.local_name(lang);
    let place = directions.store.place(lang);
    let mut lines = vec![match (lang, directions.highlight && !place.is_empty()) {
        (Lang::Zh, true) => format!("{name}在{place}。从{from}出发约 {distance} 米，步行约 {eta} 分钟："),
        (Lang::Zh, false) => format!("去{name}：从{from}出发约 {distance} 米，步行约 {eta} 分钟："),
        (Lang::En, true) => {
            format!("{name} is on {place}. From {from} it is about {distance} m, {eta} min on foot:")
        }
        (Lang::En, false) => format!("To {name}: from {from} it is about {distance} m, {eta} min on foot:"),
    }];
    lines.extend(directions.steps.iter().enumerate().map(|(i, step)| format!("{}. {step}", i + 1)));
    lines.join("\n")
}

/// An area of the mall and its stores.
pub(crate) fn area(result: &NavigateToAreaResult, lang: Lang) -> String {
    let area = &result.area;
    let name = area.local_name(lang);
    let where_ = floor(lang, area.floor);
    let mut lines = vec![match lang {
        Lang::Zh => format!("{name}在{where_}。{}", area.description),
        Lang::En => format!("{name} is on {where_}. {}", area.description),
    }];
    let stores: Vec<String> = result
        .stores
        .iter()
        .flatten()
        .map(|s| format!("{}{}", local_name(lang, &s.name, Some(&s.name_en)), paren(lang, &s.unit)))
        .collect();
    if !stores.is_empty() {
        lines.push(lang.pick("这里有：", "Stores here: ").to_owned() + &join(lang, &stores));
    }
    lines.join("\n").trim().to_owned()
}

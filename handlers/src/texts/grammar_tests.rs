//! The tables' sentences as a shopper reads them: plurals, a sentence after
//! another, no empty slot, no clause without its verb.

use serde_json::json;

use crate::context::Lang;

#[test]
fn english_counts_agree_with_their_nouns() {
    let answers = &Lang::En.texts().answers;
    assert_eq!((answers.found_products)(1, false), "I found 1 product:");
    assert_eq!((answers.found_products)(3, true), "I found 3 products (cheapest first):");
    assert_eq!((answers.found_stores)(1), "I found 1 store:");
    assert_eq!((answers.found_stores)(2), "I found 2 stores:");
    assert_eq!((answers.more_products)(1), "There is 1 more; reply \"the second one\" to see it.");
    assert_eq!((answers.more_products)(4), "There are 4 more; reply \"the second one\" to see the next.");
    assert_eq!(
        (answers.no_such_item)(1),
        "The last list had only 1 product; say \"the first one\" to pick it."
    );
    assert_eq!(
        (answers.order_line)(1, "o-1", "paid", "¥399", 1, "2026-11-28"),
        "1. o-1 — paid, ¥399, 1 item, 2026-11-28"
    );
    assert!((answers.order_line)(1, "o-1", "paid", "¥798", 2, "2026-11-28").contains("2 items"));
}

#[test]
fn a_sentence_after_another_is_spaced_in_english_and_not_in_chinese() {
    for lang in Lang::ALL {
        let answers = &lang.texts().answers;
        for refund in [(answers.refund_pending)("¥399"), (answers.refund_done)("¥399")] {
            let both = format!("{}{refund}", (answers.order_cancelled)("o-1", "¥399"));
            match lang {
                Lang::En => assert!(both.contains("cancelled. The ¥399"), "{both}"),
                _ => assert!(both.contains("。已付") && !both.contains("。 "), "{both}"),
            }
        }
    }
    let answers = &Lang::En.texts().answers;
    let stock = format!("{}{}", answers.no_stock, (answers.other_sizes)("41, 43"));
    assert!(stock.contains("that. Sizes"), "{stock}");
}

#[test]
fn an_alert_reads_as_a_sentence() {
    let alerts = &Lang::En.texts().alerts;
    let what = (alerts.restock)("Downshifter 13", "40");
    assert_eq!(
        (alerts.preview)(&what, 30),
        "🔔 Set an alert: Downshifter 13 back in stock in size 40. I'll message you when it happens (lasts 30 days, tells you once)."
    );
    assert!(
        (alerts.set)(&what, 30)
            .starts_with("🔔 Alert set: Downshifter 13 back in stock in size 40. I'll tell you when")
    );
}

#[test]
fn nothing_found_without_a_price_range_has_no_dangling_particle() {
    let zh = (Lang::Zh.texts().answers.no_products)("滑板", "");
    assert!(zh.starts_with("没有找到“滑板”。"), "{zh}");
    let ranged =
        (Lang::Zh.texts().answers.no_products)("滑板", &(Lang::Zh.texts().answers.price_under)("¥500"));
    assert!(ranged.starts_with("没有找到 ¥500 以内的“滑板”"), "{ranged}");
    let hant = (Lang::ZhHant.texts().answers.no_products)("滑板", "");
    assert!(hant.starts_with("沒有找到「滑板」。"), "{hant}");
}

#[test]
fn a_progress_line_with_nothing_to_name_leaves_no_empty_slot() {
    let empty = json!({
        "keyword": "", "store_id": "", "store_name": "", "area_name": "", "order_id": "", "kind": "",
        "info_type": "promotions", "product_id": "", "question": "",
    });
    for lang in Lang::ALL {
        for tool in crate::all() {
            let line = tool.progress_line(lang, &empty);
            for gap in [" …", "：…", "at …", "去的", "看的", "看訂單 …", "查看订单 …", "Looking up …"]
            {
                assert!(!line.contains(gap), "{lang:?} {}: {line:?}", tool.name);
            }
        }
    }
    let info = crate::find("get_store_info").expect("get_store_info is registered");
    let named = json!({"store_id": "Nike", "info_type": "promotions"});
    assert_eq!(info.progress_line(Lang::En, &named), "🏷️ Checking deals at Nike…");
}

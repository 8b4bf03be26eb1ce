use services::*;
fn main() {
    let cat = Catalog::demo();
    println!("{:?}", cat);
    let qs: Vec<(&str, Option<i64>, Option<&str>, Option<&str>)> = vec![
        ("Nike 跑鞋", None, None, None),
        ("帮我买一双 Nike 跑鞋", Some(50000), None, None),
        ("nike running shoes", None, None, None),
        ("耐克跑步鞋", None, None, None),
        ("running shoes", None, None, None),
        ("跑鞋", None, None, None),
        ("优衣库", None, None, None),
        ("咖啡", None, None, None),
        ("拿铁", None, None, None),
        ("iPhone 16", None, None, None),
        ("手机", Some(300000), None, None),
        ("火锅", None, None, None),
        ("T恤", None, None, None),
        ("", Some(50000), Some("nike"), Some("跑鞋")),
        ("羽绒服 女", None, None, None),
        ("降噪耳机", None, None, None),
        ("笔记本电脑", None, Some("苹果"), None),
        ("lego", None, None, None),
        ("xyzzy", None, None, None),
        ("鞋", None, None, None),
        ("nike black running shoes size 42", None, None, None),
        ("nike black", None, None, None),
        ("nike 42", None, None, None),
        ("nike running shoes 42", None, None, None),
        ("平板", None, None, None),
        ("nike black 42", None, None, None),
        ("black 42", None, None, None),
        ("nike black running shoes 42", None, None, None),
        ("nike black running shoes size", None, None, None),
    ];
    for (k, max, brand, cat_) in qs {
        let q = ProductQuery {
            keyword: Some(k.into()),
            max_price_cents: max,
            brand: brand.map(Into::into),
            category: cat_.map(Into::into),
            page: PageRequest::first(6),
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let r = cat.search_products(&q);
        println!("== {k:?} max={max:?} brand={brand:?} cat={cat_:?}: total {} ({:?})", r.total, t.elapsed());
        for p in r.items {
            println!("   {} {} [{}] {} {} {}", p.id, p.name, p.brand, p.category, p.price_cents, p.rating);
        }
    }
    for k in ["Nike", "跑鞋", "咖啡", "优衣库", "火锅", "手机", "儿童", "吃饭"] {
        let r = cat.search_stores(&StoreQuery { keyword: Some(k.into()), ..Default::default() });
        println!("== store {k:?}: total {}", r.total);
        for s in r.items {
            println!("   {} {} {} {}", s.id, s.name, s.category, s.floor);
        }
    }
}

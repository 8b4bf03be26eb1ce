//! Example requests made of the mall's own data — a product it sells, a store
//! it has, a store with an offer — for the greeting's buttons, the small
//! talk's suggestions and the terminal chat's banner: never another mall's
//! (the demo's) names.

use services::{MallApi, ProductBrief, Store};

use crate::Lang;
use crate::format::local_name;

/// Stores asked for their offers while looking for one that has some, at most.
const OFFER_LOOKUPS: usize = 30;

/// A name in Chinese and English, as the mall writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub name_en: String,
}

impl Named {
    fn store(store: &Store) -> Named {
        Named { name: store.name.clone(), name_en: store.name_en.clone() }
    }

    fn in_lang(&self, lang: Lang) -> String {
        local_name(lang, &self.name, Some(&self.name_en)).into_owned()
    }
}

/// What the examples are made of; each part absent when the mall has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MallExamples {
    /// A product it sells (the best rated in stock).
    pub product: Option<Named>,
    /// A store to ask the way to (another than the product's and the offer's, when it can).
    pub store: Option<Named>,
    /// A store with an offer.
    pub offer: Option<Named>,
}

impl MallExamples {
    /// The examples of a mall whose stores and products are these; the stores'
    /// offers are asked of `mall` (a few stores at most) until one has some.
    pub async fn learn(mall: &dyn MallApi, stores: &[Store], products: &[ProductBrief]) -> MallExamples {
        let best = products
            .iter()
            .filter(|p| p.in_stock && !p.name.trim().is_empty())
            .max_by(|a, b| a.rating.total_cmp(&b.rating).then(b.id.cmp(&a.id)));
        let product =
            best.map(|p| Named { name: p.name.clone(), name_en: p.name_en.clone().unwrap_or_default() });
        let mut offer = None;
        for store in stores.iter().take(OFFER_LOOKUPS) {
            if mall.store_promotions(&store.id).await.is_ok_and(|page| !page.items.is_empty()) {
                offer = Some(store);
                break;
            }
        }
        let taken = |s: &&Store| {
            best.is_some_and(|p| p.store_id == s.id) || offer.is_some_and(|o: &Store| o.id == s.id)
        };
        let store = stores.iter().find(|s| !taken(s)).or_else(|| stores.first());
        MallExamples { product, store: store.map(Named::store), offer: offer.map(Named::store) }
    }

    /// The example requests in the shopper's language: a product, a store's way, a store's
    /// offers (what the mall has of these), then the cart.
    pub fn requests(&self, lang: Lang) -> Vec<String> {
        let talk = &lang.texts().small_talk;
        let mut requests = self.own(lang);
        requests.push(talk.cart_example.to_owned());
        requests
    }

    /// The requests made of the mall's own names only (none for a mall without stores).
    pub fn own(&self, lang: Lang) -> Vec<String> {
        let talk = &lang.texts().small_talk;
        [
            self.product.as_ref().map(|p| (talk.find_example)(&p.in_lang(lang))),
            self.store.as_ref().map(|s| (talk.where_example)(&s.in_lang(lang))),
            self.offer.as_ref().map(|s| (talk.offers_example)(&s.in_lang(lang))),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The examples as the terminal chat's banner quotes them: `“帮我找…”“霸王茶姬在哪”`.
    pub fn quoted(&self, lang: Lang) -> String {
        let (open, close, between) = match lang {
            Lang::En => ("\"", "\"", ", "),
            Lang::ZhHant => ("「", "」", ""),
            _ => ("“", "”", ""),
        };
        let mut requests = self.own(lang);
        if requests.is_empty() {
            requests.push(lang.texts().small_talk.cart_example.to_owned());
        }
        requests.iter().map(|r| format!("{open}{r}{close}")).collect::<Vec<_>>().join(between)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str, name_en: &str) -> Option<Named> {
        Some(Named { name: name.into(), name_en: name_en.into() })
    }

    #[test]
    fn the_requests_are_the_malls_own_names_in_the_shoppers_language() {
        let examples = MallExamples {
            product: named("绿茶精华", "Green Tea Serum"),
            store: named("霸王茶姬", "CHAGEE"),
            offer: named("亚瑟士", "ASICS"),
        };
        assert_eq!(
            examples.requests(Lang::Zh),
            ["帮我找绿茶精华", "霸王茶姬在哪", "亚瑟士有什么优惠", "看看我的购物车"]
        );
        assert_eq!(
            examples.requests(Lang::En),
            ["Find Green Tea Serum", "Where is CHAGEE?", "Any deals at ASICS?", "Show my cart"]
        );
        assert_eq!(examples.quoted(Lang::Zh), "“帮我找绿茶精华”“霸王茶姬在哪”“亚瑟士有什么优惠”");
        let empty = MallExamples::default();
        assert_eq!(empty.requests(Lang::Zh), ["看看我的购物车"]);
        assert_eq!(empty.quoted(Lang::En), "\"Show my cart\"");
    }
}

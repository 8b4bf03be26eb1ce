//! The `callback_data` of the bot's buttons: `c:<token>:y` / `c:<token>:n` for
//! Confirm / Cancel, `s:<index>` for a suggestion, `p:<order>` for an unpaid
//! order's pay button, `r:<store>` for the way to a store, `k:<product>|<size>`
//! for an alert's "add to cart", `a:<alert>` for removing an alert, `v:<plate>` for removing a
//! plate, `q:<coupon>` for claiming a coupon, `d:x:<user>` /
//! `d:w` / `d:b` for the service desk's close, keep-waiting and back-to-the-bot. Always within Telegram's 64 bytes.

/// What a button press asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ButtonData {
    /// Confirm (`approve`) or Cancel a pending action.
    Confirmation { token: String, approve: bool },
    /// The suggestion at this index of the message's buttons.
    Suggestion(usize),
    /// Pay this unpaid order: a new invoice for it.
    Pay(String),
    /// The way to this store (by id).
    Route(String),
    /// The service desk's buttons.
    Desk(DeskAction),
    /// Add this product (in this size) to the cart: held for confirmation.
    Cart { product_id: String, size: Option<String> },
    /// Remove this alert of the shopper's.
    Unwatch(String),
    /// Remove this plate of the shopper's (`/car`'s ✖).
    Unplate(String),
    /// Claim this coupon (`/coupons`): held for confirmation.
    Claim(String),
}

/// A press on one of the service desk's buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeskAction {
    /// Staff end the conversation with this shopper (the card's button).
    Close(i64),
    /// The shopper keeps waiting for a person.
    Wait,
    /// The shopper goes on with the bot.
    Back,
}

/// Telegram's limit on `callback_data`.
pub(crate) const CALLBACK_DATA_LIMIT: usize = 64;

impl ButtonData {
    /// The `callback_data` string.
    pub(crate) fn encode(&self) -> String {
        match self {
            ButtonData::Confirmation { token, approve } => {
                format!("c:{token}:{}", if *approve { "y" } else { "n" })
            }
            ButtonData::Suggestion(index) => format!("s:{index}"),
            ButtonData::Pay(order_id) => format!("p:{order_id}"),
            ButtonData::Route(store_id) => format!("r:{store_id}"),
            ButtonData::Desk(DeskAction::Close(user)) => format!("d:x:{user}"),
            ButtonData::Desk(DeskAction::Wait) => "d:w".to_owned(),
            ButtonData::Desk(DeskAction::Back) => "d:b".to_owned(),
            ButtonData::Cart { product_id, size } => {
                format!("k:{product_id}|{}", size.as_deref().unwrap_or(""))
            }
            ButtonData::Unwatch(id) => format!("a:{id}"),
            ButtonData::Unplate(plate) => format!("v:{plate}"),
            ButtonData::Claim(coupon_id) => format!("q:{coupon_id}"),
        }
    }

    /// Reads a `callback_data` string; `None` for anything else.
    pub(crate) fn decode(data: &str) -> Option<ButtonData> {
        if let Some(rest) = data.strip_prefix("c:") {
            let (token, answer) = rest.rsplit_once(':')?;
            let approve = match answer {
                "y" => true,
                "n" => false,
                _ => return None,
            };
            if token.is_empty() {
                return None;
            }
            return Some(ButtonData::Confirmation { token: token.to_owned(), approve });
        }
        if let Some(order_id) = data.strip_prefix("p:").filter(|o| !o.is_empty()) {
            return Some(ButtonData::Pay(order_id.to_owned()));
        }
        if let Some(store_id) = data.strip_prefix("r:").filter(|s| !s.is_empty()) {
            return Some(ButtonData::Route(store_id.to_owned()));
        }
        if let Some((product_id, size)) = data.strip_prefix("k:").and_then(|rest| rest.split_once('|')) {
            if product_id.is_empty() {
                return None;
            }
            let size = Some(size.to_owned()).filter(|s| !s.is_empty());
            return Some(ButtonData::Cart { product_id: product_id.to_owned(), size });
        }
        if let Some(id) = data.strip_prefix("a:").filter(|id| !id.is_empty()) {
            return Some(ButtonData::Unwatch(id.to_owned()));
        }
        if let Some(plate) = data.strip_prefix("v:").filter(|p| !p.is_empty()) {
            return Some(ButtonData::Unplate(plate.to_owned()));
        }
        if let Some(coupon_id) = data.strip_prefix("q:").filter(|c| !c.is_empty()) {
            return Some(ButtonData::Claim(coupon_id.to_owned()));
        }
        if let Some(rest) = data.strip_prefix("d:") {
            return match rest {
                "w" => Some(ButtonData::Desk(DeskAction::Wait)),
                "b" => Some(ButtonData::Desk(DeskAction::Back)),
                _ => Some(ButtonData::Desk(DeskAction::Close(rest.strip_prefix("x:")?.parse().ok()?))),
            };
        }
        let index = data.strip_prefix("s:")?.parse().ok()?;
        Some(ButtonData::Suggestion(index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for data in [
            ButtonData::Confirmation { token: "aB3xY7kLm2Qp".into(), approve: true },
            ButtonData::Confirmation { token: "aB3xY7kLm2Qp".into(), approve: false },
            ButtonData::Suggestion(3),
            ButtonData::Pay("o-1a2b3c4d".into()),
            ButtonData::Route("s-nike".into()),
            ButtonData::Desk(DeskAction::Close(-1_001_234_567_890)),
            ButtonData::Desk(DeskAction::Wait),
            ButtonData::Desk(DeskAction::Back),
            ButtonData::Unplate("沪AD12345".into()),
            ButtonData::Claim("cp-mall-50".into()),
        ] {
            let encoded = data.encode();
            assert!(encoded.len() <= CALLBACK_DATA_LIMIT);
            assert_eq!(ButtonData::decode(&encoded), Some(data));
        }
        assert_eq!(ButtonData::Confirmation { token: "t".into(), approve: true }.encode(), "c:t:y");
    }

    #[test]
    fn rejects_other_data() {
        for data in
            ["", "c:", "c::y", "c:tok:maybe", "s:", "s:x", "p:", "r:", "x:1", "下单", "d:", "d:x:", "d:x:z"]
        {
            assert_eq!(ButtonData::decode(data), None, "{data}");
        }
    }
}

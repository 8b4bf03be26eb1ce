//! The invoice payload: `ORDER_ID|USER_ID|TAG`, where TAG is the first 16
//! bytes (hex) of HMAC-SHA256 over the order id and the shopper's id, keyed
//! with a key derived from the bot's token. Telegram hands the payload back
//! at pre-checkout and with the payment; only the bot can make one, so a
//! payload names an order the bot offered to that shopper, and nothing
//! else.
//!
//! A parking fee's payload is `park|PLATE|AMOUNT|USER_ID|TAG`, the tag over
//! the plate, the amount (fen) and the shopper under a label of its own: it
//! never opens as an order's, nor an order's as a parking fee's.

use ring::hmac;

/// Bytes of the HMAC kept in the payload (128 bits).
const TAG_BYTES: usize = 16;
/// What the payload key is derived for (a key made for nothing else).
const DERIVATION_LABEL: &[u8] = b"mallbot invoice payload v1";
/// The first field of a parking fee's payload.
const PARKING_PREFIX: &str = "park";
/// Telegram's limit on an invoice payload, in bytes.
pub(crate) const MAX_PAYLOAD: usize = 128;

/// The key that signs and checks invoice payloads.
pub struct PayloadKey(hmac::Key);

impl std::fmt::Debug for PayloadKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PayloadKey(…)")
    }
}

impl PayloadKey {
    /// The key derived from `secret` (the bot's token): HMAC-SHA256 of the
    /// secret under a fixed label, so the token itself signs nothing.
    pub fn derive(secret: &str) -> Self {
        let label = hmac::Key::new(hmac::HMAC_SHA256, DERIVATION_LABEL);
        let derived = hmac::sign(&label, secret.as_bytes());
        PayloadKey(hmac::Key::new(hmac::HMAC_SHA256, derived.as_ref()))
    }

    /// The payload naming `order_id` for the shopper `user_id`.
    pub fn sign(&self, order_id: &str, user_id: i64) -> String {
        format!("{order_id}|{user_id}|{}", hex(&self.tag(order_id, user_id)))
    }

    /// The order id and shopper a payload names, when the bot made it.
    pub fn open(&self, payload: &str) -> Option<(String, i64)> {
        if payload.len() > MAX_PAYLOAD {
            return None;
        }
        let mut parts = payload.rsplitn(3, '|');
        let (tag, user, order_id) = (parts.next()?, parts.next()?, parts.next()?);
        let user_id: i64 = user.parse().ok()?;
        if order_id.is_empty() || user != user_id.to_string() {
            return None;
        }
        let expected = hex(&self.tag(order_id, user_id));
        same(&expected, tag).then(|| (order_id.to_owned(), user_id))
    }

    /// The payload naming the parking fee `amount_cents` of `plate` for the shopper `user_id`.
    pub(crate) fn sign_parking(&self, plate: &str, amount_cents: i64, user_id: i64) -> String {
        let tag = hex(&self.parking_tag(plate, amount_cents, user_id));
        format!("{PARKING_PREFIX}|{plate}|{amount_cents}|{user_id}|{tag}")
    }

    /// The plate, amount and shopper a parking payload names, when the bot made it.
    pub fn open_parking(&self, payload: &str) -> Option<(String, i64, i64)> {
        if payload.len() > MAX_PAYLOAD {
            return None;
        }
        let parts: Vec<&str> = payload.split('|').collect();
        let [prefix, plate, amount, user, tag] = parts.as_slice() else { return None };
        if *prefix != PARKING_PREFIX || plate.is_empty() {
            return None;
        }
        let (amount_cents, user_id): (i64, i64) = (amount.parse().ok()?, user.parse().ok()?);
        if *amount != amount_cents.to_string() || *user != user_id.to_string() || amount_cents <= 0 {
            return None;
        }
        let expected = hex(&self.parking_tag(plate, amount_cents, user_id));
        same(&expected, tag).then(|| ((*plate).to_owned(), amount_cents, user_id))
    }

    fn parking_tag(&self, plate: &str, amount_cents: i64, user_id: i64) -> [u8; TAG_BYTES] {
        self.mac(&format!("parking\n{plate}\n{amount_cents}\n{user_id}"))
    }

    fn tag(&self, order_id: &str, user_id: i64) -> [u8; TAG_BYTES] {
        self.mac(&format!("{order_id}\n{user_id}"))
    }

    fn mac(&self, message: &str) -> [u8; TAG_BYTES] {
        let full = hmac::sign(&self.0, message.as_bytes());
        let mut tag = [0u8; TAG_BYTES];
        tag.copy_from_slice(&full.as_ref()[..TAG_BYTES]);
        tag
    }
}

/// Whether a tag is the expected one, compared in constant time: how much of a guess
/// matched is not told.
fn same(expected: &str, tag: &str) -> bool {
    expected.len() == tag.len()
        && expected.bytes().zip(tag.bytes()).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_opens_with_its_key_only_and_for_what_it_names_only() {
        let key = PayloadKey::derive("123:TEST");
        let payload = key.sign("o-abc123", 1001);
        assert!(payload.starts_with("o-abc123|1001|") && payload.len() <= MAX_PAYLOAD, "{payload}");
        assert_eq!(key.open(&payload), Some(("o-abc123".to_owned(), 1001)));

        let other = PayloadKey::derive("456:OTHER");
        assert_eq!(other.open(&payload), None, "another bot's key");
        let tag = payload.rsplit('|').next().unwrap_or_default();
        assert_eq!(key.open(&format!("o-abc123|1002|{tag}")), None, "another shopper");
        assert_eq!(key.open(&format!("o-abc124|1001|{tag}")), None, "another order");
        assert_eq!(key.open("o-abc123|1001|00000000000000000000000000000000"), None, "a guessed tag");
        assert_eq!(key.open("o-abc123"), None);
        assert_eq!(key.open(&format!("o-abc123|+1001|{tag}")), None, "the same number written otherwise");
    }

    #[test]
    fn a_parking_payload_names_its_plate_amount_and_shopper_and_is_never_an_orders() {
        let key = PayloadKey::derive("123:TEST");
        let payload = key.sign_parking("沪A12345", 3000, 1001);
        assert!(payload.starts_with("park|沪A12345|3000|1001|") && payload.len() <= MAX_PAYLOAD, "{payload}");
        assert_eq!(key.open_parking(&payload), Some(("沪A12345".to_owned(), 3000, 1001)));
        assert_eq!(key.open(&payload), None, "not an order's payload");
        assert_eq!(key.open_parking(&key.sign("o-abc123", 1001)), None, "an order's is not a parking fee's");
        let tag = payload.rsplit('|').next().unwrap_or_default();
        assert_eq!(key.open_parking(&format!("park|沪A12345|2000|1001|{tag}")), None, "another amount");
        assert_eq!(key.open_parking(&format!("park|沪A12345|3000|1002|{tag}")), None, "another shopper");
        assert_eq!(key.open_parking(&format!("park|沪B12345|3000|1001|{tag}")), None, "another plate");
        assert_eq!(PayloadKey::derive("456:OTHER").open_parking(&payload), None, "another bot's key");
    }
}

//! Facilities: the amenities of a map a shopper asks for by kind
//! ("the nearest restroom"), each kind keyed by IMDF's own amenity category
//! name and covering the categories that answer it (any restroom answers
//! `restroom`; only an accessible one answers `restroom.wheelchair`).
//! The words shoppers use for them are the bot's; this module knows the
//! categories, and how a kind is marked on a floor plan.

use crate::imdf::{IndoorMap, Place, PlaceKind};

/// A kind of facility a shopper can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FacilityKind {
    /// IMDF's amenity category naming the kind (`restroom`, `mothersroom`, `atm`).
    pub key: &'static str,
    /// The IMDF amenity categories that answer it.
    pub categories: &'static [&'static str],
    /// The mark on a floor plan: a few ASCII letters in a round badge.
    pub badge: &'static str,
    /// The badge's colour.
    pub colour: [u8; 3],
}

impl FacilityKind {
    /// Whether an amenity of `category` answers this kind.
    pub fn covers(&self, category: &str) -> bool {
        self.categories.contains(&category)
    }

    /// Whether `place` is a facility of this kind.
    pub fn matches(&self, place: &Place) -> bool {
        matches!(&place.kind, PlaceKind::Amenity(category) if self.covers(category))
    }
}

const WHEELCHAIR_RESTROOMS: &[&str] = &[
    "restroom.wheelchair",
    "restroom.unisex.wheelchair",
    "restroom.female.wheelchair",
    "restroom.male.wheelchair",
    "restroom.transgender.wheelchair",
];

/// The kinds, in the order they are listed to a shopper.
pub const KINDS: &[FacilityKind] = &[
    FacilityKind {
        key: "restroom",
        categories: &[
            "restroom",
            "restroom.female",
            "restroom.male",
            "restroom.unisex",
            "restroom.family",
            "restroom.transgender",
            "restroom.wheelchair",
            "restroom.unisex.wheelchair",
            "restroom.female.wheelchair",
            "restroom.male.wheelchair",
            "restroom.transgender.wheelchair",
        ],
        badge: "WC",
        colour: [0x00, 0x89, 0x7b],
    },
    FacilityKind {
        key: "restroom.wheelchair",
        categories: WHEELCHAIR_RESTROOMS,
        badge: "WC",
        colour: [0x1e, 0x88, 0xe5],
    },
    FacilityKind {
        key: "restroom.family",
        categories: &["restroom.family"],
        badge: "WC",
        colour: [0x8e, 0x24, 0xaa],
    },
    FacilityKind {
        key: "mothersroom",
        categories: &["mothersroom", "babychanging"],
        badge: "BB",
        colour: [0xd8, 0x1b, 0x60],
    },
    FacilityKind {
        key: "babychanging",
        categories: &["babychanging"],
        badge: "BB",
        colour: [0xd8, 0x1b, 0x60],
    },
    FacilityKind {
        key: "information",
        categories: &["information", "guestservices"],
        badge: "i",
        colour: [0x39, 0x49, 0xab],
    },
    FacilityKind { key: "atm", categories: &["atm"], badge: "ATM", colour: [0x2e, 0x7d, 0x32] },
    FacilityKind {
        key: "firstaid",
        categories: &["firstaid", "defibrillator"],
        badge: "+",
        colour: [0xc6, 0x28, 0x28],
    },
    FacilityKind {
        key: "powerchargingstation",
        categories: &["powerchargingstation"],
        badge: "USB",
        colour: [0xf9, 0xa8, 0x25],
    },
    FacilityKind {
        key: "coinlocker",
        categories: &["coinlocker", "baggagestorage"],
        badge: "LK",
        colour: [0x6d, 0x4c, 0x41],
    },
    FacilityKind {
        key: "drinkingfountain",
        categories: &["drinkingfountain"],
        badge: "H2O",
        colour: [0x03, 0x9b, 0xe5],
    },
    FacilityKind {
        key: "smokingarea",
        categories: &["smokingarea"],
        badge: "SM",
        colour: [0x54, 0x6e, 0x7a],
    },
    FacilityKind { key: "elevator", categories: &["elevator"], badge: "EL", colour: [0x5c, 0x6b, 0xc0] },
    FacilityKind { key: "escalator", categories: &["escalator"], badge: "ES", colour: [0x02, 0x88, 0xd1] },
    FacilityKind { key: "stairs", categories: &["stairs"], badge: "ST", colour: [0x8d, 0x6e, 0x63] },
    FacilityKind { key: "parking", categories: &["parking"], badge: "P", colour: [0x15, 0x65, 0xc0] },
];

/// The kind keyed `key` (an IMDF category: `restroom`, `atm`), or the first
/// kind covering `key` when it is another category (`restroom.female`).
pub fn kind(key: &str) -> Option<&'static FacilityKind> {
    let key = key.trim().to_ascii_lowercase();
    KINDS.iter().find(|k| k.key == key).or_else(|| KINDS.iter().find(|k| k.covers(&key)))
}

/// The kind a facility place is marked as: the most particular that covers
/// its category (an accessible restroom is `restroom.wheelchair`, not any restroom).
pub fn kind_of(place: &Place) -> Option<&'static FacilityKind> {
    match &place.kind {
        PlaceKind::Amenity(category) => {
            KINDS.iter().filter(|k| k.covers(category)).min_by_key(|k| k.categories.len())
        }
        _ => None,
    }
}

/// The kinds `map` has at least one of, in [`KINDS`] order.
pub fn kinds_on(map: &IndoorMap) -> Vec<&'static FacilityKind> {
    KINDS.iter().filter(|k| map.places.iter().any(|p| k.matches(p))).collect()
}

/// The facilities of `kind` on `map`.
pub fn places_of<'a>(map: &'a IndoorMap, kind: &'a FacilityKind) -> impl Iterator<Item = &'a Place> {
    map.places.iter().filter(move |p| kind.matches(p))
}

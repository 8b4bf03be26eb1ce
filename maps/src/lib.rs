//! Indoor maps for the mall guide: reading IMDF archives ([`IndoorMap`]),
//! walking routes across floors on the map ([`Router`]), the route's steps
//! in the shopper's language ([`MapWords`]), and floor plans with the route drawn
//! ([`render`]), and the facilities shoppers ask for by kind ([`facility`]:
//! the nearest by walking route is [`Router::nearest`]). The demo mall's archive is compiled in ([`demo`]).

pub mod demo;
pub mod directions;
pub mod facility;
pub mod geo;
pub mod imdf;
pub mod render;
pub mod route;
pub mod unit;
pub mod words;

pub use facility::FacilityKind;
pub use geo::Point;
pub use imdf::{ImdfError, IndoorMap, Level, Place, PlaceKind, Section, StoreTie, Unit};
pub use render::{FloorPicture, RenderError};
pub use route::{Leg, Route, RouteError, RouteOptions, Router};
pub use unit::UnitKind;
pub use words::MapWords;

/// A name in Chinese and English.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Labels {
    pub zh: String,
    pub en: String,
}

impl Labels {
    /// A name with its Chinese and English forms.
    pub fn new(zh: impl Into<String>, en: impl Into<String>) -> Labels {
        Labels { zh: zh.into(), en: en.into() }
    }
}

//! The indoor map as the Mini App shows it: every floor as SVG (the maps
//! crate's own drawing, not a picture), where each store sits on it, and a
//! route's waypoints turned into points on those drawings. Drawn once per
//! language and kept.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use handlers::Lang;
use maps::render::{Frame, Overlay, level_svg};
use maps::{PlaceKind, Router};
use serde::Serialize;

/// Every floor of a map in one language.
#[derive(Debug)]
pub struct FloorSet {
    pub floors: Vec<Floor>,
}

/// One floor: its drawing and the stores on it.
#[derive(Debug)]
pub struct Floor {
    /// The mall's floor number (1 = ground, -1 = B1).
    pub floor: i32,
    /// How it is signed and named (`3F 运动`).
    pub label: String,
    pub width: u32,
    pub height: u32,
    /// The SVG, and the same gzip-compressed.
    pub svg: Bytes,
    pub svg_gzip: Bytes,
    pub stores: Vec<Pin>,
    frame: Frame,
}

/// A place on a floor's drawing, in the drawing's pixels.
#[derive(Debug, Clone, Serialize)]
pub struct Pin {
    pub id: String,
    pub name: String,
    pub x: f64,
    pub y: f64,
}

/// The floors of `router`'s map in each language, drawn when first asked.
#[derive(Debug)]
pub struct MapViews {
    router: Arc<Router>,
    drawn: [OnceLock<FloorSet>; 3],
}

impl MapViews {
    pub fn new(router: Arc<Router>) -> MapViews {
        MapViews { router, drawn: Default::default() }
    }

    /// Every floor in `lang`, lowest first.
    pub fn floors(&self, lang: Lang) -> &FloorSet {
        let slot = match lang {
            Lang::Zh => &self.drawn[0],
            Lang::ZhHant => &self.drawn[1],
            Lang::En => &self.drawn[2],
        };
        slot.get_or_init(|| draw(&self.router, lang))
    }

    /// The entrances a route may start from: (id, name in `lang`).
    pub fn entrances(&self, lang: Lang) -> Vec<Pin> {
        let map = self.router.map();
        let words = &lang.texts().map;
        map.entrances()
            .map(|p| Pin {
                id: p.id.clone(),
                name: words.name(&p.name).into_owned(),
                x: p.point.x,
                y: p.point.y,
            })
            .collect()
    }

    /// Points in metres on `floor` as points of its drawing.
    pub fn to_pixels(&self, lang: Lang, floor: i32, points: &[(f64, f64)]) -> Vec<(f64, f64)> {
        let Some(drawn) = self.floors(lang).floors.iter().find(|f| f.floor == floor) else {
            return Vec::new();
        };
        points
            .iter()
            .map(|&(x, y)| {
                let (px, py) = drawn.frame.pixel(maps::geo::Point::new(x, y));
                ((px * 10.0).round() / 10.0, (py * 10.0).round() / 10.0)
            })
            .collect()
    }
}

fn draw(router: &Router, lang: Lang) -> FloorSet {
    let map = router.map();
    let words = &lang.texts().map;
    let floors = map
        .levels
        .iter()
        .enumerate()
        .map(|(index, level)| {
            let label = format!("{} {}", words.name(&level.short_name), words.name(&level.name));
            let overlay = Overlay { title: label.clone(), ..Overlay::default() };
            let (svg, frame) = level_svg(map, index, &overlay, words);
            let (width, height) = frame.size();
            let stores = map
                .places
                .iter()
                .filter(|p| p.level == index && p.kind == PlaceKind::Store)
                .map(|p| {
                    let (x, y) = frame.pixel(p.point);
                    Pin { id: p.id.clone(), name: words.name(&p.name).into_owned(), x, y }
                })
                .collect();
            let svg_gzip = gzip(svg.as_bytes());
            Floor { floor: level.floor, label, width, height, svg: Bytes::from(svg), svg_gzip, stores, frame }
        })
        .collect();
    FloorSet { floors }
}

/// `bytes` gzip-compressed (best compression: each is compressed once).
pub fn gzip(bytes: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    Bytes::from(encoder.finish().unwrap_or_default())
}

//! The indoor map as the Mini App shows it: every floor as SVG (the maps
//! crate's own drawing, not a picture), where each store and facility sits
//! on it, and a route's waypoints turned into points on those drawings. Drawn once per
//! language and kept.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use handlers::Lang;
use maps::facility;
use maps::render::{Frame, Overlay, UNBADGED, facility_badge_at, level_svg};
use maps::{PlaceKind, Router};
use serde::Serialize;

/// Every floor of a map in one language.
#[derive(Debug)]
pub(crate) struct FloorSet {
    pub(crate) floors: Vec<Floor>,
}

/// One floor: its drawing and the stores on it.
#[derive(Debug)]
pub(crate) struct Floor {
    /// The mall's floor number (1 = ground, -1 = B1).
    pub(crate) floor: i32,
    /// How it is signed and named (`3F 运动`).
    pub(crate) label: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// The SVG, and the same gzip-compressed.
    pub(crate) svg: Bytes,
    pub(crate) svg_gzip: Bytes,
    pub(crate) stores: Vec<Pin>,
    /// The facilities marked on it (restrooms, nursing rooms, ATMs…).
    pub(crate) facilities: Vec<FacilityPin>,
    frame: Frame,
}

/// A facility on a floor's drawing, where the drawing's own badge is.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FacilityPin {
    /// Its kind's IMDF key (`restroom`).
    pub(crate) kind: &'static str,
    /// The kind's name in the page's language.
    pub(crate) name: String,
    /// The badge's letters and colour (`#00897b`).
    pub(crate) badge: &'static str,
    pub(crate) colour: String,
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// A kind of facility the map has, named in the page's language.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FacilityKindName {
    pub(crate) kind: &'static str,
    pub(crate) name: String,
}

/// A place on a floor's drawing, in the drawing's pixels.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Pin {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) x: f64,
    pub(crate) y: f64,
}

/// The floors of `router`'s map in each language, drawn when first asked.
#[derive(Debug)]
pub(crate) struct MapViews {
    router: Arc<Router>,
    drawn: [OnceLock<FloorSet>; 3],
}

impl MapViews {
    pub(crate) fn new(router: Arc<Router>) -> MapViews {
        MapViews { router, drawn: Default::default() }
    }

    /// Every floor in `lang`, lowest first.
    pub(crate) fn floors(&self, lang: Lang) -> &FloorSet {
        let slot = match lang {
            Lang::Zh => &self.drawn[0],
            Lang::ZhHant => &self.drawn[1],
            Lang::En => &self.drawn[2],
        };
        slot.get_or_init(|| draw(&self.router, lang))
    }

    /// The entrances a route may start from: (id, name in `lang`).
    pub(crate) fn entrances(&self, lang: Lang) -> Vec<Pin> {
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

    /// The kinds of facility the map has, named in `lang`, in the order they are listed.
    pub(crate) fn facility_kinds(&self, lang: Lang) -> Vec<FacilityKindName> {
        let names = &lang.texts().facilities;
        facility::kinds_on(self.router.map())
            .into_iter()
            .map(|k| FacilityKindName { kind: k.key, name: (names.kind)(k.key).unwrap_or(k.key).to_owned() })
            .collect()
    }

    /// Points in metres on `floor` as points of its drawing.
    pub(crate) fn to_pixels(&self, lang: Lang, floor: i32, points: &[(f64, f64)]) -> Vec<(f64, f64)> {
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
            let facilities = facility_pins(map, index, &frame, lang);
            let svg_gzip = gzip(svg.as_bytes());
            Floor {
                floor: level.floor,
                label,
                width,
                height,
                svg: Bytes::from(svg),
                svg_gzip,
                stores,
                facilities,
                frame,
            }
        })
        .collect();
    FloorSet { floors }
}

/// The facilities of `level` as the drawing badges them: one per kind and unit.
fn facility_pins(map: &maps::IndoorMap, level: usize, frame: &Frame, lang: Lang) -> Vec<FacilityPin> {
    let names = &lang.texts().facilities;
    let mut pins: Vec<FacilityPin> = Vec::new();
    let mut seen: Vec<(Option<usize>, &str)> = Vec::new();
    for place in map.places.iter().filter(|p| p.level == level) {
        let Some(kind) = facility::kind_of(place) else { continue };
        if UNBADGED.contains(&kind.key) || seen.contains(&(place.unit, kind.badge)) {
            continue;
        }
        seen.push((place.unit, kind.badge));
        let (x, y) = facility_badge_at(frame, map, place);
        let [r, g, b] = kind.colour;
        pins.push(FacilityPin {
            kind: kind.key,
            name: (names.kind)(kind.key).unwrap_or(kind.key).to_owned(),
            badge: kind.badge,
            colour: format!("#{r:02x}{g:02x}{b:02x}"),
            x: (x * 10.0).round() / 10.0,
            y: (y * 10.0).round() / 10.0,
        });
    }
    pins
}

/// `bytes` gzip-compressed (best compression: each is compressed once).
pub(crate) fn gzip(bytes: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    Bytes::from(encoder.finish().unwrap_or_default())
}

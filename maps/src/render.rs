//! Floor plans as pictures: an SVG of one level drawn from the map (units
//! outlined and labelled in the shopper's language, escalators and lifts
//! marked, facilities as badges, a legend and a north arrow), with a route
//! or an area on top, rasterised to PNG with resvg and the bundled CJK font
//! subset.
//!
//! Labels are in the shopper's language and fitted to their unit — the short
//! form ("Apple" for "Apple Store") when the whole name does not read, none
//! too small to draw, never two overlapping — each a `g.label` whose
//! `data-size` the Mini App shows or hides by zoom; facilities are `<g
//! class="facility">` badges the Mini App may hide to draw its own.
//! `route_pictures` gives one picture per floor of a trip. `maps/fonts/`
//! holds a subset of Noto Sans CJK SC (SIL OFL 1.1) cut to ASCII, Latin-1,
//! every Chinese character of GB 2312 and of Big5's common level, and the
//! characters of the labels and the UI (`maps/tools/subset_font.sh`): any
//! mall's names draw without a font step (about 2 MB in the binary).

use std::fmt::Write as _;
use std::sync::{Arc, LazyLock};

use resvg::tiny_skia;
use resvg::usvg;

use crate::MapWords;
use crate::facility;
use crate::geo::{Point, bounds};
use crate::imdf::{IndoorMap, PlaceKind};
use crate::route::Route;
use crate::unit::UnitKind;

/// Noto Sans CJK SC cut down to the common Simplified and Traditional characters and the
/// glyphs the plans use (SIL OFL 1.1; see `fonts/`).
static FONT: &[u8] = include_bytes!("../fonts/NotoSansSC-MallbotSubset.otf");
/// The font's family name, as the SVG asks for it.
const FONT_FAMILY: &str = "Noto Sans CJK SC";

/// The route's line and arrows.
pub const ROUTE_COLOUR: [u8; 3] = [0x15, 0x65, 0xc0];
/// The destination unit's fill.
pub const DESTINATION_COLOUR: [u8; 3] = [0xff, 0x70, 0x43];
/// The start marker.
pub const START_COLOUR: [u8; 3] = [0x2e, 0x7d, 0x32];
/// The fill of an area's section and of its stores when an area is shown.
pub const AREA_COLOUR: [u8; 3] = [0xff, 0xcc, 0x80];

/// Pixels per metre.
const SCALE: f64 = 5.0;
/// Space around the plan, pixels.
const PAD: f64 = 16.0;
/// Height of the title bar, pixels.
const TITLE_H: f64 = 44.0;
/// Height of the legend, pixels.
const LEGEND_H: f64 = 56.0;
/// Pixels between direction arrows along the route.
const ARROW_EVERY_PX: f64 = 70.0;

static FONTS: LazyLock<Arc<usvg::fontdb::Database>> = LazyLock::new(|| {
    let mut db = usvg::fontdb::Database::new();
    db.load_font_data(FONT.to_vec());
    Arc::new(db)
});

/// Why a picture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The drawn SVG was refused by the renderer.
    #[error("floor plan SVG is invalid: {0}")]
    Svg(#[from] usvg::Error),
    /// The picture has no size.
    #[error("floor plan has no size")]
    Empty,
    /// PNG encoding failed.
    #[error("cannot encode the floor plan as PNG: {0}")]
    Png(String),
    /// The level does not exist.
    #[error("no level {0} on the map")]
    NoLevel(usize),
}

/// Where the plan sits in the picture: map metres to pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    min: Point,
    max: Point,
}

impl Frame {
    fn of_level(map: &IndoorMap, level: usize) -> Frame {
        let (min, max) = bounds(
            map.units.iter().filter(|u| u.level == level).flat_map(|u| u.outline.outer().iter().copied()),
        );
        Frame { min: Point::new(min.x - 2.0, min.y - 2.0), max: Point::new(max.x + 2.0, max.y + 2.0) }
    }

    /// The pixel at a map point.
    pub fn pixel(&self, p: Point) -> (f64, f64) {
        (PAD + (p.x - self.min.x) * SCALE, TITLE_H + PAD + (self.max.y - p.y) * SCALE)
    }

    /// The picture's width and height in pixels.
    pub fn size(&self) -> (u32, u32) {
        let w = (self.max.x - self.min.x) * SCALE + 2.0 * PAD;
        let h = (self.max.y - self.min.y) * SCALE + 2.0 * PAD + TITLE_H + LEGEND_H;
        (w.ceil() as u32, h.ceil() as u32)
    }
}

/// One floor's picture.
#[derive(Debug, Clone)]
pub struct FloorPicture {
    /// The floor number (1 = ground, -1 = B1).
    pub floor: i32,
    /// The title drawn on it, also fit for a caption.
    pub title: String,
    pub width: u32,
    pub height: u32,
    pub png: Vec<u8>,
    /// Where map points are in the picture.
    pub frame: Frame,
}

/// What to draw on top of a level.
#[derive(Debug, Clone, Default)]
pub struct Overlay {
    pub title: String,
    /// The route's points on this level.
    pub route: Vec<Point>,
    /// Where this leg starts (a green dot).
    pub start: Option<Point>,
    /// Units filled as the destination.
    pub destination_units: Vec<usize>,
    /// The destination's name as the mall's directory gives it, drawn in its unit
    /// instead of the map's occupant name (a renamed store, a new tenant).
    pub destination_name: Option<String>,
    /// Units and sections filled as the area shown.
    pub area_units: Vec<usize>,
    pub area_sections: Vec<usize>,
    /// A note at the leg's end ("Take the escalator up to 3F").
    pub note: Option<(Point, String)>,
}

/// One picture per floor of the route, in order.
pub fn route_pictures(
    map: &IndoorMap,
    route: &Route,
    words: &MapWords,
) -> Result<Vec<FloorPicture>, RenderError> {
    let legs = route.legs.len();
    let to = words.name(&route.to.name);
    route
        .legs
        .iter()
        .enumerate()
        .map(|(i, leg)| {
            let level = &map.levels[leg.level];
            let count = if legs > 1 { format!(" ({}/{legs})", i + 1) } else { String::new() };
            let title =
                (words.route_title)(&words.name(&level.short_name), &words.name(&level.name), &to, &count);
            let last = i + 1 == legs;
            let note = (!last).then(|| {
                let next = words.name(&map.levels[route.legs[i + 1].level].short_name);
                let end = leg.points.last().copied().unwrap_or(route.to.point);
                let text = (words.next_level)(&next);
                (end, text)
            });
            let overlay = Overlay {
                title,
                route: leg.points.clone(),
                start: leg.points.first().copied(),
                destination_units: if last { route.to.unit.into_iter().collect() } else { vec![] },
                destination_name: (last && !to.is_empty()).then(|| to.to_string()),
                note,
                ..Overlay::default()
            };
            render_level(map, leg.level, &overlay, words)
        })
        .collect()
}

/// The floor of a section (an area) with it and the given stores' units filled.
pub fn area_picture(
    map: &IndoorMap,
    section: usize,
    store_units: &[usize],
    words: &MapWords,
) -> Result<FloorPicture, RenderError> {
    let s = &map.sections[section];
    let level = &map.levels[s.level];
    let title =
        format!("{} {} · {}", words.name(&level.short_name), words.name(&level.name), words.name(&s.name));
    let overlay = Overlay {
        title,
        area_units: store_units.to_vec(),
        area_sections: vec![section],
        ..Overlay::default()
    };
    render_level(map, s.level, &overlay, words)
}

/// Draws `level` with `overlay` and rasterises it.
pub fn render_level(
    map: &IndoorMap,
    level: usize,
    overlay: &Overlay,
    words: &MapWords,
) -> Result<FloorPicture, RenderError> {
    let floor = map.levels.get(level).ok_or(RenderError::NoLevel(level))?.floor;
    let (svg, frame) = level_svg(map, level, overlay, words);
    let png = rasterise(&svg)?;
    let (width, height) = frame.size();
    Ok(FloorPicture { floor, title: overlay.title.clone(), width, height, png, frame })
}

/// SVG text to PNG bytes.
pub fn rasterise(svg: &str) -> Result<Vec<u8>, RenderError> {
    let options = usvg::Options {
        fontdb: Arc::clone(&FONTS),
        font_family: FONT_FAMILY.to_owned(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or(RenderError::Empty)?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    encode_png(&pixmap).map_err(|e| RenderError::Png(e.to_string()))
}

/// The picture as an RGB PNG with fast compression: plans are opaque, and the
/// default compression takes several times longer than drawing them.
fn encode_png(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let rgb: Vec<u8> = pixmap.data().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let mut out = Vec::with_capacity(rgb.len() / 16);
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(out)
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Roughly how wide `text` is at font size 1: CJK glyphs are square, Latin about half.
fn text_width(text: &str) -> f64 {
    text.chars().map(|c| if c.is_ascii() || (c as u32) < 0x2e80 { 0.56 } else { 1.0 }).sum()
}

/// The largest label, in drawing pixels.
const LABEL_MAX: f64 = 20.0;
/// A label that would be smaller than this is left out: nobody reads it,
/// in a picture or zoomed in.
const LABEL_MIN: f64 = 5.0;
/// A label at least this big is read without zooming in a picture; below it
/// a shorter form of the name is tried.
const LABEL_READABLE: f64 = 9.0;

/// Words that say what kind of place a store is, left out of its short
/// label when the whole name does not fit ("Apple Store" → "Apple").
const GENERIC_ENDINGS: &[&str] = &[
    " Store",
    " Shop",
    " Boutique",
    " Flagship",
    " Hotpot",
    " Coffee",
    " Restaurant",
    "零售店",
    "专卖店",
    "專賣店",
    "旗舰店",
    "旗艦店",
    "之家",
    "火锅",
    "火鍋",
    "咖啡",
];

/// A name without the word that says what kind of place it is, when it has one.
fn short_form(name: &str) -> Option<&str> {
    GENERIC_ENDINGS.iter().find_map(|end| name.strip_suffix(end)).map(str::trim).filter(|s| !s.is_empty())
}

/// The label's lines and font size to fit a box `w` × `h` pixels (at most
/// [`LABEL_MAX`]; it may be too small to draw, see [`LABEL_MIN`]).
fn fit_label(text: &str, w: f64, h: f64) -> (Vec<String>, f64) {
    let one = vec![text.to_owned()];
    let size_one = (w * 0.9 / text_width(text)).min(h * 0.5);
    let words: Vec<&str> = text.split(' ').collect();
    if size_one >= LABEL_READABLE || words.len() < 2 {
        return (one, size_one.min(LABEL_MAX));
    }
    // Two lines, split where they are most even.
    let (mut best, mut best_size) = (one, size_one);
    for cut in 1..words.len() {
        let (a, b) = (words[..cut].join(" "), words[cut..].join(" "));
        let size = (w * 0.9 / text_width(&a).max(text_width(&b))).min(h * 0.3);
        if size > best_size {
            (best, best_size) = (vec![a, b], size);
        }
    }
    (best, best_size.min(LABEL_MAX))
}

/// A unit's label as placed: its lines, size, where it sits, and the box it
/// covers (left, top, right, bottom).
struct Label<'a> {
    store: Option<&'a str>,
    lines: Vec<String>,
    size: f64,
    centre: (f64, f64),
    bold: bool,
    rect: [f64; 4],
}

impl Label<'_> {
    fn overlaps(&self, other: &Label) -> bool {
        let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (self.rect, other.rect);
        a0 < b2 && b0 < a2 && a1 < b3 && b1 < a3
    }
}

/// The labels of `units`: each the whole name when it is readable in its
/// unit, else the short form when that is, else the larger of the two; none
/// too small to draw; and where two would overlap, the destination's or the
/// larger one alone.
fn place_labels<'a>(
    map: &'a IndoorMap,
    frame: &Frame,
    units: &[usize],
    overlay: &Overlay,
    words: &MapWords,
) -> Vec<Label<'a>> {
    let mut labels: Vec<Label> = Vec::new();
    for &u in units {
        let unit = &map.units[u];
        let store = map.places.iter().find(|p| p.unit == Some(u) && p.kind == PlaceKind::Store);
        let destination =
            overlay.destination_name.as_ref().filter(|_| overlay.destination_units.contains(&u));
        let text = match (destination, store, (words.unit_label)(unit.kind)) {
            (Some(name), _, _) => name.clone(),
            (None, Some(place), _) => words.name(&place.name).into_owned(),
            (None, None, Some(short)) => short.to_owned(),
            (None, None, None) => continue,
        };
        let (min, max) = unit.outline.bounds();
        let (bw, bh) = ((max.x - min.x) * SCALE, (max.y - min.y) * SCALE);
        let mut fitted = fit_label(&text, bw, bh);
        if let Some(short) = short_form(&text).filter(|_| fitted.1 < LABEL_READABLE) {
            let shorter = fit_label(short, bw, bh);
            if shorter.1 > fitted.1 {
                fitted = shorter;
            }
        }
        let (lines, size) = fitted;
        if size < LABEL_MIN {
            continue;
        }
        let centre = frame.pixel(unit.display_point);
        let width = lines.iter().map(|l| text_width(l)).fold(0.0, f64::max) * size;
        let height = lines.len() as f64 * size * 1.2;
        let rect = [
            centre.0 - width / 2.0,
            centre.1 - height / 2.0,
            centre.0 + width / 2.0,
            centre.1 + height / 2.0,
        ];
        let bold = overlay.destination_units.contains(&u);
        labels.push(Label { store: store.map(|p| p.id.as_str()), lines, size, centre, bold, rect });
    }
    labels.sort_by(|a, b| b.bold.cmp(&a.bold).then(b.size.total_cmp(&a.size)));
    let mut placed: Vec<Label> = Vec::with_capacity(labels.len());
    for label in labels {
        if !placed.iter().any(|p| p.overlaps(&label)) {
            placed.push(label);
        }
    }
    placed
}

/// One label: a group the Mini App shows or hides by its size at the zoom
/// it is seen at (`data-size`), and knows the store of (`data-store`).
fn draw_label(s: &mut String, label: &Label) {
    let _ = write!(s, r#"<g class="label" data-size="{:.1}""#, label.size);
    if let Some(store) = label.store {
        let _ = write!(s, r#" data-store="{}""#, escape(store));
    }
    s.push('>');
    let (cx, cy) = label.centre;
    let size = label.size;
    let top = cy - (label.lines.len() as f64 - 1.0) * size * 0.6 + size * 0.35;
    for (i, line) in label.lines.iter().enumerate() {
        let _ = write!(
            s,
            r##"<text x="{cx:.1}" y="{:.1}" font-size="{size:.1}" text-anchor="middle" fill="{}"{}>{}</text>"##,
            top + i as f64 * size * 1.2,
            if label.bold { "#ffffff" } else { "#37474f" },
            if label.bold { r#" font-weight="bold""# } else { "" },
            escape(line)
        );
    }
    s.push_str("</g>");
}

fn fill_of(kind: UnitKind) -> &'static str {
    match kind {
        UnitKind::Walkway => "#ffffff",
        UnitKind::Escalator => "#b3e5fc",
        UnitKind::Elevator => "#c5cae9",
        UnitKind::Stairs => "#d7ccc8",
        UnitKind::Restroom => "#e0f2f1",
        UnitKind::Room => "#f5f1e8",
        UnitKind::Closed => "#cfd8dc",
    }
}

fn path_data(frame: &Frame, rings: &[Vec<Point>]) -> String {
    let mut d = String::new();
    for ring in rings {
        for (i, p) in ring.iter().enumerate() {
            let (x, y) = frame.pixel(*p);
            let _ = write!(d, "{}{x:.1},{y:.1}", if i == 0 { "M" } else { "L" });
        }
        d.push('Z');
    }
    d
}

/// The SVG of one level with the overlay, and where the plan sits in it.
pub fn level_svg(map: &IndoorMap, level: usize, overlay: &Overlay, words: &MapWords) -> (String, Frame) {
    let frame = Frame::of_level(map, level);
    let (w, h) = frame.size();
    let mut s = String::with_capacity(32 * 1024);
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT_FAMILY}">"##
    );
    let _ = write!(s, r##"<rect width="{w}" height="{h}" fill="#eceff1"/>"##);
    // Title bar.
    let _ = write!(
        s,
        r##"<rect width="{w}" height="{TITLE_H}" fill="#263238"/><text x="{PAD}" y="29" font-size="18" fill="#ffffff">{}</text>"##,
        escape(&overlay.title)
    );
    // Areas shown.
    for &sec in &overlay.area_sections {
        if let Some(section) = map.sections.get(sec) {
            let _ = write!(
                s,
                r##"<path d="{}" fill="{}" fill-opacity="0.35" stroke="{}" stroke-width="2" stroke-dasharray="6 4"/>"##,
                path_data(&frame, &section.outline.rings),
                hex(AREA_COLOUR),
                hex(AREA_COLOUR)
            );
        }
    }
    // Units: walkways first, so rooms' outlines sit on top.
    let mut units: Vec<usize> = (0..map.units.len()).filter(|&u| map.units[u].level == level).collect();
    units.sort_by_key(|&u| map.units[u].kind != UnitKind::Walkway);
    for &u in &units {
        let unit = &map.units[u];
        let fill = if overlay.destination_units.contains(&u) {
            hex(DESTINATION_COLOUR)
        } else if overlay.area_units.contains(&u) {
            hex(AREA_COLOUR)
        } else {
            fill_of(unit.kind).to_owned()
        };
        let stroke = if unit.kind == UnitKind::Walkway { "#cfd8dc" } else { "#78909c" };
        let _ = write!(
            s,
            r##"<path d="{}" fill="{fill}" fill-rule="evenodd" stroke="{stroke}" stroke-width="1.2"/>"##,
            path_data(&frame, &unit.outline.rings)
        );
    }
    // Labels: a store's name, else what the unit is.
    for label in place_labels(map, &frame, &units, overlay, words) {
        draw_label(&mut s, &label);
    }
    // Entrances on this level.
    for place in map.entrances().filter(|p| p.level == level) {
        let (x, y) = frame.pixel(place.point);
        let _ = write!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="#455a64"/><text x="{:.1}" y="{:.1}" font-size="10" fill="#263238">{}</text>"##,
            x - 6.0,
            y - 6.0,
            x + 9.0,
            y - 8.0,
            escape(&words.name(&place.name))
        );
    }
    draw_facilities(&mut s, &frame, map, level);
    draw_route(&mut s, &frame, overlay);
    draw_legend(&mut s, w, h, words);
    draw_north_arrow(&mut s, w, words);
    s.push_str("</svg>");
    (s, frame)
}

/// Kinds whose units are drawn and labelled as such: no badge for them.
pub const UNBADGED: &[&str] = &["elevator", "escalator", "stairs"];

/// Where a facility's badge goes, in pixels: at the facility when it
/// stands in a walkway, else above its unit's label.
pub fn facility_badge_at(frame: &Frame, map: &IndoorMap, place: &crate::Place) -> (f64, f64) {
    let (x, y) = frame.pixel(place.point);
    let in_room = place.unit.is_some_and(|u| map.units[u].kind != UnitKind::Walkway);
    if in_room { (x, y - 16.0) } else { (x, y) }
}

/// The facilities of `level` (restrooms, nursing rooms, ATMs…) as round
/// badges with their letters, one per kind and unit.
fn draw_facilities(s: &mut String, frame: &Frame, map: &IndoorMap, level: usize) {
    let mut drawn: Vec<(Option<usize>, &str)> = Vec::new();
    for place in map.places.iter().filter(|p| p.level == level) {
        let Some(kind) = facility::kind_of(place) else { continue };
        if UNBADGED.contains(&kind.key) || drawn.contains(&(place.unit, kind.badge)) {
            continue;
        }
        drawn.push((place.unit, kind.badge));
        let (x, y) = facility_badge_at(frame, map, place);
        let size = if kind.badge.len() > 2 { 7.0 } else { 9.0 };
        let _ = write!(
            s,
            r##"<g class="facility" data-kind="{}"><circle cx="{x:.1}" cy="{y:.1}" r="9" fill="{}" stroke="#ffffff" stroke-width="1.5"/><text x="{x:.1}" y="{:.1}" font-size="{size}" font-weight="bold" text-anchor="middle" fill="#ffffff">{}</text></g>"##,
            kind.key,
            hex(kind.colour),
            y + size * 0.36,
            escape(kind.badge)
        );
    }
}

fn draw_route(s: &mut String, frame: &Frame, overlay: &Overlay) {
    let colour = hex(ROUTE_COLOUR);
    let pixels: Vec<(f64, f64)> = overlay.route.iter().map(|p| frame.pixel(*p)).collect();
    if pixels.len() >= 2 {
        let mut d = String::new();
        for (i, (x, y)) in pixels.iter().enumerate() {
            let _ = write!(d, "{}{x:.1},{y:.1}", if i == 0 { "M" } else { "L" });
        }
        let _ = write!(
            s,
            r##"<path d="{d}" fill="none" stroke="#ffffff" stroke-width="9" stroke-linejoin="round" stroke-linecap="round"/><path d="{d}" fill="none" stroke="{colour}" stroke-width="5" stroke-linejoin="round" stroke-linecap="round"/>"##
        );
        // Direction arrows at even spacing along the line.
        let mut carried = ARROW_EVERY_PX / 2.0;
        for pair in pixels.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            let len = (x1 - x0).hypot(y1 - y0);
            if len == 0.0 {
                continue;
            }
            let (ux, uy) = ((x1 - x0) / len, (y1 - y0) / len);
            let mut at = ARROW_EVERY_PX - carried;
            while at < len {
                let (ax, ay) = (x0 + ux * at, y0 + uy * at);
                let (tip, back, side) = (8.0, 6.0, 6.0);
                let _ = write!(
                    s,
                    r##"<path d="M{:.1},{:.1}L{:.1},{:.1}L{:.1},{:.1}Z" fill="{colour}" stroke="#ffffff" stroke-width="1"/>"##,
                    ax + ux * tip,
                    ay + uy * tip,
                    ax - ux * back - uy * side,
                    ay - uy * back + ux * side,
                    ax - ux * back + uy * side,
                    ay - uy * back - ux * side,
                );
                at += ARROW_EVERY_PX;
            }
            carried = len - (at - ARROW_EVERY_PX);
        }
    }
    if let Some(start) = overlay.start {
        let (x, y) = frame.pixel(start);
        let _ = write!(
            s,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="8" fill="{}" stroke="#ffffff" stroke-width="2.5"/>"##,
            hex(START_COLOUR)
        );
    }
    if let Some((at, text)) = &overlay.note {
        let (x, y) = frame.pixel(*at);
        let width = text_width(text) * 13.0 + 12.0;
        let _ = write!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="{width:.1}" height="22" rx="4" fill="{colour}"/><text x="{:.1}" y="{:.1}" font-size="13" fill="#ffffff">{}</text>"##,
            x + 10.0,
            y - 30.0,
            x + 16.0,
            y - 14.0,
            escape(text)
        );
    }
}

fn draw_legend(s: &mut String, w: u32, h: u32, words: &MapWords) {
    let y = f64::from(h) - LEGEND_H + 8.0;
    let _ = write!(s, r##"<rect x="0" y="{:.1}" width="{w}" height="{LEGEND_H}" fill="#ffffff"/>"##, y - 8.0);
    let keys = ["route", "start", "destination", "escalator", "elevator", "stairs", "restroom"];
    let entries = keys.into_iter().zip(words.legend);
    let mut x = PAD;
    let cy = y + 20.0;
    for (key, label) in entries {
        match key {
            "route" => {
                let _ = write!(
                    s,
                    r##"<path d="M{x:.1},{cy:.1}h22" stroke="{}" stroke-width="5" stroke-linecap="round"/>"##,
                    hex(ROUTE_COLOUR)
                );
            }
            "start" => {
                let _ = write!(
                    s,
                    r##"<circle cx="{:.1}" cy="{cy:.1}" r="7" fill="{}"/>"##,
                    x + 11.0,
                    hex(START_COLOUR)
                );
            }
            other => {
                let fill = match other {
                    "destination" => hex(DESTINATION_COLOUR),
                    "escalator" => fill_of(UnitKind::Escalator).to_owned(),
                    "elevator" => fill_of(UnitKind::Elevator).to_owned(),
                    "stairs" => fill_of(UnitKind::Stairs).to_owned(),
                    _ => fill_of(UnitKind::Restroom).to_owned(),
                };
                let _ = write!(
                    s,
                    r##"<rect x="{x:.1}" y="{:.1}" width="22" height="16" fill="{fill}" stroke="#78909c"/>"##,
                    cy - 8.0
                );
            }
        }
        let text = label;
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="13" fill="#37474f">{}</text>"##,
            x + 28.0,
            cy + 5.0,
            escape(text)
        );
        x += 28.0 + text_width(text) * 13.0 + 18.0;
    }
}

fn draw_north_arrow(s: &mut String, w: u32, words: &MapWords) {
    let x = f64::from(w) - PAD - 18.0;
    let y = TITLE_H + PAD + 8.0;
    let letter = words.north;
    let _ = write!(
        s,
        r##"<circle cx="{x:.1}" cy="{:.1}" r="20" fill="#ffffff" stroke="#78909c"/><path d="M{x:.1},{:.1}L{:.1},{:.1}L{x:.1},{:.1}L{:.1},{:.1}Z" fill="#c62828"/><text x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#263238">{letter}</text>"##,
        y + 16.0,
        y + 2.0,
        x + 6.0,
        y + 22.0,
        y + 17.0,
        x - 6.0,
        y + 22.0,
        y + 32.0,
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn short_forms_leave_out_what_kind_of_place_it_is() {
        assert_eq!(short_form("Apple Store"), Some("Apple"));
        assert_eq!(short_form("Apple 零售店"), Some("Apple"));
        assert_eq!(short_form("小米之家"), Some("小米"));
        assert_eq!(short_form("Haidilao Hotpot"), Some("Haidilao"));
        assert_eq!(short_form("Perfect Diary"), None);
        assert_eq!(short_form("咖啡"), None, "never an empty label");
    }

    #[test]
    fn every_floor_of_the_demo_has_labels_that_fit_and_never_overlap() {
        let router = crate::demo::router();
        let map = router.map();
        for words in [&MapWords::CHINESE, &MapWords::ENGLISH] {
            for level in 0..map.levels.len() {
                let frame = Frame::of_level(map, level);
                let units: Vec<usize> =
                    (0..map.units.len()).filter(|&u| map.units[u].level == level).collect();
                let labels = place_labels(map, &frame, &units, &Overlay::default(), words);
                assert!(!labels.is_empty(), "level {level} has labels");
                for (i, a) in labels.iter().enumerate() {
                    assert!((LABEL_MIN..=LABEL_MAX).contains(&a.size), "{:?} at {}", a.lines, a.size);
                    for b in &labels[i + 1..] {
                        assert!(!a.overlaps(b), "{:?} and {:?} overlap on level {level}", a.lines, b.lines);
                    }
                }
            }
        }
    }
}

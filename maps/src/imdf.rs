//! Reading an IMDF archive (a folder or a .zip of GeoJSON files) into an
//! [`IndoorMap`], checking everything routing and drawing rely on.
//!
//! Read: `manifest.json`, `venue`, `level`, `unit`, `opening` (required);
//! `amenity`, `anchor`, `occupant`, `section`, `relationship` (optional).
//! Other IMDF files are allowed and ignored. Occupants, sections and
//! entrance openings may carry a `ref` property: the mall's own id for them
//! (a store id, an area id, `main_entrance`), which is how the bot links the
//! map to its catalog; without it they are found by name.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Labels;
use crate::geo::{Point, Polygon, Projection};
use crate::unit::UnitKind;

/// Why an archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum ImdfError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A .zip file that is not a readable zip archive.
    #[error("{path} is not a readable zip archive: {source}")]
    Zip { path: String, source: zip::result::ZipError },
    /// A required file is missing.
    #[error("the IMDF archive has no {file}")]
    MissingFile { file: &'static str },
    /// A file is not a GeoJSON feature collection.
    #[error("{file}: {problem}")]
    BadFile { file: String, problem: String },
    /// A feature is missing something the bot relies on, or points at a feature that does not exist.
    #[error("{file}: feature {feature}: {problem}")]
    BadFeature { file: String, feature: String, problem: String },
}

/// One level (floor) of the venue.
#[derive(Debug, Clone)]
pub struct Level {
    pub id: String,
    /// IMDF ordinal: 0 is the ground floor, -1 the first basement.
    pub ordinal: i32,
    /// The floor number the mall uses: 1 for the ground floor, -1 for B1 (there is no 0).
    pub floor: i32,
    pub name: Labels,
    /// How the floor is signed (`B1`, `2F`).
    pub short_name: Labels,
}

/// A unit: a room, a corridor, an escalator…
#[derive(Debug, Clone)]
pub struct Unit {
    pub id: String,
    /// Index into [`IndoorMap::levels`].
    pub level: usize,
    pub category: String,
    pub kind: UnitKind,
    pub name: Option<Labels>,
    /// Its other name (IMDF `alt_name`): often the unit number shoppers see.
    pub alt_name: Option<Labels>,
    pub outline: Polygon,
    /// Where its label goes.
    pub display_point: Point,
}

/// A way between units, or in from outside.
#[derive(Debug, Clone)]
pub struct Opening {
    pub id: String,
    pub level: usize,
    pub category: String,
    pub name: Option<Labels>,
    pub reference: Option<String>,
    pub from: Point,
    pub to: Point,
    /// Indexes into [`IndoorMap::units`] of the units it opens onto.
    pub units: Vec<usize>,
}

impl Opening {
    /// Its middle, where routes pass through.
    pub fn middle(&self) -> Point {
        self.from.midpoint(self.to)
    }

    /// Whether it is a way in from outside the building.
    pub fn is_entrance(&self) -> bool {
        self.units.len() == 1 && (self.name.is_some() || self.category.starts_with("pedestrian.principal"))
    }
}

/// What kind of place a shopper can ask for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlaceKind {
    /// An occupant: a store or restaurant.
    Store,
    /// A way in from outside.
    Entrance,
    /// An amenity (restrooms, lifts…), with its IMDF category.
    Amenity(String),
}

/// A named place routes start or end at.
#[derive(Debug, Clone)]
pub struct Place {
    /// The mall's id for it (`ref`), else its IMDF feature id.
    pub id: String,
    pub kind: PlaceKind,
    pub name: Labels,
    pub level: usize,
    /// The unit it is in (entrances have none).
    pub unit: Option<usize>,
    /// The opening it is (entrances only).
    pub opening: Option<usize>,
    pub point: Point,
}

/// A store of the mall's directory as the map is searched for it: its id (the
/// occupant's `ref`), its unit number and its names.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreTie<'a> {
    pub id: &'a str,
    /// The unit number shoppers see (`1F-08`); empty when unknown.
    pub unit: &'a str,
    pub name: &'a str,
    pub name_en: &'a str,
}

/// A named part of a level (an area of the mall).
#[derive(Debug, Clone)]
pub struct Section {
    /// The mall's id for it (`ref`), else its IMDF feature id.
    pub id: String,
    pub name: Labels,
    pub level: usize,
    pub outline: Polygon,
}

/// A ride or climb between two units on different levels.
#[derive(Debug, Clone)]
pub struct Connection {
    pub kind: UnitKind,
    pub from_unit: usize,
    pub to_unit: usize,
}

/// A venue's indoor map, in metres.
#[derive(Debug, Clone)]
pub struct IndoorMap {
    pub name: Labels,
    /// Lowest first.
    pub levels: Vec<Level>,
    pub units: Vec<Unit>,
    pub openings: Vec<Opening>,
    pub places: Vec<Place>,
    pub sections: Vec<Section>,
    pub connections: Vec<Connection>,
}

/// How far (metres) an opening may lie from a unit's edge and still open onto it.
const OPENING_TOLERANCE_M: f64 = 0.5;

impl IndoorMap {
    /// Reads the archive at `path`: a folder of IMDF files, or a .zip of them.
    pub fn open(path: impl AsRef<Path>) -> Result<IndoorMap, ImdfError> {
        let path = path.as_ref();
        let io = |source| ImdfError::Io { path: path.to_owned(), source };
        if path.is_dir() {
            let mut files = HashMap::new();
            for entry in std::fs::read_dir(path).map_err(io)? {
                let entry = entry.map_err(io)?;
                let name = entry.file_name().to_string_lossy().into_owned();
                // A link is not followed: what it points to may be outside the map's folder.
                let file_type = entry.file_type().map_err(io)?;
                if file_type.is_file() && (name.ends_with(".geojson") || name == "manifest.json") {
                    let file = entry.path();
                    let text = std::fs::read_to_string(&file)
                        .map_err(|source| ImdfError::Io { path: file, source })?;
                    files.insert(name, text);
                }
            }
            IndoorMap::from_files(&files)
        } else {
            let bytes = std::fs::read(path).map_err(io)?;
            IndoorMap::from_zip(&bytes, &path.display().to_string())
        }
    }

    /// Reads a .zip archive held in memory; `label` names it in errors.
    pub fn from_zip(bytes: &[u8], label: &str) -> Result<IndoorMap, ImdfError> {
        let zip_error = |source| ImdfError::Zip { path: label.to_owned(), source };
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(zip_error)?;
        let mut files = HashMap::new();
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(zip_error)?;
            let full = entry.name().map_err(zip_error)?.into_owned();
            let name = full.rsplit('/').next().unwrap_or_default().to_owned();
            if name.ends_with(".geojson") || name == "manifest.json" {
                let mut text = String::new();
                entry.read_to_string(&mut text).map_err(|source| ImdfError::Io {
                    path: PathBuf::from(format!("{label}!{full}")),
                    source,
                })?;
                files.insert(name, text);
            }
        }
        IndoorMap::from_files(&files)
    }

    /// Reads an archive from its files' names (`unit.geojson`) and contents.
    pub fn from_files<S: AsRef<str>>(files: &HashMap<String, S>) -> Result<IndoorMap, ImdfError> {
        Reader::new(files)?.read()
    }

    /// The place with that id, else that name (either language, any case),
    /// else the first whose name contains the text or is contained in it.
    pub fn find_place(&self, wanted: &str) -> Option<&Place> {
        let wanted = wanted.trim().to_lowercase();
        if wanted.is_empty() {
            return None;
        }
        let names = |p: &Place| [p.name.zh.to_lowercase(), p.name.en.to_lowercase()];
        self.places.iter().find(|p| p.id.to_lowercase() == wanted || names(p).contains(&wanted)).or_else(
            || {
                self.places.iter().find(|p| {
                    names(p)
                        .iter()
                        .any(|n| !n.is_empty() && (n.contains(&wanted) || wanted.contains(n.as_str())))
                })
            },
        )
    }

    /// Where a store of the mall's directory is on the map, named as the
    /// directory names it (the directory is the truth for names, the map
    /// for geometry): the occupant whose `ref` is the store's id, else the
    /// unit whose name or `alt_name` is the store's unit number (`1F-08`:
    /// a new tenant in an existing unit needs no edit of the map), else
    /// the occupant named as the store. `None` when the map has none of these.
    pub fn store_place(&self, store: &StoreTie<'_>) -> Option<Place> {
        let is_store = |p: &&Place| p.kind == PlaceKind::Store;
        let by_ref = || self.places.iter().filter(is_store).find(|p| p.id == store.id).cloned();
        let by_unit = || {
            let unit = self.unit_numbered(store.unit)?;
            let u = &self.units[unit];
            Some(Place {
                id: store.id.to_owned(),
                kind: PlaceKind::Store,
                name: Labels::default(),
                level: u.level,
                unit: Some(unit),
                opening: None,
                point: u.display_point,
            })
        };
        let by_name = || {
            self.places
                .iter()
                .filter(is_store)
                .find(|p| {
                    (!store.name.is_empty() && p.name.zh == store.name)
                        || (!store.name_en.is_empty() && p.name.en == store.name_en)
                })
                .cloned()
        };
        let mut place = by_ref().or_else(by_unit).or_else(by_name)?;
        let en = if store.name_en.is_empty() { store.name } else { store.name_en };
        place.name = Labels::new(store.name, en);
        Some(place)
    }

    /// The unit a unit number names (`1F-08`, `1f 08`): its `name` or `alt_name` in either
    /// language, in any case, spaces, dashes and dots aside; rooms only, not corridors.
    pub fn unit_numbered(&self, number: &str) -> Option<usize> {
        let key = |s: &str| {
            s.to_lowercase()
                .chars()
                .filter(|c| !c.is_whitespace() && !"-_.－—".contains(*c))
                .collect::<String>()
        };
        let wanted = key(number);
        if wanted.is_empty() {
            return None;
        }
        self.units.iter().position(|u| {
            u.kind == UnitKind::Room
                && [&u.name, &u.alt_name]
                    .into_iter()
                    .flatten()
                    .any(|l| key(&l.zh) == wanted || key(&l.en) == wanted)
        })
    }

    /// The entrances, in archive order.
    pub fn entrances(&self) -> impl Iterator<Item = &Place> {
        self.places.iter().filter(|p| p.kind == PlaceKind::Entrance)
    }

    /// Where a walk starts when the shopper says only which floor they are
    /// on: the escalators of that floor (else its lift, else its first
    /// walkway), named after the floor. `floor` is the mall's floor number
    /// (1 = ground, -1 = B1).
    pub fn floor_start(&self, floor: i32) -> Option<Place> {
        let level = self.levels.iter().position(|l| l.floor == floor)?;
        let on_level = |kind: UnitKind| self.units.iter().position(|u| u.level == level && u.kind == kind);
        let unit = on_level(UnitKind::Escalator)
            .or_else(|| on_level(UnitKind::Elevator))
            .or_else(|| on_level(UnitKind::Walkway))?;
        let u = &self.units[unit];
        let sign = &self.levels[level].short_name;
        let name = match &u.name {
            Some(n) => Labels::new(format!("{} {}", sign.zh, n.zh), format!("{} {}", sign.en, n.en)),
            None => sign.clone(),
        };
        Some(Place {
            id: format!("floor:{floor}"),
            kind: PlaceKind::Amenity(u.category.clone()),
            name,
            level,
            unit: Some(unit),
            opening: None,
            point: u.display_point,
        })
    }

    /// The section with that id or name.
    pub fn find_section(&self, wanted: &str) -> Option<&Section> {
        let wanted = wanted.trim().to_lowercase();
        self.sections.iter().find(|s| {
            s.id.to_lowercase() == wanted
                || s.name.zh.to_lowercase() == wanted
                || s.name.en.to_lowercase() == wanted
        })
    }
}

/// One GeoJSON file's features, and where problems are reported.
struct FeatureFile<'a> {
    file: String,
    features: Vec<&'a Value>,
}

struct Reader<'a> {
    files: HashMap<&'a str, Value>,
    projection: Projection,
}

fn bad(file: &str, feature: &str, problem: impl Into<String>) -> ImdfError {
    ImdfError::BadFeature { file: file.to_owned(), feature: feature.to_owned(), problem: problem.into() }
}

impl<'a> Reader<'a> {
    fn new<S: AsRef<str>>(files: &'a HashMap<String, S>) -> Result<Reader<'a>, ImdfError> {
        let mut parsed = HashMap::new();
        for (name, text) in files {
            let value: Value = serde_json::from_str(text.as_ref())
                .map_err(|e| ImdfError::BadFile { file: name.clone(), problem: format!("not JSON: {e}") })?;
            parsed.insert(name.as_str(), value);
        }
        if !parsed.contains_key("manifest.json") {
            return Err(ImdfError::MissingFile { file: "manifest.json" });
        }
        let mut reader = Reader { files: parsed, projection: Projection::centred_on(0.0, 0.0) };
        let venue = reader.features("venue.geojson")?;
        let first = venue.features.first().ok_or_else(|| ImdfError::BadFile {
            file: venue.file.clone(),
            problem: "has no venue feature".into(),
        })?;
        let id = feature_id(&venue.file, first, 0)?;
        let display = first
            .pointer("/properties/display_point/coordinates")
            .and_then(lon_lat)
            .or_else(|| first.pointer("/geometry/coordinates/0/0").and_then(lon_lat))
            .ok_or_else(|| {
                bad(&venue.file, &id, "has no display_point and no polygon to centre the map on")
            })?;
        reader.projection = Projection::centred_on(display.0, display.1);
        Ok(reader)
    }

    /// The features of a required (`required`) or optional file.
    fn features_of(&self, name: &'static str, required: bool) -> Result<FeatureFile<'_>, ImdfError> {
        let Some(value) = self.files.get(name) else {
            return if required {
                Err(ImdfError::MissingFile { file: name })
            } else {
                Ok(FeatureFile { file: name.to_owned(), features: vec![] })
            };
        };
        if value.get("type").and_then(Value::as_str) != Some("FeatureCollection") {
            return Err(ImdfError::BadFile {
                file: name.to_owned(),
                problem: "is not a GeoJSON FeatureCollection".into(),
            });
        }
        let features = value.get("features").and_then(Value::as_array).ok_or_else(|| ImdfError::BadFile {
            file: name.to_owned(),
            problem: "has no \"features\" array".into(),
        })?;
        Ok(FeatureFile { file: name.to_owned(), features: features.iter().collect() })
    }

    fn features(&self, name: &'static str) -> Result<FeatureFile<'_>, ImdfError> {
        self.features_of(name, true)
    }

    fn optional(&self, name: &'static str) -> Result<FeatureFile<'_>, ImdfError> {
        self.features_of(name, false)
    }

    fn point(&self, file: &str, id: &str, value: Option<&Value>, what: &str) -> Result<Point, ImdfError> {
        let (lon, lat) = value
            .and_then(lon_lat)
            .ok_or_else(|| bad(file, id, format!("{what} is not a [longitude, latitude] point")))?;
        Ok(self.projection.to_metres(lon, lat))
    }

    fn polygon(&self, file: &str, id: &str, feature: &Value) -> Result<Polygon, ImdfError> {
        let geometry = feature
            .get("geometry")
            .filter(|g| !g.is_null())
            .ok_or_else(|| bad(file, id, "has no geometry"))?;
        let coordinates = match geometry.get("type").and_then(Value::as_str) {
            Some("Polygon") => geometry.get("coordinates"),
            // The first polygon of a multipolygon is the one drawn and walked.
            Some("MultiPolygon") => geometry.pointer("/coordinates/0"),
            other => {
                return Err(bad(
                    file,
                    id,
                    format!("geometry must be a Polygon, not {}", other.unwrap_or("nothing")),
                ));
            }
        };
        let rings =
            coordinates.and_then(Value::as_array).ok_or_else(|| bad(file, id, "polygon has no rings"))?;
        let mut out = Vec::new();
        for ring in rings {
            let points = ring.as_array().ok_or_else(|| bad(file, id, "a polygon ring is not an array"))?;
            let mut ring: Vec<Point> = Vec::with_capacity(points.len());
            for p in points {
                ring.push(self.point(file, id, Some(p), "a polygon vertex")?);
            }
            if ring.len() > 1 && ring.first() == ring.last() {
                ring.pop();
            }
            if ring.len() < 3 {
                return Err(bad(file, id, "a polygon ring has fewer than 3 distinct points"));
            }
            out.push(ring);
        }
        if out.is_empty() {
            return Err(bad(file, id, "polygon has no rings"));
        }
        Ok(Polygon { rings: out })
    }

    fn read(self) -> Result<IndoorMap, ImdfError> {
        let venue = self.features("venue.geojson")?;
        let venue_name = labels(venue.features[0].pointer("/properties/name")).unwrap_or_default();

        // Levels, lowest first.
        let file = self.features("level.geojson")?;
        let mut levels = Vec::new();
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let ordinal = f
                .pointer("/properties/ordinal")
                .and_then(Value::as_i64)
                .and_then(|o| i32::try_from(o).ok())
                .ok_or_else(|| bad(&file.file, &id, "has no integer \"ordinal\""))?;
            let name =
                labels(f.pointer("/properties/name")).ok_or_else(|| bad(&file.file, &id, "has no name"))?;
            let short_name = labels(f.pointer("/properties/short_name")).unwrap_or_else(|| name.clone());
            let floor = if ordinal >= 0 { ordinal + 1 } else { ordinal };
            levels.push(Level { id, ordinal, floor, name, short_name });
        }
        if levels.is_empty() {
            return Err(ImdfError::BadFile { file: file.file, problem: "has no levels".into() });
        }
        levels.sort_by_key(|l| l.ordinal);
        let level_index: HashMap<&str, usize> =
            levels.iter().enumerate().map(|(i, l)| (l.id.as_str(), i)).collect();
        let level_of = |file: &str, id: &str, f: &Value| -> Result<usize, ImdfError> {
            let level_id = f
                .pointer("/properties/level_id")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(file, id, "has no level_id"))?;
            level_index
                .get(level_id)
                .copied()
                .ok_or_else(|| bad(file, id, format!("level_id {level_id} is not a level in level.geojson")))
        };

        // Units.
        let file = self.features("unit.geojson")?;
        let mut units = Vec::new();
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let category = string(f, "category").ok_or_else(|| bad(&file.file, &id, "has no category"))?;
            let level = level_of(&file.file, &id, f)?;
            let outline = self.polygon(&file.file, &id, f)?;
            let display_point = match f.pointer("/properties/display_point/coordinates") {
                Some(p) => self.point(&file.file, &id, Some(p), "display_point")?,
                None => {
                    let (min, max) = outline.bounds();
                    min.midpoint(max)
                }
            };
            let kind = UnitKind::of(&category);
            units.push(Unit {
                id,
                level,
                category,
                kind,
                name: labels(f.pointer("/properties/name")),
                alt_name: labels(f.pointer("/properties/alt_name")),
                outline,
                display_point,
            });
        }
        let unit_index: HashMap<&str, usize> =
            units.iter().enumerate().map(|(i, u)| (u.id.as_str(), i)).collect();

        // Openings, and the units each opens onto.
        let file = self.features("opening.geojson")?;
        let mut openings = Vec::new();
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let category = string(f, "category").ok_or_else(|| bad(&file.file, &id, "has no category"))?;
            let level = level_of(&file.file, &id, f)?;
            if f.pointer("/geometry/type").and_then(Value::as_str) != Some("LineString") {
                return Err(bad(&file.file, &id, "geometry must be a LineString"));
            }
            let line = f
                .pointer("/geometry/coordinates")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let [first, .., last] = line else {
                return Err(bad(&file.file, &id, "a LineString needs two points"));
            };
            let from = self.point(&file.file, &id, Some(first), "the opening's first point")?;
            let to = self.point(&file.file, &id, Some(last), "the opening's last point")?;
            let middle = from.midpoint(to);
            let touching: Vec<usize> = units
                .iter()
                .enumerate()
                .filter(|(_, u)| u.level == level && u.kind != UnitKind::Closed)
                .filter(|(_, u)| u.outline.boundary_distance(middle) <= OPENING_TOLERANCE_M)
                .map(|(j, _)| j)
                .collect();
            if touching.is_empty() {
                return Err(bad(&file.file, &id, "lies on the edge of no unit of its level"));
            }
            let name = labels(f.pointer("/properties/name"));
            let reference = string(f, "ref");
            openings.push(Opening { id, level, category, name, reference, from, to, units: touching });
        }

        // Anchors: which unit an occupant is in.
        let file = self.optional("anchor.geojson")?;
        let mut anchors: HashMap<String, (usize, Point)> = HashMap::new();
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let unit_id = f
                .pointer("/properties/unit_id")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&file.file, &id, "has no unit_id"))?;
            let unit = *unit_index.get(unit_id).ok_or_else(|| {
                bad(&file.file, &id, format!("unit_id {unit_id} is not a unit in unit.geojson"))
            })?;
            let point =
                self.point(&file.file, &id, f.pointer("/geometry/coordinates"), "the anchor's geometry")?;
            anchors.insert(id, (unit, point));
        }

        let mut places = Vec::new();
        // Occupants: the stores.
        let file = self.optional("occupant.geojson")?;
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let name =
                labels(f.pointer("/properties/name")).ok_or_else(|| bad(&file.file, &id, "has no name"))?;
            let anchor_id = f
                .pointer("/properties/anchor_id")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&file.file, &id, "has no anchor_id"))?;
            let (unit, _) = *anchors.get(anchor_id).ok_or_else(|| {
                bad(&file.file, &id, format!("anchor_id {anchor_id} is not an anchor in anchor.geojson"))
            })?;
            let u = &units[unit];
            places.push(Place {
                id: string(f, "ref").unwrap_or(id),
                kind: PlaceKind::Store,
                name,
                level: u.level,
                unit: Some(unit),
                opening: None,
                point: u.display_point,
            });
        }
        // Entrances.
        for (i, o) in openings.iter().enumerate() {
            if o.is_entrance() {
                places.push(Place {
                    id: o.reference.clone().unwrap_or_else(|| o.id.clone()),
                    kind: PlaceKind::Entrance,
                    name: o.name.clone().unwrap_or_else(|| Labels::new("入口", "Entrance")),
                    level: o.level,
                    unit: None,
                    opening: Some(i),
                    point: o.middle(),
                });
            }
        }
        // Amenities that sit in a unit shoppers can walk to.
        let file = self.optional("amenity.geojson")?;
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let category = string(f, "category").ok_or_else(|| bad(&file.file, &id, "has no category"))?;
            let unit_ids = f
                .pointer("/properties/unit_ids")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(&file.file, &id, "has no unit_ids"))?;
            let Some(unit_id) = unit_ids.first().and_then(Value::as_str) else { continue };
            let unit = *unit_index.get(unit_id).ok_or_else(|| {
                bad(&file.file, &id, format!("unit_ids: {unit_id} is not a unit in unit.geojson"))
            })?;
            let u = &units[unit];
            let name = labels(f.pointer("/properties/name"))
                .or_else(|| u.name.clone())
                .unwrap_or_else(|| Labels::new(category.clone(), category.clone()));
            // Where it stands: its own point when it has one inside its unit
            // (an ATM along a corridor), else the unit's centre.
            let point = match f.pointer("/geometry/coordinates") {
                Some(p) if f.pointer("/geometry/type").and_then(Value::as_str) == Some("Point") => {
                    let at = self.point(&file.file, &id, Some(p), "the amenity's point")?;
                    if u.outline.contains(at) { at } else { u.display_point }
                }
                _ => u.display_point,
            };
            places.push(Place {
                id: string(f, "ref").unwrap_or(id),
                kind: PlaceKind::Amenity(category),
                name,
                level: u.level,
                unit: Some(unit),
                opening: None,
                point,
            });
        }

        // Sections: areas of the mall.
        let file = self.optional("section.geojson")?;
        let mut sections = Vec::new();
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let level = level_of(&file.file, &id, f)?;
            let outline = self.polygon(&file.file, &id, f)?;
            let name =
                labels(f.pointer("/properties/name")).ok_or_else(|| bad(&file.file, &id, "has no name"))?;
            sections.push(Section { id: string(f, "ref").unwrap_or(id), name, level, outline });
        }

        // Vertical connections.
        let file = self.optional("relationship.geojson")?;
        let mut connections = Vec::new();
        for (i, f) in file.features.iter().enumerate() {
            let id = feature_id(&file.file, f, i)?;
            let category = string(f, "category").ok_or_else(|| bad(&file.file, &id, "has no category"))?;
            let kind = match category.as_str() {
                "escalator" => UnitKind::Escalator,
                "elevator" => UnitKind::Elevator,
                "stairs" | "stairwell" => UnitKind::Stairs,
                _ => continue,
            };
            let end = |key: &str| -> Result<usize, ImdfError> {
                let reference = f
                    .pointer(&format!("/properties/{key}/id"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(&file.file, &id, format!("has no {key}")))?;
                unit_index.get(reference).copied().ok_or_else(|| {
                    bad(&file.file, &id, format!("{key} {reference} is not a unit in unit.geojson"))
                })
            };
            let (from_unit, to_unit) = (end("origin")?, end("destination")?);
            if units[from_unit].level == units[to_unit].level {
                return Err(bad(&file.file, &id, "joins two units on the same level"));
            }
            connections.push(Connection { kind, from_unit, to_unit });
        }

        Ok(IndoorMap { name: venue_name, levels, units, openings, places, sections, connections })
    }
}

fn feature_id(file: &str, f: &Value, index: usize) -> Result<String, ImdfError> {
    f.get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| bad(file, &format!("#{}", index + 1), "has no \"id\""))
}

fn string(f: &Value, key: &str) -> Option<String> {
    f.get("properties")?.get(key)?.as_str().map(str::to_owned)
}

fn lon_lat(v: &Value) -> Option<(f64, f64)> {
    let a = v.as_array()?;
    Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?))
}

/// An IMDF LABELS object (`{"zh": "…", "en": "…"}`); the other language stands in for a missing one.
fn labels(v: Option<&Value>) -> Option<Labels> {
    let map = v?.as_object()?;
    let find = |prefixes: &[&str]| {
        map.iter()
            .find(|(k, _)| prefixes.iter().any(|p| k.to_lowercase().starts_with(p)))
            .and_then(|(_, v)| v.as_str())
            .map(str::to_owned)
    };
    let any = map.values().find_map(Value::as_str).map(str::to_owned);
    let zh = find(&["zh"]);
    let en = find(&["en"]);
    match (zh, en) {
        (None, None) => any.map(|a| Labels::new(a.clone(), a)),
        (zh, en) => {
            let zh_or = zh.clone().or_else(|| en.clone()).unwrap_or_default();
            Some(Labels::new(zh_or, en.or(zh).unwrap_or_default()))
        }
    }
}

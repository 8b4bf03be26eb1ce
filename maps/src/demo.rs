//! The demo mall's IMDF archive, compiled in: generated from the demo
//! catalog by `maps/tools/gen_demo_imdf.py` into `maps/data/demo-imdf/`.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use crate::imdf::IndoorMap;
use crate::route::Router;

/// The archive's files: name and contents.
pub const FILES: &[(&str, &str)] = &[
    ("manifest.json", include_str!("../data/demo-imdf/manifest.json")),
    ("address.geojson", include_str!("../data/demo-imdf/address.geojson")),
    ("venue.geojson", include_str!("../data/demo-imdf/venue.geojson")),
    ("building.geojson", include_str!("../data/demo-imdf/building.geojson")),
    ("level.geojson", include_str!("../data/demo-imdf/level.geojson")),
    ("unit.geojson", include_str!("../data/demo-imdf/unit.geojson")),
    ("opening.geojson", include_str!("../data/demo-imdf/opening.geojson")),
    ("amenity.geojson", include_str!("../data/demo-imdf/amenity.geojson")),
    ("anchor.geojson", include_str!("../data/demo-imdf/anchor.geojson")),
    ("occupant.geojson", include_str!("../data/demo-imdf/occupant.geojson")),
    ("section.geojson", include_str!("../data/demo-imdf/section.geojson")),
    ("relationship.geojson", include_str!("../data/demo-imdf/relationship.geojson")),
];

static DEMO: LazyLock<Arc<Router>> = LazyLock::new(|| {
    let files: HashMap<String, &str> = FILES.iter().map(|(n, t)| ((*n).to_owned(), *t)).collect();
    let map =
        IndoorMap::from_files(&files).expect("the demo mall's IMDF archive is valid (checked by tests)");
    Arc::new(Router::new(map))
});

/// The demo mall's map, read once, with its walkable graph.
pub fn router() -> Arc<Router> {
    Arc::clone(&DEMO)
}

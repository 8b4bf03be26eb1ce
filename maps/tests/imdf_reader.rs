//! The IMDF reader: the demo archive reads from a folder and from a .zip
//! (deflated, in a subfolder, as exported), and broken archives are refused
//! with the file, the feature id and the problem.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::io::Write;

use maps::{ImdfError, IndoorMap, demo};
use serde_json::Value;

fn demo_files() -> HashMap<String, String> {
    demo::FILES.iter().map(|(n, t)| ((*n).to_owned(), (*t).to_owned())).collect()
}

/// The demo archive with `file` changed by `edit`.
fn broken(file: &str, edit: impl FnOnce(&mut Value)) -> ImdfError {
    let mut files = demo_files();
    let mut json: Value = serde_json::from_str(&files[file]).unwrap();
    edit(&mut json);
    files.insert(file.to_owned(), json.to_string());
    IndoorMap::from_files(&files).unwrap_err()
}

fn feature(json: &mut Value, index: usize) -> &mut Value {
    &mut json["features"][index]
}

#[test]
fn the_demo_archive_reads_from_a_folder() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo-imdf");
    let map = IndoorMap::open(&dir).unwrap();
    assert_eq!(map.name.en, "Galaxy Plaza");
    assert_eq!(
        map.levels.iter().map(|l| l.short_name.en.as_str()).collect::<Vec<_>>(),
        ["B1", "1F", "2F", "3F", "4F", "5F"]
    );
    assert_eq!(map.levels.iter().map(|l| l.floor).collect::<Vec<_>>(), [-1, 1, 2, 3, 4, 5]);
    assert_eq!(map.places.iter().filter(|p| p.kind == maps::PlaceKind::Store).count(), 44);
}

#[test]
fn the_demo_archive_reads_from_a_zip_with_a_folder_inside() {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in demo::FILES {
        zip.start_file(format!("galaxy-plaza/{name}"), options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    let bytes = zip.finish().unwrap().into_inner();
    let path = std::env::temp_dir().join(format!("mallbot-imdf-{}.zip", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let map = IndoorMap::open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(map.levels.len(), 6);
    assert!(map.find_place("优衣库").is_some());
}

#[test]
fn a_file_that_is_not_a_zip_is_refused() {
    let err = IndoorMap::from_zip(b"not a zip at all", "mall.zip").unwrap_err();
    assert!(matches!(err, ImdfError::Zip { .. }), "{err:?}");
    assert!(err.to_string().starts_with("mall.zip is not a readable zip archive"), "{err}");
}

#[test]
fn missing_files_are_named() {
    for file in ["manifest.json", "venue.geojson", "level.geojson", "unit.geojson", "opening.geojson"] {
        let mut files = demo_files();
        files.remove(file);
        let err = IndoorMap::from_files(&files).unwrap_err();
        assert_eq!(err.to_string(), format!("the IMDF archive has no {file}"));
    }
    let err = IndoorMap::open("/nonexistent/imdf").unwrap_err();
    assert!(err.to_string().starts_with("cannot read /nonexistent/imdf"), "{err}");
}

#[test]
fn broken_files_and_features_are_refused_with_file_feature_and_problem() {
    let mut files = demo_files();
    files.insert("unit.geojson".into(), "{\"type\": \"FeatureCollection\", ".into());
    let err = IndoorMap::from_files(&files).unwrap_err();
    assert!(err.to_string().starts_with("unit.geojson: not JSON"), "{err}");

    let err = broken("level.geojson", |j| j["type"] = "Feature".into());
    assert_eq!(err.to_string(), "level.geojson: is not a GeoJSON FeatureCollection");

    let err = broken("unit.geojson", |j| {
        feature(j, 0)["properties"]["level_id"] = "no-such-level".into();
    });
    let id = unit_id(0);
    assert_eq!(
        err.to_string(),
        format!("unit.geojson: feature {id}: level_id no-such-level is not a level in level.geojson")
    );

    let err = broken("unit.geojson", |j| feature(j, 3)["geometry"] = Value::Null);
    assert_eq!(err.to_string(), format!("unit.geojson: feature {}: has no geometry", unit_id(3)));

    let err = broken("unit.geojson", |j| {
        feature(j, 2)["geometry"]["coordinates"][0] = serde_json::json!([[121.0, 31.0], [121.0, 31.0001]]);
    });
    assert_eq!(
        err.to_string(),
        format!("unit.geojson: feature {}: a polygon ring has fewer than 3 distinct points", unit_id(2))
    );

    let err = broken("level.geojson", |j| {
        feature(j, 1)["properties"].as_object_mut().unwrap().remove("ordinal");
    });
    assert!(err.to_string().ends_with("has no integer \"ordinal\""), "{err}");

    let err = broken("level.geojson", |j| {
        feature(j, 0).as_object_mut().unwrap().remove("id");
    });
    assert_eq!(err.to_string(), "level.geojson: feature #1: has no \"id\"");

    // An opening in the middle of nowhere.
    let err = broken("opening.geojson", |j| {
        feature(j, 0)["geometry"]["coordinates"] = serde_json::json!([[122.0, 32.0], [122.0, 32.0001]]);
    });
    assert!(err.to_string().ends_with("lies on the edge of no unit of its level"), "{err}");

    let err = broken("occupant.geojson", |j| feature(j, 5)["properties"]["anchor_id"] = "gone".into());
    assert!(err.to_string().starts_with("occupant.geojson: feature "), "{err}");
    assert!(err.to_string().ends_with(": anchor_id gone is not an anchor in anchor.geojson"), "{err}");

    let err = broken("relationship.geojson", |j| {
        feature(j, 0)["properties"]["destination"]["id"] = "nowhere".into()
    });
    assert!(err.to_string().ends_with(": destination nowhere is not a unit in unit.geojson"), "{err}");
}

fn unit_id(index: usize) -> String {
    let json: Value =
        serde_json::from_str(demo::FILES.iter().find(|(n, _)| *n == "unit.geojson").unwrap().1).unwrap();
    json["features"][index]["id"].as_str().unwrap().to_owned()
}

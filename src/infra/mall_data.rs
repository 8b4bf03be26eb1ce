//! The mall's own data (`mall.data`): the embedded mall opened on the folder,
//! its map and information found beside the data, the folder checked for
//! `mallbot check` and `mallbot import --check FOLDER` (every mistake with
//! its file, row and column; the stores the map does not place, as a
//! warning), and read again on change or on `SIGHUP` (the stores the map
//! lacks logged again after each reload).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use services::EmbeddedMall;
use services::embedded::{DataError, FolderError, read_folder};

use crate::infra::config::{Config, MallBackend};

/// How often the folder's files are looked at for a change.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// The mall's data folder, when the config names one.
pub(crate) fn data_dir(config: &Config) -> Option<&Path> {
    Some(config.mall.data.trim()).filter(|d| !d.is_empty()).map(Path::new)
}

/// The map of a data folder: `imdf/` (a folder) or `imdf.zip` in it.
pub(crate) fn map_in(dir: &Path) -> Option<PathBuf> {
    in_folder(dir, "imdf").or_else(|| in_folder(dir, "imdf.zip"))
}

/// The Markdown information of a data folder: its `info/`.
pub(crate) fn info_in(dir: &Path) -> Option<PathBuf> {
    in_folder(dir, "info").filter(|p| p.is_dir())
}

/// `name` in the folder, when it is there and stays inside it: a link out of the folder
/// is not followed (what it points to is never read), and the log says so.
fn in_folder(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(name);
    std::fs::symlink_metadata(&path).ok()?;
    let inside = match (path.canonicalize(), dir.canonicalize()) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        _ => false,
    };
    if !inside {
        tracing::warn!(file = name, "a link out of the mall's folder is not read");
    }
    inside.then_some(path)
}

/// The embedded mall the config names: the mall's own data from `mall.data` (watched for
/// changes, read again on `SIGHUP`), or the demo mall.
pub(crate) fn open_embedded(config: &Config) -> anyhow::Result<EmbeddedMall> {
    let db = Path::new(&config.mall.embedded_db);
    let Some(dir) = data_dir(config) else {
        return EmbeddedMall::open(db).with_context(|| {
            format!("cannot open the embedded mall's database (mall.embedded_db = {})", db.display())
        });
    };
    let mall = EmbeddedMall::open_folder(dir, Some(db)).map_err(|e| match e {
        FolderError::Invalid(errors) => refusal(dir, &errors),
        other => anyhow::Error::new(other).context(format!(
            "cannot open the embedded mall's database (mall.embedded_db = {})",
            db.display()
        )),
    })?;
    // A store the map lacks is a warning, never a stop: its directions give floor and unit.
    let indoor = match map_for(config, dir) {
        Some(map) => Some((open_indoor(&map)?, map)),
        None => None,
    };
    if let Some((indoor, map)) = &indoor {
        warn_off_the_map(&mall.catalog(), indoor, map, "the mall's data loaded");
    }
    let after_reload = move |catalog: &services::embedded::Catalog| {
        if let Some((indoor, map)) = &indoor {
            warn_off_the_map(catalog, indoor, map, "the mall's data reloaded");
        }
    };
    mall.watch_folder_then(WATCH_EVERY, after_reload).context("cannot watch the mall's data folder")?;
    reload_on_hangup(&mall);
    Ok(mall)
}

/// The map for the data in `dir`: `mall.imdf` when set, else the folder's own.
fn map_for(config: &Config, dir: &Path) -> Option<PathBuf> {
    Some(config.mall.imdf.trim()).filter(|p| !p.is_empty()).map(PathBuf::from).or_else(|| map_in(dir))
}

/// Why the bot will not start on `dir`: every mistake, one a line.
fn refusal(dir: &Path, errors: &[DataError]) -> anyhow::Error {
    anyhow::anyhow!("{}", mistakes(dir, errors))
}

/// `the mall's data (mall.data = DIR) has 3 mistakes:` and one line per mistake.
pub(crate) fn mistakes(dir: &Path, errors: &[DataError]) -> String {
    let count = match errors.len() {
        1 => "1 mistake".to_owned(),
        n => format!("{n} mistakes"),
    };
    let mut out = format!("the mall's data ({}) has {count}:", dir.display());
    // A key of the config quoted in a cell is hidden before a long line is cut (a cut
    // could leave part of it).
    let shown: Vec<DataError> = errors
        .iter()
        .map(|e| DataError { message: crate::infra::redact::scrub(&e.message).into_owned(), ..e.clone() })
        .collect();
    out.push_str(&services::embedded::mistake_lines(&shown));
    out
}

/// One line per store of the directory that the map does not place (by the occupant's
/// `ref`, the unit's number or the store's name), each with its row in the directory when
/// `rows` knows it: `stores.csv:10: store `s-salomon` (萨洛蒙, 1F-15) is not on the map: …`.
pub(crate) fn off_the_map<'a>(
    stores: impl Iterator<Item = &'a services::Store>,
    indoor: &maps::IndoorMap,
    rows: Option<&std::collections::HashMap<String, (String, usize)>>,
) -> Vec<String> {
    stores
        .filter(|store| !on_map(indoor, store))
        .map(|store| {
            let at = rows
                .and_then(|rows| rows.get(&store.id))
                .filter(|(_, row)| *row > 0)
                .map(|(file, row)| format!("{file}:{row}: "))
                .unwrap_or_default();
            let unit = if store.unit.is_empty() { String::new() } else { format!(", {}", store.unit) };
            let fix = if store.unit.is_empty() {
                format!("give it a `unit` the map has, or an occupant the ref `{}`", store.id)
            } else {
                format!(
                    "no unit of the map is named `{}` (IMDF unit name or alt_name) and no occupant has the ref `{}`",
                    store.unit, store.id
                )
            };
            format!(
                "{at}store `{}` ({}{unit}) is not on the map: its directions give the floor and unit; {fix}",
                store.id, store.name
            )
        })
        .collect()
}

/// Logs, as warnings, the stores of `catalog` the map lacks.
fn warn_off_the_map(catalog: &services::embedded::Catalog, indoor: &maps::IndoorMap, map: &Path, when: &str) {
    let missing = off_the_map(catalog.stores(), indoor, None);
    if missing.is_empty() {
        return;
    }
    tracing::warn!(map = %map.display(), stores = missing.len(), "{when}: the map lacks some stores");
    for line in missing {
        tracing::warn!("{line}");
    }
}

fn open_indoor(map: &Path) -> anyhow::Result<maps::IndoorMap> {
    maps::IndoorMap::open(map).with_context(|| format!("cannot use the indoor map ({})", map.display()))
}

/// Whether the map places a store: an occupant whose `ref` is the store's id, the unit
/// numbered as the store's `unit`, or an occupant named as the store (as directions find it).
fn on_map(indoor: &maps::IndoorMap, store: &services::Store) -> bool {
    indoor.store_place(&handlers::indoor::tie(store)).is_some()
}

/// `mallbot import --check FOLDER` and the data line of `mallbot check`: the folder read
/// and indexed as the mall would, the stores looked for on its map. `Ok` with a summary,
/// or `Err` with every mistake.
pub fn check_folder(dir: &Path, map: Option<&Path>) -> Result<String, String> {
    let started = std::time::Instant::now();
    let folder = read_folder(dir).map_err(|errors| mistakes(dir, &errors))?;
    let mut errors = Vec::new();
    let map_line = match map.map(Path::to_path_buf).or_else(|| map_in(dir)) {
        Some(map) => {
            let indoor = open_indoor(&map).map_err(|e| format!("{e:#}"))?;
            let missing = off_the_map(folder.stores(), &indoor, Some(&folder.store_rows));
            match missing.len() {
                0 => format!("map {}: every store has its unit", map.display()),
                n => {
                    let stores = if n == 1 { "1 store".to_owned() } else { format!("{n} stores") };
                    let mut line =
                        format!("map {}: ⚠️ lacks {stores} (a warning: the bot runs):", map.display());
                    for store in missing {
                        line.push_str("\n  ");
                        line.push_str(&store);
                    }
                    line
                }
            }
        }
        None => "no map (imdf/): directions are given by floor and unit".to_owned(),
    };
    if let Err(mut built) = folder.build() {
        errors.append(&mut built);
    }
    if !errors.is_empty() {
        return Err(mistakes(dir, &errors));
    }
    let (stores, products, skus) = folder.counts();
    Ok(format!(
        "the mall's data ({}) is ready: {stores} stores, {products} products, {skus} SKUs, checked in {:.1?}\n{map_line}",
        dir.display(),
        started.elapsed()
    ))
}

/// The data check of `mallbot check` for the configured folder, when there is one.
pub fn check(config: &Config) -> Option<Result<String, String>> {
    let dir = data_dir(config)?;
    Some(check_folder(dir, map_for(config, dir).as_deref()))
}

/// Reads the folder again on `SIGHUP` (a task of the running runtime; none outside one).
fn reload_on_hangup(mall: &EmbeddedMall) {
    #[cfg(unix)]
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        let mall = mall.clone();
        runtime.spawn(async move {
            let Ok(mut hangups) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            else {
                tracing::warn!("cannot listen for SIGHUP: the mall's data is read again on change only");
                return;
            };
            while hangups.recv().await.is_some() {
                tracing::info!("SIGHUP: reading the mall's data again");
                mall.ask_reload();
            }
        });
    }
}

/// The indoor map the config names (`mall.imdf`), else the one in the mall's data folder
/// (`mall.data`: its `imdf/` or `imdf.zip`; none there: no map), else the demo mall's own
/// when the mall is the embedded one, else none.
pub(crate) fn open_map(config: &Config) -> anyhow::Result<Option<Arc<maps::Router>>> {
    let configured = config.mall.imdf.trim();
    let in_data = data_dir(config).map(map_in);
    if configured.is_empty() && matches!(in_data, Some(None)) {
        return Ok(None);
    }
    let from_data = in_data.flatten().map(|p| p.display().to_string()).unwrap_or_default();
    let path = if configured.is_empty() { from_data.as_str() } else { configured };
    if !path.is_empty() {
        let map = maps::IndoorMap::open(path)
            .with_context(|| format!("cannot use the indoor map (mall.imdf = {path})"))?;
        tracing::info!(path, levels = map.levels.len(), places = map.places.len(), "indoor map read");
        return Ok(Some(Arc::new(maps::Router::new(map))));
    }
    Ok((config.mall.backend == MallBackend::Embedded).then(maps::demo::router))
}

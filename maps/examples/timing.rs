//! Splits one floor picture's time: SVG, parse + text layout, raster, and
//! the whole `rasterise` (parse, raster, PNG). Prints the fastest of 30 runs.

use std::time::{Duration, Instant};

use maps::render::{self, Overlay};
use maps::{Lang, RouteOptions, demo};
use resvg::{tiny_skia, usvg};

fn main() {
    let router = demo::router();
    let route = router.route("main_entrance", "s-uniqlo", RouteOptions::default()).expect("route");
    let leg = &route.legs[1];
    let overlay = Overlay { route: leg.points.clone(), title: "2F test".into(), ..Overlay::default() };
    let mut fontdb = usvg::fontdb::Database::new();
    fontdb.load_font_data(std::fs::read("maps/fonts/NotoSansSC-MallbotSubset.otf").expect("font"));
    let fontdb = std::sync::Arc::new(fontdb);
    let mut best = [Duration::MAX; 5];
    for _ in 0..30 {
        let t = Instant::now();
        let (svg, _) = render::level_svg(router.map(), leg.level, &overlay, Lang::Zh);
        best[0] = best[0].min(t.elapsed());
        let t = Instant::now();
        let opt = usvg::Options {
            fontdb: fontdb.clone(),
            font_family: "Noto Sans CJK SC".into(),
            ..Default::default()
        };
        let tree = usvg::Tree::from_str(&svg, &opt).expect("svg");
        best[1] = best[1].min(t.elapsed());
        let t = Instant::now();
        let size = tree.size().to_int_size();
        let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("size");
        resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
        best[2] = best[2].min(t.elapsed());
        let t = Instant::now();
        pixmap.encode_png().expect("png");
        best[3] = best[3].min(t.elapsed());
        let t = Instant::now();
        render::rasterise(&svg).expect("png");
        best[4] = best[4].min(t.elapsed());
    }
    println!(
        "svg {:?} parse {:?} raster {:?} tiny-skia png {:?} rasterise {:?}",
        best[0], best[1], best[2], best[3], best[4]
    );
}

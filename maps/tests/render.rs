//! Floor pictures checked on their pixels: the PNG's size, the route's
//! colour along the path, the destination's highlight inside its unit, the
//! start marker, an area's highlight, and CJK labels that really draw.
#![allow(clippy::unwrap_used)]

use maps::render::{self, AREA_COLOUR, DESTINATION_COLOUR, FloorPicture, ROUTE_COLOUR, START_COLOUR};
use maps::{MapWords, Point, RouteOptions, demo};
use resvg::tiny_skia::Pixmap;

fn pixel(pixmap: &Pixmap, picture: &FloorPicture, at: Point) -> [u8; 3] {
    let (x, y) = picture.frame.pixel(at);
    let p = pixmap.pixel(x.round() as u32, y.round() as u32).unwrap();
    [p.red(), p.green(), p.blue()]
}

fn decode(picture: &FloorPicture) -> Pixmap {
    assert_eq!(&picture.png[..8], b"\x89PNG\r\n\x1a\n");
    let pixmap = Pixmap::decode_png(&picture.png).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (picture.width, picture.height));
    pixmap
}

#[test]
fn a_two_floor_route_draws_each_floor_with_the_route_start_and_destination() {
    let router = demo::router();
    let map = router.map();
    let route = router.route("main_entrance", "s-uniqlo", RouteOptions::default()).unwrap();
    let pictures = render::route_pictures(map, &route, &MapWords::CHINESE).unwrap();
    assert_eq!(pictures.iter().map(|p| p.floor).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(pictures[0].title, "1F 国际品牌与美妆 · 前往 优衣库 (1/2)");
    assert_eq!(pictures[1].title, "2F 潮流服饰 · 前往 优衣库 (2/2)");
    // The whole cross at 5 px a metre, plus margins, title and legend.
    assert_eq!((pictures[1].width, pictures[1].height), (883, 953));

    for (picture, leg) in pictures.iter().zip(&route.legs) {
        let pixmap = decode(picture);
        // Along every stretch of the route line, the route's colour.
        let mut samples = 0;
        let mut blue = 0;
        for pair in leg.points.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let steps = (a.distance(b) / 0.5) as usize;
            for i in 1..steps {
                let t = i as f64 / steps as f64;
                let p = Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
                samples += 1;
                blue += usize::from(pixel(&pixmap, picture, p) == ROUTE_COLOUR);
            }
        }
        assert!(samples > 20, "floor {}: {samples} samples", picture.floor);
        assert!(
            blue * 10 >= samples * 8,
            "floor {}: {blue} of {samples} route pixels are the route colour",
            picture.floor
        );
        // The leg starts at a green dot.
        assert_eq!(pixel(&pixmap, picture, leg.points[0]), START_COLOUR, "floor {}", picture.floor);
    }

    // Uniqlo's unit is filled with the destination colour, away from its label; its neighbour Zara is not.
    let pixmap = decode(&pictures[1]);
    let unit = &map.units[route.to.unit.unwrap()];
    let (min, max) = unit.outline.bounds();
    let inside = Point::new(min.x + 1.0, max.y - 1.0);
    assert_eq!(pixel(&pixmap, &pictures[1], inside), DESTINATION_COLOUR);
    let zara = &map.units[map.find_place("s-zara").unwrap().unit.unwrap()];
    let (zmin, zmax) = zara.outline.bounds();
    assert_ne!(pixel(&pixmap, &pictures[1], Point::new(zmin.x + 1.0, zmax.y - 1.0)), DESTINATION_COLOUR);
    // The 1F plan (above the legend, which shows the colour) has no destination: the route leaves by escalator.
    let pixmap = decode(&pictures[0]);
    let on_1f =
        (0..pixmap.height() - 60).flat_map(|y| (0..pixmap.width()).map(move |x| (x, y))).any(|(x, y)| {
            let p = pixmap.pixel(x, y).unwrap();
            [p.red(), p.green(), p.blue()] == DESTINATION_COLOUR
        });
    assert!(!on_1f, "1F has a destination highlight");
}

#[test]
fn store_names_are_drawn_in_the_shoppers_language_with_cjk_glyphs() {
    let router = demo::router();
    let map = router.map();
    let route = router.route("main_entrance", "s-apple", RouteOptions::default()).unwrap();
    // Dark text pixels inside Starbucks' unit (a plain unit on the same floor), in both languages.
    let starbucks = &map.units[map.find_place("s-starbucks").unwrap().unit.unwrap()];
    let (min, max) = starbucks.outline.bounds();
    for lang in [&MapWords::CHINESE, &MapWords::ENGLISH] {
        let picture = &render::route_pictures(map, &route, lang).unwrap()[0];
        let pixmap = decode(picture);
        let (x0, y0) = picture.frame.pixel(Point::new(min.x, max.y));
        let (x1, y1) = picture.frame.pixel(Point::new(max.x, min.y));
        let dark = (y0 as u32 + 2..y1 as u32 - 2)
            .flat_map(|y| (x0 as u32 + 2..x1 as u32 - 2).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let p = pixmap.pixel(x, y).unwrap();
                u32::from(p.red()) + u32::from(p.green()) + u32::from(p.blue()) < 400
            })
            .count();
        assert!(dark > 30, "{lang:?}: {dark} text pixels in Starbucks' unit");
    }
}

#[test]
fn an_area_picture_fills_the_area_and_its_stores() {
    let router = demo::router();
    let map = router.map();
    let section = map.sections.iter().position(|s| s.id == "a-food-court").unwrap();
    let units: Vec<usize> = ["s-haidilao", "s-xibei", "s-din-tai-fung", "s-taier"]
        .iter()
        .map(|id| map.find_place(id).unwrap().unit.unwrap())
        .collect();
    let picture = render::area_picture(map, section, &units, &MapWords::ENGLISH).unwrap();
    assert_eq!(picture.floor, 5);
    assert_eq!(picture.title, "5F Home & food court · Food Court");
    let pixmap = decode(&picture);
    for &u in &units {
        let (min, max) = map.units[u].outline.bounds();
        assert_eq!(pixel(&pixmap, &picture, Point::new(min.x + 1.0, max.y - 1.0)), AREA_COLOUR);
    }
    // Muji (home, not food court) keeps its plain fill.
    let muji = &map.units[map.find_place("s-muji").unwrap().unit.unwrap()];
    let (min, max) = muji.outline.bounds();
    assert_ne!(pixel(&pixmap, &picture, Point::new(min.x + 1.0, max.y - 1.0)), AREA_COLOUR);
}

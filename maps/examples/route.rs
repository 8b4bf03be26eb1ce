//! Prints a route's steps on the demo map and writes its floor pictures:
//! `cargo run -p maps --example route -- <from> <to> [zh|en] [avoid_stairs]`.

use maps::{MapWords, RouteOptions, demo, directions, render};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let from = args.first().map_or("main_entrance", String::as_str);
    let to = args.get(1).map_or("s-uniqlo", String::as_str);
    let lang =
        if args.get(2).map(String::as_str) == Some("en") { &MapWords::ENGLISH } else { &MapWords::CHINESE };
    let options = RouteOptions { avoid_stairs: args.iter().any(|a| a == "avoid_stairs") };
    let router = demo::router();
    let route = router.route(from, to, options)?;
    println!("{}", directions::text(router.map(), &route, lang));
    for picture in render::route_pictures(router.map(), &route, lang)? {
        let path = std::env::temp_dir().join(format!("mallbot-route-{}.png", picture.floor));
        std::fs::write(&path, &picture.png)?;
        println!("{} ({}x{}): {}", picture.title, picture.width, picture.height, path.display());
    }
    Ok(())
}

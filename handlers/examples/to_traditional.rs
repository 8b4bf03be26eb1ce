//! Writes standard input in Traditional characters, as the bot shows the
//! mall's names to a Traditional Chinese shopper (OpenCC's `s2tw`, through
//! `handlers::texts::zh_hant::to_traditional`). `maps/tools/subset_font.sh`
//! runs it over the demo map's names so the floor plans' font has their
//! Traditional forms.
//!
//! Run: `cat maps/data/demo-imdf/*.geojson | cargo run -q -p handlers --example to_traditional`

use std::io::{Read, Write};

fn main() -> std::io::Result<()> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    std::io::stdout().write_all(handlers::texts::zh_hant::to_traditional(&text).as_bytes())
}

//! [`UnitKind`]: what a unit of the map is, as far as walking is concerned.

/// What a unit is, as far as walking is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    /// Corridors, atriums, open floor: walked through.
    Walkway,
    Escalator,
    Elevator,
    Stairs,
    Restroom,
    /// Shops, restaurants and any other room.
    Room,
    /// Walls, shafts and other space nobody walks in.
    Closed,
}

impl UnitKind {
    pub(crate) fn of(category: &str) -> UnitKind {
        match category {
            "walkway" | "footbridge" | "ramp" | "opentobelow" | "unspecified" => UnitKind::Walkway,
            "escalator" | "movingwalkway" => UnitKind::Escalator,
            "elevator" => UnitKind::Elevator,
            "stairs" | "steps" => UnitKind::Stairs,
            c if c == "restroom" || c.starts_with("restroom.") => UnitKind::Restroom,
            "structure" | "nonpublic" | "shaft" | "unenclosedarea" | "vegetation" | "water" => {
                UnitKind::Closed
            }
            _ => UnitKind::Room,
        }
    }
}

//! Plane geometry in metres: points, polygons, and the projection from an
//! IMDF archive's longitude/latitude to metres east and north of the venue.

/// A point on a floor, in metres east (`x`) and north (`y`) of the venue's centre.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    /// The point at `x` metres east and `y` metres north.
    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Straight-line distance in metres.
    pub fn distance(self, other: Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// The point halfway to `other`.
    pub fn midpoint(self, other: Point) -> Point {
        Point::new((self.x + other.x) / 2.0, (self.y + other.y) / 2.0)
    }
}

/// Metres per degree of latitude (mean).
const M_PER_DEG_LAT: f64 = 110_574.0;
/// Metres per degree of longitude at the equator.
const M_PER_DEG_LON_EQUATOR: f64 = 111_320.0;

/// An equirectangular projection centred on one point: exact enough for a
/// building a few hundred metres across.
#[derive(Debug, Clone, Copy)]
pub struct Projection {
    lon0: f64,
    lat0: f64,
    m_per_deg_lon: f64,
}

impl Projection {
    /// A projection centred on `lon0`, `lat0` (degrees).
    pub fn centred_on(lon0: f64, lat0: f64) -> Projection {
        Projection { lon0, lat0, m_per_deg_lon: M_PER_DEG_LON_EQUATOR * lat0.to_radians().cos() }
    }

    /// Longitude/latitude (degrees) to metres from the centre.
    pub fn to_metres(&self, lon: f64, lat: f64) -> Point {
        Point::new((lon - self.lon0) * self.m_per_deg_lon, (lat - self.lat0) * M_PER_DEG_LAT)
    }
}

/// A polygon: its outer ring, then any holes. Rings are not closed (the
/// last point is not a copy of the first).
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    pub rings: Vec<Vec<Point>>,
}

impl Polygon {
    /// The outer ring.
    pub fn outer(&self) -> &[Point] {
        self.rings.first().map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `p` is inside (in the outer ring and in no hole).
    pub fn contains(&self, p: Point) -> bool {
        let mut rings = self.rings.iter();
        rings.next().is_some_and(|outer| ring_contains(outer, p)) && !rings.any(|hole| ring_contains(hole, p))
    }

    /// Distance from `p` to the nearest edge of any ring.
    pub fn boundary_distance(&self, p: Point) -> f64 {
        self.rings
            .iter()
            .flat_map(|ring| ring_edges(ring))
            .map(|(a, b)| segment_distance(p, a, b))
            .fold(f64::INFINITY, f64::min)
    }

    /// The smallest box around the outer ring: (min, max).
    pub fn bounds(&self) -> (Point, Point) {
        bounds(self.outer().iter().copied())
    }
}

/// The smallest box around `points`: (min, max).
pub fn bounds(points: impl IntoIterator<Item = Point>) -> (Point, Point) {
    let mut min = Point::new(f64::INFINITY, f64::INFINITY);
    let mut max = Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in points {
        min = Point::new(min.x.min(p.x), min.y.min(p.y));
        max = Point::new(max.x.max(p.x), max.y.max(p.y));
    }
    (min, max)
}

fn ring_edges(ring: &[Point]) -> impl Iterator<Item = (Point, Point)> + '_ {
    ring.iter().zip(ring.iter().cycle().skip(1)).map(|(a, b)| (*a, *b))
}

/// Even-odd test of `p` against one ring.
fn ring_contains(ring: &[Point], p: Point) -> bool {
    let mut inside = false;
    for (a, b) in ring_edges(ring) {
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
    }
    inside
}

/// Distance from `p` to the segment `a`–`b`.
pub fn segment_distance(p: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return p.distance(a);
    }
    let t = (((p.x - a.x) * dx + (p.y - a.y) * dy) / len2).clamp(0.0, 1.0);
    p.distance(Point::new(a.x + t * dx, a.y + t * dy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> Vec<Point> {
        vec![Point::new(x0, y0), Point::new(x1, y0), Point::new(x1, y1), Point::new(x0, y1)]
    }

    #[test]
    fn a_point_in_a_hole_is_outside_the_polygon() {
        let atrium = Polygon { rings: vec![square(-10.0, -10.0, 10.0, 10.0), square(-2.0, -2.0, 2.0, 2.0)] };
        assert!(atrium.contains(Point::new(5.0, 5.0)));
        assert!(!atrium.contains(Point::new(0.0, 0.0)));
        assert!(!atrium.contains(Point::new(11.0, 0.0)));
        assert!((atrium.boundary_distance(Point::new(0.0, 5.0)) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_degree_of_latitude_is_about_110_km() {
        let p = Projection::centred_on(121.0, 31.0);
        let north = p.to_metres(121.0, 31.001);
        assert!((north.y - 110.574).abs() < 1e-6 && north.x.abs() < 1e-9);
        let east = p.to_metres(121.001, 31.0);
        assert!((east.x - 95.42).abs() < 0.01, "{east:?}");
    }
}

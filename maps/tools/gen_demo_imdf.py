#!/usr/bin/env python3
"""Generates the demo mall's IMDF archive (maps/data/demo-imdf/) from the
demo catalog (services/data/demo-mall.json).

The demo mall is a cross: a square atrium with the escalators and a lift in
the middle of every floor, and four corridors (east, west, north, south)
running out from it. Each store sits on its corridor at the catalog's
`position` (wing, metres from the atrium escalators, left or right walking
out). Stairs close the east corridor, restrooms sit at the west end, the main
entrance opens the 1F south corridor, the north gate ends the 1F north
corridor and the metro entrance ends the B1 west corridor.

Run from the repository root:  python3 maps/tools/gen_demo_imdf.py

Another mall laid out the same way (the example mall of examples/malls/riverside):
  python3 maps/tools/gen_demo_imdf.py --catalog maps/tools/riverside-layout.json \
      --out examples/malls/riverside/imdf --lon 104.0817 --lat 30.6309 \
      --address "8 Riverside Road" --locality Chengdu --province CN-SC --postal 610000
The catalog there needs only `mall`, `floors`, `areas` and `stores` with their `position`.
"""

import argparse
import json
import math
import os
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CATALOG = os.path.join(ROOT, "services", "data", "demo-mall.json")
OUT = os.path.join(ROOT, "maps", "data", "demo-imdf")

# Where the atrium escalators are on the globe (central Shanghai).
LON0, LAT0 = 121.4737, 31.2304
M_PER_DEG_LAT = 110_574.0
M_PER_DEG_LON = 111_320.0 * math.cos(math.radians(LAT0))

ATRIUM = 10.0  # half the atrium's side
CORRIDOR = 4.0  # half a corridor's width
DEPTH = 10.0  # how deep a store is, away from the corridor
WIDTH = 10.0  # how wide a store's front is
WING_LEN = 80.0  # atrium centre to corridor end
SOUTH_1F = 30.0  # the 1F south corridor ends at the main entrance
NS = uuid.UUID("6d616c6c-626f-7400-0000-000000000000")

# Unit vector out along each wing, and the unit vector to its left.
WINGS = {
    "east": ((1, 0), (0, 1)),
    "west": ((-1, 0), (0, -1)),
    "north": ((0, 1), (-1, 0)),
    "south": ((0, -1), (1, 0)),
}


def fid(*parts):
    return str(uuid.uuid5(NS, "/".join(str(p) for p in parts)))


def lonlat(x, y):
    return [round(LON0 + x / M_PER_DEG_LON, 8), round(LAT0 + y / M_PER_DEG_LAT, 8)]


def ring(points):
    pts = [lonlat(x, y) for x, y in points]
    return pts + [pts[0]]


def rect(x0, y0, x1, y1):
    x0, x1 = min(x0, x1), max(x0, x1)
    y0, y1 = min(y0, y1), max(y0, y1)
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def polygon(points, holes=()):
    return {"type": "Polygon", "coordinates": [ring(points)] + [ring(h) for h in holes]}


def point(x, y):
    return {"type": "Point", "coordinates": lonlat(x, y)}


def line(a, b):
    return {"type": "LineString", "coordinates": [lonlat(*a), lonlat(*b)]}


def labels(zh, en):
    return {"zh": zh, "en": en}


def feature(feature_id, feature_type, geometry, properties):
    return {"id": feature_id, "type": "Feature", "feature_type": feature_type, "geometry": geometry,
            "properties": properties}


def along(wing, offset, side_offset):
    (ox, oy), (lx, ly) = WINGS[wing]
    return (ox * offset + lx * side_offset, oy * offset + ly * side_offset)


def wing_length(wing, floor):
    return SOUTH_1F if (wing == "south" and floor == 1) else WING_LEN


def centre(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)


def overlaps(a, b):
    ax0, ay0 = a[0]
    ax1, ay1 = a[2]
    bx0, by0 = b[0]
    bx1, by1 = b[2]
    return ax0 < bx1 - 1e-6 and bx0 < ax1 - 1e-6 and ay0 < by1 - 1e-6 and by0 < ay1 - 1e-6


# Facility rooms: (floors, wing, side, offset, key, unit category, amenity categories, zh, en).
FACILITY_ROOMS = [
    ((-1, 1, 2, 3, 4, 5), "west", "left", 75, "accessible", "restroom.unisex.wheelchair",
     ["restroom.unisex.wheelchair"], "无障碍洗手间", "Accessible restroom"),
    ((2, 4), "north", "right", 75, "nursing", "mothersroom", ["mothersroom", "babychanging"], "母婴室",
     "Nursing room"),
    ((4,), "north", "left", 75, "family", "restroom.family", ["restroom.family"], "家庭洗手间", "Family restroom"),
    ((1,), "south", "right", 20, "service", "room", ["information"], "服务台", "Service desk"),
    ((1,), "south", "left", 20, "firstaid", "room", ["firstaid"], "医务室", "First aid room"),
    ((5,), "east", "right", 75, "smoking", "room", ["smokingarea"], "吸烟区", "Smoking area"),
    ((-1,), "south", "left", 75, "parking-a", "room", ["parking"], "停车场入口 A", "Car park entrance A"),
    ((-1,), "north", "right", 75, "parking-b", "room", ["parking"], "停车场入口 B", "Car park entrance B"),
]
# Facilities standing in a corridor or the atrium: (floors, wing or None for the
# atrium, offset, side offset, key, amenity category, zh, en).
FACILITY_POINTS = [
    ((-1, 1), "east", 72, 3, "atm", "atm", "自动取款机", "ATM"),
    ((1, 2, 3, 4, 5), None, -8, 8, "charging", "powerchargingstation", "充电站", "Phone charging"),
    ((-1,), "west", 72, -3, "lockers", "coinlocker", "储物柜", "Lockers"),
    ((1,), "south", 27, 3, "lockers", "coinlocker", "储物柜", "Lockers"),
    ((3, 5), "west", 66, -3, "water", "drinkingfountain", "饮水机", "Drinking water"),
]


def amenity(amenity_id, category, at, unit_id, zh, en, accessibility=None):
    return feature(amenity_id, "amenity", point(*at), {
        "category": category, "accessibility": accessibility, "unit_ids": [unit_id],
        "name": labels(zh, en), "alt_name": None, "hours": None, "phone": None,
        "website": None, "address_id": None, "correlation_id": None,
    })


CATEGORY = {
    "supermarket": "grocery", "personal_care": "personalcare", "snacks": "grocery",
    "coffee": "coffee", "tea_drinks": "restaurant", "fast_food": "restaurant.fastfood",
    "electronics": "electronics", "toys": "toys", "beauty": "beauty", "fashion": "clothing",
    "sportswear": "sportinggoods", "sports": "sportinggoods", "kids": "toys", "home": "homefurnishings",
    "kitchenware": "homefurnishings", "restaurant": "restaurant",
}


def main():
    global LON0, LAT0, M_PER_DEG_LON, OUT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", default=CATALOG)
    parser.add_argument("--out", default=OUT)
    parser.add_argument("--lon", type=float, default=LON0)
    parser.add_argument("--lat", type=float, default=LAT0)
    parser.add_argument("--address", default="1 Galaxy Road")
    parser.add_argument("--locality", default="Shanghai")
    parser.add_argument("--province", default="CN-SH")
    parser.add_argument("--postal", default="200000")
    args = parser.parse_args()
    LON0, LAT0, OUT = args.lon, args.lat, args.out
    M_PER_DEG_LON = 111_320.0 * math.cos(math.radians(LAT0))
    catalog = json.load(open(args.catalog, encoding="utf-8"))
    mall = catalog["mall"]
    venue_id = fid("venue")
    building_id = fid("building")
    address_id = fid("address")
    levels, units, openings, amenities, occupants, anchors, sections, relationships = ([] for _ in range(8))
    walkways = {}  # floor -> {"atrium": id, wing: id}
    lifts, escalators, stairs = {}, {}, {}
    placed = {}  # floor -> [(id, polygon)]: rooms that must not overlap

    for fl in catalog["floors"]:
        floor = fl["floor"]
        ordinal = floor - 1 if floor > 0 else floor
        level_id = fid("level", floor)
        levels.append(feature(level_id, "level", polygon(rect(-WING_LEN - 1, -wing_length("south", floor) - 1,
                                                                 WING_LEN + 7, WING_LEN + 1)), {
            "category": "unspecified", "restriction": None, "ordinal": ordinal, "outdoor": False,
            "name": labels(fl["name"], fl["name_en"]), "short_name": labels(fl["label"], fl["label"]),
            "display_point": point(0, 0), "address_id": None, "building_ids": [building_id],
        }))
        w = walkways.setdefault(floor, {})
        # The atrium: a square around the escalators and the lift.
        esc = rect(-2, -5, 2, 5)
        lift = rect(5, 5, 9, 9)
        atrium_id = fid("unit", floor, "atrium")
        w["atrium"] = atrium_id
        units.append(feature(atrium_id, "unit", polygon(rect(-ATRIUM, -ATRIUM, ATRIUM, ATRIUM), [esc, lift]), {
            "category": "walkway", "restriction": None, "accessibility": None,
            "name": labels("中庭", "atrium"), "alt_name": None,
            "level_id": level_id, "display_point": point(-6, -6),
        }))
        esc_id = fid("unit", floor, "escalator")
        escalators[floor] = esc_id
        units.append(feature(esc_id, "unit", polygon(esc), {
            "category": "escalator", "restriction": None, "accessibility": None,
            "name": labels("中庭扶梯", "Atrium escalators"), "alt_name": None,
            "level_id": level_id, "display_point": point(0, 0),
        }))
        openings.append(feature(fid("opening", floor, "escalator"), "opening", line((-1.5, -5), (1.5, -5)), {
            "category": "pedestrian", "accessibility": None, "access_control": None, "door": None,
            "name": None, "alt_name": None, "display_point": point(0, -5), "level_id": level_id,
        }))
        lift_id = fid("unit", floor, "elevator")
        lifts[floor] = lift_id
        units.append(feature(lift_id, "unit", polygon(lift), {
            "category": "elevator", "restriction": None, "accessibility": ["wheelchair"],
            "name": labels("中庭电梯", "Atrium lift"), "alt_name": None,
            "level_id": level_id, "display_point": point(7, 7),
        }))
        openings.append(feature(fid("opening", floor, "elevator"), "opening", line((5.5, 5), (8.5, 5)), {
            "category": "pedestrian", "accessibility": ["wheelchair"], "access_control": None,
            "door": {"type": "sliding", "automatic": True, "material": "metal"},
            "name": None, "alt_name": None, "display_point": point(7, 5), "level_id": level_id,
        }))
        for wing in WINGS:
            length = wing_length(wing, floor)
            a = along(wing, ATRIUM, -CORRIDOR)
            b = along(wing, length, CORRIDOR)
            cid = fid("unit", floor, "corridor", wing)
            w[wing] = cid
            zh = {"east": "东侧", "west": "西侧", "north": "北侧", "south": "南侧"}[wing]
            units.append(feature(cid, "unit", polygon(rect(*a, *b)), {
                "category": "walkway", "restriction": None, "accessibility": None,
                "name": labels(f"{zh}走廊", f"{wing} corridor"), "alt_name": None,
                "level_id": level_id, "display_point": point(*along(wing, (ATRIUM + length) / 2, 0)),
            }))
            # The corridor opens onto the atrium along its whole width.
            openings.append(feature(fid("opening", floor, "atrium", wing), "opening",
                                    line(along(wing, ATRIUM, -CORRIDOR), along(wing, ATRIUM, CORRIDOR)), {
                "category": "pedestrian", "accessibility": ["wheelchair"], "access_control": None, "door": None,
                "name": None, "alt_name": None, "display_point": point(*along(wing, ATRIUM, 0)),
                "level_id": level_id,
            }))
        # Stairs at the east end.
        stairs_poly = rect(WING_LEN, -CORRIDOR, WING_LEN + 6, CORRIDOR)
        sid = fid("unit", floor, "stairs")
        stairs[floor] = sid
        units.append(feature(sid, "unit", polygon(stairs_poly), {
            "category": "stairs", "restriction": None, "accessibility": None,
            "name": labels("东侧楼梯", "East stairs"), "alt_name": None,
            "level_id": level_id, "display_point": point(WING_LEN + 3, 0),
        }))
        openings.append(feature(fid("opening", floor, "stairs"), "opening",
                                line((WING_LEN, -2), (WING_LEN, 2)), {
            "category": "pedestrian", "accessibility": None, "access_control": None,
            "door": {"type": "hinged", "automatic": False, "material": "metal"},
            "name": None, "alt_name": None, "display_point": point(WING_LEN, 0), "level_id": level_id,
        }))
        # Restrooms at the west end, on the right walking out.
        rr = rect(*along("west", 70, -CORRIDOR), *along("west", 80, -CORRIDOR - DEPTH))
        rid = fid("unit", floor, "restroom")
        units.append(feature(rid, "unit", polygon(rr), {
            "category": "restroom", "restriction": None, "accessibility": ["wheelchair"],
            "name": labels("洗手间", "Restrooms"), "alt_name": None,
            "level_id": level_id, "display_point": point(*centre(rr)),
        }))
        openings.append(feature(fid("opening", floor, "restroom"), "opening",
                                line(along("west", 73, -CORRIDOR), along("west", 77, -CORRIDOR)), {
            "category": "pedestrian", "accessibility": ["wheelchair"], "access_control": None, "door": None,
            "name": None, "alt_name": None, "display_point": point(*along("west", 75, -CORRIDOR)),
            "level_id": level_id,
        }))
        amenities.append(feature(fid("amenity", floor, "restroom"), "amenity", point(*centre(rr)), {
            "category": "restroom", "accessibility": ["wheelchair"], "unit_ids": [rid],
            "name": labels("洗手间", "Restrooms"), "alt_name": None, "hours": None, "phone": None,
            "website": None, "address_id": None, "correlation_id": None,
        }))
        # The other facilities of this floor: rooms off a corridor, and points in one.
        for floors, wing, side, off, key, category, categories, zh, en in FACILITY_ROOMS:
            if floor not in floors:
                continue
            sign = 1 if side == "left" else -1
            poly = rect(*along(wing, off - WIDTH / 2, sign * CORRIDOR),
                        *along(wing, off + WIDTH / 2, sign * (CORRIDOR + DEPTH)))
            assert off + WIDTH / 2 <= wing_length(wing, floor), f"{key} is past the end of its corridor"
            placed.setdefault(floor, []).append((f"facility-{key}", poly))
            uid = fid("unit", floor, key)
            wheelchair = ["wheelchair"] if "wheelchair" in category or key.startswith("parking") else None
            units.append(feature(uid, "unit", polygon(poly), {
                "category": category, "restriction": None, "accessibility": wheelchair,
                "name": labels(zh, en), "alt_name": None,
                "level_id": level_id, "display_point": point(*centre(poly)),
            }))
            # The accessible restroom's door is past the restrooms' (further along the corridor).
            door = off + 3 if key == "accessible" else off
            openings.append(feature(fid("opening", floor, key), "opening",
                                    line(along(wing, door - 1.5, sign * CORRIDOR), along(wing, door + 1.5, sign * CORRIDOR)), {
                "category": "pedestrian", "accessibility": ["wheelchair"], "access_control": None,
                "door": {"type": "hinged", "automatic": False, "material": "wood"},
                "name": None, "alt_name": None, "display_point": point(*along(wing, door, sign * CORRIDOR)),
                "level_id": level_id,
            }))
            for category_ in categories:
                amenities.append(amenity(fid("amenity", floor, key, category_), category_, centre(poly), uid, zh, en,
                                         wheelchair))
        for floors, wing, off, side_off, key, category, zh, en in FACILITY_POINTS:
            if floor not in floors:
                continue
            at = (off, side_off) if wing is None else along(wing, off, side_off)
            unit_id = w["atrium"] if wing is None else w[wing]
            amenities.append(amenity(fid("amenity", floor, key), category, at, unit_id, zh, en))
        for kind, uid, at in (("escalator", esc_id, (0, 0)), ("elevator", lift_id, (7, 7)),
                              ("stairs", sid, (WING_LEN + 3, 0))):
            amenities.append(feature(fid("amenity", floor, kind), "amenity", point(*at), {
                "category": kind, "accessibility": ["wheelchair"] if kind == "elevator" else None,
                "unit_ids": [uid], "name": None, "alt_name": None, "hours": None, "phone": None,
                "website": None, "address_id": None, "correlation_id": None,
            }))

    # Entrances: openings on the outer wall, with the catalog's id in `ref`.
    entrances = [
        ("main_entrance", 1, "south", SOUTH_1F, "正门（南门）", "Main entrance (south)", "pedestrian.principal"),
        ("north_gate", 1, "north", WING_LEN, "北门", "North gate", "pedestrian"),
        ("metro_entrance", -1, "west", WING_LEN, "地铁入口", "Metro entrance", "pedestrian"),
    ]
    present = {f["floor"] for f in catalog["floors"]}
    for ref, floor, wing, length, zh, en, category in entrances:
        if floor not in present:
            continue
        openings.append(feature(fid("opening", "entrance", ref), "opening",
                                line(along(wing, length, -3), along(wing, length, 3)), {
            "category": category, "accessibility": ["wheelchair"], "access_control": None,
            "door": {"type": "sliding", "automatic": True, "material": "glass"},
            "name": labels(zh, en), "alt_name": None, "display_point": point(*along(wing, length, 0)),
            "level_id": fid("level", floor), "ref": ref,
        }))

    # Stores: a unit, its door onto the corridor, an anchor and the occupant.
    for store in catalog["stores"]:
        floor, pos = store["floor"], store["position"]
        wing, off = pos["wing"], pos["offset_m"]
        sign = 1 if pos["side"] == "left" else -1
        poly = rect(*along(wing, off - WIDTH / 2, sign * CORRIDOR), *along(wing, off + WIDTH / 2, sign * (CORRIDOR + DEPTH)))
        for other, other_poly in placed.get(floor, []):
            assert not overlaps(poly, other_poly), f"{store['id']} overlaps {other}"
        assert off + WIDTH / 2 <= wing_length(wing, floor), f"{store['id']} is past the end of its corridor"
        placed.setdefault(floor, []).append((store["id"], poly))
        level_id = fid("level", floor)
        uid = fid("unit", store["id"])
        door = along(wing, off, sign * CORRIDOR)
        units.append(feature(uid, "unit", polygon(poly), {
            "category": "room", "restriction": None, "accessibility": None,
            "name": labels(store["unit"], store["unit"]), "alt_name": None,
            "level_id": level_id, "display_point": point(*centre(poly)),
        }))
        openings.append(feature(fid("opening", store["id"]), "opening",
                                line(along(wing, off - 2, sign * CORRIDOR), along(wing, off + 2, sign * CORRIDOR)), {
            "category": "pedestrian", "accessibility": ["wheelchair"], "access_control": None,
            "door": {"type": "open", "automatic": False, "material": None},
            "name": None, "alt_name": None, "display_point": point(*door), "level_id": level_id,
        }))
        anchor_id = fid("anchor", store["id"])
        anchors.append(feature(anchor_id, "anchor", point(*centre(poly)), {"address_id": None, "unit_id": uid}))
        occupants.append(feature(fid("occupant", store["id"]), "occupant", None, {
            "category": CATEGORY.get(store["category"], "unspecified"),
            "name": labels(store["name"], store["name_en"]), "anchor_id": anchor_id,
            "hours": None, "phone": store["phone"], "website": None, "validity": None,
            "correlation_id": None, "ref": store["id"],
        }))

    # Areas: a section around their stores' units.
    by_id = dict((sid_, poly) for polys in placed.values() for sid_, poly in polys)
    for area in catalog["areas"]:
        pts = [p for s in area["store_ids"] for p in by_id[s]]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        box = rect(min(xs), min(ys), max(xs), max(ys))
        sections.append(feature(fid("section", area["id"]), "section", polygon(box), {
            "category": "shopping", "restriction": None, "accessibility": None,
            "name": labels(area["name"], area["name_en"]), "alt_name": None,
            "display_point": point(*centre(box)), "level_id": fid("level", area["floor"]),
            "address_id": None, "correlation_id": None, "parents": None, "ref": area["id"],
        }))

    # Vertical connections between adjacent floors.
    floors = sorted(f["floor"] for f in catalog["floors"])
    for lower, upper in zip(floors, floors[1:]):
        for kind, table in (("escalator", escalators), ("elevator", lifts), ("stairs", stairs)):
            relationships.append(feature(fid("relationship", kind, lower), "relationship", None, {
                "category": kind, "direction": "undirected",
                "origin": {"id": table[lower], "feature_type": "unit"}, "intermediary": None,
                "destination": {"id": table[upper], "feature_type": "unit"}, "hours": None,
            }))

    venue = feature(venue_id, "venue", polygon(rect(-WING_LEN - 1, -WING_LEN - 1, WING_LEN + 7, WING_LEN + 1)), {
        "category": "shoppingcenter", "restriction": None, "name": labels(mall["name"], mall["name_en"]),
        "alt_name": None, "hours": "Mo-Su 10:00-22:00", "phone": None, "website": None,
        "display_point": point(0, 0), "address_id": address_id,
    })
    building = feature(building_id, "building", None, {
        "category": "unspecified", "restriction": None, "name": labels(mall["name"], mall["name_en"]),
        "alt_name": None, "display_point": point(0, 0), "address_id": address_id,
    })
    address = feature(address_id, "address", None, {
        "address": args.address, "unit": None, "locality": args.locality, "province": args.province,
        "country": "CN", "postal_code": args.postal, "postal_code_ext": None, "postal_code_vanity": None,
    })

    os.makedirs(OUT, exist_ok=True)

    def write(name, features):
        with open(os.path.join(OUT, name + ".geojson"), "w", encoding="utf-8") as f:
            json.dump({"type": "FeatureCollection", "name": name, "features": features}, f, ensure_ascii=False,
                      separators=(",", ":"))
            f.write("\n")

    with open(os.path.join(OUT, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"version": "1.0.0", "created": "2026-11-24T00:00:00Z", "generated_by": "gen_demo_imdf.py",
                   "language": "zh-CN", "extensions": None}, f, indent=2)
        f.write("\n")
    write("address", [address])
    write("venue", [venue])
    write("building", [building])
    write("level", levels)
    write("unit", units)
    write("opening", openings)
    write("amenity", amenities)
    write("anchor", anchors)
    write("occupant", occupants)
    write("section", sections)
    write("relationship", relationships)
    print(f"{OUT}: {len(levels)} levels, {len(units)} units, {len(openings)} openings, {len(occupants)} occupants")


if __name__ == "__main__":
    main()

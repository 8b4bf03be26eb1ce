#!/usr/bin/env python3
"""Generates services/data/demo-mall.json, the demo mall's catalog.

The JSON is the source of truth at run time (loaded with `include_str!`); this
script only expands the hand-written brand and product-line templates below
into it. It is deterministic: run it again and the file is the same.

    python3 services/data/gen_demo_mall.py
"""

import json
import math
import random
from pathlib import Path

OUT = Path(__file__).with_name("demo-mall.json")
RNG = random.Random(20261101)

# --------------------------------------------------------------------------
# Floors and areas
# --------------------------------------------------------------------------

FLOORS = [
    (-1, "B1", "生活超市与轻食", "Supermarket & quick bites"),
    (1, "1F", "国际品牌与美妆", "Flagships & beauty"),
    (2, "2F", "潮流服饰", "Fashion"),
    (3, "3F", "运动天地", "Sports"),
    (4, "4F", "数码科技与亲子", "Electronics & kids"),
    (5, "5F", "家居生活与美食广场", "Home & food court"),
]

# id, name, name_en, floor, description
AREAS = [
    ("a-supermarket", "生活超市", "Supermarket", -1, "生鲜、零食与日用品，一站买齐。Fresh food, snacks and daily needs."),
    ("a-quick-bites", "轻食小吃街", "Quick Bites", -1, "咖啡、茶饮和快餐，逛累了歇一歇。Coffee, tea and fast food."),
    ("a-atrium", "中庭品牌馆", "Atrium Flagships", 1, "正门进来就是中庭，旗舰店和咖啡馆环绕。Flagship stores around the atrium."),
    ("a-beauty", "美妆天地", "Beauty Hall", 1, "国际与国货美妆护肤、香水。Cosmetics, skincare and fragrance."),
    ("a-fashion", "潮流服饰", "Fashion Street", 2, "快时尚、牛仔与羽绒服。Fast fashion, denim and down jackets."),
    ("a-sports", "运动天地", "Sports Zone", 3, "跑鞋、球鞋、运动服和户外装备。Running, basketball, outdoor."),
    ("a-electronics", "数码科技", "Electronics", 4, "手机、电脑、耳机、无人机和游戏机。Phones, laptops, drones."),
    ("a-kids", "亲子乐园", "Kids & Toys", 4, "玩具、积木、潮玩和童装。Toys, building blocks and kids' clothes."),
    ("a-home", "家居生活", "Home & Living", 5, "家居、收纳、厨具和小物。Homeware, storage and kitchenware."),
    ("a-food-court", "美食广场", "Food Court", 5, "火锅、中餐和小笼包，周末建议提前取号。Hotpot and Chinese dining."),
]

# --------------------------------------------------------------------------
# Categories (product and store), with the words shoppers use for them
# id, name, name_en, parents, extra search terms
# --------------------------------------------------------------------------

CATEGORIES = [
    # groups
    ("shoes", "鞋", "shoes", [], ["鞋子", "footwear"]),
    ("clothing", "服装", "clothing", [], ["衣服", "服饰", "apparel", "clothes"]),
    ("sports", "运动", "sports", [], ["体育", "sport", "运动用品", "sporting goods"]),
    ("electronics", "数码", "electronics", [], ["数码产品", "电子产品", "digital", "gadgets", "3c"]),
    ("beauty", "美妆", "beauty", [], ["化妆品", "美容", "cosmetics"]),
    ("food", "美食", "food", [], ["餐饮", "吃的", "dining", "eat"]),
    ("drinks", "饮品", "drinks", [], ["饮料", "beverage", "beverages", "drink"]),
    ("home", "家居", "home", [], ["家居用品", "homeware", "household", "home living"]),
    ("kids", "儿童", "kids", [], ["孩子", "小孩", "宝宝", "children", "child", "baby"]),
    ("toys", "玩具", "toys", ["kids"], ["toy"]),
    ("bags", "包", "bags", [], ["包包", "背包", "双肩包", "bag", "backpack"]),
    # shoes
    ("running_shoes", "跑鞋", "running shoes", ["shoes", "sports"], ["跑步鞋", "慢跑鞋", "running shoe", "runners", "running_shoes"]),
    ("sneakers", "运动鞋", "sneakers", ["shoes"], ["板鞋", "休闲鞋", "球鞋", "sneaker", "trainers"]),
    ("basketball_shoes", "篮球鞋", "basketball shoes", ["shoes", "sports"], ["basketball shoe"]),
    ("hiking_shoes", "徒步鞋", "hiking shoes", ["shoes", "sports"], ["登山鞋", "hiking boots", "hiking shoe"]),
    ("kids_shoes", "童鞋", "kids shoes", ["shoes", "kids"], ["儿童鞋", "kids shoe"]),
    # clothing
    ("t_shirts", "T恤", "t-shirts", ["clothing"], ["短袖", "体恤", "tee", "tees", "tshirt", "t shirt"]),
    ("shirts", "衬衫", "shirts", ["clothing"], ["衬衣", "shirt"]),
    ("jackets", "夹克", "jackets", ["clothing"], ["外套", "冲锋衣", "西装", "jacket", "coat", "blazer"]),
    ("down_jackets", "羽绒服", "down jackets", ["clothing"], ["羽绒", "down jacket", "puffer", "down coat"]),
    ("hoodies", "卫衣", "hoodies", ["clothing"], ["连帽衫", "hoodie", "sweatshirt"]),
    ("sweaters", "毛衣", "sweaters", ["clothing"], ["针织衫", "羊毛衫", "sweater", "knitwear", "cardigan"]),
    ("jeans", "牛仔裤", "jeans", ["clothing"], ["denim"]),
    ("trousers", "裤子", "trousers", ["clothing"], ["长裤", "休闲裤", "运动裤", "pants"]),
    ("shorts", "短裤", "shorts", ["clothing"], []),
    ("dresses", "连衣裙", "dresses", ["clothing"], ["裙子", "长裙", "dress", "skirt"]),
    ("innerwear", "内衣", "innerwear", ["clothing"], ["保暖内衣", "underwear", "thermal"]),
    ("kids_clothing", "童装", "kids clothing", ["clothing", "kids"], ["儿童服装", "kids clothes", "children clothing"]),
    # sports gear
    ("sports_equipment", "运动装备", "sports equipment", ["sports"], ["健身", "瑜伽垫", "equipment", "fitness", "yoga mat"]),
    ("balls", "球类", "balls", ["sports"], ["ball"]),
    ("camping", "露营", "camping", ["sports"], ["帐篷", "露营装备", "tent"]),
    # electronics
    ("phones", "手机", "phones", ["electronics"], ["智能手机", "phone", "smartphone", "mobile", "cellphone"]),
    ("laptops", "笔记本电脑", "laptops", ["electronics"], ["笔记本", "电脑", "laptop", "notebook", "computer"]),
    ("tablets", "平板电脑", "tablets", ["electronics"], ["平板", "tablet"]),
    ("headphones", "耳机", "headphones", ["electronics"], ["蓝牙耳机", "无线耳机", "headphone", "earbuds", "earphones"]),
    ("wearables", "智能手表", "smartwatches", ["electronics"], ["手表", "手环", "智能手环", "smartwatch", "watch", "band", "wearable"]),
    ("cameras", "相机", "cameras", ["electronics"], ["照相机", "微单", "camera"]),
    ("drones", "无人机", "drones", ["electronics"], ["航拍", "drone"]),
    ("tvs", "电视", "tvs", ["electronics"], ["电视机", "tv", "television"]),
    ("gaming", "游戏机", "game consoles", ["electronics"], ["游戏", "console", "gaming"]),
    ("chargers", "数码配件", "accessories", ["electronics"], ["充电器", "充电宝", "数据线", "charger", "power bank", "cable"]),
    # beauty
    ("skincare", "护肤", "skincare", ["beauty"], ["护肤品", "面霜", "精华", "面膜", "serum", "cream", "face mask"]),
    ("makeup", "彩妆", "makeup", ["beauty"], ["口红", "粉底", "眼影", "lipstick", "foundation", "eyeshadow"]),
    ("fragrance", "香水", "fragrance", ["beauty"], ["香氛", "perfume", "fragrances"]),
    ("personal_care", "个护", "personal care", [], ["洗护", "洗发水", "牙膏", "shampoo", "toothpaste"]),
    # food and drinks
    ("coffee", "咖啡", "coffee", ["drinks"], ["咖啡豆", "cafe", "café", "coffee beans"]),
    ("tea_drinks", "奶茶", "milk tea", ["drinks"], ["茶饮", "果茶", "bubble tea", "tea"]),
    ("fast_food", "快餐", "fast food", ["food"], ["汉堡", "炸鸡", "burger", "fried chicken"]),
    ("hotpot", "火锅", "hotpot", ["food"], ["火锅底料", "hot pot"]),
    ("chinese_food", "中餐", "chinese food", ["food"], ["中式", "家常菜", "chinese"]),
    ("dumplings", "小笼包", "dumplings", ["food"], ["饺子", "包子", "dumpling", "xiaolongbao"]),
    ("snacks", "零食", "snacks", ["food"], ["小吃", "坚果", "snack", "nuts"]),
    ("groceries", "生鲜", "groceries", ["food"], ["水果", "蔬菜", "grocery", "fresh food"]),
    # home
    ("kitchenware", "厨具", "kitchenware", ["home"], ["锅", "刀具", "炒锅", "cookware", "knife", "pan", "pot"]),
    ("drinkware", "杯子", "drinkware", ["home"], ["水杯", "保温杯", "马克杯", "cup", "mug", "tumbler"]),
    ("home_textiles", "家纺", "home textiles", ["home"], ["床品", "毛巾", "床单", "bedding", "towel"]),
    ("storage", "收纳", "storage", ["home"], ["收纳盒", "storage box", "organizer"]),
    ("stationery", "文具", "stationery", [], ["笔", "本子", "pen", "notebook paper"]),
    ("home_fragrance", "香薰", "home fragrance", ["home"], ["香薰机", "aroma", "diffuser"]),
    # toys
    ("building_blocks", "积木", "building blocks", ["toys"], ["拼装", "bricks", "building set"]),
    ("blind_boxes", "盲盒", "blind boxes", ["toys"], ["潮玩", "手办", "blind box", "figure", "art toy"]),
    ("dolls", "娃娃", "dolls", ["toys"], ["玩偶", "毛绒玩具", "doll", "plush"]),
    ("model_cars", "玩具车", "toy cars", ["toys"], ["合金车", "遥控车", "toy car", "rc car"]),
    # store-only categories
    ("sportswear", "运动服饰", "sportswear", ["sports", "clothing"], ["运动品牌", "运动服", "activewear"]),
    ("outdoor", "户外运动", "outdoor sports", ["sports"], ["户外用品", "outdoor gear"]),
    ("fashion", "时装", "fashion", ["clothing"], ["快时尚", "女装", "男装", "fashion store"]),
    ("supermarket", "超市", "supermarket store", [], ["便利店", "market"]),
    ("restaurant", "餐厅", "restaurant", ["food"], ["饭店", "餐馆", "吃饭", "restaurants"]),
]

# Words shoppers use that are not brands or categories; each group is one meaning.
SYNONYMS = [
    ["男", "男子", "男款", "男士", "男式", "men", "mens", "man", "male"],
    ["女", "女子", "女款", "女士", "女式", "women", "womens", "woman", "ladies", "lady", "female"],
    ["黑色", "黑", "black"],
    ["白色", "白", "white"],
    ["红色", "红", "red"],
    ["蓝色", "蓝", "blue"],
    ["灰色", "灰", "grey", "gray"],
    ["绿色", "绿", "green"],
    ["粉色", "粉", "pink"],
    ["跑步", "跑", "running", "run"],
    ["篮球", "basketball"],
    ["足球", "football", "soccer"],
    ["无线", "wireless"],
    ["降噪", "noise cancelling", "anc"],
    ["防水", "waterproof"],
    ["轻便", "轻量", "lightweight", "light"],
    ["保暖", "warm"],
    ["拿铁", "latte"],
    ["美式", "americano"],
    ["冰", "冰的", "iced", "ice"],
    ["热", "热的", "hot"],
    ["套餐", "set meal", "combo", "meal"],
    ["防晒", "sunscreen", "spf"],
]

STOPWORDS = [
    "的", "了", "吗", "呢", "吧", "啊", "和", "或", "个", "些", "买", "要", "找", "给", "请",
    "帮我", "帮忙", "给我", "我想", "我要", "想要", "想买", "需要", "有没有", "有吗", "哪里", "在哪", "在哪里",
    "一双", "一件", "一个", "一台", "一杯", "一部", "一份", "一条", "一些", "几个",
    "以内", "以下", "之内", "左右", "不超过", "最多", "价格", "多少钱", "块钱", "元", "块",
    "推荐", "看看", "什么", "怎么样", "便宜", "便宜的",
    "i", "me", "my", "a", "an", "the", "for", "with", "to", "of", "and", "or", "in", "on", "some", "any",
    "want", "need", "buy", "find", "show", "please", "pair", "under", "below", "less", "than", "cheap",
    "yuan", "rmb", "cny", "do", "you", "have", "looking", "get", "size", "尺码", "码数",
]

# --------------------------------------------------------------------------
# Brands: id, name, Chinese name, extra aliases
# --------------------------------------------------------------------------

BRANDS = [
    ("nike", "Nike", "耐克", []),
    ("adidas", "Adidas", "阿迪达斯", ["阿迪"]),
    ("li_ning", "Li-Ning", "李宁", ["lining"]),
    ("anta", "Anta", "安踏", []),
    ("puma", "Puma", "彪马", []),
    ("new_balance", "New Balance", "新百伦", ["nb"]),
    ("skechers", "Skechers", "斯凯奇", []),
    ("decathlon", "Decathlon", "迪卡侬", []),
    ("uniqlo", "Uniqlo", "优衣库", []),
    ("zara", "Zara", "飒拉", []),
    ("hm", "H&M", "海恩斯莫里斯", ["hm"]),
    ("levis", "Levi's", "李维斯", ["levis"]),
    ("bosideng", "Bosideng", "波司登", []),
    ("semir", "Semir", "森马", []),
    ("peacebird", "Peacebird", "太平鸟", []),
    ("apple", "Apple", "苹果", []),
    ("huawei", "Huawei", "华为", []),
    ("xiaomi", "Xiaomi", "小米", ["mi", "redmi", "红米"]),
    ("lenovo", "Lenovo", "联想", ["thinkpad"]),
    ("dji", "DJI", "大疆", []),
    ("sony", "Sony", "索尼", ["playstation"]),
    ("lego", "LEGO", "乐高", []),
    ("balabala", "Balabala", "巴拉巴拉", []),
    ("toysrus", "Toys\"R\"Us", "玩具反斗城", ["toys r us", "toysrus"]),
    ("barbie", "Barbie", "芭比", []),
    ("hot_wheels", "Hot Wheels", "风火轮", []),
    ("pop_mart", "Pop Mart", "泡泡玛特", ["popmart"]),
    ("sephora", "Sephora", "丝芙兰", []),
    ("dior", "Dior", "迪奥", []),
    ("ysl", "YSL", "圣罗兰", ["yves saint laurent"]),
    ("estee_lauder", "Estée Lauder", "雅诗兰黛", []),
    ("lancome", "Lancôme", "兰蔻", []),
    ("perfect_diary", "Perfect Diary", "完美日记", []),
    ("watsons", "Watsons", "屈臣氏", []),
    ("colgate", "Colgate", "高露洁", []),
    ("head_shoulders", "Head & Shoulders", "海飞丝", []),
    ("freshippo", "Freshippo", "盒马", ["盒马鲜生", "hema"]),
    ("bestore", "BESTORE", "良品铺子", []),
    ("luckin", "Luckin Coffee", "瑞幸咖啡", ["瑞幸", "luckin"]),
    ("heytea", "HEYTEA", "喜茶", ["hey tea"]),
    ("mcdonalds", "McDonald's", "麦当劳", ["mcdonald", "mcd", "金拱门"]),
    ("kfc", "KFC", "肯德基", []),
    ("starbucks", "Starbucks", "星巴克", []),
    ("muji", "Muji", "无印良品", []),
    ("miniso", "MINISO", "名创优品", []),
    ("zwilling", "Zwilling", "双立人", []),
    ("haidilao", "Haidilao", "海底捞", []),
    ("xibei", "Xibei", "西贝", ["西贝莜面村"]),
    ("din_tai_fung", "Din Tai Fung", "鼎泰丰", []),
    ("taier", "Tai Er", "太二", ["太二酸菜鱼"]),
]
BRAND = {b[0]: b for b in BRANDS}

# --------------------------------------------------------------------------
# SKU kinds: how a product line is sold
# --------------------------------------------------------------------------

SHOE_COLOURS = [("黑白", "Black/White"), ("全黑", "Triple Black"), ("白灰", "White/Grey"),
                ("冰川蓝", "Glacier Blue"), ("荧光绿", "Volt Green"), ("酒红", "Burgundy")]
WEAR_COLOURS = [("黑色", "Black"), ("白色", "White"), ("藏青", "Navy"), ("灰色", "Grey"),
                ("卡其", "Khaki"), ("军绿", "Olive"), ("酒红", "Burgundy")]
PHONE_COLOURS = [("曜石黑", "Obsidian Black", "black"), ("云母白", "Mica White", "white"),
                 ("远峰蓝", "Sierra Blue", "blue")]


def sizes(kind):
    """(label, slug, price delta in yuan) for the SKUs of a kind; None = no SKUs."""
    if kind == "shoe_m":
        return [(str(s), str(s), 0) for s in range(39, 46)]
    if kind == "shoe_w":
        return [(str(s), str(s), 0) for s in range(35, 41)]
    if kind == "shoe_u":
        return [(str(s), str(s), 0) for s in range(36, 46)]
    if kind == "shoe_kids":
        return [(str(s), str(s), 0) for s in (26, 28, 30, 32, 34)]
    if kind == "wear_m":
        return [(s, s.lower(), 0) for s in ("S", "M", "L", "XL", "XXL")]
    if kind == "wear_w":
        return [(s, s.lower(), 0) for s in ("XS", "S", "M", "L", "XL")]
    if kind == "wear_kids":
        return [(f"{s}cm", f"{s}", 0) for s in (100, 110, 120, 130, 140, 150)]
    if kind == "jeans":
        return [(f"W{s}", f"w{s}", 0) for s in (28, 29, 30, 31, 32, 33, 34)]
    if kind == "drink":
        return [("中杯 Tall", "tall", 0), ("大杯 Grande", "grande", 3), ("超大杯 Venti", "venti", 6)]
    if kind == "tea":
        return [("标准糖", "regular", 0), ("少糖", "less-sugar", 0), ("不另外加糖", "no-sugar", 0)]
    if kind == "hot_iced":
        return [("热 Hot", "hot", 0), ("冰 Iced", "iced", 0)]
    if kind == "pieces":
        return [("5块", "5pc", 0), ("10块", "10pc", 11)]
    if kind == "fries":
        return [("中份 Medium", "medium", 0), ("大份 Large", "large", 3)]
    if kind == "cream":
        return [("30ml", "30ml", 0), ("50ml", "50ml", "x1.5")]
    if kind == "perfume":
        return [("50ml", "50ml", 0), ("100ml", "100ml", "x1.5")]
    if kind == "watch":
        return [("42mm", "42mm", 0), ("46mm", "46mm", 200)]
    if kind == "buds":
        return [("白色 White", "white", 0), ("黑色 Black", "black", 0)]
    if kind == "blind":
        return [("单盒 Single box", "single", 0), ("整盒 12 只 Whole set", "set", "x12")]
    if kind == "pot":
        return [("24cm", "24cm", 0), ("28cm", "28cm", "x1.2")]
    if kind.startswith("phone"):
        # phone:<base storage GB>
        base = int(kind.split(":")[1])
        out = []
        for zh, en, slug in PHONE_COLOURS[:2]:
            out.append((f"{zh} {base}GB", f"{slug}-{base}gb", 0))
            out.append((f"{zh} {base * 2}GB", f"{slug}-{base * 2}gb", 1000))
        return out
    if kind == "tablet":
        return [("128GB", "128gb", 0), ("256GB", "256gb", 800)]
    if kind == "laptop":
        return [("16GB+512GB", "16g-512g", 0), ("32GB+1TB", "32g-1t", 2000)]
    if kind == "none":
        return None
    raise ValueError(kind)


def colour_list(kind):
    if kind.startswith("shoe"):
        return SHOE_COLOURS
    if kind in ("wear_m", "wear_w", "wear_kids", "jeans"):
        return WEAR_COLOURS
    return None


# --------------------------------------------------------------------------
# Stores: id, name, name_en, brand id, category, floor, area, unit,
#         (wing, offset m, side), hours, tags, product lines
# A product line: (model_zh, model_en, desc_zh, desc_en, category, price yuan, sku kind, colourways)
# colourways: how many products (colour versions) to make of the line.
# --------------------------------------------------------------------------

def L(model_zh, model_en, desc_zh, desc_en, cat, price, kind="none", n=1, brand=None):
    return dict(mz=model_zh, me=model_en, dz=desc_zh, de=desc_en, cat=cat, price=price, kind=kind, n=n,
                brand=brand)


SPORT_HOURS = "10:00-22:00"
FOOD_HOURS = "10:00-22:00"

STORES = [
    # ---------------- B1 ----------------
    dict(id="s-freshippo", name="盒马鲜生", en="Freshippo", brand="freshippo", cat="supermarket", area="a-supermarket",
         unit="B1-01", pos=("north", 60, "left"), hours="08:00-22:00", tags=["生鲜", "超市", "fresh food", "外卖"],
         lines=[
             L("盒马", "Freshippo", "有机鲜牛奶 950ml", "Organic Fresh Milk 950ml", "groceries", 19.9),
             L("盒马", "Freshippo", "日日鲜鸡蛋 10枚", "Daily Fresh Eggs x10", "groceries", 12.9),
             L("智利", "Chilean", "车厘子 JJ级 500g", "Cherries JJ grade 500g", "groceries", 59.9),
             L("挪威", "Norwegian", "三文鱼刺身 200g", "Salmon Sashimi 200g", "groceries", 49.9),
             L("澳洲", "Australian", "谷饲西冷牛排 250g", "Grain-fed Sirloin Steak 250g", "groceries", 69.9),
             L("盒马", "Freshippo", "五常大米 5kg", "Wuchang Rice 5kg", "groceries", 79.9),
             L("盒马", "Freshippo", "鲜榨橙汁 1L", "Fresh Orange Juice 1L", "drinks", 25.9),
             L("盒马", "Freshippo", "希腊酸奶 450g", "Greek Yogurt 450g", "groceries", 18.9),
             L("盒马", "Freshippo", "猪肉白菜水饺 500g", "Pork & Cabbage Dumplings 500g", "dumplings", 22.9),
             L("海南", "Hainan", "金煌芒果 2.5kg", "Jinhuang Mango 2.5kg", "groceries", 39.9),
             L("盒马", "Freshippo", "手工碱水面包", "Handmade Pretzel Bread", "groceries", 9.9),
             L("云南", "Yunnan", "蓝莓 125g×4盒", "Blueberries 125g x4", "groceries", 45.9),
             L("盒马", "Freshippo", "冷鲜鸡胸肉 1kg", "Chilled Chicken Breast 1kg", "groceries", 29.9),
             L("新西兰", "New Zealand", "奇异果 12个", "Kiwi Fruit x12", "groceries", 49.9),
             L("盒马", "Freshippo", "精酿啤酒 6罐", "Craft Beer x6", "drinks", 59.9),
             L("盒马", "Freshippo", "冷萃咖啡液 12条", "Cold Brew Concentrate x12", "coffee", 39.9),
         ]),
    dict(id="s-watsons", name="屈臣氏", en="Watsons", brand="watsons", cat="personal_care", area="a-supermarket",
         unit="B1-06", pos=("east", 35, "right"), hours="09:30-22:00", tags=["个护", "药妆", "personal care"],
         lines=[
             L("屈臣氏", "Watsons", "玻尿酸补水面膜 10片", "Hyaluronic Hydrating Masks x10", "skincare", 69),
             L("屈臣氏", "Watsons", "氨基酸洁面乳 150ml", "Amino Acid Cleanser 150ml", "skincare", 49),
             L("屈臣氏", "Watsons", "化妆棉 180片", "Cotton Pads x180", "personal_care", 19.9),
             L("屈臣氏", "Watsons", "清爽防晒喷雾 SPF50", "Sunscreen Spray SPF50", "skincare", 79),
             L("高露洁", "Colgate", "光感白牙膏 120g", "Optic White Toothpaste 120g", "personal_care", 29.9, brand="colgate"),
             L("高露洁", "Colgate", "软毛牙刷 4支装", "Soft Toothbrush x4", "personal_care", 24.9, brand="colgate"),
             L("海飞丝", "Head & Shoulders", "去屑洗发水 400ml", "Anti-dandruff Shampoo 400ml", "personal_care", 59.9, brand="head_shoulders"),
             L("海飞丝", "Head & Shoulders", "丝质柔滑护发素 400ml", "Silky Smooth Conditioner 400ml", "personal_care", 55.9, brand="head_shoulders"),
             L("屈臣氏", "Watsons", "苏打水 8瓶装", "Soda Water x8", "drinks", 29.9),
         ]),
    dict(id="s-bestore", name="良品铺子", en="BESTORE", brand="bestore", cat="snacks", area="a-supermarket",
         unit="B1-09", pos=("east", 55, "left"), hours="09:30-22:00", tags=["零食", "坚果", "伴手礼", "snacks"],
         lines=[
             L("良品铺子", "BESTORE", "每日坚果 750g", "Daily Mixed Nuts 750g", "snacks", 89),
             L("良品铺子", "BESTORE", "高蛋白肉脯 200g", "High-protein Pork Jerky 200g", "snacks", 39.9),
             L("良品铺子", "BESTORE", "芒果干 108g", "Dried Mango 108g", "snacks", 15.9),
             L("良品铺子", "BESTORE", "卤味鸭脖 300g", "Braised Duck Neck 300g", "snacks", 32.9),
             L("良品铺子", "BESTORE", "海苔脆 40g", "Crispy Seaweed 40g", "snacks", 12.9),
             L("良品铺子", "BESTORE", "零食大礼包 1.5kg", "Snack Gift Box 1.5kg", "snacks", 128),
             L("良品铺子", "BESTORE", "碧根果 210g", "Pecans 210g", "snacks", 35.9),
         ]),
    dict(id="s-luckin", name="瑞幸咖啡", en="Luckin Coffee", brand="luckin", cat="coffee", area="a-quick-bites",
         unit="B1-12", pos=("west", 20, "right"), hours="07:30-22:00", tags=["咖啡", "外带", "coffee", "takeaway"],
         lines=[
             L("生椰拿铁", "Coconut Latte", "", "", "coffee", 19, "hot_iced"),
             L("厚乳拿铁", "Velvet Latte", "", "", "coffee", 21, "hot_iced"),
             L("标准美式", "Americano", "", "", "coffee", 15, "hot_iced"),
             L("酱香拿铁", "Moutai-flavoured Latte", "", "", "coffee", 22, "hot_iced"),
             L("橙C美式", "Orange C Americano", "", "", "coffee", 19, "hot_iced"),
             L("丝绒拿铁", "Silky Latte", "", "", "coffee", 21, "hot_iced"),
             L("瑞幸", "Luckin", "精选咖啡豆 250g", "Signature Coffee Beans 250g", "coffee", 69),
             L("瑞幸", "Luckin", "冻干咖啡粉 12颗", "Freeze-dried Coffee x12", "coffee", 49.9),
         ]),
    dict(id="s-heytea", name="喜茶", en="HEYTEA", brand="heytea", cat="tea_drinks", area="a-quick-bites",
         unit="B1-15", pos=("west", 35, "left"), hours="10:00-22:00", tags=["奶茶", "果茶", "milk tea"],
         lines=[
             L("多肉葡萄", "Very Grape Cheezo", "", "", "tea_drinks", 19, "tea"),
             L("芝芝莓莓", "Berry Cheezo", "", "", "tea_drinks", 22, "tea"),
             L("烤黑糖波波牛乳", "Brown Sugar Boba Milk", "", "", "tea_drinks", 16, "tea"),
             L("满杯红柚", "Grapefruit Jasmine Tea", "", "", "tea_drinks", 15, "tea"),
             L("纯绿妍茶", "Pure Green Tea", "", "", "tea_drinks", 9, "tea"),
             L("椰椰芒芒", "Coconut Mango", "", "", "tea_drinks", 18, "tea"),
         ]),
    dict(id="s-mcdonalds", name="麦当劳", en="McDonald's", brand="mcdonalds", cat="fast_food", area="a-quick-bites",
         unit="B1-18", pos=("west", 50, "right"), hours="07:00-23:00", tags=["汉堡", "快餐", "burger", "早餐"],
         lines=[
             L("巨无霸", "Big Mac", "汉堡", "Burger", "fast_food", 25),
             L("麦辣鸡腿堡", "McSpicy Chicken", "汉堡", "Burger", "fast_food", 22),
             L("麦乐鸡", "McNuggets", "", "", "fast_food", 13, "pieces"),
             L("薯条", "French Fries", "", "", "fast_food", 12, "fries"),
             L("奥利奥麦旋风", "Oreo McFlurry", "", "", "fast_food", 15),
             L("麦咖啡 拿铁", "McCafé Latte", "", "", "coffee", 16, "drink"),
             L("双层吉士汉堡套餐", "Double Cheeseburger", "套餐", "Meal", "fast_food", 36),
         ]),
    dict(id="s-kfc", name="肯德基", en="KFC", brand="kfc", cat="fast_food", area="a-quick-bites",
         unit="B1-21", pos=("south", 25, "left"), hours="07:00-23:00", tags=["炸鸡", "快餐", "fried chicken"],
         lines=[
             L("香辣鸡腿堡", "Zinger Burger", "", "", "fast_food", 21),
             L("吮指原味鸡", "Original Recipe Chicken", "1块", "1 piece", "fast_food", 12),
             L("全家桶", "Family Bucket", "", "", "fast_food", 99),
             L("葡式蛋挞", "Portuguese Egg Tart", "4只装", "x4", "fast_food", 26),
             L("老北京鸡肉卷", "Old Beijing Chicken Wrap", "", "", "fast_food", 19),
             L("K咖啡 美式", "K Coffee Americano", "", "", "coffee", 12, "hot_iced"),
             L("黄金脆皮鸡", "Golden Crispy Chicken", "", "", "fast_food", 14, "pieces"),
             L("K咖啡 拿铁", "K Coffee Latte", "", "", "coffee", 15, "hot_iced"),
         ]),
    # ---------------- 1F ----------------
    dict(id="s-apple", name="Apple 零售店", en="Apple Store", brand="apple", cat="electronics", area="a-atrium",
         unit="1F-01", pos=("east", 20, "left"), hours="10:00-22:00",
         tags=["iPhone", "Mac", "iPad", "以旧换新", "trade in"],
         lines=[
             L("iPhone 16", "iPhone 16", "手机", "", "phones", 5999, "phone:128"),
             L("iPhone 16 Plus", "iPhone 16 Plus", "手机", "", "phones", 6999, "phone:128"),
             L("iPhone 16 Pro", "iPhone 16 Pro", "手机", "", "phones", 7999, "phone:128"),
             L("iPhone 16 Pro Max", "iPhone 16 Pro Max", "手机", "", "phones", 9999, "phone:256"),
             L("MacBook Air 13 英寸 M3", "MacBook Air 13-inch M3", "笔记本电脑", "Laptop", "laptops", 7999, "laptop"),
             L("MacBook Pro 14 英寸 M4", "MacBook Pro 14-inch M4", "笔记本电脑", "Laptop", "laptops", 12999, "laptop"),
             L("iPad Air 11 英寸", "iPad Air 11-inch", "平板电脑", "Tablet", "tablets", 4799, "tablet"),
             L("iPad", "iPad", "平板电脑", "Tablet", "tablets", 2599, "tablet"),
             L("AirPods Pro 2", "AirPods Pro 2", "主动降噪无线耳机", "Noise Cancelling Earbuds", "headphones", 1899),
             L("AirPods 4", "AirPods 4", "无线耳机", "Wireless Earbuds", "headphones", 999),
             L("Apple Watch Series 10", "Apple Watch Series 10", "智能手表", "Smartwatch", "wearables", 2999, "watch"),
             L("Apple Watch SE", "Apple Watch SE", "智能手表", "Smartwatch", "wearables", 1999, "watch"),
             L("20W USB-C", "20W USB-C", "电源适配器", "Power Adapter", "chargers", 149),
             L("iPhone 16 Pro MagSafe", "iPhone 16 Pro MagSafe", "硅胶保护壳", "Silicone Case", "chargers", 399),
             L("AirTag", "AirTag", "4 件装", "4 Pack", "chargers", 779),
         ]),
    dict(id="s-starbucks", name="星巴克", en="Starbucks", brand="starbucks", cat="coffee", area="a-atrium",
         unit="1F-05", pos=("west", 15, "right"), hours="07:30-22:30", tags=["咖啡", "甜点", "coffee", "wifi"],
         lines=[
             L("拿铁", "Caffè Latte", "", "", "coffee", 30, "drink"),
             L("美式咖啡", "Caffè Americano", "", "", "coffee", 27, "drink"),
             L("焦糖玛奇朵", "Caramel Macchiato", "", "", "coffee", 34, "drink"),
             L("馥芮白", "Flat White", "", "", "coffee", 34, "drink"),
             L("摩卡星冰乐", "Mocha Frappuccino", "", "", "coffee", 36, "drink"),
             L("抹茶拿铁", "Matcha Latte", "", "", "tea_drinks", 33, "drink"),
             L("冷萃咖啡", "Cold Brew", "", "", "coffee", 33, "drink"),
             L("派克市场", "Pike Place", "咖啡豆 250g", "Coffee Beans 250g", "coffee", 128),
             L("星巴克", "Starbucks", "不锈钢保温杯 473ml", "Stainless Tumbler 473ml", "drinkware", 199),
             L("星巴克", "Starbucks", "城市马克杯", "City Mug", "drinkware", 149),
         ]),
    dict(id="s-pop-mart", name="泡泡玛特", en="Pop Mart", brand="pop_mart", cat="toys", area="a-atrium",
         unit="1F-08", pos=("north", 30, "left"), hours="10:00-22:00", tags=["盲盒", "潮玩", "Labubu", "blind box"],
         lines=[
             L("LABUBU 前方高能系列", "LABUBU Exciting Macaron", "盲盒", "Blind Box", "blind_boxes", 99, "blind"),
             L("MOLLY 怪味便利店系列", "MOLLY Weird Store", "盲盒", "Blind Box", "blind_boxes", 69, "blind"),
             L("SKULLPANDA 热度系列", "SKULLPANDA Temperature", "盲盒", "Blind Box", "blind_boxes", 69, "blind"),
             L("DIMOO 动物王国系列", "DIMOO Animal Kingdom", "盲盒", "Blind Box", "blind_boxes", 69, "blind"),
             L("HIRONO 小野 城市系列", "HIRONO City", "盲盒", "Blind Box", "blind_boxes", 79, "blind"),
             L("CRYBABY 哭哭系列", "CRYBABY Crying Again", "盲盒", "Blind Box", "blind_boxes", 69, "blind"),
             L("LABUBU", "LABUBU", "毛绒挂件", "Plush Pendant", "dolls", 129),
             L("MEGA SPACE MOLLY 400%", "MEGA SPACE MOLLY 400%", "手办", "Figure", "blind_boxes", 1299),
         ]),
    dict(id="s-sephora", name="丝芙兰", en="Sephora", brand="sephora", cat="beauty", area="a-beauty",
         unit="1F-11", pos=("east", 45, "right"), hours="10:00-22:00", tags=["美妆", "香水", "彩妆", "makeup"],
         lines=[
             L("丝芙兰", "Sephora Collection", "哑光唇釉", "Cream Lip Stain", "makeup", 119),
             L("丝芙兰", "Sephora Collection", "卸妆水 400ml", "Micellar Cleansing Water 400ml", "skincare", 99),
             L("迪奥烈艳蓝金唇膏 999", "Dior Rouge 999", "口红", "Lipstick", "makeup", 380, brand="dior"),
             L("迪奥旷野男士香水", "Dior Sauvage", "香水", "Eau de Parfum", "fragrance", 860, "perfume", brand="dior"),
             L("迪奥真我香水", "Dior J'adore", "香水", "Eau de Parfum", "fragrance", 990, "perfume", brand="dior"),
             L("圣罗兰小金条 1966", "YSL Rouge Pur Couture 1966", "口红", "Lipstick", "makeup", 410, brand="ysl"),
             L("圣罗兰自由之水", "YSL Libre", "香水", "Eau de Parfum", "fragrance", 950, "perfume", brand="ysl"),
             L("圣罗兰恒久粉底液", "YSL All Hours Foundation", "粉底液", "Foundation", "makeup", 590, brand="ysl"),
             L("迪奥花秘瑰萃", "Dior Prestige", "面霜 50ml", "Cream 50ml", "skincare", 3450, brand="dior"),
             L("丝芙兰", "Sephora Collection", "化妆刷 5件套", "Brush Set 5-piece", "makeup", 159),
         ]),
    dict(id="s-estee-lauder", name="雅诗兰黛", en="Estée Lauder", brand="estee_lauder", cat="beauty", area="a-beauty",
         unit="1F-13", pos=("east", 60, "left"), hours="10:00-22:00", tags=["护肤", "小棕瓶", "skincare"],
         lines=[
             L("小棕瓶", "Advanced Night Repair", "特润修护精华露", "Serum", "skincare", 630, "cream"),
             L("DW", "Double Wear", "持妆粉底液 30ml", "Foundation 30ml", "makeup", 440),
             L("白金", "Re-Nutriv", "级面霜", "Ultimate Cream", "skincare", 3200, "cream"),
             L("抗蓝光", "Advanced Night Repair", "眼霜 15ml", "Eye Cream 15ml", "skincare", 560),
             L("红石榴", "Nutritious", "鲜活水", "Essence Lotion", "skincare", 450),
             L("倾慕", "Pure Color", "口红", "Lipstick", "makeup", 320),
         ]),
    dict(id="s-lancome", name="兰蔻", en="Lancôme", brand="lancome", cat="beauty", area="a-beauty",
         unit="1F-15", pos=("north", 50, "right"), hours="10:00-22:00", tags=["护肤", "小黑瓶", "skincare"],
         lines=[
             L("小黑瓶", "Advanced Génifique", "精华肌底液", "Serum", "skincare", 760, "cream"),
             L("菁纯", "Absolue", "面霜", "Soft Cream", "skincare", 1850, "cream"),
             L("粉水", "Tonique Confort", "清滢柔肤水 400ml", "Toner 400ml", "skincare", 460),
             L("菁纯", "L'Absolu Rouge", "唇膏", "Lipstick", "makeup", 320),
             L("奇迹", "Miracle", "香水", "Eau de Parfum", "fragrance", 820, "perfume"),
             L("持妆", "Teint Idole", "粉底液", "Foundation", "makeup", 480),
         ]),
    dict(id="s-perfect-diary", name="完美日记", en="Perfect Diary", brand="perfect_diary", cat="beauty",
         area="a-beauty", unit="1F-17", pos=("north", 65, "left"), hours="10:00-22:00", tags=["国货彩妆", "平价", "makeup"],
         lines=[
             L("小细跟", "Stiletto", "口红", "Lipstick", "makeup", 89),
             L("动物眼影盘", "Animal Eyeshadow Palette", "十二色", "12 colours", "makeup", 129),
             L("仿生膜", "Bionic Membrane", "散粉", "Loose Powder", "makeup", 99),
             L("小酒管", "Wine Tube", "粉底液", "Foundation", "makeup", 139),
             L("羽缎", "Feather Satin", "唇釉", "Lip Glaze", "makeup", 79),
             L("双色", "Duo", "高光修容盘", "Highlight & Contour", "makeup", 69),
         ]),
    # ---------------- 2F ----------------
    dict(id="s-uniqlo", name="优衣库", en="Uniqlo", brand="uniqlo", cat="fashion", area="a-fashion",
         unit="2F-01", pos=("east", 25, "left"), hours="10:00-22:00", tags=["基础款", "男装", "女装", "basics"],
         lines=[
             L("AIRism", "AIRism", "棉质圆领T恤 男装", "Cotton Crew Neck T-Shirt Men", "t_shirts", 79, "wear_m", 3),
             L("U系列", "Uniqlo U", "圆领T恤 女装", "Crew Neck T-Shirt Women", "t_shirts", 99, "wear_w", 3),
             L("摇粒绒", "Fleece", "拉链夹克 男装", "Full-Zip Jacket Men", "jackets", 199, "wear_m", 2),
             L("高级轻型", "Ultra Light Down", "羽绒服 女装", "Down Jacket Women", "down_jackets", 499, "wear_w", 2),
             L("高级轻型", "Ultra Light Down", "羽绒服 男装", "Down Jacket Men", "down_jackets", 499, "wear_m", 2),
             L("HEATTECH", "HEATTECH", "保暖内衣 男装", "Thermal Top Men", "innerwear", 79, "wear_m", 2),
             L("弹力", "Ultra Stretch", "牛仔裤 男装", "Jeans Men", "jeans", 299, "jeans", 2),
             L("SMART", "Smart", "九分裤 女装", "Ankle Pants Women", "trousers", 229, "wear_w", 2),
             L("牛津纺", "Oxford", "衬衫 男装", "Shirt Men", "shirts", 199, "wear_m", 2),
             L("毛圈", "Sweat", "连帽卫衣 男女同款", "Hoodie Unisex", "hoodies", 199, "wear_m", 2),
             L("美利奴", "Merino", "羊毛针织衫 女装", "Sweater Women", "sweaters", 299, "wear_w", 2),
             L("宽松", "Wide Fit", "休闲短裤 男装", "Shorts Men", "shorts", 149, "wear_m", 2),
             L("无缝", "Seamless", "羽绒背心 女装", "Down Vest Women", "down_jackets", 299, "wear_w", 1),
         ]),
    dict(id="s-zara", name="飒拉", en="Zara", brand="zara", cat="fashion", area="a-fashion",
         unit="2F-05", pos=("east", 45, "right"), hours="10:00-22:00", tags=["快时尚", "女装", "fashion"],
         lines=[
             L("ZW", "ZW Collection", "修身西装外套 女装", "Fitted Blazer Women", "jackets", 599, "wear_w", 2),
             L("ZW", "ZW Collection", "印花中长连衣裙", "Printed Midi Dress", "dresses", 399, "wear_w", 3),
             L("ZW", "ZW Collection", "高腰直筒牛仔裤", "High-rise Straight Jeans", "jeans", 299, "jeans", 2),
             L("基础", "Basic", "罗纹针织衫", "Ribbed Knit Sweater", "sweaters", 259, "wear_w", 2),
             L("基础", "Basic", "纯棉T恤 男装", "Cotton T-Shirt Men", "t_shirts", 129, "wear_m", 2),
             L("府绸", "Poplin", "衬衫 男装", "Shirt Men", "shirts", 259, "wear_m", 2),
             L("仿皮", "Faux Leather", "机车夹克 男装", "Biker Jacket Men", "jackets", 799, "wear_m", 2),
         ]),
    dict(id="s-hm", name="H&M", en="H&M", brand="hm", cat="fashion", area="a-fashion",
         unit="2F-08", pos=("north", 20, "left"), hours="10:00-22:00", tags=["快时尚", "平价", "fashion"],
         lines=[
             L("常规版", "Regular Fit", "圆领T恤 男装", "T-Shirt Men", "t_shirts", 49.9, "wear_m", 3),
             L("缎面", "Satin", "连衣裙", "Dress", "dresses", 199, "wear_w", 2),
             L("宽松", "Relaxed Fit", "连帽卫衣", "Hoodie", "hoodies", 149, "wear_m", 2),
             L("修身", "Slim", "牛仔裤 男装", "Jeans Men", "jeans", 199, "jeans", 2),
             L("飞行员", "Bomber", "夹克", "Jacket", "jackets", 299, "wear_m", 2),
             L("亚麻混纺", "Linen-blend", "短裤", "Shorts", "shorts", 129, "wear_m", 2),
             L("罗纹", "Ribbed", "针织连衣裙", "Knit Dress", "dresses", 249, "wear_w", 2),
             L("宽松", "Oversized", "衬衫", "Shirt", "shirts", 169, "wear_m", 1),
         ]),
    dict(id="s-levis", name="李维斯", en="Levi's", brand="levis", cat="fashion", area="a-fashion",
         unit="2F-10", pos=("north", 40, "right"), hours="10:00-22:00", tags=["牛仔", "denim", "经典"],
         lines=[
             L("501", "501 Original", "经典直筒牛仔裤 男装", "Jeans Men", "jeans", 799, "jeans", 2),
             L("511", "511 Slim", "修身牛仔裤 男装", "Jeans Men", "jeans", 699, "jeans", 2),
             L("721", "721 High Rise Skinny", "高腰紧身牛仔裤 女装", "Jeans Women", "jeans", 699, "jeans", 2),
             L("Trucker", "Trucker", "牛仔夹克", "Denim Jacket", "jackets", 899, "wear_m", 2),
             L("Batwing", "Batwing Logo", "T恤", "T-Shirt", "t_shirts", 199, "wear_m", 2),
         ]),
    dict(id="s-bosideng", name="波司登", en="Bosideng", brand="bosideng", cat="fashion", area="a-fashion",
         unit="2F-12", pos=("west", 30, "left"), hours="10:00-22:00", tags=["羽绒服", "冬装", "down"],
         lines=[
             L("登峰", "Peak", "鹅绒羽绒服 男装", "Goose Down Jacket Men", "down_jackets", 2999, "wear_m", 2),
             L("极寒", "Extreme Cold", "长款羽绒服 女装", "Long Down Coat Women", "down_jackets", 1899, "wear_w", 2),
             L("轻薄", "Lightweight", "羽绒服 男装", "Down Jacket Men", "down_jackets", 799, "wear_m", 2),
             L("轻薄", "Lightweight", "羽绒服 女装", "Down Jacket Women", "down_jackets", 799, "wear_w", 2),
             L("三合一", "3-in-1", "防风外套", "Windproof Jacket", "jackets", 1299, "wear_m", 2),
         ]),
    dict(id="s-semir", name="森马", en="Semir", brand="semir", cat="fashion", area="a-fashion",
         unit="2F-15", pos=("west", 50, "right"), hours="10:00-22:00", tags=["休闲", "平价", "casual"],
         lines=[
             L("森马", "Semir", "纯棉印花T恤 男装", "Printed T-Shirt Men", "t_shirts", 79, "wear_m", 2),
             L("森马", "Semir", "连帽卫衣 男装", "Hoodie Men", "hoodies", 159, "wear_m", 2),
             L("森马", "Semir", "工装休闲裤", "Cargo Trousers", "trousers", 169, "wear_m", 2),
             L("森马", "Semir", "棒球夹克", "Baseball Jacket", "jackets", 259, "wear_m", 2),
             L("森马", "Semir", "针织开衫 女装", "Cardigan Women", "sweaters", 189, "wear_w", 2),
         ]),
    dict(id="s-peacebird", name="太平鸟", en="Peacebird", brand="peacebird", cat="fashion", area="a-fashion",
         unit="2F-18", pos=("south", 30, "left"), hours="10:00-22:00", tags=["设计师", "女装", "男装"],
         lines=[
             L("太平鸟", "Peacebird", "法式碎花连衣裙", "French Floral Dress", "dresses", 499, "wear_w", 2),
             L("太平鸟", "Peacebird", "休闲西装 男装", "Casual Blazer Men", "jackets", 699, "wear_m", 2),
             L("太平鸟", "Peacebird", "羊毛毛衣 女装", "Wool Sweater Women", "sweaters", 399, "wear_w", 2),
             L("太平鸟", "Peacebird", "条纹衬衫 男装", "Striped Shirt Men", "shirts", 299, "wear_m", 2),
             L("太平鸟", "Peacebird", "阔腿裤 女装", "Wide-leg Trousers Women", "trousers", 359, "wear_w", 2),
         ]),
    # ---------------- 3F ----------------
    dict(id="s-nike", name="耐克", en="Nike", brand="nike", cat="sportswear", area="a-sports",
         unit="3F-01", pos=("east", 20, "left"), hours=SPORT_HOURS, tags=["跑步", "篮球", "Air Jordan", "running"],
         lines=[
             L("Pegasus 41", "Pegasus 41", "男子公路跑鞋", "Men's Road Running Shoes", "running_shoes", 899, "shoe_m", 3),
             L("Pegasus 41", "Pegasus 41", "女子公路跑鞋", "Women's Road Running Shoes", "running_shoes", 899, "shoe_w", 2),
             L("Vomero 18", "Vomero 18", "男子缓震跑鞋", "Men's Cushioned Running Shoes", "running_shoes", 1099, "shoe_m", 2),
             L("Invincible 3", "Invincible 3", "男子公路跑鞋", "Men's Road Running Shoes", "running_shoes", 1299, "shoe_m", 2),
             L("Structure 25", "Structure 25", "男子稳定支撑跑鞋", "Men's Support Running Shoes", "running_shoes", 899, "shoe_m", 2),
             L("Zoom Fly 6", "Zoom Fly 6", "男子竞速跑鞋", "Men's Racing Running Shoes", "running_shoes", 1199, "shoe_m", 2),
             L("Winflo 11", "Winflo 11", "男子跑鞋", "Men's Running Shoes", "running_shoes", 599, "shoe_m", 2),
             L("Downshifter 13", "Downshifter 13", "男子公路跑鞋", "Men's Road Running Shoes", "running_shoes", 399, "shoe_m", 2),
             L("Revolution 7", "Revolution 7", "男子跑鞋", "Men's Running Shoes", "running_shoes", 429, "shoe_m", 2),
             L("Quest 6", "Quest 6", "男子轻便跑鞋", "Men's Lightweight Running Shoes", "running_shoes", 459, "shoe_m", 2),
             L("Interact Run", "Interact Run", "男子跑鞋", "Men's Running Shoes", "running_shoes", 469, "shoe_m", 2),
             L("Air Force 1 '07", "Air Force 1 '07", "男子运动鞋", "Men's Sneakers", "sneakers", 799, "shoe_m", 2),
             L("Dunk Low Retro", "Dunk Low Retro", "男子板鞋", "Men's Sneakers", "sneakers", 799, "shoe_m", 2),
             L("Air Max 90", "Air Max 90", "运动鞋", "Sneakers", "sneakers", 999, "shoe_u", 2),
             L("LeBron XXII", "LeBron XXII", "篮球鞋", "Basketball Shoes", "basketball_shoes", 1399, "shoe_m", 2),
             L("Giannis Immortality 4", "Giannis Immortality 4", "篮球鞋", "Basketball Shoes", "basketball_shoes", 599, "shoe_m", 1),
             L("Dri-FIT", "Dri-FIT", "男子速干跑步T恤", "Men's Running T-Shirt", "t_shirts", 199, "wear_m", 2),
             L("Windrunner", "Windrunner", "男子梭织夹克", "Men's Woven Jacket", "jackets", 599, "wear_m", 2),
             L("Club Fleece", "Club Fleece", "连帽卫衣", "Pullover Hoodie", "hoodies", 399, "wear_m", 2),
             L("Challenger", "Challenger", "男子跑步短裤", "Men's Running Shorts", "shorts", 249, "wear_m", 1),
             L("Brasilia", "Brasilia", "训练双肩包", "Training Backpack", "bags", 229),
         ]),
    dict(id="s-adidas", name="阿迪达斯", en="Adidas", brand="adidas", cat="sportswear", area="a-sports",
         unit="3F-03", pos=("east", 40, "right"), hours=SPORT_HOURS, tags=["跑步", "三叶草", "Originals"],
         lines=[
             L("Ultraboost 5", "Ultraboost 5", "男子跑鞋", "Men's Running Shoes", "running_shoes", 1499, "shoe_m", 2),
             L("Adizero Adios Pro 3", "Adizero Adios Pro 3", "竞速跑鞋", "Racing Running Shoes", "running_shoes", 1999, "shoe_u", 1),
             L("Adizero SL2", "Adizero SL2", "男子轻量跑鞋", "Men's Lightweight Running Shoes", "running_shoes", 799, "shoe_m", 2),
             L("Supernova Rise", "Supernova Rise", "女子跑鞋", "Women's Running Shoes", "running_shoes", 899, "shoe_w", 2),
             L("Duramo SL", "Duramo SL", "男子跑鞋", "Men's Running Shoes", "running_shoes", 449, "shoe_m", 2),
             L("Runfalcon 5", "Runfalcon 5", "跑鞋", "Running Shoes", "running_shoes", 399, "shoe_u", 2),
             L("Samba OG", "Samba OG", "三叶草运动鞋", "Originals Sneakers", "sneakers", 899, "shoe_u", 2),
             L("Stan Smith", "Stan Smith", "三叶草板鞋", "Originals Sneakers", "sneakers", 799, "shoe_u", 2),
             L("Gazelle", "Gazelle", "三叶草运动鞋", "Originals Sneakers", "sneakers", 799, "shoe_u", 2),
             L("Essentials", "Essentials", "男子纯棉T恤", "Men's Cotton T-Shirt", "t_shirts", 199, "wear_m", 2),
             L("Trefoil", "Trefoil", "三叶草连帽卫衣", "Originals Hoodie", "hoodies", 499, "wear_m", 2),
             L("Tiro 24", "Tiro 24", "训练运动裤", "Training Pants", "trousers", 349, "wear_m", 2),
         ]),
    dict(id="s-li-ning", name="李宁", en="Li-Ning", brand="li_ning", cat="sportswear", area="a-sports",
         unit="3F-05", pos=("east", 60, "left"), hours=SPORT_HOURS, tags=["国潮", "跑步", "篮球", "China-Chic"],
         lines=[
             L("赤兔 7 Pro", "Chitu 7 Pro", "男子跑鞋", "Men's Running Shoes", "running_shoes", 499, "shoe_m", 2),
             L("飞电 4 Elite", "Feidian 4 Elite", "竞速跑鞋", "Racing Running Shoes", "running_shoes", 1099, "shoe_u", 2),
             L("超轻 21", "Super Light 21", "男子轻量跑鞋", "Men's Lightweight Running Shoes", "running_shoes", 599, "shoe_m", 2),
             L("绝影 3", "Jueying 3", "女子跑鞋", "Women's Running Shoes", "running_shoes", 799, "shoe_w", 2),
             L("韦德之道 11", "Way of Wade 11", "篮球鞋", "Basketball Shoes", "basketball_shoes", 1499, "shoe_m", 2),
             L("音速 12", "Sonic 12", "篮球鞋", "Basketball Shoes", "basketball_shoes", 799, "shoe_m", 2),
             L("中国李宁", "China Li-Ning", "国潮卫衣", "China-Chic Hoodie", "hoodies", 459, "wear_m", 2),
             L("速干", "Quick-dry", "跑步T恤", "Running T-Shirt", "t_shirts", 129, "wear_m", 2),
         ]),
    dict(id="s-anta", name="安踏", en="Anta", brand="anta", cat="sportswear", area="a-sports",
         unit="3F-07", pos=("north", 25, "right"), hours=SPORT_HOURS, tags=["国货", "跑步", "篮球"],
         lines=[
             L("马赫 4", "Mach 4", "男子跑鞋", "Men's Running Shoes", "running_shoes", 499, "shoe_m", 2),
             L("C202 GT", "C202 GT", "马拉松跑鞋", "Marathon Running Shoes", "running_shoes", 699, "shoe_u", 2),
             L("PG7", "PG7", "缓震跑鞋", "Cushioned Running Shoes", "running_shoes", 359, "shoe_u", 2),
             L("KT10", "KT10", "汤普森篮球鞋", "Klay Thompson Basketball Shoes", "basketball_shoes", 899, "shoe_m", 2),
             L("霸道", "Badao", "休闲板鞋", "Casual Sneakers", "sneakers", 329, "shoe_u", 2),
             L("冰丝", "Ice Silk", "速干T恤 男子", "Quick-dry T-Shirt Men", "t_shirts", 99, "wear_m", 2),
             L("安踏", "Anta", "针织运动裤", "Knit Track Pants", "trousers", 199, "wear_m", 2),
         ]),
    dict(id="s-puma", name="彪马", en="Puma", brand="puma", cat="sportswear", area="a-sports",
         unit="3F-09", pos=("north", 45, "left"), hours=SPORT_HOURS, tags=["运动潮流", "跑步"],
         lines=[
             L("Velocity Nitro 3", "Velocity Nitro 3", "男子跑鞋", "Men's Running Shoes", "running_shoes", 799, "shoe_m", 2),
             L("Deviate Nitro 3", "Deviate Nitro 3", "碳板跑鞋", "Carbon Running Shoes", "running_shoes", 1299, "shoe_u", 1),
             L("Suede Classic", "Suede Classic", "经典板鞋", "Classic Sneakers", "sneakers", 599, "shoe_u", 2),
             L("Speedcat", "Speedcat", "复古运动鞋", "Retro Sneakers", "sneakers", 699, "shoe_u", 2),
             L("Palermo", "Palermo", "德训鞋", "Sneakers", "sneakers", 699, "shoe_u", 2),
             L("Essentials", "Essentials", "Logo T恤", "Logo T-Shirt", "t_shirts", 199, "wear_m", 2),
         ]),
    dict(id="s-new-balance", name="新百伦", en="New Balance", brand="new_balance", cat="sportswear", area="a-sports",
         unit="3F-11", pos=("west", 25, "right"), hours=SPORT_HOURS, tags=["复古", "跑步", "made in usa"],
         lines=[
             L("Fresh Foam X 1080v14", "Fresh Foam X 1080v14", "男子跑鞋", "Men's Running Shoes", "running_shoes", 1399, "shoe_m", 2),
             L("FuelCell Rebel v4", "FuelCell Rebel v4", "轻量跑鞋", "Lightweight Running Shoes", "running_shoes", 999, "shoe_u", 2),
             L("574", "574", "经典复古鞋", "Classic Sneakers", "sneakers", 699, "shoe_u", 2),
             L("530", "530", "复古老爹鞋", "Retro Sneakers", "sneakers", 699, "shoe_u", 2),
             L("9060", "9060", "运动鞋", "Sneakers", "sneakers", 1099, "shoe_u", 2),
             L("Athletics", "Athletics", "纯棉T恤", "Cotton T-Shirt", "t_shirts", 259, "wear_m", 2),
         ]),
    dict(id="s-skechers", name="斯凯奇", en="Skechers", brand="skechers", cat="sportswear", area="a-sports",
         unit="3F-13", pos=("west", 45, "left"), hours=SPORT_HOURS, tags=["舒适", "健步", "comfort"],
         lines=[
             L("GO RUN Elevate", "GO RUN Elevate", "男子跑鞋", "Men's Running Shoes", "running_shoes", 499, "shoe_m", 2),
             L("Max Cushioning", "Max Cushioning", "缓震跑鞋", "Cushioned Running Shoes", "running_shoes", 599, "shoe_u", 2),
             L("D'Lites", "D'Lites", "熊猫老爹鞋", "Chunky Sneakers", "sneakers", 449, "shoe_w", 2),
             L("Arch Fit", "Arch Fit", "足弓支撑健步鞋", "Walking Shoes", "sneakers", 599, "shoe_u", 2),
             L("Slip-ins", "Slip-ins", "闪穿鞋", "Slip-on Sneakers", "sneakers", 549, "shoe_u", 2),
         ]),
    dict(id="s-decathlon", name="迪卡侬", en="Decathlon", brand="decathlon", cat="outdoor", area="a-sports",
         unit="3F-15", pos=("south", 40, "right"), hours="09:30-22:00", tags=["户外", "露营", "平价", "camping"],
         lines=[
             L("KALENJI Jogflow 100", "KALENJI Jogflow 100", "男子跑鞋", "Men's Running Shoes", "running_shoes", 199, "shoe_m", 2),
             L("KIPRUN KS900", "KIPRUN KS900", "缓震跑鞋", "Cushioned Running Shoes", "running_shoes", 599, "shoe_u", 2),
             L("QUECHUA MH100", "QUECHUA MH100", "防水徒步鞋", "Waterproof Hiking Shoes", "hiking_shoes", 299, "shoe_u", 2),
             L("QUECHUA MH100", "QUECHUA MH100", "双人露营帐篷", "2-person Camping Tent", "camping", 299),
             L("QUECHUA", "QUECHUA", "自动速开帐篷 3人", "Pop-up Tent 3-person", "camping", 499),
             L("KIMJALY", "KIMJALY", "瑜伽垫 8mm", "Yoga Mat 8mm", "sports_equipment", 99),
             L("TARMAK", "TARMAK", "7号篮球", "Basketball Size 7", "balls", 89),
             L("KIPSTA", "KIPSTA", "5号足球", "Football Size 5", "balls", 69),
             L("DOMYOS", "DOMYOS", "可调节哑铃 20kg", "Adjustable Dumbbells 20kg", "sports_equipment", 399),
             L("KALENJI", "KALENJI", "速干跑步T恤", "Dry Running T-Shirt", "t_shirts", 39.9, "wear_m", 2),
             L("QUECHUA MH500", "QUECHUA MH500", "防水冲锋衣", "Waterproof Jacket", "jackets", 399, "wear_m", 2),
             L("QUECHUA", "QUECHUA", "登山双肩包 20L", "Hiking Backpack 20L", "bags", 69),
         ]),
    # ---------------- 4F ----------------
    dict(id="s-huawei", name="华为", en="Huawei", brand="huawei", cat="electronics", area="a-electronics",
         unit="4F-01", pos=("east", 20, "left"), hours="10:00-22:00", tags=["手机", "鸿蒙", "HarmonyOS"],
         lines=[
             L("HUAWEI Mate 70 Pro", "HUAWEI Mate 70 Pro", "手机", "", "phones", 6499, "phone:256"),
             L("HUAWEI Pura 70", "HUAWEI Pura 70", "手机", "", "phones", 5499, "phone:256"),
             L("HUAWEI nova 13", "HUAWEI nova 13", "手机", "", "phones", 2699, "phone:256"),
             L("HUAWEI MateBook X Pro", "HUAWEI MateBook X Pro", "笔记本电脑", "Laptop", "laptops", 9999, "laptop"),
             L("HUAWEI MatePad 11.5", "HUAWEI MatePad 11.5", "平板电脑", "Tablet", "tablets", 1999, "tablet"),
             L("HUAWEI FreeBuds Pro 4", "HUAWEI FreeBuds Pro 4", "降噪无线耳机", "Noise Cancelling Earbuds", "headphones", 1299, "buds"),
             L("HUAWEI WATCH GT 5", "HUAWEI WATCH GT 5", "智能手表", "Smartwatch", "wearables", 1488, "watch"),
             L("HUAWEI 手环 9", "HUAWEI Band 9", "智能手环", "Smart Band", "wearables", 269),
             L("HUAWEI 超级快充", "HUAWEI SuperCharge", "充电宝 12000mAh", "Power Bank 12000mAh", "chargers", 199),
             L("HUAWEI Mate X6", "HUAWEI Mate X6", "折叠屏手机", "Foldable Phone", "phones", 12999, "phone:256"),
             L("HUAWEI FreeClip", "HUAWEI FreeClip", "耳夹式无线耳机", "Clip-on Earbuds", "headphones", 1299, "buds"),
         ]),
    dict(id="s-xiaomi", name="小米之家", en="Xiaomi Store", brand="xiaomi", cat="electronics", area="a-electronics",
         unit="4F-03", pos=("east", 40, "right"), hours="10:00-22:00", tags=["手机", "智能家居", "小米汽车"],
         lines=[
             L("Xiaomi 15", "Xiaomi 15", "手机", "", "phones", 4499, "phone:256"),
             L("Xiaomi 15 Ultra", "Xiaomi 15 Ultra", "手机", "", "phones", 6499, "phone:256"),
             L("Redmi K80", "Redmi K80", "手机", "", "phones", 2499, "phone:256"),
             L("Redmi Note 14 Pro", "Redmi Note 14 Pro", "手机", "", "phones", 1399, "phone:128"),
             L("小米平板 7", "Xiaomi Pad 7", "平板电脑", "Tablet", "tablets", 1999, "tablet"),
             L("Redmi Buds 6", "Redmi Buds 6", "无线耳机", "Wireless Earbuds", "headphones", 199, "buds"),
             L("小米手环 9", "Xiaomi Smart Band 9", "智能手环", "Smart Band", "wearables", 249),
             L("小米", "Xiaomi", "充电宝 20000mAh", "Power Bank 20000mAh", "chargers", 129),
             L("小米电视 S Pro 65", "Xiaomi TV S Pro 65", "65 英寸电视", "65-inch TV", "tvs", 4999),
             L("Redmi Book 14", "Redmi Book 14", "笔记本电脑", "Laptop", "laptops", 3999, "laptop"),
             L("Xiaomi Watch S4", "Xiaomi Watch S4", "智能手表", "Smartwatch", "wearables", 999, "watch"),
             L("米家", "Mijia", "无线吸尘器", "Cordless Vacuum Cleaner", "home", 1299),
         ]),
    dict(id="s-lenovo", name="联想", en="Lenovo", brand="lenovo", cat="electronics", area="a-electronics",
         unit="4F-05", pos=("north", 25, "left"), hours="10:00-22:00", tags=["电脑", "ThinkPad", "拯救者"],
         lines=[
             L("ThinkPad X1 Carbon", "ThinkPad X1 Carbon", "商务笔记本电脑", "Business Laptop", "laptops", 12999, "laptop"),
             L("小新 Pro 14", "Xiaoxin Pro 14", "笔记本电脑", "Laptop", "laptops", 5499, "laptop"),
             L("拯救者 Y9000P", "Legion Y9000P", "游戏笔记本电脑", "Gaming Laptop", "laptops", 9999, "laptop"),
             L("YOGA Air 14", "YOGA Air 14", "轻薄笔记本电脑", "Thin Laptop", "laptops", 6999, "laptop"),
             L("小新 Pad Pro", "Xiaoxin Pad Pro", "平板电脑", "Tablet", "tablets", 1599, "tablet"),
             L("联想", "Lenovo", "无线鼠标", "Wireless Mouse", "chargers", 99),
             L("thinkplus", "thinkplus", "口红电源 65W", "Lipstick Charger 65W", "chargers", 149),
         ]),
    dict(id="s-dji", name="大疆", en="DJI", brand="dji", cat="electronics", area="a-electronics",
         unit="4F-07", pos=("north", 45, "right"), hours="10:00-22:00", tags=["无人机", "航拍", "vlog"],
         lines=[
             L("DJI Mini 4 Pro", "DJI Mini 4 Pro", "迷你航拍无人机", "Mini Camera Drone", "drones", 4788),
             L("DJI Air 3S", "DJI Air 3S", "航拍无人机", "Camera Drone", "drones", 6988),
             L("DJI Neo", "DJI Neo", "掌上 Vlog 无人机", "Palm Vlog Drone", "drones", 1499),
             L("Osmo Pocket 3", "Osmo Pocket 3", "口袋云台相机", "Pocket Gimbal Camera", "cameras", 3499),
             L("Osmo Action 5 Pro", "Osmo Action 5 Pro", "运动相机", "Action Camera", "cameras", 2998),
             L("DJI Mic 2", "DJI Mic 2", "无线麦克风", "Wireless Microphone", "chargers", 1999),
             L("DJI RS 4 Mini", "DJI RS 4 Mini", "相机稳定器", "Camera Gimbal", "cameras", 2199),
         ]),
    dict(id="s-sony", name="索尼", en="Sony", brand="sony", cat="electronics", area="a-electronics",
         unit="4F-09", pos=("west", 25, "left"), hours="10:00-22:00", tags=["降噪耳机", "相机", "PlayStation"],
         lines=[
             L("WH-1000XM5", "WH-1000XM5", "头戴式降噪耳机", "Noise Cancelling Headphones", "headphones", 2499, "buds"),
             L("WF-1000XM5", "WF-1000XM5", "降噪真无线耳机", "Noise Cancelling Earbuds", "headphones", 1799, "buds"),
             L("Alpha 7 IV", "Alpha 7 IV", "全画幅微单相机", "Full-frame Mirrorless Camera", "cameras", 16999),
             L("ZV-E10 II", "ZV-E10 II", "Vlog 微单相机", "Vlog Camera", "cameras", 6499),
             L("PlayStation 5", "PlayStation 5", "游戏机 光驱版", "Console Disc Edition", "gaming", 3599),
             L("PlayStation 5 Pro", "PlayStation 5 Pro", "游戏机", "Console", "gaming", 5299),
             L("BRAVIA 7", "BRAVIA 7", "65 英寸 4K 电视", "65-inch 4K TV", "tvs", 8999),
         ]),
    dict(id="s-lego", name="乐高", en="LEGO", brand="lego", cat="toys", area="a-kids",
         unit="4F-12", pos=("south", 20, "right"), hours="10:00-22:00", tags=["积木", "拼装", "亲子", "bricks"],
         lines=[
             L("乐高机械组 保时捷 911 GT3 RS 42056", "LEGO Technic Porsche 911 GT3 RS 42056", "积木", "Building Set", "building_blocks", 2999),
             L("乐高机械组 兰博基尼 42115", "LEGO Technic Lamborghini Sián 42115", "积木", "Building Set", "building_blocks", 2999),
             L("乐高城市组 消防局 60414", "LEGO City Fire Station 60414", "积木", "Building Set", "building_blocks", 799),
             L("乐高城市组 警察局 60316", "LEGO City Police Station 60316", "积木", "Building Set", "building_blocks", 699),
             L("乐高得宝 数字火车 10954", "LEGO DUPLO Number Train 10954", "积木", "Building Set", "building_blocks", 249),
             L("乐高好朋友 心湖城学校 41731", "LEGO Friends Heartlake School 41731", "积木", "Building Set", "building_blocks", 499),
             L("乐高星球大战 千年隼 75375", "LEGO Star Wars Millennium Falcon 75375", "积木", "Building Set", "building_blocks", 699),
             L("乐高哈利波特 霍格沃茨城堡 76419", "LEGO Harry Potter Hogwarts Castle 76419", "积木", "Building Set", "building_blocks", 1299),
             L("乐高创意百变 三合一恐龙 31058", "LEGO Creator 3in1 Dinosaur 31058", "积木", "Building Set", "building_blocks", 99),
             L("乐高悟空小侠 齐天大圣 80045", "LEGO Monkie Kid Monkey King 80045", "积木", "Building Set", "building_blocks", 1099),
             L("乐高超级赛车 法拉利 76914", "LEGO Speed Champions Ferrari 76914", "积木", "Building Set", "building_blocks", 199),
             L("乐高 Icons 花束 10280", "LEGO Icons Flower Bouquet 10280", "积木", "Building Set", "building_blocks", 399),
             L("乐高 Icons 盆景树 10281", "LEGO Icons Bonsai Tree 10281", "积木", "Building Set", "building_blocks", 399),
             L("乐高 Ideas 梵高星月夜 21333", "LEGO Ideas Starry Night 21333", "积木", "Building Set", "building_blocks", 1199),
         ]),
    dict(id="s-balabala", name="巴拉巴拉", en="Balabala", brand="balabala", cat="kids", area="a-kids",
         unit="4F-14", pos=("south", 35, "left"), hours="10:00-22:00", tags=["童装", "童鞋", "kids"],
         lines=[
             L("巴拉巴拉", "Balabala", "儿童纯棉T恤", "Kids Cotton T-Shirt", "kids_clothing", 69, "wear_kids", 3),
             L("巴拉巴拉", "Balabala", "儿童羽绒服", "Kids Down Jacket", "kids_clothing", 399, "wear_kids", 2),
             L("巴拉巴拉", "Balabala", "儿童运动裤", "Kids Track Pants", "kids_clothing", 129, "wear_kids", 2),
             L("巴拉巴拉", "Balabala", "女童连衣裙", "Girls' Dress", "kids_clothing", 159, "wear_kids", 2),
             L("巴拉巴拉", "Balabala", "儿童卫衣", "Kids Hoodie", "kids_clothing", 149, "wear_kids", 2),
             L("巴拉巴拉", "Balabala", "儿童跑鞋", "Kids Running Shoes", "kids_shoes", 199, "shoe_kids", 2),
             L("巴拉巴拉", "Balabala", "儿童双肩书包", "Kids School Backpack", "bags", 169),
         ]),
    dict(id="s-toysrus", name="玩具反斗城", en="Toys\"R\"Us", brand="toysrus", cat="toys", area="a-kids",
         unit="4F-16", pos=("south", 55, "right"), hours="10:00-22:00", tags=["玩具", "亲子", "toys"],
         lines=[
             L("芭比", "Barbie", "梦想豪宅", "Dreamhouse", "dolls", 1299, brand="barbie"),
             L("芭比", "Barbie", "时尚换装娃娃", "Fashionista Doll", "dolls", 89, brand="barbie"),
             L("风火轮", "Hot Wheels", "城市系列合金车 5辆装", "City Die-cast Cars 5-pack", "model_cars", 69, brand="hot_wheels"),
             L("风火轮", "Hot Wheels", "极限轨道套装", "Track Set", "model_cars", 299, brand="hot_wheels"),
             L("玩具反斗城", "Toys\"R\"Us", "遥控越野车", "RC Off-road Car", "model_cars", 259),
             L("玩具反斗城", "Toys\"R\"Us", "毛绒泰迪熊 40cm", "Teddy Bear 40cm", "dolls", 129),
             L("玩具反斗城", "Toys\"R\"Us", "1000片拼图", "1000-piece Jigsaw Puzzle", "toys", 89),
             L("玩具反斗城", "Toys\"R\"Us", "儿童过家家厨房", "Kids Play Kitchen", "toys", 399),
         ]),
    # ---------------- 5F ----------------
    dict(id="s-muji", name="无印良品", en="Muji", brand="muji", cat="home", area="a-home",
         unit="5F-01", pos=("east", 25, "left"), hours="10:00-22:00", tags=["家居", "文具", "简约", "minimal"],
         lines=[
             L("无印良品", "Muji", "超声波香薰机", "Ultrasonic Aroma Diffuser", "home_fragrance", 399),
             L("无印良品", "Muji", "精油 薰衣草 10ml", "Lavender Essential Oil 10ml", "home_fragrance", 89),
             L("无印良品", "Muji", "懒人沙发", "Beanbag Sofa", "home", 990),
             L("无印良品", "Muji", "水洗棉床单 1.5m", "Washed Cotton Sheet 1.5m", "home_textiles", 299),
             L("无印良品", "Muji", "纯棉毛巾 2条装", "Cotton Towels x2", "home_textiles", 79),
             L("无印良品", "Muji", "PP 收纳盒 深型", "PP Storage Box Deep", "storage", 59),
             L("无印良品", "Muji", "凝胶墨水笔 0.5mm 5支", "Gel Ink Pens 0.5mm x5", "stationery", 35),
             L("无印良品", "Muji", "白瓷马克杯", "Porcelain Mug", "drinkware", 45),
             L("无印良品", "Muji", "有机棉T恤 男装", "Organic Cotton T-Shirt Men", "t_shirts", 99, "wear_m", 2),
             L("无印良品", "Muji", "不锈钢保温杯 350ml", "Stainless Steel Flask 350ml", "drinkware", 129),
             L("无印良品", "Muji", "棉麻靠垫套", "Cotton Linen Cushion Cover", "home_textiles", 69),
             L("无印良品", "Muji", "A5 方格笔记本 5本", "A5 Grid Notebooks x5", "stationery", 29),
             L("无印良品", "Muji", "旅行收纳袋 3件套", "Travel Pouches x3", "storage", 99),
         ]),
    dict(id="s-miniso", name="名创优品", en="MINISO", brand="miniso", cat="home", area="a-home",
         unit="5F-05", pos=("east", 45, "right"), hours="10:00-22:00", tags=["生活好物", "平价", "IP 联名"],
         lines=[
             L("名创优品", "MINISO", "淡香水 30ml", "Eau de Toilette 30ml", "fragrance", 39.9),
             L("名创优品", "MINISO", "三丽鸥毛绒公仔", "Sanrio Plush Toy", "dolls", 69),
             L("名创优品", "MINISO", "真空保温杯 500ml", "Vacuum Flask 500ml", "drinkware", 49.9),
             L("名创优品", "MINISO", "快充数据线 1m", "Fast Charging Cable 1m", "chargers", 19.9),
             L("名创优品", "MINISO", "真无线蓝牙耳机", "True Wireless Earbuds", "headphones", 89, "buds"),
             L("名创优品", "MINISO", "桌面收纳盒", "Desk Organizer", "storage", 29.9),
             L("名创优品", "MINISO", "香薰蜡烛", "Scented Candle", "home_fragrance", 39.9),
         ]),
    dict(id="s-zwilling", name="双立人", en="Zwilling", brand="zwilling", cat="home", area="a-home",
         unit="5F-08", pos=("north", 30, "left"), hours="10:00-22:00", tags=["厨具", "刀具", "德国"],
         lines=[
             L("双立人", "Zwilling", "Pro 中式菜刀", "Pro Chinese Chef's Knife", "kitchenware", 599),
             L("双立人", "Zwilling", "刀具七件套", "Knife Block Set 7-piece", "kitchenware", 1999),
             L("双立人", "Zwilling", "不锈钢炒锅 32cm", "Stainless Steel Wok 32cm", "kitchenware", 899),
             L("双立人", "Zwilling", "珐琅铸铁锅", "Enamel Cast Iron Pot", "kitchenware", 1299, "pot"),
             L("双立人", "Zwilling", "不粘煎锅", "Non-stick Frying Pan", "kitchenware", 499, "pot"),
             L("双立人", "Zwilling", "竹制砧板", "Bamboo Cutting Board", "kitchenware", 199),
         ]),
    dict(id="s-haidilao", name="海底捞火锅", en="Haidilao Hotpot", brand="haidilao", cat="hotpot", area="a-food-court",
         unit="5F-12", pos=("west", 30, "right"), hours="10:00-次日02:00", tags=["火锅", "川味", "排队", "hotpot"],
         lines=[
             L("海底捞", "Haidilao", "经典双人火锅套餐", "Hotpot Set Meal for Two", "hotpot", 268),
             L("海底捞", "Haidilao", "四人欢聚火锅套餐", "Hotpot Set Meal for Four", "hotpot", 498),
             L("海底捞", "Haidilao", "番茄火锅底料 200g", "Tomato Hotpot Soup Base 200g", "hotpot", 15.9),
             L("海底捞", "Haidilao", "清油麻辣火锅底料 220g", "Spicy Hotpot Soup Base 220g", "hotpot", 16.9),
             L("海底捞", "Haidilao", "手工虾滑", "Handmade Shrimp Paste", "hotpot", 48),
             L("海底捞", "Haidilao", "捞派肥牛", "Premium Beef Slices", "hotpot", 68),
             L("海底捞", "Haidilao", "自热小火锅", "Self-heating Mini Hotpot", "hotpot", 39.9),
             L("海底捞", "Haidilao", "鸳鸯锅 单人套餐", "Twin-pot Set Meal for One", "hotpot", 128),
             L("海底捞", "Haidilao", "招牌捞面", "Signature Hand-pulled Noodles", "hotpot", 18),
         ]),
    dict(id="s-xibei", name="西贝莜面村", en="Xibei", brand="xibei", cat="restaurant", area="a-food-court",
         unit="5F-15", pos=("west", 50, "left"), hours="10:30-21:30", tags=["西北菜", "莜面", "儿童餐"],
         lines=[
             L("西贝", "Xibei", "莜面鱼鱼", "Oat Noodle Fish", "chinese_food", 39),
             L("西贝", "Xibei", "黄米凉糕", "Yellow Rice Cake", "chinese_food", 29),
             L("西贝", "Xibei", "牛大骨", "Braised Beef Bones", "chinese_food", 139),
             L("西贝", "Xibei", "张爷爷手工空心挂面", "Grandpa Zhang's Hand-pulled Noodles", "chinese_food", 49),
             L("西贝", "Xibei", "家庭欢聚套餐", "Family Set Meal", "chinese_food", 399),
             L("西贝", "Xibei", "儿童套餐", "Kids Set Meal", "chinese_food", 69),
         ]),
    dict(id="s-din-tai-fung", name="鼎泰丰", en="Din Tai Fung", brand="din_tai_fung", cat="restaurant",
         area="a-food-court", unit="5F-18", pos=("south", 30, "left"), hours="11:00-21:30",
         tags=["小笼包", "台湾菜", "dumplings"],
         lines=[
             L("鼎泰丰", "Din Tai Fung", "蟹粉小笼包 5只", "Crab Roe Xiaolongbao x5", "dumplings", 88),
             L("鼎泰丰", "Din Tai Fung", "小笼包 10只", "Pork Xiaolongbao x10", "dumplings", 68),
             L("鼎泰丰", "Din Tai Fung", "虾肉蒸饺", "Shrimp & Pork Dumplings", "dumplings", 72),
             L("鼎泰丰", "Din Tai Fung", "虾仁蛋炒饭", "Shrimp Fried Rice", "chinese_food", 58),
             L("鼎泰丰", "Din Tai Fung", "红油抄手", "Wontons in Chilli Oil", "dumplings", 42),
             L("鼎泰丰", "Din Tai Fung", "双人套餐", "Set Meal for Two", "chinese_food", 238),
         ]),
    dict(id="s-taier", name="太二酸菜鱼", en="Tai Er", brand="taier", cat="restaurant", area="a-food-court",
         unit="5F-20", pos=("south", 50, "right"), hours="10:30-22:00", tags=["酸菜鱼", "川菜", "不接受4人以上拼桌"],
         lines=[
             L("太二", "Tai Er", "老坛子酸菜鱼 2-3人", "Pickled Cabbage Fish for 2-3", "chinese_food", 99),
             L("太二", "Tai Er", "酸菜鱼 单人份", "Pickled Cabbage Fish for One", "chinese_food", 58),
             L("太二", "Tai Er", "椒麻鸡", "Sichuan Pepper Chicken", "chinese_food", 38),
             L("太二", "Tai Er", "米饭无限续", "Bottomless Rice", "chinese_food", 3),
             L("太二", "Tai Er", "双人套餐", "Set Meal for Two", "chinese_food", 158),
         ]),
]

# --------------------------------------------------------------------------
# Promotions and reviews
# --------------------------------------------------------------------------

PROMO_TEMPLATES = {
    "sportswear": [("会员日满 1000 减 150", "Members' day: 150 yuan off every 1000 yuan", "2026-12-31"),
                   ("跑鞋第二双 8 折", "20% off your second pair of running shoes", "2027-01-31"),
                   ("双十二全场 85 折", "15% off storewide for Double 12", "2026-12-12")],
    "outdoor": [("露营季满 300 减 50", "Camping season: 50 off every 300", "2027-03-31"),
                ("会员积分双倍", "Double member points", "2026-12-31")],
    "fashion": [("冬装新品 9 折", "10% off new winter arrivals", "2026-12-31"),
                ("满 2 件 85 折", "15% off when you buy two", "2027-01-15"),
                ("会员生日月 8 折", "20% off in your birthday month", "2027-06-30")],
    "electronics": [("以旧换新最高补贴 1000 元", "Trade-in: up to 1000 yuan off", "2027-02-28"),
                    ("12 期免息分期", "12 months interest-free instalments", "2026-12-31"),
                    ("购机送原装保护壳", "Free case with every phone", "2026-12-31")],
    "beauty": [("满 800 赠正装口红", "Full-size lipstick free over 800", "2026-12-31"),
               ("新客首单 9 折", "10% off your first order", "2027-03-31"),
               ("圣诞礼盒限时发售", "Christmas gift sets, limited time", "2026-12-25")],
    "toys": [("满 500 减 80", "80 off every 500", "2027-01-31"),
             ("周末亲子拼搭活动免费报名", "Free weekend family building sessions", "2027-06-30")],
    "kids": [("童装两件 8 折", "20% off two kids' items", "2026-12-31"),
             ("会员领 30 元券", "30-yuan voucher for members", "2027-01-31")],
    "home": [("家居满 300 减 40", "40 off every 300 on homeware", "2026-12-31"),
             ("会员日 9 折", "10% off on members' day", "2027-02-28")],
    "coffee": [("第二杯半价", "Second cup half price", "2026-12-31"),
               ("早餐套餐 19.9 元", "Breakfast set 19.9 yuan", "2027-03-31")],
    "tea_drinks": [("买二送一", "Buy two, get one free", "2026-12-15"),
                   ("会员周三 8 折", "20% off for members on Wednesdays", "2027-01-31")],
    "fast_food": [("工作日午餐套餐 25 元起", "Weekday lunch sets from 25 yuan", "2027-03-31"),
                  ("App 下单满 50 减 10", "10 off over 50 when you order in the app", "2026-12-31")],
    "hotpot": [("工作日午市 8 折", "20% off weekday lunches", "2027-02-28"),
               ("学生凭证 69 折", "31% off for students (show your ID)", "2027-06-30"),
               ("生日送长寿面和果盘", "Free longevity noodles and fruit on your birthday", "2027-12-31")],
    "restaurant": [("午市套餐 88 元起", "Lunch sets from 88 yuan", "2027-03-31"),
                   ("会员积分抵现", "Pay with member points", "2026-12-31")],
    "supermarket": [("满 99 免费配送 3 公里内", "Free delivery within 3 km over 99", "2027-06-30"),
                    ("每日 20:00 后烘焙 7 折", "30% off bakery after 20:00 daily", "2027-12-31")],
    "personal_care": [("第二件半价", "Second item half price", "2026-12-31"),
                      ("会员日满 100 减 20", "20 off every 100 on members' day", "2027-01-31")],
    "snacks": [("年货礼盒满 200 减 30", "New Year gift boxes: 30 off every 200", "2027-02-15"),
               ("称重零食 9 折", "10% off pick-and-mix snacks", "2026-12-31")],
}

REVIEW_TEXTS = {
    "good": ["店员很专业，帮我挑到了合适的尺码。", "款式齐全，周末人也不算太多。", "服务热情，试穿很方便。",
             "价格合理，会员活动挺划算。", "环境干净整洁，下次还会再来。", "出餐快，味道稳定。",
             "Staff were helpful and spoke English.", "Great selection, found exactly what I wanted.",
             "Quick service and fair prices."],
    "ok": ["东西不错，就是排队有点久。", "热门尺码经常断货，建议提前打电话问。", "周末人太多，工作日来体验更好。",
           "Good products but the queue was long on Saturday."],
    "bad": ["等了很久没人招呼，体验一般。", "Out of my size, staff could not check other stores."],
}
AUTHORS = ["张**", "李**", "王小姐", "陈先生", "刘**", "赵同学", "Lily W.", "Tom H.", "周**", "孙女士",
           "Kevin L.", "吴**", "郑先生", "Anna K.", "黄**"]

# --------------------------------------------------------------------------
# Descriptions
# --------------------------------------------------------------------------

FEATURES = {
    "running_shoes": ["回弹缓震中底，长距离也不累", "透气网面鞋面，夏天不闷脚", "轻量设计，适合日常慢跑和训练",
                      "耐磨橡胶外底，城市路跑抓地稳"],
    "sneakers": ["经典鞋型，百搭日常穿着", "皮革鞋面，耐穿好打理", "复古配色，街头感十足"],
    "basketball_shoes": ["包裹稳定，急停变向有支撑", "缓震科技保护膝盖", "耐磨外底，室外场也能打"],
    "hiking_shoes": ["防水透气，雨天徒步不湿脚", "防滑大底，山路更稳"],
    "kids_shoes": ["魔术贴设计，孩子自己就能穿", "软底轻便，跑跳更舒适"],
    "clothing": ["面料柔软亲肤", "版型利落，日常通勤都能穿", "可机洗，好打理", "保暖又轻便"],
    "electronics": ["官方正品，全国联保", "支持以旧换新", "店内可体验真机"],
    "beauty": ["专柜正品，可试色试用", "适合多种肤质", "赠品以店内为准"],
    "food": ["现点现做", "可堂食可外带", "门店现做，口味稳定"],
    "drinks": ["现点现做，可选冷热", "可堂食可外带"],
    "home": ["简约设计，适合小户型", "材质安全，日常好清洁"],
    "toys": ["适合 3 岁以上儿童", "益智好玩，亲子互动", "正品授权，可开盒验货"],
    "groceries": ["当日到店，新鲜直达", "产地直采"],
    "snacks": ["独立小包装，方便携带", "办公室下午茶好选择"],
    "sports_gear": ["入门友好，性价比高", "耐用材质，训练更安心", "店内可试用"],
}


FEATURE_GROUP = {
    "kids_clothing": "clothing", "innerwear": "clothing", "bags": "clothing",
    "coffee": "drinks", "tea_drinks": "drinks",
    "personal_care": "beauty", "skincare": "beauty", "makeup": "beauty", "fragrance": "beauty",
    "building_blocks": "toys", "blind_boxes": "toys", "dolls": "toys", "model_cars": "toys",
    "sports_equipment": "sports_gear", "balls": "sports_gear", "camping": "sports_gear",
    "kitchenware": "home", "drinkware": "home", "home_textiles": "home", "storage": "home",
    "stationery": "home", "home_fragrance": "home",
}


def feature_group(cat):
    """Which list of selling points fits a category."""
    if cat in FEATURES:
        return cat
    if cat in FEATURE_GROUP:
        return FEATURE_GROUP[cat]
    parents = {c[0]: c[3] for c in CATEGORIES}
    for parent in parents.get(cat, []):
        if parent in FEATURES:
            return parent
    return "food"


def describe(brand_zh, line, cat):
    group = feature_group(cat)
    feats = RNG.sample(FEATURES[group], k=min(2, len(FEATURES[group])))
    title = (line["mz"] + (" " + line["dz"] if line["dz"] else "")).strip()
    return f"{brand_zh} {title}：{'，'.join(feats)}。"


# --------------------------------------------------------------------------
# Expansion
# --------------------------------------------------------------------------

def yuan_to_cents(yuan):
    return int(round(yuan * 100))


def sku_price(base, delta):
    """Price of a SKU: the base plus a delta in yuan, or a multiple of the base ("x1.5"), in whole yuan."""
    if isinstance(delta, str):
        return int(round(base * float(delta[1:]) / 100.0)) * 100
    return base + delta * 100


def stock_for(store_id, cat, label):
    if RNG.random() < 0.07:
        return 0
    if store_id == "s-nike" and cat == "running_shoes" and label == "42":
        return RNG.randint(4, 12)
    return RNG.randint(1, 30)


def product_name(line, colour):
    zh = " ".join(x for x in (line["mz"], line["dz"]) if x)
    en = " ".join(x for x in (line["me"], line["de"]) if x)
    if colour:
        zh += f" {colour[0]}"
        en += f" {colour[1]}"
    return zh, en


def make_products(stores):
    products = []
    for store in stores:
        for line in store["lines"]:
            brand_id = line["brand"] or store["brand"]
            brand = BRAND[brand_id]
            colours = colour_list(line["kind"])
            # Shoes and clothes come in one more colourway than the line lists by hand.
            picks = RNG.sample(colours, k=min(line["n"] + 1, len(colours))) if colours else [None] * line["n"]
            for colour in picks:
                pid = f"p-{len(products) + 1:04d}"
                name, name_en = product_name(line, colour)
                base = yuan_to_cents(line["price"])
                product = {
                    "id": pid,
                    "store_id": store["id"],
                    "brand": brand[1],
                    "category": line["cat"],
                    "name": name,
                    "name_en": name_en,
                    "description": describe(brand[2], line, line["cat"]),
                    "rating": round(RNG.uniform(3.8, 4.95), 1),
                    "images": [f"/images/{pid}.jpg", f"/images/{pid}-2.jpg"],
                }
                variants = sizes(line["kind"])
                if variants is None:
                    product["price_cents"] = base
                    product["stock"] = stock_for(store["id"], line["cat"], "")
                    product["skus"] = []
                else:
                    product["skus"] = [
                        {"sku_id": f"{pid}-{slug}", "label": label, "price_cents": sku_price(base, delta),
                         "stock": stock_for(store["id"], line["cat"], label)}
                        for label, slug, delta in variants
                    ]
                products.append(product)
    return products


def floor_label(floor):
    return f"B{-floor}" if floor < 0 else f"{floor}F"


WING_ZH = {"east": "东侧", "west": "西侧", "north": "北侧", "south": "南侧"}
SIDE_ZH = {"left": "左手边", "right": "右手边"}
ENTRANCE_TO_ATRIUM_M = 30
ESCALATOR_M_PER_FLOOR = 15
WALK_M_PER_MIN = 50


def route_for(store):
    wing, offset, side = store["pos"]
    floor = store["floor"]
    hops = abs(floor - 1) if floor > 0 else 1
    steps = ["从 1F 正门（南门）进入，直行约 30 米到中庭 (Enter by the main entrance on 1F and walk 30 m to the atrium)"]
    if floor != 1:
        up = floor > 1
        steps.append(
            f"乘中庭扶梯{'上' if up else '下'}到 {floor_label(floor)} "
            f"(Take the atrium escalator {'up' if up else 'down'} to {floor_label(floor)})")
    steps.append(f"沿{WING_ZH[wing]}走廊前行约 {offset} 米 (Follow the {wing} corridor for about {offset} m)")
    steps.append(f"{store['name']}在{SIDE_ZH[side]}，门牌 {store['unit']} "
                 f"({store['en']} is on your {side}, unit {store['unit']})")
    distance = ENTRANCE_TO_ATRIUM_M + ESCALATOR_M_PER_FLOOR * (hops if floor != 1 else 0) + offset
    eta = math.ceil(distance / WALK_M_PER_MIN) + (hops if floor != 1 else 0)
    return {"steps": steps, "distance_m": distance, "eta_minutes": eta}


def promotions_for(store):
    templates = PROMO_TEMPLATES.get(store["cat"], PROMO_TEMPLATES["fashion"])
    count = RNG.randint(1, len(templates))
    return [{"title": t, "description": d, "valid_until": f"{until}T23:59:59+08:00"}
            for t, d, until in templates[:count]]


def reviews_for(store):
    out = []
    for _ in range(RNG.randint(3, 6)):
        mood = RNG.choices(["good", "ok", "bad"], weights=[7, 3, 1])[0]
        rating = {"good": RNG.choice([4.5, 5.0, 5.0, 4.0]), "ok": RNG.choice([3.5, 4.0, 3.0]),
                  "bad": RNG.choice([2.0, 2.5, 1.5])}[mood]
        month = RNG.randint(1, 10)
        day = RNG.randint(1, 28)
        out.append({"rating": rating, "text": RNG.choice(REVIEW_TEXTS[mood]), "author": RNG.choice(AUTHORS),
                    "created_at": f"2026-{month:02d}-{day:02d}T{RNG.randint(10, 21):02d}:{RNG.randint(0, 59):02d}:00+08:00"})
    out.sort(key=lambda r: r["created_at"], reverse=True)
    return out


def phone_for(index):
    return f"021-5888 {3100 + index * 7:04d}"


def build():
    area_floor = {a[0]: a[3] for a in AREAS}
    for store in STORES:
        store["floor"] = area_floor[store["area"]]
    products = make_products(STORES)
    stores = []
    for i, s in enumerate(STORES):
        wing, offset, side = s["pos"]
        stores.append({
            "id": s["id"], "name": s["name"], "name_en": s["en"], "category": s["cat"], "floor": s["floor"],
            "unit": s["unit"], "area_id": s["area"], "open_hours": s["hours"], "phone": phone_for(i),
            "tags": s["tags"], "brand": BRAND[s["brand"]][1],
            "position": {"wing": wing, "offset_m": offset, "side": side},
            "route": route_for(s), "promotions": promotions_for(s), "reviews": reviews_for(s),
        })
    areas = [{"id": a[0], "name": a[1], "name_en": a[2], "floor": a[3], "description": a[4],
              "store_ids": [s["id"] for s in STORES if s["area"] == a[0]]} for a in AREAS]
    return {
        "mall": {"name": "星河汇购物中心", "name_en": "Galaxy Plaza", "entrance": "main_entrance",
                 "entrance_name": "1F 正门（南门） Main entrance, 1F south"},
        "floors": [{"floor": f, "label": l, "name": n, "name_en": e} for f, l, n, e in FLOORS],
        "areas": areas,
        "categories": [{"id": c[0], "name": c[1], "name_en": c[2], "parents": c[3], "terms": c[4]}
                       for c in CATEGORIES],
        "brands": [{"id": b[0], "name": b[1], "name_zh": b[2], "aliases": b[3]} for b in BRANDS],
        "synonyms": SYNONYMS,
        "stopwords": STOPWORDS,
        "stores": stores,
        "products": products,
    }


def dump(data):
    """One object per line inside the big arrays: small diffs, readable file."""
    lines = ["{"]
    keys = list(data.keys())
    for i, key in enumerate(keys):
        value = data[key]
        comma = "," if i + 1 < len(keys) else ""
        if isinstance(value, list):
            lines.append(f'  "{key}": [')
            for j, item in enumerate(value):
                sep = "," if j + 1 < len(value) else ""
                lines.append("    " + json.dumps(item, ensure_ascii=False, separators=(",", ":")) + sep)
            lines.append(f"  ]{comma}")
        else:
            lines.append(f'  "{key}": ' + json.dumps(value, ensure_ascii=False) + comma)
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    data = build()
    OUT.write_text(dump(data), encoding="utf-8")
    print(f"{OUT.name}: {len(data['floors'])} floors, {len(data['areas'])} areas, {len(data['stores'])} stores, "
          f"{len(data['products'])} products, {sum(max(1, len(p['skus'])) for p in data['products'])} SKUs, "
          f"{OUT.stat().st_size // 1024} KiB")

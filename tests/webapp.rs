//! The Mini App against the real binary (`mallbot webapp` on the embedded
//! demo mall): its API as a shopper's page calls it, and its pages in
//! headless Chromium driven over WebDriver (Debian's `chromium` and
//! `chromium-driver`; without them, outside CI, the browser tests say so
//! loudly and skip; in CI their absence is a failure). Screenshots of each
//! page go to `target/webapp-screenshots/`.

#![allow(clippy::unwrap_used)]

#[path = "support/browser.rs"]
mod browser;
#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fantoccini::{Client, Locator};
use mallbot::webapp::InitDataCheck;
use process::{Process, TempDir, free_addr, wait_for_listener};
use serde_json::{Value, json};

const TOKEN: &str = "123:WEBAPP";
const ALICE: i64 = 7001;
const BOB: i64 = 7002;

/// `mallbot webapp` on the demo mall, with a bot token to check `initData` against.
struct Served {
    addr: SocketAddr,
    _process: Process,
    _dir: TempDir,
    http: reqwest::Client,
}

impl Served {
    async fn start(case: &str) -> Served {
        Served::start_in(case, TempDir::new(case)).await
    }

    /// Served on the mall kept in `dir` (`mall.db`).
    async fn start_in(case: &str, dir: TempDir) -> Served {
        let addr = free_addr();
        let env = [
            ("MALLBOT_TELEGRAM__TOKEN", TOKEN.to_owned()),
            ("MALLBOT_STATE__URL", "memory://".to_owned()),
            ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ];
        let process = Process::spawn(case, &["webapp", "--listen", &addr.to_string()], &env, dir.path());
        wait_for_listener(addr, &process).await;
        Served { addr, _process: process, _dir: dir, http: reqwest::Client::new() }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}/webapp/{path}", self.addr)
    }

    /// `GET api/<path>` as `user` (none: no `initData`), status and body.
    async fn get(&self, path: &str, user: Option<&str>) -> (u16, Value) {
        let mut request = self.http.get(self.url(&format!("api/{path}")));
        if let Some(init_data) = user {
            request = request.header("Authorization", format!("tma {init_data}"));
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, user: &str, body: Value) -> (u16, Value) {
        let response = self
            .http
            .post(self.url(&format!("api/{path}")))
            .header("Authorization", format!("tma {user}"))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// The `initData` Telegram hands the page of `user`, signed with `token`, `age` seconds old.
fn init_data(token: &str, user: i64, language: &str, age: u64) -> String {
    let auth_date = (now() - age).to_string();
    let user = json!({"id": user, "first_name": "Shopper", "language_code": language}).to_string();
    InitDataCheck::new(token, 86_400).sign(&[("auth_date", &auth_date), ("user", &user), ("query_id", "AAq")])
}

fn alice() -> String {
    init_data(TOKEN, ALICE, "zh-hans", 5)
}

fn bob() -> String {
    init_data(TOKEN, BOB, "en", 5)
}

/// A Nike running shoe with a size in stock, from the demo mall.
async fn a_nike_shoe() -> (String, String) {
    let mall = services::EmbeddedMall::in_memory();
    use services::MallApi;
    let query = services::ProductQuery { keyword: Some("Nike 跑鞋".into()), ..Default::default() };
    let hit = mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
    let product = mall.get_product(&hit.id).await.unwrap();
    let sku = product.skus.iter().find(|s| s.stock > 0).unwrap();
    (hit.id, sku.sku_id.clone())
}

/// The mall of `dir` (`mall.db`) where the shopper `user` paid an order of a
/// Nike running shoe; their points balance.
async fn points_earned(dir: &TempDir, user: i64) -> i64 {
    use services::MallApi;
    let mall = services::EmbeddedMall::open(dir.file("mall.db")).unwrap();
    let who = services::Shopper::new("telegram", user);
    let (product, sku) = a_nike_shoe().await;
    let item = services::AddCartItem { product_id: product, sku_id: Some(sku), quantity: 1 };
    let cart = mall.add_cart_item(&who, &item, None).await.unwrap();
    let request = services::CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
    let order = mall.create_order(&who, &request, None).await.unwrap();
    let payment = services::RecordPayment {
        provider: "telegram".into(),
        amount_cents: order.total_cents,
        currency: order.currency.clone(),
        charge_id: format!("charge-{user}"),
    };
    mall.pay_order(&who, &order.order_id, &payment, None).await.unwrap();
    let balance = mall.points(&who).await.unwrap().balance;
    assert!(balance > 0, "a paid order earns points");
    balance
}

/// `user` claims `coupon` through the page's two steps: the claim is shown
/// first, and only the owner's confirmation claims it.
async fn claim(served: &Served, user: &str, coupon: &str) -> Value {
    let args = json!({"coupon": coupon});
    let (status, asked) = served.post("actions", user, json!({"tool": "claim_coupon", "args": args})).await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["confirm"]["level"], "confirm", "a claim is confirmed first: {asked}");
    let token = asked["confirm"]["token"].as_str().unwrap().to_owned();
    let (status, done) = served.post(&format!("actions/{token}"), user, json!({})).await;
    assert_eq!(status, 200, "{done}");
    done
}

/// Adds one of `product` to the cart of `user` through the page's two steps.
async fn add_to_cart(served: &Served, user: &str, product: &str, sku: &str) -> Value {
    let args = json!({"product_id": product, "sku_id": sku, "quantity": 1});
    let (status, asked) = served.post("actions", user, json!({"tool": "add_to_cart", "args": args})).await;
    assert_eq!(status, 200, "{asked}");
    let token = asked["confirm"]["token"].as_str().expect("a cart change is confirmed first").to_owned();
    let (status, done) = served.post(&format!("actions/{token}"), user, json!({})).await;
    assert_eq!(status, 200, "{done}");
    done
}

#[tokio::test]
async fn forged_altered_expired_or_missing_init_data_gets_401_and_no_data() {
    let served = Served::start("webapp-401").await;
    let forged = init_data("123:SOMEONE-ELSE", ALICE, "zh", 5);
    let altered = alice().replace(&ALICE.to_string(), &BOB.to_string());
    let expired = init_data(TOKEN, ALICE, "zh", 2 * 86_400);
    for (what, user) in [
        ("forged", Some(forged.as_str())),
        ("altered", Some(&altered)),
        ("expired", Some(&expired)),
        ("missing", None),
    ] {
        for path in ["cart", "orders", "me", "wallet"] {
            let (status, body) = served.get(path, user).await;
            assert_eq!(status, 401, "{what} initData on {path}: {body}");
            assert!(body.get("items").is_none() && body.get("orders").is_none(), "no data: {body}");
        }
    }
    let (status, _) = served.post("actions", &forged, json!({"tool": "clear_cart", "args": {}})).await;
    assert_eq!(status, 401);
    // The shopper is the signed user.id, never a parameter.
    let (status, me) = served.get("me?user_id=7002", Some(&alice())).await;
    assert_eq!((status, me["id"].as_i64()), (200, Some(ALICE)));
    // The map and the directory need no initData.
    assert_eq!(served.get("floors", None).await.0, 200);
    assert_eq!(served.get("stores", None).await.0, 200);
}

#[tokio::test]
async fn the_cart_shows_this_shoppers_lines_and_an_order_asks_once_more_with_the_full_order() {
    let served = Served::start("webapp-cart").await;
    let (product, sku) = a_nike_shoe().await;
    add_to_cart(&served, &alice(), &product, &sku).await;

    let (_, cart) = served.get("cart", Some(&alice())).await;
    assert_eq!(cart["items"].as_array().unwrap().len(), 1, "{cart}");
    assert_eq!(cart["items"][0]["product_id"], product.as_str());
    let (_, bobs) = served.get("cart", Some(&bob())).await;
    assert_eq!(bobs["items"].as_array().unwrap().len(), 0, "Bob sees none of Alice's cart: {bobs}");

    // Ordering is critical: the page gets the whole order to show, nothing is ordered yet.
    let cart_id = cart["cart_id"].as_str().unwrap();
    let (status, asked) =
        served.post("actions", &alice(), json!({"tool": "create_order", "args": {"cart_id": cart_id}})).await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["confirm"]["level"], "critical");
    let summary = asked["confirm"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("确认下单") && summary.contains("合计") && summary.contains("取货"),
        "{summary}"
    );
    assert_eq!(served.get("orders", Some(&alice())).await.1["orders"].as_array().unwrap().len(), 0);

    // Bob cannot confirm Alice's order; a token is used once.
    let token = asked["confirm"]["token"].as_str().unwrap();
    let (status, _) = served.post(&format!("actions/{token}"), &bob(), json!({})).await;
    assert_eq!(status, 403);
    let (status, asked) =
        served.post("actions", &alice(), json!({"tool": "create_order", "args": {"cart_id": cart_id}})).await;
    assert_eq!(status, 200);
    let token = asked["confirm"]["token"].as_str().unwrap();
    let (status, done) = served.post(&format!("actions/{token}"), &alice(), json!({})).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["done"]["order"]["status"], "PENDING_PAYMENT");
    let (status, _) = served.post(&format!("actions/{token}"), &alice(), json!({})).await;
    assert_eq!(status, 410, "a second press does nothing");
    let (_, orders) = served.get("orders", Some(&alice())).await;
    assert_eq!(orders["orders"].as_array().unwrap().len(), 1, "one order: {orders}");
    assert_eq!(served.get("orders", Some(&bob())).await.1["orders"].as_array().unwrap().len(), 0);
    // Without payments the page is told to pay at the store.
    let order_id = orders["orders"][0]["order_id"].as_str().unwrap();
    let (status, body) = served.post(&format!("orders/{order_id}/invoice"), &alice(), json!({})).await;
    assert_eq!(status, 409);
    assert!(body["error"].as_str().unwrap().contains("取货门店"), "{body}");
}

#[tokio::test]
async fn the_wallet_shows_this_shoppers_points_and_coupons_and_a_claim_asks_once_more() {
    let dir = TempDir::new("webapp-wallet");
    let points = points_earned(&dir, ALICE).await;
    let served = Served::start_in("webapp-wallet", dir).await;

    let (status, wallet) = served.get("wallet", Some(&alice())).await;
    assert_eq!(status, 200, "{wallet}");
    assert_eq!(wallet["points"].as_i64(), Some(points), "{wallet}");
    assert_eq!(wallet["coupons"], json!([]), "none claimed yet");
    let claimable: Vec<&str> =
        wallet["claimable"].as_array().unwrap().iter().map(|c| c["coupon_id"].as_str().unwrap()).collect();
    assert!(claimable.contains(&"cp-mall-50") && claimable.contains(&"cp-nike-100"), "{wallet}");
    let mall_50 = wallet["claimable"].as_array().unwrap().iter().find(|c| c["coupon_id"] == "cp-mall-50");
    assert_eq!(mall_50.unwrap()["title"], "全场满300减50", "in the shopper's language");

    // A claim is shown first; Bob cannot confirm Alice's; hers claims it.
    let (_, asked) = served
        .post("actions", &alice(), json!({"tool": "claim_coupon", "args": {"coupon": "cp-mall-50"}}))
        .await;
    assert!(asked["confirm"]["summary"].as_str().unwrap().contains("全场满300减50"), "{asked}");
    let token = asked["confirm"]["token"].as_str().unwrap();
    assert_eq!(served.get("wallet", Some(&alice())).await.1["coupons"], json!([]), "not before confirming");
    let (status, _) = served.post(&format!("actions/{token}"), &bob(), json!({})).await;
    assert_eq!(status, 403);
    let (status, done) = served.post(&format!("actions/{token}"), &alice(), json!({})).await;
    assert_eq!(status, 200, "{done}");

    let (_, wallet) = served.get("wallet", Some(&alice())).await;
    let mine: Vec<(&str, &str)> = wallet["coupons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["coupon_id"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    assert_eq!(mine, [("cp-mall-50", "AVAILABLE")], "{wallet}");
    assert!(
        wallet["claimable"].as_array().unwrap().iter().all(|c| c["coupon_id"] != "cp-mall-50"),
        "a held coupon is not offered again: {wallet}"
    );
    // Bob, in English, has his own: no points, no coupons, titles in English.
    let (_, bobs) = served.get("wallet", Some(&bob())).await;
    assert_eq!((bobs["points"].as_i64(), &bobs["coupons"]), (Some(0), &json!([])), "{bobs}");
    let titles: Vec<&str> =
        bobs["claimable"].as_array().unwrap().iter().map(|c| c["title"].as_str().unwrap()).collect();
    assert!(titles.contains(&"¥50 off ¥300, any store"), "{bobs}");
    // Without initData: nothing.
    let (status, body) = served.get("wallet", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.get("points").is_none());
}

#[tokio::test]
async fn the_route_api_follows_the_tools_route_across_floors() {
    let served = Served::start("webapp-route").await;
    let (status, route) = served.get("route?to=s-nike", None).await;
    assert_eq!(status, 200, "{route}");
    let ctx = handlers::ToolContext::new(
        std::sync::Arc::new(services::EmbeddedMall::in_memory()),
        services::Shopper::new("telegram", 1),
        handlers::Lang::Zh,
    )
    .with_map(Some(maps::demo::router()))
    .without_pictures();
    let tool = handlers::find("navigate_to_store").unwrap();
    let by_tool = tool.invoke(ctx, json!({"store_name": "s-nike"})).await.unwrap().data;
    assert_eq!(route["floors"], by_tool["floors"], "the page's floors are the tool's");
    let legs: Vec<i64> =
        route["legs"].as_array().unwrap().iter().map(|l| l["floor"].as_i64().unwrap()).collect();
    assert_eq!(json!(legs), by_tool["floors"]);
    assert!(route["legs"][0]["points"].as_array().unwrap().len() >= 2);
    assert_eq!(route["steps"], by_tool["steps"]);
    let (status, body) = served.get("route?to=no-such-store", None).await;
    assert_eq!(status, 404, "{body}");
    let (status, stairs) =
        served.get("route?to=s-nike&avoid_stairs=true&from=north_gate&lang=en", None).await;
    assert_eq!(status, 200, "{stairs}");
    assert_eq!(stairs["from"], "north_gate");
    assert!(stairs["steps"][0].as_str().unwrap().contains("North"), "{stairs}");
}

/// The directory in Traditional Chinese names the stores (and categories) in
/// Traditional characters, and its category filter and its search in those
/// characters find what the Simplified ones find.
#[tokio::test]
async fn the_traditional_directory_shows_traditional_names_and_filters_in_either_script() {
    let served = Served::start("webapp-hant").await;
    // Store ids, sorted: the directory is sorted by names, which sort by script.
    let ids = |body: &Value| -> Vec<String> {
        let mut ids: Vec<String> = body["stores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["store_id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let (status, hans) = served.get("stores?lang=zh", None).await;
    assert_eq!(status, 200, "{hans}");
    let (_, hant) = served.get("stores?lang=zh-hant", None).await;
    assert_eq!(ids(&hant), ids(&hans), "the same stores");
    let names: Vec<&str> =
        hant["stores"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"優衣庫") && names.contains(&"麥當勞"), "{names:?}");
    assert!(!names.contains(&"优衣库"), "{names:?}");
    let category = |body: &Value, i: usize| body["categories"][i].as_str().unwrap().to_owned();
    let count = hans["categories"].as_array().unwrap().len();
    assert_eq!(hant["categories"].as_array().unwrap().len(), count);
    for i in 0..count {
        let hans_category = category(&hans, i);
        let hant_category = handlers::texts::zh_hant::to_traditional(&hans_category);
        assert!(hant["categories"].as_array().unwrap().contains(&json!(hant_category)), "{hant}");
        let (_, by_hans) =
            served.get(&format!("stores?lang=zh&category={}", url_encode(&hans_category)), None).await;
        let (_, by_hant) =
            served.get(&format!("stores?lang=zh-hant&category={}", url_encode(&hant_category)), None).await;
        assert!(!ids(&by_hans).is_empty(), "{hans_category}");
        assert_eq!(ids(&by_hant), ids(&by_hans), "{hant_category} filters as {hans_category}");
    }
    let (_, searched) = served.get(&format!("stores?lang=zh-hant&q={}", url_encode("優衣庫")), None).await;
    assert_eq!(searched["stores"][0]["name"], "優衣庫", "{searched}");
}

#[tokio::test]
async fn run_serves_the_mini_app_sets_the_menu_button_and_offers_the_map_under_directions() {
    let api = fake_bot_api::FakeBotApi::start().await;
    let dir = TempDir::new("webapp-run");
    let listen = free_addr();
    let mut env = process::bot_env(&api);
    env.extend([
        ("MALLBOT_STATE__URL", "memory://".to_owned()),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_WEBAPP__LISTEN", listen.to_string()),
        ("MALLBOT_WEBAPP__PUBLIC_URL", "https://mall.example.test/webapp/".to_owned()),
        ("MALLBOT_PAYMENTS__PROVIDER_TOKEN", "284685063:TEST:webapp".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    wait_for_listener(listen, &bot).await;
    let page = reqwest::get(format!("http://{listen}/webapp/")).await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap().contains("app.js"));

    api.wait_until("the menu button", |api| !api.calls("setChatMenuButton").is_empty()).await;
    let menu = api.calls("setChatMenuButton").remove(0);
    assert_eq!(menu["menu_button"]["type"], "web_app", "{menu}");
    assert_eq!(menu["menu_button"]["web_app"]["url"], "https://mall.example.test/webapp/");

    let shopper = fake_bot_api::Shopper { id: 4101, name: "Mei" };
    api.push_update(fake_bot_api::private_text(shopper, "Nike 店怎么走？"));
    api.wait_until("the directions", |api| {
        api.sent_to(shopper.id).iter().any(|m| m["reply_markup"]["inline_keyboard"].is_array())
    })
    .await;
    let answer = api
        .sent_to(shopper.id)
        .into_iter()
        .find(|m| m["reply_markup"]["inline_keyboard"].is_array())
        .unwrap();
    let buttons: Vec<Value> = answer["reply_markup"]["inline_keyboard"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().clone())
        .collect();
    let map = buttons
        .iter()
        .find(|b| b["text"] == "🗺 在地图上看")
        .unwrap_or_else(|| panic!("a map button: {answer}"));
    assert_eq!(map["web_app"]["url"], "https://mall.example.test/webapp/?startapp=route-s-nike", "{map}");

    // Paying from the page: an invoice link of the mall's total for the shopper's own order.
    let served = Served { addr: listen, _process: bot, _dir: dir, http: reqwest::Client::new() };
    let user = init_data(process::TEST_TOKEN, shopper.id, "zh", 5);
    let (product, sku) = a_nike_shoe().await;
    add_to_cart(&served, &user, &product, &sku).await;
    let (_, cart) = served.get("cart", Some(&user)).await;
    let args = json!({"cart_id": cart["cart_id"]});
    let (_, asked) = served.post("actions", &user, json!({"tool": "create_order", "args": args})).await;
    let token = asked["confirm"]["token"].as_str().unwrap();
    let (_, done) = served.post(&format!("actions/{token}"), &user, json!({})).await;
    let order_id = done["done"]["order"]["order_id"].as_str().unwrap().to_owned();
    let (status, texts) = served.get("texts", Some(&user)).await;
    assert_eq!((status, texts["payments"].as_bool()), (200, Some(true)), "the page offers 💳");
    let (status, link) = served.post(&format!("orders/{order_id}/invoice"), &user, json!({})).await;
    assert_eq!(status, 200, "{link}");
    assert!(link["url"].as_str().unwrap().starts_with("https://t.me/$"), "{link}");
    let request = api.calls("createInvoiceLink").remove(0);
    let (paid_order, payer) =
        mallbot::PayloadKey::derive(process::TEST_TOKEN).open(request["payload"].as_str().unwrap()).unwrap();
    assert_eq!((paid_order.as_str(), payer), (order_id.as_str(), shopper.id));
    let total: i64 =
        request["prices"].as_array().unwrap().iter().map(|p| p["amount"].as_i64().unwrap()).sum();
    let order = &served.get("orders", Some(&user)).await.1["orders"][0];
    assert_eq!(total, (order["total_yuan"].as_f64().unwrap() * 100.0).round() as i64, "{request}");
    // Another shopper cannot get an invoice for it.
    let (status, _) =
        served.post(&format!("orders/{order_id}/invoice"), &bob_of(process::TEST_TOKEN), json!({})).await;
    assert_eq!(status, 404);
}

fn bob_of(token: &str) -> String {
    init_data(token, BOB, "en", 5)
}

// ---------------------------------------------------------------------------------------------
// In the browser

/// chromedriver on a free port, and a headless Chromium session of phone size.
struct Browser {
    client: Client,
    _driver: tokio::process::Child,
}

impl Browser {
    /// `None` (after a loud SKIPPED line) when Chromium is not installed outside CI.
    async fn start(case: &str, dir: &TempDir) -> Option<Browser> {
        let Some(driver) = browser::installed_driver() else {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("chromium and chromium-driver must be installed in CI (.ci/run installs them)");
            }
            let line = format!("SKIPPED: chromium/chromedriver not installed — {case} did not run\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            return None;
        };
        let (driver, client) = browser::session(driver, dir.path())
            .await
            .unwrap_or_else(|e| panic!("a Chromium session: {e:#}"));
        Some(Browser { client, _driver: driver })
    }

    /// Waits (bounded) until the page says it is ready.
    async fn open(&self, url: &str) {
        // A URL that differs only in its fragment would not load the page again.
        self.client.goto("about:blank").await.unwrap();
        self.client.goto(url).await.unwrap();
        self.wait_for("body[data-ready='1']").await;
    }

    async fn wait_for(&self, css: &str) {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("waited for {css}: {e}"));
    }

    /// The text of the element `css` finds; found again when the page re-drew it between
    /// the finding and the reading (a stale element).
    async fn text(&self, css: &str) -> String {
        let mut tries = 0;
        loop {
            let element = self.client.find(Locator::Css(css)).await.unwrap();
            match element.text().await {
                Ok(text) => return text,
                Err(e) if e.is_stale_element_reference() && tries < 5 => tries += 1,
                Err(e) => panic!("the text of {css}: {e}"),
            }
        }
    }

    async fn screenshot(&self, name: &str) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/webapp-screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    async fn close(self) {
        let _ = self.client.close().await;
    }
}

/// The launch URL Telegram opens: `initData` and the rest in the fragment.
fn telegram_url(served: &Served, query: &str, init_data: &str) -> String {
    let mut fragment = url_encode_form(&[
        ("tgWebAppData", init_data),
        ("tgWebAppVersion", "8.0"),
        ("tgWebAppPlatform", "tdesktop"),
    ]);
    fragment.push_str("&tgWebAppThemeParams=");
    fragment
        .push_str(&url_encode(r##"{"bg_color":"#ffffff","button_color":"#2ea6ff","text_color":"#000000"}"##));
    format!("{}{query}#{fragment}", served.url(""))
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn url_encode_form(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}={}", url_encode(v))).collect::<Vec<_>>().join("&")
}

#[tokio::test]
async fn in_chromium_the_directory_lists_the_stores_and_a_tapped_store_gets_the_tools_route() {
    let served = Served::start("webapp-browser-map").await;
    let dir = TempDir::new("webapp-browser-map-chromium");
    let Some(browser) = Browser::start("the Mini App map and directory in Chromium", &dir).await else {
        return;
    };

    // The map, in a plain browser: floors, pins; tap Nike, then "route here".
    browser.open(&served.url("?lang=zh")).await;
    browser.wait_for("#plan circle").await;
    browser.screenshot("map-zh").await;
    browser.client.find(Locator::Css("#floors button[data-floor='3']")).await.unwrap().click().await.unwrap();
    browser.wait_for("#plan circle[data-store='s-nike']").await;
    browser
        .client
        .find(Locator::Css("#plan circle[data-store='s-nike']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser.wait_for("#route-go").await;
    assert!(browser.text("#sheet-body h2").await.contains("耐克"));
    browser.screenshot("store-card-zh").await;
    browser.client.find(Locator::Css("#route-go")).await.unwrap().click().await.unwrap();
    browser.wait_for("body[data-route-floors]").await;
    let floors = browser.client.execute("return document.body.dataset.routeFloors", vec![]).await.unwrap();
    let (_, route) = served.get("route?to=s-nike", None).await;
    let expected: Vec<String> = route["floors"].as_array().unwrap().iter().map(|f| f.to_string()).collect();
    assert_eq!(floors.as_str(), Some(expected.join(",").as_str()), "the drawn floors are the tool's route");
    let lines = browser.client.find_all(Locator::Css("#plan .route polyline")).await.unwrap();
    assert!(!lines.is_empty(), "the route is drawn on the floor shown");
    browser.screenshot("route-zh").await;

    // The directory in English: every demo store is listed, search as you type.
    browser.open(&served.url("?lang=en&startapp=directory")).await;
    browser.wait_for("#stores li[data-store='s-starbucks']").await;
    let listed = browser.client.find_all(Locator::Css("#stores li[data-store]")).await.unwrap().len();
    let (_, all) = served.get("stores", None).await;
    assert_eq!(listed, all["stores"].as_array().unwrap().len(), "every store is listed");
    assert!(browser.text("#tab-directory").await.contains("Stores"));
    browser.screenshot("directory-en").await;
    browser.client.find(Locator::Css("#search")).await.unwrap().send_keys("coffee").await.unwrap();
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::XPath("//ul[@id='stores'][count(li[@data-store]) < 6]"))
        .await
        .unwrap();
    assert!(browser.text("#stores").await.contains("Starbucks"), "{}", browser.text("#stores").await);
    browser.close().await;
}

#[tokio::test]
async fn in_chromium_the_cart_shows_this_shoppers_lines_in_traditional_chinese_and_asks_before_ordering() {
    let served = Served::start("webapp-browser-cart").await;
    let (product, sku) = a_nike_shoe().await;
    add_to_cart(&served, &alice(), &product, &sku).await;
    let dir = TempDir::new("webapp-browser-cart-chromium");
    let Some(browser) = Browser::start("the Mini App cart in Chromium", &dir).await else { return };

    // Bob, in Traditional Chinese from his Telegram language: his cart is empty.
    let bob_hant = init_data(TOKEN, BOB, "zh-hant", 5);
    browser.open(&telegram_url(&served, "?startapp=cart", &bob_hant)).await;
    browser.wait_for("#cart p").await;
    assert_eq!(browser.text("#cart p").await, "購物車是空的。");
    assert!(browser.text("#tab-cart").await.contains("購物車"));
    browser.screenshot("cart-bob-zh-hant").await;

    // Alice sees her line; ordering shows the whole order first.
    browser.open(&telegram_url(&served, "?startapp=cart", &alice())).await;
    browser.wait_for("#cart li[data-item]").await;
    assert_eq!(browser.client.find_all(Locator::Css("#cart li[data-item]")).await.unwrap().len(), 1);
    browser.screenshot("cart-alice-zh").await;
    browser.client.find(Locator::Css("#order-go")).await.unwrap().click().await.unwrap();
    browser.wait_for("#confirm-summary").await;
    let summary = browser.text("#confirm-summary").await;
    assert!(summary.contains("合计") && summary.contains("取货"), "{summary}");
    assert_eq!(
        served.get("orders", Some(&alice())).await.1["orders"].as_array().unwrap().len(),
        0,
        "not yet"
    );
    browser.screenshot("order-confirm-zh").await;
    browser.client.find(Locator::Css("#confirm-yes")).await.unwrap().click().await.unwrap();
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::XPath("//ul[@id='orders']/li[contains(., 'PENDING_PAYMENT')]"))
        .await
        .unwrap();
    assert_eq!(served.get("orders", Some(&alice())).await.1["orders"].as_array().unwrap().len(), 1);

    // A forged initData: the page gets nothing and says so.
    let forged = init_data("123:SOMEONE-ELSE", ALICE, "zh", 5);
    browser.open(&telegram_url(&served, "?startapp=cart", &forged)).await;
    browser.wait_for("#toast:not([hidden])").await;
    assert!(browser.client.find_all(Locator::Css("#cart li[data-item]")).await.unwrap().is_empty());

    // Outside Telegram the cart says to open it there.
    browser.open(&served.url("?startapp=cart&lang=en")).await;
    browser.wait_for("#open-in-telegram").await;
    assert!(browser.text("#open-in-telegram").await.contains("Open this page in Telegram"));
    browser.close().await;
}

#[tokio::test]
async fn in_chromium_the_cart_shows_the_points_and_coupons_and_orders_with_a_coupon_after_showing_the_discount()
 {
    let dir = TempDir::new("webapp-browser-wallet");
    let points = points_earned(&dir, ALICE).await;
    let served = Served::start_in("webapp-browser-wallet", dir).await;
    claim(&served, &alice(), "cp-mall-50").await;
    let (product, sku) = a_nike_shoe().await;
    add_to_cart(&served, &alice(), &product, &sku).await;
    let chromium = TempDir::new("webapp-browser-wallet-chromium");
    let Some(browser) = Browser::start("the Mini App's points and coupons in Chromium", &chromium).await
    else {
        return;
    };

    browser.open(&telegram_url(&served, "?startapp=cart", &alice())).await;
    browser.wait_for("#points-balance").await;
    assert!(browser.text("#points").await.contains("我的积分"));
    assert_eq!(browser.text("#points-balance").await, points.to_string(), "the balance the mall keeps");
    let held = browser.text("#my-coupons li[data-coupon='cp-mall-50']").await;
    assert!(held.contains("全场满300减50") && held.contains("可用"), "{held}");
    assert!(browser.text("#claimable-coupons").await.contains("耐克满800减100"));
    browser.screenshot("cart-wallet-zh").await;

    // Claiming one more asks first, then it is the shopper's.
    browser
        .client
        .find(Locator::Css("#claimable-coupons [data-claim='cp-lucky-5']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser.wait_for("#sheet:not([hidden]) #confirm-summary").await;
    assert!(browser.text("#confirm-summary").await.contains("满100减20"));
    browser.client.find(Locator::Css("#confirm-yes")).await.unwrap().click().await.unwrap();
    browser.wait_for("#my-coupons li[data-coupon='cp-lucky-5']").await;
    let (_, wallet) = served.get("wallet", Some(&alice())).await;
    assert_eq!(wallet["coupons"].as_array().unwrap().len(), 2, "{wallet}");

    // Ordering with the best coupon shows the discount before it is placed.
    browser.client.find(Locator::Css("#order-coupon")).await.unwrap().click().await.unwrap();
    browser.wait_for("#sheet:not([hidden]) #confirm-summary").await;
    let summary = browser.text("#confirm-summary").await;
    assert!(
        summary.contains("小计")
            && summary.contains("优惠券「全场满300减50」-¥50")
            && summary.contains("实付"),
        "{summary}"
    );
    browser.screenshot("order-with-coupon-zh").await;
    browser.client.find(Locator::Css("#confirm-yes")).await.unwrap().click().await.unwrap();
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::XPath(
            "//ul[@id='my-coupons']/li[@data-coupon='cp-mall-50'][contains(., '已使用')]",
        ))
        .await
        .unwrap();
    let (_, orders) = served.get("orders", Some(&alice())).await;
    assert_eq!(orders["orders"].as_array().unwrap().len(), 2, "the one paid before and this one: {orders}");
    browser.close().await;
}

/// The floor plan's labels as the shopper sees them now: how many there
/// are, how many are shown, how many pairs of shown ones overlap on screen
/// (by more than a pixel), and the height of the smallest shown line.
async fn labels_seen(browser: &Browser) -> (u64, u64, u64, f64) {
    let seen = browser
        .client
        .execute(
            r##"const all = [...document.querySelectorAll("#plan g.label")];
            const shown = all.filter((g) => getComputedStyle(g).display !== "none");
            const boxes = shown.map((g) => g.getBoundingClientRect());
            let overlaps = 0;
            for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
              const [a, b] = [boxes[i], boxes[j]];
              if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                  Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) overlaps++;
            }
            const lines = shown.flatMap((g) => [...g.querySelectorAll("text")].map((t) => t.getBoundingClientRect().height));
            return [all.length, shown.length, overlaps, lines.length ? Math.min(...lines) : 99];"##,
            vec![],
        )
        .await
        .unwrap();
    let seen = seen.as_array().unwrap();
    let n = |i: usize| seen[i].as_u64().unwrap();
    (n(0), n(1), n(2), seen[3].as_f64().unwrap())
}

#[tokio::test]
async fn in_chromium_at_320_px_floor_labels_read_never_overlap_and_more_appear_zoomed_in() {
    let served = Served::start("webapp-labels").await;
    let dir = TempDir::new("webapp-labels-chromium");
    let Some(browser) = Browser::start("the floor plan's labels in Chromium", &dir).await else {
        return;
    };
    browser.client.set_window_size(320, 700).await.unwrap();
    let (_, floors) = served.get("floors", None).await;
    let floors: Vec<i64> =
        floors["floors"].as_array().unwrap().iter().map(|f| f["floor"].as_i64().unwrap()).collect();
    for lang in ["en", "zh"] {
        browser.open(&served.url(&format!("?lang={lang}"))).await;
        let (mut at_fit, mut zoomed) = (0, 0);
        for &floor in &floors {
            browser
                .client
                .find(Locator::Css(&format!("#floors button[data-floor='{floor}']")))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            browser.wait_for(&format!("#plan[data-floor='{floor}'] g.label")).await;
            let (all, shown, overlaps, smallest) = labels_seen(&browser).await;
            browser.screenshot(&format!("labels-{lang}-floor{floor}-320px")).await;
            assert_eq!(overlaps, 0, "{lang} floor {floor} at 320 px: no two labels overlap");
            assert!(
                shown == 0 || smallest >= 8.0,
                "{lang} floor {floor}: a shown line is {smallest:.1} px high"
            );
            at_fit += shown;
            // Twice as close, zoomed about the middle of the plan (the wheel, as a mouse does).
            browser
                .client
                .execute(
                    r#"const v = document.getElementById("viewport"), r = v.getBoundingClientRect();
                    for (let i = 0; i < 5; i++) v.dispatchEvent(new WheelEvent("wheel",
                      { deltaY: -1, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, cancelable: true }));"#,
                    vec![],
                )
                .await
                .unwrap();
            let (_, shown_zoomed, overlaps, smallest) = labels_seen(&browser).await;
            browser.screenshot(&format!("labels-{lang}-floor{floor}-320px-2x")).await;
            assert_eq!(overlaps, 0, "{lang} floor {floor} at 2×: no two labels overlap");
            assert!(
                shown_zoomed == 0 || smallest >= 8.0,
                "{lang} floor {floor} at 2×: a line is {smallest:.1} px high"
            );
            assert!(
                shown_zoomed >= shown && shown_zoomed <= all,
                "{lang} floor {floor}: zooming in hides nothing"
            );
            zoomed += shown_zoomed;
        }
        assert!(
            zoomed > at_fit,
            "{lang}: zooming in shows labels too small to read before ({at_fit} → {zoomed})"
        );
    }

    // A store's pin still opens its card with the whole name.
    browser.open(&served.url("?lang=en")).await;
    browser.client.find(Locator::Css("#floors button[data-floor='1']")).await.unwrap().click().await.unwrap();
    browser.wait_for("#plan[data-floor='1'] .pins circle[data-store]").await;
    let pin = browser.client.find(Locator::Css("#plan .pins circle[data-store]")).await.unwrap();
    let name = pin.find(Locator::Css("title")).await.unwrap().html(true).await.unwrap();
    pin.click().await.unwrap();
    browser.wait_for("#sheet-body h2").await;
    assert!(browser.text("#sheet-body h2").await.contains(name.trim()), "the card names {name}");
    browser.close().await;
}

#[tokio::test]
async fn the_facility_api_marks_facilities_per_floor_and_routes_to_the_nearest_as_the_tool_does() {
    let served = Served::start("webapp-facility").await;
    let (status, floors) = served.get("floors?lang=en", None).await;
    assert_eq!(status, 200, "{floors}");
    let kinds: Vec<&str> =
        floors["facility_kinds"].as_array().unwrap().iter().map(|k| k["kind"].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"restroom") && kinds.contains(&"mothersroom") && kinds.contains(&"atm"),
        "{kinds:?}"
    );
    let marked = |floor: i64, kind: &str| {
        floors["floors"].as_array().unwrap().iter().find(|f| f["floor"] == floor).unwrap()["facilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == kind)
    };
    assert!(marked(2, "mothersroom") && !marked(3, "mothersroom"), "nursing rooms on 2F and 4F only");
    assert!(marked(-1, "parking") && marked(1, "information"));

    let (status, route) = served.get("facility?kind=mothersroom&from=s-uniqlo", None).await;
    assert_eq!(status, 200, "{route}");
    let ctx = handlers::ToolContext::new(
        std::sync::Arc::new(services::EmbeddedMall::in_memory()),
        services::Shopper::new("telegram", 1),
        handlers::Lang::Zh,
    )
    .with_map(Some(maps::demo::router()))
    .without_pictures();
    let tool = handlers::find("find_facility").unwrap();
    let by_tool = tool.invoke(ctx, json!({"kind": "mothersroom", "from": "s-uniqlo"})).await.unwrap().data;
    assert_eq!(route["name"], "母婴室");
    assert_eq!(route["floor"], 2);
    assert_eq!(route["steps"], by_tool["steps"]);
    let legs: Vec<i64> =
        route["legs"].as_array().unwrap().iter().map(|l| l["floor"].as_i64().unwrap()).collect();
    assert_eq!(json!(legs), by_tool["floors"]);
    let (status, body) = served.get("facility?kind=swimming-pool", None).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn in_chromium_facilities_are_marked_filtered_and_the_store_card_routes_to_the_nearest() {
    let served = Served::start("webapp-browser-facility").await;
    let dir = TempDir::new("webapp-browser-facility-chromium");
    let Some(browser) = Browser::start("the Mini App's facilities in Chromium", &dir).await else {
        return;
    };
    let count = |css: &'static str| {
        let client = browser.client.clone();
        async move { client.find_all(Locator::Css(css)).await.unwrap().len() }
    };
    browser.open(&served.url("?lang=zh")).await;
    browser.wait_for("#plan .facilities g[data-facility='information']").await;
    assert!(count("#plan .facilities g[data-facility='atm']").await >= 1, "1F has an ATM marked");
    // The filter: only ATMs, then none.
    browser
        .client
        .find(Locator::Css("#facility-filter option[value='atm']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser.wait_for("#plan .facilities g[data-facility='atm'] circle[r='12']").await;
    let all = count("#plan .facilities g").await;
    assert_eq!(all, count("#plan .facilities g[data-facility='atm']").await, "only ATMs are shown");
    browser.screenshot("facilities-atm-zh").await;
    browser
        .client
        .find(Locator::Css("#facility-filter option[value='none']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::XPath("//*[@class='facilities'][not(*)]"))
        .await
        .unwrap();
    browser
        .client
        .find(Locator::Css("#facility-filter option[value='']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    // Uniqlo's card: the way to the nearest nursing room.
    browser.client.find(Locator::Css("#floors button[data-floor='2']")).await.unwrap().click().await.unwrap();
    browser.wait_for("#plan .facilities g[data-facility='mothersroom']").await;
    browser
        .client
        .find(Locator::Css("#plan circle[data-store='s-uniqlo']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser.wait_for("#facility-go").await;
    browser
        .client
        .find(Locator::Css("#facility-kind option[value='mothersroom']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser.client.find(Locator::Css("#facility-go")).await.unwrap().click().await.unwrap();
    browser.wait_for("body[data-route-kind='mothersroom']").await;
    let floors = browser.client.execute("return document.body.dataset.routeFloors", vec![]).await.unwrap();
    assert_eq!(floors.as_str(), Some("2"), "the nursing room on Uniqlo's floor");
    assert!(browser.text("#route-info").await.contains("母婴室"), "{}", browser.text("#route-info").await);
    assert!(!browser.client.find_all(Locator::Css("#plan .route polyline")).await.unwrap().is_empty());
    browser.screenshot("facility-route-zh").await;
    browser.close().await;
}

// The mall's Mini App: map, directory, cart. Plain JavaScript, no framework;
// talks to Telegram through its documented web-view events, and to the bot
// through /webapp/api/ with the launch's initData as `Authorization: tma …`.
"use strict";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// --- Telegram: launch parameters and events ---------------------------------
const launch = new URLSearchParams(location.hash.slice(1));
const query = new URLSearchParams(location.search);
const initData = launch.get("tgWebAppData") || "";
const startParam = launch.get("tgWebAppStartParam") || query.get("startapp") || "";
const inTelegram = initData !== "";

function postEvent(type, data) {
  const payload = JSON.stringify({ eventType: type, eventData: data || {} });
  try {
    if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, JSON.stringify(data || {}));
    else if (window.external && "notify" in window.external) window.external.notify(payload);
    else if (window.parent !== window) window.parent.postMessage(payload, "*");
  } catch (_) { /* outside Telegram: nothing to tell */ }
}
const handlers = {};
function onEvent(type, fn) { handlers[type] = fn; }
window.Telegram = window.Telegram || {};
window.Telegram.WebView = { receiveEvent: (type, data) => handlers[type] && handlers[type](data) };
// Telegram's web clients (web.telegram.org and its kin) frame the page and
// send their events as messages; a message from any other window or origin
// is ignored.
const TELEGRAM_ORIGIN = /^https:\/\/([a-z0-9-]+\.)*telegram\.org$/;
function fromTelegram(e) {
  return window.parent !== window && e.source === window.parent && TELEGRAM_ORIGIN.test(String(e.origin));
}
window.addEventListener("message", (e) => {
  if (!fromTelegram(e)) return;
  try { const m = JSON.parse(e.data); handlers[m.eventType] && handlers[m.eventType](m.eventData); } catch (_) { /* not ours */ }
});
const haptic = () => postEvent("web_app_trigger_haptic_feedback", { type: "impact", impact_style: "light" });

function applyTheme(params) {
  if (!params) return;
  const map = { bg_color: "--tg-bg", text_color: "--tg-text", hint_color: "--tg-hint", link_color: "--tg-link",
    button_color: "--tg-button", button_text_color: "--tg-button-text", secondary_bg_color: "--tg-secondary-bg" };
  for (const [key, name] of Object.entries(map)) {
    if (params[key]) document.documentElement.style.setProperty(name, params[key]);
  }
}
try { applyTheme(JSON.parse(launch.get("tgWebAppThemeParams") || "null")); } catch (_) { /* no theme */ }
onEvent("theme_changed", (d) => applyTheme(d && d.theme_params));

// --- The API ----------------------------------------------------------------
let lang = query.get("lang") || "";
let T = {};
let payments = false;

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  if (initData) headers.Authorization = "tma " + initData;
  const sep = path.includes("?") ? "&" : "?";
  const url = "api/" + path + (lang ? sep + "lang=" + encodeURIComponent(lang) : "");
  const response = await fetch(url, { ...options, headers });
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : await response.text();
  if (!response.ok && response.status !== 409) throw Object.assign(new Error(body.error || response.status), { body, status: response.status });
  return { status: response.status, body };
}

function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 3500);
}
const fail = (e) => toast((e.body && e.body.error) || T.mall_down || String(e));

// --- Navigation: tabs and the back button -----------------------------------
const history = [];
function showTab(tab, remember = true) {
  const current = document.querySelector("#tabs .on")?.dataset.tab;
  if (remember && current && current !== tab) history.push(current);
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === tab);
  for (const p of document.querySelectorAll(".page")) p.hidden = p.id !== "page-" + tab;
  postEvent("web_app_setup_back_button", { is_visible: history.length > 0 || !$("sheet").hidden });
  if (tab === "directory") loadDirectory();
  if (tab === "cart") loadCart();
}
function back() {
  if (!$("sheet").hidden) return closeSheet();
  const previous = history.pop();
  if (previous) showTab(previous, false);
}
onEvent("back_button_pressed", back);

function openSheet(html) {
  $("sheet-body").innerHTML = html;
  $("sheet").hidden = false;
  postEvent("web_app_setup_back_button", { is_visible: true });
}
function closeSheet() {
  $("sheet").hidden = true;
  postEvent("web_app_setup_back_button", { is_visible: history.length > 0 });
}
$("sheet").addEventListener("click", (e) => { if (e.target.id === "sheet") closeSheet(); });

// --- Map ----------------------------------------------------------------------
let floors = [];
let entrances = [];
let facilityKinds = [];
let shownFloor = null;
let route = null;
const view = { x: 0, y: 0, scale: 1 };

function storesById() {
  const all = {};
  for (const f of floors) for (const s of f.stores) all[s.id] = { ...s, floor: f.floor };
  return all;
}

async function loadFloors() {
  const { body } = await api("floors");
  floors = body.floors;
  entrances = body.entrances;
  facilityKinds = body.facility_kinds || [];
  const marked = new Set(floors.flatMap((f) => (f.facilities || []).map((p) => p.kind)));
  $("facility-filter").innerHTML = `<option value="">${esc(T.facilities_all)}</option>` +
    facilityKinds.filter((k) => marked.has(k.kind)).map((k) => `<option value="${esc(k.kind)}">${esc(k.name)}</option>`).join("") +
    `<option value="none">${esc(T.facilities_none)}</option>`;
  $("floors").innerHTML = floors.map((f) => `<button data-floor="${f.floor}">${esc(f.label.split(" ")[0])}</button>`).join("");
  for (const b of $("floors").children) b.addEventListener("click", () => { haptic(); showFloor(Number(b.dataset.floor)); });
}

async function showFloor(floor) {
  const f = floors.find((x) => x.floor === floor) || floors[0];
  if (!f) return;
  shownFloor = f.floor;
  for (const b of $("floors").children) {
    b.classList.toggle("on", Number(b.dataset.floor) === f.floor);
    b.classList.toggle("route", !!route && route.legs.some((l) => l.floor === Number(b.dataset.floor)));
  }
  const response = await fetch(`api/floors/${f.floor}/svg?lang=${encodeURIComponent(lang)}`);
  const svg = await response.text();
  const pins = f.stores.map((s) => `<circle data-store="${esc(s.id)}" cx="${s.x}" cy="${s.y}" r="11"><title>${esc(s.name)}</title></circle>`).join("");
  const shown = $("facility-filter").value;
  const facilities = (f.facilities || []).filter((p) => shown !== "none" && (!shown || p.kind === shown))
    .map((p) => `<g data-facility="${esc(p.kind)}" transform="translate(${p.x} ${p.y})"><circle r="${shown ? 12 : 9}" fill="${esc(p.colour)}"/>` +
      `<text y="3" font-size="${p.badge.length > 2 ? 7 : 9}">${esc(p.badge)}</text><title>${esc(p.name)}</title></g>`).join("");
  const legs = route ? route.legs.filter((l) => l.floor === f.floor) : [];
  const lines = legs.map((l) => `<polyline data-floor="${l.floor}" points="${l.points.map((p) => p.join(",")).join(" ")}"/>`).join("");
  $("plan").innerHTML = svg +
    `<svg class="layer" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" style="position:absolute;left:0;top:0">` +
    `<g class="route">${lines}</g><g class="facilities">${facilities}</g><g class="pins">${pins}</g></svg>`;
  if (route && route.store) for (const c of $("plan").querySelectorAll(".pins circle")) c.classList.toggle("target", c.dataset.store === route.store.store_id);
  for (const c of $("plan").querySelectorAll(".pins circle")) {
    c.addEventListener("click", (e) => { e.stopPropagation(); haptic(); openStore(c.dataset.store); });
  }
  $("plan").dataset.floor = f.floor;
  view.labelled = null;
  fitFloor(f);
}

function fitFloor(f) {
  const box = $("viewport").getBoundingClientRect();
  view.scale = Math.min(box.width / f.width, box.height / f.height);
  view.x = (box.width - f.width * view.scale) / 2;
  view.y = (box.height - f.height * view.scale) / 2;
  applyView();
}
function applyView() {
  $("plan").style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.scale})`;
  if (view.scale !== view.labelled) showLabels();
}

// A label is shown when it reads at the zoom it is seen at (at least
// LEGIBLE_PX on screen); a store whose label shows keeps its pin only as a
// place to tap, one whose label is hidden shows the pin as a dot.
const LEGIBLE_PX = 8;
function showLabels() {
  view.labelled = view.scale;
  const named = new Set();
  for (const g of $("plan").querySelectorAll("g.label")) {
    const on = Number(g.dataset.size) * view.scale >= LEGIBLE_PX;
    g.style.display = on ? "" : "none";
    if (on && g.dataset.store) named.add(g.dataset.store);
  }
  for (const c of $("plan").querySelectorAll(".pins circle")) c.classList.toggle("labelled", named.has(c.dataset.store));
}

// Pan with one finger or the mouse, pinch or wheel to zoom.
(function panAndZoom() {
  const el = $("viewport");
  const pointers = new Map();
  let last = null;
  el.addEventListener("pointerdown", (e) => { pointers.set(e.pointerId, e); last = null; });
  el.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId)) return;
    const before = pointers.get(e.pointerId);
    pointers.set(e.pointerId, e);
    if (pointers.size === 1) {
      view.x += e.clientX - before.clientX;
      view.y += e.clientY - before.clientY;
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
      if (last) zoomAt((a.clientX + b.clientX) / 2, (a.clientY + b.clientY) / 2, distance / last);
      last = distance;
    }
    applyView();
  });
  const up = (e) => { pointers.delete(e.pointerId); last = null; };
  el.addEventListener("pointerup", up);
  el.addEventListener("pointercancel", up);
  el.addEventListener("wheel", (e) => { e.preventDefault(); zoomAt(e.clientX, e.clientY, e.deltaY < 0 ? 1.15 : 1 / 1.15); applyView(); }, { passive: false });
  function zoomAt(cx, cy, factor) {
    const box = el.getBoundingClientRect();
    const scale = Math.min(8, Math.max(0.2, view.scale * factor));
    const k = scale / view.scale;
    view.x = cx - box.left - (cx - box.left - view.x) * k;
    view.y = cy - box.top - (cy - box.top - view.y) * k;
    view.scale = scale;
  }
})();

async function openStore(id) {
  const pin = storesById()[id];
  openSheet(`<h2>${esc(pin ? pin.name : id)}</h2><p class="hint">${esc(T.loading)}</p>`);
  let card = null;
  try { card = (await api("stores/" + encodeURIComponent(id))).body; } catch (e) { fail(e); }
  const basic = card && card.basic && (card.basic.store || card.basic);
  const promotions = (card && card.promotions && card.promotions.promotions) || [];
  const reviews = (card && card.reviews && card.reviews.reviews) || [];
  const places = [...entrances.map((e) => [e.id, e.name]), ...Object.values(storesById()).filter((s) => s.id !== id).map((s) => [s.id, s.name])];
  openSheet(`
    <h2>${esc(basic ? basic.name : pin && pin.name)}</h2>
    ${basic ? `<p>${esc(T.floor)} ${esc(basic.floor)}${basic.unit ? " · " + esc(basic.unit) : ""}${basic.category ? " · " + esc(basic.category) : ""}</p>
    <p class="meta">${esc(T.hours)}: ${esc(basic.open_hours || T.none)} · ${esc(T.phone)}: ${esc(basic.phone || T.none)}</p>` : ""}
    <h2>${esc(T.promotions)}</h2>
    ${promotions.length ? "<ul>" + promotions.map((p) => `<li>${esc(p.title)}${p.description ? " — " + esc(p.description) : ""}</li>`).join("") + "</ul>" : `<p class="hint">${esc(T.none)}</p>`}
    <h2>${esc(T.reviews)}</h2>
    ${reviews.length ? "<ul>" + reviews.slice(0, 3).map((r) => `<li>${"★".repeat(Math.round(r.rating || 0))} ${esc(r.text)}</li>`).join("") + "</ul>" : `<p class="hint">${esc(T.none)}</p>`}
    <p><label>${esc(T.from)} <select id="route-from">${places.map(([pid, name]) => `<option value="${esc(pid)}">${esc(name)}</option>`).join("")}</select></label>
    <label><input type="checkbox" id="route-lifts"> ${esc(T.avoid_stairs)}</label></p>
    <button id="route-go">${esc(T.route_here)}</button>
    ${facilityKinds.length ? `<p><label>${esc(T.nearest_facility)} <select id="facility-kind">${facilityKinds.map((k) => `<option value="${esc(k.kind)}">${esc(k.name)}</option>`).join("")}</select></label>
    <button id="facility-go">${esc(T.facility_go)}</button></p>` : ""}`);
  $("route-go").addEventListener("click", () => {
    haptic();
    drawRoute(id, $("route-from").value, $("route-lifts").checked);
  });
  if ($("facility-go")) $("facility-go").addEventListener("click", () => {
    haptic();
    drawFacilityRoute($("facility-kind").value, id);
  });
}

async function drawRoute(to, from, avoidStairs) {
  const tapped = performance.now();
  let params = "route?to=" + encodeURIComponent(to) + "&avoid_stairs=" + (avoidStairs ? "true" : "false");
  if (from) params += "&from=" + encodeURIComponent(from);
  try {
    route = (await api(params)).body;
  } catch (e) {
    return fail(e);
  }
  await showRoute(route.store.name, tapped);
}

// The way to the nearest facility of `kind` from the store `from`, drawn as a store's route is.
async function drawFacilityRoute(kind, from) {
  const tapped = performance.now();
  try {
    route = (await api("facility?kind=" + encodeURIComponent(kind) + "&from=" + encodeURIComponent(from))).body;
  } catch (e) {
    return fail(e);
  }
  document.body.dataset.routeKind = route.kind;
  await showRoute(route.name, tapped);
}

async function showRoute(name, tapped) {
  closeSheet();
  showTab("map");
  await showFloor(route.legs.length ? route.legs[0].floor : shownFloor);
  const info = $("route-info");
  info.hidden = false;
  info.innerHTML = `<b>${esc(name)}</b> · ${esc(route.distance_m)} ${esc(T.metres)} · ${esc(route.eta_minutes)} ${esc(T.minutes)}` +
    `<div class="chips">${route.legs.map((l, i) => `<button data-leg-floor="${l.floor}">${i + 1}. ${esc(floorLabel(l.floor))}</button>`).join("")}</div>` +
    `<ol>${(route.steps || []).map((s) => `<li>${esc(s)}</li>`).join("")}</ol>`;
  for (const b of info.querySelectorAll("[data-leg-floor]")) b.addEventListener("click", () => showFloor(Number(b.dataset.legFloor)));
  window.__routeDrawnMs = performance.now() - tapped;
  document.body.dataset.routeFloors = route.legs.map((l) => l.floor).join(",");
}
const floorLabel = (floor) => (floors.find((f) => f.floor === floor) || { label: String(floor) }).label.split(" ")[0];

// --- Directory ------------------------------------------------------------------
let directoryTimer = null;
async function loadDirectory() {
  const q = $("search").value.trim();
  const floor = $("filter-floor").value;
  const category = $("filter-category").value;
  let path = "stores?q=" + encodeURIComponent(q);
  if (floor) path += "&floor=" + encodeURIComponent(floor);
  if (category) path += "&category=" + encodeURIComponent(category);
  try {
    const { body } = await api(path);
    if (!q && !floor && !category) {
      $("filter-category").innerHTML = `<option value="">${esc(T.all_categories)}</option>` +
        body.categories.map((c) => `<option>${esc(c)}</option>`).join("");
    }
    $("stores").innerHTML = body.stores.map((s) => `<li data-store="${esc(s.store_id)}"><b>${esc(s.name)}</b>
      <div class="meta">${esc(floorLabel(s.floor))}${s.unit ? " · " + esc(s.unit) : ""} · ${esc(s.category)}${s.open_hours ? " · " + esc(s.open_hours) : ""}</div></li>`).join("") ||
      `<li class="hint">${esc(T.not_found)}</li>`;
    for (const li of $("stores").querySelectorAll("[data-store]")) li.addEventListener("click", () => openStore(li.dataset.store));
  } catch (e) { fail(e); }
}
$("search").addEventListener("input", () => { clearTimeout(directoryTimer); directoryTimer = setTimeout(loadDirectory, 150); });
$("filter-floor").addEventListener("change", loadDirectory);
$("filter-category").addEventListener("change", loadDirectory);

// --- Cart and orders ------------------------------------------------------------
async function loadCart() {
  if (!inTelegram) {
    $("cart").innerHTML = `<p class="hint" id="open-in-telegram">${esc(T.open_in_telegram)}</p>`;
    $("orders").innerHTML = "";
    $("wallet").innerHTML = "";
    return;
  }
  try {
    // Points and coupons are shown when the mall has them; the cart does without.
    const [{ body: cart }, { body: orders }, wallet] =
      await Promise.all([api("cart"), api("orders"), api("wallet").then((r) => r.body, () => null)]);
    const usable = wallet && (wallet.coupons || []).some((c) => c.status === "AVAILABLE");
    $("cart").innerHTML = cart.items.length === 0 ? `<p class="hint">${esc(T.cart_empty)}</p>` :
      `<ul class="list">${cart.items.map((i) => `<li data-item="${esc(i.item_id)}"><b>${esc(i.name)}</b>${i.sku_label ? " (" + esc(i.sku_label) + ")" : ""} × ${esc(i.quantity)}
        <div class="meta">¥${esc(i.line_total_yuan)}</div>
        <button class="plain" data-remove="${esc(i.item_id)}">${esc(T.remove)}</button>
        <button class="plain" data-more="${esc(i.product_id)}" data-sku="${esc(i.sku_id || "")}">${esc(T.one_more)}</button></li>`).join("")}</ul>
        <p><b>${esc(T.total)} ¥${esc(cart.total_yuan)}</b></p><button id="order-go">${esc(T.order)}</button>${usable ? `<button id="order-coupon">${esc(T.order_with_coupon)}</button>` : ""}`;
    showWallet(wallet);
    for (const b of $("cart").querySelectorAll("[data-remove]")) b.addEventListener("click", () => act("remove_from_cart", { item_id: b.dataset.remove }));
    for (const b of $("cart").querySelectorAll("[data-more]")) {
      const args = { product_id: b.dataset.more, quantity: 1 };
      if (b.dataset.sku) args.sku_id = b.dataset.sku;
      b.addEventListener("click", () => act("add_to_cart", args));
    }
    if ($("order-go")) $("order-go").addEventListener("click", () => act("create_order", { cart_id: cart.cart_id }));
    if ($("order-coupon")) $("order-coupon").addEventListener("click", () => act("create_order", { cart_id: cart.cart_id, coupon_id: "best" }));
    $("orders").innerHTML = orders.orders.map((o) => `<li><b>${esc(o.order_id)}</b> · ${esc(o.status)} · ¥${esc(o.total_yuan)}
      <div class="meta">${esc((o.items || []).join(", "))}</div>
      ${o.status === "PENDING_PAYMENT" && payments ? `<button data-pay="${esc(o.order_id)}">${esc(T.pay)}</button>` : ""}
      ${o.status === "PENDING_PAYMENT" || o.status === "PAID" ? `<button class="plain" data-cancel="${esc(o.order_id)}">${esc(T.cancel_order)}</button>` : ""}</li>`).join("") ||
      `<li class="hint">${esc(T.no_orders)}</li>`;
    for (const b of $("orders").querySelectorAll("[data-pay]")) b.addEventListener("click", () => pay(b.dataset.pay));
    for (const b of $("orders").querySelectorAll("[data-cancel]")) b.addEventListener("click", () => act("cancel_order", { order_id: b.dataset.cancel }));
  } catch (e) { fail(e); }
}

// The points balance, the shopper's coupons and the mall's still to claim
// (a claim is confirmed as any other change).
function showWallet(wallet) {
  if (!wallet) { $("wallet").innerHTML = ""; return; }
  const status = { AVAILABLE: T.coupon_available, USED: T.coupon_used, EXPIRED: T.coupon_expired };
  const coupon = (c) => {
    const off = T.coupon_off.replace("{off}", "¥" + c.discount_yuan).replace("{min}", "¥" + c.min_spend_yuan);
    const cost = c.points_cost != null && !c.status ? ` · ${c.points_cost} ${T.points_cost}` : "";
    return `<b>${esc(c.title)}</b><div class="meta">${esc(off)}${c.stores && c.stores.length ? " · " + esc(c.stores.join(", ")) : ""} · ${esc(T.valid_to)} ${esc(c.valid_to)}${esc(cost)}</div>`;
  };
  const mine = wallet.coupons || [];
  const claimable = wallet.claimable || [];
  $("wallet").innerHTML = (wallet.points != null ? `<p id="points"><b>${esc(T.points)}</b> <span id="points-balance">${esc(wallet.points)}</span></p>` : "") +
    `<h2>${esc(T.my_coupons)}</h2><ul class="list" id="my-coupons">${mine.map((c) => `<li data-coupon="${esc(c.coupon_id)}">${coupon(c)}
      <div class="meta">${esc(status[c.status] || c.status)}</div></li>`).join("") || `<li class="hint">${esc(T.no_coupons)}</li>`}</ul>` +
    (claimable.length ? `<h2>${esc(T.claimable_coupons)}</h2><ul class="list" id="claimable-coupons">${claimable.map((c) => `<li data-coupon="${esc(c.coupon_id)}">${coupon(c)}
      <button data-claim="${esc(c.coupon_id)}">${esc(T.claim)}</button></li>`).join("")}</ul>` : "");
  for (const b of $("wallet").querySelectorAll("[data-claim]")) b.addEventListener("click", () => act("claim_coupon", { coupon: b.dataset.claim }));
}

// A change keeps its level: confirm and critical ones are asked once more here.
async function act(tool, args) {
  haptic();
  try {
    const { body } = await api("actions", { method: "POST", body: JSON.stringify({ tool, args }) });
    if (body.confirm) return ask(body.confirm);
    loadCart();
  } catch (e) { fail(e); }
}
function ask(confirm, note) {
  openSheet(`${note ? `<p><b>${esc(note)}</b></p>` : ""}${confirm.level === "critical" ? `<p>${esc(T.check_order)}</p>` : ""}
    <pre id="confirm-summary">${esc(confirm.summary)}</pre>
    <button id="confirm-yes">${esc(T.confirm)}</button><button class="plain" id="confirm-no">${esc(T.cancel)}</button>`);
  $("confirm-no").addEventListener("click", closeSheet);
  $("confirm-yes").addEventListener("click", async () => {
    $("confirm-yes").disabled = true;
    try {
      const { status, body } = await api("actions/" + encodeURIComponent(confirm.token), { method: "POST" });
      if (status === 409 && body.confirm) return ask(body.confirm, body.changed);
      closeSheet();
      haptic();
      loadCart();
    } catch (e) { closeSheet(); fail(e); }
  });
}
async function pay(orderId) {
  try {
    const { status, body } = await api("orders/" + encodeURIComponent(orderId) + "/invoice", { method: "POST" });
    if (status === 409) return toast(body.error);
    const slug = body.url.replace(/^https?:\/\/t\.me\/(\$|invoice\/)?/, "");
    postEvent("web_app_open_invoice", { slug });
  } catch (e) { fail(e); }
}
onEvent("invoice_closed", (d) => { if (d && d.status === "paid") toast(T.paid); loadCart(); });

// --- Start ------------------------------------------------------------------------
async function start() {
  const { body } = await api("texts");
  T = body.texts;
  lang = lang || body.lang;
  payments = body.payments;
  document.documentElement.lang = lang;
  document.title = T.title;
  $("lang").value = lang;
  $("tab-map").textContent = T.tab_map;
  $("tab-directory").textContent = T.tab_directory;
  $("tab-cart").textContent = T.tab_cart;
  $("search").placeholder = T.search;
  $("orders-title").textContent = T.orders;
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => { haptic(); showTab(b.dataset.tab); });
  try {
    await loadFloors();
    $("filter-floor").innerHTML = `<option value="">${esc(T.all_floors)}</option>` +
      floors.map((f) => `<option value="${f.floor}">${esc(f.label)}</option>`).join("");
  } catch (e) { fail(e); }
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  const [, target] = startParam.match(/^route-(.+)$/) || [];
  const [, store] = startParam.match(/^store-(.+)$/) || [];
  if (target) {
    showTab("map", false);
    await drawRoute(target, "", false);
  } else {
    const tab = ["map", "directory", "cart"].includes(startParam) ? startParam : "map";
    showTab(tab, false);
    if (floors.length) await showFloor(floors.some((f) => f.floor === 1) ? 1 : floors[0].floor);
    if (store) openStore(store);
  }
  document.body.dataset.ready = "1";
}
$("facility-filter").addEventListener("change", () => { if (shownFloor !== null) showFloor(shownFloor); });
$("lang").addEventListener("change", () => {
  const url = new URL(location.href);
  url.searchParams.set("lang", $("lang").value);
  location.replace(url.toString());
});
start().catch(fail);

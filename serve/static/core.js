// FiF page, shared part: helpers, the API client, result cards, the component panel and the
// place in the URL. Plain JavaScript over the JSON API (/api); no framework, no CDN.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token");
let INDEX = null;  // the picked index; every API call names it (?index=), null: the server's default

// -- helpers ------------------------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== ""));
  return node;
}

function withToken(url) {
  if (!TOKEN) return url;
  return url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN);
}

// An API URL of an index (default: the picked one), unless it already names one.
function withIndex(url, index = INDEX) {
  if (!index || /[?&]index=/.test(url)) return url;
  return url + (url.includes("?") ? "&" : "?") + "index=" + encodeURIComponent(index);
}

async function api(path, body) {
  path = withIndex(path);
  const options = { headers: {} };
  if (TOKEN) options.headers.Authorization = "Bearer " + TOKEN;
  if (body !== undefined) {
    options.method = "POST";
    const csrf = document.querySelector('meta[name="fif-csrf"]');  // set by a server that checks it
    if (csrf) options.headers["X-FiF-CSRF"] = csrf.content;
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(describe(data.detail) || response.statusText), { field: fieldOf(data) });
  return data;
}

// The request field an error names: the server's `field`, or the `loc` of a lone validation error.
function fieldOf(data) {
  if (data.field) return data.field;
  return Array.isArray(data.detail) && data.detail.length === 1 ? (data.detail[0].loc || []).slice(-1)[0] : null;
}

function describe(detail) {
  if (!Array.isArray(detail)) return detail;
  return detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
}

function formValues(form) {
  const values = {};
  for (const input of form.querySelectorAll("input, select")) {
    if (!input.name) continue;
    if (input.type === "checkbox") values[input.name] = input.checked;
    else if (input.type === "number") { if (input.value !== "") values[input.name] = Number(input.value); }
    else values[input.name] = input.value;
  }
  return values;
}

function fmtCost(cost) {
  const keys = ["llm_calls", "input_tokens", "output_tokens", "usd", "embedding_ms", "vector_ms", "llm_ms", "work_ms"];
  return el("div", { class: "cost" }, keys.filter((k) => k in cost).map((k) =>
    el("span", {}, el("b", {}, k), " ", k === "usd" ? Number(cost[k]).toFixed(4) : Math.round(cost[k] * 10) / 10)));
}

function addCost(total, delta) {
  for (const [key, value] of Object.entries(delta || {})) total[key] = (total[key] || 0) + value;
  return total;
}

// -- the place in the URL: #tab=…&q=…&system=…&thread=…&branch=…&index=…&component=… ----------
function place() {
  return new URLSearchParams(location.hash.slice(1));
}

function setPlace(changes) {
  const next = place();
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") next.delete(key);
    else next.set(key, String(value));
  }
  history.replaceState(null, "", location.pathname + location.search + (next.toString() ? "#" + next : ""));
}

// -- results and the component panel ------------------------------------------------------------
// Links to a PDF page (zero-indexed `page`): its rendered PNG, and the file opened at it.
function pageLinks(docId, page, index) {
  if (page === null || page === undefined) return null;
  const doc = "/api/documents/" + encodeURIComponent(docId);
  const stop = (event) => event.stopPropagation();  // a link inside a result does not open it
  return el("span", { class: "page-links" },
    el("a", { class: "page-link", target: "_blank", onclick: stop, href: withToken(withIndex(`${doc}/pages/${page}.png`, index)) }, `page ${page + 1}`),
    " ", el("a", { class: "pdf-link", target: "_blank", onclick: stop, href: withToken(withIndex(`${doc}/file`, index)) + `#page=${page + 1}` }, "PDF"));
}

// A zero-indexed [first, last] page span as printed: "p. 3" or "p. 3–4".
function printedPages(pages) {
  const [first, last] = pages.map((page) => page + 1);
  return first === last ? `p. ${first}` : `p. ${first}–${last}`;
}

// What a result's box is on its page ("Figure 3", "table"), with the box in points on hover.
function regionLabel(result) {
  if (!result.region || !result.region_label) return null;
  const box = result.region.bbox.map((v) => Math.round(v)).join(", ");
  return el("span", { class: "region-label", title: `box [${box}] in points, top-left origin, on page ${result.region.page + 1}` }, result.region_label);
}

// A ranked result; `result.sources` (a run's cited components) are drawn on its page too.
function resultItem(result) {
  const index = INDEX;  // the index the result came from, whatever is picked later
  const where = [result.title, result.section && result.section.join(" › "), result.pdf_page == null && result.pages && printedPages(result.pages)];
  const opens = result.evidence || result.component_id;  // a sentence or row opens marked in its page
  const open = () => openComponent(opens, index, result.sources);
  return el("li", { class: "result" + (result.cited ? " cited" : ""), "data-id": result.component_id, "data-open": opens,
    tabindex: 0, role: "button", onclick: open, onkeydown: (e) => { if (e.key === "Enter") open(); } },
    el("div", { class: "meta" },
      el("span", {}, "#" + result.rank), el("span", { class: "badge" }, result.type),
      result.cited ? el("span", { class: "badge cited-badge" }, "answer source") : null,
      el("span", { class: "cid" }, result.component_id), el("span", {}, where.filter(Boolean).join(" · ")),
      pageLinks(result.doc_id, result.pdf_page, index), regionLabel(result),
      el("span", {}, "score " + Number(result.score).toFixed(3))),
    el("div", { class: "snippet" }, result.snippet),
    result.why ? el("div", { class: "why" }, "why: " + result.why) : null);
}

function tableView(table) {
  return el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, table.header.map((h) => el("th", {}, h)))),
    el("tbody", {}, table.rows.map((row) => el("tr", {}, row.map((c) => el("td", {}, c))))));
}

function marked(text, passage) {
  const at = passage ? text.indexOf(passage) : -1;
  if (at < 0) return [text];
  return [text.slice(0, at), el("mark", {}, passage), text.slice(at + passage.length)];
}

// The URL keeps the index and the component (#index=NAME&component=ID): a reload reopens it.
// `sources`: the cited components of the answer the component was opened from (their boxes).
async function openComponent(id, index = INDEX, sources = []) {
  const panel = document.getElementById("component");
  const body = document.getElementById("component-body");
  panel.hidden = false;
  body.replaceChildren(el("p", { class: "status" }, "loading " + id + "…"));
  setPlace({ index, component: id });
  try {
    const c = await api(withIndex("/api/components/" + encodeURIComponent(id), index));
    const highlight = c.highlight || {};
    fill(body,
      el("h2", {}, c.title), el("p", { class: "meta" }, el("span", { class: "badge" }, c.type), " ",
        el("span", { class: "cid", id: "component-id" }, c.component_id), " ", el("span", { class: "badge" }, c.index),
        c.section.length ? " · " + c.section.join(" › ") : "", c.pages ? ` · ${printedPages(c.pages)} ` : "",
        pageLinks(c.doc_id, c.pdf_page, c.index)),
      c.pdf_page != null ? el("div", { id: "page-view-slot" }) : null,
      c.links_to.length ? el("p", {}, "links to: ", c.links_to.map((d) => el("span", { class: "link", onclick: () => openComponent(d.doc_id, c.index) }, d.title + " "))) : null,
      el("h3", {}, "On its page"),
      el("div", { id: "page" }, c.page.map((part) => el("div", {
        class: "page-part" + (part.component_id === highlight.component_id ? " highlight" : ""), "data-id": part.component_id,
      }, part.table ? [part.text, tableView(part.table)] : marked(part.text, part.component_id === highlight.component_id ? highlight.text : "")))),
      c.children.length ? el("details", {}, el("summary", {}, `${c.children.length} parts`), c.children.map((k) =>
        el("div", { class: "link", onclick: () => openComponent(k.component_id, c.index) }, k.component_id + ": " + k.text))) : null,
      c.linked_from.length ? el("details", {}, el("summary", {}, `linked from ${c.linked_from.length}`), c.linked_from.map((k) =>
        el("div", { class: "link", onclick: () => openComponent(k.component_id, c.index) }, k.component_id + ": " + k.text))) : null);
    const slot = body.querySelector("#page-view-slot");
    const mark = body.querySelector(".page-part.highlight");
    if (slot) slot.replaceWith(await pageView(c, sources || []));  // the page and its box come first
    else if (mark) mark.scrollIntoView({ block: "center" });
  } catch (error) {
    body.replaceChildren(el("p", { class: "error" }, error.message));
  }
}
document.getElementById("component-close").addEventListener("click", () => {
  document.getElementById("component").hidden = true;
  setPlace({ component: null });
});


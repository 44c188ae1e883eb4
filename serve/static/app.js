// FiF page: plain JavaScript over the JSON API (/api). No framework, no CDN.
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
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(describe(data.detail) || response.statusText);
  return data;
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

// -- tabs -----------------------------------------------------------------------------------
function showTab(name) {
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.id === "tab-" + name));
  if (name === "threads") loadThreads();
  if (name === "evals") loadEvals();
}
document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));

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

function resultItem(result) {
  const index = INDEX;  // the index the result came from, whatever is picked later
  const where = [result.title, result.section && result.section.join(" › "), result.pdf_page == null && result.pages && printedPages(result.pages)];
  const opens = result.evidence || result.component_id;  // a sentence or row opens marked in its page
  return el("li", { class: "result", "data-id": result.component_id, "data-open": opens, onclick: () => openComponent(opens, index) },
    el("div", { class: "meta" },
      el("span", {}, "#" + result.rank), el("span", { class: "badge" }, result.type),
      el("span", { class: "cid" }, result.component_id), el("span", {}, where.filter(Boolean).join(" · ")),
      pageLinks(result.doc_id, result.pdf_page, index),
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
async function openComponent(id, index = INDEX) {
  const panel = document.getElementById("component");
  const body = document.getElementById("component-body");
  panel.hidden = false;
  body.replaceChildren(el("p", { class: "status" }, "loading " + id + "…"));
  const place = new URLSearchParams(index ? { index, component: id } : { component: id });
  history.replaceState(null, "", "#" + place);
  try {
    const c = await api(withIndex("/api/components/" + encodeURIComponent(id), index));
    const highlight = c.highlight || {};
    fill(body,
      el("h2", {}, c.title), el("p", { class: "meta" }, el("span", { class: "badge" }, c.type), " ",
        el("span", { class: "cid", id: "component-id" }, c.component_id), " ", el("span", { class: "badge" }, c.index),
        c.section.length ? " · " + c.section.join(" › ") : "", c.pages ? ` · ${printedPages(c.pages)} ` : "",
        pageLinks(c.doc_id, c.pdf_page, c.index)),
      c.pdf_page != null ? el("details", { class: "page-image" }, el("summary", {}, `page ${c.pdf_page + 1} as printed`),
        el("img", { alt: `page ${c.pdf_page + 1} of ${c.doc_id}`, loading: "lazy", src: withToken(withIndex(`/api/documents/${encodeURIComponent(c.doc_id)}/pages/${c.pdf_page}.png`, c.index)) })) : null,
      c.links_to.length ? el("p", {}, "links to: ", c.links_to.map((d) => el("span", { class: "link", onclick: () => openComponent(d.doc_id, c.index) }, d.title + " "))) : null,
      el("h3", {}, "On its page"),
      el("div", { id: "page" }, c.page.map((part) => el("div", {
        class: "page-part" + (part.component_id === highlight.component_id ? " highlight" : ""), "data-id": part.component_id,
      }, part.table ? [part.text, tableView(part.table)] : marked(part.text, part.component_id === highlight.component_id ? highlight.text : "")))),
      c.children.length ? el("details", {}, el("summary", {}, `${c.children.length} parts`), c.children.map((k) =>
        el("div", { class: "link", onclick: () => openComponent(k.component_id, c.index) }, k.component_id + ": " + k.text))) : null,
      c.linked_from.length ? el("details", {}, el("summary", {}, `linked from ${c.linked_from.length}`), c.linked_from.map((k) =>
        el("div", { class: "link", onclick: () => openComponent(k.component_id, c.index) }, k.component_id + ": " + k.text))) : null);
    const mark = body.querySelector(".page-part.highlight");
    if (mark) mark.scrollIntoView({ block: "center" });
  } catch (error) {
    body.replaceChildren(el("p", { class: "error" }, error.message));
  }
}
document.getElementById("component-close").addEventListener("click", () => {
  document.getElementById("component").hidden = true;
  history.replaceState(null, "", location.pathname + location.search);
});

// -- search ---------------------------------------------------------------------------------
document.getElementById("search-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = formValues(event.target);
  const status = document.getElementById("search-status");
  const list = document.getElementById("search-results");
  status.textContent = "searching…";
  try {
    const data = await api("/api/search?" + new URLSearchParams(values));
    status.textContent = `${data.results.length} results in ${data.latency_ms} ms (${data.mode})`;
    list.replaceChildren(...data.results.map(resultItem));
  } catch (error) {
    status.replaceChildren(el("span", { class: "error" }, error.message));
  }
});

// -- live trace ------------------------------------------------------------------------------
function traceRow(step) {
  const record = step.record || step.traversal;
  const decision = step.decision;
  const strategy = (record || decision || {}).strategy;
  const how = strategy ? `${strategy.doc_mode}/${strategy.comp_mode}/${strategy.granularity}` : "";
  let verdict = "";
  if (step.record) verdict = step.record.answerable ? "answered" : step.record.success ? "success" : "failure";
  const reason = (step.record && step.record.reason) || (decision && decision.reason) || step.reason ||
    (step.subqueries && "plan: " + step.subqueries.map((s) => s.text).join(" | ")) || (step.ranking && "ranked " + step.ranking.length) || "";
  const subquery = (record && record.subquery) || (decision && decision.subquery) || "";
  const anchor = (record && record.anchor) ?? (decision && decision.anchor);
  return el("tr", { class: step.record ? (step.record.success ? "ok" : "failed") : "" },
    el("td", {}, step.node), el("td", {}, subquery), el("td", {}, how), el("td", {}, anchor ?? ""),
    el("td", { class: "verdict" }, verdict), el("td", {}, reason));
}

function traceView(target) {
  const rows = el("tbody");
  const cost = el("div");
  const result = el("div");
  const drawing = el("div", { class: "traversal" });
  const head = el("p", { class: "status" });
  target.replaceChildren(head, el("table", { class: "grid trace" },
    el("thead", {}, el("tr", {}, ["node", "subquery", "strategy", "anchor", "verdict", "reason"].map((h) => el("th", {}, h)))), rows),
    drawing, cost, result);
  return { head, rows, cost, result, drawing, records: [], total: {} };
}

// The traversal over the document graph: one column per judged step, its documents as
// dots (green: success, red: failure, blue: answered), the links it followed as lines from
// the step that held the linking document; a re-anchored step (backtrack) and a changed
// strategy for the same subquery (escalation) are marked in the column head.
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawTraversal(records) {
  const width = 60 + records.length * 170;
  const tallest = Math.max(1, ...records.map((r) => (r.document_ids || []).length));
  const canvas = svg("svg", { width, height: 70 + tallest * 30, class: "traversal-svg" });
  const where = {};  // doc id -> [x, y] of its latest dot
  records.forEach((record, column) => {
    const x = 40 + column * 170;
    const before = records[column - 1];
    const backtrack = record.anchor !== null && record.anchor !== undefined && column > 0 && record.anchor !== before.step;
    const escalation = before && before.subquery === record.subquery && JSON.stringify(before.strategy) !== JSON.stringify(record.strategy);
    const strategy = record.strategy || {};
    const label = `step ${record.step}${backtrack ? " ↩ anchor " + record.anchor : ""}${escalation ? " ↑" : ""}`;
    canvas.append(svg("text", { x, y: 16, class: "column-head" }, label));
    canvas.append(svg("text", { x, y: 32, class: "column-sub" }, `${strategy.doc_mode}/${strategy.granularity}`));
    const color = record.answerable ? "#2457c5" : record.success ? "#1a7f37" : "#b42318";
    const placed = {};
    (record.document_ids || []).forEach((doc, row) => { placed[doc] = [x, 56 + row * 30]; });
    for (const [source, target] of record.links || []) {
      if (where[source] && placed[target]) {
        canvas.append(svg("line", { x1: where[source][0] + 6, y1: where[source][1], x2: placed[target][0] - 6, y2: placed[target][1], class: "link-line" }));
      }
    }
    for (const [doc, [dx, dy]] of Object.entries(placed)) {
      const dot = svg("circle", { cx: dx, cy: dy, r: 6, fill: color, class: "doc-dot", "data-doc": doc });
      dot.append(svg("title", {}, doc));
      canvas.append(dot, svg("text", { x: dx + 10, y: dy + 4, class: "doc-label" }, doc.length > 20 ? doc.slice(0, 19) + "…" : doc));
    }
    Object.assign(where, placed);
  });
  return canvas;
}

function showEvent(view, kind, data, onFork) {
  if (kind === "thread") view.head.textContent = `thread ${data.thread_id} · ${data.system} · ${data.question}` + (data.fork_of ? ` · fork of ${data.fork_of}` : "");
  if (kind === "step") {
    if (data.record) {
      view.records.push(data.record);
      fill(view.drawing, el("h4", {}, "Traversal over the document graph"), drawTraversal(view.records));
    }
    const row = traceRow(data);
    if (onFork && data.checkpoint_id) row.append(el("td", {}, el("button", { class: "fork", onclick: () => onFork(data.checkpoint_id) }, "fork here")));
    view.rows.append(row);
    view.cost.replaceChildren(fmtCost(addCost(view.total, data.cost)));
  }
  if (kind === "result") {
    view.cost.replaceChildren(fmtCost(data.cost));
    fill(view.result, data.answer ? el("div", { class: "answer" }, "answer: " + data.answer) : null,
      el("ol", { class: "results" }, data.results.map(resultItem)));
  }
  if (kind === "error") view.result.replaceChildren(el("p", { class: "error" }, data.message));
}

function follow(url, view, onFork) {
  const source = new EventSource(withToken(withIndex(url)));
  for (const kind of ["thread", "step", "result", "error"]) {
    source.addEventListener(kind, (event) => showEvent(view, kind, JSON.parse(event.data), onFork));
  }
  source.addEventListener("end", () => { source.close(); view.head.append(" · done"); });
  return source;
}

document.getElementById("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const values = formValues(event.target);
  const view = traceView(document.getElementById("live"));
  view.head.textContent = "starting…";
  follow("/api/ask/stream?" + new URLSearchParams(values), view, null);
});

// -- threads: list, replay step by step, fork ---------------------------------------------------
async function loadThreads() {
  const body = document.querySelector("#threads-table tbody");
  const data = await api("/api/threads");
  body.replaceChildren(...data.threads.map((t) => el("tr", { class: "clickable", "data-thread": t.thread_id, onclick: () => replay(t.thread_id) },
    el("td", {}, t.thread_id), el("td", {}, t.question), el("td", {}, t.system || ""), el("td", {}, t.checkpoints), el("td", {}, t.updated))));
}
document.getElementById("threads-refresh").addEventListener("click", loadThreads);

async function replay(threadId) {
  const target = document.getElementById("replay");
  target.replaceChildren(el("p", { class: "status" }, "loading " + threadId + "…"));
  const log = await api(`/api/threads/${encodeURIComponent(threadId)}/log`);
  const budget = el("input", { type: "number", min: 1, max: 50, placeholder: "budget", id: "fork-steps" });
  const subquery = el("input", { placeholder: "edited subquery (fork at a traverser step)", id: "fork-subquery", size: 40 });
  const place = el("span", { id: "replay-position" });
  const next = el("button", { id: "replay-next" }, "next step");
  const all = el("button", { id: "replay-all" }, "all steps");
  const trace = el("div");
  target.replaceChildren(el("h3", {}, "Replay " + threadId), el("div", { class: "stepper" }, next, all, place, "fork with budget", budget, subquery), trace);
  const view = traceView(trace);
  const onFork = (checkpointId) => fork(threadId, checkpointId, budget.value, subquery.value.trim());
  let shown = 0;
  const step = () => {
    if (shown >= log.events.length) return;
    const event = log.events[shown++];
    showEvent(view, event.kind, event.data, onFork);
    place.textContent = `event ${shown} / ${log.events.length}`;
  };
  next.addEventListener("click", step);
  all.addEventListener("click", () => { while (shown < log.events.length) step(); });
  step();
}

async function fork(threadId, checkpointId, budget, subquery) {
  const body = { checkpoint_id: checkpointId };
  if (budget) body.max_steps = Number(budget);
  if (subquery) body.subquery = subquery;
  const target = document.getElementById("replay");
  try {
    const started = await api(`/api/threads/${encodeURIComponent(threadId)}/fork`, body);
    const view = traceView(target);
    view.head.textContent = "forking…";
    follow(started.events, view, null);
  } catch (error) {
    target.append(el("p", { class: "error" }, error.message));
  }
}

// -- compare ------------------------------------------------------------------------------------
document.getElementById("compare-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = formValues(event.target);
  const systems = [...document.querySelectorAll("#compare-systems input:checked")].map((i) => i.value);
  const status = document.getElementById("compare-status");
  status.textContent = "running " + systems.join(", ") + "…";
  try {
    const data = await api("/api/compare", { question: values.question, backend: values.backend, systems });
    status.textContent = "";
    document.getElementById("compare-columns").replaceChildren(...Object.entries(data.runs).map(([name, run]) =>
      el("div", { class: "column" }, el("h3", {}, name), el("p", { class: "status" }, `${run.latency_ms} ms`),
        run.answer ? el("div", { class: "answer" }, run.answer) : null, el("ol", { class: "results" }, run.results.map(resultItem)))));
  } catch (error) {
    status.replaceChildren(el("span", { class: "error" }, error.message));
  }
});

// -- evals ---------------------------------------------------------------------------------------
function markdown(text) {
  const blocks = [];
  let table = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("|")) {
      const cells = line.split("|").slice(1, -1).map((c) => c.trim());
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
      if (!table) { table = el("table", { class: "grid" }); blocks.push(table); table.append(el("tr", {}, cells.map((c) => el("th", {}, c)))); }
      else table.append(el("tr", {}, cells.map((c) => el("td", {}, c))));
      continue;
    }
    table = null;
    const heading = line.match(/^(#{1,4})\s+(.*)/);
    if (heading) blocks.push(el("h" + (heading[1].length + 2), {}, heading[2]));
    else if (line.trim()) blocks.push(el("p", {}, line));
  }
  return blocks;
}

async function loadEvals() {
  const data = await api("/api/evals");
  const list = document.getElementById("evals-list");
  list.replaceChildren(...(data.runs.length ? data.runs.map((run) => el("li", {},
    el("span", { class: "link", "data-run": run.name, onclick: () => openEval(run.name) }, run.name), ` (${run.plots} plots)`))
    : [el("li", { class: "status" }, "no eval runs (start the server with --runs DIR)")]));
}

async function openEval(name) {
  const target = document.getElementById("eval-detail");
  const run = await api("/api/evals/run?" + new URLSearchParams({ name }));
  const plot = (file) => el("img", { alt: file, src: withToken(`/api/evals/file/${encodeURIComponent(file)}?` + new URLSearchParams({ name })) });
  fill(target, el("h2", {}, name), el("div", { id: "eval-summary" }, markdown(run.summary_md)),
    run.regressions_md ? el("details", {}, el("summary", {}, "regressions"), markdown(run.regressions_md)) : null,
    el("div", { class: "plots" }, run.plots.map(plot)),
    el("h3", {}, `Per question (${run.results.length})`),
    el("table", { class: "grid" }, el("tr", {}, ["qid", "system", "top components", "latency ms", "answer / error"].map((h) => el("th", {}, h))),
      run.results.map((r) => el("tr", {}, el("td", {}, r.qid), el("td", {}, r.system),
        el("td", {}, r.top.map((id) => el("span", { class: "link", onclick: () => openComponent(id) }, id + " "))),
        el("td", {}, r.latency_ms ?? ""), el("td", { class: r.error ? "error" : "" }, r.error || r.answer || "")))));
}

// -- indices: the picker; threads and results belong to the picked index ------------------------
async function loadIndices() {
  const data = await api("/api/indices");
  const picker = document.getElementById("index-picker");
  picker.replaceChildren(...data.indices.map((i) => el("option", { value: i.name }, `${i.name} (${i.documents} docs)`)));
  picker.hidden = data.indices.length < 2;
  INDEX = data.default;
  picker.addEventListener("change", () => pickIndex(picker.value));
  return data.indices.map((i) => i.name);
}

function pickIndex(name) {
  INDEX = name;
  document.getElementById("index-picker").value = name;
  for (const id of ["search-results", "live", "replay", "compare-columns"]) document.getElementById(id).replaceChildren();
  document.getElementById("search-status").textContent = "";
  document.getElementById("component").hidden = true;
  history.replaceState(null, "", location.pathname + location.search);
  if (document.getElementById("tab-threads").classList.contains("active")) loadThreads();
}

// -- start ---------------------------------------------------------------------------------------
async function start() {
  const names = await loadIndices();
  const info = await api("/api/systems");
  const options = (names, select) => document.getElementById(select).replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  options(info.search_modes, "search-mode");
  options(info.systems.map((s) => s.name), "ask-system");
  options(info.backends, "ask-backend");
  options(info.backends, "compare-backend");
  document.getElementById("compare-systems").replaceChildren(...info.systems.map((s) =>
    el("label", {}, el("input", { type: "checkbox", value: s.name, checked: ["fif", "dense"].includes(s.name) }), s.name, " ")));
  const linked = new URLSearchParams(location.hash.slice(1));
  const index = linked.get("index");
  if (index && names.includes(index)) pickIndex(index);
  if (linked.get("component")) openComponent(linked.get("component"), index || INDEX);
}
start().catch((error) => document.getElementById("search-status").replaceChildren(el("span", { class: "error" }, error.message)));

// FiF page, the trace of a run: numbered steps beside the traversal graph (linked both ways),
// fork controls on every step, the answer with the components it came from.
"use strict";

const LADDER = { neighbors: 0, vector: 1, llm: 2, document: 0, component: 1, subcomponent: 2 };

// A step's verdict: only records the run judged (a boolean `success`) pass or fail.
function verdictOf(record) {
  if (!record || typeof record.success !== "boolean") return "";
  return record.answerable ? "answered" : record.success ? "success" : "failure";
}

function strategyText(strategy) {
  if (!strategy || !strategy.doc_mode) return "";
  return `${strategy.doc_mode}/\u200b${strategy.comp_mode}/\u200b${strategy.granularity}`;  // may wrap after a slash
}

// Did the cost ladder rise from `before` to `record` (same subquery, after a failure)?
function escalated(before, record) {
  if (!before || !record || before.subquery !== record.subquery || before.success) return false;
  const a = before.strategy || {}, b = record.strategy || {};
  const rank = (s) => [LADDER[s.doc_mode] ?? 0, LADDER[s.comp_mode] ?? 0, LADDER[s.granularity] ?? 0];
  const [x, y] = [rank(a), rank(b)];
  return y.some((v, i) => v > x[i]) && y.every((v, i) => v >= x[i]);
}

function traceRow(step, number, previous) {
  const record = step.record || step.traversal;
  const decision = step.decision;
  const verdict = verdictOf(step.record);
  const reason = (step.record && step.record.reason) || (decision && decision.reason) || step.reason ||
    (step.subqueries && "plan: " + step.subqueries.map((s) => s.text).join(" | ")) || (step.ranking && "ranked " + step.ranking.length) ||
    (step.answer && "answer: " + step.answer) || "";
  const subquery = (record && record.subquery) || (decision && decision.subquery) || "";
  const repeated = subquery && subquery === previous;  // shown once, in its group's header
  const anchor = (record && record.anchor) ?? (decision && decision.anchor);
  const rowClass = verdict === "failure" ? "failed" : verdict ? "ok" : "";
  return el("tr", { class: rowClass, id: `step-${number}`, "data-step": number, "data-record-step": step.record ? step.record.step : null },
    el("td", { class: "num" }, number), el("td", {}, step.node),
    el("td", { class: repeated ? "same" : "", title: subquery }, repeated ? "↳" : subquery), el("td", {}, strategyText((record || decision || {}).strategy)),
    el("td", {}, anchor ?? ""), el("td", { class: "verdict" }, verdict), el("td", {}, reason, candidates(step.record)));
}

// The components a judged step found, folded: each opens in the component panel.
function candidates(record) {
  const found = (record && record.components) || [];
  if (!found.length) return null;
  return el("details", { class: "candidates" }, el("summary", {}, `${found.length} candidates`),
    el("ul", {}, found.map((id) => el("li", {}, el("button", { type: "button", class: "link-button", onclick: () => openComponent(id) }, id)))));
}

// A subquery's steps sit under one header row that folds them (steps → subquery → hops).
function groupRow(view, subquery) {
  const group = ++view.groups;
  const toggle = el("button", { type: "button", class: "link-button", "aria-expanded": "true" }, "▾");
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "▾" : "▸";
    view.rows.querySelectorAll(`tr[data-group="${group}"]`).forEach((row) => { row.hidden = !open; });
  });
  view.rows.append(el("tr", { class: "group" }, el("td", { colspan: 8 }, toggle, " subquery: ", el("b", {}, subquery))));
  return group;
}

function traceView(target) {
  const rows = el("tbody");
  const cost = el("div");
  const result = el("div", { class: "run-result" });
  const drawing = el("div", { class: "traversal" });
  const head = el("p", { class: "status", role: "status" });
  const heads = ["#", "node", "subquery", "strategy", "anchor", "verdict", "reason", ""];
  target.replaceChildren(head, result, el("div", { class: "trace-layout" },
    el("div", { class: "trace-table" }, el("table", { class: "grid trace" },
      el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col" }, h)))), rows)), drawing), cost);
  return { head, rows, cost, result, drawing, records: [], total: {}, steps: 0, groups: 0, group: 0 };
}

// The traversal over the document graph: one column per judged step, its documents as dots
// (green: success, red: failure, blue: answered), the links it followed as lines; ↩ marks a
// re-anchored step (backtrack), ↑ a step where the cost ladder rose after a failure.
// Clicking a column or a dot shows its step in the trace.
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function showStep(number) {
  document.querySelectorAll("tr.selected, circle.selected").forEach((n) => n.classList.remove("selected"));
  const row = document.querySelector(`tr[data-step="${number}"]`);
  if (!row) return;
  row.classList.add("selected");
  row.scrollIntoView({ block: "nearest" });
  document.querySelectorAll(`circle[data-row="${number}"]`).forEach((dot) => dot.classList.add("selected"));
}

function drawTraversal(records) {
  const width = 60 + records.length * 170;
  const tallest = Math.max(1, ...records.map((r) => (r.document_ids || []).length));
  const canvas = svg("svg", { width, height: 70 + tallest * 30, class: "traversal-svg", role: "img", "aria-label": "traversal over the document graph" });
  const where = {};  // doc id -> [x, y] of its latest dot
  records.forEach((record, column) => {
    const x = 40 + column * 170;
    const before = records[column - 1];
    const backtrack = record.anchor !== null && record.anchor !== undefined && before && record.anchor !== before.step;
    const label = `step ${record.row}${backtrack ? " ↩ anchor " + record.anchor : ""}${escalated(before, record) ? " ↑" : ""}`;
    const head = svg("text", { x, y: 16, class: "column-head", "data-row": record.row }, label);
    head.addEventListener("click", () => showStep(record.row));
    canvas.append(head, svg("text", { x, y: 32, class: "column-sub" }, strategyText(record.strategy) || String(record.subquery || "").slice(0, 24)));
    const verdict = verdictOf(record);
    const color = verdict === "answered" ? "#2457c5" : verdict === "success" ? "#1a7f37" : verdict === "failure" ? "#b42318" : "#667085";
    const placed = {};
    (record.document_ids || []).forEach((doc, row) => { placed[doc] = [x, 56 + row * 30]; });
    for (const [source, target] of record.links || []) {
      if (where[source] && placed[target]) {
        canvas.append(svg("line", { x1: where[source][0] + 6, y1: where[source][1], x2: placed[target][0] - 6, y2: placed[target][1], class: "link-line" }));
      }
    }
    for (const [doc, [dx, dy]] of Object.entries(placed)) {
      const dot = svg("circle", { cx: dx, cy: dy, r: 6, fill: color, class: "doc-dot", "data-doc": doc, "data-row": record.row, tabindex: 0 });
      dot.append(svg("title", {}, `${doc} (step ${record.row})`));
      dot.addEventListener("click", () => showStep(record.row));
      canvas.append(dot, svg("text", { x: dx + 10, y: dy + 4, class: "doc-label" }, doc.length > 20 ? doc.slice(0, 19) + "…" : doc));
    }
    Object.assign(where, placed);
  });
  return canvas;
}

// The answer and where it came from; "not found in the corpus" when the run's evidence
// does not hold it (the reader's guess stays behind a disclosure).
function answerView(data) {
  const grounding = data.grounding || { status: data.answer ? "supported" : "none", cited: [] };
  if (grounding.status === "none") return null;
  if (grounding.status === "not_found") {
    return el("div", { class: "answer not-found", id: "answer" }, el("b", {}, "Not found in the corpus. "), grounding.reason || "",
      data.answer ? el("details", {}, el("summary", {}, "the reader's unsupported guess"), data.answer) : null);
  }
  const cites = grounding.cited.map((c) => el("span", { class: "link cite", "data-cite": c.component_id, onclick: () => openComponent(c.component_id, INDEX, grounding.cited) },
    `#${c.rank} ${c.title}` + (c.pages ? ` (${printedPages(c.pages)})` : "")));
  return el("div", { class: "answer", id: "answer" }, el("b", {}, "Answer: "), data.answer, el("div", { class: "cites" }, "from ", cites));
}

function showResult(target, data) {
  const cited = new Set(((data.grounding || {}).cited || []).map((c) => c.component_id));
  const sources = (data.grounding || {}).cited || [];  // their boxes are drawn on any page they share
  const results = (data.results || []).map((r) => ({ ...r, cited: cited.has(r.component_id), sources }));
  fill(target, answerView(data), el("ol", { class: "results" }, results.map(resultItem)));
}

function showEvent(view, kind, data, onFork) {
  if (kind === "thread") {
    const fork = data.fork_of ? ` · branch ${data.branch ?? "?"}: fork of branch ${data.fork_branch ?? 0} from step ${data.fork_step ?? "?"}` : "";
    view.head.textContent = `thread ${data.thread_id} · ${data.system} · ${data.question}${fork}`;
    view.steps = (data.steps_from || 1) - 1;  // a live fork's first step is the one it re-runs
  }
  if (kind === "step") {
    const number = ++view.steps;
    if (data.record) {
      view.records.push({ ...data.record, row: number });
      fill(view.drawing, el("h4", {}, "Traversal over the document graph"), drawTraversal(view.records));
    }
    const current = ((data.record || data.traversal || data.decision) || {}).subquery;
    if (current && current !== view.subquery) view.group = groupRow(view, current);
    const row = traceRow(data, number, current);  // its group header shows the subquery
    if (current) view.subquery = current;
    if (view.group) row.dataset.group = view.group;
    row.append(el("td", {}, onFork && data.checkpoint_id ? forkControls(data, number, onFork) : null));
    view.rows.append(row);
    view.cost.replaceChildren(fmtCost(addCost(view.total, data.cost)));
    if (view.head.dataset.progress) view.head.dataset.progress = `running step ${number + 1}`;
  }
  if (kind === "result") {
    view.cost.replaceChildren(fmtCost(data.cost));
    showResult(view.result, data);
  }
  if (kind === "error") view.result.replaceChildren(el("p", { class: "error", role: "alert" }, data.message));
}

// "Fork from step N": re-run that step with another budget and, before a traversal, another
// subquery or strategy; what is wrong with the edit shows beside the row.
function forkControls(step, number, onFork) {
  const traversal = step.node === "traverser";
  const form = el("form", { class: "fork-form", hidden: true, novalidate: true, "data-step": number });
  const error = el("span", { class: "error fork-error", role: "alert" });
  const budget = el("input", { type: "number", min: 1, max: 50, name: "max_steps", "aria-label": `budget of the fork from step ${number}`, placeholder: "budget" });
  const fields = [el("label", {}, "budget ", budget)];
  let subquery = null, modes = null;
  if (traversal) {
    const taken = step.traversal || {};
    subquery = el("input", { name: "subquery", value: taken.subquery || "", size: 32, "aria-label": `subquery of step ${number}` });
    const pick = (name, options, current) => el("select", { name, "aria-label": `${name} of step ${number}` },
      options.map((o) => el("option", { value: o, selected: o === current }, o)));
    const s = taken.strategy || {};
    modes = [pick("doc_mode", ["neighbors", "vector", "llm"], s.doc_mode), pick("comp_mode", ["vector", "llm"], s.comp_mode),
      pick("granularity", ["document", "component", "subcomponent"], s.granularity)];
    fields.push(el("label", {}, "subquery ", subquery), ...modes);
  }
  form.append(...fields, el("button", { type: "submit" }, "Run fork"), error);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { checkpoint_id: step.checkpoint_id };
    if (budget.value) {
      const steps = Number(budget.value);
      if (!Number.isInteger(steps) || steps < 1 || steps > 50) { error.textContent = "budget: a whole number from 1 to 50"; return; }
      body.max_steps = steps;
    }
    if (traversal) {
      const text = subquery.value.trim();
      if (!text) { error.textContent = "subquery: it may not be blank"; return; }
      const taken = step.traversal || {};
      if (text !== taken.subquery) body.subquery = text;
      const strategy = Object.fromEntries(modes.map((m) => [m.name, m.value]));
      if (strategyText(strategy) !== strategyText(taken.strategy)) body.strategy = strategy;
    }
    error.textContent = "";
    onFork(body, error);
  });
  const open = el("button", { class: "fork", type: "button", onclick: () => { form.hidden = !form.hidden; } }, `Fork from step ${number}`);
  return el("div", {}, open, form);
}

// Follow a run's event stream; `done(data)` gets its result. The Run button stays disabled
// and the head says how far it got until the end event.
function follow(url, view, onFork, done) {
  const source = new EventSource(withToken(withIndex(url)));
  let result = null;
  for (const kind of ["thread", "step", "result", "error"]) {
    source.addEventListener(kind, (event) => {
      const data = JSON.parse(event.data);
      if (kind === "result") result = data;
      showEvent(view, kind, data, onFork);
    });
  }
  view.head.dataset.progress = "running";
  source.addEventListener("end", () => {
    source.close();
    delete view.head.dataset.progress;
    view.head.append(" · done");
    if (done) done(result);
  });
  source.onerror = () => { if (source.readyState === EventSource.CLOSED && done) done(null); };
  return source;
}

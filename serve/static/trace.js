// FiF page, the trace of a run as a tree: each subquery folds the numbered steps taken for it,
// each judged step folds the candidates it found; the traversal graph sits beside it, linked
// both ways (a dot opens its step, a hovered or selected step lights its dots). Escalation is
// marked only where the cost ladder rose; a run that streams shows how far it got.
"use strict";

const TRACE_HEADS = ["#", "node", "strategy", "anchor", "verdict", "reason", ""];

// A step's verdict: only records the run judged (a boolean `success`) pass or fail.
function verdictOf(record) {
  if (!record || typeof record.success !== "boolean") return "";
  return record.answerable ? "answered" : record.success ? "success" : "failure";
}

function strategyText(strategy) {
  if (!strategy || !strategy.doc_mode) return "";
  return `${strategy.doc_mode}/\u200b${strategy.comp_mode}/\u200b${strategy.granularity}`;  // may wrap after a slash
}

// Did the ladder rise? The judged step's rung (from the server) above the rung of the previous
// judged step of the same subquery; a new subquery starts afresh.
function rose(view, record) {
  if (!record || record.rung === null || record.rung === undefined) return false;
  const before = view.rungs.get(record.subquery);
  view.rungs.set(record.subquery, record.rung);
  return before !== undefined && record.rung > before;
}

// `index`: the index whose components the trace names (an eval run's, not the picked one).
function traceView(target, index = INDEX) {
  const rows = el("tbody");
  const drawing = el("div", { class: "traversal" });
  const head = el("p", { class: "status", role: "status" });
  const root = el("div", { class: "trace-view" });
  const result = el("div", { class: "run-result" });
  const cost = el("div");
  root.append(head, result, el("div", { class: "trace-layout" },
    el("div", { class: "trace-table" }, el("table", { class: "grid trace", role: "treegrid", "aria-label": "steps of the run" },
      el("thead", {}, el("tr", {}, TRACE_HEADS.map((h) => el("th", { scope: "col" }, h)))), rows)), drawing), cost);
  target.replaceChildren(root);
  return { root, head, rows, cost, result, drawing, index, records: [], total: {}, steps: 0, groups: 0, group: 0,
    rungs: new Map(), openers: {}, subquery: undefined };
}

// A subquery's header row folds its steps: a button (Enter or Space toggles; ← folds, → unfolds).
function groupRow(view, subquery) {
  const group = ++view.groups;
  const toggle = el("button", { type: "button", class: "link-button tree-toggle", "aria-expanded": "true", "aria-label": `subquery ${group}: ${subquery}` }, "▾");
  const setOpen = (open) => {
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "▾" : "▸";
    view.rows.querySelectorAll(`tr[data-group="${group}"]`).forEach((row) => { row.hidden = !open; });
  };
  toggle.addEventListener("click", () => setOpen(toggle.getAttribute("aria-expanded") !== "true"));
  toggle.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") { event.preventDefault(); setOpen(event.key === "ArrowRight"); }
  });
  view.openers[group] = setOpen;
  view.rows.append(el("tr", { class: "group", "data-group-head": group, "aria-level": 1 },
    el("td", { colspan: TRACE_HEADS.length }, toggle, " subquery: ", el("b", {}, subquery), el("span", { class: "group-count" }))));
  return group;
}

// The components a step found, folded: each opens in the component panel of the trace's index.
function candidates(view, found) {
  if (!found || !found.length) return null;
  return el("details", { class: "candidates" }, el("summary", {}, `${found.length} candidates`),
    el("ul", {}, found.map((id) => el("li", {}, el("button", { type: "button", class: "link-button", onclick: () => openComponent(id, view.index) }, id)))));
}

function stepReason(step) {
  const record = step.record, decision = step.decision;
  const said = (record && record.reason) || (decision && decision.reason) || step.reason ||
    (step.subqueries && "plan: " + step.subqueries.map((s) => s.text).join(" | ")) ||
    (step.ranking && "ranked " + step.ranking.length) || (step.answer && "answer: " + step.answer) || "";
  const by = (decision && decision.decided_by) || step.decided_by;
  return by && by !== "offline" ? `${said} (${by})` : said;
}

function traceRow(view, step, number) {
  const taken = step.record || step.traversal || step.decision || {};
  const verdict = verdictOf(step.record);
  const up = verdict !== "" && rose(view, step.record);
  const strategy = el("td", { class: "strategy" }, strategyText(taken.strategy),
    up ? el("span", { class: "escalated-mark", title: `the cost ladder rose to rung ${step.record.rung}` }, ` ↑ rung ${step.record.rung}`) : null);
  const row = el("tr", { class: [verdict === "failure" ? "failed" : verdict ? "ok" : "", up ? "escalated" : ""].join(" ").trim(),
    "data-step": number, "data-rung": verdict && taken.rung !== undefined ? taken.rung : null, "data-node": step.node, tabindex: -1 },
    el("td", { class: "num" }, number), el("td", {}, step.node), strategy, el("td", {}, taken.anchor ?? ""),
    el("td", { class: "verdict" }, verdict), el("td", {}, stepReason(step), candidates(view, step.record ? step.record.components : step.components)));
  const light = (on) => view.drawing.querySelectorAll(`circle[data-row="${number}"]`).forEach((dot) => dot.classList.toggle("hovered", on));
  row.addEventListener("mouseenter", () => light(true));
  row.addEventListener("mouseleave", () => light(false));
  row.addEventListener("focusin", () => light(true));
  row.addEventListener("focusout", () => light(false));
  row.addEventListener("click", () => showStep(view, number, false));
  return { row, up };
}

// Select a step: unfold its subquery, light its dots and, when the graph asked (`reveal`), open
// its candidates and scroll to it (a click on the row itself only selects it).
function showStep(view, number, reveal = true) {
  view.root.querySelectorAll("tr.selected, circle.selected").forEach((n) => n.classList.remove("selected"));
  const row = view.rows.querySelector(`tr[data-step="${number}"]`);
  if (!row) return;
  if (row.hidden && view.openers[row.dataset.group]) view.openers[row.dataset.group](true);
  row.classList.add("selected");
  const found = row.querySelector("details.candidates");
  if (reveal && found) found.open = true;
  if (reveal) { row.scrollIntoView({ block: "nearest" }); row.focus({ preventScroll: true }); }
  view.drawing.querySelectorAll(`circle[data-row="${number}"]`).forEach((dot) => dot.classList.add("selected"));
}

// The traversal over the document graph: one column per step that found documents, its
// documents as dots (green: success, red: failure, blue: answered, grey: not judged), the links
// it followed as lines; ↩ marks a re-anchored step (backtrack), ↑ a rise of the cost ladder.
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const DOT_COLOURS = { answered: "#2457c5", success: "#1a7f37", failure: "#b42318" };

function drawTraversal(view) {
  const columns = view.records;
  const tallest = Math.max(1, ...columns.map((r) => (r.document_ids || []).length));
  const canvas = svg("svg", { width: 60 + columns.length * 170, height: 70 + tallest * 30, class: "traversal-svg", "aria-label": "traversal over the document graph" });
  const where = {};  // doc id -> [x, y] of its latest dot
  columns.forEach((record, column) => {
    const x = 40 + column * 170;
    const before = columns[column - 1];
    const backtrack = record.anchor !== null && record.anchor !== undefined && before && before.step !== undefined && record.anchor !== before.step;
    const head = svg("text", { x, y: 16, class: "column-head", "data-row": record.row },
      `step ${record.row}${backtrack ? " ↩ anchor " + record.anchor : ""}${record.up ? " ↑" : ""}`);
    head.addEventListener("click", () => showStep(view, record.row));
    canvas.append(head, svg("text", { x, y: 32, class: "column-sub" }, strategyText(record.strategy) || String(record.subquery || record.node || "").slice(0, 24)));
    const color = DOT_COLOURS[verdictOf(record)] || "#667085";
    const placed = {};
    (record.document_ids || []).forEach((doc, row) => { placed[doc] = [x, 56 + row * 30]; });
    for (const [source, target] of record.links || []) {
      if (where[source] && placed[target]) {
        canvas.append(svg("line", { x1: where[source][0] + 6, y1: where[source][1], x2: placed[target][0] - 6, y2: placed[target][1], class: "link-line" }));
      }
    }
    for (const [doc, [dx, dy]] of Object.entries(placed)) {
      const dot = svg("circle", { cx: dx, cy: dy, r: 6, fill: color, class: "doc-dot", "data-doc": doc, "data-row": record.row,
        tabindex: 0, role: "button", "aria-label": `${doc}, step ${record.row}` });
      dot.append(svg("title", {}, `${doc} (step ${record.row})`));
      dot.addEventListener("click", () => showStep(view, record.row));
      dot.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); showStep(view, record.row); } });
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

// The answer sources of the last result shown: a reload that reopens a component of that
// run (#thread=…&component=…) draws their boxes again.
let shownSources = [];

function showResult(target, data) {
  const cited = new Set(((data.grounding || {}).cited || []).map((c) => c.component_id));
  const sources = (data.grounding || {}).cited || [];  // their boxes are drawn on any page they share
  shownSources = sources;
  const results = (data.results || []).map((r) => ({ ...r, cited: cited.has(r.component_id), sources }));
  fill(target, answerView(data), el("ol", { class: "results" }, results.map(resultItem)));
}

// One step of a run into the tree: a new subquery opens a group; a step that found documents
// adds a column to the graph.
function addStep(view, data, onFork) {
  const number = ++view.steps;
  const subquery = ((data.record || data.traversal || data.decision) || {}).subquery || data.subquery;
  if (subquery && subquery !== view.subquery) view.group = groupRow(view, subquery);
  if (subquery) view.subquery = subquery;
  const { row, up } = traceRow(view, data, number);
  if (view.group) {
    row.dataset.group = view.group;
    row.setAttribute("aria-level", 2);
    const count = view.rows.querySelector(`tr[data-group-head="${view.group}"] .group-count`);
    count.textContent = ` · ${view.rows.querySelectorAll(`tr[data-group="${view.group}"]`).length + 1} steps`;
  }
  row.append(el("td", {}, onFork && data.checkpoint_id ? forkControls(data, number, onFork) : null));
  view.rows.append(row);
  const column = data.record || data;
  if ((column.document_ids || []).length) {
    view.records.push({ ...column, node: data.node, row: number, up });
    fill(view.drawing, el("h4", {}, "Traversal over the document graph"), drawTraversal(view));
  }
  view.cost.replaceChildren(fmtCost(addCost(view.total, data.cost)));
  if (view.head.dataset.progress) view.head.dataset.progress = `step ${number} done, running step ${number + 1}`;
}

function showEvent(view, kind, data, onFork) {
  if (kind === "thread") {
    const fork = data.fork_of ? ` · branch ${data.branch ?? "?"}: fork of branch ${data.fork_branch ?? 0} from step ${data.fork_step ?? "?"}` : "";
    view.head.textContent = `thread ${data.thread_id} · ${data.system} · ${data.question}${fork}`;
    view.steps = (data.steps_from || 1) - 1;  // a live fork's first step is the one it re-runs
  }
  if (kind === "step") addStep(view, data, onFork);
  if (kind === "result") {
    view.cost.replaceChildren(fmtCost(data.cost));
    showResult(view.result, data);
  }
  if (kind === "error") view.result.replaceChildren(el("p", { class: "error", role: "alert" }, data.message));
}

// Follow a run's event stream; `done(data)` gets its result. Until the end event the trace is
// busy: a progress bar and the head say how far it got.
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
  const bar = el("progress", { class: "run-progress", "aria-label": "the run is going" });
  view.head.dataset.progress = "running";
  view.head.after(bar);
  view.root.setAttribute("aria-busy", "true");
  const finish = () => {
    delete view.head.dataset.progress;
    bar.remove();
    view.root.removeAttribute("aria-busy");
  };
  source.addEventListener("end", () => {
    source.close();
    finish();
    view.head.append(" · done");
    if (done) done(result);
  });
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) { finish(); if (done) done(null); } };
  return source;
}

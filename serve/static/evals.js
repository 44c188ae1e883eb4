// FiF page, eval runs: the report's summary and plots, one row per question (its question, gold,
// each system's hit and rank, sortable and filterable), each system's step trace opened on the
// index the run used, and a second run beside the first with the per-question differences.
"use strict";

// Inline Markdown as DOM nodes (no HTML is parsed): **bold**, `code`, _emphasis_.
function inline(text) {
  const parts = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`|_([^_]+)_/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(at, match.index));
    parts.push(match[1] ? el("b", {}, match[1]) : match[2] ? el("code", {}, match[2]) : el("em", {}, match[3]));
    at = match.index + match[0].length;
  }
  parts.push(text.slice(at));
  return parts.filter((p) => p !== "");
}

// The eval reports' Markdown: headings, tables, bullet lists and paragraphs.
function markdown(text) {
  const blocks = [];
  let table = null, list = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("|")) {
      const cells = line.split("|").slice(1, -1).map((c) => c.trim());
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
      if (!table) { table = el("table", { class: "grid" }); blocks.push(table); table.append(el("tr", {}, cells.map((c) => el("th", { scope: "col" }, inline(c))))); }
      else table.append(el("tr", {}, cells.map((c) => el("td", {}, inline(c)))));
      continue;
    }
    table = null;
    const item = line.match(/^\s*[-*]\s+(.*)/);
    if (item) {
      if (!list) { list = el("ul"); blocks.push(list); }
      list.append(el("li", {}, inline(item[1])));
      continue;
    }
    list = null;
    const heading = line.match(/^(#{1,4})\s+(.*)/);
    if (heading) blocks.push(el("h" + (heading[1].length + 2), {}, inline(heading[2])));
    else if (line.trim()) blocks.push(el("p", {}, inline(line)));
  }
  return blocks;
}

async function loadEvals() {
  const data = await api("/api/evals");
  const list = document.getElementById("evals-list");
  EVAL_RUNS = data.runs.map((run) => run.name);
  list.replaceChildren(...(data.runs.length ? data.runs.map((run) => el("li", {},
    el("span", { class: "link", "data-run": run.name, onclick: () => openEval(run.name) }, run.name), ` (${run.plots} plots)`))
    : [el("li", { class: "status" }, "no eval runs (start the server with --runs DIR)")]));
}

let EVAL_RUNS = [];  // the names of the listed eval runs (the "compare with" choices)

async function openEval(name) {
  const target = document.getElementById("eval-detail");
  const run = await api("/api/evals/run?" + new URLSearchParams({ name }));
  const plot = (file) => el("img", { alt: file, src: withToken(`/api/evals/file/${encodeURIComponent(file)}?` + new URLSearchParams({ name })) });
  const questions = el("div", { id: "eval-questions" });
  const linked = place();  // a trace the URL names (#…&trace=SYSTEM/QID) opens again
  fill(target, el("h2", {}, name), el("div", { id: "eval-summary" }, markdown(run.summary_md)),
    run.regressions_md ? el("details", {}, el("summary", {}, "regressions"), markdown(run.regressions_md)) : null,
    el("div", { class: "plots" }, run.plots.map(plot)), questions, el("div", { id: "eval-trace" }));
  const other = linked.get("run") === name ? linked.get("with") || "" : "";
  setPlace({ tab: "evals", run: name, with: other || null, trace: null, trace_run: null });
  await questionTable(questions, name, other);
  const [system, qid] = (linked.get("trace") || "").split("/");
  if (linked.get("run") === name && system && qid) await openEvalTrace(linked.get("trace_run") || name, qid, system);
}

// One system's steps on one question of a run, as the live trace draws them; its candidates
// open on the index the run used (the server names it), whatever index is picked.
async function openEvalTrace(run, qid, system) {
  const target = document.getElementById("eval-trace");
  try {
    const data = await api("/api/evals/trace?" + new URLSearchParams({ name: run, qid, system }));
    const where = data.index ? `index ${data.index}` : "its index is not served here: components open on the picked index";
    const body = el("div");
    fill(target, el("h3", {}, `Trace of ${system} on ${qid} (run ${run})`), el("p", { class: "status trace-index", "data-index": data.index || "" }, where), body);
    const view = traceView(body, data.index || INDEX);
    view.head.textContent = `${data.steps.length} steps`;
    for (const step of data.steps) showEvent(view, "step", step, null);
    setPlace({ trace: `${system}/${qid}`, trace_run: run === place().get("run") ? null : run });
    target.scrollIntoView({ block: "start" });
  } catch (error) {
    fill(target, el("p", { class: "error", role: "alert" }, error.message));
  }
}

// How a system did on a question in run B against run A: "better", "worse" or "" (same).
function difference(a, b) {
  if (!a || !b || a.hit === null || b.hit === null || a.error || b.error) return "";
  if (a.hit !== b.hit) return b.hit ? "better" : "worse";
  if (a.hit && a.rank !== b.rank) return b.rank < a.rank ? "better" : "worse";
  return "";
}


const OUTCOME_MARK = (o) => !o ? "" : o.error ? "error" : o.hit === null ? "–" : o.hit ? `✓ ${o.rank}` : "✗";

// One system's cell: its hit and rank, and a link to its trace when the run kept one.
function outcomeCell(o, run, qid, system) {
  const kind = o && o.hit ? "hit" : o && o.hit === false ? "miss" : "";
  return el("td", { class: "outcome " + kind, "data-system": system, "data-run": run, title: o ? (o.error || (o.top || []).join(", ")) : "" }, OUTCOME_MARK(o),
    o && o.traced ? el("button", { type: "button", class: "link-button trace-link", "aria-label": `trace of ${system} on ${qid} in run ${run}`,
      onclick: () => openEvalTrace(run, qid, system) }, " trace") : null);
}

// Per question: the question, its gold, each system's hit (✓ with the gold's rank, ✗ miss) and
// trace; headers sort, the box filters, "misses only" keeps rows some system missed. Another run
// picked beside it (B) adds its columns and a difference column per question (better: B hits
// where A missed, or ranks the gold higher; worse: the reverse), "changed only" keeps those.
async function questionTable(target, name, other = "") {
  const fetchRows = (run) => api("/api/evals/questions?" + new URLSearchParams({ name: run }));
  const mine = await fetchRows(name);
  const theirs = other ? await fetchRows(other).catch(() => null) : null;
  const columns = mine.systems.map((s) => ({ run: mine, system: s, label: theirs ? `${s} (A)` : s }))
    .concat(theirs ? theirs.systems.map((s) => ({ run: theirs, system: s, label: `${s} (B)` })) : []);
  const outcome = (run, qid, system) => ((run.rows.find((r) => r.qid === qid) || {}).systems || {})[system] || null;
  const shared = theirs ? mine.systems.filter((s) => theirs.systems.includes(s)) : [];
  const changes = (qid) => shared.map((s) => [s, difference(outcome(mine, qid, s), outcome(theirs, qid, s))]).filter(([, d]) => d);
  const filter = el("input", { type: "search", placeholder: "filter questions…", "aria-label": "Filter questions" });
  const misses = el("input", { type: "checkbox", "aria-label": "Only questions a system missed" });
  const changedOnly = el("input", { type: "checkbox", name: "changed", "aria-label": "Only questions whose outcome changed" });
  const picker = el("select", { "aria-label": "Compare with another run" }, el("option", { value: "" }, "compare with…"),
    EVAL_RUNS.filter((r) => r !== name).map((r) => el("option", { value: r, selected: r === other }, r)));
  picker.addEventListener("change", () => { setPlace({ with: picker.value }); questionTable(target, name, picker.value); });
  let order = { key: "qid", up: true };
  const body = el("tbody");
  const index = mine.index;
  const draw = () => {
    const text = filter.value.toLowerCase();
    const rows = mine.rows.filter((r) => (r.qid + " " + r.question).toLowerCase().includes(text))
      .filter((r) => !misses.checked || columns.some((c) => (outcome(c.run, r.qid, c.system) || {}).hit === false))
      .filter((r) => !changedOnly.checked || changes(r.qid).length);
    const value = (r) => order.key === "qid" ? r.qid : order.key === "question" ? r.question
      : (outcome(order.run, r.qid, order.key) || {}).rank ?? 1e9;
    rows.sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0) * (order.up ? 1 : -1));
    body.replaceChildren(...rows.map((r) => {
      const changed = changes(r.qid);
      const kinds = new Set(changed.map(([, d]) => d));
      return el("tr", { class: changed.length ? "changed" : "", "data-qid": r.qid, "data-diff": kinds.size === 1 ? [...kinds][0] : kinds.size ? "mixed" : null },
        el("td", {}, r.qid),
        el("td", {}, r.question, r.question && index ? el("a", { class: "ask-again", href: "#" + new URLSearchParams({ index, q: r.question }) }, " ask ↗") : null),
        el("td", {}, r.gold.map((id) => el("button", { type: "button", class: "link-button", onclick: () => openComponent(id, index || INDEX) }, id + " "))),
        columns.map((c) => outcomeCell(outcome(c.run, r.qid, c.system), c.run.name, r.qid, c.system)),
        theirs ? el("td", { class: "difference" }, changed.map(([s, d]) => el("span", { class: "diff " + d }, `${s} ${d === "better" ? "▲" : "▼"} ${d} `))) : null);
    }));
  };
  const head = (key, label, run) => el("th", { scope: "col", "aria-sort": order.key === key && order.run === run ? (order.up ? "ascending" : "descending") : null },
    el("button", { type: "button", class: "link-button sort", onclick: () => {
      order = { key, run, up: order.key === key && order.run === run ? !order.up : true };
      draw();
      redrawHeads();
    } }, label));
  const heads = el("tr");
  const redrawHeads = () => fill(heads, head("qid", "qid"), head("question", "question"), el("th", { scope: "col" }, "gold"),
    columns.map((c) => head(c.system, c.label, c.run)), theirs ? el("th", { scope: "col" }, "B against A") : null);
  redrawHeads();
  filter.addEventListener("input", draw);
  misses.addEventListener("change", draw);
  changedOnly.addEventListener("change", draw);
  const pairs = mine.rows.flatMap((r) => changes(r.qid).map(([, d]) => d));
  const tally = theirs ? el("p", { class: "status diff-summary" }, `${other} (B) against ${name} (A), on the systems both ran: `,
    `${pairs.filter((d) => d === "better").length} better, ${pairs.filter((d) => d === "worse").length} worse`) : null;
  fill(target, el("h3", {}, `Per question (${mine.rows.length})`, index ? ` · index ${index}` : " · its index is not served here"),
    el("div", { class: "stepper" }, filter, el("label", {}, misses, " misses only"), picker,
      theirs ? el("label", {}, changedOnly, " changed only") : null), tally,
    el("div", { class: "table-scroll" }, el("table", { class: "grid", id: "eval-table" }, el("thead", {}, heads), body)));
  draw();
}

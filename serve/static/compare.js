// -- compare: one question, several systems side by side --------------------------------------
// Each column: the answer (and its grounding), latency, steps, cost, how much of its ranking
// the other systems share (overlap of the top k), and a link to its trace.
function overlap(a, b) {
  const x = new Set(a), y = new Set(b);
  const shared = [...x].filter((id) => y.has(id)).length;
  return x.size ? shared / x.size : 0;
}

function compareColumn(name, run, runs) {
  const ids = run.results.map((r) => r.component_id);
  const others = Object.entries(runs).filter(([other]) => other !== name);
  const shared = others.map(([other, r]) => `${other} ${Math.round(100 * overlap(ids, r.results.map((x) => x.component_id)))}%`);
  const cost = run.cost || {};
  const trace = run.thread_id ? el("button", { type: "button", class: "link-button", "data-trace": run.thread_id,
    onclick: () => { showTab("threads"); openThread(run.thread_id); } }, "trace " + run.thread_id) : el("span", { class: "status" }, "no trace (one search)");
  return el("div", { class: "column", "data-system": name }, el("h3", {}, name),
    el("dl", { class: "facts" },
      el("dt", {}, "latency"), el("dd", {}, `${Math.round(run.latency_ms)} ms`),
      el("dt", {}, "steps"), el("dd", { class: "steps" }, String((run.trace || []).length)),
      el("dt", {}, "LLM calls"), el("dd", {}, String(cost.llm_calls || 0)),
      el("dt", {}, "tokens"), el("dd", {}, String((cost.input_tokens || 0) + (cost.output_tokens || 0))),
      el("dt", {}, "overlap"), el("dd", { class: "overlap" }, shared.join(", ") || "–")),
    answerView(run) || el("p", { class: "status no-answer" }, "no answer (none asked, or the system writes none)"), trace,
    el("ol", { class: "results" }, run.results.map(resultItem)));
}

document.getElementById("compare-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const values = formValues(event.target);
  const systems = [...document.querySelectorAll("#compare-systems input:checked")].map((i) => i.value);
  const status = document.getElementById("compare-status");
  const button = event.target.querySelector("button[type=submit]");
  status.textContent = "running " + systems.join(", ") + "…";
  button.disabled = true;
  try {
    const body = { question: values.question, backend: values.backend, answer: values.answer, systems };
    const data = await api("/api/compare", body);
    status.textContent = "";
    document.getElementById("compare-columns").replaceChildren(...Object.entries(data.runs).map(([name, run]) => compareColumn(name, run, data.runs)));
  } catch (error) {
    status.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
  } finally {
    button.disabled = false;
  }
});

// -- evals ---------------------------------------------------------------------------------------
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
  fill(target, el("h2", {}, name), el("div", { id: "eval-summary" }, markdown(run.summary_md)),
    run.regressions_md ? el("details", {}, el("summary", {}, "regressions"), markdown(run.regressions_md)) : null,
    el("div", { class: "plots" }, run.plots.map(plot)), questions);
  setPlace({ tab: "evals", run: name });
  await questionTable(questions, name);
}

// Per question: the question, its gold, each system's hit (✓ with the gold's rank, ✗ miss);
// headers sort, the box filters, "misses only" keeps rows some system missed; another run
// picked beside it adds its columns and marks the questions whose outcome changed.
async function questionTable(target, name, other = "") {
  const fetchRows = (run) => api("/api/evals/questions?" + new URLSearchParams({ name: run }));
  const mine = await fetchRows(name);
  const theirs = other ? await fetchRows(other) : null;
  const columns = mine.systems.map((s) => ({ run: mine, system: s, label: theirs ? `${s} (A)` : s }))
    .concat(theirs ? theirs.systems.map((s) => ({ run: theirs, system: s, label: `${s} (B)` })) : []);
  const outcome = (run, qid, system) => ((run.rows.find((r) => r.qid === qid) || {}).systems || {})[system] || null;
  const mark = (o) => !o ? "" : o.error ? "error" : o.hit === null ? "–" : o.hit ? `✓ ${o.rank}` : "✗";
  const changed = (qid) => theirs && mine.systems.some((s) => {
    const [a, b] = [outcome(mine, qid, s), outcome(theirs, qid, s)];
    return a && b && a.hit !== b.hit;
  });
  const filter = el("input", { type: "search", placeholder: "filter questions…", "aria-label": "Filter questions" });
  const misses = el("input", { type: "checkbox", "aria-label": "Only questions a system missed" });
  const picker = el("select", { "aria-label": "Compare with another run" }, el("option", { value: "" }, "compare with…"),
    EVAL_RUNS.filter((r) => r !== name).map((r) => el("option", { value: r, selected: r === other }, r)));
  picker.addEventListener("change", () => questionTable(target, name, picker.value));
  let order = { key: "qid", up: true };
  const body = el("tbody");
  const index = mine.index;
  const draw = () => {
    const text = filter.value.toLowerCase();
    const rows = mine.rows.filter((r) => (r.qid + " " + r.question).toLowerCase().includes(text))
      .filter((r) => !misses.checked || columns.some((c) => (outcome(c.run, r.qid, c.system) || {}).hit === false));
    const value = (r) => order.key === "qid" ? r.qid : order.key === "question" ? r.question
      : (outcome(order.run, r.qid, order.key) || {}).rank ?? 1e9;
    rows.sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0) * (order.up ? 1 : -1));
    body.replaceChildren(...rows.map((r) => el("tr", { class: changed(r.qid) ? "changed" : "", "data-qid": r.qid },
      el("td", {}, r.qid),
      el("td", {}, r.question, r.question && index ? el("a", { class: "ask-again", href: "#" + new URLSearchParams({ index, q: r.question }) }, " ask ↗") : null),
      el("td", {}, r.gold.map((id) => el("button", { type: "button", class: "link-button", onclick: () => openComponent(id, index || INDEX) }, id + " "))),
      columns.map((c) => {
        const o = outcome(c.run, r.qid, c.system);
        return el("td", { class: "outcome " + (o && o.hit ? "hit" : o && o.hit === false ? "miss" : ""), title: o ? (o.error || (o.top || []).join(", ")) : "" }, mark(o));
      }))));
  };
  const head = (key, label, run) => el("th", { scope: "col" }, el("button", { type: "button", class: "link-button sort", onclick: () => {
    order = { key, run, up: order.key === key ? !order.up : true };
    draw();
  } }, label));
  filter.addEventListener("input", draw);
  misses.addEventListener("change", draw);
  fill(target, el("h3", {}, `Per question (${mine.rows.length})`, index ? ` · index ${index}` : " · its index is not served here"),
    el("div", { class: "stepper" }, filter, el("label", {}, misses, " misses only"), picker),
    el("div", { class: "table-scroll" }, el("table", { class: "grid", id: "eval-table" },
      el("thead", {}, el("tr", {}, head("qid", "qid"), head("question", "question"), el("th", { scope: "col" }, "gold"),
        columns.map((c) => head(c.system, c.label, c.run)))), body)));
  draw();
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
  history.replaceState(null, "", location.pathname + location.search + "#" + new URLSearchParams({ index: name }));
  loadOverview();
  if (document.getElementById("tab-threads").classList.contains("active")) loadThreads();
}

// -- start: fill the pickers, then restore the place the URL names --------------------------------
async function start() {
  const names = await loadIndices();
  const info = await api("/api/systems");
  const options = (names, select) => document.getElementById(select).replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  options(info.search_modes, "search-mode");
  options(info.systems.map((s) => s.name), "ask-system");
  options(info.backends, "ask-backend");
  options(info.backends, "compare-backend");
  document.getElementById("ask-system").value = "fif";
  document.getElementById("compare-systems").replaceChildren(...info.systems.map((s) =>
    el("label", {}, el("input", { type: "checkbox", value: s.name, checked: ["fif", "dense"].includes(s.name) }), s.name, " ")));
  arrive(names);
  window.addEventListener("hashchange", () => arrive(names));  // a link pasted into this tab
}

// Go to the place the URL names: its index first (picking one resets the view), then the rest.
function arrive(names) {
  const linked = place();
  const index = linked.get("index");
  if (index && names.includes(index) && index !== INDEX) pickIndex(index); else loadOverview();
  restore(linked, index || INDEX);
}

function restore(linked, index) {
  const tab = linked.get("tab") || "ask";
  const q = linked.get("q");
  showTab(tab);
  setPlace(Object.fromEntries(linked));
  if (tab === "search" && q) {
    document.getElementById("search-q").value = q;
    runSearch(formValues(document.getElementById("search-form")));
  }
  if (tab === "ask") {
    if (q) document.getElementById("ask-q").value = q;
    if (linked.get("system")) document.getElementById("ask-system").value = linked.get("system");
    if (linked.get("thread")) showRun(linked.get("thread"));
  }
  if (tab === "evals" && linked.get("run")) loadEvals().then(() => openEval(linked.get("run")));
  if (tab === "threads" && linked.get("thread")) openThread(linked.get("thread"), Number(linked.get("branch") || 0));
  if (linked.get("component")) openComponent(linked.get("component"), index);
}
start().catch((error) => document.getElementById("landing").replaceChildren(el("span", { class: "error" }, error.message)));

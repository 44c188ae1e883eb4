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
  let shown = Promise.resolve();  // a run the URL names: its result first, then its component
  if (tab === "ask") {
    if (q) document.getElementById("ask-q").value = q;
    if (linked.get("system")) document.getElementById("ask-system").value = linked.get("system");
    if (linked.get("thread")) shown = showRun(linked.get("thread"));
  }
  if (tab === "evals" && linked.get("run")) loadEvals().then(() => openEval(linked.get("run")));
  if (tab === "threads" && linked.get("thread")) openThread(linked.get("thread"), Number(linked.get("branch") || 0));
  const component = linked.get("component");
  if (component) shown.then(() => openComponent(component, index, linked.get("thread") ? shownSources : []));
}
start().catch((error) => document.getElementById("landing").replaceChildren(el("span", { class: "error" }, error.message)));

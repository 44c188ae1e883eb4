// FiF page: tabs, the landing view, search, the agent (Ask), threads with their branches, the
// index picker and the start. Runs start by POST; the URL keeps the place (see core.js).
"use strict";

// -- tabs -----------------------------------------------------------------------------------
function showTab(name) {
  document.querySelectorAll("#tabs button").forEach((b) => {
    b.classList.toggle("active", b.dataset.tab === name);
    b.setAttribute("aria-selected", b.dataset.tab === name ? "true" : "false");
  });
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.id === "tab-" + name));
  setPlace({ tab: name === "ask" ? null : name });
  if (name === "threads") loadThreads();
  if (name === "evals") loadEvals();
}
document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));

// -- landing: what the index holds and where to start ----------------------------------------
async function loadOverview() {
  const target = document.getElementById("landing");
  const data = await api("/api/overview");
  const kinds = Object.entries(data.counts).filter(([k]) => !k.startsWith("edges_") && k !== "document").map(([k, n]) => `${n} ${k}s`);
  const links = data.counts.edges_links_to ? `, ${data.counts.edges_links_to} links` : "";
  fill(target, el("p", {}, el("b", {}, data.index), ` holds ${data.documents} documents (${kinds.join(", ")}${links}). `,
    "Ask a question: the agent searches, follows links between documents and shows every step."),
    el("p", { class: "examples" }, "Start from: ", data.examples.map((e) =>
      el("button", { type: "button", class: "example", onclick: () => { document.getElementById("ask-q").value = e.title; } }, e.title))));
}

// -- search ---------------------------------------------------------------------------------
async function runSearch(values) {
  const status = document.getElementById("search-status");
  const list = document.getElementById("search-results");
  status.textContent = "searching…";
  setPlace({ tab: "search", q: values.q });
  try {
    const data = await api("/api/search?" + new URLSearchParams(values));
    status.textContent = `${data.results.length} results in ${data.latency_ms} ms (${data.mode})`;
    list.replaceChildren(...data.results.map(resultItem));
  } catch (error) {
    status.replaceChildren(el("span", { class: "error" }, error.message));
  }
}
document.getElementById("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  runSearch(formValues(event.target));
});

// -- ask: start a run by POST, follow its events; the URL names its thread ----------------------
document.getElementById("ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const values = formValues(form);
  const button = form.querySelector("button[type=submit]");
  const view = traceView(document.getElementById("live"));
  button.disabled = true;
  form.setAttribute("aria-busy", "true");
  view.head.textContent = "starting…";
  const finished = () => { button.disabled = false; form.removeAttribute("aria-busy"); };
  try {
    const started = await api("/api/runs", values);
    setPlace({ tab: null, q: values.question, system: values.system, thread: started.thread_id, branch: null });
    follow(started.events, view, null, finished);
  } catch (error) {
    view.head.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
    finished();
  }
});

// A finished run named in the URL shows again from its log (no second run).
async function showRun(threadId) {
  const view = traceView(document.getElementById("live"));
  try {
    const log = await api(`/api/threads/${encodeURIComponent(threadId)}/log`);
    for (const event of log.events) showEvent(view, event.kind, event.data, null);
    if (log.done) view.head.append(" · done");
  } catch (error) {
    view.head.replaceChildren(el("span", { class: "error", role: "alert" }, error.message));
  }
}

// -- threads: list, the branch tree, replay a branch step by step, fork from any step -----------
async function loadThreads() {
  const body = document.querySelector("#threads-table tbody");
  const data = await api("/api/threads");
  body.replaceChildren(...data.threads.map((t) => el("tr", { class: "clickable", tabindex: 0, "data-thread": t.thread_id,
    onclick: () => openThread(t.thread_id), onkeydown: (e) => { if (e.key === "Enter") openThread(t.thread_id); } },
    el("td", {}, t.thread_id), el("td", {}, t.question), el("td", {}, t.system || ""), el("td", {}, t.checkpoints), el("td", {}, t.updated))));
}
document.getElementById("threads-refresh").addEventListener("click", loadThreads);

async function openThread(threadId, branch = 0) {
  const target = document.getElementById("replay");
  target.replaceChildren(el("p", { class: "status" }, "loading " + threadId + "…"));
  const tree = el("div", { id: "branches" });
  const trace = el("div", { id: "branch-trace" });
  target.replaceChildren(el("h3", {}, "Thread " + threadId), tree, trace);
  try {
    await drawBranches(threadId, tree, trace, branch);
  } catch (error) {  // e.g. a system whose threads replay cannot read: say so where it was asked
    tree.replaceChildren(el("p", { class: "error", role: "alert" }, error.message));
  }
}

async function drawBranches(threadId, tree, trace, selected, replay = true) {
  const data = await api(`/api/threads/${encodeURIComponent(threadId)}/branches`);
  const item = (b) => el("li", { class: "branch" + (b.branch === selected ? " selected" : ""), "data-branch": b.branch },
    el("button", { type: "button", class: "link-button", onclick: () => drawBranches(threadId, tree, trace, b.branch) },
      b.branch === 0 ? "branch 0 (the run)" : `branch ${b.branch}`),
    b.fork_branch !== undefined && b.fork_branch !== null ? ` · fork of branch ${b.fork_branch} from step ${b.fork_step ?? "?"}` : "",
    b.edited ? ` · edited ${b.edited.subquery ? "subquery " + JSON.stringify(b.edited.subquery) : ""} ${b.edited.strategy ? strategyText(b.edited.strategy) : ""}` : "",
    ` · ${b.steps} steps in all`, b.finished ? "" : " · unfinished",
    el("div", { class: "branch-answer" }, b.answer ? "answer: " + b.answer : "no answer"),
    el("div", { class: "branch-ranking" }, b.ranking.length ? "top: " + b.ranking.join(", ") : "no ranking"));
  const children = (parent) => data.branches.filter((b) => (b.fork_branch ?? null) === parent);
  const nest = (b) => [item(b), children(b.branch).length ? el("ul", {}, children(b.branch).flatMap(nest)) : null];
  fill(tree, el("h4", {}, "Branches"), el("ul", { class: "branch-tree" }, children(null).flatMap(nest)));
  setPlace({ tab: "threads", thread: threadId, branch: selected || null });
  if (replay) await replayBranch(threadId, selected, tree, trace);
}

async function replayBranch(threadId, branch, tree, trace) {
  const log = await api(`/api/threads/${encodeURIComponent(threadId)}/log?branch=${branch}`);
  const place = el("span", { id: "replay-position", role: "status" });
  const next = el("button", { id: "replay-next", type: "button" }, "next step");
  const all = el("button", { id: "replay-all", type: "button" }, "all steps");
  const body = el("div");
  trace.replaceChildren(el("div", { class: "stepper" }, `Replay of branch ${branch}: `, next, all, place), body);
  const view = traceView(body);
  const onFork = (request, error) => startFork(threadId, request, error, tree, trace);
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

async function startFork(threadId, request, error, tree, trace) {
  try {
    const started = await api(`/api/threads/${encodeURIComponent(threadId)}/fork`, request);
    const view = traceView(trace);
    view.head.textContent = "forking…";
    follow(started.events, view, null, (result) => {
      if (result) drawBranchesOnly(threadId, tree, trace);
    });
  } catch (failure) {
    error(failure);  // beside the field it names (fork.js)
  }
}

// After a fork ends: redraw the tree with the new branch selected; the fork's live view stays.
async function drawBranchesOnly(threadId, tree, trace) {
  const data = await api(`/api/threads/${encodeURIComponent(threadId)}/branches`);
  await drawBranches(threadId, tree, trace, data.branches.length - 1, false);
}

// FiF page, forking a run from one of its steps: "Fork from step N" opens a form under that
// step with what it takes (a budget; before a traversal also its subquery and strategy). What
// is wrong with a value shows beside its field, whether the page or the server found it (the
// server names the field: `field` in its JSON, or the `loc` of a validation error).
"use strict";

const STRATEGY_FIELDS = ["doc_mode", "comp_mode", "granularity"];

// A field with its label and the slot its error shows in (named by aria-describedby).
function forkField(number, name, label, ...inputs) {
  const slot = el("span", { class: "error field-error", id: `fork-${number}-${name}-error`, "data-for": name, role: "alert" });
  inputs.forEach((input) => input.setAttribute("aria-describedby", slot.id));
  return el("span", { class: "fork-field", "data-field": name }, el("label", {}, label + " ", ...inputs), slot);
}

// Show `message` beside field `name` (its strategy parts share one slot; unknown: the form's).
function markField(form, name, message) {
  form.querySelectorAll(".field-error, .fork-error").forEach((slot) => { slot.textContent = ""; });
  form.querySelectorAll("[aria-invalid]").forEach((input) => input.removeAttribute("aria-invalid"));
  if (!message) return;
  const key = STRATEGY_FIELDS.includes(name) ? "strategy" : name;
  const slot = form.querySelector(`.field-error[data-for="${key}"]`) || form.querySelector(".fork-error");
  slot.textContent = message;
  const inputs = key === "strategy" ? STRATEGY_FIELDS.map((f) => form.elements[f]) : [form.elements[key]];
  inputs.filter(Boolean).forEach((input) => input.setAttribute("aria-invalid", "true"));
}

// The fork request of the form, or [field, message] when a value is wrong.
function forkRequest(form, step) {
  const body = { checkpoint_id: step.checkpoint_id };
  const budget = form.elements.max_steps.value;
  if (budget) {
    const steps = Number(budget);
    if (!Number.isInteger(steps) || steps < 1 || steps > 50) return ["max_steps", "a whole number from 1 to 50"];
    body.max_steps = steps;
  }
  if (!form.elements.subquery) return body;
  const taken = step.traversal || {};
  const text = form.elements.subquery.value.trim();
  if (!text) return ["subquery", "it may not be blank"];
  if (text !== taken.subquery) body.subquery = text;
  const strategy = Object.fromEntries(STRATEGY_FIELDS.map((f) => [f, form.elements[f].value]));
  if (strategyText(strategy) !== strategyText(taken.strategy)) body.strategy = strategy;
  return body;
}

function forkControls(step, number, onFork) {
  const form = el("form", { class: "fork-form", hidden: true, novalidate: true, "data-step": number, "aria-label": `fork from step ${number}` });
  const budget = el("input", { type: "number", min: 1, max: 50, name: "max_steps", "aria-label": `budget of the fork from step ${number}`, placeholder: "budget" });
  const fields = [forkField(number, "max_steps", "budget", budget)];
  if (step.node === "traverser") {
    const taken = step.traversal || {};
    const s = taken.strategy || {};
    const pick = (name, options) => el("select", { name, "aria-label": `${name} of step ${number}` },
      options.map((o) => el("option", { value: o, selected: o === s[name] }, o)));
    fields.push(forkField(number, "subquery", "subquery", el("input", { name: "subquery", value: taken.subquery || "", size: 32, "aria-label": `subquery of step ${number}` })),
      forkField(number, "strategy", "strategy", pick("doc_mode", ["neighbors", "vector", "llm"]), pick("comp_mode", ["vector", "llm"]),
        pick("granularity", ["document", "component", "subcomponent"])));
  }
  form.append(...fields, el("button", { type: "submit" }, "Run fork"), el("span", { class: "error fork-error", role: "alert" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const request = forkRequest(form, step);
    if (Array.isArray(request)) { markField(form, ...request); return; }
    markField(form, null, "");
    onFork(request, (failure) => markField(form, failure.field, failure.message));  // the server's refusal
  });
  const open = el("button", { class: "fork", type: "button", "aria-expanded": "false", onclick: () => {
    form.hidden = !form.hidden;
    open.setAttribute("aria-expanded", String(!form.hidden));
  } }, `Fork from step ${number}`);
  return el("div", {}, open, form);
}

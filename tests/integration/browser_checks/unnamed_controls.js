// The visible controls without an accessible name (label, aria-label, text or title).
() => [...document.querySelectorAll("input, select, button, [role=button]")]
  .filter((n) => n.offsetParent !== null)
  .filter((n) => !(n.getAttribute("aria-label") || (n.labels && n.labels.length) ||
    n.textContent.trim() || n.getAttribute("title")))
  .map((n) => n.outerHTML.slice(0, 80))

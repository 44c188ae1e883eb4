// FiF page, the evidence where it is: a PDF page as printed, with the box of the open
// component and the boxes of the answer's sources drawn over it, and beside it the text read
// inside the region (its text-layer and OCR lines). Boxes are PDF points with the origin at
// the page's top-left corner; the page's size in points (/api/documents/DOC/pages/P) turns
// them into shares of the image, so they stay in place at any width.
"use strict";

const PAGE_SIZES = new Map();  // "index|doc|page" → {width, height} in points

async function pageSize(docId, page, index) {
  const key = `${index}|${docId}|${page}`;
  if (!PAGE_SIZES.has(key)) {
    PAGE_SIZES.set(key, await api(withIndex(`/api/documents/${encodeURIComponent(docId)}/pages/${page}`, index)));
  }
  return PAGE_SIZES.get(key);
}

// The CSS placing a box over a page image: left, top, width, height as shares of the page.
function boxStyle(bbox, size) {
  const clamp = (v, total) => Math.max(0, Math.min(total, v));
  const [x1, y1, x2, y2] = [clamp(bbox[0], size.width), clamp(bbox[1], size.height), clamp(bbox[2], size.width), clamp(bbox[3], size.height)];
  const pct = (v, total) => `${((v / total) * 100).toFixed(4)}%`;
  return `left:${pct(x1, size.width)};top:${pct(y1, size.height)};width:${pct(x2 - x1, size.width)};height:${pct(y2 - y1, size.height)}`;
}

function overlay(bbox, size, kind, label, id) {
  return el("div", { class: "box " + kind, style: boxStyle(bbox, size), title: label, role: "img", "aria-label": label,
    "data-bbox": bbox.join(","), "data-id": id });
}

// The text beside the page: the lines read inside a region (each shows its box on hover),
// or the component's own text.
function regionText(c, frame, size) {
  if (!c.region_lines.length) return el("div", { class: "region-text" }, el("h4", {}, "Its text"), el("p", {}, c.text || "(no text)"));
  const region = (c.region_label || "region").replace(/^line in /, "");
  const head = el("h4", {}, `Text read in ${region === "region" ? "this region" : region}`);
  const hover = el("div", { class: "box line", hidden: true });
  frame.append(hover);
  const show = (line) => { hover.setAttribute("style", boxStyle(line.bbox, size)); hover.hidden = false; };
  return el("div", { class: "region-text" }, head, el("ol", { class: "region-lines" }, c.region_lines.map((line) =>
    el("li", { class: line.component_id === c.component_id ? "selected" : "", tabindex: 0, "data-id": line.component_id,
      onmouseenter: () => show(line), onfocus: () => show(line), onmouseleave: () => { hover.hidden = true; }, onblur: () => { hover.hidden = true; } },
    line.text || "(empty line)"))));
}

// The page of an open component `c` (the component panel's JSON) with its box and, in
// another colour, the boxes of `sources` (the answer's cited components) on the same page.
async function pageView(c, sources = []) {
  const page = c.region ? c.region.page : c.pdf_page;
  const doc = encodeURIComponent(c.doc_id);
  const figure = el("figure", { class: "page-view", id: "page-view" });
  try {
    const size = await pageSize(c.doc_id, page, c.index);
    const cited = sources.filter((s) => s.region && s.region.doc === c.doc_id && s.region.page === page);
    const img = el("img", { alt: `page ${page + 1} of ${c.title}`, src: withToken(withIndex(`/api/documents/${doc}/pages/${page}.png`, c.index)) });
    // the frame has the page's proportions before the image loads, so the boxes never jump
    const frame = el("div", { class: "page-frame", style: `aspect-ratio: ${size.width} / ${size.height}` }, img,
      cited.map((s) => overlay(s.region.bbox, size, "cited", `answer source #${s.rank}: ${s.region_label || s.component_id}`, s.component_id)),
      c.region ? overlay(c.region.bbox, size, "own", `${c.region_label}: ${c.component_id}`, c.component_id) : null);
    fill(figure,
      el("figcaption", {}, `page ${page + 1}`, c.region_label ? ` · ${c.region_label}` : "", " ",
        c.region ? el("span", { class: "legend own" }, "this result") : null,
        cited.length ? el("span", { class: "legend cited" }, "answer source") : null),
      el("div", { class: "page-layout" }, frame, regionText(c, frame, size)));
  } catch (error) {
    fill(figure, el("p", { class: "error" }, `page ${page + 1} cannot be shown: ${error.message}`));
  }
  return figure;
}

// The visible text with the lowest WCAG contrast ratio against its (first opaque) background.
() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b]
    .map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (n) => {
    for (; n; n = n.parentElement) {
      const c = getComputedStyle(n).backgroundColor;
      if (c && c !== "rgba(0, 0, 0, 0)" && c !== "transparent") return rgb(c);
    }
    return [255, 255, 255];
  };
  let worst = { ratio: 21 };
  for (const n of document.querySelectorAll("body *")) {
    const hasText = [...n.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim());
    if (!n.offsetParent || !hasText) continue;
    const [a, b] = [lum(rgb(getComputedStyle(n).color)), lum(background(n))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < worst.ratio) worst = { ratio, text: n.textContent.trim().slice(0, 40), tag: n.tagName };
  }
  return worst;
}

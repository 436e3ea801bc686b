// chart.js - the timing chart: one horizontal bar per benchmark shape, its
// length the speed-of-light %, a dashed line at 100% (the limit measured on
// the worker's GPU), each bar labelled with its time and throughput.
// Hand-written SVG: no chart library in the bundle.
import { svg } from "./dom.js";

/*
 * rows: [{label, pct, text}] (pct may be null when unknown). Returns an <svg>
 * with role="img" and a text alternative; the page shows the same numbers in
 * a table next to it.
 */
export function solChart(rows, opts = {}) {
  const W = 640,
    labelW = Math.min(240, Math.max(90, 20 + 7.5 * Math.max(...rows.map((r) => r.label.length), 4))),
    right = 16,
    barH = 22,
    gap = 14,
    top = 26,
    bottom = 30;
  const plotW = W - labelW - right;
  const maxPct = Math.max(100, ...rows.map((r) => (Number.isFinite(r.pct) ? r.pct : 0)));
  const scale = (p) => (Math.max(0, p) / maxPct) * plotW;
  const H = top + rows.length * (barH + gap) - gap + bottom;
  const alt =
    opts.title ||
    "Speed of light per benchmark shape: " + rows.map((r) => `${r.label} ${Number.isFinite(r.pct) ? r.pct.toFixed(1) + "%" : "unknown"}`).join(", ");
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": alt, preserveAspectRatio: "xMinYMin meet" });
  s.appendChild(svg("title", null, alt));
  for (const t of [0, 25, 50, 75, 100].concat(maxPct > 100 ? [Math.ceil(maxPct / 25) * 25] : [])) {
    if (t > maxPct) continue;
    const x = labelW + scale(t);
    s.appendChild(svg("line", { x1: x, x2: x, y1: top - 6, y2: H - bottom + 4, class: t === 100 ? "limit" : "grid" }));
    s.appendChild(svg("text", { x, y: H - bottom + 18, "text-anchor": "middle", class: "muted-text" }, t + "%"));
  }
  s.appendChild(
    svg("text", { x: labelW + scale(100), y: top - 10, "text-anchor": maxPct > 130 ? "middle" : "end", class: "muted-text" }, opts.limitLabel || "speed of light"),
  );
  rows.forEach((r, i) => {
    const y = top + i * (barH + gap);
    s.appendChild(svg("text", { x: labelW - 8, y: y + barH / 2 + 4, "text-anchor": "end" }, r.label));
    const w = Number.isFinite(r.pct) ? Math.max(1, scale(r.pct)) : 0;
    s.appendChild(svg("rect", { x: labelW, y, width: w, height: barH, rx: 3, class: "bar" }));
    const inside = w > plotW * 0.6;
    s.appendChild(
      svg(
        "text",
        {
          x: inside ? labelW + w - 6 : labelW + w + 6,
          y: y + barH / 2 + 4,
          "text-anchor": inside ? "end" : "start",
          style: inside ? "fill: var(--accent-text)" : null,
        },
        r.text,
      ),
    );
  });
  return s;
}

// profile.js - a Profile's panel under its result (docs/profile-learner.md):
// the one-line reading first, then per kernel launch a row (kernel, duration,
// what limits it, its reading), a chart of where each launch stands against
// the GPU's peaks (DRAM, L2, SM, FMA and tensor pipes, occupancy achieved
// against theoretical), and per launch its top warp stalls, cache hit rates
// and the bytes it moved against the problem's model; a link downloads the raw
// report (GET /api/submissions/ID/profile). When the worker could not profile
// ("available": false), its sentence why. Hand-written SVG, as chart.js.
//
// The profile's fields are the judge's (wire/worker_proto.h, "profile"); any
// number may be null when the GPU did not give it, and is shown as "–".
import { h, svg, table } from "./dom.js";
import * as f from "./format.js";

/* The bars of the chart: [key, label, what it measures]. */
export const PROFILE_BARS = [
  ["dram_pct", "DRAM", "DRAM throughput, % of its peak"],
  ["l2_pct", "L2", "L2 cache throughput, % of its peak"],
  ["sm_pct", "SM", "SM (compute) throughput, % of its peak"],
  ["fma_pct", "FMA", "FMA pipe utilisation, % of its peak"],
  ["tensor_pct", "Tensor", "tensor pipe utilisation, % of its peak"],
  ["occupancy_achieved_pct", "Occupancy", "warps resident, % of the SM's maximum (the tick: the theoretical occupancy)"],
];

const LIMITERS = {
  memory: "memory-bound",
  compute: "compute-bound",
  latency: "latency-bound",
};

/* "memory-bound", or "–" when the judge could not tell. */
export function limiterText(limiter) {
  return LIMITERS[limiter] || (limiter ? String(limiter) : "–");
}

const isNum = (x) => typeof x === "number" && Number.isFinite(x);

/* "kernel #1" (launch index as the plan counts it, from 0). */
export function launchName(k) {
  return `${k.kernel} #${k.launch}`;
}

/* "8192 × 256": blocks × threads per block, when the judge gave them. */
export function launchShape(k) {
  const n = (d) => (Array.isArray(d) ? d.reduce((a, b) => a * b, 1) : null);
  const grid = n(k.grid),
    block = n(k.block);
  if (!grid || !block) return "";
  return `${f.int(grid)} block${grid === 1 ? "" : "s"} × ${f.int(block)} threads`;
}

/* The bytes a launch moved against the problem's model: "3 GiB of DRAM traffic, 1.00× the
 * problem's 3 GiB" (the ratio says how far from the compulsory traffic it is). */
export function bytesText(k) {
  if (!isNum(k.dram_bytes)) return "DRAM traffic not measured";
  const moved = `${f.bytes(k.dram_bytes)} of DRAM traffic`;
  if (!isNum(k.model_bytes) || k.model_bytes <= 0) return `${moved} (no bytes model for this launch)`;
  const ratio = k.dram_bytes / k.model_bytes;
  return `${moved}, ${ratio.toFixed(2)}× the problem's model (${f.bytes(k.model_bytes)})`;
}

/* "occupancy 78.0% of a possible 100.0% (limited by registers)". */
export function occupancyText(k) {
  const lim = k.occupancy_limiter && k.occupancy_limiter !== "none" ? ` (limited by ${k.occupancy_limiter})` : "";
  return `occupancy ${f.pct(k.occupancy_achieved_pct)} of a possible ${f.pct(k.occupancy_theoretical_pct)}${lim}`;
}

/* The share of the plan's time each launch took, in %, or null without durations. */
export function timeShares(kernels) {
  const total = kernels.reduce((a, k) => a + (isNum(k.duration_ms) ? k.duration_ms : 0), 0);
  return kernels.map((k) => (total > 0 && isNum(k.duration_ms) ? (100 * k.duration_ms) / total : null));
}

/*
 * The chart: per kernel launch a group of bars, each a % of its peak (0-100;
 * a value past 100, which counters can give by a little, is drawn to the
 * edge), occupancy with a tick at the theoretical occupancy. A null value has
 * no bar and says "n/a".
 */
export function profileChart(kernels) {
  const W = 640,
    labelW = 92,
    right = 70,
    barH = 14,
    gap = 5,
    groupGap = 18,
    head = 20,
    top = 8,
    bottom = 26;
  const plotW = W - labelW - right;
  const x = (p) => labelW + (Math.min(100, Math.max(0, p)) / 100) * plotW;
  const groupH = head + PROFILE_BARS.length * (barH + gap) - gap;
  const H = top + kernels.length * (groupH + groupGap) - groupGap + bottom;
  const alt =
    "Where each kernel launch stands against the GPU's peaks: " +
    kernels.map((k) => `${launchName(k)}: ` + PROFILE_BARS.map(([key, label]) => `${label} ${f.pct(k[key])}`).join(", ")).join("; ");
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": alt, preserveAspectRatio: "xMinYMin meet", "data-profile-chart": "" });
  s.appendChild(svg("title", null, alt));
  const plotBottom = H - bottom + 4;
  for (const t of [0, 25, 50, 75, 100]) {
    s.appendChild(svg("line", { x1: x(t), x2: x(t), y1: top, y2: plotBottom, class: t === 100 ? "limit" : "grid" }));
    s.appendChild(svg("text", { x: x(t), y: H - bottom + 18, "text-anchor": "middle", class: "muted-text" }, t + "%"));
  }
  kernels.forEach((k, g) => {
    const y0 = top + g * (groupH + groupGap);
    s.appendChild(svg("text", { x: labelW, y: y0 + 13, class: "group", "data-kernel": launchName(k) }, `${launchName(k)} — ${limiterText(k.limiter)}`));
    PROFILE_BARS.forEach(([key, label, what], i) => {
      const y = y0 + head + i * (barH + gap);
      const v = k[key];
      s.appendChild(svg("text", { x: labelW - 8, y: y + barH - 3, "text-anchor": "end" }, label));
      const bar = svg("rect", {
        x: labelW,
        y,
        width: isNum(v) ? Math.max(1, x(v) - labelW) : 0,
        height: barH,
        rx: 2,
        class: `bar ${key === "occupancy_achieved_pct" ? "occ" : key.replace("_pct", "")}`,
        "data-bar": key,
        "data-value": isNum(v) ? String(v) : "null",
      });
      bar.appendChild(svg("title", null, `${label}: ${f.pct(v)} — ${what}`));
      s.appendChild(bar);
      if (key === "occupancy_achieved_pct" && isNum(k.occupancy_theoretical_pct)) {
        const tx = x(k.occupancy_theoretical_pct);
        s.appendChild(svg("line", { x1: tx, x2: tx, y1: y - 2, y2: y + barH + 2, class: "tick", "data-bar": "occupancy_theoretical_pct" }));
      }
      s.appendChild(svg("text", { x: W - right + 8, y: y + barH - 3, class: isNum(v) ? null : "muted-text" }, isNum(v) ? f.pct(v) : "n/a"));
    });
  });
  return s;
}

/* The launch's details: top stalls, hit rates, bytes against the model, occupancy. */
function launchDetails(k) {
  const stalls = Array.isArray(k.stalls) ? k.stalls : [];
  return h(
    "div",
    { class: "profile-launch", dataset: { launch: String(k.launch), kernel: k.kernel } },
    h("h4", null, h("code", null, k.kernel), ` (launch ${k.launch})`, launchShape(k) ? h("span", { class: "muted small" }, ` · ${launchShape(k)}`) : null),
    k.reading ? h("p", { class: "profile-kernel-reading", "data-kernel-reading": "" }, k.reading) : null,
    h(
      "ul",
      { class: "profile-facts small" },
      h(
        "li",
        { "data-fact": "stalls" },
        h("strong", null, "Top warp stalls: "),
        stalls.length ? stalls.map((st, i) => [i ? "; " : "", `${st.reason} `, h("span", { class: "mono" }, f.pct(st.pct))]) : "not measured",
      ),
      h("li", { "data-fact": "hits" }, h("strong", null, "Cache hit rates: "), `L1 ${f.pct(k.l1_hit_pct)}, L2 ${f.pct(k.l2_hit_pct)}`),
      h("li", { "data-fact": "bytes" }, h("strong", null, "Bytes: "), bytesText(k)),
      h("li", { "data-fact": "occupancy" }, h("strong", null, "Occupancy: "), occupancyText(k).replace(/^occupancy /, "")),
      h("li", { "data-fact": "l1" }, h("strong", null, "L1 throughput: "), f.pct(k.l1_pct)),
    ),
  );
}

/*
 * The Profile panel of submission `id` from its result's "profile" (or
 * undefined/null when the result has none: the tests did not run to the end).
 */
export function profileSection(profile, id, verdict) {
  const download = h("a", { href: `/api/submissions/${id}/profile`, download: `profile-${id}.json`, "data-download": "profile", class: "small" }, "Download raw report");
  if (!profile)
    return h(
      "section",
      { class: "profile", "aria-label": "Profile", "data-profile": "none" },
      h("h3", null, "Profile"),
      h("p", { class: "muted" }, `Not profiled: ${verdict === "CE" ? "it did not compile" : "its tests did not run to the end"}, and the profiler runs only once they have (without a crash or the time limit). Fix that and Profile again.`),
    );
  if (!profile.available)
    return h(
      "section",
      { class: "profile", "aria-label": "Profile", "data-profile": "unavailable" },
      h("h3", null, "Profile"),
      h("p", { class: "notice warn", "data-profile-why": "" }, "No profile: ", profile.why || "the worker could not profile this kernel", "."),
      h("p", { class: "muted small" }, "The tests ran and the verdict stands; only the profiler's figures are missing. ", download),
    );
  const kernels = Array.isArray(profile.kernels) ? profile.kernels : [];
  const shares = timeShares(kernels);
  const rows = kernels.map((k, i) => ({
    attrs: { dataset: { kernel: k.kernel, launch: String(k.launch) } },
    cells: [
      h("span", null, h("code", null, k.kernel), h("span", { class: "sub" }, `launch ${k.launch}${launchShape(k) ? " · " + launchShape(k) : ""}`)),
      h("span", { class: "nowrap" }, f.ms(k.duration_ms), shares[i] !== null && kernels.length > 1 ? h("span", { class: "sub" }, `${f.pct(shares[i], 0)} of the time`) : null),
      limiterText(k.limiter),
      k.reading || "–",
    ],
  }));
  return h(
    "section",
    { class: "profile", "aria-label": "Profile", "data-profile": "available" },
    h("h3", null, "Profile"),
    profile.reading ? h("p", { class: "profile-reading", "data-profile-reading": "" }, profile.reading) : null,
    h(
      "p",
      { class: "muted small" },
      profile.case ? ["Profiled on the benchmark shape ", h("code", null, profile.case)] : "Profiled",
      profile.profiler ? ` with ${profile.profiler}` : "",
      isNum(profile.wall_ms) ? ` (${f.ms(profile.wall_ms)} on the worker)` : "",
      ". ",
      download,
    ),
    table(["Kernel", { text: "Duration", num: true }, "Limited by", "Reading"], rows, { class: "compact", caption: "Each kernel launch of the plan" }),
    kernels.length
      ? h(
          "figure",
          { class: "chart profile-chart", style: "margin: 0.75rem 0" },
          profileChart(kernels),
          h("figcaption", { class: "muted small" }, "Each launch's throughput as a % of the GPU's peak — DRAM, L2, SM, and the FMA and tensor pipes — and its occupancy against the theoretical occupancy (the tick). A bar near 100% is the limit that launch is up against."),
        )
      : null,
    kernels.map(launchDetails),
  );
}

// format.js - numbers, times and names as the pages show them. Pure functions
// (tested by test/unit/format.test.mjs).

export const VERDICT_NAMES = {
  AC: "Accepted",
  WA: "Wrong Answer",
  CE: "Compile Error",
  RE: "Runtime Error",
  TLE: "Time Limit Exceeded",
  MV: "Memory Violation",
  IM: "Input Modified",
  JE: "Judge Error",
  NJ: "Not judged",
};

export function verdictName(code) {
  return VERDICT_NAMES[code] || code || "";
}

/* A number with `digits` significant digits, grouped by thousands when large. */
export function sig(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 10 ** digits) return Math.round(x).toLocaleString("en-US");
  const d = Math.max(0, digits - 1 - Math.floor(Math.log10(a)));
  return x.toFixed(Math.min(d, 12));
}

/* "Run", "Submit" or "Profile": a submission's mode as the pages name it. */
export function modeTitle(mode) {
  return mode === "submit" ? "Submit" : mode === "profile" ? "Profile" : "Run";
}

export function int(n) {
  return n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US");
}

/* Milliseconds: "0.712 ms", "12.4 ms", "1.25 s", "8.6 µs". */
export function ms(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  if (x >= 1000) return sig(x / 1000) + " s";
  if (x > 0 && x < 0.1) return sig(x * 1000) + " µs";
  return sig(x) + " ms";
}

export function pct(x, digits = 1) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  return x.toFixed(digits) + "%";
}

export function bytes(n) {
  if (n === null || n === undefined) return "–";
  if (n < 1024) return n + " B";
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024,
    u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return sig(v) + " " + units[u];
}

/* Bandwidth in GB/s as TB/s once large: "3.91 TB/s", "812 GB/s". */
export function gbps(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  return x >= 1000 ? sig(x / 1000) + " TB/s" : sig(x) + " GB/s";
}

export function tflops(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  return x < 1 ? sig(x * 1000) + " GFLOP/s" : sig(x) + " TFLOP/s";
}

/* Unix seconds as a local date and time "2026-11-29 10:41". */
export function when(t) {
  if (!t) return "–";
  const d = new Date(t * 1000);
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/* "just now", "42 s ago", "5 min ago", "3 h ago", "2 days ago". */
export function ago(t, now = Date.now() / 1000) {
  if (!t) return "never";
  const s = Math.max(0, Math.round(now - t));
  if (s < 5) return "just now";
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.floor(s / 60) + " min ago";
  if (s < 86400) return Math.floor(s / 3600) + " h ago";
  const d = Math.floor(s / 86400);
  return d + (d === 1 ? " day ago" : " days ago");
}

/* Seconds as "45 s", "12 min", "2 h 5 min". */
export function duration(s) {
  if (s === null || s === undefined) return "–";
  s = Math.max(0, Math.round(s));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.ceil(s / 60) + " min";
  const hrs = Math.floor(s / 3600),
    min = Math.round((s % 3600) / 60);
  return min ? `${hrs} h ${min} min` : `${hrs} h`;
}

/*
 * A quota as what is left and over what: "115 Runs left this hour",
 * "1 Submit left these 24 h". `noun` is singular ("Run"); `w` is a window of
 * /api/me's quota ({remaining, window_seconds}). The window slides, which the
 * chip's title says in full.
 */
export function quotaLeft(noun, w) {
  const n = w.remaining;
  const s = w.window_seconds;
  const over = s === 3600 ? "this hour" : s === 60 ? "this minute" : s === 86400 ? "these 24 h" : `these ${duration(s)}`;
  return `${n} ${n === 1 ? noun : noun + "s"} left ${over}`;
}

/*
 * The sizes of a test case from its name: the judge names cases after their
 * sizes ("N=127", "ladder M=7,N=33"). Returns [{name, value}] (values as
 * strings, exactly as written) and the group ("ladder"), or no sizes when the
 * name does not carry them.
 */
export function testSizes(name) {
  const out = { group: "", sizes: [] };
  if (!name) return out;
  const m = /^(?:(.*?)\s+)?((?:[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+)(?:,\s*[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+)*)$/.exec(name.trim());
  if (!m) {
    out.group = name;
    return out;
  }
  out.group = m[1] || "";
  for (const part of m[2].split(",")) {
    const [k, v] = part.trim().split("=");
    out.sizes.push({ name: k, value: v });
  }
  return out;
}

/* An element index [r, c] or a flat one, as "[3, 17]" / "[42]". */
export function index(ix, flat) {
  if (Array.isArray(ix) && ix.length) return "[" + ix.join(", ") + "]";
  if (flat !== undefined && flat !== null) return "[" + flat + "]";
  return "–";
}

/* A value the judge reported: numbers, or strings for NaN/Inf/integers too big. */
export function value(v) {
  if (v === null || v === undefined) return "–";
  if (typeof v === "number") {
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    if (a !== 0 && (a < 1e-4 || a >= 1e7)) return v.toExponential(6);
    return String(Number(v.toPrecision(9)));
  }
  return String(v);
}

export function plural(n, word, many = word + "s") {
  return `${int(n)} ${n === 1 ? word : many}`;
}

/* "1.23×": a speedup such as × PyTorch (PyTorch's time over yours). */
export function speedup(x) {
  return x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(2)}×`;
}

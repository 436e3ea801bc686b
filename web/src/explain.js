// explain.js - what a verdict or a failure most likely means, in words a
// learner can act on. Pure data and functions (tested in test/unit).

import { ms as msText } from "./format.js";

export const VERDICT_HELP = {
  AC: "Every test matched the reference.",
  WA: "At least one output differs from the reference by more than the tolerance. The table shows the first elements that differ.",
  CE: "The directives or the compiler rejected the source. The errors are marked in the editor at their line and column.",
  RE: "A CUDA error stopped the kernel while it ran.",
  TLE: "The plan did not finish within the time limit.",
  MV: "A kernel wrote outside a buffer: the judge surrounds every buffer with guard bands and found one changed.",
  IM: "A kernel changed an input buffer. Inputs are read-only: write only to outputs and @scratch buffers.",
  JE: "The judge failed, not your code. It was tried again before giving up; an admin has been told.",
  NJ: "Compiled, but not run: no GPU worker has taken it yet.",
};

/* CUDA errors the judge reports, with what they usually mean. The judge adds
 * its own hint for the common ones; these cover the rest and are shown when
 * it has none. */
export const CUDA_ERRORS = {
  CUDA_ERROR_ILLEGAL_ADDRESS:
    "A thread read or wrote memory outside every buffer. Usually an index past the end: a missing tail check such as `if (i < n)`, an index computed in 32 bits that overflowed, or a wrong stride.",
  CUDA_ERROR_MISALIGNED_ADDRESS:
    "A vector access (float4, int2, ...) at an address not aligned to its size. Vectorize only from aligned offsets and handle the rest one element at a time.",
  CUDA_ERROR_ASSERT: "A device-side assert() failed.",
  CUDA_ERROR_ILLEGAL_INSTRUCTION: "The kernel executed an illegal instruction or called __trap().",
  CUDA_ERROR_LAUNCH_FAILED: "The kernel stopped with an exception: often __trap() or a bad pointer.",
  CUDA_ERROR_HARDWARE_STACK_ERROR: "Stack overflow: deep recursion or very large local arrays.",
  CUDA_ERROR_INVALID_PC: "The kernel jumped to an invalid address (a corrupted stack or function pointer).",
  CUDA_ERROR_OUT_OF_RESOURCES:
    "The block needs more registers or shared memory than a multiprocessor has. Use fewer threads per block, __launch_bounds__ or less shared memory.",
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    "The block needs more registers than a multiprocessor has for this many threads. Use fewer threads per block or __launch_bounds__.",
  CUDA_ERROR_INVALID_VALUE:
    "The launch configuration is invalid on this GPU: more than 1024 threads per block, a grid dimension of 0 or over the limit, or too much dynamic shared memory.",
  CUDA_ERROR_LAUNCH_TIMEOUT: "The kernel ran for too long and was stopped.",
  CUDA_ERROR_NOT_FOUND: "A kernel named in a @launch directive is not in the compiled code: declare it extern \"C\" __global__.",
};

export function cudaHelp(error, judgeHint) {
  if (judgeHint) return judgeHint;
  return CUDA_ERRORS[error] || "";
}

/* What went wrong in one failed test, from its `detail` (judge/worker/judge.c):
 * {title, text, hint} for the kinds other than "mismatch" (that one gets a
 * table of its own). */
export function failureText(test) {
  const d = test.detail || {};
  switch (d.kind) {
    case "cuda_error":
    case "launch_error":
      return {
        title: (d.error || "CUDA error") + (d.kernel ? ` in kernel ${d.kernel}` : ""),
        text:
          (d.kind === "launch_error" ? "The launch was refused. " : "") +
          (d.message && d.message !== d.error ? d.message : ""),
        hint: cudaHelp(d.error, d.hint),
      };
    case "guard":
      return {
        title: `Wrote ${d.where === "before" ? "before the start" : "past the end"} of ${d.buffer}`,
        text: `The first changed guard byte is ${Math.abs(d.offset)} bytes ${d.where === "before" ? "before the start of" : "after the start of"} ${d.buffer}.`,
        hint: d.hint || "An index past the end of a buffer: check the tail (if (i < n)) of every access.",
      };
    case "input_modified":
      return { title: `The input ${d.buffer} was changed`, text: "", hint: d.hint || VERDICT_HELP.IM };
    case "timeout":
      return {
        title: `Did not finish within ${d.limit_ms} ms`,
        text: "",
        hint: d.hint || "A loop that never ends (check its bounds and exit condition) or far too much work.",
      };
    case "plan":
      return {
        title: "The launch plan could not be built for this test",
        text: d.message || "",
        hint: "An expression in a directive failed for these sizes (a division by zero, an overflow, a grid of 0 blocks).",
      };
    case "arg_mismatch":
      return { title: "A kernel's parameters do not match its args=()", text: d.message || "", hint: "" };
    default:
      return { title: test.message || verdictWord(test.verdict), text: "", hint: "" };
  }
}

function verdictWord(v) {
  return v || "failed";
}

/* "error" / "warning" / "info" from a diagnostic's message. */
export function severity(message) {
  const m = /^\s*(error|warning|remark|note)\b/i.exec(message || "");
  if (!m) return "error";
  const w = m[1].toLowerCase();
  return w === "error" ? "error" : w === "warning" ? "warning" : "info";
}

/* ---- learning goals (judge/worker/goals.h): reported beside the verdict ---- */

export const GOAL_STATUS = {
  passed: { mark: "met", badge: "AC" },
  failed: { mark: "not met", badge: "WA" },
  skipped: { mark: "not checked here", badge: "NJ" },
};

const KIND_TEXT = {
  autotune: "autotuning",
  rebuild: "rebuild and compare",
  sass: "machine code",
  bandwidth: "bandwidth",
  compare: "shapes compared",
  roofline: "speed of light",
};

/* "2 of 3 learning goals met" (", 1 not checked here"). */
export function goalSummary(goals) {
  const met = goals.filter((g) => g.status === "passed").length;
  const skipped = goals.filter((g) => g.status === "skipped").length;
  return `${met} of ${goals.length} learning goal${goals.length === 1 ? "" : "s"} met` + (skipped ? `, ${skipped} not checked here` : "");
}

export function goalKind(kind) {
  return KIND_TEXT[kind] || kind;
}

const on = (shapes) => (shapes && shapes.length ? ` on ${shapes.join(", ")}` : " on every benchmark shape");
const times = (x) => `${Number(x).toFixed(2).replace(/\.?0+$/, "")}×`;

/* What a goal asks for, in words, from the problem's own statement of it
 * (GET /api/problems/{id} "goals"): shown before anything is submitted. */
export function goalRequirement(g) {
  switch (g.kind) {
    case "autotune":
      return (
        `At least ${g.min_configs} \`@tune\` configurations, every one correct; the fastest is kept per shape` +
        (g.min_gain ? ` and must beat the best single configuration by ${times(g.min_gain)}.` : " and the gain is reported.")
      );
    case "rebuild": {
      const defs = Object.entries(g.const || {}).map(([k, v]) => `\`${k}=${v}\``).join(", ");
      return `At least ${times(g.min_speedup)} faster than the same kernel rebuilt with ${defs}${on(g.shapes)}.`;
    }
    case "sass":
      return `The machine code has ${(g.require || []).map((r) => `\`${r}\``).join(" and ")}` + (g.kernels ? ` in ${g.kernels.join(", ")}.` : ".");
    case "bandwidth":
      return `At least ${g.min_pct}% of the copy bandwidth measured on the GPU, counting \`${g.bytes}\` bytes per run${on(g.shapes)}.`;
    case "compare":
      return (g.pairs || []).map((q) => `${q.shape} at least ${times(g.min_speedup)} faster than ${q.baseline}`).join("; ") + ".";
    case "roofline":
      return `At least ${g.min_pct}% of speed of light${on(g.shapes)}.`;
    default:
      return "";
  }
}

const num = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "–");

/* The figures behind one goal, one line each (per shape, pair or pattern). */
export function goalFigures(g) {
  switch (g.kind) {
    case "autotune":
      return (g.shapes || []).map((s) => `${s.shape}: best ${s.best} ${msText(s.best_ms)}, worst ${s.worst} ${msText(s.worst_ms)} (${num(s.gain)}×)`);
    case "rebuild":
      return (g.shapes || []).map((s) => `${s.shape}: ${msText(s.submitted_ms)}, rebuilt ${msText(s.rebuilt_ms)}: speedup ${num(s.speedup)}×`);
    case "bandwidth":
      return (g.shapes || []).map((s) => `${s.shape}: ${msText(s.median_ms)}, ${Math.round(s.gbps)} GB/s: ${num(s.pct, 1)}% of copy`);
    case "compare":
      return (g.pairs || []).map((p) => `${p.shape} ${msText(p.shape_ms)} vs ${p.baseline} ${msText(p.baseline_ms)}: ${num(p.speedup)}×`);
    case "roofline":
      return (g.shapes || []).map((s) => `${s.shape}: ${num(s.sol_pct, 1)}% of the speed of light`);
    case "sass":
      return (g.require || []).map((r) => `${r.pattern}: ${r.count} instruction${r.count === 1 ? "" : "s"}`);
    default:
      return [];
  }
}

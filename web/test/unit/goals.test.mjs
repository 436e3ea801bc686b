import { test } from "node:test";
import assert from "node:assert/strict";
import { GOAL_STATUS, goalFigures, goalKind, goalRequirement, goalSummary } from "../../src/explain.js";

/* Outcomes as judge_result_json writes them (judge/worker/goals.c). */
const goals = [
  {
    name: "vectorized", kind: "sass", status: "passed", passed: true,
    detail: "found LDG.E.128 (2), STG.E.128 (1)",
    require: [{ pattern: "LDG.E.128", count: 2 }, { pattern: "STG.E.128", count: 1 }], configs: [""],
  },
  {
    name: "split-k", kind: "rebuild", status: "failed", passed: false,
    detail: "speedup 1.20x on 256x256x524288 over the same kernel built with SPLIT_K=1 (3.00x required)",
    const: { SPLIT_K: 1 }, min_speedup: 3,
    shapes: [{ shape: "256x256x524288", config: "", submitted_ms: 0.41, rebuilt_ms: 0.492, speedup: 1.2 }],
  },
  {
    name: "bandwidth", kind: "bandwidth", status: "skipped", passed: false,
    detail: "this worker has not measured its copy bandwidth (run `judged calibrate`)",
    bytes: "6*N", min_pct: 90, copy_gbps: 0, shapes: [],
  },
];

test("the summary counts what was met and what could not be checked", () => {
  assert.equal(goalSummary(goals), "1 of 3 learning goals met, 1 not checked here");
  assert.equal(goalSummary([goals[0]]), "1 of 1 learning goal met");
  assert.equal(GOAL_STATUS.failed.mark, "not met");
  assert.equal(GOAL_STATUS.skipped.badge, "NJ");
  assert.equal(goalKind("sass"), "machine code");
  assert.equal(goalKind("new-kind"), "new-kind");
});

test("each kind's figures, one line each", () => {
  assert.deepEqual(goalFigures(goals[0]), ["LDG.E.128: 2 instructions", "STG.E.128: 1 instruction"]);
  assert.deepEqual(goalFigures(goals[1]), ["256x256x524288: 0.410 ms, rebuilt 0.492 ms: speedup 1.20×"]);
  assert.deepEqual(goalFigures(goals[2]), []);
  assert.deepEqual(
    goalFigures({ kind: "bandwidth", shapes: [{ shape: "2^28", median_ms: 0.75, gbps: 4295.1, pct: 99.88 }] }),
    ["2^28: 0.750 ms, 4295 GB/s: 99.9% of copy"],
  );
  assert.deepEqual(
    goalFigures({ kind: "compare", pairs: [{ shape: "a", baseline: "b", shape_ms: 1, baseline_ms: 2, speedup: 2 }] }),
    ["a 1.00 ms vs b 2.00 ms: 2.00×"],
  );
  assert.deepEqual(goalFigures({ kind: "roofline", shapes: [{ shape: "8192^3", sol_pct: 61.25 }] }), ["8192^3: 61.3% of the speed of light"]);
  assert.deepEqual(
    goalFigures({ kind: "autotune", shapes: [{ shape: "4096^3", best: "BM=128", best_ms: 0.2, worst: "BM=64", worst_ms: 0.3, gain: 1.5 }] }),
    ["4096^3: best BM=128 0.200 ms, worst BM=64 0.300 ms (1.50×)"],
  );
});

/* Goals as GET /api/problems/{id} states them (server/problems.c goal_json). */
test("each kind's requirement in words, before anything is submitted", () => {
  assert.equal(goalRequirement({ kind: "autotune", min_configs: 4 }), "At least 4 `@tune` configurations, every one correct; the fastest is kept per shape and the gain is reported.");
  assert.equal(goalRequirement({ kind: "autotune", min_configs: 2, min_gain: 1.1 }), "At least 2 `@tune` configurations, every one correct; the fastest is kept per shape and must beat the best single configuration by 1.1×.");
  assert.equal(
    goalRequirement({ kind: "rebuild", const: { SPLIT_K: 1 }, min_speedup: 3, shapes: ["256x256x524288"] }),
    "At least 3× faster than the same kernel rebuilt with `SPLIT_K=1` on 256x256x524288.",
  );
  assert.equal(goalRequirement({ kind: "sass", require: ["LDG.E.128", "STG.E.128"] }), "The machine code has `LDG.E.128` and `STG.E.128`.");
  assert.equal(
    goalRequirement({ kind: "bandwidth", bytes: "12*M*N", min_pct: 80, shapes: null }),
    "At least 80% of the copy bandwidth measured on the GPU, counting `12*M*N` bytes per run on every benchmark shape.",
  );
  assert.equal(
    goalRequirement({ kind: "compare", min_speedup: 1.03, pairs: [{ shape: "A GROUP_M=8", baseline: "A GROUP_M=1" }, { shape: "B GROUP_M=8", baseline: "B GROUP_M=1" }] }),
    "A GROUP_M=8 at least 1.03× faster than A GROUP_M=1; B GROUP_M=8 at least 1.03× faster than B GROUP_M=1.",
  );
  assert.equal(goalRequirement({ kind: "roofline", min_pct: 32, shapes: ["16384x16384x256"] }), "At least 32% of speed of light on 16384x16384x256.");
  assert.equal(goalRequirement({ kind: "new-kind" }), "");
});

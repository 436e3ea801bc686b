import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { bytesText, launchName, launchShape, limiterText, occupancyText, PROFILE_BARS, timeShares } from "../../src/profile.js";
import { modeTitle } from "../../src/format.js";

/* The profile the server's tests post (tests/fixtures/profile/profile.json, the contract's shape). */
const profile = JSON.parse(fs.readFileSync(new URL("../../../tests/fixtures/profile/profile.json", import.meta.url), "utf8"));
const [main, tail] = profile.kernels;

test("each launch is named by its kernel and its index in the plan, with its shape", () => {
  assert.equal(launchName(main), "vector_add #0");
  assert.equal(launchShape(main), "1,048,576 blocks × 256 threads");
  assert.equal(launchShape(tail), "1 block × 32 threads");
  assert.equal(launchShape({ kernel: "k", launch: 0 }), "");
});

test("the bytes a launch moved, against the problem's model", () => {
  assert.equal(bytesText(main), "3.00 GiB of DRAM traffic, 1.00× the problem's model (3.00 GiB)");
  assert.equal(bytesText(tail), "1.50 KiB of DRAM traffic (no bytes model for this launch)");
  assert.equal(bytesText({ dram_bytes: null }), "DRAM traffic not measured");
  assert.equal(bytesText({ dram_bytes: 2048, model_bytes: 1024 }), "2.00 KiB of DRAM traffic, 2.00× the problem's model (1.00 KiB)");
});

test("occupancy, what limits it, and the limiter in words", () => {
  assert.equal(occupancyText(main), "occupancy 78.0% of a possible 100.0%");
  assert.equal(occupancyText(tail), "occupancy 1.5% of a possible 100.0% (limited by blocks per SM)");
  assert.equal(occupancyText({ occupancy_achieved_pct: null, occupancy_theoretical_pct: null }), "occupancy – of a possible –");
  assert.equal(limiterText("memory"), "memory-bound");
  assert.equal(limiterText("latency"), "latency-bound");
  assert.equal(limiterText(null), "–");
});

test("each launch's share of the plan's time", () => {
  const s = timeShares(profile.kernels);
  assert.ok(Math.abs(s[0] - 99.6) < 0.05, String(s[0]));
  assert.deepEqual(timeShares([{ duration_ms: null }]), [null]);
});

test("the chart has a bar for every peak the contract names", () => {
  assert.deepEqual(
    PROFILE_BARS.map((b) => b[0]),
    ["dram_pct", "l2_pct", "sm_pct", "fma_pct", "tensor_pct", "occupancy_achieved_pct"],
  );
  for (const [key] of PROFILE_BARS) assert.ok(key in main, key);
});

test("a submission's mode as the pages name it", () => {
  assert.equal(modeTitle("run"), "Run");
  assert.equal(modeTitle("submit"), "Submit");
  assert.equal(modeTitle("profile"), "Profile");
});

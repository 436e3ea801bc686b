import { test } from "node:test";
import assert from "node:assert/strict";
import * as f from "../../src/format.js";

test("significant digits and units", () => {
  assert.equal(f.sig(0.71234), "0.712");
  assert.equal(f.sig(12.345), "12.3");
  assert.equal(f.sig(4200), "4,200");
  assert.equal(f.sig(0), "0");
  assert.equal(f.sig(NaN), "–");
  assert.equal(f.ms(0.8), "0.800 ms");
  assert.equal(f.ms(0.05), "50.0 µs");
  assert.equal(f.ms(1250), "1.25 s");
  assert.equal(f.gbps(812.4), "812 GB/s");
  assert.equal(f.gbps(4200), "4.20 TB/s");
  assert.equal(f.tflops(0.29), "290 GFLOP/s");
  assert.equal(f.tflops(61.2), "61.2 TFLOP/s");
  assert.equal(f.pct(79.68), "79.7%");
  assert.equal(f.bytes(49152), "48.0 KiB");
  assert.equal(f.bytes(0), "0 B");
});

test("quotas say what is left, and over what window", () => {
  assert.equal(f.quotaLeft("Run", { remaining: 115, limit: 120, window_seconds: 3600 }), "115 Runs left this hour");
  assert.equal(f.quotaLeft("Submit", { remaining: 1, limit: 30, window_seconds: 3600 }), "1 Submit left this hour");
  assert.equal(f.quotaLeft("Submit", { remaining: 0, limit: 30, window_seconds: 3600 }), "0 Submits left this hour");
  assert.equal(f.quotaLeft("Run", { remaining: 3, limit: 10, window_seconds: 86400 }), "3 Runs left these 24 h");
  assert.equal(f.quotaLeft("Run", { remaining: 3, limit: 10, window_seconds: 1800 }), "3 Runs left these 30 min");
});

test("durations and ages", () => {
  assert.equal(f.duration(45), "45 s");
  assert.equal(f.duration(720), "12 min");
  assert.equal(f.duration(7500), "2 h 5 min");
  assert.equal(f.ago(1000, 1002), "just now");
  assert.equal(f.ago(1000, 1042), "42 s ago");
  assert.equal(f.ago(1000, 1000 + 3 * 3600), "3 h ago");
  assert.equal(f.ago(1000, 1000 + 86400), "1 day ago");
  assert.equal(f.ago(0), "never");
});

test("test sizes from case names", () => {
  assert.deepEqual(f.testSizes("N=127"), { group: "", sizes: [{ name: "N", value: "127" }] });
  assert.deepEqual(f.testSizes("ladder M=7,N=33"), {
    group: "ladder",
    sizes: [
      { name: "M", value: "7" },
      { name: "N", value: "33" },
    ],
  });
  assert.deepEqual(f.testSizes("edge rows"), { group: "edge rows", sizes: [] });
  assert.deepEqual(f.testSizes(""), { group: "", sizes: [] });
});

test("values and indices as the judge reports them", () => {
  assert.equal(f.value("nan"), "nan");
  assert.equal(f.value(-401.25), "-401.25");
  assert.equal(f.value(1e-7), "1.000000e-7");
  assert.equal(f.value(3), "3");
  assert.equal(f.value(0.1 + 0.2), "0.3");
  assert.equal(f.index([3, 17], 401), "[3, 17]");
  assert.equal(f.index([], 42), "[42]");
  assert.equal(f.verdictName("MV"), "Memory Violation");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { cudaHelp, failureText, severity, VERDICT_HELP } from "../../src/explain.js";
import { VERDICT_NAMES } from "../../src/format.js";

test("every verdict has a name and a meaning", () => {
  for (const v of ["AC", "WA", "CE", "RE", "TLE", "MV", "IM", "JE", "NJ"]) {
    assert.ok(VERDICT_NAMES[v], v);
    assert.ok(VERDICT_HELP[v], v);
  }
});

test("runtime errors: the judge's hint first, ours otherwise", () => {
  assert.equal(cudaHelp("CUDA_ERROR_ILLEGAL_ADDRESS", "the judge says"), "the judge says");
  assert.match(cudaHelp("CUDA_ERROR_ILLEGAL_ADDRESS", undefined), /index past the end/);
  assert.equal(cudaHelp("CUDA_ERROR_SOMETHING_NEW"), "");
  const t = failureText({ verdict: "RE", detail: { kind: "cuda_error", error: "CUDA_ERROR_MISALIGNED_ADDRESS", kernel: "k" } });
  assert.equal(t.title, "CUDA_ERROR_MISALIGNED_ADDRESS in kernel k");
  assert.match(t.hint, /aligned/);
});

test("guard bands, timeouts, modified inputs", () => {
  assert.match(failureText({ detail: { kind: "guard", buffer: "C", where: "after", offset: 4 } }).title, /past the end of C/);
  assert.match(failureText({ detail: { kind: "guard", buffer: "C", where: "before", offset: -4 } }).text, /4 bytes before/);
  assert.match(failureText({ detail: { kind: "timeout", limit_ms: 2000 } }).title, /2000 ms/);
  assert.match(failureText({ detail: { kind: "input_modified", buffer: "A" } }).title, /input A/);
  assert.equal(failureText({ verdict: "WA", message: "3 elements of C differ" }).title, "3 elements of C differ");
});

test("diagnostic severity from the message", () => {
  assert.equal(severity('error: expected a ";"'), "error");
  assert.equal(severity("warning: variable declared but never referenced"), "warning");
  assert.equal(severity("expected ')' to close grid=("), "error");
  assert.equal(severity("note: see declaration"), "info");
});

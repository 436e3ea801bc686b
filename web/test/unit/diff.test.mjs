import { test } from "node:test";
import assert from "node:assert/strict";
import { diffLines, hunks, diffStats } from "../../src/diff.js";

/* Applying the script to `a` must give `b`, and the line numbers must follow. */
function check(a, b) {
  const e = diffLines(a, b);
  const fromA = e.filter((x) => x.op !== "add").map((x) => x.text);
  const toB = e.filter((x) => x.op !== "del").map((x) => x.text);
  assert.deepEqual(fromA, a);
  assert.deepEqual(toB, b);
  let ia = 0,
    ib = 0;
  for (const x of e) {
    if (x.op !== "add") assert.equal(x.a, ++ia);
    if (x.op !== "del") assert.equal(x.b, ++ib);
  }
  return e;
}

test("identical, empty and disjoint inputs", () => {
  assert.equal(diffStats(check(["a", "b"], ["a", "b"])).add, 0);
  check([], []);
  assert.deepEqual(diffStats(check([], ["x", "y"])), { add: 2, del: 0 });
  assert.deepEqual(diffStats(check(["x"], [])), { add: 0, del: 1 });
  assert.deepEqual(diffStats(check(["a", "b"], ["c", "d"])), { add: 2, del: 2 });
});

test("a minimal script for a classic example", () => {
  const a = "ABCABBA".split(""),
    b = "CBABAC".split("");
  const e = check(a, b);
  const s = diffStats(e);
  assert.equal(s.add + s.del, 5); /* the edit distance of Myers' paper */
});

test("one changed line in a long file", () => {
  const a = Array.from({ length: 500 }, (_, i) => "line " + i);
  const b = a.slice();
  b[250] = "changed";
  const e = check(a, b);
  assert.deepEqual(diffStats(e), { add: 1, del: 1 });
  const hs = hunks(e, 3);
  assert.equal(hs[0].op, "skip");
  assert.equal(hs[0].count, 247);
  assert.equal(hs.filter((x) => x.op !== "skip").length, 8);
  assert.equal(hs[hs.length - 1].count, 246);
});

test("random edits round-trip", () => {
  let seed = 7;
  const rnd = (n) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
  for (let t = 0; t < 200; t++) {
    const a = Array.from({ length: rnd(30) }, () => "x" + rnd(6));
    const b = Array.from({ length: rnd(30) }, () => "x" + rnd(6));
    check(a, b);
  }
});

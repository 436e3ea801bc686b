import { test } from "node:test";
import assert from "node:assert/strict";
import { Text } from "@codemirror/state";
import { byteColumnToOffset, toCmDiagnostics } from "../../src/editor.js";
import { parseCsv } from "../../src/pages/teach.js";

test("the gradebook's CSV (RFC 4180 quoting, CRLF)", () => {
  const rows = parseCsv('user,problem,solved\r\nalice,vector-add,yes\r\n"o""brien, jr",softmax,no\r\n');
  assert.deepEqual(rows, [
    ["user", "problem", "solved"],
    ["alice", "vector-add", "yes"],
    ['o"brien, jr', "softmax", "no"],
  ]);
  assert.deepEqual(parseCsv('a,"multi\nline"'), [["a", "multi\nline"]]);
});

test("byte columns to character offsets", () => {
  assert.equal(byteColumnToOffset("abc", 1), 0);
  assert.equal(byteColumnToOffset("abc", 3), 2);
  assert.equal(byteColumnToOffset("\tx", 2), 1); /* a tab is one column */
  assert.equal(byteColumnToOffset("é = x", 4), 2); /* é is 2 bytes */
  assert.equal(byteColumnToOffset("😀x", 5), 2); /* 4 bytes, 2 UTF-16 units */
  assert.equal(byteColumnToOffset("ab", 99), 2);
});

test("judge diagnostics become editor diagnostics at line and column", () => {
  const doc = Text.of(["// @launch k grid=(1) block=(1) args=()", "int x = y;", ""]);
  const d = toCmDiagnostics(doc, [
    { line: 2, column: 9, message: 'error: identifier "y" is undefined' },
    { line: 0, column: 0, message: "no @launch directive" },
    { line: 1, column: 3, message: "warning: something" },
  ]);
  const line2 = doc.line(2).from;
  assert.equal(d[0].from, line2 + 8);
  assert.equal(d[0].to, line2 + 9); /* the identifier */
  assert.equal(d[0].severity, "error");
  assert.match(d[0].message, /^2:9: /);
  assert.equal(d[1].from, 0); /* the whole file: line 1 */
  assert.match(d[1].message, /whole file/);
  assert.equal(d[2].severity, "warning");
  const past = toCmDiagnostics(doc, [{ line: 40, column: 1, message: "error: past the end" }]);
  assert.equal(past[0].from, doc.line(doc.lines).from); /* clamped to the last line */
});

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createWorkerCommand, judgedCommand } from "../../src/gpuhelp.js";
import { cancelText } from "../../src/results.js";

/* The page's "how an admin adds a GPU worker" is README's, with CONFIG for the
 * configuration file and this server's address in judged's line. */
test("the add-a-GPU-worker commands are README's", () => {
  const readme = fs.readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const mk = readme.split("\n").find((l) => l.includes(" create-worker gpu0 "));
  const jd = readme.split("\n").find((l) => l.startsWith("build/bin/judged --server "));
  assert.ok(mk && jd, "README has both lines");
  assert.equal(createWorkerCommand(), mk.replace("deploy/blockwise.conf", "CONFIG").trim());
  assert.equal(judgedCommand("https://judge.example"), jd.trim());
  assert.equal(judgedCommand("http://127.0.0.1:8080"), "build/bin/judged --server http://127.0.0.1:8080 --token-file /etc/blockwise/gpu0.token --gpu 0");
});

test("a cancellation says who, and from where", () => {
  const at = Math.floor(Date.now() / 1000) - 120;
  assert.equal(cancelText({ cancelled: { by: "alice", at, from: "waiting_for_gpu" } }), "Cancelled by alice 2 min ago while it waited for a GPU. It will not be judged.");
  assert.match(cancelText({ cancelled: { by: "admin", at, from: "judging" } }), /^Cancelled by admin .* while a worker was judging it\./);
  assert.match(cancelText({ cancelled: { by: "bob", at, from: "queued" } }), /while it was queued\./);
  assert.equal(cancelText({}), "Cancelled. It will not be judged.");
});

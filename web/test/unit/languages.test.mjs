import { test } from "node:test";
import assert from "node:assert/strict";
import { draftKey, dropDraft, loadDraft, loadLanguage, saveDraft, saveLanguage } from "../../src/drafts.js";
import { DIRECTIVE_LINE } from "../../src/editor.js";
import { TRITON_CHECK } from "../../src/gpuhelp.js";
import { languageTitle, offeredIn, problemLanguages } from "../../src/languages.js";
import { boardTitle } from "../../src/pages/leaderboard.js";
import { signatureRows, solveSignature } from "../../src/pages/problem.js";
import { workerLanguages } from "../../src/pages/admin.js";
import { noWorkerFor, noWorkerText } from "../../src/results.js";

/* A stand-in for the browser's localStorage. */
function fakeStorage() {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
    keys: () => [...m.keys()],
  };
}

test("a draft per user, problem and language; CUDA keeps the key drafts had before Triton", () => {
  globalThis.localStorage = fakeStorage();
  assert.equal(draftKey("alice", "vector-add"), "bw:draft:alice:vector-add");
  assert.equal(draftKey("alice", "vector-add", "cuda"), "bw:draft:alice:vector-add");
  assert.equal(draftKey("alice", "vector-add", "triton"), "bw:draft:alice:vector-add:triton");
  assert.equal(draftKey(null, "relu", "triton"), "bw:draft:-:relu:triton");
  localStorage.setItem("bw:draft:alice:vector-add", JSON.stringify({ text: "// an old CUDA draft" }));
  assert.equal(loadDraft("alice", "vector-add", "cuda").text, "// an old CUDA draft");
  assert.equal(loadDraft("alice", "vector-add", "triton"), null);
  assert.ok(saveDraft("alice", "vector-add", "# @launch k", "triton"));
  assert.equal(loadDraft("alice", "vector-add", "triton").text, "# @launch k");
  assert.equal(loadDraft("alice", "vector-add").text, "// an old CUDA draft"); /* untouched */
  assert.equal(loadDraft("bob", "vector-add", "triton"), null); /* per user */
  dropDraft("alice", "vector-add", "triton");
  assert.equal(loadDraft("alice", "vector-add", "triton"), null);
  assert.equal(loadDraft("alice", "vector-add", "cuda").text, "// an old CUDA draft");
  delete globalThis.localStorage;
});

test("the language chosen is remembered per user and problem, among those offered", () => {
  globalThis.localStorage = fakeStorage();
  assert.equal(loadLanguage("alice", "relu", ["cuda", "triton"]), "cuda"); /* nothing chosen: CUDA */
  saveLanguage("alice", "relu", "triton");
  assert.equal(loadLanguage("alice", "relu", ["cuda", "triton"]), "triton");
  assert.equal(loadLanguage("alice", "gelu", ["cuda", "triton"]), "cuda"); /* per problem */
  assert.equal(loadLanguage("bob", "relu", ["cuda", "triton"]), "cuda"); /* per user */
  assert.equal(loadLanguage("alice", "relu", ["cuda"]), "cuda"); /* Triton no longer offered */
  delete globalThis.localStorage;
  assert.equal(loadLanguage("alice", "relu", ["cuda", "triton"]), "cuda"); /* no storage at all */
});

test("directive lines: // in CUDA, # in Triton (no @flags there)", () => {
  const re = (l) => new RegExp(DIRECTIVE_LINE[l].source, "m");
  assert.ok(re("cuda").test("// @launch k grid=(1) block=(1) args=()"));
  assert.ok(!re("cuda").test("# @launch k grid=(1) args=()"));
  for (const line of ["# @launch add grid=(1) args=(A)", "#@tune BLOCK=(1, 2)", "   # @const BLOCK=8", "# @scratch t fp32[N]"])
    assert.ok(re("triton").test(line), line);
  assert.ok(!re("triton").test("x = 1  # @launch k"), "code before the # makes it an ordinary comment");
  assert.ok(!re("triton").test("# @flags --use_fast_math"));
  assert.ok(!re("triton").test("// @launch k"));
});

test("languages as pages name them", () => {
  assert.equal(languageTitle("triton"), "Triton");
  assert.equal(languageTitle("cuda"), "CUDA");
  assert.deepEqual(problemLanguages({ id: "x" }), ["cuda"]); /* a server from before Triton */
  assert.deepEqual(problemLanguages({ languages: ["cuda", "triton"] }), ["cuda", "triton"]);
  assert.deepEqual(problemLanguages({ problem: { languages: ["cuda", "triton"] } }), ["cuda", "triton"]);
  assert.equal(offeredIn(["cuda", "triton"]), "in CUDA or Triton");
  assert.equal(offeredIn(["cuda"]), "in CUDA");
  assert.equal(boardTitle({ gpu: "NVIDIA H200", language: "triton" }), "NVIDIA H200 · Triton");
  assert.equal(boardTitle({ gpu: "NVIDIA H200" }), "NVIDIA H200 · CUDA");
  assert.equal(workerLanguages({ languages: [{ name: "cuda", version: "13.0" }, { name: "triton", version: "3.6.0" }] }), "CUDA 13.0 · Triton 3.6.0");
  assert.equal(workerLanguages({ languages: [{ name: "cuda", version: "" }] }), "CUDA");
  assert.equal(workerLanguages({}), "—");
  assert.match(TRITON_CHECK, /import triton/);
});

test("the signature in each language, from the server's signatures", () => {
  const p = {
    tensors: [{ name: "A", c_type: "const float*", shape: ["N"], role: "in" }],
    sizes: ["N"],
    scalars: [],
    signatures: {
      cuda: [
        { name: "A", kind: "tensor", type: "const float*", shape: ["N"], role: "in" },
        { name: "C", kind: "tensor", type: "float*", shape: ["N"], role: "out" },
        { name: "N", kind: "size", type: "long long" },
        { name: "eps", kind: "scalar", type: "float", default: 0.5 },
      ],
      triton: [
        { name: "A", kind: "tensor", type: "*fp32", shape: ["N"], role: "in" },
        { name: "C", kind: "tensor", type: "*fp32", shape: ["N"], role: "out" },
        { name: "N", kind: "size", type: "i32 or i64" },
        { name: "eps", kind: "scalar", type: "fp32", default: 0.5 },
      ],
    },
  };
  assert.deepEqual(
    signatureRows(p, "triton").map((r) => [r.name, r.type, r.shape, r.role]),
    [
      ["A", "*fp32", "[N]", "input"],
      ["C", "*fp32", "[N]", "output"],
      ["N", "i32 or i64", "—", "size"],
      ["eps", "fp32", "—", "scalar (default 0.5)"],
    ],
  );
  assert.equal(signatureRows(p, "cuda")[0].type, "const float*");
  delete p.signatures; /* a server from before Triton: CUDA's from tensors and sizes */
  assert.deepEqual(signatureRows(p, "cuda").map((r) => r.type), ["const float*", "long long"]);
});

test("a Triton job with no Triton worker connected is told so; CUDA never is", () => {
  const none = { workers: { alive: 1, gpu: 0, languages: { cuda: { alive: 1, gpu: 0 }, triton: { alive: 0, gpu: 0 } } } };
  const one = { workers: { alive: 2, gpu: 1, languages: { cuda: { alive: 2, gpu: 1 }, triton: { alive: 1, gpu: 1 } } } };
  assert.equal(noWorkerFor(none, "triton"), true);
  assert.equal(noWorkerFor(one, "triton"), false);
  assert.equal(noWorkerFor(none, "cuda"), false); /* the no-worker banners cover CUDA */
  assert.equal(noWorkerFor(null, "triton"), false); /* status unknown: say nothing */
  assert.equal(noWorkerFor({ workers: { alive: 1, gpu: 1 } }, "triton"), false); /* an older server */
  assert.equal(
    noWorkerText("triton", 3),
    "Queued (position 3), but no worker here can compile Triton: it waits until an admin adds one, and is judged then, in the order it was submitted.",
  );
});

test("a Triton launcher's signature: tensors, then scalars, then sizes", () => {
  const p = {
    tensors: [{ name: "X" }, { name: "W" }, { name: "Y" }],
    scalars: [{ name: "alpha" }],
    sizes: ["M", "N"],
  };
  assert.equal(solveSignature(p), "def solve(X, W, Y, alpha, M, N):");
});

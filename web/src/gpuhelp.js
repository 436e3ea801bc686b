// gpuhelp.js - how an admin connects a GPU worker to this server: the two
// command lines of README.md ("Running a judge for a class"), with this
// server's own address in judged's. Shown by the no-GPU banner (main.js) and
// on the admin page while no GPU worker is connected. And how an admin adds a
// worker that compiles Triton (docs/operations.md, "Languages"): the same two
// lines, on a machine whose Python has Triton.
import { h } from "./dom.js";

export const TOKEN_FILE = "/etc/blockwise/gpu0.token";

export function createWorkerCommand() {
  return `build/bin/blockwise-server -c CONFIG create-worker gpu0 --token-file ${TOKEN_FILE}`;
}

export function judgedCommand(origin) {
  return `build/bin/judged --server ${origin} --token-file ${TOKEN_FILE} --gpu 0`;
}

/* The steps as elements; `origin` is the address judged reaches this server at. */
export function addGpuWorkerSteps(origin) {
  return [
    h("p", null, "1. On the server's machine, create a worker and its token (shown once, kept in the file):"),
    h("pre", { class: "cmd", dataset: { cmd: "create-worker" } }, h("code", null, createWorkerCommand())),
    h("p", null, "2. Copy the token file to the GPU machine and start one judged per GPU there (", h("code", null, "--gpu 1"), " for the second, and so on):"),
    h("pre", { class: "cmd", dataset: { cmd: "judged" } }, h("code", null, judgedCommand(origin))),
    h(
      "p",
      { class: "muted small" },
      "CONFIG is this server's configuration file (",
      h("code", null, "deploy/blockwise.conf"),
      "; ",
      h("code", null, ".blockwise/blockwise.conf"),
      " under ",
      h("code", null, "make run"),
      "). The worker measures its GPU, registers, and the jobs waiting for a GPU are judged in the order they were submitted. README: Running a judge for a class.",
    ),
  ];
}

/* The Python check of docs/operations.md: what judged's Triton probe needs. */
export const TRITON_CHECK = `python3 -c "import triton; print(triton.__version__)"`;

/* How an admin adds a worker that compiles Triton: as any worker, on a
 * machine where Triton is installed; judged finds it and registers it. */
export function addTritonWorkerSteps(origin) {
  return [
    h("p", null, "A worker compiles Triton when Triton is installed where judged runs: judged finds it at start and registers it with the server (the admin page lists each worker's languages)."),
    h("p", null, "1. On the GPU machine, check that Python has Triton (3.6):"),
    h("pre", { class: "cmd", dataset: { cmd: "triton-check" } }, h("code", null, TRITON_CHECK)),
    h("p", null, "2. On the server's machine, create a worker and its token:"),
    h("pre", { class: "cmd", dataset: { cmd: "create-worker" } }, h("code", null, createWorkerCommand())),
    h("p", null, "3. On the GPU machine, start judged with that token:"),
    h("pre", { class: "cmd", dataset: { cmd: "judged" } }, h("code", null, judgedCommand(origin))),
    h("p", { class: "muted small" }, "A judged already running picks Triton up when it is restarted. docs/operations.md: Languages."),
  ];
}

// results.js - one submission's results, live and final: the stages (queued,
// compiling, tests, timing), every event as it arrives, then the verdict with
// what it means: compile errors (also put in the editor), the failing test
// with its sizes and mismatch table or runtime error, per-kernel resources,
// timings as a table and a chart against the worker GPU's measured limits.
// While it is not finished, its owner (or an admin) can cancel it here.
import { ApiError, cancelSubmission, get, watchSubmission } from "./api.js";
import { solChart } from "./chart.js";
import { h, replace, table } from "./dom.js";
import { failureText, GOAL_STATUS, goalFigures, goalKind, goalSummary, severity, VERDICT_HELP } from "./explain.js";
import * as f from "./format.js";
import { addTritonWorkerSteps } from "./gpuhelp.js";
import { languageTitle, noWorkerFor } from "./languages.js";
import { profileSection } from "./profile.js";

export { noWorkerFor };
import { session } from "./session.js";


/* What a queued job in such a language is told, plainly. */
export function noWorkerText(language, position) {
  const t = languageTitle(language);
  return `Queued${position ? ` (position ${position})` : ""}, but no worker here can compile ${t}: it waits until an admin adds one, and is judged then, in the order it was submitted.`;
}

const BAD = new Set(["WA", "CE", "RE", "TLE", "MV", "IM"]);

/*
 * new ResultView({problem, editor, onDone})
 *   problem: GET /api/problems/{id} (benchmark sizes, peak kind); may be null
 *   editor:  {showDiagnostics, clearDiagnostics, goTo} or null
 *   onDone(submission): called with the full submission once judged (or cancelled)
 *   onFree(summary): called once when the submission no longer needs the
 *            editor held: it compiled and only waits for a GPU worker
 * .el is the view; .follow(summary) watches a submission until done,
 * .showFinal(full) shows a judged or cancelled one; .destroy() stops watching.
 */
export class ResultView {
  constructor(opts) {
    this.problem = opts.problem || null;
    this.editor = opts.editor || null;
    this.onDone = opts.onDone || null;
    this.onFree = opts.onFree || null;
    this.standalone = !!opts.standalone; /* on the submission's own page: no link to it */
    this.stop = null;
    this.offStatus = null;
    this.el = h("section", { class: "results", "aria-label": "Results" });
  }

  destroy() {
    if (this.stop) this.stop();
    this.stop = null;
    if (this.offStatus) this.offStatus();
    this.offStatus = null;
  }

  /* While queued in a language no connected worker compiles: say so, and
   * keep saying it (or stop) as /api/status changes. */
  watchLanguage() {
    const check = () => {
      if (this.final || this.stage !== "queued" || this.waitingGpu) return;
      const none = noWorkerFor(session.status, this.sub.language);
      const shown = this.verdictEl.querySelector("[data-waiting='language']");
      if (none && !shown) {
        this.say(noWorkerText(this.sub.language, this.position));
        this.renderNoWorker();
        this.free(); /* parked, like a job waiting for a GPU: the editor is the learner's again */
      } else if (!none && shown) {
        replace(this.verdictEl);
        this.say(this.position ? `Queued: position ${this.position}.` : "Queued.");
      }
    };
    this.offStatus = session.on(check);
    check();
  }

  renderNoWorker() {
    const t = languageTitle(this.sub.language);
    replace(
      this.verdictEl,
      h(
        "div",
        { class: "verdict-card wait", "data-waiting": "language", dataset: { language: this.sub.language } },
        h("div", { class: "big" }, `Queued — no ${t} worker`),
        h("p", null, `No worker here can compile ${t}. Your ${f.modeTitle(this.sub.mode)} is kept in the queue and judged when an admin adds a worker that can; it does not count against your in-flight limit meanwhile.`),
        h("details", { class: "help", dataset: { help: "add-triton-worker" } }, h("summary", null, `How an admin adds a ${t} worker`), addTritonWorkerSteps(location.origin)),
        h("p", { class: "muted small" }, this.canCancel() ? "Cancel it if you no longer need it; " : "", "its code is kept with the submission (My submissions)."),
      ),
    );
  }

  /* Starts following submission `sub` ({id, mode, state, position}). */
  follow(sub) {
    this.destroy();
    this.final = false;
    this.sub = sub;
    this.tests = [];
    this.benches = [];
    this.kernels = null;
    this.nTests = this.problem ? this.problem.tests : 0;
    this.nEvents = 0;
    this.stage = "queued";
    this.failedStage = null;
    this.waitingGpu = false;
    this.cancelled = false;
    this.finishing = false;
    this.freed = false;
    this.position = sub.position || 0;
    this.build();
    if (sub.waiting_for_gpu) {
      /* compiled earlier by a compile-only worker (GET /api/submissions/{id} says so) */
      this.waitingGpu = true;
      this.setStage("gpu");
      this.say(this.gpuWaitShort(sub.position));
      this.renderWaiting(sub.position);
      this.free();
    } else {
      this.setStage("queued");
      this.say(this.queuedText());
    }
    this.stop = watchSubmission(sub.id, (name, data) => this.handle(name, data));
    this.watchLanguage();
  }

  /* Whether the signed-in user may cancel this submission (the server decides). */
  canCancel() {
    const me = session.user;
    if (!me || this.final) return false;
    return !this.sub.user || this.sub.user === me.name || session.atLeast("admin");
  }

  /* The editor may be used again: the job only waits for a GPU now. */
  free() {
    if (this.freed) return;
    this.freed = true;
    session.load().catch(() => {}); /* the header's in-flight count changed */
    if (this.onFree) this.onFree(this.sub);
  }

  async cancel() {
    const id = this.sub.id;
    if (!confirm(`Cancel ${f.modeTitle(this.sub.mode)} #${id}? It will not be judged; its code stays in your submissions.`)) return;
    if (this.cancelBtn) this.cancelBtn.disabled = true;
    try {
      const r = await cancelSubmission(id);
      if (this.sub.id !== id) return;
      this.cancelled = true;
      this.setStage("done");
      this.say(cancelText(r));
      this.finish(r);
    } catch (e) {
      if (this.sub.id !== id) return;
      if (this.cancelBtn) this.cancelBtn.disabled = false;
      if (e instanceof ApiError && e.code === "finished") {
        this.say(`It could not be cancelled: ${e.message}.`);
        this.finish({});
      } else this.say(`Could not cancel it: ${e.message}`);
    }
  }

  build() {
    const sub = this.sub;
    this.cancelBtn = this.canCancel()
      ? h("button", { class: "danger small", dataset: { action: "cancel" }, title: "Stop this submission: it will not be judged", onclick: () => this.cancel() }, "Cancel")
      : null;
    this.stagesEl = h("ol", { class: "stages", "aria-label": "Stages" });
    this.statusEl = h("p", { class: "status", "aria-live": "polite", "data-status": "" });
    this.testbarEl = h("div", { class: "testbar", "aria-hidden": "true" });
    this.verdictEl = h("div");
    this.bodyEl = h("div");
    this.eventsEl = h("ol", { class: "events", "aria-label": "Events" });
    this.eventsCount = h("span", null, "0");
    this.eventsBox = h("details", { class: "events-box", open: true, hidden: true }, h("summary", null, "Events (", this.eventsCount, ")"), this.eventsEl);
    replace(
      this.el,
      h(
        "div",
        { class: "row" },
        h("h2", { style: "margin: 0" }, `${f.modeTitle(sub.mode)} #${sub.id}`),
        h("span", { class: `lang-tag ${sub.language || "cuda"}`, dataset: { language: sub.language || "cuda" } }, languageTitle(sub.language || "cuda")),
        h("span", { class: "spacer" }),
        this.cancelBtn,
        this.standalone ? null : h("a", { href: `#/s/${sub.id}`, class: "small" }, "Open this submission"),
      ),
      this.stagesEl,
      this.statusEl,
      this.testbarEl,
      this.verdictEl,
      this.bodyEl,
      this.eventsBox,
    );
    this.renderTestbar();
  }

  stageList() {
    const s = [
      ["queued", "Queued"],
      ["compiling", "Compiling"],
    ];
    if (this.waitingGpu) s.push(["gpu", "Waiting for a GPU"]);
    s.push(["tests", "Tests"]);
    if (this.sub.mode === "submit") s.push(["timing", "Timing"]);
    if (this.sub.mode === "profile") s.push(["profiling", "Profiling"]);
    s.push(["done", this.cancelled ? "Cancelled" : "Done"]);
    return s;
  }

  setStage(stage, failed) {
    this.stage = stage;
    if (failed) this.failedStage = stage;
    const order = this.stageList().map((x) => x[0]);
    const at = order.indexOf(stage);
    const failedAt = this.failedStage ? order.indexOf(this.failedStage) : -1;
    replace(
      this.stagesEl,
      this.stageList().map(([k, label], i) => {
        let cls = "";
        if (this.failedStage === k) cls = "failed";
        else if (k === "done" && stage === "done") cls = "done";
        else if (failedAt >= 0 && i > failedAt) cls = ""; /* never reached */
        else if (i < at) cls = "done";
        else if (i === at) cls = "active";
        return h("li", { class: cls, "aria-current": i === at ? "step" : null, dataset: { stage: k } }, label);
      }),
    );
  }

  say(text) {
    this.statusEl.textContent = text;
  }

  logEvent(name, data) {
    this.nEvents++;
    this.eventsBox.hidden = false;
    this.eventsCount.textContent = String(this.nEvents);
    const t = new Date();
    const stamp = t.toTimeString().slice(0, 8);
    const li = h("li", { class: "new", dataset: { event: name } }, `${stamp} ${name} ${brief(name, data)}`);
    this.eventsEl.appendChild(li);
    this.eventsEl.scrollTop = this.eventsEl.scrollHeight;
  }

  handle(name, data) {
    if (name === "connection") {
      if (data.state === "lost") this.say("The connection to the server was lost; reconnecting…");
      else if (data.state === "closed") this.say("The event stream was closed by the server; reload the page to see the result.");
      return;
    }
    this.logEvent(name, data);
    switch (name) {
      case "state":
        if (data.state === "queued" && data.waiting_for_gpu) {
          this.waitingGpu = true;
          this.setStage("gpu");
          this.say(this.gpuWaitShort(data.position));
          this.renderWaiting(data.position);
          this.free();
        } else if (data.state === "queued") {
          this.position = data.position || 0;
          this.setStage("queued");
          this.say(this.queuedText());
        } else if (data.state === "judging") {
          this.setStage("compiling");
          this.say("Being judged…");
        }
        break;
      case "queued":
        this.position = data.position || 0;
        this.setStage(this.waitingGpu ? "gpu" : "queued");
        this.say(this.waitingGpu ? this.gpuWaitShort(data.position) : this.queuedText());
        break;
      case "judging":
        if (this.verdictEl.querySelector("[data-waiting='language']")) replace(this.verdictEl);
        /* After a compile-only worker, a GPU worker compiles again: the
         * page stays at "Waiting for a GPU" until the tests start. */
        this.setStage(this.waitingGpu ? "gpu" : "compiling");
        this.say(`Taken by worker ${data.worker}${data.attempt > 1 ? ` (attempt ${data.attempt})` : ""}.`);
        break;
      case "compiling":
        this.setStage(this.waitingGpu ? "gpu" : "compiling");
        this.say("Compiling…");
        break;
      case "compiled":
        if (data.kernels) this.kernels = data.kernels;
        if (data.ok) {
          this.setStage(this.waitingGpu ? "gpu" : "tests");
          this.say(`Compiled in ${f.ms(data.ms)}.`);
          this.renderLive();
        } else {
          this.setStage("compiling", true);
          this.say("The source does not compile.");
        }
        break;
      case "test": {
        if (this.stage === "gpu") replace(this.verdictEl);
        this.setStage("tests");
        if (data.of) this.nTests = data.of;
        this.tests[data.index] = data;
        const ok = data.verdict === "AC";
        if (!ok) this.setStage("tests", true);
        this.say(`Test ${data.index + 1} of ${data.of}: ${data.name} — ${f.verdictName(data.verdict)}.`);
        this.renderTestbar();
        /* A Profile's tests all passed: the profiler runs next, on one benchmark shape. */
        if (ok && this.sub.mode === "profile" && data.of && data.index + 1 === data.of) {
          this.setStage("profiling");
          this.say(`All ${data.of} tests passed; profiling the kernels on the GPU…`);
        }
        break;
      }
      case "profiling":
        this.setStage("profiling");
        this.say(data.message || "Profiling the kernels on the GPU…");
        break;
      case "bench":
        this.setStage("timing");
        this.benches[data.index] = data;
        this.say(`Timed shape ${data.index + 1} of ${data.of}: ${data.name} in ${f.ms(data.median_ms)} (${f.pct(data.sol_pct)} of the speed of light).`);
        this.renderLive();
        break;
      case "waiting_for_gpu":
        this.waitingGpu = true;
        this.setStage("gpu");
        this.say(this.gpuWaitShort());
        this.renderWaiting();
        this.free();
        break;
      case "requeued":
        this.setStage(this.waitingGpu ? "gpu" : "queued");
        this.say("The worker stopped before finishing; your submission is back in the queue and will be judged again.");
        break;
      case "done":
        if (data.state === "cancelled") {
          this.cancelled = true;
          this.setStage("done");
          this.say(cancelText(data));
        } else {
          this.setStage("done", BAD.has(data.verdict) ? this.failedStageFor(data.verdict) : null);
          this.say(`${f.verdictName(data.verdict)}${data.message ? ": " + data.message : ""}`);
        }
        this.finish(data);
        break;
      default:
        break;
    }
  }

  queuedText() {
    if (noWorkerFor(session.status, this.sub.language)) return noWorkerText(this.sub.language, this.position);
    return this.position ? `Queued: position ${this.position}.` : "Queued.";
  }

  failedStageFor(v) {
    if (v === "CE") return this.failedStage || "compiling";
    return this.failedStage || "tests";
  }

  gpuWaitShort(position) {
    return "Compiled; waiting for a GPU worker" + (position ? ` (position ${position} in the queue).` : ".");
  }

  gpuWaitText(position) {
    const st = session.status;
    const none = st && st.workers && st.workers.gpu === 0;
    return (
      "It compiles. Now waiting for a GPU worker to run the tests" +
      (position ? ` (position ${position} in the queue)` : "") +
      (none
        ? ": this server has no GPU worker connected, so it waits until an admin connects one (the banner at the top says how). It is judged then, in the order it was submitted."
        : ".")
    );
  }

  renderWaiting(position) {
    replace(
      this.verdictEl,
      h(
        "div",
        { class: "verdict-card wait", "data-waiting": "gpu" },
        h("div", { class: "big" }, "Compiled — waiting for a GPU"),
        h("p", null, this.gpuWaitText(position)),
        h(
          "p",
          { class: "muted small" },
          "Keep editing and running meanwhile: a new Run is compiled at once, and jobs waiting for a GPU do not count against your in-flight limit while none is connected. ",
          this.canCancel() ? "Cancel this one if you no longer need it. " : "",
          "The result is kept with the submission (My submissions).",
        ),
      ),
    );
    this.renderLive();
  }

  renderTestbar() {
    const n = this.nTests || 0;
    this.testbarEl.hidden = this.final && !this.tests.some((t) => t && t.verdict && t.verdict !== "NJ");
    const cells = [];
    for (let i = 0; i < n; i++) {
      const t = this.tests[i];
      const cls = !t || t.verdict === "NJ" || !t.verdict ? "" : t.verdict === "AC" ? "AC" : "bad";
      cells.push(h("span", { class: cls, title: t ? `${t.name}: ${t.verdict === "NJ" ? "not run" : f.verdictName(t.verdict)}` : `test ${i + 1}` }));
    }
    replace(this.testbarEl, cells);
  }

  /* What is known before the final result: kernels and timed shapes. */
  renderLive() {
    replace(
      this.bodyEl,
      this.kernels && this.kernels.length ? kernelsSection(this.kernels) : null,
      this.benches.length ? benchSection(this.benches.filter(Boolean), this.problem, null, true) : null,
    );
  }

  async finish(summary) {
    if (this.finishing) return;
    this.finishing = true;
    if (this.cancelBtn) this.cancelBtn.hidden = true;
    let full;
    try {
      full = await get(`/submissions/${this.sub.id}`);
    } catch (e) {
      replace(this.verdictEl, verdictCard(summary, null, this.sub.mode));
      return;
    }
    this.showFinal(full, true);
    session.load().catch(() => {});
    session.refreshStatus();
    if (this.onDone) this.onDone(full);
  }

  /* A judged, cancelled (or still queued) submission, from GET /api/submissions/{id}. */
  showFinal(full, live, opts = {}) {
    this.final = true;
    if (this.offStatus) this.offStatus();
    this.offStatus = null;
    this.cancelled = full.state === "cancelled";
    if (this.cancelBtn) this.cancelBtn.hidden = true;
    if (!live) {
      this.sub = full;
      this.tests = [];
      this.benches = [];
      this.nTests = full.result ? full.result.tests.length : 0;
      this.nEvents = 0;
      this.failedStage = null;
      this.build();
    }
    const r = full.result;
    if (r) {
      this.nTests = r.tests.length;
      r.tests.forEach((t, i) => (this.tests[i] = t));
      this.renderTestbar();
      const v = full.verdict;
      if (v === "CE") this.failedStage = "compiling";
      else if (BAD.has(v)) this.failedStage = "tests";
    }
    const over = full.state === "done" || this.cancelled;
    this.setStage(over ? "done" : this.stage);
    this.say(this.cancelled ? cancelText(full) : full.state === "done" ? `${f.verdictName(full.verdict)}${full.message ? ": " + full.message : ""}` : this.statusEl.textContent);
    replace(this.verdictEl, verdictCard(full, r, full.mode));
    if (!r) return;
    const parts = [];
    if (r.diagnostics && r.diagnostics.length) parts.push(diagnosticsSection(r.diagnostics, this.editor));
    /* Into the editor unless it holds other code now (a result shown again later). */
    if (this.editor && opts.diagnostics !== false) {
      if (r.diagnostics && r.diagnostics.length) this.editor.showDiagnostics(r.diagnostics);
      else this.editor.clearDiagnostics();
    }
    const failed = r.tests.findIndex((t) => t.verdict !== "AC" && t.verdict !== "NJ" && t.verdict !== "");
    if (failed >= 0) parts.push(failureSection(r.tests[failed], failed, r.tests.length));
    /* A Profile's panel comes first under the verdict: it is what was asked for. */
    if (full.mode === "profile" && full.verdict && full.verdict !== "CE" && full.verdict !== "JE") parts.push(profileSection(r.profile, full.id, full.verdict));
    if (r.kernels && r.kernels.length) parts.push(kernelsSection(r.kernels));
    if (r.benches && r.benches.length) parts.push(benchSection(r.benches, this.problem, r.gpu, false, r.pytorch));
    else if (r.gpu && r.executed) parts.push(gpuLine(r.gpu, this.problem, false));
    if (r.goals && r.goals.length) parts.push(goalsSection(r.goals));
    if (r.tests.some((t) => t.verdict && t.verdict !== "NJ")) parts.push(testsSection(r.tests));
    if (r.compile_log && r.compile_log.trim())
      parts.push(h("details", null, h("summary", null, "Compiler output"), h("pre", { class: "log" }, r.compile_log)));
    if (r.timing) parts.push(timingLine(r.timing));
    replace(this.bodyEl, parts);
  }
}

/* Text with `code` spans (the judge's hints use them). */
export function rich(text) {
  return String(text)
    .split(/(`[^`]+`)/)
    .map((part) => (part.length > 2 && part.startsWith("`") && part.endsWith("`") ? h("code", null, part.slice(1, -1)) : part));
}

/* One line per event for the log. */
export function brief(name, d) {
  switch (name) {
    case "state":
      return d.state + (d.position ? ` #${d.position}` : "");
    case "queued":
      return d.position ? `position ${d.position}` : "";
    case "judging":
      return `${d.worker || ""}${d.attempt ? " attempt " + d.attempt : ""}`;
    case "compiled":
      return `${d.ok ? "ok" : "failed"} ${f.ms(d.ms)}`;
    case "test":
      return `${d.index + 1}/${d.of} ${d.name} ${d.verdict}${d.ms !== undefined ? " " + f.ms(d.ms) : ""}`;
    case "bench":
      return `${d.index + 1}/${d.of} ${d.name} ${f.ms(d.median_ms)} ${f.pct(d.sol_pct)}`;
    case "waiting_for_gpu":
    case "profiling":
      return d.message || "";
    case "done":
      if (d.state === "cancelled") return d.message || "cancelled";
      return `${d.verdict}${d.message ? " " + d.message : ""}`;
    default:
      return "";
  }
}

/* "Cancelled by alice 2 min ago while it waited for a GPU." */
export function cancelText(sub) {
  const c = sub.cancelled || {};
  const from = { queued: " while it was queued", waiting_for_gpu: " while it waited for a GPU", judging: " while a worker was judging it" }[c.from] || "";
  return `Cancelled${c.by ? " by " + c.by : ""}${c.at ? " " + f.ago(c.at) : ""}${from}. It will not be judged.`;
}

function verdictCard(sub, r, mode) {
  if (sub.state === "cancelled")
    return h(
      "div",
      { class: "verdict-card cancelled", "data-cancelled": (sub.cancelled && sub.cancelled.by) || "" },
      h("div", { class: "big" }, h("span", { class: "verdict CX" }, "—"), " Cancelled"),
      h("p", null, cancelText(sub)),
      h("p", { class: "muted small" }, "Its code is kept: open it in the editor to change it and run it again."),
    );
  const v = sub.verdict;
  if (!v) return null;
  const cls = v === "AC" ? "AC" : v === "JE" ? "JE" : "bad";
  const rows = [];
  if (v === "AC" && mode === "submit" && sub.score)
    rows.push(
      h(
        "p",
        null,
        "Speed of light: ",
        h("strong", { "data-score": "" }, f.pct(sub.score)),
        ` (geometric mean over the benchmark shapes), time ${f.ms(sub.time_ms)}`,
        sub.pytorch_speedup ? [", ", h("strong", { "data-pytorch-speedup": "", title: PYTORCH_TIP }, f.speedup(sub.pytorch_speedup)), " PyTorch"] : null,
        ".",
      ),
    );
  if (v === "AC" && mode === "run") rows.push(h("p", { class: "muted" }, "Run checks correctness only. Submit to be timed and scored."));
  if (v === "AC" && mode === "profile") rows.push(h("p", { class: "muted" }, "Profile checks correctness, then looks inside the kernels on one benchmark shape (below). It is not timed or scored: Submit for that."));
  return h(
    "div",
    { class: `verdict-card ${cls}`, "data-verdict": v },
    h("div", { class: "big" }, h("span", { class: `verdict ${v}` }, v), " ", f.verdictName(v)),
    sub.message ? h("p", null, sub.message) : null,
    h("p", { class: "muted small" }, VERDICT_HELP[v] || ""),
    rows,
  );
}

function diagnosticsSection(diags, editor) {
  return h(
    "section",
    { "aria-label": "Compile errors" },
    h("h3", null, "Errors and warnings"),
    h(
      "ul",
      { class: "diags" },
      diags.map((d) => {
        const sev = severity(d.message);
        const where = d.line > 0 ? `${d.line}:${d.column}` : "file";
        return h(
          "li",
          { class: `sev-${sev}`, dataset: { line: String(d.line), column: String(d.column) } },
          editor && d.line > 0
            ? h("button", { onclick: () => editor.goTo(d.line, d.column), title: `Go to line ${d.line}, column ${d.column}` }, where)
            : h("span", { class: "mono small" }, where),
          " ",
          h("span", { class: `sev-${sev}` }, d.message),
        );
      }),
    ),
  );
}

function failureSection(t, i, n) {
  const sz = f.testSizes(t.name);
  const parts = [
    h("h3", null, `Failed test: ${t.name}`),
    h("p", { class: "muted small" }, `Test ${i + 1} of ${n}. `, t.message || ""),
  ];
  if (sz.sizes.length)
    parts.push(table(["Size", { text: "Value", num: true }], sz.sizes.map((s) => [h("code", null, s.name), f.int(Number(s.value))]), { class: "compact sizes", caption: "Sizes of the failing test" }));
  const d = t.detail || {};
  if (d.kind === "mismatch") {
    for (const o of d.outputs || []) if (o.mismatches > 0) parts.push(mismatchTable(o));
  } else {
    const x = failureText(t);
    parts.push(h("p", null, h("strong", null, x.title)), x.text ? h("p", null, x.text) : null, x.hint ? h("p", { class: "notice", "data-hint": "" }, "What it most likely means: ", rich(x.hint)) : null);
  }
  return h("section", { class: "failure", "aria-label": "The failing test" }, parts);
}

function tolText(tol) {
  if (!tol) return "";
  if (tol.exact) return "exact (bit for bit)";
  const p = [];
  if (tol.atol) p.push(`atol ${f.value(tol.atol)}`);
  if (tol.rtol) p.push(`rtol ${f.value(tol.rtol)}`);
  if (tol.acc) p.push(`acc ${f.value(tol.acc)}`);
  return p.join(", ");
}

export function mismatchTable(o) {
  const exact = o.tolerance && o.tolerance.exact;
  const rows = (o.first || []).map((m) => [
    h("code", null, f.index(m.index, m.flat)),
    h("span", { title: m.rounded !== undefined ? `reference in fp64: ${f.value(m.expected)}` : null }, f.value(m.rounded !== undefined ? m.rounded : m.expected)),
    f.value(m.got),
    f.value(m.abs_err),
    f.value(m.rel_err),
    m.reason || "",
  ]);
  return h(
    "div",
    { class: "mismatch", "data-output": o.name },
    h(
      "p",
      null,
      h("strong", null, `Output ${o.name}`),
      ` (${o.dtype}): `,
      o.unwritten && o.unwritten === o.count
        ? `never written: all ${f.int(o.count)} elements still hold the judge's 0xFF poison`
        : o.unwritten && o.unwritten === o.mismatches
          ? `${f.int(o.mismatches)} of ${f.int(o.count)} elements never written (they still hold the judge's 0xFF poison)`
          : `${f.int(o.mismatches)} of ${f.int(o.count)} elements differ`,
      o.checked !== o.count ? ` (${f.int(o.checked)} checked)` : "",
      `. Tolerance: ${tolText(o.tolerance)}.`,
      o.max_abs_at ? ` Largest error ${f.value(o.max_abs_err)} at ${f.index(o.max_abs_at.index, o.max_abs_at.flat)}.` : "",
    ),
    table(
      ["Index", { text: exact ? "Expected" : "Expected", num: true }, { text: "Got", num: true }, { text: "Abs. error", num: true }, { text: "Rel. error", num: true }, "Why"],
      rows,
      { class: "compact", caption: `First mismatches of ${o.name}` },
    ),
    (o.first || []).length < o.mismatches ? h("p", { class: "muted small" }, `The first ${(o.first || []).length} are shown.`) : null,
  );
}

function kernelsSection(kernels) {
  const rows = kernels.map((k) => {
    const spills = (k.spill_store_bytes || 0) + (k.spill_load_bytes || 0);
    return {
      attrs: spills ? { class: "warnrow", title: "registers spilled to local memory: slower loads and stores" } : { dataset: { kernel: k.name } },
      cells: [
        h("code", null, k.name),
        f.int(k.registers),
        f.bytes(k.smem_bytes),
        f.bytes(k.stack_bytes),
        spills ? `${f.bytes(k.spill_store_bytes)} / ${f.bytes(k.spill_load_bytes)}` : "none",
        f.int(k.barriers),
      ],
    };
  });
  return h(
    "section",
    { class: "kernels", "aria-label": "Kernel resources" },
    h("h3", null, "Resources per kernel"),
    table(
      ["Kernel", { text: "Registers", num: true }, { text: "Shared mem.", num: true }, { text: "Stack", num: true }, { text: "Spills", num: true }, { text: "Barriers", num: true }],
      rows,
      { class: "compact", caption: "Registers, shared memory and spills of each kernel" },
    ),
    h("p", { class: "muted small" }, "Registers per thread, static shared memory per block, stack per thread; spills are bytes stored / loaded to local memory per thread (none is best)."),
  );
}

/* The peak the problem is scored against, from the GPU's figures. */
function peakOf(problem, gpu) {
  if (!problem || !gpu) return null;
  switch (problem.peak) {
    case "fp32":
      return { name: "FP32", tflops: gpu.fp32_tflops };
    case "fp16_tensor":
      return { name: "FP16 tensor", tflops: gpu.fp16_tflops };
    case "bf16_tensor":
      return { name: "BF16 tensor", tflops: gpu.bf16_tflops };
    default:
      return null;
  }
}

/* GB/s or TFLOP/s: the one nearer its limit (the bound that decides the speed of light). */
function throughput(b, problem, gpu) {
  const peak = peakOf(problem, gpu);
  const memFrac = gpu && gpu.copy_gbps ? b.gbps / gpu.copy_gbps : 1;
  const flopFrac = peak && peak.tflops ? b.tflops / peak.tflops : -1;
  if (flopFrac > memFrac) return { text: f.tflops(b.tflops), bound: "compute" };
  return { text: f.gbps(b.gbps), bound: "memory" };
}

/* How "x PyTorch" is measured: the tooltip of the column and of the verdict card's figure. */
const PYTORCH_TIP =
  "× PyTorch: PyTorch's median time on the same shape over yours (above 1×: yours is faster). PyTorch runs the problem's baseline.py — the call a learner would otherwise write — on this worker's GPU, timed the judge's way, each shape after 1 s with nothing else on the GPU and 0.5 s of warm-up (its sustained time, past the first fraction of a second in which a power-capped GPU runs faster): L2 flushed before each sample, two rotated input sets, CUDA events around the call, median until its relative standard error is below 0.5% (or 500 samples, or 1.5 s). Measured once per problem version and GPU. A power-capped GPU's clock follows its last second of work: a large matrix product's time can move by several percent between measurements, yours and PyTorch's alike.";

/* The "× PyTorch" cell of a shape, or a dash when it has none. */
function pytorchCell(b) {
  if (!(b.pytorch_speedup > 0)) return h("span", { class: "muted", title: "no PyTorch time on this shape" }, "–");
  return h(
    "span",
    { "data-pytorch": b.name, class: b.pytorch_speedup >= 1 ? "faster" : "slower", title: `PyTorch ${f.ms(b.pytorch_ms)}, yours ${f.ms(b.median_ms)}` },
    f.speedup(b.pytorch_speedup),
  );
}

/* The line under the timings about PyTorch: its version and mean, or why there is none. */
function pytorchLine(pt) {
  if (pt.measured && pt.speedup)
    return h(
      "p",
      { class: "muted small", "data-pytorch-line": "measured", title: pt.method || PYTORCH_TIP },
      `× PyTorch: PyTorch ${pt.torch || ""}'s median over yours on the same GPU and shapes, timed the judge's way; geometric mean ${f.speedup(pt.speedup)}.`,
    );
  return h("p", { class: "muted small", "data-pytorch-line": "absent" }, `× PyTorch: ${pt.reason || "not measured"}.`);
}

function benchSection(benches, problem, gpu, live, pytorch) {
  const shapes = {};
  for (const b of (problem && problem.benchmarks) || []) shapes[b.name] = b.sizes;
  const sizeText = (name) =>
    shapes[name]
      ? Object.entries(shapes[name])
          .map(([k, v]) => `${k}=${f.int(v)}`)
          .join(", ")
      : "";
  // The timing's sampling, and the configurations a screening left out (bench.c).
  const samplesTitle = (b) =>
    `${f.int(b.samples)} samples, stopped by ${b.stop || "?"}` +
    (b.screened > 0 ? `; ${b.screened} other configuration${b.screened === 1 ? "" : "s"} screened out (3 to 10 samples, over 5% slower)` : "");
  const rows = benches.map((b) => [
    h("span", null, b.name, sizeText(b.name) && sizeText(b.name) !== b.name ? h("span", { class: "sub" }, sizeText(b.name)) : null),
    f.ms(b.median_ms),
    b.p10_ms !== undefined ? h("span", { class: "nowrap", title: samplesTitle(b) }, `${f.ms(b.p10_ms)} – ${f.ms(b.p90_ms)}`) : "…",
    f.gbps(b.gbps),
    f.tflops(b.tflops),
    h("strong", null, f.pct(b.sol_pct)),
    ...(pytorch ? [pytorchCell(b)] : []),
  ]);
  const chart = solChart(
    benches.map((b) => ({ label: b.name, pct: b.sol_pct, text: `${f.ms(b.median_ms)} · ${throughput(b, problem, gpu).text} · ${f.pct(b.sol_pct)}` })),
    { limitLabel: "100% = speed of light" },
  );
  return h(
    "section",
    { class: "benches", "aria-label": "Timings" },
    h("h3", null, live ? "Timings so far" : "Timings"),
    table(
      [
        "Shape",
        { text: "Median", num: true },
        { text: "p10 – p90", num: true },
        { text: "Bandwidth", num: true },
        { text: "Compute", num: true },
        { text: h("abbr", { title: "speed of light: the measured limits' time over yours" }, "SoL"), num: true },
        ...(pytorch ? [{ text: h("abbr", { title: PYTORCH_TIP, "data-pytorch-head": "" }, "× PyTorch"), num: true }] : []),
      ],
      rows,
      { class: "compact", caption: "Time per benchmark shape" },
    ),
    pytorch ? pytorchLine(pytorch) : null,
    h("figure", { class: "chart", style: "margin: 0.75rem 0" }, chart, h("figcaption", { class: "muted small" }, "Speed of light per shape: the time the GPU's measured limits allow for the compulsory work, divided by your time.")),
    gpu ? gpuLine(gpu, problem, true) : null,
  );
}

/* The learning goals, after the timings: what the judge checked beyond the output. */
function goalsSection(goals) {
  return h(
    "section",
    { class: "goals", "aria-label": "Learning goals" },
    h("h3", null, "Learning goals"),
    h("p", { class: "muted small" }, goalSummary(goals) + ". Reported beside the verdict: they never change it or the score."),
    h(
      "ul",
      { class: "goal-list" },
      goals.map((g) => {
        const st = GOAL_STATUS[g.status] || GOAL_STATUS.failed;
        const figures = goalFigures(g);
        return h(
          "li",
          { "data-goal": g.name, "data-status": g.status },
          h("span", { class: `verdict ${st.badge}` }, st.mark),
          " ",
          h("strong", null, g.name),
          h("span", { class: "muted small" }, ` (${goalKind(g.kind)})`),
          g.description ? h("div", { class: "small" }, rich(g.description)) : null,
          h("div", null, rich(g.detail || "")),
          figures.length ? h("ul", { class: "small muted" }, figures.map((t) => h("li", null, t))) : null,
        );
      }),
    ),
  );
}

export function gpuLine(gpu, problem, timed) {
  const peak = peakOf(problem, gpu);
  const limits = [`copy ${f.gbps(gpu.copy_gbps)}`];
  if (peak) limits.push(`${peak.name} ${f.tflops(peak.tflops)}`);
  else if (gpu.fp32_tflops) limits.push(`FP32 ${f.tflops(gpu.fp32_tflops)}`);
  return h(
    "p",
    { class: "gpu small", "data-gpu": gpu.name },
    timed ? "Timed on " : "Run on ",
    h("strong", null, gpu.name),
    gpu.sm_count ? ` (${gpu.sm_count} SMs${gpu.driver ? ", driver " + gpu.driver : ""})` : "",
    `. Limits measured on this GPU: ${limits.join(", ")}`,
    gpu.calibrated ? "." : " (not calibrated: nominal figures).",
  );
}

function testsSection(tests) {
  const passed = tests.filter((t) => t.verdict === "AC").length;
  const run = tests.filter((t) => t.verdict && t.verdict !== "NJ").length;
  return h(
    "details",
    { class: "tests" },
    h("summary", null, `Tests: ${passed} of ${tests.length} passed` + (run < tests.length ? ` (${tests.length - run} not run)` : "")),
    table(
      ["#", "Test", "Verdict", { text: "Time", num: true }],
      tests.map((t, i) => [String(i + 1), t.name, h("span", { class: `verdict ${t.verdict}` }, t.verdict === "NJ" ? "not run" : t.verdict), t.verdict === "NJ" ? "" : f.ms(t.ms)]),
      { class: "compact", caption: "Every test" },
    ),
  );
}

function timingLine(t) {
  const p = [`compile ${f.ms(t.compile_ms)}`];
  if (t.tests_ms) p.push(`tests ${f.ms(t.tests_ms)}`);
  if (t.bench_ms) p.push(`timing ${f.ms(t.bench_ms)}`);
  if (t.goals_ms) p.push(`learning goals ${f.ms(t.goals_ms)}`);
  p.push(`total ${f.ms(t.total_ms)}`);
  return h("p", { class: "muted small" }, "Judge time: " + p.join(", ") + ".");
}

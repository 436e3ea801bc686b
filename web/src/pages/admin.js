// pages/admin.js - for admins (#/admin): workers (GPU, measured figures, the
// languages each compiles, last contact, current job, enable/disable, new
// worker tokens; how to connect a GPU worker while none is, and a Triton one
// while none compiles Triton), the queue (with each job's language and
// Cancel), problems (languages, load state, disable, rejudge, reload) and
// user roles. Refreshes every few seconds while visible.
import { cancelSubmission, get, post } from "../api.js";
import { h, replace, table } from "../dom.js";
import * as f from "../format.js";
import { addGpuWorkerSteps, addTritonWorkerSteps } from "../gpuhelp.js";
import { languageTitle } from "../languages.js";

/* "CUDA 13.0 · Triton 3.6.0": what a worker registered it compiles. */
export function workerLanguages(w) {
  const l = w.languages || [];
  return l.length ? l.map((x) => `${languageTitle(x.name)}${x.version ? " " + x.version : ""}`).join(" · ") : "—";
}

const EVERY_MS = 5000;

export async function render(ctx) {
  const msg = h("div", { role: "alert" });
  const workersBox = h("div");
  const queueBox = h("div");
  const problemsBox = h("div");
  const say = (text, bad) => replace(msg, h("p", { class: bad ? "error" : "notice" }, text));
  const act = async (fn, done) => {
    try {
      await fn();
      if (done) say(done);
      await refresh();
    } catch (e) {
      say(e.message, true);
    }
  };

  let tritonProblems = 0;
  let compiled = new Set(["cuda"]); /* languages a live, enabled worker compiles (CUDA: the banners' business) */
  function drawWorkers(ws) {
    const gpu = ws.some((w) => w.can_execute && w.alive && !w.disabled);
    compiled = new Set(["cuda"]);
    for (const w of ws) if (w.alive && !w.disabled) for (const l of w.languages || []) compiled.add(l.name);
    const triton = compiled.has("triton");
    const tritonHelp =
      triton || !tritonProblems
        ? null
        : h(
            "div",
            { class: "notice", dataset: { help: "no-triton-worker" } },
            h("p", null, h("strong", null, "No worker here can compile Triton."), ` ${tritonProblems} problem${tritonProblems === 1 ? " is" : "s are"} offered in Triton; Triton submissions wait in the queue until a worker that compiles Triton connects.`),
            h("details", null, h("summary", null, "How to add one"), addTritonWorkerSteps(location.origin)),
          );
    const help = gpu
      ? null
      : h(
          "div",
          { class: "notice", dataset: { help: "no-gpu-worker" } },
          h("p", null, h("strong", null, "No GPU worker is connected."), " Submissions are compiled (by a compile-only worker, if one is alive) and wait for a GPU. To connect one:"),
          addGpuWorkerSteps(location.origin),
        );
    if (!ws.length) return replace(workersBox, help, tritonHelp, h("p", { class: "muted" }, "No worker yet: create one below and start judged with its token."));
    replace(
      workersBox,
      help,
      tritonHelp,
      table(
        ["Worker", "GPU", "Measured limits", "Languages", "State", "Last contact", "Current job", { text: "Judged", num: true }, ""],
        ws.map((w) => {
          const g = w.gpu || {};
          const state = w.disabled
            ? h("span", { class: "verdict JE", title: w.disabled_reason || "" }, "disabled")
            : w.alive
              ? h("span", { class: "verdict AC" }, "alive")
              : h("span", { class: "verdict" }, "not seen");
          return {
            attrs: { dataset: { worker: w.name } },
            cells: [
              h("div", null, h("strong", null, w.name), h("div", { class: "muted small" }, [w.hostname, w.version].filter(Boolean).join(" · "))),
              w.can_execute
                ? h("div", null, g.name || "GPU", h("div", { class: "muted small" }, [g.sm_count ? `${g.sm_count} SMs` : null, g.cc ? `cc ${g.cc}` : null, g.driver ? `driver ${g.driver}` : null].filter(Boolean).join(" · ")))
                : h("span", { class: "verdict JE", title: "no GPU on that machine: it compiles, GPU workers run" }, "compile-only"),
              w.can_execute && g.copy_gbps
                ? h(
                    "div",
                    { class: "small" },
                    `copy ${f.gbps(g.copy_gbps)}`,
                    h("br"),
                    `FP32 ${f.tflops(g.fp32_tflops)} · FP16 ${f.tflops(g.fp16_tflops)} · BF16 ${f.tflops(g.bf16_tflops)}`,
                    g.calibrated ? "" : h("div", { class: "muted" }, "not calibrated"),
                  )
                : h("span", { class: "muted" }, "—"),
              h("span", { class: "small", dataset: { languages: (w.languages || []).map((l) => l.name).join(" ") } }, workerLanguages(w)),
              h("div", null, state, w.error_streak ? h("div", { class: "small", style: "color: var(--warn)" }, `${w.error_streak} errors in a row`) : null, w.disabled && w.disabled_reason ? h("div", { class: "muted small" }, w.disabled_reason) : null),
              h("span", { title: f.when(w.last_seen_at) }, f.ago(w.last_seen_at)),
              w.current_submission ? h("a", { href: `#/s/${w.current_submission}` }, `#${w.current_submission}`) : h("span", { class: "muted" }, "idle"),
              f.int(w.judged),
              h(
                "button",
                { onclick: () => act(() => post(`/admin/workers/${w.id}/enabled`, { enabled: !!w.disabled }), `Worker ${w.name} ${w.disabled ? "enabled" : "disabled"}.`) },
                w.disabled ? "Enable" : "Disable",
              ),
            ],
          };
        }),
        { class: "compact workers", caption: "Workers" },
      ),
    );
  }

  function drawQueue(q) {
    if (!q.length) return replace(queueBox, h("p", { class: "muted", "data-queue": "empty" }, "The queue is empty."));
    const now = Date.now() / 1000;
    replace(
      queueBox,
      table(
        [{ text: "Pos.", num: true }, "#", "User", "Problem", "Mode", "Language", "State", { text: "Attempts", num: true }, "Worker", "Waiting", ""],
        q.map((s) => ({
          attrs: { dataset: { submission: String(s.id) } },
          cells: [
            s.position ? String(s.position) : "",
            h("a", { href: `#/s/${s.id}` }, `#${s.id}`),
            s.user,
            s.problem,
            s.mode,
            languageTitle(s.language || "cuda"),
            s.state === "judging"
              ? `judging (lease ends in ${f.duration(s.lease_expires_at - now)})`
              : s.needs_gpu
                ? "compiled, needs a GPU"
                : compiled.has(s.language || "cuda")
                  ? "queued"
                  : `queued (no worker compiles ${languageTitle(s.language)})`,
            String(s.attempts),
            s.worker || "",
            f.ago(s.queued_at).replace(" ago", ""),
            h(
              "button",
              {
                class: "small danger",
                dataset: { action: "cancel" },
                onclick: () => {
                  if (confirm(`Cancel #${s.id} of ${s.user}? It will not be judged.`)) act(() => cancelSubmission(s.id), `Submission #${s.id} cancelled.`);
                },
              },
              "Cancel",
            ),
          ],
        })),
        { class: "compact queue", caption: "Queue" },
      ),
    );
  }

  function drawProblems(r) {
    replace(
      problemsBox,
      table(
        ["Problem", "Languages", "Bundle", "Loaded", "State", { text: "Errors in a row", num: true }, ""],
        r.problems.map((p) => ({
          attrs: { dataset: { problem: p.id } },
          cells: [
            h("a", { href: `#/p/${p.id}` }, p.title),
            (p.languages || []).map(languageTitle).join(", ") || "—",
            h("code", { title: p.hash }, p.hash.slice(0, 12)),
            f.when(p.loaded_at),
            p.disabled
              ? h("div", null, h("span", { class: "verdict WA" }, "disabled"), h("div", { class: "muted small" }, p.disabled_reason || ""))
              : p.served
                ? h("span", { class: "verdict AC", title: "loaded and validated by the loader; served to learners" }, "served")
                : h("span", { class: "verdict JE", title: "in the database but not in the problems directory any more" }, "not loaded"),
            String(p.error_streak),
            h(
              "div",
              { class: "row" },
              h("button", { onclick: () => act(() => post(`/admin/problems/${p.id}/enabled`, { enabled: !!p.disabled }), `${p.id} ${p.disabled ? "enabled" : "disabled"}.`) }, p.disabled ? "Enable" : "Disable"),
              h(
                "button",
                {
                  onclick: () => {
                    if (confirm(`Judge every submission of ${p.id} again?`))
                      act(async () => {
                        const x = await post("/admin/rejudge", { problem: p.id });
                        say(`${x.requeued} submissions of ${p.id} queued again.`);
                      });
                  },
                },
                "Rejudge all",
              ),
            ),
          ],
        })),
        { class: "compact problems", caption: "Problems" },
      ),
      r.failed.length
        ? h(
            "div",
            { class: "notice warn" },
            h("strong", null, "Not loaded (the loader refused them):"),
            h("ul", null, r.failed.map((x) => h("li", null, h("code", null, x.dir), ": ", x.error))),
          )
        : null,
    );
  }

  async function refresh() {
    const [w, q, p] = await Promise.all([get("/admin/workers"), get("/admin/queue"), get("/admin/problems")]);
    tritonProblems = p.problems.filter((x) => x.served && (x.languages || []).includes("triton")).length;
    drawWorkers(w.workers);
    drawQueue(q.queue);
    drawProblems(p);
  }

  /* ---- forms ---- */
  const workerName = h("input", { id: "new-worker", placeholder: "gpu-node-1", required: true, spellcheck: "false" });
  const tokenBox = h("div");
  const newWorker = h(
    "form",
    {
      class: "row",
      onsubmit: (ev) => {
        ev.preventDefault();
        act(async () => {
          const r = await post("/admin/workers", { name: workerName.value.trim() });
          replace(
            tokenBox,
            h(
              "div",
              { class: "notice", "data-token": "" },
              h("p", null, `Worker ${r.name} created. Its token is shown this once: give it to judged (--token-file).`),
              h("pre", { class: "log" }, r.token),
            ),
          );
          workerName.value = "";
        });
      },
    },
    h("label", { for: "new-worker", style: "margin: 0" }, "New worker"),
    workerName,
    h("button", { type: "submit" }, "Create a token"),
  );
  const rejudgeId = h("input", { id: "rejudge-id", inputmode: "numeric", placeholder: "submission id", size: "10" });
  const rejudge = h(
    "form",
    {
      class: "row",
      onsubmit: (ev) => {
        ev.preventDefault();
        const n = Number(rejudgeId.value);
        if (!Number.isInteger(n) || n < 1) return say("Enter a submission id.", true);
        act(() => post("/admin/rejudge", { submission: n }), `Submission #${n} queued again.`);
      },
    },
    h("label", { for: "rejudge-id", style: "margin: 0" }, "Rejudge submission"),
    rejudgeId,
    h("button", { type: "submit" }, "Rejudge"),
  );
  const roleUser = h("input", { id: "role-user", placeholder: "user name", spellcheck: "false" });
  const role = h("select", { id: "role-role" }, ["learner", "instructor", "admin"].map((r) => h("option", { value: r }, r)));
  const roles = h(
    "form",
    {
      class: "row",
      onsubmit: (ev) => {
        ev.preventDefault();
        const u = roleUser.value.trim();
        act(() => post(`/admin/users/${encodeURIComponent(u)}/role`, { role: role.value }), `${u} is now ${role.value}.`);
      },
    },
    h("label", { for: "role-user", style: "margin: 0" }, "User"),
    roleUser,
    h("label", { for: "role-role", style: "margin: 0" }, "Role"),
    role,
    h("button", { type: "submit" }, "Set the role"),
  );
  const reload = h("button", { onclick: () => act(async () => say(`Reloaded: ${JSON.stringify(await post("/admin/reload"))}.`)) }, "Reload problems from disk");

  await refresh();
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") refresh().catch(() => {});
  }, EVERY_MS);

  const el = h(
    "div",
    null,
    h("h1", null, "Admin"),
    msg,
    h("section", { class: "card", "aria-labelledby": "w-h" }, h("h2", { id: "w-h", style: "margin-top: 0" }, "Workers"), workersBox, newWorker, tokenBox),
    h("section", { class: "card", "aria-labelledby": "q-h" }, h("h2", { id: "q-h", style: "margin-top: 0" }, "Queue"), queueBox, rejudge),
    h("section", { class: "card", "aria-labelledby": "p-h" }, h("div", { class: "row" }, h("h2", { id: "p-h", style: "margin: 0" }, "Problems"), h("span", { class: "spacer" }), reload), problemsBox),
    h("section", { class: "card", "aria-labelledby": "u-h" }, h("h2", { id: "u-h", style: "margin-top: 0" }, "Users"), roles, h("p", { class: "muted small" }, "Instructors see every submission and the gradebook; admins also run this page.")),
    h("p", { class: "muted small" }, `This page refreshes every ${EVERY_MS / 1000} seconds.`),
  );
  return {
    el,
    wide: true,
    title: "Admin",
    destroy: () => clearInterval(timer),
  };
}

// pages/problem.js - one problem (#/p/ID[/history|/leaderboard]): the
// statement with its math typeset, the signature and sizes, the editor with
// the starter or the saved draft, Run and Submit (buttons and shortcuts) and
// the live results. The tabs change only the left pane: the editor and the
// results stay as they are. Run and Submit wait for the submission being
// followed only until it has compiled: one that then waits for a GPU worker
// leaves the editor free (the learner keeps Running; a new Run compiles at
// once on a compile-only worker).
import { ApiError, get, post } from "../api.js";
import { h, replace, table } from "../dom.js";
import { dropDraft, loadDraft, saveDraft } from "../drafts.js";
import { createEditor, highlightBlocks } from "../editor.js";
import { duration, int, ms } from "../format.js";
import { typeset } from "../math.js";
import { goalKind, goalRequirement } from "../explain.js";
import { ResultView, rich } from "../results.js";
import { stepTitle } from "../steps.js";
import { historyView } from "./history.js";
import { leaderboardView } from "./leaderboard.js";

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || "");
const MOD = isMac ? "⌘" : "Ctrl";

export async function render(ctx) {
  const id = ctx.params.id;
  let p;
  try {
    p = await get(`/problems/${id}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      return { el: h("div", { class: "card" }, h("h1", null, "No such problem"), h("p", null, `There is no problem "${id}" on this server.`), h("a", { href: "#/" }, "Back to the path")), title: "Not found" };
    throw e;
  }
  const session = ctx.session;
  const user = session.user ? session.user.name : null;

  /* ---- left: tabs ---- */
  const tabs = [
    ["statement", "Statement"],
    ["history", "My submissions"],
    ["leaderboard", "Leaderboard"],
  ];
  const tabLinks = tabs.map(([k, label]) =>
    h("a", { href: `#/p/${id}${k === "statement" ? "" : "/" + k}`, id: `tab-${k}`, dataset: { tab: k } }, label),
  );
  const panel = h("section", { class: "tab-panel" });
  const statement = statementView(p);
  let historyEl = null;

  /* ---- right: toolbar, editor, results ---- */
  const draft = user ? loadDraft(user, id) : null;
  const savedEl = h("span", { class: "saved", "aria-live": "polite" }, draft ? "Draft restored from this browser." : "Starter code.");
  const msgEl = h("div", { role: "alert" });
  const runBtn = h("button", { class: "primary", dataset: { action: "run" }, title: `Run the tests (${MOD}+Enter)` }, "▶ Run ", h("span", { class: "kbd" }, `${MOD}+Enter`));
  const submitBtn = h("button", { dataset: { action: "submit" }, title: `Run the tests, then time it (${MOD}+Shift+Enter)` }, "Submit ", h("span", { class: "kbd" }, `${MOD}+Shift+Enter`));
  const resetBtn = h("button", { class: "danger", dataset: { action: "reset" }, title: "Replace your code with the starter code" }, "Reset to starter");
  const editorBox = h("div", { class: "editor" });
  let saveTimer = null;
  const editor = createEditor(editorBox, {
    doc: draft ? draft.text : p.starter,
    names: names(p),
    label: `CUDA source for ${p.problem.title}`,
    onChange: (text) => {
      clearTimeout(saveTimer);
      saveTimer = setTimeout(() => save(text), 400);
    },
    onRun: () => go("run"),
    onSubmit: () => go("submit"),
    onSave: () => save(editor.text(), true),
  });
  function save(text, loud) {
    if (!user) {
      savedEl.textContent = "Sign in to keep a draft.";
      return;
    }
    const ok = saveDraft(user, id, text);
    savedEl.textContent = ok ? (loud ? "Draft saved in this browser." : "Draft saved.") : "This browser refused to keep the draft (storage full or private mode).";
  }
  resetBtn.addEventListener("click", () => {
    if (editor.text() !== p.starter && !confirm("Replace your code with the starter code? Your draft is lost (your submissions are kept).")) return;
    editor.setText(p.starter);
    editor.clearDiagnostics();
    if (user) dropDraft(user, id);
    savedEl.textContent = "Starter code restored.";
    editor.focus();
  });

  const results = new ResultView({
    problem: p,
    editor,
    onDone: () => {
      busy(false);
      if (historyEl && historyEl.refresh) historyEl.refresh();
    },
    onFree: () => {
      busy(false);
      if (historyEl && historyEl.refresh) historyEl.refresh();
    },
  });
  let inFlight = false;
  function busy(b) {
    inFlight = b;
    runBtn.disabled = b || !user;
    submitBtn.disabled = b || !user;
  }
  busy(false);

  async function go(mode) {
    if (!user) {
      replace(msgEl, h("p", { class: "notice" }, h("a", { href: `#/signin?next=/p/${id}` }, "Sign in"), " to run your code."));
      return;
    }
    if (inFlight) return;
    replace(msgEl);
    const source = editor.text();
    save(source);
    busy(true);
    editor.clearDiagnostics();
    try {
      const sub = await post("/submissions", { problem: id, mode, source });
      session.setQuota(sub.quota);
      results.follow(sub);
      session.refreshStatus();
    } catch (e) {
      busy(false);
      replace(msgEl, h("p", { class: "error" }, refusal(e, mode)));
      if (e instanceof ApiError && e.code === "quota") session.load().catch(() => {});
    }
  }
  runBtn.addEventListener("click", () => go("run"));
  submitBtn.addEventListener("click", () => go("submit"));

  /* The shortcuts also work outside the editor (anywhere on this page). */
  const onKey = (ev) => {
    if (ev.key !== "Enter" || !(ev.ctrlKey || ev.metaKey)) return;
    if (editorBox.contains(ev.target)) return; /* the editor's keymap has it */
    ev.preventDefault();
    go(ev.shiftKey ? "submit" : "run");
  };
  document.addEventListener("keydown", onKey);

  const right = h(
    "div",
    { class: "right" },
    h("div", { class: "toolbar" }, runBtn, submitBtn, resetBtn, h("span", { class: "spacer" }), savedEl),
    user ? null : h("p", { class: "notice" }, h("a", { href: `#/signin?next=/p/${id}` }, "Sign in"), " or ", h("a", { href: `#/signup?next=/p/${id}` }, "sign up"), " to run your code."),
    msgEl,
    editorBox,
    h(
      "p",
      { class: "muted small" },
      h("kbd", null, `${MOD}+Enter`), " Run · ",
      h("kbd", null, `${MOD}+Shift+Enter`), " Submit · ",
      h("kbd", null, `${MOD}+S`), " save the draft · ",
      h("kbd", null, `${MOD}+F`), " find · ",
      h("kbd", null, "Esc"), " then ", h("kbd", null, "Tab"), " leaves the editor",
    ),
    results.el,
  );

  function showTab(tab) {
    tab = tab || "statement";
    for (const a of tabLinks) {
      if (a.dataset.tab === tab) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    panel.setAttribute("aria-labelledby", `tab-${tab}`);
    if (tab === "statement") replace(panel, statement);
    else if (tab === "history") {
      if (!user) replace(panel, h("p", null, h("a", { href: `#/signin?next=/p/${id}/history` }, "Sign in"), " to see your submissions."));
      else {
        historyEl = historyView({ problem: id, compact: true, onLoad: (src) => loadIntoEditor(src) });
        replace(panel, historyEl);
      }
    } else replace(panel, leaderboardView(id, user));
  }
  function loadIntoEditor(src) {
    editor.setText(src);
    save(src, true);
    savedEl.textContent = "Loaded that submission's code into the editor.";
    editor.focus();
  }
  showTab(ctx.params.tab);

  /* Back on the page: the latest submission of this problem, followed if it
   * is still being judged, else shown as it ended. */
  if (user)
    get(`/submissions?problem=${id}&limit=1`)
      .then(async (r) => {
        const last = r.submissions[0];
        if (!last || results.sub) return;
        const full = await get(`/submissions/${last.id}`);
        if (results.sub) return;
        if (full.state === "queued" || full.state === "judging") {
          busy(!full.waiting_for_gpu);
          results.follow(full);
        } else results.showFinal(full, false, { diagnostics: full.source === editor.text() });
      })
      .catch(() => {});

  const el = h(
    "div",
    { class: "problem", dataset: { problem: id } },
    h("div", { class: "left card" }, h("nav", { class: "tabs", "aria-label": "Problem sections" }, tabLinks), panel),
    right,
  );
  return {
    el,
    wide: true,
    keep: true,
    title: p.problem.title,
    update(c) {
      showTab(c.params.tab);
      return true;
    },
    destroy() {
      clearTimeout(saveTimer);
      document.removeEventListener("keydown", onKey);
      results.destroy();
      editor.destroy();
    },
  };
}

function names(p) {
  return []
    .concat(p.tensors.map((t) => ({ name: t.name, detail: `${t.c_type} [${t.shape.join(", ")}]` })))
    .concat(p.sizes.map((s) => ({ name: s, detail: "size (long long)" })))
    .concat(p.scalars.map((s) => ({ name: s.name, detail: s.c_type })));
}

function refusal(e, mode) {
  if (!(e instanceof ApiError)) return String(e);
  switch (e.code) {
    case "quota":
      return `${e.message}.` + (e.retryAfter ? ` Try again in ${duration(e.retryAfter)}.` : "");
    case "problem_disabled":
      return "This problem is disabled until an admin looks at it (the judge failed on it repeatedly).";
    case "network":
      return "The server is not answering: nothing was sent. Your code is kept in this browser.";
    case "too_large":
      return "The source is too large (at most 256 KiB and 10,000 lines).";
    case "unauthorized":
      return "Your session has ended: sign in again (your code is kept in this browser).";
    default:
      return `Could not ${mode === "run" ? "run" : "submit"}: ${e.message}`;
  }
}

/* The learning goals checked on Submit, before anything is submitted. */
function goalsPreview(goals) {
  if (!goals.length) return null;
  return h(
    "section",
    { class: "goals-preview", "aria-label": "Learning goals" },
    h("h2", null, "Learning goals"),
    h("p", { class: "muted small" }, "Checked on Submit and reported beside the verdict; they never change it or the score."),
    h(
      "ul",
      { class: "goal-list" },
      goals.map((g) =>
        h(
          "li",
          { "data-goal": g.name },
          h("strong", null, g.name),
          h("span", { class: "muted small" }, ` (${goalKind(g.kind)})`),
          g.description ? h("div", { class: "small" }, rich(g.description)) : null,
          h("div", { class: "small muted" }, rich(goalRequirement(g))),
        ),
      ),
    ),
  );
}

const PEAKS = { fp32: "FP32 (FFMA)", fp16_tensor: "FP16 tensor cores", bf16_tensor: "BF16 tensor cores", none: "memory only" };

function statementView(p) {
  const body = h("div", { class: "statement" });
  body.innerHTML = p.statement_html; /* rendered by md4c on the server, raw HTML disabled */
  typeset(body);
  highlightBlocks(body);
  const sig = table(
    ["Name", "C type", "Shape", "Role"],
    []
      .concat(p.tensors.map((t) => [h("code", null, t.name), h("code", null, t.c_type), t.shape.length ? `[${t.shape.join(", ")}]` : "scalar", t.role === "in" ? "input" : t.role === "out" ? "output" : "input and output"]))
      .concat(p.sizes.map((s) => [h("code", null, s), h("code", null, "long long"), "—", "size"]))
      .concat(p.scalars.map((s) => [h("code", null, s.name), h("code", null, s.c_type), "—", `scalar (default ${s.default})`])),
    { class: "compact signature", caption: "Signature: the names args=() may use" },
  );
  const benches = p.benchmarks.length
    ? table(
        ["Benchmark shape", "Sizes"],
        p.benchmarks.map((b) => [b.name, Object.entries(b.sizes).map(([k, v]) => `${k} = ${int(v)}`).join(", ")]),
        { class: "compact benchmarks", caption: "Benchmark shapes (Submit)" },
      )
    : null;
  return h(
    "div",
    null,
    h("p", { class: "muted small" }, `Problem ${p.problem.number} · Step ${p.problem.step}: ${stepTitle(p.problem.step)}`),
    body,
    h("h2", null, "Signature and sizes"),
    sig,
    benches,
    goalsPreview(p.goals || []),
    h(
      "p",
      { class: "muted small" },
      `${int(p.tests)} tests · each plan run limited to ${ms(p.limits.run_ms)} · scored against ${PEAKS[p.peak] || p.peak} and memory bandwidth.`,
    ),
  );
}

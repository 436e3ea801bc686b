// pages/problem.js - one problem (#/p/ID[/history|/leaderboard]): the
// statement with its math typeset, the signature and sizes, the editor with
// the starter or the saved draft, Run, Submit and Profile (buttons and
// shortcuts) and the live results. The tabs change only the left pane: the editor and the
// results stay as they are. Run and Submit wait for the submission being
// followed only until it has compiled: one that then waits for a GPU worker
// leaves the editor free (the learner keeps Running; a new Run compiles at
// once on a compile-only worker).
//
// A problem offered in CUDA and Triton has a choice of language above the
// editor, remembered per user and problem; each language has its own starter
// and draft, the editor its grammar, the statement its signature (Triton's
// types: *fp32, i32 or i64). When no connected worker compiles the chosen
// language the page says so before anything is run.
import { ApiError, get, postOnce } from "../api.js";
import { h, replace, table } from "../dom.js";
import { dropDraft, loadDraft, loadLanguage, saveDraft, saveLanguage } from "../drafts.js";
import { createEditor, highlightBlocks } from "../editor.js";
import { duration, int, ms, quotaLeft } from "../format.js";
import { addTritonWorkerSteps } from "../gpuhelp.js";
import { languageTitle, problemLanguages } from "../languages.js";
import { typeset } from "../math.js";
import { goalKind, goalRequirement } from "../explain.js";
import { noWorkerFor, ResultView, rich } from "../results.js";
import { stepTitle } from "../steps.js";
import { historyView } from "./history.js";
import { leaderboardView } from "./leaderboard.js";

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || "");
const MOD = isMac ? "⌘" : "Ctrl";
const ALT = isMac ? "⌥" : "Alt";

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
  const languages = problemLanguages(p);
  let lang = loadLanguage(user, id, languages);
  const starterOf = (l) => (p.starters && p.starters[l]) || (l === "cuda" ? p.starter : "");
  const statement = statementView(p, lang);
  let historyEl = null;

  /* ---- right: language, toolbar, editor, results ---- */
  const draft = user ? loadDraft(user, id, lang) : null;
  const savedEl = h("span", { class: "saved", "aria-live": "polite" }, draft ? "Draft restored from this browser." : "Starter code.");
  const msgEl = h("div", { role: "alert" });
  const runBtn = h("button", { class: "primary", dataset: { action: "run" }, title: `Run the tests (${MOD}+Enter)` }, "▶ Run ", h("span", { class: "kbd" }, `${MOD}+Enter`));
  const submitBtn = h("button", { dataset: { action: "submit" }, title: `Run the tests, then time it (${MOD}+Shift+Enter)` }, "Submit ", h("span", { class: "kbd" }, `${MOD}+Shift+Enter`));
  const profileBtn = h("button", { dataset: { action: "profile" } }, "Profile ", h("span", { class: "kbd" }, `${MOD}+${ALT}+Enter`));
  /* The Profile quota is small (quota_profile): the button's title says what is left of it. */
  const profileTitle = () => {
    const q = session.me && session.me.quota && session.me.quota.profile;
    const left = q ? ` ${quotaLeft("Profile", q)}.` : "";
    profileBtn.title = `Run the tests, then profile the kernels on one benchmark shape: throughput, occupancy, stalls, caches (${MOD}+${ALT}+Enter).${left}`;
    profileBtn.dataset.left = q ? String(q.remaining) : "";
  };
  profileTitle();
  const resetBtn = h("button", { class: "danger", dataset: { action: "reset" }, title: "Replace your code with the starter code" }, "Reset to starter");
  const editorBox = h("div", { class: "editor" });
  let saveTimer = null;
  const editorLabel = (l) => `${languageTitle(l)} source for ${p.problem.title}`;
  const editor = createEditor(editorBox, {
    doc: draft ? draft.text : starterOf(lang),
    language: lang,
    names: names(p),
    label: editorLabel(lang),
    onChange: (text) => {
      clearTimeout(saveTimer);
      saveTimer = setTimeout(() => save(text), 400);
    },
    onRun: () => go("run"),
    onSubmit: () => go("submit"),
    onProfile: () => go("profile"),
    onSave: () => save(editor.text(), true),
  });
  function save(text, loud) {
    if (!user) {
      savedEl.textContent = "Sign in to keep a draft.";
      return;
    }
    const ok = saveDraft(user, id, text, lang);
    savedEl.textContent = ok ? (loud ? "Draft saved in this browser." : "Draft saved.") : "This browser refused to keep the draft (storage full or private mode).";
  }
  resetBtn.addEventListener("click", () => {
    if (editor.text() !== starterOf(lang) && !confirm(`Replace your ${languageTitle(lang)} code with the starter code? Your ${languageTitle(lang)} draft is lost (your submissions are kept).`)) return;
    editor.setText(starterOf(lang));
    editor.clearDiagnostics();
    if (user) dropDraft(user, id, lang);
    savedEl.textContent = "Starter code restored.";
    editor.focus();
  });

  /* The language: one radio button per language the problem is offered in. */
  const langNote = h("div", { class: "lang-note", "aria-live": "polite" });
  const langBox =
    languages.length > 1
      ? h(
          "fieldset",
          { class: "lang-switch", dataset: { languages: languages.join(" ") } },
          h("legend", null, "Language"),
          languages.map((l) =>
            h(
              "label",
              { class: "lang-choice" },
              h("input", { type: "radio", name: `lang-${id}`, value: l, checked: l === lang, dataset: { lang: l }, onchange: () => chooseLanguage(l) }),
              languageTitle(l),
            ),
          ),
        )
      : null;
  /* Keeps the editor's text as the old language's draft, then shows the new
   * language's draft (or starter), grammar, signature and worker note. */
  function chooseLanguage(l, text) {
    if (l === lang || !languages.includes(l)) return;
    clearTimeout(saveTimer);
    if (user) saveDraft(user, id, editor.text(), lang);
    lang = l;
    if (user) saveLanguage(user, id, l);
    const d = user ? loadDraft(user, id, l) : null;
    editor.setLanguage(l, text !== undefined ? text : d ? d.text : starterOf(l), editorLabel(l));
    editor.clearDiagnostics();
    if (text !== undefined) save(text, true);
    savedEl.textContent = text !== undefined ? "Loaded that submission's code into the editor." : d ? `${languageTitle(l)} draft restored from this browser.` : `${languageTitle(l)} starter code.`;
    for (const input of langBox ? langBox.querySelectorAll("input") : []) input.checked = input.value === l;
    statement.setLanguage(l);
    drawLangNote();
  }
  /* Before anything is run: no connected worker compiles this language.
   * Drawn again only when that changes (an open fold-out stays open). */
  let noteShown = null;
  function drawLangNote() {
    const none = noWorkerFor(session.status, lang);
    if (noteShown === (none ? lang : "")) return;
    noteShown = none ? lang : "";
    replace(
      langNote,
      none
        ? h(
            "div",
            { class: "notice warn", dataset: { noWorker: lang } },
            h("p", null, h("strong", null, `No worker here can compile ${languageTitle(lang)}.`), ` A ${languageTitle(lang)} Run or Submit is kept in the queue and judged when an admin adds a worker that can.`),
            h("details", { class: "help" }, h("summary", null, `How an admin adds a ${languageTitle(lang)} worker`), addTritonWorkerSteps(location.origin)),
          )
        : null,
    );
  }
  drawLangNote();
  const offSession = session.on(() => {
    drawLangNote();
    profileTitle();
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
    profileBtn.disabled = b || !user;
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
      const sub = await postOnce("/submissions", { problem: id, mode, source, language: lang });
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
  profileBtn.addEventListener("click", () => go("profile"));

  /* The shortcuts also work outside the editor (anywhere on this page). */
  const onKey = (ev) => {
    if (ev.key !== "Enter" || !(ev.ctrlKey || ev.metaKey)) return;
    if (editorBox.contains(ev.target)) return; /* the editor's keymap has it */
    ev.preventDefault();
    go(ev.altKey ? "profile" : ev.shiftKey ? "submit" : "run");
  };
  document.addEventListener("keydown", onKey);

  const right = h(
    "div",
    { class: "right" },
    langBox,
    h("div", { class: "toolbar" }, runBtn, submitBtn, profileBtn, resetBtn, h("span", { class: "spacer" }), savedEl),
    langNote,
    user ? null : h("p", { class: "notice" }, h("a", { href: `#/signin?next=/p/${id}` }, "Sign in"), " or ", h("a", { href: `#/signup?next=/p/${id}` }, "sign up"), " to run your code."),
    msgEl,
    editorBox,
    h(
      "p",
      { class: "muted small" },
      h("kbd", null, `${MOD}+Enter`), " Run · ",
      h("kbd", null, `${MOD}+Shift+Enter`), " Submit · ",
      h("kbd", null, `${MOD}+${ALT}+Enter`), " Profile · ",
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
        historyEl = historyView({ problem: id, compact: true, onLoad: (src, l) => loadIntoEditor(src, l) });
        replace(panel, historyEl);
      }
    } else replace(panel, leaderboardView(id, user));
  }
  function loadIntoEditor(src, l) {
    if (l && l !== lang && languages.includes(l)) chooseLanguage(l, src);
    else {
      editor.setText(src);
      save(src, true);
      savedEl.textContent = "Loaded that submission's code into the editor.";
    }
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
      offSession();
      document.removeEventListener("keydown", onKey);
      results.destroy();
      editor.destroy();
    },
  };
}

/* The problem's names for completion, with what they are in either language. */
function names(p) {
  return []
    .concat(p.tensors.map((t) => ({ name: t.name, detail: `${t.dtype} tensor [${t.shape.join(", ")}]` })))
    .concat(p.sizes.map((s) => ({ name: s, detail: "size" })))
    .concat(p.scalars.map((s) => ({ name: s.name, detail: `${s.dtype} scalar` })));
}

/*
 * The signature's rows in language `lang`: [{name, type, shape, role}] from
 * the server's signatures (GET /api/problems/{id}); a server from before
 * Triton sends none: the CUDA types from tensors, sizes and scalars.
 */
/*
 * The launcher a Triton submission may define (docs/submission-format.md):
 * "def solve(A, B, C, N):", its parameters the problem's tensors, then
 * scalars, then sizes, the order the judge passes them in when the names are
 * not the problem's.
 */
export function solveSignature(p) {
  const names = [].concat(p.tensors.map((t) => t.name), p.scalars.map((s) => s.name), p.sizes);
  return `def solve(${names.join(", ")}):`;
}

export function signatureRows(p, lang) {
  const sig = p.signatures && (p.signatures[lang] || p.signatures.cuda);
  const role = (r) => (r === "in" ? "input" : r === "out" ? "output" : "input and output");
  if (sig)
    return sig.map((a) => ({
      name: a.name,
      type: a.type,
      shape: a.kind === "tensor" ? (a.shape.length ? `[${a.shape.join(", ")}]` : "scalar") : "—",
      role: a.kind === "tensor" ? role(a.role) : a.kind === "size" ? "size" : `scalar (default ${a.default})`,
    }));
  return []
    .concat(p.tensors.map((t) => ({ name: t.name, type: t.c_type, shape: t.shape.length ? `[${t.shape.join(", ")}]` : "scalar", role: role(t.role) })))
    .concat(p.sizes.map((s) => ({ name: s, type: "long long", shape: "—", role: "size" })))
    .concat(p.scalars.map((s) => ({ name: s.name, type: s.c_type, shape: "—", role: `scalar (default ${s.default})` })));
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
      return `Could not ${mode}: ${e.message}`;
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

function signatureTable(p, lang) {
  const triton = lang === "triton";
  return h(
    "div",
    { dataset: { signature: lang } },
    table(
      ["Name", triton ? "Triton type" : "C type", "Shape", "Role"],
      signatureRows(p, lang).map((r) => [h("code", null, r.name), h("code", null, r.type), r.shape, r.role]),
      { class: "compact signature", caption: `Signature in ${languageTitle(lang)}: the names args=() may use` },
    ),
    triton
      ? h(
          "p",
          { class: "muted small" },
          "As ",
          h("code", null, "kernel[grid](...)"),
          " would type them: a tensor is a pointer, an integer is i32 when its value fits in 32 bits in a case and i64 otherwise (on the timed benchmark shapes an integer equal to 1 becomes a constant and one divisible by 16 is marked so, as at home; the tests run one build, in which only an integer that is 1 in every test is a constant). Declare a parameter per name, in args=() order; tl.constexpr parameters come by keyword.",
        )
      : null,
    triton
      ? h(
          "p",
          { class: "muted small", dataset: { solve: "" } },
          "Or launch as at home: define ",
          h("code", null, solveSignature(p)),
          " and launch your kernels in it (",
          h("code", null, "kernel[grid](...)"),
          ", ",
          h("code", null, "@triton.autotune"),
          "); the judge calls it for each test and shape with the problem's tensors (no data: shapes, dtypes, strides) by these names, or in this order.",
        )
      : null,
  );
}

function statementView(p, lang) {
  const body = h("div", { class: "statement" });
  body.innerHTML = p.statement_html; /* rendered by md4c on the server, raw HTML disabled */
  typeset(body);
  highlightBlocks(body);
  const sig = h("div", null, signatureTable(p, lang));
  const benches = p.benchmarks.length
    ? table(
        ["Benchmark shape", "Sizes"],
        p.benchmarks.map((b) => [b.name, Object.entries(b.sizes).map(([k, v]) => `${k} = ${int(v)}`).join(", ")]),
        { class: "compact benchmarks", caption: "Benchmark shapes (Submit)" },
      )
    : null;
  const el = h(
    "div",
    null,
    h(
      "p",
      { class: "muted small" },
      `Problem ${p.problem.number} · Step ${p.problem.step}: ${stepTitle(p.problem.step)}`,
      problemLanguages(p).length > 1 ? ` · in ${problemLanguages(p).map(languageTitle).join(" or ")}` : "",
    ),
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
  el.setLanguage = (l) => replace(sig, signatureTable(p, l));
  return el;
}

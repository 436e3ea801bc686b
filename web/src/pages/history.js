// pages/history.js - submissions as a list (mine, or for instructors anyone's),
// with a diff between any two: the page #/history and the problem page's
// "My submissions" tab. A submission not finished yet shows its queue
// position (the same number as on its own page) and a Cancel button for its
// owner or an admin; a cancelled one says by whom and when.
import { cancelSubmission, get } from "../api.js";
import { diffLines, diffStats, hunks } from "../diff.js";
import { h, replace, table } from "../dom.js";
import * as f from "../format.js";
import { languageTitle, noWorkerFor } from "../languages.js";
import { session } from "../session.js";

const PAGE = 50;

/*
 * A list of submissions with "Compare" for two of them, and a language
 * filter. opts: {problem, user ("*" or a name, for instructors),
 * onLoad(source, language) (adds a "Load into the editor" button to the
 * diff), showProblem, onChange() (after a cancel)}. The element has refresh().
 */
export function historyView(opts) {
  const selected = [];
  let rows = [];
  let more = false;
  let language = "";
  const filterId = `hist-lang-${Math.random().toString(36).slice(2, 8)}`;
  const langPick = h(
    "select",
    { id: filterId, dataset: { filter: "language" }, onchange: () => ((language = langPick.value), load(false)) },
    h("option", { value: "" }, "Every language"),
    h("option", { value: "cuda" }, "CUDA"),
    h("option", { value: "triton" }, "Triton"),
  );
  const listEl = h("div");
  const diffEl = h("div", { class: "diff-box" });
  const msg = h("div", { role: "alert" });
  const compareBtn = h("button", { disabled: true, dataset: { action: "compare" }, onclick: () => compare() }, "Compare the two selected");
  const moreBtn = h("button", { onclick: () => load(true) }, "Older submissions");

  function query(before) {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (opts.problem) q.set("problem", opts.problem);
    if (opts.user) q.set("user", opts.user);
    if (language) q.set("language", language);
    if (before) q.set("before", String(before));
    return "/submissions?" + q.toString();
  }

  async function load(older) {
    replace(msg);
    try {
      const r = await get(query(older && rows.length ? rows[rows.length - 1].id : null));
      rows = older ? rows.concat(r.submissions) : r.submissions;
      more = r.submissions.length === PAGE;
      draw();
    } catch (e) {
      replace(msg, h("p", { class: "error" }, "Could not load the submissions: " + e.message));
    }
  }

  function toggle(id, on) {
    const i = selected.indexOf(id);
    if (on && i < 0) selected.push(id);
    if (!on && i >= 0) selected.splice(i, 1);
    while (selected.length > 2) selected.shift();
    draw();
  }

  async function cancel(s) {
    if (!confirm(`Cancel ${f.modeTitle(s.mode)} #${s.id}? It will not be judged; its code stays here.`)) return;
    let note;
    try {
      await cancelSubmission(s.id);
      note = h("p", { class: "notice" }, `#${s.id} cancelled.`);
    } catch (e) {
      note = h("p", { class: "error" }, `Could not cancel #${s.id}: ${e.message}`);
    }
    await load(false);
    replace(msg, note);
    session.load().catch(() => {}); /* the header's in-flight count */
    if (opts.onChange) opts.onChange();
  }

  function draw() {
    compareBtn.disabled = selected.length !== 2;
    const filter = h("span", { class: "row", style: "gap: .4rem" }, h("label", { for: filterId, style: "margin: 0" }, "Language"), langPick);
    if (!rows.length) {
      replace(listEl, language ? h("div", { class: "row" }, filter) : null, h("p", { class: "muted" }, language ? `No ${languageTitle(language)} submissions.` : "No submissions yet."));
      return;
    }
    const headers = [{ text: "Compare" }, "#"];
    if (opts.showProblem) headers.push("Problem");
    if (opts.user) headers.push("User");
    /* compact (the problem page's left pane): the language goes with the mode */
    headers.push("When", "Mode", ...(opts.compact ? [] : ["Language"]), "Verdict", { text: "Score", num: true }, { text: "Time", num: true });
    if (!opts.compact) headers.push("GPU");
    const body = rows.map((s) => {
      const cells = [
        h("input", {
          type: "checkbox",
          checked: selected.includes(s.id),
          "aria-label": `Select submission ${s.id} to compare`,
          onchange: (ev) => toggle(s.id, ev.target.checked),
        }),
        h("a", { href: `#/s/${s.id}` }, `#${s.id}`),
      ];
      if (opts.showProblem) cells.push(h("a", { href: `#/p/${s.problem}` }, s.problem));
      if (opts.user) cells.push(s.user);
      cells.push(
        h("span", { class: "nowrap", title: f.when(s.created_at) }, f.ago(s.created_at)),
        opts.compact ? h("span", { class: "nowrap" }, s.mode, " ", langTag(s)) : s.mode,
        ...(opts.compact ? [] : [langTag(s)]),
        stateCell(s, cancel),
        s.score ? f.pct(s.score) : "",
        s.time_ms ? f.ms(s.time_ms) : "",
      );
      if (!opts.compact) cells.push(s.gpu || "");
      return { attrs: { dataset: { submission: String(s.id) }, class: selected.includes(s.id) ? "current" : null }, cells };
    });
    replace(
      listEl,
      h("div", { class: "row", style: "margin-bottom: .5rem" }, compareBtn, h("span", { class: "muted small" }, "Tick two submissions to see what changed between them."), h("span", { class: "spacer" }), filter),
      table(headers, body, { class: "compact history", caption: "Submissions, newest first" }),
      more ? h("p", null, moreBtn) : null,
    );
  }

  async function compare() {
    const [x, y] = selected.slice().sort((a, b) => a - b);
    replace(diffEl, h("p", { class: "loading" }, "Loading both sources…"));
    try {
      const [a, b] = await Promise.all([get(`/submissions/${x}`), get(`/submissions/${y}`)]);
      replace(diffEl, diffView(a, b, opts.onLoad));
      diffEl.scrollIntoView({ block: "nearest" });
    } catch (e) {
      replace(diffEl, h("p", { class: "error" }, "Could not load the sources: " + e.message));
    }
  }

  const el = h("div", { class: "history-view" }, msg, listEl, diffEl);
  el.refresh = () => load(false);
  load(false);
  return el;
}

function langTag(s) {
  const l = s.language || "cuda";
  return h("span", { class: `lang-tag ${l}`, dataset: { language: l } }, languageTitle(l));
}

/* The verdict, or where an unfinished submission is (with Cancel), or who
 * cancelled it. */
function stateCell(s, cancel) {
  if (s.verdict) return h("span", { class: `verdict ${s.verdict}`, title: s.verdict_name || "" }, s.verdict);
  if (s.state === "cancelled") {
    const c = s.cancelled || {};
    return h(
      "span",
      { class: "nowrap", dataset: { state: "cancelled" }, title: c.at ? `cancelled ${f.when(c.at)}` : "" },
      h("span", { class: "verdict CX" }, "cancelled"),
      h("span", { class: "muted small" }, ` by ${c.by || "?"} ${c.at ? f.ago(c.at) : ""}`),
    );
  }
  const where =
    s.state === "judging"
      ? "judging"
      : s.waiting_for_gpu
        ? `waiting for a GPU · position ${s.position}`
        : s.state === "queued" && noWorkerFor(session.status, s.language)
          ? `waiting for a ${languageTitle(s.language)} worker · position ${s.position}`
          : s.position
            ? `queued · position ${s.position}`
            : s.state;
  const me = session.user;
  const mayCancel = me && (s.user === me.name || session.atLeast("admin"));
  return h(
    "span",
    { class: "nowrap", dataset: { state: s.state, position: String(s.position || 0) } },
    h("span", { class: "muted" }, where),
    mayCancel ? " " : null,
    mayCancel ? h("button", { class: "small danger", dataset: { action: "cancel" }, "aria-label": `Cancel submission ${s.id}`, onclick: () => cancel(s) }, "Cancel") : null,
  );
}

/* The diff of two submissions' sources, older first. */
export function diffView(a, b, onLoad) {
  const edits = diffLines(a.source.split("\n"), b.source.split("\n"));
  const st = diffStats(edits);
  const rows = hunks(edits, 3).map((e) => {
    if (e.op === "skip") return h("tr", { class: "skip" }, h("td", { class: "ln" }), h("td", { class: "ln" }), h("td", null, `… ${e.count} unchanged line${e.count === 1 ? "" : "s"}`));
    const sign = e.op === "add" ? "+" : e.op === "del" ? "−" : " ";
    return h(
      "tr",
      { class: e.op === "eq" ? null : e.op },
      h("td", { class: "ln" }, e.a === null ? "" : String(e.a)),
      h("td", { class: "ln" }, e.b === null ? "" : String(e.b)),
      h("td", null, sign + " " + e.text),
    );
  });
  const label = (s) => `#${s.id} (${languageTitle(s.language || "cuda")} ${s.mode}, ${s.verdict || s.state}, ${f.when(s.created_at)})`;
  return h(
    "section",
    { class: "card", "aria-label": "Differences", "data-diff": `${a.id}-${b.id}` },
    h("h3", { style: "margin-top: 0" }, `From ${label(a)} to ${label(b)}`),
    h("p", { class: "small" }, h("span", { style: "color: var(--ok)" }, `+${st.add}`), " ", h("span", { style: "color: var(--bad)" }, `−${st.del}`), st.add + st.del === 0 ? " — the same code." : ""),
    h("div", { class: "diff" }, h("table", null, h("tbody", null, rows))),
    onLoad
      ? h(
          "div",
          { class: "row", style: "margin-top: .5rem" },
          h("button", { onclick: () => onLoad(a.source, a.language || "cuda") }, `Load #${a.id} into the editor`),
          h("button", { onclick: () => onLoad(b.source, b.language || "cuda") }, `Load #${b.id} into the editor`),
        )
      : null,
  );
}

export async function render(ctx) {
  const el = h(
    "div",
    { class: "card" },
    h("h1", null, "My submissions"),
    h("p", { class: "muted" }, "Every Run and Submit, newest first. Open one for its code and results."),
    historyView({ showProblem: true }),
  );
  return { el, title: "My submissions" };
}

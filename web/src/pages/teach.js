// pages/teach.js - for instructors (#/teach): the gradebook (preview and CSV
// download), any learner's submissions, and the problems with their
// leaderboards.
import { get } from "../api.js";
import { h, replace, table } from "../dom.js";
import { languageTitle } from "../languages.js";
import { historyView } from "./history.js";

/* RFC 4180 CSV (the gradebook's quoting) into rows of fields. */
export function parseCsv(text) {
  const rows = [];
  let row = [],
    field = "",
    i = 0,
    quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
    i++;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

const GB_HEADERS = {
  user: "User",
  problem: "Problem",
  solved: "Solved",
  best_score: "Best speed of light (%)",
  best_time_ms: "Best time (ms)",
  when: "First solved (UTC)",
  language: "Language",
};
const GB_NUMERIC = new Set(["best_score", "best_time_ms"]);

/* One gradebook row as table cells, by the CSV's header (a column the page
 * does not know is shown as it is): user and problem are links, the
 * language its name. */
export function gradebookCells(head, row, showUser) {
  return head.map((col, i) => {
    const v = row[i] === undefined ? "" : row[i];
    if (col === "user") return h("a", { href: "#", onclick: (ev) => (ev.preventDefault(), showUser(v)) }, v);
    if (col === "problem") return h("a", { href: `#/p/${v}` }, v);
    if (col === "language") return h("span", { class: `lang-tag ${v}`, dataset: { language: v } }, languageTitle(v));
    return v;
  });
}

export async function render(ctx) {
  const problems = (await get("/problems")).problems;

  /* ---- gradebook ---- */
  const gbBox = h("div", null, h("p", { class: "loading" }, "Loading the gradebook…"));
  const filter = h("input", { id: "gb-filter", type: "search", placeholder: "user, problem or language", oninput: () => drawGb() });
  let gb = [];
  function drawGb() {
    const q = filter.value.trim().toLowerCase();
    const [head, ...body] = gb;
    if (!head) return replace(gbBox, h("p", { class: "muted" }, "Nobody has submitted anything yet."));
    const shown = body.filter((r) => !q || r.some((v, i) => ["user", "problem", "language"].includes(head[i]) && v.toLowerCase().includes(q)));
    replace(
      gbBox,
      table(
        head.map((x) => ({ text: GB_HEADERS[x] || x, num: GB_NUMERIC.has(x) })),
        shown.map((r) => gradebookCells(head, r, showUser)),
        { class: "compact gradebook", caption: "Gradebook" },
      ),
      h("p", { class: "muted small" }, `${shown.length} of ${body.length} rows.`),
    );
  }
  get("/gradebook.csv", { text: true })
    .then((text) => {
      gb = parseCsv(text).filter((r) => r.length > 1);
      drawGb();
    })
    .catch((e) => replace(gbBox, h("p", { class: "error" }, "Could not load the gradebook: " + e.message)));

  /* ---- submissions by user ---- */
  const who = h("input", { id: "sub-user", value: "*", placeholder: "a user name, or * for everyone", spellcheck: "false" });
  const which = h("select", { id: "sub-problem" }, h("option", { value: "" }, "every problem"), problems.map((p) => h("option", { value: p.id }, `${p.number}. ${p.title}`)));
  const subsBox = h("div");
  function showSubs() {
    const user = who.value.trim() || "*";
    replace(subsBox, historyView({ user, problem: which.value || null, showProblem: true }));
  }
  function showUser(name) {
    who.value = name;
    showSubs();
    subsBox.scrollIntoView({ block: "start" });
  }
  showSubs();

  const el = h(
    "div",
    null,
    h("h1", null, "Teach"),
    h(
      "section",
      { class: "card", "aria-labelledby": "gb-h" },
      h("div", { class: "row" }, h("h2", { id: "gb-h", style: "margin: 0" }, "Gradebook"), h("span", { class: "spacer" }), h("a", { class: "button primary", href: "/api/gradebook.csv", download: "gradebook.csv" }, "Download CSV")),
      h("p", { class: "muted small" }, "One row per learner, problem and language with a submission: solved in that language, best speed of light, best time, first solved (UTC)."),
      h("label", { for: "gb-filter" }, "Filter"),
      filter,
      gbBox,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "subs-h" },
      h("h2", { id: "subs-h", style: "margin-top: 0" }, "Submissions"),
      h(
        "form",
        { class: "row", onsubmit: (ev) => (ev.preventDefault(), showSubs()) },
        h("label", { for: "sub-user", style: "margin: 0" }, "User"),
        who,
        h("label", { for: "sub-problem", style: "margin: 0" }, "Problem"),
        which,
        h("button", { type: "submit" }, "Show"),
      ),
      subsBox,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "probs-h" },
      h("h2", { id: "probs-h", style: "margin-top: 0" }, "Problems"),
      table(
        [{ text: "#", num: true }, "Problem", "Step", ""],
        problems.map((p) => [String(p.number), h("a", { href: `#/p/${p.id}` }, p.title), String(p.step), h("a", { href: `#/p/${p.id}/leaderboard` }, "leaderboard")]),
        { class: "compact", caption: "Problems" },
      ),
      ctx.session.atLeast("admin") ? h("p", null, "Load state, disabling and rejudging: ", h("a", { href: "#/admin" }, "Admin"), ".") : null,
    ),
  );
  return { el, title: "Teach" };
}

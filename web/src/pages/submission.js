// pages/submission.js - one submission (#/s/ID): its code (read-only), its
// results (live while it is judged), a cancel while it is not finished (its
// owner, or an admin), and for admins a rejudge (not of a cancelled one).
// Others' submissions are not found (the server answers 404, never 403).
import { ApiError, get, post } from "../api.js";
import { h, replace } from "../dom.js";
import { saveDraft, saveLanguage } from "../drafts.js";
import { createEditor } from "../editor.js";
import * as f from "../format.js";
import { languageTitle } from "../languages.js";
import { ResultView } from "../results.js";

export async function render(ctx) {
  const id = ctx.params.id;
  let s;
  try {
    s = await get(`/submissions/${id}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      return {
        el: h("div", { class: "card", "data-missing": id }, h("h1", null, "No such submission"), h("p", null, `Submission #${id} does not exist, or it is not yours to see.`), h("a", { href: "#/history" }, "My submissions")),
        title: "Not found",
      };
    throw e;
  }
  let problem = null;
  try {
    problem = await get(`/problems/${s.problem}`);
  } catch (e) {
    problem = null; /* the problem was removed: the results still show */
  }
  const session = ctx.session;
  const mine = session.user && session.user.name === s.user;
  const codeBox = h("div", { class: "editor readonly" });
  const language = s.language || "cuda";
  const editor = createEditor(codeBox, { doc: s.source, language, readOnly: true, label: `${languageTitle(language)} source of submission ${s.id}` });
  const results = new ResultView({ problem, editor, standalone: true });
  const msg = h("div", { role: "alert" });

  if (s.state === "done" || s.state === "cancelled") results.showFinal(s);
  else results.follow(s);

  const actions = [];
  if (mine)
    actions.push(
      h(
        "button",
        {
          onclick: () => {
            saveDraft(session.user.name, s.problem, s.source, language);
            saveLanguage(session.user.name, s.problem, language);
            ctx.navigate(`#/p/${s.problem}`);
          },
        },
        "Open this code in the editor",
      ),
    );
  if (session.atLeast("admin") && s.state !== "cancelled")
    actions.push(
      h(
        "button",
        {
          dataset: { action: "rejudge" },
          onclick: async () => {
            try {
              await post("/admin/rejudge", { submission: Number(s.id) });
              replace(msg, h("p", { class: "notice" }, "Queued again for judging."));
              results.follow({ id: s.id, mode: s.mode, language, state: "queued", position: 0 });
            } catch (e) {
              replace(msg, h("p", { class: "error" }, "Could not rejudge: " + e.message));
            }
          },
        },
        "Rejudge",
      ),
    );

  const el = h(
    "div",
    { dataset: { submission: String(s.id) } },
    h(
      "div",
      { class: "card" },
      h("h1", null, `Submission #${s.id}`),
      h(
        "p",
        null,
        h("a", { href: `#/p/${s.problem}` }, problem ? problem.problem.title : s.problem),
        ` · ${languageTitle(language)} ${f.modeTitle(s.mode)} by ${s.user} · ${f.when(s.created_at)}`,
        s.judged_at ? ` · judged ${f.ago(s.judged_at)}` : "",
        s.cancelled ? ` · cancelled by ${s.cancelled.by || "?"} ${f.ago(s.cancelled.at)}` : "",
        s.gpu ? ` on ${s.gpu}` : "",
        s.attempts > 1 ? ` · ${s.attempts} attempts` : "",
      ),
      h("div", { class: "row" }, actions),
      msg,
    ),
    h("div", { class: "grid2" }, h("div", { class: "card" }, h("h2", { style: "margin-top: 0" }, "Code"), codeBox), h("div", { class: "card" }, results.el)),
  );
  return {
    el,
    wide: true,
    keep: true,
    title: `Submission #${s.id}`,
    destroy() {
      results.destroy();
      editor.destroy();
    },
  };
}

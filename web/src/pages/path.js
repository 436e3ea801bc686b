// pages/path.js - the eight steps, each problem with its status (not tried,
// tried, solved), the languages it can be solved in ("in CUDA or Triton"
// where there is a choice) and best speed-of-light score, and the overall
// progress.
import { get } from "../api.js";
import { h } from "../dom.js";
import { pct } from "../format.js";
import { languageTitle, offeredIn, problemLanguages } from "../languages.js";
import { STEPS } from "../steps.js";

export async function render(ctx) {
  const signedIn = !!ctx.session.me;
  const [list, scores, mine] = await Promise.all([
    get("/problems"),
    signedIn ? get("/me/scores") : null,
    signedIn ? get("/submissions?limit=200") : null,
  ]);
  const problems = list.problems;
  const solved = (scores && scores.problems) || {};
  const tried = new Set(((mine && mine.submissions) || []).map((s) => s.problem));
  const nSolved = problems.filter((p) => solved[p.id] && solved[p.id].solved).length;

  const status = (p) => (solved[p.id] && solved[p.id].solved ? "solved" : tried.has(p.id) ? "tried" : "new");
  const best = (p) => {
    const b = (solved[p.id] && solved[p.id].best) || [];
    return b.reduce((a, x) => (!a || x.score > a.score ? x : a), null);
  };
  const words = { solved: "solved", tried: "tried, not solved yet", new: "not tried" };

  const steps = STEPS.map((s) => {
    const ps = problems.filter((p) => p.step === s.n);
    const done = ps.filter((p) => status(p) === "solved").length;
    return h(
      "section",
      { class: "card step", "aria-labelledby": `step-${s.n}` },
      h("h2", { id: `step-${s.n}` }, h("span", { class: "n" }, `Step ${s.n}`), s.title),
      h("p", { class: "muted small" }, s.goal, signedIn && ps.length ? ` · ${done} of ${ps.length} solved` : ""),
      ps.length
        ? h(
            "ol",
            null,
            ps.map((p) => {
              const st = status(p);
              const b = best(p);
              return h(
                "li",
                { dataset: { problem: p.id, status: st } },
                h(
                  "a",
                  { href: `#/p/${p.id}` },
                  h("span", { class: `status-dot ${st}`, role: "img", "aria-label": words[st], title: words[st] }),
                  h("span", { class: "title" }, `${p.number}. ${p.title}`),
                  problemLanguages(p).length > 1 ? h("span", { class: "langs", dataset: { languages: problemLanguages(p).join(" ") } }, offeredIn(problemLanguages(p))) : null,
                  b ? h("span", { class: "score", title: `best speed of light on ${b.gpu}${b.language ? " in " + languageTitle(b.language) : ""}` }, pct(b.score)) : null,
                ),
              );
            }),
          )
        : h("p", { class: "muted small" }, "No problem of this step is on this server yet."),
    );
  });

  const el = h(
    "div",
    null,
    h(
      "section",
      { class: "card", "aria-labelledby": "progress-h" },
      h("h1", { id: "progress-h" }, "The path"),
      h(
        "p",
        null,
        "Thirty kernels in eight steps, from one thread per element to FlashAttention, in CUDA",
        problems.some((p) => problemLanguages(p).length > 1) ? " (or Triton, where a problem says \u201cin CUDA or Triton\u201d)" : "",
        ". Every kernel is checked against a reference and timed on a real GPU; its score is the speed of light: how close it comes to the GPU's measured limits.",
      ),
      signedIn
        ? [
            h("p", { id: "progress-text" }, h("strong", null, `${nSolved} of ${problems.length}`), ` problems solved`),
            h(
              "div",
              {
                class: "progress",
                role: "progressbar",
                "aria-labelledby": "progress-text",
                "aria-valuemin": "0",
                "aria-valuemax": String(problems.length),
                "aria-valuenow": String(nSolved),
              },
              h("div", { style: `width: ${problems.length ? (100 * nSolved) / problems.length : 0}%` }),
            ),
          ]
        : h("p", null, h("a", { href: "#/signup" }, "Create an account"), " or ", h("a", { href: "#/signin" }, "sign in"), " to run your kernels and track your progress."),
    ),
    h("div", { class: "steps" }, steps),
  );
  return { el, title: "The path" };
}

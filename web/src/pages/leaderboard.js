// pages/leaderboard.js - a problem's leaderboards, one per GPU model and
// language: each user's best accepted Submit, ranked by time. CUDA and
// Triton are ranked apart (docs/api.md says why); two filters pick a GPU
// model and a language.
import { get } from "../api.js";
import { h, replace, table } from "../dom.js";
import * as f from "../format.js";
import { languageTitle } from "../languages.js";

/* "NVIDIA H200 · Triton": a board's title. */
export function boardTitle(b) {
  return `${b.gpu} · ${languageTitle(b.language || "cuda")}`;
}

export function leaderboardView(problem, me) {
  const el = h("div", { class: "leaderboard" }, h("p", { class: "loading" }, "Loading the leaderboard…"));
  let boards = [];
  const pick = h("select", { id: "lb-gpu", onchange: () => draw() });
  const pickLang = h("select", { id: "lb-language", onchange: () => draw() });
  function draw() {
    const shown = boards.filter((b) => (!pick.value || b.gpu === pick.value) && (!pickLang.value || (b.language || "cuda") === pickLang.value));
    const gpus = new Set(boards.map((b) => b.gpu));
    const langs = new Set(boards.map((b) => b.language || "cuda"));
    replace(
      el,
      gpus.size > 1 || langs.size > 1
        ? h(
            "div",
            { class: "row" },
            gpus.size > 1 ? [h("label", { for: "lb-gpu", style: "margin: 0" }, "GPU model"), pick] : null,
            langs.size > 1 ? [h("label", { for: "lb-language", style: "margin: 0" }, "Language"), pickLang] : null,
          )
        : null,
      boards.length
        ? shown.map((b) =>
            h(
              "section",
              { dataset: { gpu: b.gpu, language: b.language || "cuda" } },
              h("h3", null, boardTitle(b)),
              table(
                [{ text: "Rank", num: true }, "User", { text: "Time", num: true }, { text: "Speed of light", num: true }, "When"],
                b.entries.map((e) => ({
                  attrs: e.user === me ? { class: "current", "aria-current": "true" } : null,
                  cells: [
                    String(e.rank),
                    e.user === me ? h("a", { href: `#/s/${e.submission}` }, e.user + " (you)") : e.user,
                    f.ms(e.time_ms),
                    f.pct(e.score),
                    h("span", { title: f.when(e.at) }, f.ago(e.at)),
                  ],
                })),
                { class: "compact", caption: `Leaderboard on ${boardTitle(b)}` },
              ),
            ),
          )
        : h("p", { class: "muted" }, "Nobody has an accepted Submit on this problem yet."),
      h(
        "p",
        { class: "muted small" },
        "Time is the geometric mean of the benchmark shapes' median times; each user's best accepted Submit per GPU model and language. CUDA and Triton are ranked apart: Triton chooses the block, shared memory and pipelining that CUDA leaves to you.",
      ),
    );
  }
  get(`/problems/${problem}/leaderboard`)
    .then((r) => {
      boards = r.boards;
      const gpus = [...new Set(boards.map((b) => b.gpu))];
      const langs = [...new Set(boards.map((b) => b.language || "cuda"))];
      replace(pick, h("option", { value: "" }, "All GPU models"), gpus.map((g) => h("option", { value: g }, g)));
      replace(pickLang, h("option", { value: "" }, "Every language"), langs.map((l) => h("option", { value: l }, languageTitle(l))));
      draw();
    })
    .catch((e) => replace(el, h("p", { class: "error" }, "Could not load the leaderboard: " + e.message)));
  return el;
}

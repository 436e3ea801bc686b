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
  /* Rank by time (the default) or by × PyTorch (?sort=pytorch): the same entries, reordered. */
  const pickSort = h(
    "select",
    { id: "lb-sort", onchange: () => load() },
    h("option", { value: "time" }, "Time"),
    h("option", { value: "pytorch" }, "× PyTorch"),
  );
  function draw() {
    const shown = boards.filter((b) => (!pick.value || b.gpu === pick.value) && (!pickLang.value || (b.language || "cuda") === pickLang.value));
    const gpus = new Set(boards.map((b) => b.gpu));
    const langs = new Set(boards.map((b) => b.language || "cuda"));
    replace(
      el,
      h(
        "div",
        { class: "row" },
        gpus.size > 1 ? [h("label", { for: "lb-gpu", style: "margin: 0" }, "GPU model"), pick] : null,
        langs.size > 1 ? [h("label", { for: "lb-language", style: "margin: 0" }, "Language"), pickLang] : null,
        [h("label", { for: "lb-sort", style: "margin: 0" }, "Rank by"), pickSort],
      ),
      boards.length
        ? shown.map((b) =>
            h(
              "section",
              { dataset: { gpu: b.gpu, language: b.language || "cuda" } },
              h("h3", null, boardTitle(b)),
              table(
                [
                  { text: "Rank", num: true },
                  "User",
                  { text: "Time", num: true },
                  { text: "Speed of light", num: true },
                  { text: h("abbr", { title: "PyTorch's time over yours on the same GPU: the geometric mean over the shapes (above 1×: faster than PyTorch)" }, "× PyTorch"), num: true },
                  "When",
                ],
                b.entries.map((e) => ({
                  attrs: e.user === me ? { class: "current", "aria-current": "true" } : null,
                  cells: [
                    String(e.rank),
                    e.user === me ? h("a", { href: `#/s/${e.submission}` }, e.user + " (you)") : e.user,
                    f.ms(e.time_ms),
                    f.pct(e.score),
                    e.pytorch_speedup ? h("span", { "data-pytorch": "" }, f.speedup(e.pytorch_speedup)) : h("span", { class: "muted" }, "–"),
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
        "Time is the geometric mean of the benchmark shapes' median times; each user's best accepted Submit per GPU model and language. × PyTorch is the geometric mean of PyTorch's time over yours (the problem's baseline.py, timed the judge's way on the same GPU); – where the worker had no PyTorch. CUDA and Triton are ranked apart: Triton chooses the block, shared memory and pipelining that CUDA leaves to you.",
      ),
    );
  }
  function load() {
    const gpu = pick.value,
      lang = pickLang.value;
    get(`/problems/${problem}/leaderboard${pickSort.value === "pytorch" ? "?sort=pytorch" : ""}`)
      .then((r) => {
        boards = r.boards;
        const gpus = [...new Set(boards.map((b) => b.gpu))];
        const langs = [...new Set(boards.map((b) => b.language || "cuda"))];
        replace(pick, h("option", { value: "" }, "All GPU models"), gpus.map((g) => h("option", { value: g }, g)));
        replace(pickLang, h("option", { value: "" }, "Every language"), langs.map((l) => h("option", { value: l }, languageTitle(l))));
        pick.value = gpu;
        pickLang.value = lang;
        el.dataset.sort = r.sort || "time";
        draw();
      })
      .catch((e) => replace(el, h("p", { class: "error" }, "Could not load the leaderboard: " + e.message)));
  }
  load();
  return el;
}

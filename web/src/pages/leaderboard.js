// pages/leaderboard.js - a problem's leaderboards, one per GPU model: each
// user's best accepted Submit, ranked by time.
import { get } from "../api.js";
import { h, replace, table } from "../dom.js";
import * as f from "../format.js";

export function leaderboardView(problem, me) {
  const el = h("div", { class: "leaderboard" }, h("p", { class: "loading" }, "Loading the leaderboard…"));
  let boards = [];
  const pick = h("select", { id: "lb-gpu", onchange: () => draw() });
  function draw() {
    const shown = pick.value ? boards.filter((b) => b.gpu === pick.value) : boards;
    replace(
      el,
      boards.length > 1 ? h("div", { class: "row" }, h("label", { for: "lb-gpu", style: "margin: 0" }, "GPU model"), pick) : null,
      boards.length
        ? shown.map((b) =>
            h(
              "section",
              { dataset: { gpu: b.gpu } },
              h("h3", null, b.gpu),
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
                { class: "compact", caption: `Leaderboard on ${b.gpu}` },
              ),
            ),
          )
        : h("p", { class: "muted" }, "Nobody has an accepted Submit on this problem yet."),
      h("p", { class: "muted small" }, "Time is the geometric mean of the benchmark shapes' median times; each user's best accepted Submit per GPU model."),
    );
  }
  get(`/problems/${problem}/leaderboard`)
    .then((r) => {
      boards = r.boards;
      replace(pick, h("option", { value: "" }, "All GPU models"), boards.map((b) => h("option", { value: b.gpu }, b.gpu)));
      draw();
    })
    .catch((e) => replace(el, h("p", { class: "error" }, "Could not load the leaderboard: " + e.message)));
  return el;
}

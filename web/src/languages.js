// languages.js - the languages a submission may be written in (the server's
// "cuda" and "triton"), as pages name them.
export const LANGUAGES = {
  cuda: { title: "CUDA", file: "CUDA C++ (.cu)", comment: "//" },
  triton: { title: "Triton", file: "Python with Triton (.py)", comment: "#" },
};

/* "CUDA", "Triton"; an unknown name as it is. */
export function languageTitle(name) {
  return (LANGUAGES[name] && LANGUAGES[name].title) || String(name || "CUDA");
}

/* The languages a problem is offered in (GET /api/problems: "languages";
 * a server from before Triton sends none: CUDA). */
export function problemLanguages(p) {
  const l = p && (p.languages || (p.problem && p.problem.languages));
  return l && l.length ? l : ["cuda"];
}

/* "in CUDA or Triton", "in CUDA": how the path says what a problem can be solved in. */
export function offeredIn(languages) {
  const t = (languages && languages.length ? languages : ["cuda"]).map(languageTitle);
  return "in " + (t.length > 1 ? t.slice(0, -1).join(", ") + " or " + t[t.length - 1] : t[0]);
}

/*
 * True when GET /api/status says that no connected worker compiles
 * `language` (so a job in it waits for an admin to add one). CUDA is what
 * every worker compiles: with no worker at all the banners say so, not this.
 * False when the status is unknown, or from a server that does not say.
 */
export function noWorkerFor(status, language) {
  if (!language || language === "cuda" || !status || !status.workers || !status.workers.languages) return false;
  const l = status.workers.languages[language];
  return !l || l.alive === 0;
}

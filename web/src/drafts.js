// drafts.js - the code being written, per user, problem and language, kept in
// the browser (localStorage) so that a reload or another tab loses nothing;
// and the language last chosen for each problem.
//
// Keys: "bw:draft:USER:PROBLEM" for CUDA (the key drafts had before Triton,
// so a CUDA draft from then is found), "bw:draft:USER:PROBLEM:LANGUAGE" for
// the others, and "bw:lang:USER:PROBLEM" for the choice. USER is "-" when
// nobody is signed in.
const PREFIX = "bw:draft:";
const LANG_PREFIX = "bw:lang:";

export function draftKey(user, problem, language) {
  const base = `${PREFIX}${user || "-"}:${problem}`;
  return !language || language === "cuda" ? base : `${base}:${language}`;
}

export function loadDraft(user, problem, language) {
  try {
    const raw = localStorage.getItem(draftKey(user, problem, language));
    if (!raw) return null;
    const d = JSON.parse(raw);
    return typeof d.text === "string" ? d : null;
  } catch (e) {
    return null;
  }
}

/* Returns false when the browser refused (private mode, storage full). */
export function saveDraft(user, problem, text, language) {
  try {
    localStorage.setItem(draftKey(user, problem, language), JSON.stringify({ text, saved_at: Date.now() }));
    return true;
  } catch (e) {
    return false;
  }
}

export function dropDraft(user, problem, language) {
  try {
    localStorage.removeItem(draftKey(user, problem, language));
  } catch (e) {
    /* nothing to drop */
  }
}

/* The language chosen last for this problem, if it is one of `offered`;
 * else the first offered (CUDA). */
export function loadLanguage(user, problem, offered) {
  const langs = offered && offered.length ? offered : ["cuda"];
  try {
    const v = localStorage.getItem(`${LANG_PREFIX}${user || "-"}:${problem}`);
    if (v && langs.includes(v)) return v;
  } catch (e) {
    /* no storage: the default */
  }
  return langs[0];
}

export function saveLanguage(user, problem, language) {
  try {
    localStorage.setItem(`${LANG_PREFIX}${user || "-"}:${problem}`, language);
    return true;
  } catch (e) {
    return false;
  }
}

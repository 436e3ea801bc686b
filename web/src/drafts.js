// drafts.js - the code being written, per user and problem, kept in the
// browser (localStorage) so that a reload or another tab loses nothing.
const PREFIX = "bw:draft:";

function key(user, problem) {
  return `${PREFIX}${user || "-"}:${problem}`;
}

export function loadDraft(user, problem) {
  try {
    const raw = localStorage.getItem(key(user, problem));
    if (!raw) return null;
    const d = JSON.parse(raw);
    return typeof d.text === "string" ? d : null;
  } catch (e) {
    return null;
  }
}

/* Returns false when the browser refused (private mode, storage full). */
export function saveDraft(user, problem, text) {
  try {
    localStorage.setItem(key(user, problem), JSON.stringify({ text, saved_at: Date.now() }));
    return true;
  } catch (e) {
    return false;
  }
}

export function dropDraft(user, problem) {
  try {
    localStorage.removeItem(key(user, problem));
  } catch (e) {
    /* nothing to drop */
  }
}

// theme.js - light and dark themes: the saved choice, else the system's
// (theme-init.js applies it before the first paint).
const KEY = "bw:theme";

export function currentTheme() {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

export function setTheme(t) {
  document.documentElement.dataset.theme = t;
  try {
    localStorage.setItem(KEY, t);
  } catch (e) {
    /* private mode: the choice lasts for this page */
  }
}

export function toggleTheme() {
  setTheme(currentTheme() === "dark" ? "light" : "dark");
  return currentTheme();
}

/* The theme before the first paint (no flash of the wrong one): the saved
 * choice, else the system's. A classic script so that it blocks rendering;
 * src/theme.js in the bundle keeps it in step afterwards. */
(function () {
  var t = null;
  try {
    t = localStorage.getItem("bw:theme");
  } catch (e) {}
  if (t !== "light" && t !== "dark")
    t = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.dataset.theme = t;
})();

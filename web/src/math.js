// math.js - typesets a statement's math with KaTeX. The server leaves the TeX
// in <x-equation> elements (md4c: $...$ inline, $$...$$ with type="display").
// Loaded on demand with the problem page.
import katex from "katex";

export function typeset(root) {
  for (const el of Array.from(root.querySelectorAll("x-equation"))) {
    const display = el.getAttribute("type") === "display";
    const out = document.createElement(display ? "div" : "span");
    out.className = display ? "math display" : "math";
    try {
      katex.render(el.textContent, out, { displayMode: display, throwOnError: false, output: "htmlAndMathml" });
    } catch (e) {
      out.textContent = el.textContent;
    }
    el.replaceWith(out);
  }
}

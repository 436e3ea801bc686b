// dom.js - building DOM nodes without HTML strings (so no user data is ever
// parsed as markup).
//
//   h("a", {href: "#/", class: "x", onclick: fn, "aria-label": "..."}, "text", child, [more])
//
// Attributes: `class`, `style` (a string), `dataset` (an object), on* (event
// listeners), booleans (disabled, checked, hidden, selected...) set as
// properties, `value` as a property, anything else with setAttribute.
// Children: strings and numbers become text, null/undefined/false are skipped,
// arrays are flattened.
const PROPS = new Set(["value", "checked", "disabled", "hidden", "selected", "readOnly", "required", "indeterminate"]);

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function svg(tag, attrs, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) {
      if (PROPS.has(k)) el[k] = false;
      continue;
    }
    if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (PROPS.has(k)) el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

/* Replaces the children of `el`. */
export function replace(el, ...children) {
  el.textContent = "";
  return append(el, children);
}

/* A table from column headers and rows of cells (strings or nodes). A header
 * given as {text, num: true} right-aligns its column. */
export function table(headers, rows, opts = {}) {
  const cols = headers.map((x) => (typeof x === "string" || x instanceof Node ? { text: x } : x));
  const cell = (tag, col, c) => h(tag, col.num ? { class: "num" } : null, c);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: opts.class || null },
      opts.caption ? h("caption", { class: "visually-hidden" }, opts.caption) : null,
      h("thead", null, h("tr", null, cols.map((c) => cell("th", c, c.text)))),
      h(
        "tbody",
        null,
        rows.map((r) => {
          const cells = Array.isArray(r) ? r : r.cells;
          return h("tr", Array.isArray(r) ? null : r.attrs, cells.map((c, i) => cell("td", cols[i] || {}, c)));
        }),
      ),
    ),
  );
}

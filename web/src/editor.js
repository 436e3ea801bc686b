// editor.js - the code editor (CodeMirror 6) and code highlighting for
// statements. Loaded on demand by the problem and submission pages.
//
// The editor, in one of two languages (switched in place, setLanguage):
// CUDA - C++ highlighting plus CUDA's keywords and Blockwise's // directives;
// Triton - Python highlighting plus the # directives. Both: line numbers,
// folding, bracket matching, search, history, the usual keymaps, completion
// (CUDA built-ins or Triton's tl.* words, directives, the problem's names),
// and lint diagnostics placed at the judge's line and (byte) column.
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { cpp, cppLanguage } from "@codemirror/lang-cpp";
import { python, pythonLanguage } from "@codemirror/lang-python";
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
  syntaxTree,
} from "@codemirror/language";
import { forceLinting, lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorSelection, EditorState, Prec } from "@codemirror/state";
import {
  Decoration,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  MatchDecorator,
  rectangularSelection,
  ViewPlugin,
} from "@codemirror/view";
import { classHighlighter, highlightCode, tags as t } from "@lezer/highlight";
import { severity } from "./explain.js";

const CUDA_WORDS = [
  "__global__",
  "__device__",
  "__host__",
  "__shared__",
  "__constant__",
  "__restrict__",
  "__forceinline__",
  "__noinline__",
  "__launch_bounds__",
  "__syncthreads",
  "__syncwarp",
  "__shfl_sync",
  "__shfl_down_sync",
  "__shfl_up_sync",
  "__shfl_xor_sync",
  "__ballot_sync",
  "__any_sync",
  "__all_sync",
  "__ldg",
  "__fmaf_rn",
  "__expf",
  "__half",
  "__nv_bfloat16",
  "__half2float",
  "__float2half",
  "__bfloat162float",
  "__float2bfloat16",
  "atomicAdd",
  "atomicMax",
  "atomicMin",
  "atomicCAS",
  "threadIdx",
  "blockIdx",
  "blockDim",
  "gridDim",
  "warpSize",
  "float2",
  "float4",
  "int2",
  "int4",
  "half2",
];
/* Triton's words a kernel uses most (completion in the Triton editor). */
const TRITON_WORDS = [
  "triton.jit",
  "triton.cdiv",
  "triton.next_power_of_2",
  "tl.constexpr",
  "tl.program_id",
  "tl.num_programs",
  "tl.arange",
  "tl.load",
  "tl.store",
  "tl.zeros",
  "tl.full",
  "tl.where",
  "tl.dot",
  "tl.sum",
  "tl.max",
  "tl.min",
  "tl.argmax",
  "tl.cumsum",
  "tl.maximum",
  "tl.minimum",
  "tl.exp",
  "tl.exp2",
  "tl.log",
  "tl.sqrt",
  "tl.rsqrt",
  "tl.sigmoid",
  "tl.abs",
  "tl.fma",
  "tl.cdiv",
  "tl.reshape",
  "tl.trans",
  "tl.broadcast_to",
  "tl.make_block_ptr",
  "tl.advance",
  "tl.make_tensor_descriptor",
  "tl.atomic_add",
  "tl.atomic_max",
  "tl.multiple_of",
  "tl.max_contiguous",
  "tl.static_range",
  "tl.range",
  "tl.float32",
  "tl.float16",
  "tl.bfloat16",
  "tl.int32",
  "tl.int64",
];

/* A directive line in each language (docs/submission-format.md): "//" and
 * "@" in CUDA; "#" and "@" in Triton, which has no @flags. */
export const DIRECTIVE_LINE = {
  cuda: /^\s*\/\/\s*@(?:launch|const|scratch|tune|flags)\b/gm,
  triton: /^\s*#\s*@(?:launch|const|scratch|tune)\b/gm,
};

const highlightStyle = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.modifier, t.operatorKeyword], color: "var(--hl-keyword)" },
  { tag: [t.typeName, t.standard(t.typeName)], color: "var(--hl-type)" },
  { tag: [t.string, t.character], color: "var(--hl-string)" },
  { tag: [t.number, t.bool, t.null], color: "var(--hl-number)" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "var(--hl-comment)", fontStyle: "italic" },
  { tag: [t.processingInstruction, t.macroName], color: "var(--hl-macro)" },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], color: "var(--hl-function)" },
  { tag: t.invalid, color: "var(--bad)" },
]);

/* CUDA's words and the directive keywords, on top of C++'s highlighting
 * (CUDA's words outside comments and strings only). */
function wordMarker(re, cls, codeOnly) {
  const mark = Decoration.mark({ class: cls });
  const deco = new MatchDecorator({
    regexp: re,
    decorate: (add, from, to, match, view) => {
      if (codeOnly) {
        const node = syntaxTree(view.state).resolveInner(from, 1);
        if (/Comment|String|Char/.test(node.name)) return;
      }
      add(from, to, mark);
    },
  });
  return ViewPlugin.fromClass(
    class {
      constructor(view) {
        this.decorations = deco.createDeco(view);
      }
      update(u) {
        this.decorations = deco.updateDeco(u, this.decorations);
      }
    },
    { decorations: (v) => v.decorations },
  );
}
const cudaMarks = wordMarker(new RegExp("\\b(?:" + CUDA_WORDS.join("|") + ")\\b", "g"), "cm-cuda", true);
const directiveMarks = wordMarker(new RegExp(DIRECTIVE_LINE.cuda.source, "gm"), "cm-directive");
const tritonDirectiveMarks = wordMarker(new RegExp(DIRECTIVE_LINE.triton.source, "gm"), "cm-directive");

/* What differs between the two editors: grammar and marks. */
function languageExtensions(language) {
  return language === "triton" ? [python(), tritonDirectiveMarks] : [cpp(), cudaMarks, directiveMarks];
}

const theme = EditorView.theme({
  "&": { color: "var(--text)", backgroundColor: "var(--surface)", fontSize: "13.5px" },
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--text)" },
  ".cm-gutters": { backgroundColor: "var(--surface-2)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "rgba(127, 127, 127, 0.08)" },
  ".cm-activeLineGutter": { backgroundColor: "rgba(127, 127, 127, 0.14)", color: "var(--text)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection": {
    backgroundColor: "var(--sel) !important",
  },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  ".cm-cuda": { color: "var(--hl-type)", fontWeight: "600" },
  ".cm-directive": { color: "var(--hl-macro)", fontWeight: "600", fontStyle: "normal" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-panels": { backgroundColor: "var(--surface-2)", color: "var(--text)" },
  ".cm-searchMatch": { backgroundColor: "rgba(255, 200, 0, 0.3)" },
  ".cm-lintRange-error": { backgroundColor: "rgba(220, 40, 40, 0.12)" },
  ".cm-lintRange-warning": { backgroundColor: "rgba(220, 150, 0, 0.12)" },
  ".cm-diagnostic": { fontFamily: "var(--mono)", fontSize: "12.5px" },
});

const DIRECTIVE_COMPLETIONS = {
  cuda: [
    { label: "@launch", type: "keyword", apply: "@launch KERNEL grid=(cdiv(N, BLOCK)) block=(BLOCK) args=()", detail: "launch a kernel" },
    { label: "@const", type: "keyword", apply: "@const BLOCK=256", detail: "a named integer" },
    { label: "@scratch", type: "keyword", apply: "@scratch tmp fp32[N]", detail: "a zeroed buffer" },
    { label: "@tune", type: "keyword", apply: "@tune BLOCK=(128, 256, 512)", detail: "values to try" },
    { label: "@flags", type: "keyword", apply: "@flags --use_fast_math", detail: "compiler options" },
  ],
  triton: [
    { label: "@launch", type: "keyword", apply: "@launch KERNEL grid=(cdiv(N, BLOCK)) num_warps=4 args=(BLOCK=BLOCK)", detail: "launch a @triton.jit kernel" },
    { label: "@const", type: "keyword", apply: "@const BLOCK=1024", detail: "a named integer" },
    { label: "@scratch", type: "keyword", apply: "@scratch tmp fp32[N]", detail: "a zeroed buffer" },
    { label: "@tune", type: "keyword", apply: "@tune BLOCK=(256, 512, 1024)", detail: "values to try" },
  ],
};

/* Completions: directives after the language's comment, its words (CUDA's
 * built-ins, or Triton's tl.*) and the problem's names. `current()` says the
 * editor's language now. */
function completions(names, current) {
  const own = (names || []).map((n) => ({ label: n.name, type: "variable", detail: n.detail }));
  const words = {
    cuda: CUDA_WORDS.map((w) => ({ label: w, type: w.startsWith("__") ? "keyword" : "variable" })).concat(own),
    triton: TRITON_WORDS.map((w) => ({ label: w, type: "function" })).concat(own),
  };
  return (ctx) => {
    const lang = current() === "triton" ? "triton" : "cuda";
    const d = ctx.matchBefore(lang === "triton" ? /#\s*@\w*/ : /\/\/\s*@\w*/);
    if (d) {
      const at = d.text.indexOf("@");
      return { from: d.from + at, options: DIRECTIVE_COMPLETIONS[lang], validFor: /^@\w*$/ };
    }
    const w = ctx.matchBefore(lang === "triton" ? /[A-Za-z_][\w.]*/ : /[A-Za-z_]\w*/);
    if (!w || (w.from === w.to && !ctx.explicit)) return null;
    return { from: w.from, options: words[lang], validFor: lang === "triton" ? /^[\w.]*$/ : /^\w*$/ };
  };
}

/* The character offset in `text` of a 1-based byte column (the judge counts
 * UTF-8 bytes; a tab is one column). */
export function byteColumnToOffset(text, column) {
  let bytes = 0;
  let i = 0;
  const want = Math.max(0, column - 1);
  while (i < text.length && bytes < want) {
    const cp = text.codePointAt(i);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/* Judge diagnostics [{line, column, message}] as CodeMirror's. Line 0 means
 * the whole file: shown on line 1. */
export function toCmDiagnostics(doc, diags) {
  const out = [];
  for (const d of diags || []) {
    const lineNo = Math.min(Math.max(1, d.line || 1), doc.lines);
    const line = doc.line(lineNo);
    let from = line.from,
      to = line.to;
    if (d.line > 0 && d.column > 0) {
      from = line.from + Math.min(byteColumnToOffset(line.text, d.column), line.length);
      const rest = line.text.slice(from - line.from);
      const m = /^[A-Za-z0-9_]+/.exec(rest);
      to = from + (m ? m[0].length : rest.length ? 1 : 0);
    }
    const sev = severity(d.message);
    out.push({
      from,
      to,
      severity: sev === "info" ? "info" : sev,
      message: (d.line === 0 ? "(whole file) " : `${d.line}:${d.column}: `) + d.message,
      source: "judge",
    });
  }
  return out;
}

/*
 * A new editor in `parent`. opts: {doc, language ("cuda" or "triton";
 * default CUDA), readOnly, names (for completion), onChange(text), onRun(),
 * onSubmit(), onProfile(), onSave(), label}. Returns {view, text(), setText(s),
 * language(), setLanguage(language, text, label), showDiagnostics(list),
 * clearDiagnostics(), goTo(line, column), focus(), destroy()}.
 */
export function createEditor(parent, opts) {
  let language = opts.language === "triton" ? "triton" : "cuda";
  const grammar = new Compartment();
  const labelled = new Compartment();
  const label = (l, text) => EditorView.contentAttributes.of({ "aria-label": text || (l === "triton" ? "Triton source" : "CUDA source") });
  const keys = [];
  if (opts.onRun) keys.push({ key: "Mod-Enter", run: () => (opts.onRun(), true), preventDefault: true });
  if (opts.onSubmit) keys.push({ key: "Mod-Shift-Enter", run: () => (opts.onSubmit(), true), preventDefault: true });
  if (opts.onProfile) keys.push({ key: "Mod-Alt-Enter", run: () => (opts.onProfile(), true), preventDefault: true });
  if (opts.onSave) keys.push({ key: "Mod-s", run: () => (opts.onSave(), true), preventDefault: true });
  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    foldGutter(),
    drawSelection(),
    EditorState.allowMultipleSelections.of(true),
    indentUnit.of("    "),
    grammar.of(languageExtensions(language)),
    syntaxHighlighting(highlightStyle),
    bracketMatching(),
    highlightSelectionMatches(),
    search({ top: true }),
    lintGutter(),
    theme,
    labelled.of(label(language, opts.label)),
    Prec.highest(keymap.of(keys)),
  ];
  if (opts.readOnly) {
    extensions.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
  } else {
    extensions.push(
      history(),
      indentOnInput(),
      closeBrackets(),
      rectangularSelection(),
      highlightActiveLine(),
      autocompletion({ override: [completions(opts.names, () => language)], activateOnTyping: true }),
      keymap.of([
        ...closeBracketsKeymap,
        ...defaultKeymap,
        ...searchKeymap,
        ...historyKeymap,
        ...foldKeymap,
        ...completionKeymap,
        ...lintKeymap,
        indentWithTab,
      ]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged && opts.onChange) opts.onChange(u.state.doc.toString());
      }),
    );
  }
  const view = new EditorView({ parent, state: EditorState.create({ doc: opts.doc || "", extensions }) });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(s) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: s } });
    },
    language: () => language,
    /* Another language, and its text (the draft or the starter), in one step. */
    setLanguage(l, s, text) {
      language = l === "triton" ? "triton" : "cuda";
      view.dispatch({
        effects: [grammar.reconfigure(languageExtensions(language)), labelled.reconfigure(label(language, text))],
        changes: s === undefined ? undefined : { from: 0, to: view.state.doc.length, insert: s },
      });
    },
    showDiagnostics(list) {
      view.dispatch(setDiagnostics(view.state, toCmDiagnostics(view.state.doc, list)));
    },
    clearDiagnostics() {
      view.dispatch(setDiagnostics(view.state, []));
    },
    goTo(line, column) {
      const doc = view.state.doc;
      const l = doc.line(Math.min(Math.max(1, line || 1), doc.lines));
      const pos = l.from + Math.min(byteColumnToOffset(l.text, column || 1), l.length);
      view.dispatch({ selection: EditorSelection.cursor(pos), effects: EditorView.scrollIntoView(pos, { y: "center" }) });
      view.focus();
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}

/* Highlights the ```cuda / ```cpp (and unmarked) blocks of a rendered
 * statement as C++, and the ```python / ```triton ones as Python, in place
 * (classes tok-*, styled in styles.css). */
export function highlightBlocks(root) {
  for (const code of root.querySelectorAll("pre > code")) {
    const cls = code.className || "";
    const py = /language-(python|py|triton)\b/.test(cls);
    if (cls && !py && !/language-(cuda|cpp|c\+\+|c)\b/.test(cls)) continue;
    const text = code.textContent;
    const frag = document.createDocumentFragment();
    highlightCode(
      text,
      (py ? pythonLanguage : cppLanguage).parser.parse(text),
      classHighlighter,
      (s, classes) => {
        if (!classes) frag.appendChild(document.createTextNode(s));
        else {
          const span = document.createElement("span");
          span.className = classes;
          span.textContent = s;
          frag.appendChild(span);
        }
      },
      () => frag.appendChild(document.createTextNode("\n")),
    );
    code.textContent = "";
    code.appendChild(frag);
  }
}

export { forceLinting };

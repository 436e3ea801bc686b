// build.mjs - bundles the web app into dist/ with esbuild and reports its size.
//
//   node build.mjs            build dist/ (minified, hashed asset names)
//
// dist/index.html is written from src/index.html with the hashed names of the
// entry's script and style sheet; everything else lands in dist/assets/, which
// blockwise-server serves as immutable. The editor, KaTeX and the chart live in
// chunks loaded on demand, so the first page (the path) loads only what it uses.
// The sizes (raw and gzipped) of the first load and of a problem page are
// printed and kept in dist/size.json; a first load over the budget fails the build.
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
const BUDGET_GZIP = 500 * 1024; /* first load, gzipped */

/* KaTeX's style sheet lists woff2, woff and ttf for every font; every browser
 * we support takes woff2, so the other two are dropped (smaller dist/). */
const katexWoff2Only = {
  name: "katex-woff2-only",
  setup(build) {
    build.onLoad({ filter: /katex(\.min)?\.css$/ }, async (args) => {
      let css = await fs.promises.readFile(args.path, "utf8");
      css = css.replace(/,\s*url\([^)]*\.woff\)\s*format\("woff"\)/g, "");
      css = css.replace(/,\s*url\([^)]*\.ttf\)\s*format\("truetype"\)/g, "");
      return { contents: css, loader: "css" };
    });
  },
};

fs.rmSync(dist, { recursive: true, force: true });
const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { app: "src/main.js" },
  bundle: true,
  splitting: true,
  format: "esm",
  outdir: "dist/assets",
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  minify: true,
  sourcemap: "linked",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  loader: { ".woff2": "file" },
  legalComments: "linked",
  metafile: true,
  logLevel: "warning",
  plugins: [katexWoff2Only],
});

const outputs = result.metafile.outputs;
const rel = (p) => path.relative(path.join(here, "dist"), path.join(here, p));
const entry = Object.keys(outputs).find((k) => outputs[k].entryPoint === "src/main.js");
const css = outputs[entry].cssBundle;
const template = fs.readFileSync(path.join(here, "src/index.html"), "utf8");
const html = template
  .replace("<!--APP_CSS-->", `<link rel="stylesheet" href="/${rel(css)}">`)
  .replace("<!--APP_JS-->", `<script type="module" src="/${rel(entry)}"></script>`);
fs.writeFileSync(path.join(dist, "index.html"), html);
for (const f of ["favicon.svg", "theme-init.js"]) fs.copyFileSync(path.join(here, "src", f), path.join(dist, f));
/* The learner's command line (../cli/blockwise, docs/cli.md), served beside
 * the pages so that the account page can say `curl -O ORIGIN/blockwise`. */
const cli = path.join(here, "..", "cli", "blockwise");
if (fs.existsSync(cli)) fs.copyFileSync(cli, path.join(dist, "blockwise"));

/* The files a page needs: the entry, what it imports statically (and, for a
 * problem page, dynamically), their style sheets. */
function closure(start, dynamic) {
  const seen = new Set();
  const stack = [start];
  while (stack.length) {
    const f = stack.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    const o = outputs[f];
    if (o.cssBundle) seen.add(o.cssBundle);
    for (const imp of o.imports) {
      if (imp.external || imp.path.endsWith(".woff2")) continue;
      if (imp.kind === "dynamic-import" && !dynamic) continue;
      stack.push(imp.path);
    }
  }
  return [...seen];
}
function measure(files) {
  let raw = 0,
    gz = 0;
  for (const f of files) {
    const data = fs.readFileSync(path.join(here, f));
    raw += data.length;
    gz += gzipSync(data, { level: 9 }).length;
  }
  return { files: files.length, raw, gzip: gz };
}
const indexFile = "dist/index.html";
const shell = [indexFile, "dist/theme-init.js", "dist/favicon.svg"];
const first = measure([...shell, ...closure(entry, false)]);
/* A problem page also loads the lazy chunks and the KaTeX fonts its math uses
 * (counted: the regular and italic math fonts, the usual ones). */
const fonts = Object.keys(outputs).filter((k) => /KaTeX_(Main-Regular|Math-Italic)-.*\.woff2$/.test(k));
const problem = measure([...shell, ...closure(entry, true), ...fonts]);
const all = measure(Object.keys(outputs).filter((k) => !k.endsWith(".map")).concat(shell));
const kb = (n) => (n / 1024).toFixed(1) + " KB";
const report = { budget_gzip: BUDGET_GZIP, first_load: first, problem_page: problem, all_assets: all };
fs.writeFileSync(path.join(dist, "size.json"), JSON.stringify(report, null, 2) + "\n");
console.log(
  `web: first load ${kb(first.gzip)} gzipped (${kb(first.raw)} raw, ${first.files} files); ` +
    `problem page ${kb(problem.gzip)} gzipped (${kb(problem.raw)} raw); ` +
    `all assets ${kb(all.gzip)} gzipped`,
);
if (first.gzip > BUDGET_GZIP) {
  console.error(`web: the first load is over its budget of ${kb(BUDGET_GZIP)} gzipped`);
  process.exit(1);
}

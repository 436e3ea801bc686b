// browser.mjs - the web app in headless Chromium against the real server and
// a real judged worker (compile-only: no GPU here). Run by tests/cpu/browser.sh,
// which prepares the configuration, the admin and the worker tokens and passes
// them in the environment (BW_*). Prints "N passed, N failed, N skipped" last.
//
// The story: a learner signs up (by keyboard), opens a problem, runs a kernel
// with a compile error while no worker is connected (it waits, and says so),
// the worker connects and the events arrive, the error shows in the editor at
// its line; the quota goes down; a correct kernel compiles and waits for a
// GPU; a fake GPU worker (test/fake-worker.mjs) then judges a Submit (live
// tests and timings, the chart), a Wrong Answer (mismatch table) and a Runtime
// Error (explained). Meanwhile (issue 12) the editor stays free while a Run
// waits for a GPU, more Runs than the in-flight cap may wait, the banner says
// how an admin adds a GPU worker, and waiting Runs are cancelled from the
// page. History and diff, leaderboard, the path's progress. Triton (issue 11):
// the language choice, the Python starter, a draft per language across a
// reload, a Triton Run that waits because no worker here compiles Triton, the
// language in the lists and on the admin page. Profile mode (issue 29): the
// button and its shortcut, a Profiling stage, the panel under the result
// (reading, a row per kernel launch, the chart, stalls, caches, bytes against
// the model), the raw report downloaded, and a profile the worker could not
// take, with its sentence.
// Another learner cannot reach the first one's code. The server goes away and
// comes back. Admin and instructor pages. A narrow screen in the dark theme.
// A Run whose answer is lost on the way back is sent again with its
// Idempotency-Key and makes one submission.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { FakeWorker, FAKE_GPU } from "./fake-worker.mjs";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set (run tests/cpu/browser.sh)`);
  return v;
};
const BASE = env("BW_BASE");
/* How many problems the server serves: the tests count on every one being listed. */
let PROBLEMS = 0;
const TMP = env("BW_TMP");
const ROOT = env("BW_ROOT");
const ART = env("BW_ARTIFACTS");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let passed = 0,
  failed = 0,
  skipped = 0;
const children = new Set();

function track(child) {
  children.add(child);
  fs.appendFileSync(path.join(TMP, "pids"), child.pid + "\n");
  child.on("exit", () => children.delete(child));
  return child;
}

function startServer() {
  const log = fs.openSync(path.join(TMP, "server.log"), "a");
  const child = track(spawn(env("BW_SERVER"), ["-c", env("BW_CONF")], { cwd: ROOT, stdio: ["ignore", log, log] }));
  return waitHealthy().then(() => child);
}
async function waitHealthy() {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(BASE + "/api/health");
      if (r.ok) return;
    } catch (e) {
      /* not yet */
    }
    await sleep(50);
  }
  throw new Error("the server did not start");
}
function stopChild(child) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}
function startWorker() {
  const log = fs.openSync(path.join(TMP, "judged.log"), "a");
  return track(
    spawn(
      env("BW_JUDGED"),
      ["--server", BASE, "--token-file", env("BW_WORKER_TOKEN"), "--gpu", "0", "--cache", process.env.BW_JUDGED_CACHE || path.join(TMP, "judged-cache"), "--log-level", "info"],
      { cwd: ROOT, stdio: ["ignore", log, log], env: { ...process.env, HOME: TMP } },
    ),
  );
}

async function test(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n     ${String((e && e.stack) || e).split("\n").slice(0, 6).join("\n     ")}`);
  }
}
function check(cond, what) {
  if (!cond) throw new Error(what);
}

/* ---- page helpers ---- */
/* A whole-page screenshot (from the top, so sticky parts sit where they
 * belong), or with `at`, the viewport with that element scrolled into view. */
async function shot(page, name, at) {
  if (at) {
    await page.locator(at).first().evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.evaluate(() => window.scrollBy(0, -70));
    await page.screenshot({ path: path.join(ART, `${name}.png`) });
    return;
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(ART, `${name}.png`), fullPage: true });
}
async function text(page, sel) {
  return (await page.locator(sel).first().textContent({ timeout: 10000 })) || "";
}
async function waitText(page, sel, re, timeout = 20000) {
  await page.waitForFunction(
    ([s, src, flags]) => {
      const el = document.querySelector(s);
      return el && new RegExp(src, flags).test(el.textContent);
    },
    [sel, re.source, re.flags],
    { timeout },
  );
}
async function setEditor(page, source) {
  await page.locator(".editor .cm-content").first().click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(source);
  const got = await editorText(page);
  check(got === source, `the editor holds what was typed (got ${JSON.stringify(got.slice(0, 80))}...)`);
}
async function editorText(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll(".editor .cm-content .cm-line")).map((l) => l.textContent).join("\n"));
}
async function currentSubmission(page) {
  const h = await text(page, ".results h2");
  const m = /#(\d+)/.exec(h);
  check(m, `the results name their submission (${h})`);
  return Number(m[1]);
}
async function quota(page, which) {
  return text(page, `[data-quota="${which}"]`);
}
/* How many pixels the page is wider than the window, and (when it is) the
 * elements that stick out past its right edge, innermost first, for the
 * message. */
async function sideways(page) {
  return page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    const out = [];
    if (over > 1)
      for (const el of Array.from(document.querySelectorAll("body *")).reverse()) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > window.innerWidth + 1 && out.length < 6)
          out.push(`${el.tagName.toLowerCase()}${typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\s+/).join(".") : ""} (${Math.round(r.left)}..${Math.round(r.right)})`);
      }
    return { over, out };
  });
}
async function noSideways(page, what) {
  const s = await sideways(page);
  check(s.over <= 1, `${what}: no sideways scrolling at ${await page.evaluate(() => window.innerWidth)} px (the page is ${s.over} px too wide: ${s.out.join(", ")})`);
}
/* Each page at 400 px and at 1280 px: never wider than the window; at
 * 1280 px the header is one line. Leaves the window 1280 x 800. */
async function widths(page, pages, at400) {
  for (const width of [400, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    for (const [what, route, sel] of pages) {
      await page.goto(`${BASE}/${route}`);
      await page.waitForSelector(sel);
      await noSideways(page, what);
      if (width === 1280) await headerOneLine(page, what);
    }
    if (width === 400 && at400) await at400();
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
/* The header on one line: every link, chip and button in it sits on the
 * same line (their vertical middles within 4 px of each other). */
async function headerOneLine(page, what) {
  const r = await page.evaluate(() => {
    const items = Array.from(document.querySelectorAll("header.top .brand, header.top .nav a, header.top .quota > span, header.top .user, header.top button, header.top a.button"));
    const mids = items.map((e) => {
      const b = e.getBoundingClientRect();
      return Math.round(b.top + b.height / 2);
    });
    return {
      n: items.length,
      spread: Math.max(...mids) - Math.min(...mids),
      height: Math.round(document.querySelector("header.top").getBoundingClientRect().height),
      widths: items.map((e) => `${e.textContent.trim().slice(0, 24)} ${Math.round(e.getBoundingClientRect().width)}`).join(", "),
    };
  });
  check(r.n >= 4 && r.spread <= 4, `${what}: the header is one line at ${await page.evaluate(() => window.innerWidth)} px (its items' middles spread over ${r.spread} px, ${r.height} px high: ${r.widths})`);
}
async function signOut(page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForSelector("form.form");
}
async function signIn(page, name, password) {
  await page.goto(BASE + "/#/signin");
  await page.fill("#name", name);
  await page.fill("#password", password);
  await page.press("#password", "Enter");
  await page.waitForSelector(`[data-user="${name}"]`);
}

const CE_SOURCE = `// @const BLOCK=256
// @launch vector_add grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, C, N)

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n)
{
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) c[i] = a[i] + b[j];
}`;

async function launch() {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-chromium-"));
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(15000);
  page.on("dialog", (d) => d.accept());
  return { context, page, userDir };
}

/*
 * On the GPU machine (BW_MODE=gpu, tests/gpu/web.sh): the real judged runs
 * the kernels. A learner submits the reference solution (Accepted, timed,
 * the chart against the measured limits), an off-by-one kernel (Wrong
 * Answer, the mismatch table) and a kernel without its tail mask (Memory
 * Violation, explained). The submissions are saved as JSON next to the
 * screenshots, for tests/cpu/browser.sh to replay (BW_GPU_RESULTS).
 */
async function gpuMain() {
  fs.mkdirSync(ART, { recursive: true });
  let server = await startServer();
  const worker = startWorker();
  const { context, page, userDir } = await launch();
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const read = (f) => fs.readFileSync(path.join(ROOT, "problems/vector-add", f), "utf8").replace(/\n+$/, "");
  const save = async (id, name) => {
    const r = await page.request.get(`${BASE}/api/submissions/${id}`);
    fs.writeFileSync(path.join(ART, name), JSON.stringify(await r.json(), null, 1));
  };
  const runAndWait = async (source, submit, verdict) => {
    await setEditor(page, source);
    const before = (await page.locator(".results h2").count()) ? await currentSubmission(page) : 0;
    await page.keyboard.press(submit ? "Control+Shift+Enter" : "Control+Enter");
    await page.waitForFunction((prev) => {
      const h = document.querySelector(".results h2");
      return h && /#(\d+)/.exec(h.textContent) && /#(\d+)/.exec(h.textContent)[1] !== String(prev);
    }, before);
    const id = await currentSubmission(page);
    await page.waitForSelector(`.verdict-card[data-verdict]`, { timeout: 300000 });
    const got = await page.getAttribute(".verdict-card[data-verdict]", "data-verdict");
    check(got === verdict, `verdict ${verdict} (got ${got}: ${await text(page, ".verdict-card")})`);
    return id;
  };
  try {
    await test("sign up; the GPU worker connects (after calibrating)", async () => {
      await page.goto(BASE + "/#/signup");
      await page.fill("#name", "gpu-learner");
      await page.fill("#password", "gpu-learner-password");
      await page.press("#password", "Enter");
      await page.waitForSelector('[data-user="gpu-learner"]');
      const until = Date.now() + 300000;
      let st = null;
      while (Date.now() < until) {
        st = await (await page.request.get(`${BASE}/api/status`)).json();
        if (st.workers.gpu > 0) break;
        await sleep(1000);
      }
      check(st && st.workers.gpu > 0, "a GPU worker is alive: " + JSON.stringify(st));
    });
    await test("Submit the solution: tests and timings live, the chart against the GPU's measured limits", async () => {
      await page.goto(`${BASE}/#/p/vector-add`);
      await page.waitForSelector(".editor .cm-content");
      const id = await runAndWait(read("solution.cu"), true, "AC");
      const events = await page.$$eval(".events li", (ls) => ls.map((l) => l.dataset.event));
      check(events.includes("test") && events.includes("bench"), "tests and shapes arrived live: " + events.join(" "));
      check((await page.locator(".chart svg rect.bar").count()) === 2, "two bars");
      const gpu = await text(page, ".benches [data-gpu]");
      check(/Limits measured on this GPU: copy/.test(gpu), "the GPU and its limits: " + gpu);
      check((await page.locator('.kernels td code').count()) >= 1, "the kernel's resources");
      await save(id, "vector-add-submit.json");
      await shot(page, "gpu-01-accepted-timings", ".results");
    });
    await test("a Wrong Answer: the failing test's sizes and the mismatch table", async () => {
      const id = await runAndWait(read("wrong/one_short.cu"), false, "WA");
      check((await page.locator(".failure table.sizes tbody tr").count()) >= 1, "the failing test's sizes");
      check((await page.locator(".mismatch tbody tr").count()) >= 1, "mismatch rows");
      await save(id, "vector-add-wrong.json");
      await shot(page, "gpu-02-wrong-answer", ".results");
    });
    await test("a Memory Violation is explained", async () => {
      const id = await runAndWait(read("wrong/no_mask.cu"), false, "MV");
      check(/past the end/.test(await text(page, ".failure")), "it says where: " + (await text(page, ".failure")));
      await save(id, "vector-add-mv.json");
      await shot(page, "gpu-03-memory-violation", ".results");
    });
    await test("the leaderboard and the path", async () => {
      await page.click("#tab-leaderboard");
      await page.waitForSelector(".leaderboard tr.current");
      await page.goto(`${BASE}/#/`);
      await page.waitForSelector('li[data-problem="vector-add"][data-status="solved"]');
      await shot(page, "gpu-04-path");
      check(pageErrors.length === 0, "page errors: " + pageErrors.join(" | "));
    });
  } finally {
    await context.close().catch(() => {});
    fs.rmSync(userDir, { recursive: true, force: true });
    await stopChild(worker);
    await stopChild(server);
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed ? 1 : 0;
}

async function main() {
  if (process.env.BW_MODE === "gpu") return gpuMain();
  fs.mkdirSync(ART, { recursive: true });
  let server = await startServer();
  let worker = null;
  const { context, page, userDir } = await launch();
  const outside = [];
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(BASE) && !u.startsWith("data:") && !u.startsWith("blob:")) outside.push(u);
  });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) pageErrors.push("CSP: " + m.text());
  });
  const fake = new FakeWorker(BASE, fs.readFileSync(env("BW_FAKE_TOKEN"), "utf8").trim());
  const ids = {};
  const problem = await (await fetch(BASE + "/api/problems/vector-add")).json();
  const solution = fs.readFileSync(path.join(ROOT, "problems/vector-add/solution.cu"), "utf8").replace(/\n+$/, "");
  const wrong = fs.readFileSync(path.join(ROOT, "problems/vector-add/wrong/one_short.cu"), "utf8").replace(/\n+$/, "");
  let testNames = [];

  try {
    PROBLEMS = (await (await fetch(BASE + "/api/problems")).json()).problems.length;
    await test("the path loads from the server alone, signed out", async () => {
      await page.goto(BASE + "/");
      await page.waitForSelector('[data-problem="vector-add"]');
      check((await page.locator("section.step").count()) === 8, "eight steps");
      check((await page.locator("li[data-problem]").count()) === PROBLEMS, `all ${PROBLEMS} problems`);
      check(/Create an account/.test(await text(page, "main")), "an invitation to sign up");
      await shot(page, "01-path-signed-out");
    });

    await test("sign up by keyboard only; the form explains a refusal", async () => {
      await page.goto(BASE + "/#/signup");
      await page.waitForSelector("#name:focus");
      await page.keyboard.type("alice");
      await page.keyboard.press("Tab");
      await page.keyboard.type("short");
      await page.keyboard.press("Enter");
      await waitText(page, "form [role=alert]", /at least 8 characters/);
      await page.keyboard.press("Control+A");
      await page.keyboard.type("alice-password");
      await page.keyboard.press("Enter");
      await page.waitForSelector('[data-user="alice"]');
      check(/learner/.test(await text(page, ".top .role")), "the role is shown");
      check((await quota(page, "run")) === "10 Runs left this hour", "a full run quota: " + (await quota(page, "run")));
      check((await quota(page, "submit")) === "5 Submits left this hour", "a full submit quota: " + (await quota(page, "submit")));
    });

    await test("no worker connected: a banner says submissions wait", async () => {
      await page.waitForSelector('[data-banner="no-worker"]');
    });

    await test("the path shows the eight steps, statuses and progress", async () => {
      await page.goto(BASE + "/#/");
      await page.waitForSelector('li[data-problem="vector-add"][data-status="new"]');
      check(new RegExp(`0 of ${PROBLEMS}`).test(await text(page, "#progress-text")), "no problem solved yet");
      await shot(page, "02-path");
    });

    await test("a problem: statement with KaTeX, signature table, starter code in the editor", async () => {
      await page.click('li[data-problem="vector-add"] a');
      await page.waitForSelector(".editor .cm-content");
      check((await page.locator(".statement .katex").count()) > 3, "math is typeset");
      check((await page.locator(".statement x-equation").count()) === 0, "no TeX left untypeset");
      check((await page.locator(".statement .katex-display").count()) >= 1, "display math");
      const sig = await text(page, "table.signature");
      for (const n of ["A", "B", "C", "N", "const float*", "long long"]) check(sig.includes(n), `the signature lists ${n}`);
      check(/N = 268,435,456/.test(await text(page, "table.benchmarks")), "the benchmark sizes");
      check((await editorText(page)) === problem.starter, "the editor holds the starter");
      check((await page.locator(".cm-cuda").count()) > 0, "CUDA words are highlighted");
      check((await page.locator(".goals-preview").count()) === 0, "vector-add states no learning goal");
      await shot(page, "03-problem");
    });

    await test("a problem's learning goals are stated before anything is submitted", async () => {
      await page.goto(BASE + "/#/p/vectorized-add");
      await page.waitForSelector(".goals-preview li[data-goal]");
      check((await page.locator(".goals-preview li[data-goal]").count()) === 2, "two goals");
      const goals = await text(page, ".goals-preview");
      check(/LDG\.E\.128/.test(goals) && /STG\.E\.128/.test(goals), "the SASS patterns: " + goals);
      check(/At least 90% of the copy bandwidth/.test(goals), "the bandwidth line: " + goals);
      check(/never change/.test(goals), "goals never change the verdict");
      await page.locator(".goals-preview").scrollIntoViewIfNeeded();
      await shot(page, "03b-problem-goals");
      await page.goto(BASE + "/#/p/vector-add");
      await page.waitForSelector(".editor .cm-content");
    });

    await test("Run a compile error with no worker: queued, and the page says why it waits", async () => {
      await setEditor(page, CE_SOURCE);
      await page.keyboard.press("Control+Enter");
      await page.waitForSelector('.events li[data-event="state"]');
      ids.ce = await currentSubmission(page);
      await waitText(page, ".results .status", /Queued/);
      check((await page.locator('.stages li[data-stage="queued"].active').count()) === 1, "the queued stage is current");
      await page.waitForFunction(() => document.querySelector('[data-quota="run"]').textContent === "9 Runs left this hour");
      check(/In flight 1\/4/.test(await quota(page, "in-flight")), "one submission in flight");
    });

    await test("the worker connects: events arrive live, Compile Error at its line in the editor", async () => {
      worker = startWorker();
      await page.waitForSelector('.verdict-card[data-verdict="CE"]', { timeout: 60000 });
      const events = await page.$$eval(".events li", (ls) => ls.map((l) => l.dataset.event));
      for (const e of ["state", "judging", "compiling", "compiled", "done"]) check(events.includes(e), `event ${e} arrived (${events.join(" ")})`);
      check(events.indexOf("judging") < events.indexOf("compiled") && events.indexOf("compiled") < events.indexOf("done"), "in order");
      await page.waitForSelector(".cm-lintRange-error");
      const line = await page.evaluate(() => {
        const r = document.querySelector(".cm-lintRange-error");
        const l = r.closest(".cm-line");
        return Array.from(l.parentNode.children).indexOf(l) + 1;
      });
      check(line === 7, `the error is marked on line 7 (got ${line})`);
      check((await page.locator('.diags li[data-line="7"]').count()) >= 1, "the diagnostics list names line 7");
      await page.click('.diags li[data-line="7"] button');
      const active = await page.evaluate(() => {
        const l = document.querySelector(".cm-activeLine");
        return Array.from(l.parentNode.children).indexOf(l) + 1;
      });
      check(active === 7, `clicking the diagnostic moves the cursor to line 7 (got ${active})`);
      check((await page.locator(".cm-lint-marker-error").count()) >= 1, "a marker in the gutter");
      check(!(await page.locator(".testbar").isVisible()), "no test squares: no test ran");
      const r = await (await page.request.get(`${BASE}/api/submissions/${ids.ce}`)).json();
      testNames = r.result.tests.map((t) => t.name);
      check(testNames.length === problem.tests, "the result lists every test");
      await shot(page, "04-compile-error");
      await shot(page, "04b-compile-error-results", ".results");
    });

    await test("with a compile-only worker the banner says jobs wait for a GPU", async () => {
      await page.waitForSelector('[data-banner="no-gpu"]', { timeout: 15000 });
    });

    await test("the draft and the last result survive a reload; Reset brings the starter back", async () => {
      await page.reload();
      await page.waitForSelector(".editor .cm-content");
      check((await editorText(page)).includes("b[j]"), "the draft came back");
      await page.waitForSelector('.verdict-card[data-verdict="CE"]'); /* the last result, shown again */
      await page.waitForSelector(".cm-lintRange-error");
      await page.click('[data-action="reset"]');
      await page.waitForSelector(".cm-lintRange-error", { state: "detached" });
      await page.waitForFunction((s) => Array.from(document.querySelectorAll(".editor .cm-line")).map((l) => l.textContent).join("\n") === s, problem.starter);
    });

    await test("Run a correct kernel: it compiles, then waits for a GPU, clearly", async () => {
      await setEditor(page, solution);
      await page.click('[data-action="run"]');
      await page.waitForSelector('.events li[data-event="state"]');
      ids.run = await currentSubmission(page);
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      await waitText(page, ".results .status", /waiting for a GPU worker/);
      check((await page.locator('.stages li[data-stage="gpu"].active').count()) === 1, "the stage says so");
      check((await page.locator('.stages li[data-stage="compiling"].done').count()) === 1, "compiling is done");
      check(/this server has no GPU worker connected/.test(await text(page, '[data-waiting="gpu"]')), "it says none is connected");
      check((await page.locator(".kernels td code").first().textContent()) === "vector_add", "the kernel's resources from the compile");
      check((await quota(page, "run")) === "8 Runs left this hour", "the run quota went down again: " + (await quota(page, "run")));
      await shot(page, "05-waiting-for-gpu", ".results");
    });

    /* Issue 12: without a GPU worker the learner is not stuck. */
    await test("while a Run waits for a GPU the editor stays usable, and the banner says how an admin adds a GPU worker", async () => {
      await page.waitForFunction(() => !document.querySelector('[data-action="run"]').disabled && !document.querySelector('[data-action="submit"]').disabled);
      const banner = await text(page, '[data-banner="no-gpu"]');
      check(/This server has no GPU worker connected\./.test(banner), "the banner says so plainly: " + banner);
      check(/Keep editing and running meanwhile/.test(banner), "and that the learner can go on");
      await page.click('[data-banner="no-gpu"] details summary');
      const mk = await text(page, '[data-banner="no-gpu"] pre[data-cmd="create-worker"]');
      const jd = await text(page, '[data-banner="no-gpu"] pre[data-cmd="judged"]');
      check(/blockwise-server -c CONFIG create-worker gpu0 --token-file \/etc\/blockwise\/gpu0\.token/.test(mk), "the create-worker line: " + mk);
      check(jd.includes(`judged --server ${BASE} --token-file /etc/blockwise/gpu0.token --gpu 0`), "the judged line names this server: " + jd);
      check(/Keep editing and running/.test(await text(page, '[data-waiting="gpu"]')), "the waiting card says the editor is free");
      await shot(page, "05b-no-gpu-banner");
      await page.click('[data-banner="no-gpu"] details summary');
    });

    await test("more Runs than the in-flight cap may wait for a GPU; a compile error still comes back at once", async () => {
      await page.goto(BASE + "/#/p/relu");
      await page.waitForSelector(".editor .cm-content");
      const relu = fs.readFileSync(path.join(ROOT, "problems/relu/solution.cu"), "utf8").replace(/\n+$/, "");
      await setEditor(page, relu);
      ids.parked = [];
      for (let i = 0; i < 3; i++) {
        const before = ids.parked.length ? ids.parked[ids.parked.length - 1] : 0;
        await page.waitForFunction(() => !document.querySelector('[data-action="run"]').disabled);
        await page.click('[data-action="run"]');
        await page.waitForFunction((prev) => {
          const x = document.querySelector(".results h2");
          const m = x && /#(\d+)/.exec(x.textContent);
          return m && m[1] !== String(prev);
        }, before);
        ids.parked.push(await currentSubmission(page));
        await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      }
      /* ids.run (vector-add) and these three: 4 wait, as many as the cap (quota_in_flight = 4) */
      await page.waitForFunction(() => /In flight 0\/4/.test(document.querySelector('[data-quota="in-flight"]').textContent));
      check(/4 wait for a GPU/.test(await quota(page, "in-flight")), "the header says 4 wait for a GPU: " + (await quota(page, "in-flight")));
      await setEditor(page, relu + "\nint broken = ;");
      await page.waitForFunction(() => !document.querySelector('[data-action="run"]').disabled);
      await page.click('[data-action="run"]');
      await page.waitForSelector('.verdict-card[data-verdict="CE"]', { timeout: 60000 });
      ids.reluCe = await currentSubmission(page);
      check(!ids.parked.includes(ids.reluCe), "a new submission");
      check((await quota(page, "run")) === "4 Runs left this hour", "the run quota counts them all: " + (await quota(page, "run")));
    });

    await test("while 4 Runs wait for a GPU: no page wider than 400 px, the header one line at 1280 px, quotas say what is left", async () => {
      check(/^4 Runs left this hour$/.test(await quota(page, "run")), "the Run quota says what is left, and over what: " + (await quota(page, "run")));
      check(/^5 Submits left this hour$/.test(await quota(page, "submit")), "the Submit quota too: " + (await quota(page, "submit")));
      await widths(
        page,
        [
          ["a problem", "#/p/relu", ".editor .cm-content"],
          ["a Run waiting for a GPU", `#/s/${ids.parked[0]}`, '[data-waiting="gpu"]'],
          ["my submissions", "#/history", ".history"],
          ["the path", "#/", '[data-problem="relu"]'],
        ].map(([what, route, sel]) => [what + " (4 wait for a GPU)", route, sel]),
        () => shot(page, "08c-header-400-waiting"),
      );
      check(/4 wait for a GPU/.test(await quota(page, "in-flight")), "the waiting count was shown throughout: " + (await quota(page, "in-flight")));
    });

    await test("cancel from the page: on the submission's page and from My submissions, with who and when", async () => {
      const [p1, p2, p3] = ids.parked;
      await page.goto(`${BASE}/#/s/${p3}`);
      await page.waitForSelector('[data-waiting="gpu"]');
      await page.click('.results [data-action="cancel"]');
      await page.waitForSelector('.verdict-card.cancelled[data-cancelled="alice"]', { timeout: 15000 });
      check(/Cancelled by alice .* while it waited for a GPU/.test(await text(page, ".results .status")), "the status says who: " + (await text(page, ".results .status")));
      check((await page.locator('.stages li[data-stage="done"]').textContent()) === "Cancelled", "the last stage reads Cancelled");
      check((await page.locator('.results [data-action="cancel"]:visible').count()) === 0, "no Cancel button any more");
      await page.reload();
      await page.waitForSelector('.verdict-card.cancelled[data-cancelled="alice"]');
      check(/cancelled by alice/.test(await text(page, "[data-submission] .card p")), "loaded again, the page's header line says it");
      check((await page.locator('.results [data-action="cancel"]').count()) === 0, "and offers no Cancel");
      await shot(page, "05c-cancelled-submission");
      await page.goto(`${BASE}/#/p/relu/history`);
      await page.waitForSelector(`tr[data-submission="${p1}"] [data-action="cancel"]`);
      /* one position everywhere (issue 7): the list as on the submission's own page */
      for (const id of [p1, p2]) {
        const shown = await page.getAttribute(`tr[data-submission="${id}"] [data-position]`, "data-position");
        const own = (await (await page.request.get(`${BASE}/api/submissions/${id}`)).json()).position;
        check(Number(shown) === own && own > 0, `#${id}: position ${shown} in the list, ${own} on its page`);
        check(/waiting for a GPU · position \d+/.test(await text(page, `tr[data-submission="${id}"]`)), "the list says it waits for a GPU, and where");
      }
      await shot(page, "05d-history-waiting", ".history-view");
      for (const id of [p1, p2]) {
        await page.click(`tr[data-submission="${id}"] [data-action="cancel"]`);
        await page.waitForSelector(`tr[data-submission="${id}"] [data-state="cancelled"]`, { timeout: 15000 });
      }
      for (const id of [p1, p2, p3]) check(/cancelled by alice/.test(await text(page, `tr[data-submission="${id}"]`)), `#${id} reads cancelled by alice`);
      check((await page.locator(`tr[data-submission="${ids.reluCe}"] .verdict.CE`).count()) === 1, "the compile error keeps its verdict");
      await page.waitForFunction(() => /1 wait for a GPU/.test(document.querySelector('[data-quota="in-flight"]').textContent));
      await shot(page, "05e-history-cancelled", ".history-view");
      const st = await (await page.request.get(`${BASE}/api/status`)).json();
      check(st.queue.waiting_for_gpu === 1, "only the vector-add Run still waits: " + JSON.stringify(st.queue));
      await page.goto(BASE + "/#/p/vector-add");
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 20000 }); /* ids.run, followed again */
      check((await currentSubmission(page)) === ids.run, "the vector-add page follows its waiting Run again");
    });

    await test("a GPU worker judges the Run (tests only)", async () => {
      await fake.register();
      await fake.judge(ids.run, "AC", { tests: testNames, benches: problem.benchmarks });
      await page.waitForSelector('.verdict-card[data-verdict="AC"]', { timeout: 20000 });
      check(/Submit to be timed/.test(await text(page, ".verdict-card")), "a Run says it was not timed");
      check((await page.locator(".testbar span.AC").count()) === testNames.length, "every test square is green");
    });

    await test("Submit: tests and timings arrive live; the chart against the GPU's measured limits", async () => {
      await page.keyboard.press("Control+Shift+Enter");
      await page.waitForFunction((prev) => /#(\d+)/.exec(document.querySelector(".results h2").textContent)[1] !== String(prev), ids.run);
      ids.submit = await currentSubmission(page);
      check(/Submit/.test(await text(page, ".results h2")), "the results say Submit");
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      const judging = fake.judge(ids.submit, "AC", { tests: testNames, benches: problem.benchmarks });
      await page.waitForSelector('.events li[data-event="test"]', { timeout: 20000 });
      await page.waitForSelector('.events li[data-event="bench"]', { timeout: 20000 });
      await judging;
      await page.waitForSelector('.verdict-card[data-verdict="AC"] [data-score]', { timeout: 20000 });
      check((await page.locator(".benches tbody tr").count()) === problem.benchmarks.length, "one row per shape");
      check((await page.locator(".chart svg rect.bar").count()) === problem.benchmarks.length, "one bar per shape");
      const spread = await page.getAttribute(".benches tbody tr:first-child span.nowrap", "title");
      check(/120 samples, stopped by rse; 2 other configurations screened out/.test(spread || ""), "a shape's spread says its samples and the configurations screened out: " + spread);
      const gpu = await text(page, ".benches [data-gpu]");
      check(gpu.includes(FAKE_GPU.name) && /copy 4\.20? TB\/s/.test(gpu), "the GPU and its measured limits are named: " + gpu);
      check(/TB\/s/.test(await text(page, ".chart svg")), "the bars carry the bandwidth");
      /* Issue 29: × PyTorch beside speed of light, with how it was measured. */
      check((await page.locator(".benches [data-pytorch-head]").count()) === 1, "a × PyTorch column");
      check(/L2 flushed/.test(await page.getAttribute(".benches [data-pytorch-head]", "title")), "its tooltip says how PyTorch was timed");
      check((await page.locator(".benches td [data-pytorch]").count()) === problem.benchmarks.length, "× PyTorch on every shape");
      check((await text(page, ".benches td [data-pytorch]")) === "1.50×", "PyTorch's time over yours: " + (await text(page, ".benches td [data-pytorch]")));
      check(/geometric mean 1\.50×/.test(await text(page, '.benches [data-pytorch-line="measured"]')), "the mean and PyTorch's version are said");
      check((await text(page, ".verdict-card [data-pytorch-speedup]")) === "1.50×", "the verdict card has × PyTorch");
      check((await quota(page, "submit")) === "4 Submits left this hour", "the submit quota went down: " + (await quota(page, "submit")));
      await shot(page, "06-accepted-timings", ".results");
    });

    await test("a Wrong Answer shows the failing test, its sizes and the mismatch table", async () => {
      await setEditor(page, wrong);
      await page.click('[data-action="run"]');
      await page.waitForFunction((prev) => /#(\d+)/.exec(document.querySelector(".results h2").textContent)[1] !== String(prev), ids.submit);
      ids.wa = await currentSubmission(page);
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      const failAt = testNames.findIndex((n) => /N=127$/.test(n));
      await fake.judge(ids.wa, "WA", { tests: testNames, benches: problem.benchmarks, failAt });
      await page.waitForSelector('.verdict-card[data-verdict="WA"]', { timeout: 20000 });
      check((await text(page, ".failure h3")).includes(testNames[failAt]), "the failing test is named");
      check(/N\s*127/.test(await text(page, ".failure table.sizes")), "its sizes are listed");
      check((await page.locator('.mismatch[data-output="C"] tbody tr').count()) === 3, "three mismatch rows");
      check(/nan/.test(await text(page, '.mismatch[data-output="C"] tbody')), "NaN outputs are shown as such");
      check((await page.locator(".testbar span.bad").count()) === 1, "one red square");
      await shot(page, "07-wrong-answer", ".results");
    });

    await test("a Runtime Error is explained", async () => {
      await page.click('[data-action="run"]');
      await page.waitForFunction((prev) => /#(\d+)/.exec(document.querySelector(".results h2").textContent)[1] !== String(prev), ids.wa);
      ids.re = await currentSubmission(page);
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      await fake.judge(ids.re, "RE", { tests: testNames, benches: problem.benchmarks, failAt: 3 });
      await page.waitForSelector('.verdict-card[data-verdict="RE"]', { timeout: 20000 });
      check(/index past the end/.test(await text(page, ".failure [data-hint]")), "an illegal address is explained");
      await shot(page, "08-runtime-error", ".results");
    });

    await test("my submissions: the list and a diff between two", async () => {
      await page.click("#tab-history");
      await page.waitForSelector(`tr[data-submission="${ids.ce}"]`);
      check((await page.locator(".history tbody tr").count()) === 5, "five submissions");
      await page.check(`tr[data-submission="${ids.ce}"] input`);
      await page.check(`tr[data-submission="${ids.run}"] input`);
      await page.click('[data-action="compare"]');
      await page.waitForSelector(`[data-diff="${ids.ce}-${ids.run}"]`);
      check((await page.locator(".diff tr.add").count()) > 0 && (await page.locator(".diff tr.del").count()) > 0, "added and removed lines");
      check((await editorText(page)) === wrong, "the editor was left alone");
      await shot(page, "09-history-diff");
    });

    await test("the leaderboard per GPU model", async () => {
      await page.click("#tab-leaderboard");
      await page.waitForSelector(`.leaderboard [data-gpu="${FAKE_GPU.name}"]`);
      check(/alice \(you\)/.test(await text(page, ".leaderboard tr.current")), "my row is marked");
      check((await text(page, ".leaderboard tr.current [data-pytorch]")) === "1.50×", "the board has a × PyTorch column");
      await page.selectOption("#lb-sort", "pytorch");
      await page.waitForSelector('.leaderboard[data-sort="pytorch"] tr.current');
      check(/alice \(you\)/.test(await text(page, ".leaderboard tr.current")), "ranked by × PyTorch (?sort=pytorch)");
    });

    await test("the path: solved, best score, progress", async () => {
      await page.goto(BASE + "/#/");
      await page.waitForSelector('li[data-problem="vector-add"][data-status="solved"]');
      check(/%/.test(await text(page, 'li[data-problem="vector-add"] .score')), "the best score");
      check(new RegExp(`1 of ${PROBLEMS}`).test(await text(page, "#progress-text")), "one problem solved");
    });

    /* Issue 29 item 2: Profile mode beside Run and Submit (profile.js). The fake GPU worker posts
     * the profile the server's tests use (tests/fixtures/profile/profile.json). */
    const profileFixture = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/fixtures/profile/profile.json"), "utf8"));
    await test("Profile: its button and shortcut, a Profiling stage, the panel (reading, kernels, chart, stalls, caches, bytes), the raw report downloaded", async () => {
      await page.goto(BASE + "/#/p/vector-add");
      await page.waitForSelector('[data-action="profile"]');
      const title = await page.getAttribute('[data-action="profile"]', "title");
      check(/Alt\+Enter/.test(title) && /10 Profiles left this hour/.test(title), "the button says its shortcut and the Profile quota left: " + title);
      await setEditor(page, solution);
      await page.keyboard.press("Control+Alt+Enter"); /* in the editor: its keymap */
      await page.waitForFunction(() => /^Profile #\d+/.test((document.querySelector(".results h2") || {}).textContent || ""), null, { timeout: 20000 });
      ids.profile = await currentSubmission(page);
      check((await page.locator('.stages [data-stage="profiling"]').count()) === 1, "a Profiling stage after the tests");
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      await fake.judge(ids.profile, "AC", {
        tests: testNames,
        benches: problem.benchmarks,
        profile: profileFixture,
        beforeResult: async () => {
          await page.waitForSelector('.stages [data-stage="profiling"].active', { timeout: 20000 });
          check(/profiling the kernels/.test(await text(page, "[data-status]")), "the status says it is profiling");
        },
      });
      await page.waitForSelector('.verdict-card[data-verdict="AC"]', { timeout: 20000 });
      await page.waitForSelector('.profile[data-profile="available"]', { timeout: 20000 });
      check(/not timed or scored/.test(await text(page, ".verdict-card")), "the verdict card says a Profile is not scored");
      check((await text(page, "[data-profile-reading]")) === profileFixture.reading, "the one-line reading, first");
      check((await page.locator(".profile tbody tr").count()) === 2, "a row per kernel launch");
      const row = await text(page, '.profile tbody tr[data-kernel="vector_add"]');
      check(/vector_add/.test(row) && /0\.771 ms/.test(row) && /memory-bound/.test(row) && /92% of DRAM bandwidth/.test(row), "the row: kernel, duration, limiter, reading: " + row);
      check((await page.locator("[data-profile-chart] rect[data-bar]").count()) === 12, "six bars per launch in the chart");
      check((await page.getAttribute('[data-profile-chart] rect[data-bar="dram_pct"]', "data-value")) === "91.8", "the DRAM bar is the DRAM %");
      check((await page.locator('[data-profile-chart] rect[data-bar="tensor_pct"][data-value="null"]').count()) === 1, "a null figure has no bar");
      check((await page.locator('[data-profile-chart] line[data-bar="occupancy_theoretical_pct"]').count()) === 2, "the theoretical occupancy is a tick per launch");
      const main = '.profile-launch[data-kernel="vector_add"]';
      check(/long scoreboard \(waiting on global memory\) 61\.0%/.test(await text(page, `${main} [data-fact="stalls"]`)), "the top stalls");
      check(/L1 0\.0%, L2 33\.0%/.test(await text(page, `${main} [data-fact="hits"]`)), "the hit rates");
      check(/1\.00× the problem's model/.test(await text(page, `${main} [data-fact="bytes"]`)), "bytes moved against the model");
      check(/limited by blocks per SM/.test(await text(page, '.profile-launch[data-kernel="vector_add_tail"] [data-fact="occupancy"]')), "what limits occupancy");
      const link = page.locator('.profile [data-download="profile"]');
      check((await link.getAttribute("href")) === `/api/submissions/${ids.profile}/profile`, "the raw report's link");
      const [download] = await Promise.all([page.waitForEvent("download", { timeout: 20000 }), link.click()]);
      check(download.suggestedFilename() === `profile-${ids.profile}.json`, "the file is named profile-ID.json: " + download.suggestedFilename());
      const raw = JSON.parse(fs.readFileSync(await download.path(), "utf8"));
      check(raw.submission === ids.profile && raw.problem === "vector-add", "the report says what it is of");
      check(raw.profile.raw["vector_add#0"]["dram__bytes.sum"] === 3221225472 && raw.profile.kernels.length === 2, "the report holds the summary and every raw metric");
      check((await page.getAttribute('[data-action="profile"]', "data-left")) === "9", "one Profile fewer left");
      await shot(page, "09b-profile", ".profile");
    });

    await test("a Profile the worker could not profile says why; the history says Profile", async () => {
      await page.click('[data-action="profile"]');
      await page.waitForFunction((prev) => /#(\d+)/.exec(document.querySelector(".results h2").textContent)[1] !== String(prev), ids.profile);
      const id = await currentSubmission(page);
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      const why = "the GPU's driver lets only administrators read its performance counters (NVreg_RestrictProfilingToAdminUsers=1)";
      await fake.judge(id, "AC", { tests: testNames, benches: problem.benchmarks, profile: { available: false, why } });
      await page.waitForSelector('.profile[data-profile="unavailable"]', { timeout: 20000 });
      check((await text(page, "[data-profile-why]")).includes(why), "the sentence why");
      check((await page.locator('.stages [data-stage="profiling"].done').count()) === 1, "the Profiling stage is done");
      /* The CUDA draft as the stories after this one expect it (the Wrong Answer's kernel). */
      await setEditor(page, wrong);
      await page.keyboard.press("Control+s");
      await waitText(page, ".toolbar .saved", /saved/i);
      await page.goto(`${BASE}/#/s/${ids.profile}`);
      await page.waitForSelector("[data-profile-chart]");
      check(/Profile by alice/.test(await text(page, "main")), "the submission's page says Profile");
    });

    /* Issue 29: personal API tokens for the command line (pages/account.js). */
    await test("API tokens: made by keyboard from the header, shown once with the login command, used, revoked", async () => {
      await page.focus("a.user");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#token-name");
      check((await page.getAttribute("a.user", "aria-current")) === "page", "the header's name marks the account page");
      check(/No API tokens yet/.test(await text(page, "[data-tokens]")), "no token yet");
      await page.focus("#token-name");
      await page.keyboard.type("laptop");
      await page.keyboard.press("Enter");
      await page.waitForSelector("[data-token-once]:focus");
      const token = await page.inputValue("#new-token");
      check(/^bwu_[A-Za-z0-9_-]{20,}$/.test(token), "the token is shown: " + token.slice(0, 8) + "...");
      check((await page.inputValue("#login-command")) === `blockwise login --server ${BASE}`, "with the command that stores it");
      await page.click('[data-copy="new-token"]');
      await waitText(page, "#new-token-said", /Copied|Ctrl\+C/);
      check((await page.locator("tr[data-token]").count()) === 1 && /laptop/.test(await text(page, "tr[data-token]")), "listed by name");
      check(/never/.test(await text(page, "tr[data-token]")), "never used yet");
      await shot(page, "21-api-token-made", "main");
      /* it acts as alice */
      const me = await page.evaluate(async (t) => {
        const r = await fetch("/api/me", { credentials: "omit", headers: { Authorization: "Bearer " + t } });
        return [r.status, (await r.json()).user];
      }, token);
      check(me[0] === 200 && me[1].name === "alice", "the token acts as alice: " + JSON.stringify(me));
      /* shown once: after a reload the page holds its name, never the token */
      await page.reload();
      await page.waitForSelector("tr[data-token]");
      check(!(await page.content()).includes(token), "the token is not shown again");
      check((await page.locator("#new-token").count()) === 0, "no token field");
      check(!/never/.test(await text(page, "tr[data-token]")), "last used: now");
      /* a narrow screen: no sideways scrolling */
      await page.setViewportSize({ width: 400, height: 800 });
      const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(over <= 1, `no sideways scrolling at 400 px (${over}px too wide)`);
      await shot(page, "22-api-tokens-narrow");
      await page.setViewportSize({ width: 1280, height: 800 });
      /* revoked, by keyboard (the confirmation is accepted) */
      await page.focus('tr[data-token] [data-action="revoke"]');
      await page.keyboard.press("Enter");
      await waitText(page, "main [role=alert]", /"laptop" is revoked/);
      await page.waitForSelector('[data-tokens="none"]');
      const after = await page.evaluate(async (t) => (await fetch("/api/me", { credentials: "omit", headers: { Authorization: "Bearer " + t } })).status, token);
      check(after === 401, `the revoked token is refused (${after})`);
    });

    /* Issue 11: Triton. vector-add is offered in CUDA and Triton here
     * (tests/cpu/browser.sh); the local judged compiles CUDA only, and so
     * does the fake GPU worker: a Triton Run waits, and the page says why. */
    const TRITON_DRAFT = "# @launch add_kernel grid=(cdiv(N, 1024)) args=(A, B, C, N, BLOCK=1024)\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\ndef add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):\n    pass  # my Triton draft";
    await test("Triton: the choice, the Python starter with its solve launcher, the Triton signature", async () => {
      await page.goto(BASE + "/#/p/vector-add");
      await page.waitForSelector(".editor .cm-content");
      check((await page.locator(".lang-switch input[data-lang]").count()) === 2, "a choice of CUDA or Triton");
      check(await page.isChecked('.lang-switch input[data-lang="cuda"]'), "CUDA until the learner chooses");
      ids.cudaDraft = await editorText(page);
      await page.click('.lang-choice:has(input[data-lang="triton"])');
      await page.waitForFunction((s) => Array.from(document.querySelectorAll(".editor .cm-line")).map((l) => l.textContent).join("\n") === s, problem.starters.triton);
      check(await page.isChecked('.lang-switch input[data-lang="triton"]'), "Triton is chosen");
      check(/\ndef solve\(A, B, C, N\):/.test(problem.starters.triton), "the Triton starter is a solve(A, B, C, N) launcher");
      check((await page.locator(".cm-cuda").count()) === 0, "no CUDA words are marked in Python");
      check(/Triton source/.test(await page.getAttribute(".editor .cm-content", "aria-label")), "the editor says it holds Triton");
      const sig = await text(page, "[data-signature=triton]");
      for (const want of ["Triton type", "*fp32", "i32 or i64"]) check(sig.includes(want), `the signature shows ${want}: ${sig.slice(0, 200)}`);
      check(!sig.includes("const float*"), "and no C types");
      check((await page.locator('[data-no-worker="triton"]').count()) === 1, "the page says no worker here compiles Triton before anything is run");
      await shot(page, "17-triton-starter");
    });

    await test("a draft per language survives a reload, and the choice is remembered", async () => {
      await setEditor(page, TRITON_DRAFT);
      check((await page.locator(".cm-directive").count()) >= 1, "a draft's # @launch line is highlighted as a directive");
      await page.keyboard.press("Control+s");
      await waitText(page, ".toolbar .saved", /saved/i);
      await page.reload();
      await page.waitForSelector(".editor .cm-content");
      check(await page.isChecked('.lang-switch input[data-lang="triton"]'), "Triton is still chosen after a reload");
      check((await editorText(page)) === TRITON_DRAFT, "the Triton draft came back");
      await page.click('.lang-choice:has(input[data-lang="cuda"])');
      await page.waitForFunction((s) => Array.from(document.querySelectorAll(".editor .cm-line")).map((l) => l.textContent).join("\n") === s, ids.cudaDraft);
      check((await page.locator(".cm-cuda").count()) > 0, "CUDA words are marked again");
      check((await text(page, "table.signature")).includes("const float*"), "the CUDA signature is back");
      await page.click('.lang-choice:has(input[data-lang="triton"])');
      await page.waitForFunction((s) => Array.from(document.querySelectorAll(".editor .cm-line")).map((l) => l.textContent).join("\n") === s, TRITON_DRAFT);
    });

    await test("a Triton Run is queued, and the page says no worker here can compile Triton", async () => {
      const before = await currentSubmission(page).catch(() => 0);
      await page.click('[data-action="run"]');
      await page.waitForFunction((prev) => {
        const x = document.querySelector(".results h2");
        const m = x && /#(\d+)/.exec(x.textContent);
        return m && m[1] !== String(prev);
      }, before);
      ids.triton = await currentSubmission(page);
      await page.waitForSelector('[data-waiting="language"][data-language="triton"]', { timeout: 20000 });
      const card = await text(page, '[data-waiting="language"]');
      check(/No worker here can compile Triton/.test(card), "the card says it plainly: " + card);
      check(/an admin adds a worker that can/.test(card), "and what happens next");
      check(/no worker here can compile Triton/.test(await text(page, ".results .status")), "so does the status line");
      check((await text(page, ".results .lang-tag")) === "Triton", "the results say Triton");
      await page.waitForFunction(() => !document.querySelector('[data-action="run"]').disabled && !document.querySelector('[data-action="submit"]').disabled);
      await page.click('[data-waiting="language"] details summary');
      check(/import triton/.test(await text(page, '[data-waiting="language"] pre[data-cmd="triton-check"]')), "how an admin adds one, folded out");
      await page.waitForFunction(() => /1 wait for a Triton worker/.test(document.querySelector('[data-quota="in-flight"]').textContent));
      await sleep(2500); /* the compile-only judged claims every few seconds: it must not take it */
      const s = await (await page.request.get(`${BASE}/api/submissions/${ids.triton}`)).json();
      check(s.language === "triton" && s.state === "queued" && s.attempts === 0, "queued in Triton, never claimed: " + JSON.stringify([s.language, s.state, s.attempts]));
      check(s.source === TRITON_DRAFT, "the Triton draft is what was sent");
      await shot(page, "18-triton-no-worker");
      await shot(page, "18b-triton-no-worker-results", ".results");
    });

    await test("the language in lists: my submissions (with a filter), the leaderboard, the path", async () => {
      await page.click("#tab-history");
      await page.waitForSelector(`tr[data-submission="${ids.triton}"] .lang-tag[data-language="triton"]`);
      check(/waiting for a Triton worker/.test(await text(page, `tr[data-submission="${ids.triton}"]`)), "the list says what it waits for");
      check((await page.locator(`tr[data-submission="${ids.submit}"] .lang-tag[data-language="cuda"]`).count()) === 1, "a CUDA row says CUDA");
      await page.selectOption('.history-view select[data-filter="language"]', "triton");
      await page.waitForFunction(() => document.querySelectorAll(".history tbody tr").length === 1);
      check((await page.locator(`.history tr[data-submission="${ids.triton}"]`).count()) === 1, "the Triton filter keeps the Triton Run");
      await shot(page, "19-history-triton");
      await page.click("#tab-leaderboard");
      await page.waitForSelector(`.leaderboard section[data-gpu="${FAKE_GPU.name}"][data-language="cuda"]`);
      check((await text(page, ".leaderboard section h3")) === `${FAKE_GPU.name} · CUDA`, "the board names its GPU and language");
      await page.goto(BASE + "/#/");
      await page.waitForSelector('li[data-problem="vector-add"] .langs');
      check((await text(page, 'li[data-problem="vector-add"] .langs')) === "in CUDA or Triton", "the path says vector-add can be solved in CUDA or Triton");
      check((await page.locator('li[data-problem="relu"] .langs').count()) === 0, "and says nothing for a CUDA-only problem");
      check(/or Triton, where a problem says/.test(await text(page, "#progress-h + p")), "the introduction mentions Triton");
    });

    await test("another learner cannot reach alice's code", async () => {
      await signOut(page);
      await page.goto(BASE + "/#/signup");
      await page.fill("#name", "bob");
      await page.fill("#password", "bob-password");
      await page.press("#password", "Enter");
      await page.waitForSelector('[data-user="bob"]');
      await page.goto(`${BASE}/#/s/${ids.submit}`);
      await page.waitForSelector(`[data-missing="${ids.submit}"]`);
      check((await page.locator(".cm-content").count()) === 0, "no code on the page");
      const codes = await page.evaluate(async (id) => {
        const a = await fetch(`/api/submissions/${id}`);
        const b = await fetch(`/api/submissions?user=alice`);
        const c = await fetch(`/api/submissions/${id}/events`);
        return [a.status, b.status, c.status, await a.text()];
      }, ids.submit);
      check(codes[0] === 404 && codes[2] === 404, `404 for the submission and its events (${codes[0]}, ${codes[2]})`);
      check(codes[1] === 403, `listing alice's submissions is refused (${codes[1]})`);
      check(!codes[3].includes("vector_add"), "no source in the answer");
      await page.goto(`${BASE}/#/history`);
      await page.waitForSelector(".history-view");
      await sleep(300);
      check((await page.locator(".history tbody tr").count()) === 0, "bob has no submissions");
      await page.goto(`${BASE}/#/p/vector-add/leaderboard`);
      await page.waitForSelector(".leaderboard table");
      check((await page.locator(".leaderboard a").count()) === 0, "no link to alice's submission");
      /* bob runs a correct kernel: compiled, it waits for a GPU (the admin's queue shows it) */
      await page.click("#tab-statement");
      await setEditor(page, solution);
      await page.click('[data-action="run"]');
      await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
      ids.bob = await currentSubmission(page);
    });

    await test("the server goes away and comes back: the page says so, then recovers", async () => {
      await stopChild(server);
      await page.goto(`${BASE}/#/`).catch(() => {});
      await page.evaluate(() => (location.hash = "#/history"));
      await page.waitForSelector('[data-banner="offline"]', { timeout: 15000 });
      await shot(page, "10-server-unreachable");
      server = await startServer();
      await page.waitForSelector('[data-banner="offline"]', { state: "detached", timeout: 20000 });
      await page.waitForSelector('[data-user="bob"]');
      await page.waitForSelector(`.history tr[data-submission="${ids.bob}"]`); /* the page was drawn again */
    });

    await test("admin: workers with their GPU and figures, the queue, problems; make bob an instructor", async () => {
      await signOut(page);
      await signIn(page, "admin", env("BW_ADMIN_PASSWORD"));
      await page.goto(`${BASE}/#/admin`);
      await page.waitForSelector('tr[data-worker="local-cpu"]');
      check(/compile-only/.test(await text(page, 'tr[data-worker="local-cpu"]')), "the local worker is compile-only");
      check(/alive/.test(await text(page, 'tr[data-worker="local-cpu"]')), "and alive");
      const g = await text(page, 'tr[data-worker="fake-gpu"]');
      check(g.includes(FAKE_GPU.name) && /copy 4\.20? TB\/s/.test(g), "the GPU worker's model and figures: " + g);
      check((await page.locator("table.problems tbody tr").count()) === PROBLEMS, `all ${PROBLEMS} problems`);
      check(/compiled, needs a GPU/.test(await text(page, `table.queue tr[data-submission="${ids.bob}"]`)), "bob's run waits in the queue for a GPU");
      check(/served/.test(await text(page, 'table.problems tr[data-problem="vector-add"]')), "vector-add is served");
      await page.fill("#role-user", "bob");
      await page.selectOption("#role-role", "instructor");
      await page.click('form:has(#role-user) button[type="submit"]');
      await waitText(page, "main [role=alert]", /bob is now instructor/);
      await shot(page, "11-admin");
      await page.click('tr[data-problem="softmax"] button:has-text("Disable")');
      await page.waitForSelector('tr[data-problem="softmax"] .verdict.WA');
      await page.click('tr[data-problem="softmax"] button:has-text("Enable")');
      await page.waitForSelector('tr[data-problem="softmax"] .verdict.AC');
    });

    await test("admin: each worker's languages, the Triton job's language in the queue, how to add a Triton worker", async () => {
      check((await text(page, 'tr[data-worker="local-cpu"] [data-languages]')) === "CUDA 13.0", "the local judged compiles CUDA 13.0: " + (await text(page, 'tr[data-worker="local-cpu"] [data-languages]')));
      check((await text(page, 'tr[data-worker="fake-gpu"] [data-languages]')) === "CUDA", "a worker that said nothing compiles CUDA");
      check(/Triton.*no worker compiles Triton/.test(await text(page, `table.queue tr[data-submission="${ids.triton}"]`)), "the queue says the job is Triton, and that no worker compiles it: " + (await text(page, `table.queue tr[data-submission="${ids.triton}"]`)));
      check(/No worker here can compile Triton/.test(await text(page, '[data-help="no-triton-worker"]')), "and that no worker compiles it");
      check(/CUDA, Triton/.test(await text(page, 'table.problems tr[data-problem="vector-add"]')), "vector-add is offered in CUDA and Triton");
      await shot(page, "20-admin-languages");
    });

    await test("admin reads alice's submission and can rejudge it", async () => {
      await page.goto(`${BASE}/#/s/${ids.wa}`);
      await page.waitForSelector(".editor.readonly .cm-content");
      check((await editorText(page)) === wrong, "alice's code");
      check((await page.locator('[data-action="rejudge"]').count()) === 1, "a rejudge button");
    });

    await test("instructor: the gradebook and any learner's submissions", async () => {
      await signOut(page);
      await signIn(page, "bob", "bob-password");
      check((await page.locator('.nav a[href="#/teach"]').count()) === 1, "a Teach link");
      await page.goto(`${BASE}/#/teach`);
      await page.waitForSelector("table.gradebook");
      const gb = await text(page, "table.gradebook");
      check(gb.includes("alice") && gb.includes("vector-add") && gb.includes("yes"), "alice solved vector-add");
      check((await page.getAttribute('a[href="/api/gradebook.csv"]', "download")) === "gradebook.csv", "a CSV download");
      await page.waitForSelector(`.history tr[data-submission="${ids.ce}"]`);
      await shot(page, "12-teach");
      await page.goto(`${BASE}/#/s/${ids.ce}`);
      await page.waitForSelector(".editor.readonly .cm-content");
      check((await editorText(page)) === CE_SOURCE, "an instructor reads alice's code");
    });

    await test("narrow screen, dark theme: readable, no sideways scrolling", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${BASE}/#/p/vector-add`);
      await page.waitForSelector(".editor .cm-content");
      await page.waitForSelector('[data-waiting="gpu"]'); /* bob's run, still waiting for a GPU, shown again */
      await page.getByRole("button", { name: /dark theme/ }).click();
      check((await page.evaluate(() => document.documentElement.dataset.theme)) === "dark", "the dark theme is on");
      const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(over <= 1, `no sideways scrolling (${over}px too wide)`);
      await page.screenshot({ path: path.join(ART, "13-problem-narrow-dark.png") });
      await shot(page, "13b-editor-narrow-dark", ".problem > .right");
      await page.reload();
      await page.waitForSelector(".editor .cm-content");
      check((await page.evaluate(() => document.documentElement.dataset.theme)) === "dark", "the theme is remembered");
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${BASE}/#/s/${ids.submit}`);
      await page.waitForSelector(".benches svg");
      await shot(page, "14-submission-dark");
      await page.getByRole("button", { name: /light theme/ }).click();
    });

    await test("400 px and 1280 px: no page is wider than the window, a timed submission's included; the header stays one line at 1280 px", async () => {
      /* bob, an instructor: one more link in the header than a learner has */
      await widths(page, [
        ["the path", "#/", '[data-problem="vector-add"]'],
        ["a problem", "#/p/vector-add", ".editor .cm-content"],
        ["a timed submission", `#/s/${ids.submit}`, ".benches svg"],
        ["a Wrong Answer", `#/s/${ids.wa}`, ".mismatch"],
        ["a Profile", `#/s/${ids.profile}`, "[data-profile-chart]"],
        ["my submissions", "#/history", ".history"],
        ["the leaderboard", "#/p/vector-add/leaderboard", ".leaderboard"],
        ["the gradebook", "#/teach", "table.gradebook"],
      ]);
      await page.setViewportSize({ width: 400, height: 844 });
      await page.goto(`${BASE}/#/s/${ids.submit}`);
      await page.waitForSelector(".benches svg");
      await shot(page, "13c-submission-400", ".benches");
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    await test("the longest header: a 32-byte name, three-digit quotas, 12 Runs waiting for a GPU: one line at 1280 px, nothing wider than 400 px", async () => {
      /* /api/me as the server would answer such a learner (the story's own
       * users have short names and small quotas) */
      const longest = (me) => {
        me.user = { ...me.user, name: "a-learner-with-a-32-byte-name-xy", role: "learner" };
        me.quota.run = { ...me.quota.run, limit: 120, used: 5, remaining: 115, window_seconds: 3600 };
        me.quota.submit = { ...me.quota.submit, limit: 30, used: 0, remaining: 30, window_seconds: 3600 };
        me.quota.in_flight = { ...me.quota.in_flight, limit: 4, used: 3, waiting_for_gpu: 12, waiting_counted: false, waiting_for_language: tritonWaits };
        return me;
      };
      let tritonWaits = 0;
      await page.route(`${BASE}/api/me`, async (route) => {
        const r = await route.fetch();
        await route.fulfill({ response: r, json: longest(await r.json()) });
      });
      try {
        await widths(
          page,
          [
            ["the path", "#/", '[data-problem="vector-add"]'],
            ["a problem", "#/p/vector-add", ".editor .cm-content"],
            ["my submissions", "#/history", ".history"],
          ],
          () => shot(page, "13d-longest-header-400"),
        );
        check(/12 wait for a GPU/.test(await quota(page, "in-flight")), "the waiting count is in the header: " + (await quota(page, "in-flight")));
        check((await quota(page, "run")) === "115 Runs left this hour", "three-digit quotas: " + (await quota(page, "run")));
        await shot(page, "13e-longest-header-1280");
        /* and Triton Runs waiting too: the in-flight chip's longest text */
        tritonWaits = 3;
        await page.setViewportSize({ width: 400, height: 844 });
        await page.goto(`${BASE}/#/p/vector-add`);
        await page.waitForSelector('[data-quota="parked-language"]');
        await noSideways(page, "a problem, with Runs waiting for a GPU and for a Triton worker");
        await page.setViewportSize({ width: 1280, height: 800 });
      } finally {
        await page.unroute(`${BASE}/api/me`);
      }
      await page.reload();
      await page.waitForSelector('[data-user="bob"]');
    });

    const recorded = process.env.BW_GPU_RESULTS;
    if (recorded && fs.existsSync(path.join(recorded, "vector-add-submit.json"))) {
      /* Results recorded on the H200 by tests/gpu/web.sh, replayed through the
       * worker API so that the pages show what the real GPU measured. */
      const ac = JSON.parse(fs.readFileSync(path.join(recorded, "vector-add-submit.json"), "utf8"));
      const wa = JSON.parse(fs.readFileSync(path.join(recorded, "vector-add-wrong.json"), "utf8"));
      await test("results recorded on the GPU machine: Accepted with its chart, Wrong Answer with its table", async () => {
        await fake.judge(ids.bob, "AC", { tests: testNames, benches: problem.benchmarks }); /* the queue's oldest */
        await signOut(page);
        await signIn(page, "alice", "alice-password");
        await page.goto(`${BASE}/#/p/vector-add`);
        await page.waitForSelector(".editor .cm-content");
        await page.click('.lang-choice:has(input[data-lang="cuda"])'); /* alice chose Triton last */
        check(await page.isChecked('.lang-switch input[data-lang="cuda"]'), "CUDA is chosen");
        await setEditor(page, ac.source.replace(/\n+$/, ""));
        await page.keyboard.press("Control+Shift+Enter");
        await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
        await fake.replay(await currentSubmission(page), ac.result);
        await page.waitForSelector('.verdict-card[data-verdict="AC"] [data-score]', { timeout: 20000 });
        check((await text(page, ".benches [data-gpu]")).includes(ac.result.gpu.name), "the GPU is named");
        await shot(page, "15-gpu-accepted-timings", ".results");
        await setEditor(page, wa.source.replace(/\n+$/, ""));
        await page.keyboard.press("Control+Enter");
        await page.waitForSelector('[data-waiting="gpu"]', { timeout: 60000 });
        await fake.replay(await currentSubmission(page), wa.result);
        await page.waitForSelector('.verdict-card[data-verdict="WA"]', { timeout: 20000 });
        check((await page.locator(".mismatch tbody tr").count()) > 0, "a mismatch table");
        await shot(page, "16-gpu-wrong-answer", ".results");
      });
      const tritonFile = path.join(recorded, "vector-add-triton-submit.json");
      if (fs.existsSync(tritonFile)) {
        const tr = JSON.parse(fs.readFileSync(tritonFile, "utf8"));
        await test("a Triton Submit recorded on the GPU machine: Accepted, timed, its chart, in Triton", async () => {
          /* The worker now compiles Triton too; the draft queued earlier is the oldest Triton job. */
          await fake.register([{ name: "cuda", version: "13.0" }, { name: "triton", version: "3.6.0" }]);
          await fake.judge(ids.triton, "WA", { tests: testNames, benches: [], kernel: "add_kernel" });
          await page.goto(`${BASE}/#/p/vector-add`);
          await page.waitForSelector(".editor .cm-content");
          await page.click('.lang-choice:has(input[data-lang="triton"])');
          check(await page.isChecked('.lang-switch input[data-lang="triton"]'), "Triton is chosen");
          await setEditor(page, tr.source.replace(/\n+$/, ""));
          const before = await currentSubmission(page).catch(() => 0);
          await page.keyboard.press("Control+Shift+Enter");
          await page.waitForFunction((prev) => {
            const x = document.querySelector(".results h2");
            const m = x && /#(\d+)/.exec(x.textContent);
            return m && m[1] !== String(prev);
          }, before);
          await fake.replay(await currentSubmission(page), tr.result);
          await page.waitForSelector('.verdict-card[data-verdict="AC"] [data-score]', { timeout: 20000 });
          await page.waitForSelector(".benches svg");
          check((await text(page, ".results .lang-tag")) === "Triton", "the results say Triton");
          check((await text(page, ".benches [data-gpu]")).includes(tr.result.gpu.name), "the GPU is named");
          await shot(page, "20-gpu-triton-accepted-timings", ".results");
        });
      } else {
        skipped++;
        console.log("skip the Triton Submit recorded on the GPU machine (tests/gpu/web.sh saves it where the worker compiles Triton)");
      }
    } else {
      skipped++;
      console.log("skip results recorded on the GPU machine (set BW_GPU_RESULTS to the directory tests/gpu/web.sh wrote)");
    }

    await test("a Run whose answer is lost is sent again with its Idempotency-Key: one submission, shown", async () => {
      const keys = [];
      let lost = false;
      await page.route("**/api/submissions", async (route) => {
        const req = route.request();
        if (req.method() !== "POST") return route.continue();
        keys.push(req.headers()["idempotency-key"]);
        if (lost) return route.continue();
        lost = true;
        await route.fetch(); /* the server makes the submission... */
        await route.abort("connectionreset"); /* ...and its answer never arrives */
      });
      await signOut(page).catch(() => {});
      await page.goto(BASE + "/#/signup");
      await page.fill("#name", "dora");
      await page.fill("#password", "dora-password");
      await page.press("#password", "Enter");
      await page.waitForSelector('[data-user="dora"]');
      await page.goto(`${BASE}/#/p/vector-add`);
      await page.waitForSelector(".editor .cm-content");
      const mine = async () => (await (await page.request.get(`${BASE}/api/submissions?limit=200`)).json()).submissions.length;
      const before = await mine();
      const prev = 0; /* dora has none yet */
      await setEditor(page, solution + "\n// its answer is lost once");
      await page.click('[data-action="run"]');
      await page.waitForFunction((p) => {
        const m = /#(\d+)/.exec((document.querySelector(".results h2") || {}).textContent || "");
        return m && m[1] !== String(p);
      }, prev, { timeout: 20000 });
      await page.unroute("**/api/submissions");
      check(keys.length === 2 && keys[0] === keys[1] && /^web-[0-9a-f]{32}$/.test(keys[0]), "posted twice with one key: " + JSON.stringify(keys));
      check((await mine()) === before + 1, "and it made one submission");
      await page.waitForSelector('.events li[data-event="state"]');
    });

    await test("nothing was fetched from outside the server; no script errors", async () => {
      check(outside.length === 0, "outside requests: " + outside.slice(0, 5).join(", "));
      check(pageErrors.length === 0, "page errors: " + pageErrors.slice(0, 5).join(" | "));
    });
  } finally {
    await context.close().catch(() => {});
    fs.rmSync(userDir, { recursive: true, force: true });
    await stopChild(worker);
    await stopChild(server);
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed ? 1 : 0;
}

for (const sig of ["SIGTERM", "SIGINT"])
  process.on(sig, () => {
    for (const c of children) c.kill("SIGTERM");
    process.exit(1);
  });

main().catch((e) => {
  console.log(`FAIL the browser tests stopped: ${(e && e.stack) || e}`);
  for (const c of children) c.kill("SIGTERM");
  console.log(`${passed} passed, ${failed + 1} failed, ${skipped} skipped`);
  process.exitCode = 1;
});
